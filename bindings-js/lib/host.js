// The one host loop every helper runs. The core's Driver decides when
// attempts start, time out, hedge, wait and end; this loop only carries out
// each action and hands each attempt's outcome back as it arrives. It keeps
// no bookkeeping of late or expired attempts: a result the driver discards is
// disposed of at once.
import { decided } from './convert.js';
import { FAILURE, failureIndex } from './outcomes.js';

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

/** An attempt the driver started. Its AbortController is made on the first read of `signal` (it costs more than a decision). */
export class Attempt {
  constructor(host, plan) {
    this.host = host;
    this.plan = plan;
    this.controller = undefined;
    this.aborted = false;
    this.reason = undefined;
  }

  get signal() {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason) {
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

const abortError = (message) => new DOMException(`retryplan: ${message}`, 'AbortError');

/**
 * One operation's loop over `driver`. `start(attempt)` begins an attempt's
 * I/O and reports how it ended with `settle` or `settleFailure`; `dispose`
 * releases a value the helper will not return (a response body).
 */
export class Host {
  constructor(driver, start, dispose, { now, signal, onDecision }) {
    this.driver = driver;
    this.start = start;
    this.dispose = dispose;
    this.now = now;
    this.signal = signal ?? undefined;
    this.onDecision = onDecision ?? undefined;
    this.running = new Map();
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
  }

  /** Attempt `entry` ended with `outcome` (an Outcome object), carrying `value` or having thrown `error`. */
  settle(entry, outcome, value, error) {
    if (this.done) return this.dispose(value);
    let receipt;
    try {
      receipt = this.driver.handleResult(this.now(), entry.plan.attempt, outcome);
    } catch (thrown) {
      this.dispose(value);
      return this.abandon(thrown); // an outcome the core refuses: the hook's or the caller's mistake
    }
    this.received(entry, receipt, value, error);
  }

  /** Attempt `entry` failed as the platform reported: `failure` is a name of the vocabulary. */
  settleFailure(entry, failure, error, value) {
    if (this.done) return this.dispose(value);
    const receipt = decided(this.driver._handleResult(this.now(), entry.plan.attempt, FAILURE, failureIndex(failure), undefined));
    this.received(entry, receipt, value, error);
  }

  received(entry, receipt, value, error) {
    if (receipt === 'accepted') {
      this.running.delete(entry.plan.attempt);
      this.keep(entry.plan.attempt, value, error);
    } else this.dispose(value);
    this.wakeUp();
  }

  /** Keeps the latest accepted result, disposing of the value it replaces. */
  keep(attempt, value, error) {
    if (this.latestValue !== undefined && this.latestValue !== value) this.dispose(this.latestValue);
    this.latestAttempt = attempt;
    this.latestValue = value;
    this.latestError = error;
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
    for (let turn = 0; turn < 3 && this.running.size > 0; turn += 1) {
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
          driver.handleCancel(this.now());
        }
        const action = decided(driver._pollAction(this.now()));
        if (this.onDecision !== undefined) for (let event; (event = driver.pollEvent()) !== undefined; ) this.onDecision(event);
        switch (action.type) {
          case 'start_attempt': {
            const entry = new Attempt(this, action);
            this.running.set(action.attempt, entry);
            this.start(entry);
            break;
          }
          case 'abort_attempt':
            this.abort(action.attempt, action.reason);
            break;
          case 'sleep':
            await this.sleep(action.untilMs);
            break;
          default:
            this.done = true;
            return action;
        }
      }
    } catch (thrown) {
      this.done = true;
      driver.handleCancel(this.now());
      for (const entry of this.running.values()) entry.abort(abortError('the operation failed'));
      this.dispose(this.latestValue);
      throw thrown;
    } finally {
      signal?.removeEventListener('abort', cancelled);
      this.running.clear();
    }
  }

  abort(attempt, reason) {
    const entry = this.running.get(attempt);
    if (entry === undefined) return;
    this.running.delete(attempt);
    if (reason === 'timed_out') {
      // The driver counted it as timed out: that is now the latest result.
      const timeout = new DOMException(`retryplan: attempt ${attempt} reached its timeout`, 'TimeoutError');
      entry.abort(timeout);
      this.keep(attempt, undefined, timeout);
    } else if (reason === 'cancelled' && this.signal?.aborted) entry.abort(this.signal.reason);
    else entry.abort(abortError(reason === 'lost_race' ? 'another attempt won' : 'the operation ended'));
  }

  /** The finish's last result: its outcome, and the error it threw or the value it carried, as the host kept them. */
  lastResult() {
    const last = this.driver._lastResult();
    const kept = last !== undefined && last.attempt === this.latestAttempt;
    return { outcome: last?.outcome, error: kept ? this.latestError : undefined, value: kept ? this.latestValue : undefined };
  }
}
