// The browser runtime (browser/lib/, browser/wasm/: what `retryplan` is in a
// browser or a bundler) loaded in Node, for the Node tests: its wasm
// instantiated from the file, as lib/node.js does for the default entry
// (the runtime's own entry fetches it, which Node cannot do for a file URL).
import { readFileSync } from 'node:fs';
import { initSync } from '../browser/wasm/retryplan_js.js';
import { load } from '../browser/lib/constants.js';

initSync({ module: readFileSync(new URL('../browser/wasm/retryplan_js_bg.wasm', import.meta.url)) });
load();

export * from '../browser/lib/api.js';
