// npm's prepack check: refuses to pack a package whose build is missing or
// older than its sources (a package without its wasm installs and then fails
// at its first import). Run ./build.sh first.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('./', import.meta.url));
/** What build.sh makes and the package ships. */
const BUILT = [
  'wasm/retryplan_js.js',
  'wasm/retryplan_js_bg.wasm',
  'tools/wasm/retryplan_js.js',
  'tools/wasm/retryplan_js_bg.wasm',
  'tools/lib/api.js',
  'tools/lib/tools.js',
  'browser/wasm/retryplan_js.js',
  'browser/wasm/retryplan_js_bg.wasm',
  'browser/lib/browser.js',
  'browser/lib/browser.d.ts',
  'browser-lean/wasm/retryplan_js.js',
  'browser-lean/wasm/retryplan_js_bg.wasm',
  'browser-lean/lib/browser.js',
];
/** What the build is made from. */
const SOURCES = ['src', 'lib', '../core/src', 'Cargo.toml', '../Cargo.lock'];

const missing = BUILT.filter((path) => !existsSync(here + path));
if (missing.length > 0) {
  console.error(`retryplan: refusing to pack without a build (missing ${missing.join(', ')}): run ./build.sh first`);
  process.exit(1);
}

/** The newest modification time under `path` (what the build made left out), and the file that has it. */
function newest(path) {
  if (BUILT.some((built) => here + built === path)) return [0, path];
  const stat = statSync(path);
  if (!stat.isDirectory()) return [stat.mtimeMs, path];
  return readdirSync(path)
    .map((name) => newest(`${path}/${name}`))
    .reduce((best, next) => (next[0] > best[0] ? next : best), [0, path]);
}

const built = Math.min(...BUILT.map((path) => statSync(here + path).mtimeMs));
const [changed, source] = SOURCES.map((path) => newest(here + path)).reduce((best, next) =>
  next[0] > best[0] ? next : best,
);
if (changed > built) {
  console.error(
    `retryplan: refusing to pack a stale build (${source.replace(here, '')} is newer): run ./build.sh first`,
  );
  process.exit(1);
}
