// The one host loop every helper runs. The core's Driver decides when
// attempts start, time out, hedge, wait and end; this loop only carries out
// each action and hands each attempt's outcome back as it arrives. It keeps
// no bookkeeping of late or expired attempts: a result the driver discards is
// disposed of at once.
import { _driverCancel, _driverEvent, _driverLastResult, _driverPoll, _driverResult, _driverResultPoll } from '../wasm/retryplan_js.js';
import { Attempt, RetryplanError, abortAttempt, decided, receipt } from './convert.js';
import { handleResult } from './driver.js';
import { FAILURE, failureIndex, parts, read } from './outcomes.js';

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

const NOT_RETRYABLE = Object.freeze({ type: 'application', verdict: 'not_retryable' });
const abortError = (message) => new DOMException(`retryplan: ${message}`, 'AbortError');

/**
 * One operation's loop over the driver `driver` (a handle), for a helper's I/O (`io`):
 * - `attempt(entry)` sends one attempt, `entry` being the `Attempt` the
 *   driver started (`io.entry` may complete it); what it returns (or
 *   resolves to) is read by `io.outcomeOf(value)`, which may throw for a value
 *   it cannot read (then `io.unreadable` is the failure);
 * - what it throws is named by `io.failureOf(error)` (the failure table), else
 *   by the caller's `outcomeOfError(error)` hook, else not retryable;
 * - `io.dispose(value)` releases a value the helper will not return.
 * It calls the attempt itself, so that an error the attempt makes captures a
 * stack as short as a plain loop's (most of what making an error costs).
 */
export class Host {
  constructor(driver, attempt, io, { now, signal, onDecision, outcomeOfError }) {
    this.driver = driver;
    this.attempt = attempt;
    this.io = io;
    this.now = now;
    this.signal = signal ?? undefined;
    this.onDecision = onDecision ?? undefined;
    this.outcomeOfError = outcomeOfError;
    /** Running attempts by number (cheaper than a Map for a handful of small integers), and how many. */
    this.running = [];
    this.inFlight = 0;
    /** The latest result the driver accepted: its attempt, and the value it carried or the error it threw. */
    this.latestAttempt = 0;
    this.latestValue = undefined;
    this.latestError = undefined;
    this.done = false;
    this.cancelled = false;
    this.failed = false;
    this.failure = undefined;
    this.woken = false;
    this.wake = undefined;
    this.readAt = undefined;
    this.next = undefined;
  }

  // How an attempt ended. With `polling` (the loop hands the result in
  // itself, before its next poll), the next action is polled with it, in one
  // call to the driver, and kept for the loop (`next`).

  /** Attempt `entry` returned (or resolved to) `value`. */
  returned(entry, value, polling) {
    let outcome;
    try {
      outcome = this.io.outcomeOf(value);
    } catch (unreadable) {
      return this.settleFailure(entry, this.io.unreadable, unreadable, value, polling);
    }
    this.settle(entry, outcome, value, undefined, polling);
  }

  /** Attempt `entry` threw (or rejected with) `thrown`: the failure table first, then the hook (by default: not retryable). */
  threw(entry, thrown, polling) {
    const failure = this.io.failureOf(thrown);
    if (failure !== undefined) return this.settleFailure(entry, failure, thrown, undefined, polling);
    let outcome;
    try {
      outcome = this.outcomeOfError?.(thrown);
    } catch (hookError) {
      return this.abandon(hookError);
    }
    this.settle(entry, outcome ?? NOT_RETRYABLE, undefined, thrown, polling);
  }

  /** Attempt `entry` ended with `outcome` (an Outcome object), carrying `value` or having thrown `error`. */
  settle(entry, outcome, value, error, polling) {
    if (this.done) return this.io.dispose(value);
    const now = this.clock();
    if (polling && read(outcome)) {
      return this.polled(entry, _driverResultPoll(this.driver, now, entry.attempt, parts.tag, parts.a, parts.b), value, error);
    }
    let accepted;
    try {
      accepted = handleResult(this.driver, now, entry.attempt, outcome) === 'accepted';
    } catch (thrown) {
      this.io.dispose(value);
      return this.abandon(thrown); // an outcome the core refuses: the hook's or the caller's mistake
    }
    this.received(entry, accepted, value, error);
  }

  /** Attempt `entry` failed as the platform reported: `failure` is a name of the vocabulary. */
  settleFailure(entry, failure, error, value, polling) {
    if (this.done) return this.io.dispose(value);
    const index = failureIndex(failure);
    if (polling) return this.polled(entry, _driverResultPoll(this.driver, this.clock(), entry.attempt, FAILURE, index, undefined), value, error);
    const accepted = decided(_driverResult(this.driver, this.clock(), entry.attempt, FAILURE, index, undefined)) === 'accepted';
    this.received(entry, accepted, value, error);
  }

