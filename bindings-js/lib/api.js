// The public API: the wasm exports as they are (Operation through its
// options-reading subclass), plus the error class and two host helpers (`run`,
// `retryFetch`) that only do I/O and sleep as told.
import { guidanceHeaderNames, outcomeFromHttp, outcomeFromHttpResponse as responseOutcome } from '../wasm/retryplan_js.js';

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
  parseRateLimit,
  parseRateLimitReset,
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

// Read from the core on first use: the wasm is not instantiated yet while
// this module is evaluated.
let guidanceHeaders;

/**
 * An HTTP response as an outcome, read by the core: `headers` is a `Headers`
 * (fetch's, whose `get` joins repeated lines with ", ") or a plain object of
 * header names (any case) to raw values. The first guidance header that asks
 * for a wait wins; Retry-After is read as `reading` says ("strict" or "lenient").
 */
export function outcomeFromHttpResponse(status, headers, nowUnixMs, reading) {
  let get;
  if (headers !== null && typeof headers === 'object' && typeof headers.get === 'function') {
    get = (name) => headers.get(name);
  } else {
    const entries = Object.entries(headers ?? {});
    get = (name) => entries.find(([key]) => key.toLowerCase() === name)?.[1];
  }
  guidanceHeaders ??= guidanceHeaderNames();
  return responseOutcome(status, guidanceHeaders.map((name) => get(name) ?? undefined), nowUnixMs, reading);
}

/**
 * Outcome constructors owned by the core: `Outcome.fromHttp(status, retryAfter, retryAfterMs, nowUnixMs)` and
 * `Outcome.fromHttpResponse(status, headers, nowUnixMs, reading)`.
 */
export const Outcome = Object.freeze({ fromHttp: outcomeFromHttp, fromHttpResponse: outcomeFromHttpResponse });
