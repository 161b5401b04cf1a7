// The public API: the wasm exports as they are, plus the error class and two
// host helpers (`run`, `retryFetch`) that only do I/O and sleep as told.
export {
  Policy,
  Operation,
  Stats,
  parseRetryAfter,
  parseRetryAfterMsHeader,
  parseGrpcPushback,
  encodeGrpcTimeout,
  parseGrpcTimeout,
  remainingBudgetMs,
  admit,
  profileNames,
} from '../wasm/retryplan_js.js';
export { RetryplanError } from './convert.js';
export { run, retryFetch } from './helpers.js';
