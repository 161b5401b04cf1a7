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

/** The pages, by name: the example module each one's index.html imports. */
export const PAGES = { checkout: 'checkout-page.js', shop: 'shop-page.js' };

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
export async function buildPage(name, use = async () => undefined) {
  const work = mkdtempSync(join(packageRoot, '.page-'));
  try {
    for (const file of [PAGES[name], 'checkout.policy.json', 'shop.dependency.json']) {
      cpSync(fileURLToPath(new URL(file, examples)), join(work, file));
    }
    // The page itself: the example's placeOrder, offered to the test (and nothing else of the package).
    writeFileSync(
      join(work, 'index.html'),
      `<!doctype html>\n<meta charset="utf-8">\n<title>checkout</title>\n<script type="module">\nimport { placeOrder } from './${PAGES[name]}';\nwindow.placeOrder = placeOrder;\n</script>\n`,
    );
    const dist = join(work, 'dist');
    await build({
      root: work,
      configFile: false,
      logLevel: 'silent',
      plugins: [retryplan()],
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
  for (const name of Object.keys(PAGES)) {
    const { shipped } = await buildPage(name);
    console.log(
      `${name} page: ${shipped.total} B gzipped (wasm ${shipped.wasm} B + JS ${shipped.js} B): ${shipped.files.map((f) => `${f.file} ${f.raw} B raw, ${f.gz} B gz`).join('; ')}`,
    );
  }
}
