// The helpers: adapters from a runtime's I/O to the core's Driver, run by the
// one host loop (host.js). They decide nothing: the driver says when attempts
// start, time out, hedge, wait and end; the failure table (failures.js) and
// the caller's `outcomeOfError` hook say what an error means (run()'s
// `outcomeOfResult` what a value means).
import { _driverResponse, _endingMessage, _free, _requestName } from '../wasm/retryplan_js.js';
import { clockOf, names, only, refuse } from './args.js';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, RESPONSE_HEADERS } from './constants.js';
import { ambient, ended, propagates } from './ambient.js';
import { OPERATION_OPTIONS, newDriver, outgoingHeaders } from './driver.js';
import { ENDINGS } from './endings.js';
import { failureOf } from './failures.js';
import { Host, after, reporter } from './host.js';
import { abortAttempt, decided } from './convert.js';
import { compose } from './messages.js';

/** The options of a call that gives none (one object, not a new one per call). */
const NO_OPTIONS = Object.freeze({});

/**
 * Every option each helper reads (index.d.ts RunOptions and RetryFetchOptions), with the type of each one
 * checked up front (`names`): any other key, or one of the wrong type, is refused before any attempt (`only`).
 * Every entry's helpers are this module's, so these are every entry's lists.
 */
const HELPER_OPTIONS = `${OPERATION_OPTIONS} signal:signal clock:function now:function outcomeOfError:function onDecision:function stats`;
const RUN_OPTIONS = /* @__PURE__ */ names(
  `${HELPER_OPTIONS} protocol:string outcomeOfResult:function onDiscard:function`,
);
const FETCH_OPTIONS = /* @__PURE__ */ names(
  `${HELPER_OPTIONS} policy fetch:function idempotent idempotencyKeyHeader:string requestIdHeader:string propagateCrossOrigin:boolean`,
);

/**
 * The driver's options from a helper's: `undefined` (no options to read) when
 * there are none. Inside a request served under the `propagation` middleware
 * (Node), the driver starts from its incoming context (`context`).
 */
function driverOptions(options, extra, context, telemetry) {
  if (context !== undefined) extra = { ...extra, incoming: context.incoming };
  const { seed, idempotencyKey, deadlineMs, dependency, stats, onDecision } = options;
  const recordEvents = onDecision !== undefined || telemetry !== undefined;
  const none =
    seed === undefined && idempotencyKey === undefined && deadlineMs === undefined && dependency === undefined;
  if (none && stats === undefined && !recordEvents && extra === undefined) return undefined;
  return { seed, idempotencyKey, deadlineMs, dependency, stats, recordEvents, ...extra };
}

/**
 * Sets an operation up (`setup(subject, detail, options, context)` returns
 * its host, whose `io.finish(host)` makes what the finish returns or throws;
 * a throw rejects), runs the host loop to its end (the loop frees the driver
 * when it fails) and frees the driver. Not an async function: no frame of its
 * own in the stack an error an attempt makes (or the typed ending) captures.
 * `setup` takes the helper's arguments rather than closing over them: no
 * closure made per operation.
 */
function conclude(setup, subject, detail, options, context) {
  let host;
  try {
    host = setup(subject, detail, options, context);
  } catch (error) {
    return Promise.reject(error);
  }
  return host.run(context === undefined ? finished : (done) => finished(done, context));
}

/** What the finish of `host`'s loop makes; the driver freed (its give-up first left for the answer to the request it serves, `context`). */
function finished(host, context) {
  try {
    return host.io.finish(host);
  } finally {
    if (context !== undefined) ended(context, host.driver); // the answer reads the ending from the driver itself
    _free(host.driver);
  }
}

/**
 * The typed ending of a finish that returns nothing (with the error the driver
 * names as its cause, or the value as its last value, in the core's words
 * naming `operation`), or the caller's cancel.
 */
