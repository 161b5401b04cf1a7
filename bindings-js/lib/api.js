// The public API: the wasm exports as they are (Operation through its
// options-reading subclass), plus the error class and two host helpers (`run`,
// `retryFetch`) that only do I/O and sleep as told.
import { outcomeFromHttp, RetryBudget } from '../wasm/retryplan_js.js';

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
  parseGrpcPushback,
  encodeGrpcTimeout,
  parseGrpcTimeout,
  encodeGrpcTimeoutNs,
  parseGrpcTimeoutNs,
  awsErrorCodeFromResponse,
  awsStandardDependency,
  ServiceConfig,
  remainingBudgetMs,
  admit,
  profileNames,
} from '../wasm/retryplan_js.js';
export { Operation } from './operation.js';
export { RetryplanError } from './convert.js';
export { run, retryFetch } from './helpers.js';

/** Outcome constructors owned by the core: `Outcome.fromHttp(status, retryAfter, retryAfterMs, nowUnixMs)`. */
export const Outcome = Object.freeze({ fromHttp: outcomeFromHttp });
