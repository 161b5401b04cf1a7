// An outcome object in the core's wire words (retryplan::wire, lib/wire.js):
// `outcome_kind`, `outcome_code` and `outcome_delay_ms`, which the core's
// `wire::decode_outcome` reads (an Operation's outcome, an error's outcome in
// the host loop): numbers cross the boundary for less than the wasm reading
// the object property by property. Only a well-formed outcome the words carry
// is written; anything else (a gRPC status, a service's error code, a
// malformed value) takes the object path, which reads and checks it.
import { WIRE } from './wire.js';

/** The outcome's words `read` wrote: its kind, code and delay (`WIRE.NONE` when unused). */
export const words = { kind: 0, code: 0, delay: 0 };

/** False for a `retryAfterMs` that is not a time; `words.delay` set to it, floored as every time the binding reads. */
function delay(retryAfterMs) {
  if (retryAfterMs == null) return true;
  if (typeof retryAfterMs !== 'number' || !(retryAfterMs >= 0 && retryAfterMs <= Number.MAX_SAFE_INTEGER)) return false;
  words.delay = Math.floor(retryAfterMs);
  return true;
}

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
      const { status } = outcome;
      if (!Number.isSafeInteger(status) || outcome.errorCode != null || !delay(outcome.retryAfterMs)) return false;
      words.kind = WIRE.OUTCOME.http_status;
      words.code = status;
      return true;
    }
    case 'transport': {
      if (!delay(outcome.retryAfterMs)) return false;
      words.kind = WIRE.OUTCOME.transport;
      words.code = WIRE.TRANSPORT[outcome.failure] ?? WIRE.NONE;
      return words.code !== WIRE.NONE;
    }
    case 'application':
      words.kind = WIRE.OUTCOME.application;
      words.code = WIRE.VERDICT[outcome.verdict] ?? WIRE.NONE;
      return words.code !== WIRE.NONE;
    case 'cancelled':
      words.kind = WIRE.OUTCOME.cancelled;
      return true;
    default:
      return false;
  }
}
