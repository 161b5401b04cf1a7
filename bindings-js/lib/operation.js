// `Operation`: one logical operation, decision by decision:
// `new Operation(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?})`.
import {
  _operationCancel,
  _operationOutcome,
  _operationOutcomeOf,
  _operationPoll,
  _operationRemaining,
  _operationRequestId,
  _operationRunning,
  _operationState,
} from '../wasm/retryplan_js.js';
import { attempt, ms } from './args.js';
import { decided, requestIdText } from './convert.js';
import { OPERATION, newDriver } from './driver.js';
import { HEAVY, Held, handle } from './objects.js';
import { read, words } from './outcomes.js';
import { driverKey } from './wire.js';

export class Operation extends Held {
  constructor(policy, nowMs, options) {
    super(newDriver(policy, nowMs, options, OPERATION), HEAVY);
  }

  /** What to do now: start an attempt, keep waiting, or await the running attempt. */
  poll(nowMs) {
    return decided(_operationPoll(handle(this), ms('nowMs', nowMs)));
  }

  /** Reports how attempt `attempt` ended (the common outcomes cross in the core's wire words). */
  onOutcome(nowMs, number, outcome) {
    const now = ms('nowMs', nowMs);
    const at = attempt(number);
    if (read(outcome)) {
      const decision = _operationOutcome(handle(this), now, at, words.kind, words.code, words.delay);
      if (decision !== undefined) return decided(decision);
    }
    return decided(_operationOutcomeOf(handle(this), now, at, outcome));
  }

  /** The caller gives up: `gave_up` with reason `cancelled`. */
  cancel(nowMs) {
    return decided(_operationCancel(handle(this), ms('nowMs', nowMs)));
  }

  /** When to poll next, or undefined once ended. */
  nextWakeupMs() {
    const next = _operationState(handle(this), false)[0];
    return next < 0 ? undefined : next;
  }

  /** Budget left at `nowMs` after the response reserve. */
  remainingBudgetMs(nowMs) {
    return _operationRemaining(handle(this), ms('nowMs', nowMs));
  }

  /** The operation's deadline: `min(start + totalBudgetMs, deadlineMs)`. */
  get deadlineMs() {
    return _operationState(handle(this), false)[1];
  }

  /** The stable idempotency key of every attempt. */
  get idempotencyKey() {
    return driverKey(handle(this), false);
  }

  /** Attempts started so far (hedges included). */
  get attemptsStarted() {
    return _operationState(handle(this), false)[2];
  }

  /** The attempts running now, ascending (a new array per read). */
  get runningAttempts() {
    return _operationRunning(handle(this));
  }

  /** When the operation started. */
  get startedAtMs() {
    return _operationState(handle(this), false)[3];
  }

  /** The request id attempt `attempt` gets (16 lowercase hex digits). */
  requestId(number) {
    const [high, low] = _operationRequestId(handle(this), attempt(number));
    return requestIdText(high, low);
  }

  /** True once an ending was returned. */
  get isEnded() {
    return _operationState(handle(this), false)[4] === 1;
  }
}