function ending(host, { decision, lastResult }, operation) {
  const token = host.endToken;
  const cause = host.errors[token];
  const value = host.values[token];
  // A value raised with only when it is what the token holds: not a response whose reading threw (its error is
  // the cause), nor a last value the cancel's reason replaces.
  const cancelled = host.signal?.aborted && decision.reason === 'cancelled';
  if (cancelled || cause !== undefined) host.io.dispose(value);
  if (cancelled) return host.signal.reason;
  // Without message data (the browser runtime): the ending's type and reason.
  const words =
    compose(decided(_endingMessage(host.driver, operation, !host.io.keyNeverSent))) ??
    (decision.reason === undefined ? decision.type : `${decision.type}: ${decision.reason}`);
  return new ENDINGS[decision.type](
    decision,
    host.keyText,
    lastResult?.outcome,
    cause,
    words,
    cause === undefined ? value : undefined,
  );
}

/** How an ending names run()'s operation: by the attempt function's name (a bound one's without "bound "). */
const operationName = (attempt) => `${attempt.name}`.replace(/^(bound )+/, '') || 'operation';

/**
 * How an ending names a request: the core's `request_name` (its method and URL, without credentials or fragment, the
 * OpenTelemetry conventions' sensitive query values `REDACTED`), as every language names it.
 */
const requestName = ({ method, url }) => _requestName(method, url);

/**
 * run()'s I/O: each attempt's context carries its operation's key; a value to drop (late, or one
 * `outcomeOfResult` failed that the driver released) goes to `onDiscard` when given, unless it is null or
 * undefined (nothing to release: every binding's rule).
 */
const RUN_IO = {
  entry: (host, entry) => {
    entry.idempotencyKey = host.keyText;
    return entry;
  },
  failureOf,
  dispose: () => {},
  finish: (host) => {
    if (host.endReturns) return host.values[host.endToken];
    throw ending(host, host.ending(), operationName(host.attempt));
  },
};

/**
 * Runs `attempt(context)` whenever the core says so, and resolves to the
 * winner's value. The endings name the operation by the function's name
 * (`"operation"` for an anonymous one). An attempt that throws is read by the failure table, else
 * by `options.outcomeOfError(error)` (an Outcome, or nothing: the core's verdict
 * for an unknown error, `ambiguous`); a value it returns by
 * `options.outcomeOfResult(value)` when given (an Outcome, or nothing: a success).
 * Ends without a value reject with GaveUpError, ReconcileRequiredError or
 * RestartRequiredError (carrying the error as `cause`, or the value as
 * `lastValue`, the driver raises them with); a cancel through `options.signal` with its reason.
 * An option it does not have (RUN_OPTIONS), or one of the wrong type (a hook that is not a function), or an
 * `attempt` that is not a function, rejects with the RetryplanError `invalid_argument` naming it, before any
 * attempt.
 */
export function run(policy, attempt, options) {
  return conclude(runHost, policy, attempt, options ?? NO_OPTIONS, ambient());
}

/** run()'s host (see conclude). */
function runHost(policy, attempt, options, context) {
  if (typeof attempt !== 'function') throw refuse('attempt', 'function', attempt);
  only(options, RUN_OPTIONS);
  const { onDiscard } = options;
  const now = clockOf(options);
  const primed = options.signal?.aborted !== true;
  const telemetry = reporter(operationName, attempt);
  const driver = newDriver(policy, now(), driverOptions(options, undefined, context, telemetry), primed);
  let io = onDiscard == null ? RUN_IO : { ...RUN_IO, dispose: (value) => value != null && onDiscard(value) };
  if (context !== undefined) {
    // Each attempt's context carries the core's headers for the next hop, for the caller's transport to send.
    const protocol = options.protocol ?? undefined;
    const entry = (host, started) => {
      started.outgoingHeaders = outgoingHeaders(host.driver, started.attempt, now(), protocol);
      return RUN_IO.entry(host, started);
    };
    io = { ...io, entry };
  }
  return new Host(driver, attempt, io, options, now, options.signal, primed, telemetry);
}

/** The spelling of the idempotency key's header among the core's outgoing headers, which the helper sets itself. */
const CORE_KEY_HEADER = IDEMPOTENCY_KEY_HEADER.toLowerCase();

