// Decisions and actions spelt from the core's wire records: the decision
// record (an Operation's decisions, a finish's, an event's: the wasm's
// `wire::encode_decision`, read by the generated lib/generated/decisions.js)
// and the driver's output record, as the public objects. lib/wire.js hands
// over its records' views at load (the wasm glue imports this module, not
// lib/wire.js). Not shared by the entries: each holds its own wasm's views.
import { requestIdText } from './convert.js';
import { decisionOf as decisionFrom } from './generated/decisions.js';
import { NAMES, WIRE } from './generated/wire.js';

let outputRecord;
let decisionRecord;
/** Called by lib/wire.js at load: its two records' views. */
export function spellRecords(output, decision) {
  [outputRecord, decisionRecord] = [output, decision];
}

/** The decision record the wasm wrote last, as the decision object of every language. */
export const decisionOf = () => decisionFrom(decisionRecord());

/** The action of the output record the wasm wrote last, as the public object (a finish is spelt by the wasm). */
export function actionOf() {
  const out = outputRecord();
  const type = NAMES.actionKinds[out[WIRE.OUT.action_kind]];
  if (type === 'release') return { type, token: out[WIRE.OUT.token] };
  if (type === 'sleep') return { type, untilMs: out[WIRE.OUT.until_ms] };
  if (type === 'abort_attempt') return { type, attempt: out[WIRE.OUT.attempt], reason: NAMES.abortReasons[out[WIRE.OUT.reason]] };
  const flags = out[WIRE.OUT.flags];
  return {
    type, attempt: out[WIRE.OUT.attempt], timeoutMs: out[WIRE.OUT.timeout_ms], abortAtMs: out[WIRE.OUT.abort_at_ms],
    requestId: requestIdText(out[WIRE.OUT.request_id_high], out[WIRE.OUT.request_id_low]),
    remainingBudgetMs: out[WIRE.OUT.remaining_budget_ms], hedge: (flags & WIRE.FLAG_HEDGE) !== 0,
    sendIdempotencyKey: (flags & WIRE.FLAG_SEND_IDEMPOTENCY_KEY) !== 0,
  };
}
