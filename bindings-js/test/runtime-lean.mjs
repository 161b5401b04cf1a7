// The lean browser runtime (browser-lean/lib/, browser-lean/wasm/: the
// browser runtime without the shared controls, `retryplan/lean`, which the
// bundler plugin's `runtime: 'lean'` builds a page with) loaded in Node, for
// the Node tests, as test/runtime.mjs loads the browser runtime.
import { readFileSync } from 'node:fs';
import { initSync } from '../browser-lean/wasm/retryplan_js.js';
import { load } from '../browser-lean/lib/constants.js';

initSync({ module: readFileSync(new URL('../browser-lean/wasm/retryplan_js_bg.wasm', import.meta.url)) });
load();

export * from '../browser-lean/lib/api.js';
