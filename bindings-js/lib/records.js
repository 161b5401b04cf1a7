// Decisions, actions, finishes, events and outcomes spelt from the core's
// wire records, as the public objects: the decision record (an Operation's
// decisions, a finish's, an event's: the wasm's `wire::encode_decision`, read
// by the generated lib/generated/decisions.js), the last result and outcome
// words after it (`wire::encode_outcome`) and the driver's output record
// (its actions), read by lib/generated/outcomes.js. lib/wire.js hands over its records' views
// at load. Not shared by the entries: each holds its own wasm's views.
import { _driverEvent, _driverPollAction } from '../wasm/retryplan_js.js';
import { decided } from './convert.js';
import { decisionOf as decisionFrom } from './generated/decisions.js';
import { ATTEMPT, actionOf, eventOf, finishOf, outcomeOf } from './generated/outcomes.js';
import { WIRE } from './generated/wire.js';

let outputRecord;
let decisionRecord;
/** Called by lib/wire.js at load: its two records' views. */
export function spellRecords(output, decision) {
  [outputRecord, decisionRecord] = [output, decision];
}

/** The decision a wasm call stored (`value`: its error thrown), as the decision object of every language. */
export function decisionOf(value) {
  decided(value);
  return decisionFrom(decisionRecord());
}

/** The outcome a wasm call stored as words (`errorCode`, what it returned: an `http_status`'s, or undefined). */
export const outcomeOfWords = (errorCode) => {
  const w = decisionRecord();
  return outcomeOf(w[ATTEMPT + 1], w[ATTEMPT + 2], w[ATTEMPT + 3], errorCode);
};

/** What driver `handle` does now at `nowMs` (its refusal thrown): a poll on the wire, spelt as the action. */
export function pollAction(handle, nowMs) {
  const errorCode = decided(_driverPollAction(handle, nowMs));
  const out = outputRecord();
  return out[WIRE.OUT.action_kind] === WIRE.ACTION.finish ? finishOf(out, decisionRecord(), errorCode) : actionOf(out);
}

/** The oldest event of driver `handle` not yet read, or undefined (its refusal thrown). */
export function nextEvent(handle) {
  const errorCode = decided(_driverEvent(handle));
  return errorCode === null ? undefined : eventOf(decisionRecord(), errorCode);
}

/** The event a wasm call stored (its `errorCode` returned), as the public object. */
export const storedEvent = (errorCode) => eventOf(decisionRecord(), errorCode);
