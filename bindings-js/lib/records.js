// Decisions and actions spelt from the core's wire records: the decision
// record (an Operation's decisions, a finish's, an event's: the wasm's
// `wire::encode_decision`) and the driver's output record, as the public
// objects, fields in the core's order. lib/wire.js hands over its tables and
// views at load (the wasm glue imports this module, not lib/wire.js: so the
// glue a bundler ships stays small). Not shared by the entries: each holds
// its own wasm's views.
import { requestIdText } from './convert.js';

let WIRE;
let NAMES;
let outputRecord;
let decisionRecord;
/** Called by lib/wire.js at load: the wire's tables and its two records' views. */
export function spellRecords(wire, names, output, decision) {
  [WIRE, NAMES, outputRecord, decisionRecord] = [wire, names, output, decision];
}

/** The attempt numbers of a set given as four 32-bit words (bit 0 of the first = attempt 1), ascending. */
export function attemptList(w0, w1, w2, w3) {
  const list = [];
  if ((w0 | w1 | w2 | w3) === 0) return list;
  [w0, w1, w2, w3].forEach((word, index) => {
    for (let bits = word | 0; bits !== 0; bits &= bits - 1) list.push(index * 32 + 32 - Math.clz32(bits & -bits));
  });
  return list;
}

/**
 * The decision record the wasm wrote last, as the decision object of every
 * language (fields in the core's order; `abortAttempts` always an array).
 */
export function decisionOf() {
  const w = decisionRecord();
  const at = WIRE.DECISION;
  const type = NAMES.decisionKinds[w[at.decision_kind]];
  const remainingBudgetMs = w[at.remaining_budget_ms];
  const attempts = w[at.attempts];
  const detail = w[at.detail];
  const aborts = () => attemptList(w[at.aborts_1], w[at.aborts_33], w[at.aborts_65], w[at.aborts_97]);
  switch (type) {
    case 'start_attempt': {
      const requestId = requestIdText(w[at.request_id_high], w[at.request_id_low]);
      const hedge = (w[at.flags] & WIRE.FLAG_HEDGE) !== 0;
      return { type, attempt: w[at.attempt], timeoutMs: w[at.timeout_ms], abortAtMs: w[at.abort_at_ms], requestId, remainingBudgetMs, hedge };
    }
    case 'wait': {
      const [retry, delayMs, untilMs, serverDelayMs] = [w[at.attempt], w[at.delay_ms], w[at.until_ms], w[at.server_delay_ms]];
      return serverDelayMs === WIRE.NONE
        ? { type, retry, delayMs, untilMs, remainingBudgetMs }
        : { type, retry, delayMs, untilMs, serverDelayMs, remainingBudgetMs };
    }
    case 'await_outcome':
      return { type, inFlight: w[at.in_flight], untilMs: w[at.until_ms] };
    case 'succeeded':
      return { type, attempts, winner: detail, abortAttempts: aborts() };
    case 'gave_up': {
      const reason = NAMES.giveUpReasons[w[at.reason]];
      return detail === WIRE.NONE
        ? { type, reason, attempts, remainingBudgetMs, abortAttempts: aborts() }
        : { type, reason, attempts, remainingBudgetMs, refusedDelayMs: detail, abortAttempts: aborts() };
    }
    case 'reconcile':
      return { type, attempts, remainingBudgetMs, abortAttempts: aborts() };
    default:
      return { type, attempts, deadlineMs: detail, remainingBudgetMs, abortAttempts: aborts() };
  }
}

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
