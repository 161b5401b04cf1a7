// The shared controls of a dependency (`Dependency`), and each control on its
// own: `RetryBudget` (with its `RetryCharge`s), `CircuitBreaker` (with its
// `BreakerPermit`s) and `RetrySlots` (with its `RetrySlot`s). A grant
// (charge, permit, slot) is settled once, by the control that granted it: the
// core refuses anything else (`invalid_argument` naming `charge`, `permit` or
// `slot`), and a grant freed unsettled is given back. Configurations are read
// by the core's one reader.
import {
  _breakerNew,
  _breakerSettle,
  _breakerTryAcquire,
  _budgetAcquire,
  _budgetNew,
  _budgetOnRequest,
  _budgetRelease,
  _budgetSettle,
  _budgetTryRetry,
  _chargeCost,
  _dependencyControl,
  _dependencyFromCompiled,
  _dependencyFromConfig,
  _dependencyShare,
  _grantsOutstanding,
  _slotsNew,
  _slotsState,
  _slotsTake,
  _permitProbe,
} from '../wasm/retryplan_js.js';
import { compiledForm, flag, ms, whole } from './args.js';
import { decided } from './convert.js';
import { notConstructed } from './error.js';
import { decidedConfig } from './spelling.js';
import { BRAND, Held, handle, handleOf, make } from './objects.js';
import { numbers } from './wire.js';

const U32 = 2 ** 32 - 1;

/**
 * The shared controls of one downstream dependency: an optional retry budget,
 * circuit breaker and retry slots (how many retries and hedges may run at
 * once). Give it to every
 * operation that calls the dependency (`{dependency}`).
 */
export class Dependency extends Held {
  /** Not how a dependency is made: `unsupported`, naming the functions that make one. */
  constructor() {
    throw notConstructed(
      'Dependency',
      'Dependency.fromCompiled(form), or Dependency.fromConfig(config) outside the browser runtime',
    );
  }

  /** Checked by lib/driver.js (see BRAND in lib/objects.js). */
  get [BRAND.Dependency]() {
    return true;
  }

  /** Validates a configuration object (camelCase keys); errors and field paths match every language's. */
  static fromConfig(config) {
    return make(this, decidedConfig(_dependencyFromConfig(config), config));
  }

  /**
   * New shared controls (full budget, closed breaker) from a compiled
   * dependency (`compileDependency` of retryplan/tools), without the
   * configuration reader; refused as `Policy.fromCompiled` refuses a form.
   */
  static fromCompiled(form) {
    return make(this, _dependencyFromCompiled(compiledForm('form', form)));
  }

  /** Another handle on the same shared controls (free each handle on its own). */
  clone() {
    return make(this.constructor, _dependencyShare(handle(this)));
  }

  /** The retry budget (a handle on the shared one, a new object per read), or undefined. */
  get budget() {
    return control(this, 'budget', RetryBudget);
  }

  /** The circuit breaker (a handle on the shared one, a new object per read), or undefined. */
  get breaker() {
    return control(this, 'breaker', CircuitBreaker);
  }

  /** The retry slots (a handle on the shared ones, a new object per read), or undefined. */
  get retrySlots() {
    return control(this, 'retry_slots', RetrySlots);
  }
}

/** A handle on `dependency`'s control named `which` as its configuration names it, as a `Class`, or undefined. */
function control(dependency, which, Class) {
  const found = decided(_dependencyControl(handle(dependency), which));
  return found === 0 ? undefined : make(Class, found);
}

/** A retry budget shared by every operation calling one dependency. */
export class RetryBudget extends Held {
  /** Validates a configuration (`{kind: "token_bucket", maxTokens, tokenRatio}`, ...); field paths start with `budget.`. */
  constructor(config) {
    super(decidedConfig(_budgetNew(config), config));
  }

  /** Counts an original request (a first attempt) dispatched at `nowMs`. */
  onRequest(nowMs) {
    decided(_budgetOnRequest(handle(this), ms('nowMs', nowMs)));
  }

  /** Asks to dispatch a retry (or hedge) now: a `RetryCharge` when granted, undefined when refused. */
  tryRetry(nowMs, afterTimeout) {
    const charge = decided(
      _budgetTryRetry(handle(this), ms('nowMs', nowMs), flag('afterTimeout', afterTimeout) ?? false),
    );
    return charge === 0 ? undefined : make(RetryCharge, charge);
  }

  /** Records a success; `charge` is what `tryRetry` granted for the attempt (refunded, once), absent for a first attempt. */
  onSuccess(nowMs, charge) {
    decided(_budgetSettle(handle(this), ms('nowMs', nowMs), handleOf('charge', charge, RetryCharge, true), true));
  }

