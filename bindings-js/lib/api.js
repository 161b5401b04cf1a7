// The public API: the wasm exports as they are (Operation through its
// options-reading subclass), plus the error class and two host helpers (`run`,
// `retryFetch`) that only do I/O and sleep as told.
import { outcomeFromHttp } from '../wasm/retryplan_js.js';

export {
  Policy,
  Stats,
  Dependency,
  RetryBudget,
  CircuitBreaker,
  BreakerPermit,
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
  awsStandard2026Dependency,
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
