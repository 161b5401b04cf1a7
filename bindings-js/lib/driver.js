// `Driver`: the host loop decided by the core (actions out, results in):
// `new Driver(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?, method?, idempotent?, concurrency?, stats?, recordEvents?})`.
// A JS class over a driver handle (src/driver.rs): the helpers use the
// handles themselves (`newDriver`), without a class instance or a
// FinalizationRegistry entry per operation.
import {
  _driverCancel,
  _driverEvent,
  _driverKey,
  _driverNew,
  _driverPollAction,
  _driverResult,
  _driverResultOf,
  _driverState,
} from '../wasm/retryplan_js.js';
import { attempt, flag, ms, oneOf, options as optionsOf, optional, refuse, text } from './args.js';
import { decided } from './convert.js';
import { dependencyHandle } from './controls.js';
import { pool } from './entropy.js';
import { Held, handle, handleOf } from './objects.js';
import { operationOptions } from './operation.js';
import { parts, read } from './outcomes.js';
import { Policy } from './policy.js';
import { Stats } from './stats.js';

const CONCURRENCY = ['concurrent', 'sequential', 'sequential_without_hedging'];

/** A driver's handle (options checked; seed and key drawn from the OS when there is no seed). */
export function newDriver(policy, nowMs, options) {
  optionsOf(options, 'seed');
  const dependency = dependencyHandle(options);
  const stats = handleOf('stats', options?.stats, Stats, true);
  const policyHandle = handleOf('policy', policy, Policy);
  const now = ms('nowMs', nowMs);
  const [at, seed, key, deadline] = operationOptions(options);
  const idempotent = flag('idempotent', options?.idempotent);
  const method = optional(text, 'method', options?.method);
  if (method === undefined && idempotent !== undefined) throw refuse('idempotent', 'method_needed');
  const concurrency = options?.concurrency == null ? 0 : oneOf('concurrency', options.concurrency, CONCURRENCY);
  const record = flag('recordEvents', options?.recordEvents) ?? false;
  return decided(
    _driverNew(policyHandle, now, seed, key, deadline, dependency, method, idempotent, concurrency, stats, record, pool[at], pool[at + 1], pool[at + 2], pool[at + 3], pool[at + 4], pool[at + 5]),
  );
}

/** The handle's result of a common outcome as numbers, else of the object (which the core validates). */
export function handleResult(driver, nowMs, number, outcome) {
  const now = ms('nowMs', nowMs);
  const at = attempt(number);
  if (read(outcome)) return decided(_driverResult(driver, now, at, parts.tag, parts.a, parts.b));
  return decided(_driverResultOf(driver, now, at, outcome));
}


export class Driver extends Held {
  constructor(policy, nowMs, options) {
    super(newDriver(policy, nowMs, options));
  }

  pollAction(nowMs) {
    return decided(_driverPollAction(handle(this), ms('nowMs', nowMs)));
  }

  handleResult(nowMs, attempt, outcome) {
    return handleResult(handle(this), nowMs, attempt, outcome);
  }

  handleCancel(nowMs) {
    decided(_driverCancel(handle(this), ms('nowMs', nowMs)));
  }

  pollEvent() {
    return decided(_driverEvent(handle(this)));
  }

  get idempotencyKey() {
    return _driverKey(handle(this));
  }

  get deadlineMs() {
    return _driverState(handle(this))[0];
  }

  get attemptsStarted() {
    return _driverState(handle(this))[1];
  }

  get isEnded() {
    return _driverState(handle(this))[2] === 1;
  }
}
