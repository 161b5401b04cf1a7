// `Driver` as users and the helpers construct it:
// `new Driver(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?, method?, idempotent?, concurrency?, stats?, recordEvents?})`.
// The wasm constructor consumes handles made for it (see operation.js).
import { Dependency, Driver as WasmDriver, Stats } from '../wasm/retryplan_js.js';
import { decided } from './convert.js';
import { drawUnlessSeeded, pool } from './entropy.js';
import { handle } from './operation.js';
import { parts, read } from './outcomes.js';

export class Driver extends WasmDriver {
  constructor(policy, nowMs, options) {
    const at = drawUnlessSeeded(options);
    const dependency = handle(options, 'dependency', Dependency);
    const stats = handle(options, 'stats', Stats);
    super(policy, nowMs, options, dependency, stats, pool[at], pool[at + 1], pool[at + 2], pool[at + 3], pool[at + 4], pool[at + 5]);
  }

  /** How attempt `attempt` ended: "accepted" or "discarded" (the common outcomes cross as numbers). */
  handleResult(nowMs, attempt, outcome) {
    if (typeof nowMs === 'number' && typeof attempt === 'number' && read(outcome)) {
      return decided(this._handleResult(nowMs, attempt, parts.tag, parts.a, parts.b));
    }
    return super.handleResult(nowMs, attempt, outcome);
  }
}
