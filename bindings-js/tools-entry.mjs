// Makes tools/lib/, the JS of the tools entry (`retryplan/tools`), from lib/
// (called by build.sh). The tools wasm has its own glue (tools/wasm/), and
// every module of lib/ that uses the wasm is copied unchanged beside it, so
// that its relative import of `../wasm/retryplan_js.js` names the tools glue
// there. The modules that hold no wasm state (SHARED) are re-exported from
// lib/ instead: both entries share them, so `instanceof RetryplanError` holds
// for an error of either. The entry files also export lib/tools.js, the
// tools' additions.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The modules of lib/ that hold no wasm state, shared by both entries. */
export const SHARED = new Set([
  'args.js',
  'convert.js',
  'endings.js',
  'entropy.js',
  'error.js',
  'failures.js',
  'json.js',
  'messages.js',
  'rules.js',
  'words.js',
]);
const ENTRIES = new Set(['node.js', 'browser.js']);
// Build-time modules no entry imports (the bundler plugin, which loads the tools entry itself): not copied.
const BUILD_TIME = new Set(['rollup.js']);

/**
 * The shared modules of `lib` (a directory URL), by path under it: SHARED and
 * every generated module, each checked to import only shared modules, never
 * the wasm (the generated ones too: they are shared without being listed).
 */
export function sharedModules(lib) {
  const generated = readdirSync(new URL('generated/', lib)).filter((file) => file.endsWith('.js'));
  const shared = new Set([...SHARED, ...generated.map((name) => `generated/${name}`)]);
  for (const path of shared) {
    const source = readFileSync(new URL(path, lib), 'utf8');
    for (const [, imported] of source.matchAll(/from '([^']+)'/g)) {
      const target = new URL(imported, new URL(path, lib)).href.slice(lib.href.length);
      if (!shared.has(target)) throw new Error(`lib/${path} is shared by both entries but imports ${imported}`);
    }
  }
  return shared;
}

/** Writes tools/lib/ from lib/. */
function build() {
  const lib = new URL('./lib/', import.meta.url);
  const out = new URL('./tools/lib/', import.meta.url);
  const shared = sharedModules(lib);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(new URL('generated/', out), { recursive: true });
  for (const name of readdirSync(lib).filter((file) => file.endsWith('.js') && !BUILD_TIME.has(file))) {
    let text = readFileSync(new URL(name, lib), 'utf8');
    if (ENTRIES.has(name)) text = `${text}export * from './tools.js';\n`;
    writeFileSync(new URL(name, out), text);
  }
  // A shared module (the generated constants too) is re-exported: one module for both entries.
  for (const path of shared) {
    const up = '../'.repeat(path.split('/').length + 1);
    writeFileSync(
      new URL(path, out),
      `// Shared with the default entry: one module for both.\nexport * from '${up}lib/${path}';\n`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) build();
