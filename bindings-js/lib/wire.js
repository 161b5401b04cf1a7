// The core's one wire encoding (retryplan::wire, core/src/driver/wire.md): its
// constants generated from the core's tables (lib/generated/wire.js), none
// written here, the wasm's version checked at load, and the exchange itself:
// the input record's eight words in as numbers, the output record read
// through a Float64Array view on wasm memory, and the decision record's (an
// Operation's decisions, a finish's, an event's), which lib/records.js spells
// as the public objects.
import { _driverExchange, _operationKey, _wireMemory, _wireRefusal, _wireTables } from '../wasm/retryplan_js.js';
import { decided } from './convert.js';
import { NAMES, WIRE } from './generated/wire.js';
import { spellRecords } from './records.js';

export { NAMES, WIRE };
let memory;
let outputAt;
let output;
let keyAt;
let keyBytes;
let recordAt;
let recordWords;
let record;
const ascii = new TextDecoder();
const outputWords = Object.keys(WIRE.OUT).length;

/** Finds the records once the wasm is instantiated (the entry's `load`); refuses a wasm of another wire version. */
export function loadWire() {
  const [[version]] = _wireTables();
  if (version !== WIRE.VERSION) {
    throw new Error(
      `retryplan: the wasm speaks wire version ${version}, this host ${WIRE.VERSION}: reinstall the package`,
    );
  }
  [memory, outputAt, keyAt, recordAt, recordWords] = _wireMemory();
  output = new Float64Array(memory.buffer, outputAt, outputWords);
  keyBytes = new Uint8Array(memory.buffer, keyAt, 256);
  record = new Float64Array(memory.buffer, recordAt, recordWords);
  spellRecords(current, decisionRecord);
}

/** The numbers a reading of the wasm wrote (`value`, its error thrown): a view valid until the next call. */
export function numbers(value) {
  decided(value);
  return decisionRecord();
}

/** The last decision record (or numbers) the wasm wrote (a view valid until the next call). */
function decisionRecord() {
  // A grown memory detaches the old buffer (its views read as empty).
  if (record.length === 0) record = new Float64Array(memory.buffer, recordAt, recordWords);
  return record;
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

/** The last output record the wasm wrote (a view valid until the next exchange). */
export function current() {
  if (output.length === 0) output = new Float64Array(memory.buffer, outputAt, outputWords);
  return output;
}

/**
 * The idempotency key of driver `handle` (with `ofDriver` false, of that
 * `Operation`): visible ASCII the wasm copied where `_wireMemory` says, or
 * the refusal thrown.
 */
export function driverKey(handle, ofDriver = true) {
  if (_operationKey(handle, ofDriver) < 0) throw _wireRefusal();
  return storedKey();
}

/** The idempotency key the wasm copied last (by `_operationKey`, or a helper's primed `_driverNew`), its length in the last byte. */
export function storedKey() {
  if (keyBytes.length === 0) keyBytes = new Uint8Array(memory.buffer, keyAt, 256);
  const length = keyBytes[255];
  return length === UUID_LENGTH ? uuidText(keyBytes) : ascii.decode(keyBytes.subarray(0, length));
}

/** The length of a key spelt as a UUID (every key the core draws or derives). */
const UUID_LENGTH = 36;
/** The first 36 bytes of `k` (ASCII) as text: a quarter of what a TextDecoder costs for so few bytes. */
const uuidText = (k) =>
  String.fromCharCode(
    k[0],
    k[1],
    k[2],
    k[3],
    k[4],
    k[5],
    k[6],
    k[7],
    k[8],
    k[9],
    k[10],
    k[11],
    k[12],
    k[13],
    k[14],
    k[15],
    k[16],
    k[17],
    k[18],
    k[19],
    k[20],
    k[21],
    k[22],
    k[23],
    k[24],
    k[25],
    k[26],
    k[27],
    k[28],
    k[29],
    k[30],
    k[31],
    k[32],
    k[33],
    k[34],
    k[35],
  );