  /** Records a retryable failure; `charge` is what `tryRetry` granted for the attempt (spent, once), absent for a first attempt. */
  onFailure(nowMs, charge) {
    decided(_budgetSettle(handle(this), ms('nowMs', nowMs), handleOf('charge', charge, RetryCharge, true), false));
  }

  /** Settles a charge whose retry ended with neither a success nor a retryable failure (cancelled, aborted): its cost stays spent, once. */
  spend(charge) {
    decided(_budgetSettle(handle(this), 0, handleOf('charge', charge, RetryCharge), undefined));
  }

  /** The charges granted and not settled yet. */
  get chargesOutstanding() {
    return _grantsOutstanding(handle(this));
  }

  /**
   * The AWS SDKs' raw quota call, in units, outside the rules of grants (for
   * a host mirroring botocore's own bookkeeping; a retry loop uses
   * `tryRetry` and its charge): takes `amount` units from a quota, true when
   * taken, false when fewer are left.
   */
  acquire(amount) {
    return decided(_budgetAcquire(handle(this), whole('amount', amount, U32)));
  }

  /** The AWS SDKs' raw quota call, in units (see `acquire`): gives `amount` units back to a quota, never above its capacity. */
  release(amount) {
    decided(_budgetRelease(handle(this), whole('amount', amount, U32)));
  }
}

/** What `RetryBudget#tryRetry` charged, opaque; hand it back once, with the retry's success (refunded) or failure (spent). */
export class RetryCharge extends Held {
  /** Units charged (quota model; 0 for the others). */
  get cost() {
    return _chargeCost(handle(this));
  }
}

/** Admission granted by `CircuitBreaker#tryAcquire`; hand it back once, with the result or as a release. */
export class BreakerPermit extends Held {
  /** True when the attempt is a half-open probe. */
  get probe() {
    return _permitProbe(handle(this));
  }
}

/** A circuit breaker shared by every operation calling one dependency. */
export class CircuitBreaker extends Held {
  /** Validates a configuration (`{trip: {kind: "consecutive", failures}, openMs, halfOpenProbes}`); field paths start with `breaker.`. */
  constructor(config) {
    super(decidedConfig(_breakerNew(config), config));
  }

  /** Asks to send an attempt at `nowMs`: a permit, or undefined when refused. */
  tryAcquire(nowMs) {
    const permit = decided(_breakerTryAcquire(handle(this), ms('nowMs', nowMs)));
    return permit === 0 ? undefined : make(BreakerPermit, permit);
  }

  /** Records that the dependency answered (anything but a retryable failure). */
  onSuccess(nowMs, permit) {
    decided(_breakerSettle(handle(this), ms('nowMs', nowMs), handleOf('permit', permit, BreakerPermit), true));
  }

  /** Records a retryable failure. */
  onFailure(nowMs, permit) {
    decided(_breakerSettle(handle(this), ms('nowMs', nowMs), handleOf('permit', permit, BreakerPermit), false));
  }

  /** Gives a permit back without a result (the attempt was cancelled). */
  release(permit) {
    decided(_breakerSettle(handle(this), 0, handleOf('permit', permit, BreakerPermit), undefined));
  }

  /** The permits granted and not settled yet. */
  get permitsOutstanding() {
    return _grantsOutstanding(handle(this));
  }
}

/** A slot granted by `RetrySlots#tryAcquire`, opaque; give it back once, to the slots that granted it. */
export class RetrySlot extends Held {}

/** Retry slots: how many retries and hedges to one dependency may run at once. */
export class RetrySlots extends Held {
  /** `capacity` slots (0 refuses every retry and hedge). */
  constructor(capacity) {
    super(decided(_slotsNew(whole('capacity', capacity, U32))));
  }

  /** Takes a slot: a `RetrySlot`, or undefined when all are taken (as the breaker's and the budget's grants). */
  tryAcquire() {
    const slot = _slotsTake(handle(this));
    return slot === 0 ? undefined : make(RetrySlot, slot);
  }

  /** Gives back `slot` (once, to the slots that granted it; a second use or another's slot is "invalid_argument" naming `slot`). */
  release(slot) {
    _slotsTake(handle(this), handleOf('slot', slot, RetrySlot));
  }

  /** Slots in use now. */
  get inUse() {
    return numbers(_slotsState(handle(this)))[0];
  }

  /** How many slots there are. */
  get capacity() {
    return numbers(_slotsState(handle(this)))[1];
  }
}

/** @deprecated The old name of `RetrySlots`, kept for one release. */
export const ConcurrencyLimit = RetrySlots;
