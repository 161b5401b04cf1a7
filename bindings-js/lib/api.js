// The public API: the wasm exports as they are (Operation and Driver through
// their subclasses, which read options and pass the common outcomes as
// numbers), the error classes, the header names, and the two helpers.
import { outcomeFromHttp, outcomeFromHttpResponse, outcomeOfFailure, RetryBudget } from '../wasm/retryplan_js.js';

// `onSuccess(nowMs, charge?)` / `onFailure(nowMs, charge?)`: wasm-bindgen takes an
// optional object only by moving it (a second use would then read as "no
// charge"), so a charge goes by reference to its own export, which refuses a
// second use with "invalid_argument".
for (const name of ['onSuccess', 'onFailure']) {
  const first = RetryBudget.prototype[name];
  const charged = RetryBudget.prototype[`__${name}Charged`];
  RetryBudget.prototype[name] = function (nowMs, charge) {
    return charge === undefined || charge === null ? first.call(this, nowMs) : charged.call(this, nowMs, charge);
  };
}

export {
  Policy,
  Stats,
  Dependency,
  RetryBudget,
  CircuitBreaker,
  BreakerPermit,
  RetryCharge,
  ConcurrencyLimit,
  outcomeFromHttp,
  redeliver,
  parseRetryAfter,
  parseRetryAfterMsHeader,
  parseRateLimit,
  parseRateLimitReset,
  parseGrpcPushback,
  encodeGrpcTimeout,
  parseGrpcTimeout,
  encodeGrpcTimeoutNs,
  parseGrpcTimeoutNs,
  awsErrorCodeFromResponse,
  awsStandardDependency,
  awsStandard2026Dependency,
  ServiceConfig,
  remainingBudgetMs,
  admit,
  profileNames,
  wasmTrapped,
} from '../wasm/retryplan_js.js';
export { Operation } from './operation.js';
export { Driver } from './driver.js';
export { RetryplanError } from './convert.js';
export { OperationFailedError, GaveUpError, ReconcileRequiredError, RestartRequiredError } from './endings.js';
export { failureOf } from './failures.js';
export { GUIDANCE_HEADERS, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './constants.js';
export { run, retryFetch } from './helpers.js';

/**
 * Outcome constructors owned by the core: `fromHttp(status, retryAfter,
 * retryAfterMs, nowUnixMs)`, `fromHttpResponse(status, headers, nowUnixMs, reading)`
 * and `fromFailure(failure)`.
 */
export const Outcome = Object.freeze({
  fromHttp: outcomeFromHttp,
  fromHttpResponse: outcomeFromHttpResponse,
  fromFailure: outcomeOfFailure,
});
