// Every ```js and ```ts block of README.md, as a user would copy it: the
// blocks come from scripts/readme_snippets.py (the one extractor every
// language's README test uses; a block marked `<!-- not-tested: reason -->`
// is left out and counted there). All are checked together by tsc --strict
// (a js block with allowJs/checkJs, against lib/index.d.ts and
// lib/tools.d.ts), then each runs in its own Node process with the README's
// hosts served by tests/helpers/server.py: test/readme/route.mjs, preloaded,
// routes `https://HOST.example/PATH` there (the examples are never changed).
// A block whose code (not its comments) names an `.example` host must have
// reached the server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const root = join(packageRoot, '..');
const README = 'bindings-js/README.md';

/** The testable blocks of `lang`, from the shared extractor. */
const blocks = (lang) =>
  JSON.parse(
    execFileSync('python3', ['scripts/readme_snippets.py', 'extract', lang, README], { cwd: root, encoding: 'utf8' }),
  );
const BLOCKS = [
  ...blocks('js').map((b) => ({ ...b, file: `line_${b.line}.mjs` })),
  ...blocks('ts').map((b) => ({ ...b, file: `line_${b.line}.mts` })),
];

/** A block without its comments. */
const code = (block) => block.code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '');

// Inside the package (not node_modules, not /tmp), so that `import 'retryplan'`
// resolves to this package by its own name, for Node and for tsc.
let work;
let server;
let port;

before(async () => {
  work = mkdtempSync(join(packageRoot, '.readme-'));
  for (const block of BLOCKS) writeFileSync(join(work, block.file), block.code);
  cpSync(fileURLToPath(new URL('./readme/your-db.mjs', import.meta.url)), join(work, 'your-db.mjs'));
  server = spawn('python3', [join(root, 'tests/helpers/server.py'), join(root, 'tests/helpers/readme-hosts.json')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = await createInterface({ input: server.stdout })
    [Symbol.asyncIterator]()
    .next()
    .then(({ value }) => [value]);
  assert.match(line, /^listening 127\.0\.0\.1:\d+$/);
  port = line.split(':').at(-1);
});

after(() => {
  server?.stdin.end();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the README has js and ts examples', () => {
  assert.ok(BLOCKS.length >= 4, `found ${BLOCKS.length}`);
});

test('every block type-checks under tsc --strict (js blocks with checkJs)', () => {
  const tsc = join(packageRoot, 'node_modules', '.bin', 'tsc');
  const flags = [
    '--strict',
    '--allowJs',
    '--checkJs',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--lib',
    'es2022,dom',
    '--rootDir',
    work,
    '--outDir',
    join(work, 'out'),
  ];
  const checked = spawnSync(tsc, [...flags, ...BLOCKS.map((b) => join(work, b.file))], { encoding: 'utf8' });
  let report = checked.stdout + checked.stderr;
  for (const block of BLOCKS)
    report = report.replaceAll(block.file, `README.md block at line ${block.line} (${block.file})`);
  assert.equal(checked.status, 0, report);
});

for (const block of BLOCKS) {
  test(`the block at README.md:${block.line} runs against the local server`, async () => {
    await fetch(`http://127.0.0.1:${port}/__reset`, { method: 'POST' });
    const script = join(work, 'out', block.file.replace(/\.mts$/, '.mjs'));
    const ran = spawnSync(
      process.execPath,
      ['--import', fileURLToPath(new URL('./readme/route.mjs', import.meta.url)), script],
      {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, RETRYPLAN_README_PORT: port },
      },
    );
    assert.equal(ran.status, 0, `${README}:${block.line}:\n${ran.stdout}${ran.stderr}`);
    const routed = Number(ran.stderr.split('readme: ').at(-1).split(' ')[0]);
    if (code(block).includes('.example'))
      assert.ok(routed > 0, `${README}:${block.line}: names an .example host but sent nothing to the server`);
  });
}

// The README's first example with a typo in its policy, as a JS user would
// make it (Policy.fromConfig with `maxAttempt`): what "What bad input gets"
// promises, a RetryplanError `invalid_config` naming the field by its
// snake_case path, whose message names the key as written and suggests the
// camelCase one.
test('the first example with a misspelt policy field gets the camelCase suggestion', () => {
  const first = BLOCKS.reduce((a, b) => (a.line < b.line ? a : b));
  const compiled = join(work, 'out', first.file.replace(/\.mts$/, '.mjs'));
  const source = readFileSync(compiled, 'utf8');
  const written = "Policy.profile('checkout')";
  assert.ok(source.includes(written), `the first example builds its policy with ${written}`);
  const typo = join(work, 'out', 'first-with-typo.mjs');
  writeFileSync(typo, source.replace(written, 'Policy.fromConfig({ maxAttempt: 3, totalTimeoutMs: 800 })'));
  const probe = join(work, 'out', 'first-with-typo-probe.mjs');
  writeFileSync(
    probe,
    `try { await import('./first-with-typo.mjs'); console.log('{}'); } catch (e) {
    console.log(JSON.stringify({ ours: e instanceof (await import('retryplan')).RetryplanError, code: e.code, field: e.field, config: e.config, blame: e.blame, message: e.message }));
  }`,
  );
  const ran = spawnSync(process.execPath, [probe], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(ran.status, 0, ran.stderr);
  const error = JSON.parse(ran.stdout.trim().split('\n').at(-1));
  assert.deepEqual(
    { ours: error.ours, code: error.code, field: error.field, config: error.config, blame: error.blame },
    { ours: true, code: 'invalid_config', field: 'max_attempt', config: 'policy', blame: 'configuration' },
  );
  assert.match(
    error.message,
    /^invalid policy configuration at `maxAttempt`: unknown field `maxAttempt` \(did you mean `maxAttempts`\?\), expected one of `maxAttempts`, `totalTimeoutMs`, /,
  );
});
