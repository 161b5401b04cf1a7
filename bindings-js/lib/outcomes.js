// An outcome object in the core's wire words (retryplan::wire, lib/wire.js):
// `outcome_kind`, `outcome_code` and `outcome_delay_ms`, which the core's
// `wire::decode_outcome` reads (an Operation's outcome, an error's outcome in
// the host loop): numbers cross the boundary for less than the wasm reading
// the object property by property. Only a well-formed outcome the words carry
// is written; anything else (a gRPC status, a service's error code, a
// malformed value) takes the object path, which reads and checks it.
import { NAMES, WIRE } from './wire.js';

/** The core's names: [transport failures, verdicts, failures, give-up reasons]. */
export const names = (list) => [NAMES.transportFailures, NAMES.verdicts, NAMES.failures, NAMES.giveUpReasons][list];

/** Name -> index maps of the lists, made on first use. */
let indexes;
const index = (list, name) => (indexes ??= [0, 1, 2].map((at) => new Map(names(at).map((name, place) => [name, place]))))[list].get(name);

/** The index of a failure of the vocabulary (`dns_lookup_failed`, ...), or undefined. */
export const failureIndex = (name) => index(2, name);

/** The outcome's words `read` wrote: its kind, code and delay (`WIRE.NONE` when unused). */
export const words = { kind: 0, code: 0, delay: 0 };

/** True (and `words` set) when `outcome` is a well-formed outcome the wire's words carry. */
export function read(outcome) {
  if (typeof outcome !== 'object' || outcome === null) return false;
  words.code = WIRE.NONE;
  words.delay = WIRE.NONE;
  switch (outcome.type) {
    case 'success':
      words.kind = WIRE.OUTCOME.success;
      return true;
    case 'http_status': {
      const { status, retryAfterMs } = outcome;
      if (!Number.isSafeInteger(status) || outcome.errorCode != null) return false;
      if (retryAfterMs != null) {
        // A time, floored as every time the binding reads.
        if (typeof retryAfterMs !== 'number' || !(retryAfterMs >= 0 && retryAfterMs <= Number.MAX_SAFE_INTEGER)) return false;
        words.delay = Math.floor(retryAfterMs);
      }
      words.kind = WIRE.OUTCOME.http_status;
      words.code = status;
      return true;
    }
    case 'transport': {
      const { retryAfterMs } = outcome;
      if (retryAfterMs != null) {
        // A time, floored as every time the binding reads.
        if (typeof retryAfterMs !== 'number' || !(retryAfterMs >= 0 && retryAfterMs <= Number.MAX_SAFE_INTEGER)) return false;
        words.delay = Math.floor(retryAfterMs);
      }
      words.kind = WIRE.OUTCOME.transport;
      words.code = index(0, outcome.failure) ?? WIRE.NONE;
      return words.code !== WIRE.NONE;
    }
    case 'application':
      words.kind = WIRE.OUTCOME.application;
      words.code = index(1, outcome.verdict) ?? WIRE.NONE;
      return words.code !== WIRE.NONE;
    case 'cancelled':
      words.kind = WIRE.OUTCOME.cancelled;
      return true;
    default:
      return false;
  }
}
