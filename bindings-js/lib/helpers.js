// Host helpers: they do the I/O and the sleeping, exactly as the core's decisions
// say. They choose nothing: no defaults for the policy, no extra attempts, no
// clamping. The only judgement here is converting what the platform reports
// (a thrown fetch error, a response) into the core's Outcome vocabulary.
import { Operation } from './operation.js';
import { outcomeFromHttp } from '../wasm/retryplan_js.js';
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

/** The outcome an attempt result stands for: `{outcome}` as given, `{http}` read by the core. */
function outcomeOf(result) {
  if (result === null || typeof result !== 'object' || (result.outcome === undefined && result.http === undefined)) {
    throw new RetryplanError('invalid_argument', 'invalid argument `attempt`: must resolve to {outcome} or {http}');
  }
  if (result.http === undefined) return result.outcome;
  const { status, retryAfter, retryAfterMs } = result.http;
  return outcomeFromHttp(status, retryAfter ?? undefined, retryAfterMs ?? undefined, Date.now());
}

/**
 * A running attempt. Its AbortController is made on the first read of
 * `signal` (making one costs more than a decision), so an attempt that never
 * looks at its signal costs none; an abort before that read is replayed.
 */
class Attempt {
  constructor(number, abortAtMs) {
    this.number = number;
    this.abortAtMs = abortAtMs;
    this.controller = undefined;
    this.aborted = false;
    this.reason = undefined;
    /** How it settled, once it has: what it returned, or what it threw. */
    this.result = undefined;
    this.threw = false;
    /** True when `attempt()` returned or threw without a promise. */
    this.synchronous = false;
    this.thrown = undefined;
  }

