// What a page ships when Vite builds it for production: the README's checkout
// pages (examples/checkout-page.js: a compiled policy and retryFetch;
// examples/shop-page.js: the same with a Dependency, budget and breaker),
// each built by Vite with the bundler plugin (retryplan/rollup), every file of
// the output gzipped (-9) and summed, wasm and JS together. Used by
// test/page-size.test.mjs (the limits) and test/page.test.mjs (the page run
// in Chromium); `node page-size.mjs` prints the figures.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import retryplan from 'retryplan/rollup';

const packageRoot = fileURLToPath(new URL('./', import.meta.url));
const examples = new URL('./examples/', import.meta.url);

/**
 * The pages, by name: the example module each one's index.html imports, and
 * the plugin's options its Vite configuration has (the README's). The
 * checkout page makes no Dependency, so it is built with the lean runtime
 * (no shared controls); the shop page with the default one.
 */
export const PAGES = {
  checkout: { module: 'checkout-page.js', plugin: { runtime: 'lean' } },
  shop: { module: 'shop-page.js', plugin: {} },
};

const files = (dir) =>
  readdirSync(dir, { recursive: true })
    .map((name) => String(name))
    .filter((name) => statSync(join(dir, name)).isFile());

/**
 * Builds the page `name` with Vite (production, the plugin, the browser
 * conditions) into a fresh directory inside the package (so that `retryplan`
 * resolves by name); `use(dist)` runs before the directory is removed.
 * Resolves to what `use` returns, and `sizes`: every output file's raw and
 * gzipped bytes, by kind (`js`, `wasm`, `html`).
 */
export async function buildPage(name, use = async () => undefined, plugin = PAGES[name].plugin) {
  const page = PAGES[name].module;
  const work = mkdtempSync(join(packageRoot, '.page-'));
  try {
    for (const file of [page, 'checkout.policy.json', 'shop.dependency.json']) {
      cpSync(fileURLToPath(new URL(file, examples)), join(work, file));
    }
    // The page itself: the example's placeOrder, offered to the test (and nothing else of the package).
    writeFileSync(
      join(work, 'index.html'),
      `<!doctype html>\n<meta charset="utf-8">\n<title>checkout</title>\n<script type="module">\nimport { placeOrder } from './${page}';\nwindow.placeOrder = placeOrder;\n</script>\n`,
    );
    const dist = join(work, 'dist');
    await build({
      root: work,
      configFile: false,
      logLevel: 'silent',
      plugins: [retryplan(plugin)],
      build: { outDir: dist, emptyOutDir: true },
    });
    const sizes = files(dist).map((file) => {
      const bytes = readFileSync(join(dist, file));
      const kind = file.endsWith('.wasm')
        ? 'wasm'
        : file.endsWith('.js')
          ? 'js'
          : file.endsWith('.html')
            ? 'html'
            : 'other';
      return { file, kind, raw: bytes.length, gz: gzipSync(bytes, { level: 9 }).length };
    });
    const sum = (kind) => sizes.filter((each) => each.kind === kind).reduce((total, each) => total + each.gz, 0);
    const shipped = { wasm: sum('wasm'), js: sum('js'), files: sizes };
    shipped.total = shipped.wasm + shipped.js;
    return { shipped, used: await use(dist) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Each page as the README builds it, then with the other runtime (the figures before and after in one run).
  const builds = Object.keys(PAGES).flatMap((name) => [
    [name, PAGES[name].plugin],
    [name, PAGES[name].plugin.runtime === 'lean' ? {} : { runtime: 'lean' }],
  ]);
  for (const [name, plugin] of builds) {
    let shipped;
    try {
      ({ shipped } = await buildPage(name, undefined, plugin));
    } catch (error) {
      console.log(
        `${name} page, runtime ${plugin.runtime ?? 'default'}: not built: ${error.message.split('\n').find((line) => line.includes('retryplan'))}`,
      );
      continue;
    }
    console.log(
      `${name} page, runtime ${plugin.runtime ?? 'default'}: ${shipped.total} B gzipped (wasm ${shipped.wasm} B + JS ${shipped.js} B): ${shipped.files.map((f) => `${f.file} ${f.raw} B raw, ${f.gz} B gz`).join('; ')}`,
    );
  }
}
