// `Operation` as users construct it: `new Operation(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?})`.
// wasm-bindgen takes no optional reference to a Rust object, so the wasm
// constructor consumes a separate handle: a clone of `options.dependency`
// (an Arc clone in Rust), leaving the caller's Dependency usable.
import { Dependency, Operation as WasmOperation } from '../wasm/retryplan_js.js';
import { RetryplanError } from './convert.js';

// The outcome tags of the wasm `_onOutcomeParts`, as src/lib.rs numbers them (PARTS_*).
const SUCCESS = 0;
const HTTP_STATUS = 1;
const TRANSPORT = 2;

// The internal wasm methods return the decision or the RetryplanError as one
// value (cheaper than a Result through wasm-bindgen's externref table).
const decided = (value) => {
  if (value instanceof RetryplanError) throw value;
  return value;
};

export class Operation extends WasmOperation {
  constructor(policy, nowMs, options) {
    const dependency = options?.dependency;
    if (dependency != null && !(dependency instanceof Dependency)) {
      throw new RetryplanError('invalid_argument', 'invalid argument `dependency`: must be a Dependency');
    }
    super(policy, nowMs, options, dependency?.clone());
  }

  /** What to do now: start an attempt, keep waiting, or await the running attempt. */
  poll(nowMs) {
    return decided(this._poll(nowMs));
  }

  /**
   * Reports how attempt `attempt` ended. The common outcomes cross as their
   * fields (reading the object from wasm, property by property, costs more than
   * the decision); the Rust side validates them as it validates the object.
   * Anything else, malformed values included, takes the object path.
   */
  onOutcome(nowMs, attempt, outcome) {
    if (typeof outcome === 'object' && outcome !== null) {
      const type = outcome.type;
      if (type === 'http_status') {
        const status = outcome.status;
        if (typeof status === 'number' && outcome.errorCode == null) {
          const retryAfterMs = outcome.retryAfterMs;
          if (retryAfterMs == null) return decided(this._onOutcomeParts(nowMs, attempt, HTTP_STATUS, status, undefined, undefined));
          if (typeof retryAfterMs === 'number') return decided(this._onOutcomeParts(nowMs, attempt, HTTP_STATUS, status, retryAfterMs, undefined));
        }
      } else if (type === 'success') {
        return decided(this._onOutcomeParts(nowMs, attempt, SUCCESS, undefined, undefined, undefined));
      } else if (type === 'transport') {
        const failure = outcome.failure;
        if (typeof failure === 'string') return decided(this._onOutcomeParts(nowMs, attempt, TRANSPORT, undefined, undefined, failure));
      }
    }
    return super.onOutcome(nowMs, attempt, outcome);
  }
}
