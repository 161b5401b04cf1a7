// Host helpers: they do the I/O and the sleeping, exactly as the core's decisions
// say. They choose nothing: no defaults for the policy, no extra attempts, no
// clamping. The only judgement here is converting what the platform reports
// (a thrown fetch error, a response) into the core's Outcome vocabulary.
import { Operation } from '../wasm/retryplan_js.js';
import { RetryplanError } from './convert.js';

const monotonicNow = () => performance.now();

// setTimeout fires at once for delays above 2^31-1 ms (24.8 days); re-arm instead.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `done` after `ms`; returns a function that cancels it. */
function after(ms, done) {
  let timer;
  const arm = (left) => {
    timer = setTimeout(() => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : done()), Math.min(Math.max(0, left), MAX_TIMER_MS));
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/** Resolves after `ms`, or rejects with the signal's reason if it aborts first. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal.reason);
    };
    const cancel = after(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const TIMED_OUT = Symbol('timed out');
const CANCELLED = Symbol('cancelled');

/**
 * Runs one operation: calls `attempt(context)` whenever the core says to start
 * an attempt, reports the outcome it returns, and sleeps when told to wait.
 *
 * `attempt` resolves to `{ outcome, value?, error? }`, or for an HTTP response
 * to `{ http: { status, retryAfter }, value? }` with the raw Retry-After header
 * (the core reads it; a malformed one carries no guidance). If it throws, the
 * operation ends and the error is rethrown (a bug in the attempt is not a
 * failed attempt). If it does not settle by the decision's abort time, its
 * signal is aborted and the outcome is `{type: "transport", failure: "timed_out"}`.
 * If `options.signal` aborts, the operation is cancelled.
 *
 * Resolves to `{ decision, value, error, idempotencyKey }`: the ending decision
 * and the `value`/`error` of the last attempt that returned one.
 */
export async function run(policy, attempt, options = {}) {
  const { signal, now = monotonicNow, seed, idempotencyKey, deadlineMs } = options;
  const operation = new Operation(policy, now(), { seed, idempotencyKey, deadlineMs });
  const key = operation.idempotencyKey;
  // One listener on the caller's signal for the whole run (listeners are costly).
  const running = { controller: undefined, cancel: undefined };
  const onAbort = () => {
    running.controller?.abort(signal.reason);
    running.cancel?.(CANCELLED);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let value;
  let error;
  const end = (decision) => ({ decision, value, error, idempotencyKey: key });
  try {
    let decision = operation.poll(now());
    for (;;) {
      if (signal?.aborted) return end(operation.cancel(now()));
      switch (decision.type) {
        case 'start_attempt': {
          const result = await runAttempt(decision, attempt, key, running);
          if (result === CANCELLED) return end(operation.cancel(now()));
          if (result === null || typeof result !== 'object') {
            throw new RetryplanError('invalid_argument', 'invalid argument `attempt`: must resolve to {outcome} or {http}');
          }
          if ('value' in result) value = result.value;
          if ('error' in result) error = result.error;
          decision =
            result.http === undefined
              ? operation.onOutcome(now(), decision.attempt, result.outcome)
              : operation.onHttpResponse(now(), decision.attempt, result.http.status, result.http.retryAfter ?? undefined, Date.now());
          break;
        }
        case 'wait':
        case 'await_outcome':
          try {
            await sleep(decision.untilMs - now(), signal);
          } catch {
            return end(operation.cancel(now()));
          }
          decision = operation.poll(now());
          break;
        default:
          return end(decision);
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    operation.free();
  }
}

async function runAttempt(decision, attempt, idempotencyKey, running) {
  const controller = new AbortController();
  running.controller = controller;
  let cancelTimer;
  const stop = new Promise((resolve) => {
    running.cancel = resolve;
    cancelTimer = after(decision.timeoutMs, () => resolve(TIMED_OUT));
  });
  try {
    const context = {
      attempt: decision.attempt,
      timeoutMs: decision.timeoutMs,
      abortAtMs: decision.abortAtMs,
      requestId: decision.requestId,
      idempotencyKey,
      signal: controller.signal,
    };
    const settled = await Promise.race([attempt(context), stop]);
    if (settled === TIMED_OUT) {
      controller.abort(new DOMException('retryplan: attempt timed out', 'TimeoutError'));
      return { outcome: { type: 'transport', failure: 'timed_out' } };
    }
    return settled;
  } catch (thrown) {
    if (controller.signal.aborted) return CANCELLED;
    throw thrown;
  } finally {
    cancelTimer();
    running.controller = undefined;
    running.cancel = undefined;
  }
}

// Node's fetch (undici) names the socket error in `cause.code`. These codes mean
// the request never left; anything else may have reached the server.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** The core's name for a fetch rejection: not_sent only when the platform says so. */
function transportFailure(thrown) {
  const code = thrown?.cause?.code ?? thrown?.cause?.cause?.code;
  return NOT_SENT_CODES.has(code) ? 'not_sent' : 'connection_lost';
}

/**
 * `fetch` with the core's retries: per-attempt timeout through an AbortSignal,
 * Retry-After honoured (as the policy says), one Idempotency-Key for every
 * attempt and a fresh X-Request-Id per attempt.
 *
 * Resolves to `{ decision, response, error, idempotencyKey }`: `decision.type`
 * is "succeeded", "gave_up", "reconcile" or "restart"; `response` is the last
 * response received (the successful one, or e.g. the last 503), `error` the last
 * network error. It rejects only on misuse (a RetryplanError) or if `input` is
 * unusable.
 */
export async function retryFetch(input, init = {}, options = {}) {
  const {
    policy,
    fetch: doFetch = globalThis.fetch,
    idempotencyKeyHeader = 'Idempotency-Key',
    requestIdHeader = 'X-Request-Id',
    ...runOptions
  } = options;
  if (typeof ReadableStream !== 'undefined' && init.body instanceof ReadableStream) {
    // A stream can be sent once; every attempt must send the same body.
    throw new RetryplanError('invalid_argument', 'invalid argument `init.body`: a ReadableStream cannot be resent; pass a string, Blob, ArrayBuffer, FormData or a Request');
  }
  let previous;
  const result = await run(
    policy,
    async (context) => {
      previous?.body?.cancel().catch(() => {});
      previous = undefined;
      const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
      if (idempotencyKeyHeader) headers.set(idempotencyKeyHeader, context.idempotencyKey);
      if (requestIdHeader) headers.set(requestIdHeader, context.requestId);
      const request = input instanceof Request ? input.clone() : input;
      let response;
      try {
        response = await doFetch(request, { ...init, headers, signal: context.signal });
      } catch (thrown) {
        if (context.signal.aborted) throw thrown;
        return { outcome: { type: 'transport', failure: transportFailure(thrown) }, error: thrown };
      }
      previous = response;
      return { http: { status: response.status, retryAfter: response.headers.get('retry-after') }, value: response };
    },
    runOptions,
  );
  return { decision: result.decision, response: result.value, error: result.error, idempotencyKey: result.idempotencyKey };
}
