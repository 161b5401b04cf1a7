// Propagation across hops (issue 27), in Node and the tools entry (not in the
// browser runtime: reading an incoming request is a server's job). The
// incoming request's context is read by the core (`IncomingContext.read`):
// the caller's remaining time, its attempts, its idempotency key and whether
// it retries, as the policy's `propagation.read_headers` says. A malformed
// header is refused with a RetryplanError (`invalid_request_header`, blame
// `caller`, its `field` the header), never read as absent. Every value is the core's.
import { _incomingFields, _incomingRead } from '../wasm/retryplan_js.js';
import { ms } from './args.js';
import { decided } from './convert.js';
import { REQUEST_HEADERS } from './generated/propagation.js';
import { header } from './http.js';
import { BRAND, Held, handle, handleOf } from './objects.js';
import { Policy } from './policy.js';

/**
 * A lookup of a request's headers: a function of the lower-case name, a
 * `Headers` or `Map`, or Node's `IncomingHttpHeaders` (a plain object by
 * lower-case name; a header sent as several field lines, an array, is joined
 * by `", "` as HTTP joins them, and then refused like any malformed value).
 */
function requestLookup(headers) {
  if (headers === null || typeof headers !== 'object' || typeof headers.get === 'function') return headers;
  return (name) => {
    const value = Object.hasOwn(headers, name) ? headers[name] : undefined;
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

/** `[receivedAtMs, callerRemainingNs, deadlineHeader, previousAttempts, idempotencyKey, callerRetries, deadlineMs]`. */
const fields = (context) => decided(_incomingFields(handle(context)));

/** What the request being served says about its caller: an opaque object the core reads and drivers start from. */
export class IncomingContext extends Held {
  /**
   * Reads `headers` (see `requestLookup`) under `policy` at `nowMs` (the
   * monotonic clock the helpers use, by default). Throws a RetryplanError
   * naming the header for a malformed value (answer the request with 400).
   */
  static read(policy, headers, nowMs = Math.floor(performance.now())) {
    const policyHandle = handleOf('policy', policy, Policy);
    const now = ms('nowMs', nowMs);
    const lookup = requestLookup(headers);
    const values = REQUEST_HEADERS.map((name) => header(lookup, name) ?? undefined);
    return new IncomingContext(decided(_incomingRead(policyHandle, now, values)));
  }

  /** When the request was read (ms, the reader's clock). */
  get receivedAtMs() {
    return fields(this)[0];
  }

  /** The caller's remaining time when it sent the request, in ns (a bigint), or undefined. */
  get callerRemainingNs() {
    return fields(this)[1];
  }

  /** The header that gave `callerRemainingNs`, or undefined. */
  get deadlineHeader() {
    return fields(this)[2];
  }

  /** Attempts the caller made before this one. */
  get previousAttempts() {
    return fields(this)[3];
  }

  /** The caller's idempotency key, or undefined. */
  get idempotencyKey() {
    return fields(this)[4];
  }

  /** A layer above retries this request. */
  get callerRetries() {
    return fields(this)[5];
  }

  /** The deadline of an operation serving the request (the caller's, less the policy's `propagation.reserve_ms`), or undefined. */
  get deadlineMs() {
    return fields(this)[6];
  }

  get [BRAND.IncomingContext]() {
    return true;
  }
}