/** A response body left unread, cancelled (it may never be read). */
const cancelBody = (response) => response?.body?.cancel().catch(() => {});

/**
 * Bounds the body of a response the helper returns by the time the core says
 * it is readable until (`readableUntilMs`: a failed response's attempt's abort
 * time; absent for a success's, which is the caller's): then the attempt's
 * signal, which the fetch still reads the body under, aborts, and a read not
 * done by then errors. The timer never keeps a Node process alive by itself.
 */
function boundBody(entry, readableUntilMs, now) {
  if (readableUntilMs === undefined) return;
  const cut = () =>
    abortAttempt(
      entry,
      new DOMException("retryplan: the response body was not read within its attempt's window", 'TimeoutError'),
    );
  after(readableUntilMs - now(), cut, true);
}

/**
 * Whether a request body can be sent again as it is: none, a string, a Blob, a BufferSource (an ArrayBuffer, a
 * typed array, a DataView), FormData or URLSearchParams. Anything else (a ReadableStream, an async iterable, a Node
 * `Readable`, ...) is read as it is sent: one-shot, which the core sends once and never hedges.
 */
const replayable = (body) =>
  body == null ||
  typeof body === 'string' ||
  ArrayBuffer.isView(body) ||
  [Blob, ArrayBuffer, FormData, URLSearchParams].some((kind) => body instanceof kind);

/**
 * The caller's cancel: `options.signal` and the request's signal, either of which cancels, or the one given. Of two,
 * a view of both (`signals`, each of which the host's `listen` and `followAfterReturn` listen to, through their one
 * listener per signal; `aborted`; `reason`: options' once it is aborted, else the request's, where AbortSignal.any
 * keeps whichever aborted first: the two differ only when both abort), never AbortSignal.any:
 * Node keeps every signal any() makes on a source that outlives the calls (nodejs/node#55351), and a listener that
 * followed a source into a signal of ours would stay on it for good.
 */
function eitherSignal(first, second) {
  if (!first || !second) return first || second;
  const both = [first, second];
  return {
    signals: both,
    get aborted() {
      return first.aborted || second.aborted;
    },
    get reason() {
      return (first.aborted ? first : second).reason;
    },
  };
}

/** Per caller's signal, the attempts (weakly) whose returned responses its abort still aborts. */
const followers = new WeakMap();
/** Each returned response's attempt, alive as long as the response (its body reads under the attempt's signal). */
const attemptOf = new WeakMap();
/** Forgets a returned response's attempt once the response is collected; the last one, the signal's listener. */
const forget = new FinalizationRegistry(([signal, ref]) => {
  const attempts = followers.get(signal);
  attempts?.delete(ref);
  if (attempts?.size === 0) {
    followers.delete(signal);
    signal.removeEventListener('abort', attempts.abort);
  }
});

/**
 * After the helper returns `response`, the caller's `signal` still aborts its body, as it would fetch's: the
 * attempt `entry` is aborted with the signal's reason. One listener on a signal while any response it may abort
 * lives, whatever the number of calls (a server's shutdown signal outlives them all): nothing accumulates.
 */
function followAfterReturn(signal, entry, response) {
  if (signal === undefined || response == null) return;
  if (signal.aborted) return abortAttempt(entry, signal.reason);
  if (signal.signals) {
    for (const each of signal.signals) followAfterReturn(each, entry, response);
    return;
  }
  let attempts = followers.get(signal);
  if (attempts === undefined) {
    const all = (attempts = new Set());
    all.abort = () => {
      for (const ref of all) {
        const attempt = ref.deref();
        if (attempt !== undefined) abortAttempt(attempt, signal.reason);
      }
    };
    followers.set(signal, all);
    signal.addEventListener('abort', all.abort);
  }
  const ref = new WeakRef(entry);
  attempts.add(ref);
  attemptOf.set(response, entry);
  forget.register(response, [signal, ref]);
}

/**
 * What `fetch` resolved to, when it is a response (a status and headers for the core to read); anything else is the
 * caller's `fetch` at fault, refused at once, never an attempt's failure to retry.
 */
