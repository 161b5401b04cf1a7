// `Stats`: counters over many operations' decisions, counted by the core.
// The wasm hands the counters over as numbers (`_counts`, in the order of
// the core's `Stats` fields, the give-ups last in the core's reason order);
// this names them.
import { Stats as WasmStats } from '../wasm/retryplan_js.js';
import { names } from './outcomes.js';

const COUNTERS = ['operations', 'attempts', 'retries', 'hedges', 'succeeded', 'reconciles', 'restarts'];
const camel = (name) => name.replace(/_([a-z])/g, (_, letter) => letter.toUpperCase());

export class Stats extends WasmStats {
  /** The counters as a plain object: `{operations, attempts, ..., gaveUp: {attemptsExhausted, ...}}`. */
  toJSON() {
    const counts = this._counts();
    const stats = {};
    COUNTERS.forEach((name, at) => (stats[name] = counts[at]));
    const gaveUp = {};
    names(3).forEach((reason, at) => (gaveUp[camel(reason)] = counts[COUNTERS.length + at]));
    stats.gaveUp = gaveUp;
    return stats;
  }
}
