// The core's one wire encoding (retryplan::wire, core/src/driver/wire.md): its
// constants built once at load from the tables the wasm returns
// (`_wireTables`), none written here, and the exchange itself: the input
// record's eight words in as numbers, the output record read through a
// Float64Array view on wasm memory, and the decision record's (an
// Operation's decisions, a finish's, an event's), which lib/records.js spells
// as the public objects.
import { _driverExchange, _operationKey, _wireMemory, _wireRefusal, _wireTables } from '../wasm/retryplan_js.js';
import { decided } from './convert.js';
import { spellRecords } from './records.js';

/** The encoding this host speaks; the wasm's must be the same. */
const SPOKEN_VERSION = 1;

/**
 * `{name: number}` of a table of names (a member's number is its place),
 * without a prototype: a name read from a caller's object (`toString`) finds
 * nothing. Made with its names and then stripped of its prototype: an object
 * made from `Object.create(null)` keeps its names in a dictionary, which the
 * host loop's every lookup would search.
 */
const numbered = (names) => Object.freeze(Object.setPrototypeOf(Object.fromEntries(names.map((name, at) => [name, at])), null));

/** The wire's constants (`WIRE`) and the core's name tables (`NAMES`), set by `loadWire`. */
export let WIRE;
export let NAMES;
let memory;
let outputAt;
let outputWords;
let output;
let keyAt;
let keyBytes;
let decisionAt;
let decisionWords;
let decisionView;
const ascii = new TextDecoder();

/** Reads the tables once the wasm is instantiated (the entry's `load`); refuses a wasm of another wire version. */
export function loadWire() {
  const [numbers, inputFields, outputFields, inputKinds, outcomeKinds, actionKinds, endingKinds, failures, verdicts, transportFailures, abortReasons, giveUpReasons, receipts, held, concurrencies, readings, decisionFields, decisionKinds] =
    _wireTables();
  const [version, none, hedge, sendIdempotencyKey, endingReturns, pushbackDoNotRetry, words, unknownError] = numbers;
  if (version !== SPOKEN_VERSION) {
    throw new Error(`retryplan: the wasm speaks wire version ${version}, this host ${SPOKEN_VERSION}: reinstall the package`);
  }
  WIRE = Object.freeze({
    NONE: none,
    FLAG_HEDGE: hedge,
    FLAG_SEND_IDEMPOTENCY_KEY: sendIdempotencyKey,
    ENDING_RETURNS: endingReturns,
    PUSHBACK_DO_NOT_RETRY: pushbackDoNotRetry,
    /** Word positions, by field name. */
    IN: Object.freeze(Object.fromEntries(inputFields)),
    OUT: Object.freeze(Object.fromEntries(outputFields)),
    DECISION: Object.freeze(Object.fromEntries(decisionFields)),
    INPUT: numbered(inputKinds),
    OUTCOME: numbered(outcomeKinds),
    ACTION: numbered(actionKinds),
    HELD: numbered(held),
    RECEIPT: numbered(receipts),
    VERDICT: numbered(verdicts),
    /** A failure of the vocabulary (`dns_lookup_failed`, ...) by name: its outcome code. */
    FAILURE: numbered(failures),
    TRANSPORT: numbered(transportFailures),
    /** The verdict of an error nothing classified: the core's `Verdict::UNKNOWN_ERROR`. */
    UNKNOWN_ERROR_VERDICT: unknownError,
  });
  NAMES = Object.freeze({ failures, verdicts, transportFailures, abortReasons, giveUpReasons, endingKinds, receipts, held, concurrencies, readings, actionKinds, decisionKinds });
  [memory, outputAt, keyAt, decisionAt] = _wireMemory();
  decisionWords = decisionFields.length;
  decisionView = new Float64Array(memory.buffer, decisionAt, decisionWords);
  spellRecords(WIRE, NAMES, current, decisionRecord);
  outputWords = words;
  output = new Float64Array(memory.buffer, outputAt, outputWords);
  keyBytes = new Uint8Array(memory.buffer, keyAt, 256);
}

/**
 * One exchange with driver `driver` (a handle): the input record's words, in
 * order; the output record (a view valid until the next exchange), or the
 * driver's refusal thrown.
 */
export function exchange(driver, kind, now, attempt, token, held, outcomeKind, code, delay) {
  if (!_driverExchange(driver, kind, now, attempt, token, held, outcomeKind, code, delay)) throw _wireRefusal();
  return current();
}

/** The numbers a reading of the wasm wrote (`value`, its error thrown): a view valid until the next call. */
export function numbers(value) {
  decided(value);
  return decisionRecord();
}

/** The last decision record (or numbers) the wasm wrote (a view valid until the next call). */
function decisionRecord() {
  if (decisionView.length === 0) decisionView = new Float64Array(memory.buffer, decisionAt, decisionWords);
  return decisionView;
}

/** The last output record the wasm wrote (a view valid until the next exchange). */
export function current() {
  // A grown memory detaches the old buffer (its views read as empty).
  if (output.length === 0) output = new Float64Array(memory.buffer, outputAt, outputWords);
  return output;
}

/**
 * The idempotency key of driver `handle` (with `ofDriver` false, of that
 * `Operation`): visible ASCII the wasm copied where `_wireMemory` says, or
 * the refusal thrown.
 */
export function driverKey(handle, ofDriver = true) {
  const length = _operationKey(handle, ofDriver);
  if (length < 0) throw _wireRefusal();
  if (keyBytes.length === 0) keyBytes = new Uint8Array(memory.buffer, keyAt, 256);
  return length === UUID_LENGTH ? uuidText(keyBytes) : ascii.decode(keyBytes.subarray(0, length));
}

/** The length of a key spelt as a UUID (every key the core draws or derives). */
const UUID_LENGTH = 36;
/** The first 36 bytes of `k` (ASCII) as text: a quarter of what a TextDecoder costs for so few bytes. */
const uuidText = (k) =>
  String.fromCharCode(
    k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10], k[11], k[12], k[13], k[14], k[15], k[16], k[17],
    k[18], k[19], k[20], k[21], k[22], k[23], k[24], k[25], k[26], k[27], k[28], k[29], k[30], k[31], k[32], k[33], k[34], k[35],
  );

