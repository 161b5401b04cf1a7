// The one host loop every helper runs. The core's Driver decides when
// attempts start, time out, hedge, wait and end, and which result the helper
// returns, raises or drops; this loop only carries out each action and hands
// each attempt's result back as it arrives, over the core's wire (wire.js).
// Each result is held under a token (its attempt's number) until the driver
// says what becomes of it: dropped (a discarded receipt, a release), or
// returned or raised by the finish.
import { _driverCancel, _driverResultOf, _free } from '../wasm/retryplan_js.js';
import { Attempt, abortAttempt, decided } from './convert.js';
import { RetryplanError } from './error.js';
import { MISUSE } from './rules.js';
import { requestIdText } from './words.js';
import { read, words } from './outcomes.js';
import { nextEvent, pollAction } from './records.js';
import { NAMES, WIRE, current, driverKey, exchange, storedKey } from './wire.js';

/**
 * The Node entry's OpenTelemetry (lib/otel.js), once instrumented: makes an
 * operation's reporter (`(name) => reporter`), which reads each recorded
 * event with the core's signals and hands it on to `onDecision`. The browser
 * runtime never sets it.
 */
let reporting;
/** Sets (or, with undefined, clears) how operations report to OpenTelemetry. */
export const reportWith = (makeReporter) => {
  reporting = makeReporter;
};
/**
 * A new operation's reporter, when OpenTelemetry is instrumented: the
 * operation named by `nameOf(subject)`, called only then (reading a
 * function's name or parsing a URL costs more than a decision).
 */
export const reporter = (nameOf, subject) => (reporting === undefined ? undefined : reporting(nameOf(subject)));

