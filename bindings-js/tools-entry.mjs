// Makes tools/lib/, the JS of the tools entry (`retryplan/tools`), from lib/
// (called by build.sh). The tools wasm has its own glue (tools/wasm/), and
// every module of lib/ that uses the wasm is copied unchanged beside it, so
// that its relative import of `../wasm/retryplan_js.js` names the tools glue
// there. The modules that hold no wasm state (SHARED) are re-exported from
// lib/ instead: both entries share them, so `instanceof RetryplanError` holds
// for an error of either. The entry files also export lib/tools.js, the
// tools' additions.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const lib = new URL('./lib/', import.meta.url);
const out = new URL('./tools/lib/', import.meta.url);
const SHARED = new Set(['args.js', 'convert.js', 'endings.js', 'entropy.js', 'failures.js', 'json.js', 'messages.js', 'rules.js']);
const ENTRIES = new Set(['node.js', 'browser.js']);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const name of readdirSync(lib).filter((file) => file.endsWith('.js'))) {
  const source = readFileSync(new URL(name, lib), 'utf8');
  let text = source;
  if (SHARED.has(name)) {
    // A shared module may import only other shared modules: never the wasm.
    for (const [, imported] of source.matchAll(/from '([^']+)'/g)) {
      if (!SHARED.has(imported.replace(/^\.\//, ''))) throw new Error(`lib/${name} is shared by both entries but imports ${imported}`);
    }
    text = `// Shared with the default entry: one module for both.\nexport * from '../../lib/${name}';\n`;
  } else if (ENTRIES.has(name)) {
    text = `${source}export * from './tools.js';\n`;
  }
  writeFileSync(new URL(name, out), text);
}
// The generated constants hold no wasm state either: shared the same way.
mkdirSync(new URL('generated/', out));
for (const name of readdirSync(new URL('generated/', lib)).filter((file) => file.endsWith('.js'))) {
  writeFileSync(new URL(`generated/${name}`, out), `// Shared with the default entry: one module for both.\nexport * from '../../../lib/generated/${name}';\n`);
}
