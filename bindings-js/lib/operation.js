// `Operation` as users construct it: `new Operation(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?})`.
// wasm-bindgen takes no optional reference to a Rust object, so the wasm
// constructor consumes a separate handle: a clone of `options.dependency`
// (an Arc clone in Rust), leaving the caller's Dependency usable.
import { Dependency, Operation as WasmOperation } from '../wasm/retryplan_js.js';
import { RetryplanError } from './convert.js';

export class Operation extends WasmOperation {
  constructor(policy, nowMs, options) {
    const dependency = options?.dependency;
    if (dependency != null && !(dependency instanceof Dependency)) {
      throw new RetryplanError('invalid_argument', 'invalid argument `dependency`: must be a Dependency');
    }
    super(policy, nowMs, options, dependency?.clone());
  }
}
