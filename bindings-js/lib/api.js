// The public API of the default entry: the classes over the wasm's objects,
// the error classes, the header names, the Outcome constructors and header
// readers, and the two helpers. The tools entry adds lib/tools.js.
import { outcomeFromHttp, outcomeFromHttpResponse, outcomeOfFailure } from './http.js';

export { wasmTrapped } from '../wasm/retryplan_js.js';
export { Policy, profileNames } from './policy.js';
export {
  Dependency,
  RetryBudget,
  RetryCharge,
  CircuitBreaker,
  BreakerPermit,
  RetrySlots,
  RetrySlot,
  ConcurrencyLimit,
} from './controls.js';
export { Operation } from './operation.js';
export { Driver } from './driver.js';
export { Stats } from './stats.js';
export { outcomeFromHttp } from './http.js';
export {
  parseRetryAfter,
  parseRetryAfterMsHeader,
  parseRateLimit,
  parseRateLimitReset,
  requestName,
} from './functions.js';
export { RetryplanError } from './convert.js';
export { OperationFailedError, GaveUpError, ReconcileRequiredError, RestartRequiredError } from './endings.js';
export { failureOf } from './failures.js';
export { GUIDANCE_HEADERS, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './constants.js';
export { run, retryFetch } from './helpers.js';

/**
 * Outcome constructors owned by the core: `fromHttp(status, retryAfter,
 * retryAfterMs, nowUnixMs)`, `fromHttpResponse(status, headers, nowUnixMs, reading or {reading, policy})`
 * and `fromFailure(failure)`.
 */
export const Outcome = Object.freeze({
  fromHttp: outcomeFromHttp,
  fromHttpResponse: outcomeFromHttpResponse,
  fromFailure: outcomeOfFailure,
});
