// `Driver` as users construct it:
// `new Driver(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?, method?, idempotent?, concurrency?, stats?, recordEvents?})`.
// A JS class over a driver handle (src/driver.rs): the helpers use the
// handles themselves, without a class instance or a FinalizationRegistry
// entry per operation.
import {
  Dependency,
  Stats,
  _driverCancel,
  _driverEvent,
  _driverFree,
  _driverKey,
  _driverNew,
  _driverPollAction,
  _driverResult,
  _driverResultOf,
  _driverState,
} from '../wasm/retryplan_js.js';
import { RetryplanError, decided } from './convert.js';
import { drawUnlessSeeded, pool } from './entropy.js';
import { handle } from './operation.js';
import { parts, read } from './outcomes.js';

/** A driver's handle: seed and key drawn from the OS when `options` has no seed. */
export function newDriver(policy, nowMs, options) {
  const at = drawUnlessSeeded(options);
  const dependency = handle(options, 'dependency', Dependency);
  const stats = handle(options, 'stats', Stats);
  return _driverNew(policy, nowMs, options, dependency, stats, pool[at], pool[at + 1], pool[at + 2], pool[at + 3], pool[at + 4], pool[at + 5]);
}

/** The handle's result of a common outcome as numbers, else of the object (which the core validates). */
export function handleResult(driver, nowMs, attempt, outcome) {
  if (typeof nowMs === 'number' && typeof attempt === 'number' && read(outcome)) {
    return decided(_driverResult(driver, nowMs, attempt, parts.tag, parts.a, parts.b));
  }
  return _driverResultOf(driver, nowMs, attempt, outcome);
}

const freed = () => Object.assign(new RetryplanError('invalid_argument', 'invalid argument `driver`: was freed'), { field: 'driver' });
const drivers = new FinalizationRegistry(_driverFree);

export class Driver {
  #handle;

  constructor(policy, nowMs, options) {
    this.#handle = newDriver(policy, nowMs, options);
    drivers.register(this, this.#handle, this);
  }

  #live() {
    if (this.#handle === undefined) throw freed();
    return this.#handle;
  }

  pollAction(nowMs) {
    return _driverPollAction(this.#live(), nowMs);
  }

  handleResult(nowMs, attempt, outcome) {
    return handleResult(this.#live(), nowMs, attempt, outcome);
  }

  handleCancel(nowMs) {
    _driverCancel(this.#live(), nowMs);
  }

  pollEvent() {
    return _driverEvent(this.#live());
  }

  get idempotencyKey() {
    return _driverKey(this.#live());
  }

  get deadlineMs() {
    return _driverState(this.#live())[0];
  }

  get attemptsStarted() {
    return _driverState(this.#live())[1];
  }

  get isEnded() {
    return _driverState(this.#live())[2] === 1;
  }

  /** Frees the driver's wasm memory (the garbage collector does it otherwise). */
  free() {
    if (this.#handle === undefined) return;
    drivers.unregister(this);
    _driverFree(this.#handle);
    this.#handle = undefined;
  }
}
if (typeof Symbol.dispose === 'symbol') Driver.prototype[Symbol.dispose] = Driver.prototype.free;
