// Browser (and bundler) entry, the browser runtime's too (browser-entry.mjs copies it beside the runtime's
// glue): fetches and instantiates the wasm beside it once, then exports the API.
import init from '../wasm/retryplan_js.js';
import { load } from './constants.js';

await init({ module_or_path: new URL('../wasm/retryplan_js_bg.wasm', import.meta.url) });
load();

export * from './api.js';
