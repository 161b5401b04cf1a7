// `Operation`: one logical operation, decision by decision:
// `new Operation(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?})`.
import {
  _operationCancel,
  _operationKey,
  _operationNew,
  _operationOutcome,
  _operationOutcomeOf,
  _operationPoll,
  _operationRemaining,
  _operationRequestId,
  _operationRunning,
  _operationState,
} from '../wasm/retryplan_js.js';
import { attempt, ms, options as optionsOf, optional, text, whole } from './args.js';
import { decided, requestIdText } from './convert.js';
import { dependencyHandle } from './controls.js';
import { drawUnlessSeeded, pool } from './entropy.js';
import { HEAVY, Held, handle, handleOf } from './objects.js';
import { read, words } from './outcomes.js';
import { Policy } from './policy.js';
import { driverKey } from './wire.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * What every operation (and driver) starts from, checked: `[seed, key,
 * deadline]` (each undefined when absent), with `at`, the index in the
 * entropy pool of the words that seed it and make its key when it has no
 * seed. The caller's order of checks: dependency first, then the rest.
 */
export function operationOptions(options) {
  const at = drawUnlessSeeded(options);
  const seed = optional(whole, 'seed', options?.seed, MAX_SAFE);
  const key = optional(text, 'idempotencyKey', options?.idempotencyKey);
  const deadline = optional(ms, 'deadlineMs', options?.deadlineMs);
  return [at, seed, key, deadline];
}


export class Operation extends Held {
  constructor(policy, nowMs, options) {
    optionsOf(options, 'seed');
    const dependency = dependencyHandle(options);
    const policyHandle = handleOf('policy', policy, Policy);
    const now = ms('nowMs', nowMs);
    const [at, seed, key, deadline] = operationOptions(options);
    super(
      decided(
        _operationNew(policyHandle, now, seed, key, deadline, dependency, pool[at], pool[at + 1], pool[at + 2], pool[at + 3], pool[at + 4], pool[at + 5]),
      ),
      HEAVY,
    );
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
    const next = _operationState(handle(this))[0];
    return next < 0 ? undefined : next;
  }

  /** Budget left at `nowMs` after the response reserve. */
  remainingBudgetMs(nowMs) {
    return _operationRemaining(handle(this), ms('nowMs', nowMs));
  }

  /** The operation's deadline: `min(start + totalBudgetMs, deadlineMs)`. */
  get deadlineMs() {
    return _operationState(handle(this))[1];
  }

  /** The stable idempotency key of every attempt. */
  get idempotencyKey() {
    return driverKey(handle(this), _operationKey);
  }

  /** Attempts started so far (hedges included). */
  get attemptsStarted() {
    return _operationState(handle(this))[2];
  }

  /** The attempts running now, ascending (a new array per read). */
  get runningAttempts() {
    return _operationRunning(handle(this));
  }

  /** When the operation started. */
  get startedAtMs() {
    return _operationState(handle(this))[3];
  }

  /** The request id attempt `attempt` gets (16 lowercase hex digits). */
  requestId(number) {
    const [high, low] = _operationRequestId(handle(this), attempt(number));
    return requestIdText(high, low);
  }

  /** True once an ending was returned. */
  get isEnded() {
    return _operationState(handle(this))[4] === 1;
  }
}