  get signal() {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

const ENTRY = Symbol('retryplan.attempt');

/** One descriptor for every context's `signal` (no closure per attempt). */
const SIGNAL = {
  get() {
    return this[ENTRY].signal;
  },
  enumerable: true,
};

/**
 * What `attempt(context)` gets. `signal` is an own, enumerable, lazy getter,
 * so `{...context}` and `Object.keys` keep it, as they did with the object
 * literal this class replaces (a literal with a getter costs ~0.5 us per
 * attempt, more than the decision). The attempt is reached through a symbol key.
 */
class AttemptContext {
  constructor(decision, idempotencyKey, entry) {
    this.attempt = decision.attempt;
    this.hedge = decision.hedge;
    this.timeoutMs = decision.timeoutMs;
    this.abortAtMs = decision.abortAtMs;
    this.requestId = decision.requestId;
    this.idempotencyKey = idempotencyKey;
    this[ENTRY] = entry;
    Object.defineProperty(this, 'signal', SIGNAL);
  }
}

const TIMED_OUT = Object.freeze({ type: 'transport', failure: 'timed_out' });
const timeoutError = () => new DOMException('retryplan: attempt timed out', 'TimeoutError');

const isEnding = (decision) =>
  decision.type === 'succeeded' || decision.type === 'gave_up' || decision.type === 'reconcile' || decision.type === 'restart';

/**
 * Runs one operation: calls `attempt(context)` whenever the core says to start
 * an attempt, reports the outcome it returns, and sleeps when told to wait.
 * Under a hedging policy several attempts run at once, each with its own
 * AbortSignal; the ending's `abortAttempts` are aborted when it arrives.
 *
 * `attempt` resolves to `{ outcome, value?, error? }`, or for an HTTP response
 * to `{ http: { status, retryAfter?, retryAfterMs? }, value? }` with the raw
 * header values, which the core reads (`Outcome.fromHttp`). If it throws
 * while its signal is not aborted, the run ends, every running attempt is
 * aborted and the error is rethrown (a bug in the attempt is not a failed
 * attempt). An attempt still running at its `abortAtMs` is aborted and
 * reported as `{type: "transport", failure: "timed_out"}`; whatever it
 * resolves to later is ignored. If `options.signal` aborts, the operation is
 * cancelled and every running attempt aborted with the signal's reason.
 *
 * Resolves to `{ decision, value, error, idempotencyKey }`: the ending decision
 * and the `value`/`error` of the last reported attempt that returned one (for
 * a success, the winner's).
 */
export async function run(policy, attempt, options = {}) {
  const { signal, now = monotonicNow, seed, idempotencyKey, deadlineMs, dependency, onDiscard } = options;
  const operation = new Operation(policy, now(), { seed, idempotencyKey, deadlineMs, dependency });
  const key = operation.idempotencyKey;
  /** Running attempts by number. */
  const running = new Map();
  /** Settled attempts not yet reported (Attempt entries, in the order they settled). */
  const settled = [];
  let wake; // ends the current sleep early
  const notify = () => wake?.();
  signal?.addEventListener('abort', notify, { once: true });
  let value;
  let error;
  const discard = (dropped) => {
    if (dropped !== undefined && onDiscard) onDiscard(dropped);
  };
  const hasValue = (result) => result !== null && typeof result === 'object' && 'value' in result;

  const abort = (numbers, reason) => {
    for (const number of numbers) {
      running.get(number)?.abort(reason);
      running.delete(number);
    }
  };
  const finish = (decision, reason) => {
    if (running.size > 0) {
      // The core lists every running attempt in abortAttempts; abort anything left all the same.
      abort(decision.abortAttempts, reason ?? new DOMException('retryplan: the operation ended without this attempt', 'AbortError'));
      abort([...running.keys()], reason ?? new DOMException('retryplan: the operation ended', 'AbortError'));
    }
    for (const entry of settled.splice(0)) {
      if (hasValue(entry.result)) discard(entry.result.value);
    }
    return { decision, value, error, idempotencyKey: key };
  };
  /** Queues how `entry` settled; results of attempts already timed out, aborted or abandoned are ignored. */
  const report = (entry, result, threw, thrown) => {
    if (running.get(entry.number) !== entry || (threw && entry.aborted)) {
      if (hasValue(result)) discard(result.value);
      return;
    }
    entry.result = result;
    entry.threw = threw;
    entry.thrown = thrown;
    settled.push(entry);
    notify();
  };
  const launch = (decision) => {
    const entry = new Attempt(decision.attempt, decision.abortAtMs);
    running.set(entry.number, entry);
    let result;
    let promised;
    try {
      result = attempt(new AttemptContext(decision, key, entry));
      promised = result !== null && (typeof result === 'object' || typeof result === 'function') && typeof result.then === 'function';
    } catch (thrown) {
      entry.synchronous = true;
      report(entry, undefined, true, thrown);
      return;
    }
    if (promised) {
      Promise.resolve(result).then(
        (settledResult) => report(entry, settledResult, false, undefined),
        (thrown) => report(entry, undefined, true, thrown),
      );
    } else {
      // Not a promise: it settled already (and is still this attempt's: only the
      // loop, which called us, removes attempts). Waiting a microtask to say so
      // costs more than the decision (the loop would yield to find it).
      entry.synchronous = true;
      entry.result = result;
      settled.push(entry);
    }
  };
  /** A running attempt past its abort time, aborted (it is reported as timed out), or undefined. */
  const overdue = (at) => {
    for (const entry of running.values()) {
      if (entry.abortAtMs <= at) {
        entry.abort(timeoutError());
        return entry;
      }
    }
    return undefined;
  };
  const sleepUntil = (untilMs) =>
    new Promise((resolve) => {
      const cancel = after(untilMs - now(), () => resolve());
      wake = () => {
        cancel();
        resolve();
      };
    }).finally(() => (wake = undefined));

  try {
    // The clock is read once per turn: `at` is undefined again whenever the
    // attempt's code may have run or the loop awaited (a read costs ~0.1 us).
    let at = now();
    let decision = operation.poll(at);
    let duePolls = 0;
    let yields = 0;
    for (;;) {
      if (signal?.aborted) return finish(operation.cancel(now()), signal.reason);
      const { type } = decision;
      if (type === 'start_attempt') {
        launch(decision);
        at = now();
        decision = operation.poll(at);
        continue;
      }
      if (type !== 'await_outcome' && type !== 'wait' && isEnding(decision)) return finish(decision);
      // wait or await_outcome: report what settled (or timed out), else sleep.
      at ??= now();
      if (type === 'await_outcome') {
        // Report a settled attempt, else one past its abort time as timed out.
        const next = settled.shift();
        if (next !== undefined && next.synchronous && next.abortAtMs <= at) {
          // A synchronous attempt that ran past its abort time: the timeout wins,
          // as it does for a promise that settles late (`at` was read after it ran).
          running.delete(next.number);
          next.abort(timeoutError());
          if (!next.threw && hasValue(next.result)) discard(next.result.value);
          yields = 0;
          decision = operation.onOutcome(at, next.number, TIMED_OUT);
          continue;
        }
        if (next !== undefined) {
          if (next.threw) throw next.thrown;
          const { result } = next;
          const outcome = outcomeOf(result);
          running.delete(next.number);
          if ('value' in result) {
            if (value !== result.value) discard(value);
            value = result.value;
          }
          if ('error' in result) error = result.error;
          yields = 0;
          decision = operation.onOutcome(at, next.number, outcome);
          continue;
        }
        const late = overdue(at);
        if (late !== undefined) {
          running.delete(late.number);
          yields = 0;
          decision = operation.onOutcome(at, late.number, TIMED_OUT);
          continue;
        }
      }
      if (type === 'await_outcome' && running.size > 0 && yields < 3) {
        // An attempt that answers at once settles within a few microtasks: let it
        // report before arming a timer (a timer costs more than the decision).
        yields += 1;
        await undefined;
        at = undefined;
        continue;
      }
      yields = 0;
      // Due now (a hedge or a retry): poll at once, but yield to timers if it stays due.
      if (decision.untilMs > at || ++duePolls > 2) {
        duePolls = 0;
        await sleepUntil(Math.max(decision.untilMs, at + 1));
        at = now();
      }
      decision = operation.poll(at);
    }
  } catch (thrown) {
    abort([...running.keys()], new DOMException('retryplan: the run failed', 'AbortError'));
    throw thrown;
  } finally {
    signal?.removeEventListener('abort', notify);
    operation.free();
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
 * Retry-After / retry-after-ms honoured (as the policy says, read by the core),
 * one Idempotency-Key for every attempt when the policy is keyed or unsafe
 * (`policy.sendsIdempotencyKey`; a key already in `init.headers` is kept as the
 * operation's key), and a fresh X-Request-Id per attempt. `init.signal` cancels
 * the operation like `options.signal`.
 * Under a hedging policy the hedges run concurrently, each fetch with its own
 * AbortController; when one wins, the others are aborted (the core lists them
 * in `abortAttempts`) and their response bodies cancelled.
 *
 * Resolves to `{ decision, response, error, idempotencyKey }`: `decision.type`
 * is "succeeded", "gave_up", "reconcile" or "restart"; `response` is the last
 * response reported (the winning one, or e.g. the last 503), `error` the last
 * network error. Every other response's body is cancelled. It rejects only on
 * misuse (a RetryplanError) or if `input` is unusable.
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
  const release = (response) => response?.body?.cancel().catch(() => {});
  const callerHeaders = () => new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  // A key the caller already set is the operation's key: never replace it.
  const callerKey = idempotencyKeyHeader ? callerHeaders().get(idempotencyKeyHeader) : null;
  const sendKey = Boolean(idempotencyKeyHeader) && policy.sendsIdempotencyKey;
  const result = await run(
    policy,
    async (context) => {
      const headers = callerHeaders();
      if (sendKey) headers.set(idempotencyKeyHeader, context.idempotencyKey);
      if (requestIdHeader) headers.set(requestIdHeader, context.requestId);
      const request = input instanceof Request ? input.clone() : input;
      let response;
      try {
        response = await doFetch(request, { ...init, headers, signal: context.signal });
      } catch (thrown) {
        if (context.signal.aborted) throw thrown;
        return { outcome: { type: 'transport', failure: transportFailure(thrown) }, error: thrown };
      }
      const http = {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        retryAfterMs: response.headers.get('retry-after-ms') ?? response.headers.get('x-ms-retry-after-ms'),
      };
      return { http, value: response };
    },
    {
      ...runOptions,
      idempotencyKey: runOptions.idempotencyKey ?? callerKey ?? undefined,
      // The caller's own signal cancels the whole operation, as `options.signal` does.
      signal: runOptions.signal ?? init.signal ?? undefined,
      onDiscard: release,
    },
  );
  return { decision: result.decision, response: result.value, error: result.error, idempotencyKey: result.idempotencyKey };
}
