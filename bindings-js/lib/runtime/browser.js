// The browser runtime's entry (`retryplan` for a browser or a bundler; browser-entry.mjs
// puts it in browser/lib/): fetches and instantiates the runtime's wasm
// (browser/wasm/, built without the configuration reader and the message
// data) once, then exports the API.
import init from '../wasm/retryplan_js.js';
import { load } from './constants.js';

await init({ module_or_path: new URL('../wasm/retryplan_js_bg.wasm', import.meta.url) });
load();

export * from './api.js';
