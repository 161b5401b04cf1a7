// Makes browser/lib/, the JS of the browser runtime (`retryplan` under the
// `browser` and `default` conditions), from lib/ (called by build.sh after
// the runtime's wasm and glue are in browser/wasm/). As tools-entry.mjs does
// for the tools entry: every module of lib/ that uses the wasm is copied
// beside the runtime's glue, the modules that hold no wasm state and compose
// no message are re-exported from lib/ (one RetryplanError, one set of
// ending classes for every entry), and lib/runtime/ replaces a few modules:
// the entry, and messages.js (the runtime carries no message data, so no
// templates). Then the glue gets a stub for every function of the default
// entry's glue that the runtime's wasm is built without (the configuration
// reader): each throws `unsupported` naming what the
// page called and what to do instead (lib/error.js `notCarried`), never
// "undefined is not a function".
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Shared with every entry: re-exported from lib/ (with every generated module). */
const SHARED = new Set(['endings.js', 'entropy.js', 'error.js', 'failures.js', 'json.js', 'rules.js']);
/** Not in the runtime: the Node entry, the tools' additions, the bundler plugin. */
const LEFT_OUT = new Set(['node.js', 'tools.js', 'rollup.js']);

/**
 * The wasm functions the runtime is built without, by the glue's name: what
 * a page calls to reach each one. A function missing from the runtime's glue
 * and not listed here fails the build (so that this table stays whole).
 */
export const NOT_CARRIED = {
  _policyFromConfig: 'Policy.fromConfig',
  _policyProfile: 'Policy.profile',
  _dependencyFromConfig: 'Dependency.fromConfig',
  _budgetNew: 'new RetryBudget',
  _breakerNew: 'new CircuitBreaker',
};

/** The names a wasm-bindgen glue module exports. */
const exportsOf = (glue) => new Set([...readFileSync(glue, 'utf8').matchAll(/^export (?:function|const|class) ([\w$]+)/gm)].map(([, name]) => name));

function build() {
  const here = new URL('./', import.meta.url);
  const lib = new URL('lib/', here);
  const out = new URL('browser/lib/', here);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(new URL('generated/', out), { recursive: true });
  const runtime = new Set(readdirSync(new URL('runtime/', lib)));
  const generated = readdirSync(new URL('generated/', lib)).filter((file) => file.endsWith('.js')).map((name) => `generated/${name}`);
  for (const name of readdirSync(lib).filter((file) => file.endsWith('.js') && !LEFT_OUT.has(file))) {
    if (SHARED.has(name)) continue;
    const from = runtime.has(name) ? new URL(`runtime/${name}`, lib) : new URL(name, lib);
    writeFileSync(new URL(name, out), readFileSync(from));
  }
  for (const path of [...SHARED, ...generated]) {
    const up = '../'.repeat(path.split('/').length + 1);
    writeFileSync(new URL(path, out), `// Shared with the other entries: one module for all.\nexport * from '${up}lib/${path}';\n`);
  }

  const glue = new URL('browser/wasm/retryplan_js.js', here);
  const carried = exportsOf(glue);
  const missing = [...exportsOf(new URL('wasm/retryplan_js.js', here))].filter((name) => !carried.has(name));
  const unlisted = missing.filter((name) => NOT_CARRIED[name] === undefined);
  if (unlisted.length > 0) throw new Error(`browser-entry.mjs: the runtime's wasm lacks ${unlisted.join(', ')}: name what calls each in NOT_CARRIED`);
  const stubs = missing.map((name) => `export function ${name}() {\n  throw notCarried('${NOT_CARRIED[name]}');\n}\n`);
  appendFileSync(glue, `\n// Not in the browser runtime (browser-entry.mjs): each throws \`unsupported\` naming what to do instead.\nimport { notCarried } from '../lib/error.js';\n${stubs.join('')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) build();
