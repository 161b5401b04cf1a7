// The common outcomes as numbers for the operation's fast path
// (`_operationOutcome`): reading an object from Rust, property by property,
// costs more than the decision. Anything unusual (malformed values included)
// takes the object path, which validates it; the numbers are validated the
// same way. The kinds are the core's wire `OutcomeKind`s (lib/wire.js).
import { NAMES, WIRE } from './wire.js';

/** The core's names: [transport failures, verdicts, failures, give-up reasons]. */
export const names = (list) => [NAMES.transportFailures, NAMES.verdicts, NAMES.failures, NAMES.giveUpReasons][list];

/** Name -> index maps of the lists, made on first use. */
let indexes;
const index = (list, name) => (indexes ??= [0, 1, 2].map((at) => new Map(names(at).map((name, place) => [name, place]))))[list].get(name);

/** The index of a failure of the vocabulary (`dns_lookup_failed`, ...), or undefined. */
export const failureIndex = (name) => index(2, name);

/** The parts `read` found: `tag` (the outcome kind), `a` (a status or a name's index), `b` (retryAfterMs or undefined). */
export const parts = { tag: 0, a: 0, b: undefined };

/** True (and `parts` set) when `outcome` is a well-formed common outcome. */
export function read(outcome) {
  if (typeof outcome !== 'object' || outcome === null) return false;
  parts.a = 0;
  parts.b = undefined;
  switch (outcome.type) {
    case 'success':
      parts.tag = WIRE.OUTCOME.success;
      return true;
    case 'http_status': {
      const { status, retryAfterMs } = outcome;
      if (typeof status !== 'number' || (retryAfterMs != null && typeof retryAfterMs !== 'number')) return false;
      if (outcome.errorCode != null) return false; // a service's error code: the object path reads it
      parts.tag = WIRE.OUTCOME.http_status;
      parts.a = status;
      parts.b = retryAfterMs ?? undefined;
      return true;
    }
    case 'transport': {
      const { retryAfterMs } = outcome;
      if (retryAfterMs != null && typeof retryAfterMs !== 'number') return false;
      parts.tag = WIRE.OUTCOME.transport;
      parts.a = index(0, outcome.failure);
      parts.b = retryAfterMs ?? undefined;
      return parts.a !== undefined;
    }
    case 'application':
      parts.tag = WIRE.OUTCOME.application;
      parts.a = index(1, outcome.verdict);
      return parts.a !== undefined;
    case 'cancelled':
      parts.tag = WIRE.OUTCOME.cancelled;
      return true;
    default:
      return false;
  }
}
