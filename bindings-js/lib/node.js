// Node entry: loads the wasm synchronously from the package, then exports the API.
import { readFileSync } from 'node:fs';
import { initSync } from '../wasm/retryplan_js.js';
import { load } from './constants.js';
import { propagateEveryAttempt } from './ambient.js';

initSync({ module: readFileSync(new URL('../wasm/retryplan_js_bg.wasm', import.meta.url)) });
load();
// A service's retryFetch tells its next hop it retries, served request or not (a page's does not: lib/ambient.js).
propagateEveryAttempt();

export * from './api.js';
export { IncomingContext } from './propagation.js';
export { currentIncoming, propagation } from './server.js';
export { instrumentOpenTelemetry, uninstrumentOpenTelemetry } from './otel.js';
