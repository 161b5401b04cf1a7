// The helpers: adapters from a runtime's I/O to the core's Driver, run by the
// one host loop (host.js). They decide nothing: the driver says when attempts
// start, time out, hedge, wait and end; the failure table (failures.js) and
// the caller's `outcomeOfError` hook say what an error means.
import { outcomeFromHttpResponse } from '../wasm/retryplan_js.js';
import { RetryplanError } from './convert.js';
import { Driver } from './driver.js';
import { endingError } from './endings.js';
import { failureOf } from './failures.js';
import { Host } from './host.js';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from './constants.js';

const monotonicNow = () => performance.now();
const SUCCESS = Object.freeze({ type: 'success' });
const NOT_RETRYABLE = Object.freeze({ type: 'application', verdict: 'not_retryable' });

/** Reports an attempt that threw: the failure table first, then the hook (by default: not retryable). */
function settleThrown(host, entry, thrown, outcomeOfError, failure = failureOf(thrown)) {
  if (failure !== undefined) return host.settleFailure(entry, failure, thrown);
  let outcome;
  try {
    outcome = outcomeOfError?.(thrown);
  } catch (hookError) {
    return host.abandon(hookError);
  }
  host.settle(entry, outcome ?? NOT_RETRYABLE, undefined, thrown);
}

/** The driver's options from a helper's: `undefined` (no options to read) when there are none. */
function driverOptions(options, extra) {
  const { seed, idempotencyKey, deadlineMs, dependency, stats, onDecision } = options;
  if (seed === undefined && idempotencyKey === undefined && deadlineMs === undefined && dependency === undefined && stats === undefined && onDecision === undefined && extra === undefined) return undefined;
  return { seed, idempotencyKey, deadlineMs, dependency, stats, recordEvents: onDecision !== undefined, ...extra };
}

/** What every attempt's `attempt(context)` gets; `idempotencyKey` and `signal` are own, enumerable, lazy getters. */
const ENTRY = Symbol('retryplan.attempt');
const KEY = { get: function idempotencyKey() { return this[ENTRY].host.key(); }, enumerable: true };
const SIGNAL = { get: function signal() { return this[ENTRY].signal; }, enumerable: true };
class AttemptContext {
  constructor(entry) {
    const { plan } = entry;
    this.attempt = plan.attempt;
    this.hedge = plan.hedge;
    this.timeoutMs = plan.timeoutMs;
    this.abortAtMs = plan.abortAtMs;
    this.requestId = plan.requestId;
    Object.defineProperty(this, 'idempotencyKey', KEY);
    Object.defineProperty(this, 'signal', SIGNAL);
    this[ENTRY] = entry;
  }
}

/** The operation's key, read from the driver once (before it is freed: see `conclude`). */
function keyOf(host) {
  return (host.keyText ??= host.driver.idempotencyKey);
}

/** Frees the driver once the helper has what it needs from it. */
async function conclude(host, finish) {
  try {
    return finish(await host.run());
  } finally {
    if (host.contexts) keyOf(host); // a context may read its key later
    host.driver.free();
  }
}

/**
 * Runs `attempt(context)` whenever the core says so, and resolves to the
 * winner's value. An attempt that throws is read by the failure table, else
 * by `options.outcomeOfError(error)` (an Outcome, or nothing: not retryable).
 * Ends without a value reject with GaveUpError, ReconcileRequiredError or
 * RestartRequiredError; a cancel through `options.signal` with its reason.
 */
export async function run(policy, attempt, options = {}) {
  const { now = monotonicNow, signal, outcomeOfError, onDecision, onDiscard } = options;
  const driver = new Driver(policy, now(), driverOptions(options));
  const dispose = onDiscard === undefined ? () => {} : (value) => value !== undefined && onDiscard(value);
  const host = new Host(driver, undefined, dispose, { now, signal, onDecision });
  host.key = () => keyOf(host);
  host.start = (entry) => {
    host.contexts = true;
    let result;
    try {
      result = attempt(new AttemptContext(entry));
      if (typeof result?.then === 'function') {
        Promise.resolve(result).then(
          (value) => host.settle(entry, SUCCESS, value, undefined),
          (thrown) => settleThrown(host, entry, thrown, outcomeOfError),
        );
        return;
      }
    } catch (thrown) {
      return settleThrown(host, entry, thrown, outcomeOfError);
    }
    host.settle(entry, SUCCESS, result, undefined);
  };
  return conclude(host, ({ decision }) => {
    if (decision.type === 'succeeded') return host.latestValue;
    if (signal?.aborted && decision.reason === 'cancelled') throw signal.reason;
    const { outcome, error } = host.lastResult();
    throw endingError(decision, keyOf(host), outcome, error);
  });
}

