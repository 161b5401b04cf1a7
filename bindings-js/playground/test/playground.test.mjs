// The playground in headless Chromium: the static build (vite build) served by
// a tiny static server, driven as a person would: load, break a field, see the
// error naming it, fix it, see the timeline and the simulation change.
// Screenshots go to test/screenshots/ and are checked to be real renderings;
// UPDATE_SCREENSHOT=1 also refreshes the checked-in ../playground.png (the
// page as loaded).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { chromium } from 'playwright-core';

const here = fileURLToPath(new URL('..', import.meta.url));
const dist = join(here, 'dist');
const shots = join(here, 'test', 'screenshots');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

let server;
let url;
let context;
let profile;

/** Serves `root` on a free local port; only files under it. */
function serve(root) {
  const http = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    try {
      const body = readFileSync(file);
      response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(http)));
}

before(async () => {
  await build({ configFile: join(here, 'vite.config.js') });
  server = await serve(dist);
  url = `http://127.0.0.1:${server.address().port}/`;
  mkdirSync(shots, { recursive: true });
  profile = mkdtempSync(join(tmpdir(), 'retryplan-playground-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
});

/** What the page shows once it has settled in `state`. */
async function settled(page, state) {
  await page.waitForSelector(`body[data-state="${state}"]`, { timeout: 60000 });
  return page.evaluate(() => ({
    status: document.getElementById('status').textContent,
    problems: [...document.querySelectorAll('#problems li')].map((item) => ({
      field: item.dataset.field,
      text: item.textContent,
    })),
    attemptsDrawn: document.querySelectorAll('#timeline svg rect[data-attempt]').length,
    timelineSvg: document.querySelector('#timeline svg')?.outerHTML ?? '',
    simulationSvg: document.querySelector('#simulation svg')?.outerHTML ?? '',
    simulatedAttempts: Number(document.getElementById('simulation').dataset.attempts ?? 0),
    simStatus: document.getElementById('sim-status').textContent,
    warnings: [...document.querySelectorAll('#warnings li')].map((item) => item.textContent),
  }));
}

/** Replaces `from` with `to` in the editor as typing would (an input event). */
async function edit(page, from, to) {
  await page.evaluate(
    ([from, to]) => {
      const editor = document.getElementById('editor');
      if (!editor.value.includes(from)) throw new Error(`the editor has no ${from}`);
      editor.value = editor.value.replace(from, to);
      editor.dispatchEvent(new Event('input', { bubbles: true }));
    },
    [from, to],
  );
}

/** A screenshot that is a real rendering: a PNG of some size with many colours. */
async function screenshot(page, name) {
  const path = join(shots, name);
  const png = await page.screenshot({ path, fullPage: true });
  assert.ok(png.length > 20000, `${name} is only ${png.length} bytes`);
  assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
  // Decode it in the browser and count distinct colours on a grid of samples.
  const probe = await context.newPage();
  try {
    const colours = await probe.evaluate(async (data) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const draw = canvas.getContext('2d');
      draw.drawImage(image, 0, 0);
      const seen = new Set();
      for (let y = 0; y < image.height; y += 7) {
        for (let x = 0; x < image.width; x += 7) seen.add(draw.getImageData(x, y, 1, 1).data.join(','));
      }
      return seen.size;
    }, png.toString('base64'));
    assert.ok(colours >= 12, `${name} has only ${colours} colours: not a rendering`);
  } finally {
    await probe.close();
  }
  return path;
}

test('edit a field, see the error at it, fix it, see the timeline and the simulation change', async () => {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(url);

  const first = await settled(page, 'simulated');
  assert.match(first.status, /^ok \(policy, dependency, scenario\)/);
  assert.equal(first.attemptsDrawn, 3, 'max_attempts 3 in 800 ms: three attempts drawn');
  assert.match(first.simulationSvg, /^<svg/);
  assert.ok(first.simulatedAttempts > 0);
  assert.match(first.simStatus, /5 variants, .* attempts at the dependency, simulated in \d+ ms/);
  const loaded = await screenshot(page, 'loaded.png');
  if (process.env.UPDATE_SCREENSHOT === '1') copyFileSync(loaded, join(here, 'playground.png'));

  // A misspelt field and a bad enum value: both reported at once, by field.
  await edit(page, '"max_attempts": 3', '"max_attempt": 2');
  await edit(page, '"jitter": {"kind": "full"}', '"jitter": {"kind": "ful"}');
  const broken = await settled(page, 'invalid');
  assert.match(broken.status, /^invalid: 2 problems/);
  const fields = broken.problems.map((problem) => problem.field).sort();
  assert.deepEqual(fields, ['policy.jitter.kind', 'policy.max_attempt']);
  const misspelt = broken.problems.find((problem) => problem.field === 'policy.max_attempt');
  assert.match(misspelt.text, /did you mean `max_attempts`/);
  assert.ok(await page.isVisible('#stale-note'), 'the charts are marked as showing the last valid version');
  await screenshot(page, 'invalid.png');

  // Fixed: two attempts now, and a different fleet run.
  await edit(page, '"max_attempt": 2', '"max_attempts": 2');
  await edit(page, '"jitter": {"kind": "ful"}', '"jitter": {"kind": "full"}');
  const fixed = await settled(page, 'simulated');
  assert.deepEqual(fixed.problems, []);
  assert.ok(!(await page.isVisible('#stale-note')));
  assert.equal(fixed.attemptsDrawn, 2);
  assert.notEqual(fixed.timelineSvg, first.timelineSvg);
  assert.notEqual(fixed.simulationSvg, first.simulationSvg);
  assert.notEqual(fixed.simulatedAttempts, first.simulatedAttempts);

  // A caller's deadline (explain --deadline-ms): fewer attempts fit, and a warning says so.
  await page.fill('#deadline', '300');
  await page.dispatchEvent('#deadline', 'change');
  const cut = await settled(page, 'simulated');
  assert.equal(cut.attemptsDrawn, 1);
  assert.ok(
    cut.warnings.some((warning) => /only 1 attempt fits/.test(warning)),
    cut.warnings.join('; '),
  );
  await page.fill('#deadline', '');
  await page.dispatchEvent('#deadline', 'change');
  assert.equal((await settled(page, 'simulated')).attemptsDrawn, 2);

  // Too large for the page: refused with the field, not run.
  await edit(page, '"arrivals_per_second": 500', '"arrivals_per_second": 5000');
  const large = await settled(page, 'simulation-refused');
  assert.match(large.simStatus, /scenario\.arrivals_per_second: .*at most/);
  await edit(page, '"arrivals_per_second": 5000', '"arrivals_per_second": 500');
  await settled(page, 'simulated');

  await screenshot(page, 'fixed.png');
  assert.deepEqual(errors, []);
  await page.close();
});