function fetched(response) {
  if (typeof response?.status !== 'number' || typeof response.headers?.get !== 'function')
    throw refuse('fetch', 'response', response);
  return response;
}

/**
 * `fetch` with the core's retries: resolves to `{decision, response,
 * idempotencyKey}` with the last response when there is one (the winner's on
 * success) and rejects with the typed ending when there is none, and always
 * for reconcile. See index.d.ts for every option; one it does not have
 * (FETCH_OPTIONS), or one of the wrong type (a `fetch` that is not a
 * function), rejects with the RetryplanError `invalid_argument` naming it,
 * before any request. A null `init` is none, as for `fetch`.
 */
export function retryFetch(input, init, options) {
  return conclude(fetchHost, input, init ?? NO_OPTIONS, options ?? NO_OPTIONS, ambient());
}

/** Whether `url` is another origin than the page's (or the page's is opaque): a custom header there needs CORS. */
function crossOriginFromPage(url) {
  const origin = globalThis.location?.origin;
  return origin !== undefined && (origin === 'null' || new URL(url).origin !== origin);
}

/** The most a page's keepalive request may carry (Fetch's keepalive quota, 64 KiB). */
const KEEPALIVE_BODY_MAX = 65536;

/** Whether the browser says it will not contact the network (HTML's `navigator.onLine`); never so in Node. */
const isOffline = () => globalThis.navigator?.onLine === false;

