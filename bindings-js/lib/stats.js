// `Stats`: counters over many operations' decisions, counted by the core (give
// it to drivers and helpers as `{stats}`). The wasm hands the counters over as
// numbers (in the order of the core's `Stats` fields, the give-ups last in the
// core's reason order); this names them.
import { _statsCounts, _statsMerge, _statsNew } from '../wasm/retryplan_js.js';
import { decided } from './convert.js';
import { BRAND, Held, handle, handleOf } from './objects.js';
import { NAMES, numbers } from './wire.js';

const COUNTERS = ['operations', 'attempts', 'retries', 'hedges', 'succeeded', 'reconciles', 'restarts'];
const camel = (name) => name.replace(/_([a-z])/g, (_, letter) => letter.toUpperCase());

export class Stats extends Held {
  /** Checked by lib/driver.js (see BRAND in lib/objects.js). */
  get [BRAND.Stats]() {
    return true;
  }

  constructor() {
    super(decided(_statsNew()));
  }

  /** Adds another set of counters to these (saturating). */
  merge(other) {
    decided(_statsMerge(handle(this), handleOf('other', other, Stats)));
  }

  /** The counters as a plain object: `{operations, attempts, ..., gaveUp: {attemptsExhausted, ...}}`. */
  toJSON() {
    const counts = numbers(_statsCounts(handle(this)));
    const stats = {};
    COUNTERS.forEach((name, at) => (stats[name] = counts[at]));
    const gaveUp = {};
    NAMES.giveUpReasons.forEach((reason, at) => (gaveUp[camel(reason)] = counts[COUNTERS.length + at]));
    stats.gaveUp = gaveUp;
    return stats;
  }
}
