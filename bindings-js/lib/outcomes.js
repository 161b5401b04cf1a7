// The common outcomes as numbers for the wasm fast paths (`_onOutcomeParts`,
// `_handleResult`): reading an object from Rust, property by property, costs
// more than the decision. Anything unusual (malformed values included) takes
// the object path, which validates it; the numbers are validated the same way.
import { _names } from '../wasm/retryplan_js.js';

import { PARTS_APPLICATION, PARTS_CANCELLED, PARTS_FAILURE, PARTS_HTTP_STATUS, PARTS_SUCCESS, PARTS_TRANSPORT } from './tags.js';

export const SUCCESS = PARTS_SUCCESS;
export const FAILURE = PARTS_FAILURE;

/** The core's names: [transport failures, verdicts, failures, give-up reasons], read on first use. */
let lists;
export const names = (list) => (lists ??= _names())[list];

/** Name -> index maps of the lists, made on first use. */
let indexes;
const index = (list, name) => (indexes ??= _names().map((names) => new Map(names.map((name, at) => [name, at]))))[list].get(name);

/** The index of a failure of the vocabulary (`dns_lookup_failed`, ...), or undefined. */
export const failureIndex = (name) => index(2, name);

/** The parts `read` found: `tag`, `a` (a status or a name's index), `b` (retryAfterMs or undefined). */
export const parts = { tag: 0, a: 0, b: undefined };

/** True (and `parts` set) when `outcome` is a well-formed common outcome. */
export function read(outcome) {
  if (typeof outcome !== 'object' || outcome === null) return false;
  parts.a = 0;
  parts.b = undefined;
  switch (outcome.type) {
    case 'success':
      parts.tag = PARTS_SUCCESS;
      return true;
    case 'http_status': {
      const { status, retryAfterMs } = outcome;
      if (typeof status !== 'number' || (retryAfterMs != null && typeof retryAfterMs !== 'number')) return false;
      if (outcome.errorCode != null) return false; // a service's error code: the object path reads it
      parts.tag = PARTS_HTTP_STATUS;
      parts.a = status;
      parts.b = retryAfterMs ?? undefined;
      return true;
    }
    case 'transport':
      parts.tag = PARTS_TRANSPORT;
      parts.a = index(0, outcome.failure);
      return parts.a !== undefined;
    case 'application':
      parts.tag = PARTS_APPLICATION;
      parts.a = index(1, outcome.verdict);
      return parts.a !== undefined;
    case 'cancelled':
      parts.tag = PARTS_CANCELLED;
      return true;
    default:
      return false;
  }
}