/** retryFetch's host (see conclude). */
function fetchHost(input, init, options, context) {
  only(options, FETCH_OPTIONS);
  const { policy, idempotent } = options;
  const doFetch = options.fetch ?? globalThis.fetch;
  const now = clockOf(options);
  const { idempotencyKeyHeader = IDEMPOTENCY_KEY_HEADER, requestIdHeader = REQUEST_ID_HEADER } = options;
  // A body read as it is sent can be sent once: the core sends it once, and gives up with `body_not_replayable` where
  // it would retry.
  const oneShotBody = !replayable(init.body);
  // An invalid request (a bad URL, a bad header) is the caller's mistake: it
  // throws here, unchanged, before anything is sent.
  const request = new Request(input instanceof Request ? input.clone() : input, init);
  // A key the caller already set makes the request keyed by that exact key (the core's Policy::http_request).
  const requestIdempotencyKey = (idempotencyKeyHeader ? request.headers.get(idempotencyKeyHeader) : null) ?? undefined;
  // The request's own signal: init.signal, else that of a Request given as input (as fetch reads them), the caller's
  // own object: `request.signal` follows it through a copy that follows it only weakly, lost at a garbage collection.
  const signal = eitherSignal(
    options.signal,
    init.signal !== undefined ? init.signal : input instanceof Request ? input.signal : undefined,
  );
  const primed = signal?.aborted !== true;
  const extra = { method: request.method, idempotent, requestIdempotencyKey, oneShotBody, returnsResponses: true };
  const telemetry = reporter(requestName, request);
  telemetry?.request(request.method, request.url); // named there as here, by the core
  const driver = newDriver(policy, now(), driverOptions(options, extra, context, telemetry), primed);
  // The core's deadline, attempt count, key and retrying layer for the next hop: on every attempt on the
  // Node entry, inside a served request or not (a client that never says it retries lets the next hop
  // retry too: the layers' attempts would multiply); in a page on a same-origin request, and on a
  // cross-origin one when the caller opts in (its server must allow the headers: CORS).
  const sends = propagates(context, request.url, options.propagateCrossOrigin);
  // The request id is the helper's diagnostics, and a custom header on a page's cross-origin request makes the
  // browser send a CORS preflight first, which fails the fetch unless the server lists it: there it goes only
  // when the caller asked for it (named its header, or opted in to the core's headers).
  const sendsRequestId =
    requestIdHeader && (sends || options.requestIdHeader !== undefined || !crossOriginFromPage(request.url));
  const send = (entry) => {
    const headers = new Headers(request.headers);
    if (sends)
      for (const [name, value] of Object.entries(outgoingHeaders(driver, entry.attempt, now())))
        if (name !== CORE_KEY_HEADER) headers.set(name, value);
    // The key travels once, under the caller's name for it (or not at all), whether the core's headers go or not.
    if (entry.sendIdempotencyKey && idempotencyKeyHeader) headers.set(idempotencyKeyHeader, host.keyText);
    if (sendsRequestId) headers.set(requestIdHeader, entry.requestId);
    telemetry?.inject(entry.attempt, headers);
    // A hedge bypasses the HTTP cache: a browser holds a second request for
    // a URL until the first one's response is cached, defeating the hedge.
    const cache = entry.hedge ? 'no-store' : init.cache;
    const offline = isOffline();
    return Promise.resolve(
      doFetch(input instanceof Request ? input.clone() : input, {
        ...init,
        cache,
        headers,
        // The attempt's own cancel, which the caller's cancel aborts while the operation runs (the host's), and
        // after it returns for the response it returns (`followAfterReturn`). Never AbortSignal.any of the caller's
        // signal per attempt: Node keeps every one on a signal that outlives the calls (nodejs/node#55351).
        signal: entry.signal,
      }),
    ).then(fetched, async (thrown) => {
      // A browser offline when the attempt began and when it failed contacted no network (HTML's
      // `navigator.onLine`): its TypeError is a request never sent, not one that may have been processed.
      if (offline && thrown instanceof TypeError && isOffline()) notSent.add(thrown);
      // A page's fetch refuses a keepalive request whose body is over 64 KiB before sending it (Fetch, "fetch",
      // the keepalive quota), with the TypeError of a network error: the caller's request, which no retry sends.
      if (request.keepalive && thrown instanceof TypeError && globalThis.location !== undefined) {
        const bytes = (await request.clone().arrayBuffer()).byteLength;
        if (bytes > KEEPALIVE_BODY_MAX) throw Object.assign(refuse('init.body', 'keepalive', bytes), { cause: thrown });
      }
      throw thrown;
    });
  };
  const notSent = new WeakSet();
  const entries = [];
  const io = {
    /** No attempt carries the key (`idempotencyKeyHeader: null`): an ending names none. */
    keyNeverSent: !idempotencyKeyHeader,
    entry: (_host, entry) => (entries[entry.attempt] = entry),
    // The status as the platform gave it and the guidance headers (with the next hop's "do not retry"): the core reads them.
    // fetch follows redirects inside the attempt: the core reads a redirected response's retryable failure as
    // ambiguous (an earlier hop, a POST answered 303, may have processed the request).
    response: (handle, nowMs, attempt, token, response) =>
      _driverResponse(
        handle,
        nowMs,
        attempt,
        token,
        response.status,
        RESPONSE_HEADERS.map((name) => response.headers.get(name) ?? undefined),
        Date.now(),
        response.redirected,
      ),
    unreadable: 'malformed_response',
    // fetch rejects with a TypeError for a network error; a browser says no more, except that it was offline.
    failureOf: (thrown) =>
      failureOf(thrown) ??
      (notSent.has(thrown) ? 'unreachable' : thrown instanceof TypeError ? 'connection_lost' : undefined),
    dispose: cancelBody,
    // Ended at once, rethrown unchanged (Node's fetch names both): the caller's own `redirect: 'error'` met a redirect,
    // its request's doing; or a redirect loop past fetch's 20, which a retry would follow again (Python's clients
    // raise their TooManyRedirects above the helper, never retried; a page's fetch says only TypeError).
    invalid: (thrown) =>
      (request.redirect === 'error' && thrown?.cause?.message === 'unexpected redirect') ||
      thrown?.cause?.message === 'redirect count exceeded',
    finish: (host) => {
      const finish = host.ending();
      if (host.endReturns) {
        const response = host.values[host.endToken];
        boundBody(entries[host.endToken], finish.result?.readableUntilMs, now);
        followAfterReturn(signal, entries[host.endToken], response);
        return { decision: finish.decision, response, idempotencyKey: host.keyText };
      }
      throw ending(host, finish, requestName(request));
    },
  };
  const host = new Host(driver, send, io, options, now, signal, primed, telemetry);
  return host;
}
