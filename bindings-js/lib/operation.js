// `Operation` as users construct it: `new Operation(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?})`.
// wasm-bindgen takes no optional reference to a Rust object, so the wasm
// constructor consumes a separate handle: a clone of `options.dependency`
// (an Arc clone in Rust), leaving the caller's Dependency usable.
import { Dependency, Operation as WasmOperation } from '../wasm/retryplan_js.js';
import { RetryplanError, decided } from './convert.js';
import { drawUnlessSeeded, pool } from './entropy.js';
import { parts, read } from './outcomes.js';

/** A handle on `options[name]` for the wasm constructor to consume, checked to be a `type`. */
export function handle(options, name, type) {
  const value = options != null && typeof options === 'object' ? options[name] : undefined;
  if (value == null) return undefined;
  if (!(value instanceof type)) {
    throw Object.assign(new RetryplanError('invalid_argument', `invalid argument \`${name}\`: must be a ${type.name}`), { field: name });
  }
  return name === 'stats' ? value._share() : value.clone();
}

export class Operation extends WasmOperation {
  constructor(policy, nowMs, options) {
    const at = drawUnlessSeeded(options);
    const dependency = handle(options, 'dependency', Dependency);
    super(policy, nowMs, options, dependency, pool[at], pool[at + 1], pool[at + 2], pool[at + 3], pool[at + 4], pool[at + 5]);
  }

  /** What to do now: start an attempt, keep waiting, or await the running attempt. */
  poll(nowMs) {
    return typeof nowMs === 'number' ? decided(this._poll(nowMs)) : super.poll(nowMs);
  }

  /** Reports how attempt `attempt` ended (the common outcomes cross as numbers). */
  onOutcome(nowMs, attempt, outcome) {
    if (typeof nowMs === 'number' && typeof attempt === 'number' && read(outcome)) {
      return decided(this._onOutcomeParts(nowMs, attempt, parts.tag, parts.a, parts.b));
    }
    return super.onOutcome(nowMs, attempt, outcome);
  }
}
