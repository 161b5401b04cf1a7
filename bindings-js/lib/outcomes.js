// The one reader of an outcome object (`{type: "http_status", status,
// retryAfterMs?, errorCode?}`, ...): it checks the object and writes it in
// the core's wire words (retryplan::wire): `outcome_kind`, `outcome_code`
// and `outcome_retry_after_ms`, which the core's `wire::decode_outcome` reads, and
// an `http_status`'s `errorCode`, which the wasm checks (`ErrorCode::new`).
// Numbers cross the boundary for less than the wasm reading the object
// property by property; the wasm's own object path (src/args.rs `outcome`)
// calls this reader too. Each refusal is a RetryplanError naming the field.
import { ms, oneOf, optional, refuse, text, whole } from './args.js';
import { NAMES, WIRE } from './generated/wire.js';

/** The outcome's words `read` wrote: its kind, code and delay (`WIRE.NONE` when unused), and an `http_status`'s `errorCode`. */
export const words = { kind: 0, code: 0, delay: 0, errorCode: undefined };

/** The index of `value` in `table` (a name of the core's), or the refusal naming `name`, as every language words it. */
function named(name, value, table, names) {
  const code = typeof value === 'string' ? table[value] : undefined;
  return code ?? oneOf(name, value, names);
}

/** An outcome's fields (and a pushback's) by their spelling with no case or underscore: a key that is one of them
 * written another way (`retry_after_ms`, as Python writes it; `ErrorCode`) is refused, never read as absent. Any
 * other key is not read (an outcome built by spreading a response object, `{type: 'http_status', ...response}`). */
const FIELDS = /* @__PURE__ */ (() => {
  const fields = Object.create(null);
  for (const name of ['type', 'status', 'retryAfterMs', 'errorCode', 'code', 'pushback', 'failure', 'verdict'])
    fields[name.toLowerCase()] = name;
  return fields;
})();

/** Refuses the first own key of `object` that spells one of an outcome's fields otherwise, naming it and the field. */
function fieldsOf(object, what) {
  for (const key in object) {
    const field = FIELDS[key.replaceAll('_', '').toLowerCase()];
    if (field !== undefined && field !== key && Object.hasOwn(object, key)) throw refuse(key, 'spelt', what, field);
  }
}

/** A gRPC code's number by its snake_case name. */
function grpcCode(value) {
  const code = WIRE.GRPC[text('code', value)];
  if (code === undefined) throw refuse('code', 'grpc_code', value);
  return code;
}

/** A gRPC status's pushback: `"do_not_retry"`, `{retryAfterMs}`, or none. */
function pushback(value) {
  if (value == null) return WIRE.NONE;
  if (typeof value === 'string' && text('pushback', value) === 'do_not_retry') return WIRE.PUSHBACK_DO_NOT_RETRY;
  if (typeof value === 'object') fieldsOf(value, 'a pushback');
  const delay = typeof value === 'object' ? value.retryAfterMs : undefined;
  if (typeof delay !== 'number') throw refuse('pushback', 'pushback');
  return ms('pushback.retryAfterMs', delay);
}

/** Reads `outcome` into `words` (true), or throws the RetryplanError naming what is wrong with it. */
export function read(outcome) {
  if (typeof outcome !== 'object' || outcome === null) throw refuse('outcome', 'options', outcome, 'type');
  const type = outcome.type;
  words.code = WIRE.NONE;
  words.delay = WIRE.NONE;
  words.errorCode = undefined;
  fieldsOf(outcome, 'an outcome');
  switch (type) {
    case 'success':
      words.kind = WIRE.OUTCOME.success;
      return true;
    case 'http_status': {
      if (outcome.status == null) throw refuse('status', 'required');
      words.kind = WIRE.OUTCOME.http_status;
      words.code = whole('status', outcome.status, 65535);
      words.delay = optional(ms, 'retryAfterMs', outcome.retryAfterMs) ?? WIRE.NONE;
      words.errorCode = optional(text, 'errorCode', outcome.errorCode);
      return true;
    }
    case 'grpc_status':
      words.kind = WIRE.OUTCOME.grpc_status;
      words.code = grpcCode(outcome.code);
      words.delay = pushback(outcome.pushback);
      return true;
    case 'transport':
      words.kind = WIRE.OUTCOME.transport;
      words.code = named('failure', outcome.failure, WIRE.TRANSPORT, NAMES.transportFailures);
      words.delay = optional(ms, 'retryAfterMs', outcome.retryAfterMs) ?? WIRE.NONE;
      return true;
    case 'application':
      words.kind = WIRE.OUTCOME.application;
      words.code = named('verdict', outcome.verdict, WIRE.VERDICT, NAMES.verdicts);
      return true;
    case 'cancelled':
      words.kind = WIRE.OUTCOME.cancelled;
      return true;
    default:
      throw refuse('outcome.type', 'outcome_type', text('type', type));
  }
}

/** `[kind, code, delay, errorCode]` of an outcome object, for the wasm's object path (src/args.rs). */
export function outcomeWords(outcome) {
  read(outcome);
  return [words.kind, words.code, words.delay, words.errorCode];
}