// setTimeout fires at once for delays above 2^31-1 ms (24.8 days); re-arm instead.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `done` after `ms`; returns a function that cancels it. A `detached` timer never keeps a Node process alive by itself. */
export function after(ms, done, detached = false) {
  let timer;
  const arm = (left) => {
    timer = setTimeout(
      () => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : done()),
      Math.min(Math.max(0, left), MAX_TIMER_MS),
    );
    if (detached) timer?.unref?.();
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/** The loop's mark of a finish (its token and whether it returns are kept on the host; the typed ending is read only when needed). */
const FINISH = Object.freeze({ type: 'finish' });
const abortError = (message) => new DOMException(`retryplan: ${message}`, 'AbortError');

/**
 * Per caller's signal, the hosts its abort wakes: one listener on a signal while any operation runs on it,
 * however many do (a server's one shutdown signal), and none once they are all done.
 */
const waking = new WeakMap();

/** Wakes `host` when `signal` (or either of a helper's two, `signals`) aborts; returns what stops listening. */
function listen(signal, host) {
  if (signal.signals) {
    const stops = signal.signals.map((each) => listen(each, host));
    return () => {
      for (const stop of stops) stop();
    };
  }
  let hosts = waking.get(signal);
  if (hosts === undefined) {
    const all = (hosts = new Set());
    all.wake = () => {
      for (const each of all) each.wakeUp();
    };
    waking.set(signal, all);
    signal.addEventListener('abort', all.wake);
  }
  hosts.add(host);
  return () => {
    hosts.delete(host);
    if (hosts.size === 0) {
      waking.delete(signal);
      signal.removeEventListener('abort', hosts.wake);
    }
  };
}

/**
 * One operation's loop over the driver `driver` (a handle), for a helper's I/O (`io`):
 * - `attempt(entry)` sends one attempt, `entry` being the `Attempt` the
 *   driver started (`io.entry(host, entry)` may complete it); what it returns (or
 *   resolves to) is a success (unless the caller's `outcomeOfResult(value)`
 *   hook returns an outcome), or with `io.response(driver, nowMs, attempt,
 *   token, value)` a response the core reads (its receipt's number; it may throw for a value it
 *   cannot read: then `io.unreadable` is the failure);
 * - what it throws ends the operation, rethrown unchanged, when `io.invalid(error)`
 *   (optional) says so (its caller's request made it, or no retry can help: a redirect loop); else it is named by
 *   `io.failureOf(error)` (the failure table), else by the caller's `outcomeOfError(error)` hook, else the core's verdict for
 *   an unknown error (`ambiguous`);
 * - `io.dispose(value)` releases a value the driver says to drop.
 * It calls the attempt itself, so that an error the attempt makes captures a
 * stack as short as a plain loop's (most of what making an error costs).
 */
export class Host {
  /**
   * `options`: the helper's (`onDecision`, `outcomeOfError`, `outcomeOfResult`); `now` its
   * clock; `signal` the caller's cancel. `primed`: `driver` was just made
   * with its first poll (`newDriver(..., true)`), whose output record is the
   * wire's now, and its key the one copied last (a helper primes it unless the
   * signal is already aborted: the cancel then comes before any attempt starts).
   */
  constructor(driver, attempt, io, options, now, signal, primed, telemetry) {
    this.driver = driver;
    /** The operation's OpenTelemetry reporter (lib/otel.js), when instrumented. */
    this.telemetry = telemetry;
    this.attempt = attempt;
    this.io = io;
    this.now = now;
    this.signal = signal ?? undefined;
    this.onDecision = options.onDecision ?? undefined;
    this.outcomeOfError = options.outcomeOfError;
    /** run()'s hook saying what a returned value means (an Outcome; nothing: a success). */
    this.outcomeOfResult = options.outcomeOfResult;
    /**
     * Running attempts by number (cheaper than a Map for a handful of small
     * integers), and how many. This and the results' arrays start with room
     * for attempt 1: written at 1, an empty array would allocate room for 17.
     */
    this.running = [undefined, undefined];
    this.runningCount = 0;
    /** What each accepted result holds, by token (its attempt's number): the value it carried, or the error it threw. */
    this.values = [undefined, undefined];
    this.errors = [undefined, undefined];
    /**
     * The actions the driver gave with a result, for the loop to carry out in
     * order (a sleep only ever last). Made with room for one (one at a time is
     * the common case): an empty array's first push allocates room for 17.
     */
    this.queue = [FINISH];
    this.queue.pop();
    this.done = false;
    this.cancelled = false;
    this.failed = false;
    this.failure = undefined;
    this.woken = false;
    this.wake = undefined;
    this.readAt = undefined;
    /** The finish's result: the token whose value it returns or whose error it raises with (-1: none), and whether it returns it. */
    this.endToken = -1;
    this.endReturns = false;
    /** The operation's idempotency key (read once: a primed driver's was copied with it). */
    this.keyText = primed ? storedKey() : driverKey(driver);
    if (primed) this.follow(current());
  }

  /** Attempt `entry` returned (or resolved to) `value`: a success, unless the caller's `outcomeOfResult(value)` hook says otherwise. */
  returned(entry, value) {
    if (this.done) return this.io.dispose(value);
    const respond = this.io.response;
    if (respond === undefined) {
      const hook = this.outcomeOfResult;
      if (hook === undefined) return this.handIn(entry, WIRE.OUTCOME.success, WIRE.NONE, value, undefined);
      return this.judged(entry, hook, value, undefined, WIRE.OUTCOME.success, WIRE.NONE);
    }
    const now = this.clock();
    let receipt;
    try {
      receipt = respond(this.driver, now, entry.attempt, entry.attempt, value);
    } catch (unreadable) {
      return this.handIn(entry, WIRE.OUTCOME.failure, WIRE.FAILURE[this.io.unreadable], value, unreadable);
    }
    this.received(entry, decided(receipt) === WIRE.RECEIPT.accepted, value, undefined, undefined, now);
  }

  /**
   * Attempt `entry` threw (or rejected with) `thrown`: the failure table first, then the hook (by default: the
   * core's verdict for an unknown error, `ambiguous`). Misuse of retryplan itself (a RetryplanError whose blame is
   * in MISUSE: Blame::is_misuse) is no attempt's outcome: the operation ends with it, unchanged, as in every language;
   * so does an error the helper's I/O says ends it as thrown (`io.invalid`: an invalid request, a redirect loop).
   */
  threw(entry, thrown) {
    if (this.done) return;
    if ((thrown instanceof RetryplanError && MISUSE.includes(thrown.blame)) || this.io.invalid?.(thrown))
      return this.abandon(thrown);
    const failure = this.io.failureOf(thrown);
    if (failure !== undefined)
      return this.handIn(entry, WIRE.OUTCOME.failure, WIRE.FAILURE[failure], undefined, thrown);
    // Nothing classified it: the core's one default for every language (Verdict::UNKNOWN_ERROR, `ambiguous`).
    this.judged(entry, this.outcomeOfError, undefined, thrown, WIRE.OUTCOME.application, WIRE.UNKNOWN_ERROR_VERDICT);
  }

  /**
   * Hands attempt `entry`'s result (its `value`, or the `error` it threw) in
   * with the Outcome the caller's `hook` returns for it, or without one
   * (nothing) with the default outcome `kind` and `code`. A hook that throws,
   * or returns what is not an Outcome, ends the operation with that error.
   */
  judged(entry, hook, value, error, kind, code) {
    let outcome;
    try {
      outcome = hook?.(error === undefined ? value : error);
      if (outcome != null) read(outcome);
    } catch (refused) {
      this.io.dispose(value);
      return this.abandon(refused); // the hook's error, or an outcome the binding refuses: the hook's mistake
    }
    if (outcome == null) return this.handIn(entry, kind, code, value, error);
    // A status goes by the object, whose reading refuses one no outcome holds.
    if (words.kind !== WIRE.OUTCOME.http_status) return this.handIn(entry, words.kind, words.code, value, error);
    const now = this.clock();
    const held = error === undefined ? WIRE.HELD.value : WIRE.HELD.error;
    let receipt;
    try {
      receipt = decided(_driverResultOf(this.driver, now, entry.attempt, outcome, entry.attempt, held));
    } catch (refused) {
      return this.refused(refused, value, error); // an outcome the core refuses: the hook's mistake
    }
    this.received(entry, receipt === WIRE.RECEIPT.accepted, value, error, undefined, now);
  }

  /** Hands attempt `entry`'s result in on the wire (outcome `kind` and `code`), held under its number, with the next poll. */
  handIn(entry, kind, code, value, error) {
    const now = this.clock();
    const held = error === undefined ? WIRE.HELD.value : WIRE.HELD.error;
    let out;
    try {
      out = exchange(this.driver, WIRE.INPUT.result, now, entry.attempt, entry.attempt, held, kind, code, -1);
    } catch (refused) {
      return this.refused(refused, value, error);
    }
    this.received(entry, out[WIRE.OUT.receipt] === WIRE.RECEIPT.accepted, value, error, out, now);
  }

  /** Ends the operation with the core's refusal of a result: its value disposed of, its error the refusal's cause. */
  refused(refusal, value, error) {
    this.io.dispose(value);
    if (error !== undefined) refusal.cause = error; // an error called a success: what the refused result carried
    return this.abandon(refusal);
  }

  /**
   * The driver's receipt for a result: held under its token, or dropped now;
   * then the next actions: the output record `out` the result's exchange
   * gave, or (a result handed in by a typed call) a poll's at `now`.
   */
  received(entry, accepted, value, error, out, now) {
    if (accepted) {
      this.forget(entry.attempt);
      this.values[entry.attempt] = value;
      this.errors[entry.attempt] = error;
    } else this.io.dispose(value);
    try {
      this.follow(out ?? exchange(this.driver, WIRE.INPUT.poll, now, -1, -1, -1, -1, -1, -1));
    } catch (refused) {
      return this.abandon(refused);
    }
    this.wakeUp();
  }

  /**
   * Carries out the output record `out`: a release or an abort at once (and
   * polls on, at the same time), a start, sleep or finish queued for the loop.
   */
  follow(out) {
    for (;;) {
      const kind = out[WIRE.OUT.action_kind];
      if (kind === WIRE.ACTION.release) this.release(out[WIRE.OUT.token]);
      else if (kind === WIRE.ACTION.abort_attempt)
        this.abort(out[WIRE.OUT.attempt], NAMES.abortReasons[out[WIRE.OUT.reason]]);
      else if (kind === WIRE.ACTION.start_attempt) return this.queue.push(this.started(out));
      else if (kind === WIRE.ACTION.sleep) return this.queue.push(out[WIRE.OUT.until_ms]);
      else {
        this.endToken = out[WIRE.OUT.token];
        this.endReturns = (out[WIRE.OUT.ending] & WIRE.ENDING_RETURNS) !== 0;
        return this.queue.push(FINISH);
      }
      out = exchange(this.driver, WIRE.INPUT.poll, this.readAt ?? this.now(), -1, -1, -1, -1, -1, -1);
    }
  }

  /** The attempt a start record plans. */
  started(out) {
    const flags = out[WIRE.OUT.flags];
    const id = requestIdText(out[WIRE.OUT.request_id_high], out[WIRE.OUT.request_id_low]);
    return new Attempt(
      out[WIRE.OUT.attempt],
      out[WIRE.OUT.timeout_ms],
      out[WIRE.OUT.abort_at_ms],
      id,
      out[WIRE.OUT.remaining_ms],
      (flags & WIRE.FLAG_HEDGE) !== 0,
      (flags & WIRE.FLAG_SEND_IDEMPOTENCY_KEY) !== 0,
    );
  }

  /** Drops what `token` holds. */
  release(token) {
    const value = this.values[token];
    this.values[token] = undefined;
    this.errors[token] = undefined;
    this.io.dispose(value);
  }

  /** The typed finish: `{decision, lastResult, result}` (read from the driver when a helper needs it). */
  ending() {
    return pollAction(this.driver, this.now());
  }

  forget(attempt) {
    this.running[attempt] = undefined;
    this.runningCount -= 1;
  }
  /** The time now, read for a result; the loop's next poll reuses it (a read costs more than a decision). */
  clock() {
    this.readAt = this.now();
    return this.readAt;
  }

  /** Ends the operation with `error` (thrown by the helper itself, never an attempt's failure). */
  abandon(error) {
    this.failed = true;
    this.failure = error;
    this.wakeUp();
  }

  wakeUp() {
    this.woken = true;
    const wake = this.wake;
    if (wake !== undefined) {
      this.wake = undefined;
      wake();
    }
  }

  /** Sleeps until `untilMs` or a wake-up: a result, the caller's cancel. */
  async sleep(untilMs) {
    this.woken = false;
    // An attempt that answers at once settles within a few microtasks: let it
    // report before arming a timer (a timer costs more than the decision).
    for (let turn = 0; turn < 3 && this.runningCount > 0; turn += 1) {
      await undefined;
      if (this.woken) return;
    }
    const from = this.now();
    const woken = await new Promise((resolve) => {
      const cancel = after(untilMs - from, () => resolve(false));
      this.wake = () => {
        cancel();
        resolve(true);
      };
    });
    // The timer ran out: the driver judges whether the clock moved through the wait (a fake timer beside a real
    // clock, or a frozen clock, is refused naming `clock`: the wait would be armed again forever), then polls.
    if (!woken) this.input(WIRE.INPUT.timer_ended, this.now());
  }

  /**
   * Drives the operation to its end, resolving to what `end(host)` then
   * returns (`endReturns`, `endToken` and `ending()` say how it ended; a
   * throw rejects); when the loop fails, the driver is cancelled and freed.
   * The finish is read here, not in a reaction to this promise: one promise
   * and one microtask less per operation.
   */
  async run(end) {
    // Few locals and no closures: an await saves and restores every register
    // of this function, and a closure would make a context per call.
    const { signal, queue } = this;
    const unlisten = signal === undefined ? undefined : listen(signal, this);
    try {
      for (;;) {
        if (this.failed) throw this.failure;
        if (signal?.aborted && !this.cancelled) {
          this.cancelled = true;
          queue.length = 0; // decided before the cancel: an attempt among them is aborted, never started
          this.input(WIRE.INPUT.cancel, this.now());
        }
        if (queue.length === 0) this.input(WIRE.INPUT.poll, this.readAt ?? this.now());
        const action = queue.shift();
        this.readAt = undefined;
        this.report();
        if (action instanceof Attempt) {
          // Each attempt starts from a fresh, short stack (see the class comment).
          await undefined;
          const entry = this.io.entry(this, action);
          this.running[entry.attempt] = entry;
          this.runningCount += 1;
          const attempt = this.attempt; // called as a plain function: `this` is not the host's
          let result;
          try {
            result = attempt(entry);
            if (typeof result?.then === 'function') {
              this.awaitResult(entry, result);
              continue;
            }
          } catch (thrown) {
            this.threw(entry, thrown);
            continue;
          }
          this.returned(entry, result);
        } else if (action === FINISH) {
          this.done = true;
          break;
        } else if (queue.length === 0) await this.sleep(action); // a sleep, unless the driver said more since
      }
    } catch (thrown) {
      this.discard();
      throw thrown;
    } finally {
      unlisten?.();
      if (this.runningCount !== 0) this.running.length = 0; // else every entry was forgotten
      this.runningCount = 0;
    }
    return end(this);
  }

  /** Hands the driver an input without a result (`kind`: a poll, a cancel) at `nowMs`, and carries out its output. */
  input(kind, nowMs) {
    this.follow(exchange(this.driver, kind, nowMs, -1, -1, -1, -1, -1, -1));
  }

  /** Hands the decisions recorded since the last report to OpenTelemetry, or to `onDecision`. */
  report() {
    if (this.telemetry !== undefined) this.telemetry.drain(this);
    else if (this.onDecision !== undefined)
      for (let event; (event = nextEvent(this.driver)) !== undefined; ) this.onDecision(event);
  }

  /** Hands in what attempt `entry`'s promise (a thenable, `result`) settles to. */
  awaitResult(entry, result) {
    Promise.resolve(result).then(
      (value) => this.returned(entry, value),
      (thrown) => this.threw(entry, thrown),
    );
  }

  /**
   * Ends a failed loop: the driver cancelled (the cancel observed, as in every language; an error the observer
   * throws then is dropped: the one being raised wins) and freed, the running attempts aborted, the held values
   * dropped.
   */
  discard() {
    this.done = true;
    try {
      _driverCancel(this.driver, this.now());
      this.report();
    } catch {
      // Raised while the failure is being raised: the first error wins.
    } finally {
      _free(this.driver);
    }
    for (const entry of this.running) if (entry !== undefined) abortAttempt(entry, abortError('the operation failed'));
    for (const value of this.values) this.io.dispose(value);
  }

  abort(attempt, reason) {
    const entry = this.running[attempt];
    if (entry === undefined) return;
    this.forget(attempt);
    if (reason === 'timed_out') {
      // The driver counted it as timed out.
      abortAttempt(entry, new DOMException(`retryplan: attempt ${attempt} reached its timeout`, 'TimeoutError'));
    } else if (reason === 'cancelled' && this.signal?.aborted) abortAttempt(entry, this.signal.reason);
    else abortAttempt(entry, abortError(reason === 'lost_race' ? 'another attempt won' : 'the operation ended'));
  }
}
