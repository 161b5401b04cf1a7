// `Operation`: one logical operation, decision by decision:
// `new Operation(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?})`.
// Each decision crosses as the core's decision record (wire::encode_decision),
// spelt by lib/records.js.
import {
  _operationOutcome,
  _operationPoll,
  _operationRemaining,
  _operationRequestId,
  _operationRunning,
} from '../wasm/retryplan_js.js';
import { attempt, ms } from './args.js';
import { attemptList, requestIdText } from './words.js';
import { OPERATION, Running, newDriver, state } from './driver.js';
import { HEAVY, handle } from './objects.js';
import { read, words } from './outcomes.js';
import { decisionOf } from './records.js';
import { numbers } from './wire.js';

export class Operation extends Running {
  constructor(policy, nowMs, options) {
    super(newDriver(policy, nowMs, options, OPERATION), HEAVY);
  }

  /** What to do now: start an attempt, keep waiting, or await the running attempt. */
  poll(nowMs) {
    return decisionOf(_operationPoll(handle(this), ms('nowMs', nowMs), false));
  }

  /** Reports how attempt `attempt` ended (read by lib/outcomes.js, it crosses in the core's wire words). */
  onOutcome(nowMs, number, outcome) {
    const now = ms('nowMs', nowMs);
    const at = attempt(number);
    read(outcome);
    return decisionOf(_operationOutcome(handle(this), now, at, words.kind, words.code, words.delay, words.errorCode));
  }

  /** The caller gives up: `gave_up` with reason `cancelled`. */
  cancel(nowMs) {
    return decisionOf(_operationPoll(handle(this), ms('nowMs', nowMs), true));
  }

  /** When to poll next, or undefined once ended. */
  nextWakeupMs() {
    const next = state(this)[0];
    return next < 0 ? undefined : next;
  }

  /** Time left at `nowMs` before the deadline, after the response reserve. */
  remainingMs(nowMs) {
    return _operationRemaining(handle(this), ms('nowMs', nowMs));
  }

  /** @deprecated The old name of `remainingMs`, kept for one release. */
  remainingBudgetMs(nowMs) {
    return this.remainingMs(nowMs);
  }

  /** The attempts running now, ascending (a new array per read). */
  get runningAttempts() {
    const words = numbers(_operationRunning(handle(this)));
    return attemptList(words[0], words[1], words[2], words[3]);
  }

  /** When the operation started. */
  get startedAtMs() {
    return state(this)[3];
  }

  /** The request id attempt `attempt` gets (16 lowercase hex digits). */
  requestId(number) {
    const id = numbers(_operationRequestId(handle(this), attempt(number)));
    return requestIdText(id[0], id[1]);
  }
}