  /** A result handed in with the next poll: `next` is that action, or the error (nothing changed). */
  polled(entry, next, value, error) {
    if (next instanceof RetryplanError) {
      this.io.dispose(value);
      return this.abandon(next);
    }
    this.next = next;
    const discarded = receipt.discarded;
    receipt.discarded = false;
    this.received(entry, !discarded, value, error);
  }

  received(entry, accepted, value, error) {
    if (accepted) {
      this.forget(entry.attempt);
      this.keep(entry.attempt, value, error);
    } else this.io.dispose(value);
    this.wakeUp();
  }

  forget(attempt) {
    this.running[attempt] = undefined;
    this.inFlight -= 1;
  }

  /** Keeps the latest accepted result, disposing of the value it replaces. */
  keep(attempt, value, error) {
    if (this.latestValue !== undefined && this.latestValue !== value) this.io.dispose(this.latestValue);
    this.latestAttempt = attempt;
    this.latestValue = value;
    this.latestError = error;
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
    for (let turn = 0; turn < 3 && this.inFlight > 0; turn += 1) {
      await undefined;
      if (this.woken) return;
    }
    await new Promise((resolve) => {
      const cancel = after(untilMs - this.now(), resolve);
      this.wake = () => {
        cancel();
        resolve();
      };
    });
  }

  /** Drives the operation to its end: resolves to the driver's finish action. */
  async run() {
    const { driver, signal } = this;
    const cancelled = () => this.wakeUp();
    signal?.addEventListener('abort', cancelled);
    try {
      for (;;) {
        if (this.failed) throw this.failure;
        if (signal?.aborted && !this.cancelled) {
          this.cancelled = true;
          this.next = undefined; // decided before the cancel: its attempt is aborted, never started
          _driverCancel(driver, this.now());
        }
        let action = this.next;
        if (action === undefined) action = decided(_driverPoll(driver, this.readAt ?? this.now()));
        else this.next = undefined;
        this.readAt = undefined;
        if (this.onDecision !== undefined) for (let event; (event = decided(_driverEvent(driver))) !== undefined; ) this.onDecision(event);
        if (action instanceof Attempt) {
          // Each attempt starts from a fresh, short stack (see the class comment).
          await undefined;
          const entry = this.io.entry(action);
          this.running[entry.attempt] = entry;
          this.inFlight += 1;
          const attempt = this.attempt; // called as a plain function: `this` is not the host's
          let result;
          try {
            result = attempt(entry);
            if (typeof result?.then === 'function') {
              Promise.resolve(result).then((value) => this.returned(entry, value, false), (thrown) => this.threw(entry, thrown, false));
              continue;
            }
          } catch (thrown) {
            this.threw(entry, thrown, true);
            continue;
          }
          this.returned(entry, result, true);
        } else if (action.type === 'abort_attempt') this.abort(action.attempt, action.reason);
        else if (action.type === 'sleep') await this.sleep(action.untilMs);
        else {
          this.done = true;
          return action;
        }
      }
    } catch (thrown) {
      this.done = true;
      _driverCancel(driver, this.now());
      for (const entry of this.running) if (entry !== undefined) abortAttempt(entry, abortError('the operation failed'));
      this.io.dispose(this.latestValue);
      throw thrown;
    } finally {
      signal?.removeEventListener('abort', cancelled);
      this.running.length = 0;
      this.inFlight = 0;
    }
  }

  abort(attempt, reason) {
    const entry = this.running[attempt];
    if (entry === undefined) return;
    this.forget(attempt);
    if (reason === 'timed_out') {
      // The driver counted it as timed out: that is now the latest result.
      const timeout = new DOMException(`retryplan: attempt ${attempt} reached its timeout`, 'TimeoutError');
      abortAttempt(entry, timeout);
      this.keep(attempt, undefined, timeout);
    } else if (reason === 'cancelled' && this.signal?.aborted) abortAttempt(entry, this.signal.reason);
    else abortAttempt(entry, abortError(reason === 'lost_race' ? 'another attempt won' : 'the operation ended'));
  }

  /** The finish's last result: its outcome, and the error it threw or the value it carried, as the host kept them. */
  lastResult() {
    const last = decided(_driverLastResult(this.driver));
    const kept = last !== undefined && last.attempt === this.latestAttempt;
    return { outcome: last?.outcome, error: kept ? this.latestError : undefined, value: kept ? this.latestValue : undefined };
  }
}