/** A response body left unread, cancelled (it may never be read). */
const cancelBody = (response) => response?.body?.cancel().catch(() => {});

/**
 * `fetch` with the core's retries: resolves to `{decision, response,
 * idempotencyKey}` with the last response when there is one (the winner's on
 * success) and rejects with the typed ending when there is none, and always
 * for reconcile. See index.d.ts for every option.
 */
export async function retryFetch(input, init = {}, options = {}) {
  const { policy, fetch: doFetch = globalThis.fetch, idempotent, outcomeOfError, onDecision, now = monotonicNow } = options;
  const { idempotencyKeyHeader = IDEMPOTENCY_KEY_HEADER, requestIdHeader = REQUEST_ID_HEADER } = options;
  if (typeof ReadableStream !== 'undefined' && init.body instanceof ReadableStream) {
    // A stream can be sent once; every attempt must send the same body.
    throw new RetryplanError('invalid_argument', 'invalid argument `init.body`: a ReadableStream cannot be resent; pass a string, Blob, ArrayBuffer, FormData or a Request');
  }
  // An invalid request (a bad URL, a bad header) is the caller's mistake: it
  // throws here, unchanged, before anything is sent.
  const request = new Request(input instanceof Request ? input.clone() : input, init);
  // A key the caller already set is the operation's key: never replace it.
  const callerKey = idempotencyKeyHeader ? request.headers.get(idempotencyKeyHeader) : null;
  const signal = options.signal ?? init.signal ?? undefined;
  const extra = { method: request.method, idempotent };
  const driver = new Driver(policy, now(), driverOptions({ ...options, idempotencyKey: options.idempotencyKey ?? callerKey ?? undefined }, extra));
  const host = new Host(driver, undefined, cancelBody, { now, signal, onDecision });
  host.start = async (entry) => {
    const headers = new Headers(request.headers);
    if (entry.plan.sendIdempotencyKey && idempotencyKeyHeader) headers.set(idempotencyKeyHeader, keyOf(host));
    if (requestIdHeader) headers.set(requestIdHeader, entry.plan.requestId);
    let response;
    try {
      // A hedge bypasses the HTTP cache: a browser holds a second request for
      // a URL until the first one's response is cached, defeating the hedge.
      const cache = entry.plan.hedge ? 'no-store' : init.cache;
      response = await doFetch(input instanceof Request ? input.clone() : input, { ...init, cache, headers, signal: entry.signal });
    } catch (thrown) {
      // fetch rejects with a TypeError for a network error; browsers say no more.
      return settleThrown(host, entry, thrown, outcomeOfError, failureOf(thrown) ?? (thrown instanceof TypeError ? 'connection_lost' : undefined));
    }
    let outcome;
    try {
      outcome = outcomeFromHttpResponse(response.status, response.headers, Date.now());
    } catch (unreadable) {
      return host.settleFailure(entry, 'malformed_response', unreadable, response);
    }
    host.settle(entry, outcome, response, undefined);
  };
  return conclude(host, ({ decision }) => {
    const { outcome, error, value: response } = host.lastResult();
    if (response !== undefined && decision.type !== 'reconcile' && !(signal?.aborted && decision.reason === 'cancelled')) {
      return { decision, response, idempotencyKey: keyOf(host) };
    }
    cancelBody(host.latestValue);
    if (signal?.aborted && decision.reason === 'cancelled') throw signal.reason;
    throw endingError(decision, keyOf(host), outcome, error);
  });
}
