// The core's one wire encoding (retryplan::wire, core/src/driver/wire.md): its
// constants built once at load from the tables the wasm returns
// (`_wireTables`), none written here, and the exchange itself: the input
// record's eight words in as numbers, the output record read through a
// Float64Array view on wasm memory.
import { _driverExchange, _wireMemory, _wireRefusal, _wireTables } from '../wasm/retryplan_js.js';

/** The encoding this host speaks; the wasm's must be the same. */
const SPOKEN_VERSION = 1;

/** `{name: number}` of a table of names (a member's number is its place). */
const numbered = (names) => Object.freeze(Object.fromEntries(names.map((name, at) => [name, at])));


/** The wire's constants (`WIRE`) and the core's name tables (`NAMES`), set by `loadWire`. */
export let WIRE;
export let NAMES;
let memory;
let outputAt;
let outputWords;
let output;

/** Reads the tables once the wasm is instantiated (the entry's `load`); refuses a wasm of another wire version. */
export function loadWire() {
  const tables = _wireTables();
  if (tables.version !== SPOKEN_VERSION) {
    throw new Error(`retryplan: the wasm speaks wire version ${tables.version}, this host ${SPOKEN_VERSION}: reinstall the package`);
  }
  WIRE = Object.freeze({
    NONE: tables.none,
    FLAG_HEDGE: tables.hedge,
    FLAG_SEND_IDEMPOTENCY_KEY: tables.sendIdempotencyKey,
    ENDING_RETURNS: tables.endingReturns,
    /** Word positions, by field name. */
    IN: Object.freeze({ ...tables.input }),
    OUT: Object.freeze({ ...tables.output }),
    INPUT: numbered(tables.inputKinds),
    OUTCOME: numbered(tables.outcomeKinds),
    ACTION: numbered(tables.actionKinds),
    HELD: numbered(tables.held),
    RECEIPT: numbered(tables.receipts),
    VERDICT: numbered(tables.verdicts),
  });
  NAMES = Object.freeze({
    failures: tables.failures,
    verdicts: tables.verdicts,
    transportFailures: tables.transportFailures,
    abortReasons: tables.abortReasons,
    giveUpReasons: tables.giveUpReasons,
    endingKinds: tables.endingKinds,
    receipts: tables.receipts,
  });
  [memory, outputAt] = _wireMemory();
  outputWords = tables.outputWords;
  output = new Float64Array(memory.buffer, outputAt, outputWords);
}

/**
 * One exchange with driver `driver` (a handle): the input record's words, in
 * order; the output record (a view valid until the next exchange), or the
 * driver's refusal thrown.
 */
export function exchange(driver, kind, now, attempt, token, held, outcomeKind, code, delay) {
  if (!_driverExchange(driver, kind, now, attempt, token, held, outcomeKind, code, delay)) throw _wireRefusal();
  // A grown memory detaches the old buffer (its views read as empty).
  if (output.length === 0) output = new Float64Array(memory.buffer, outputAt, outputWords);
  return output;
}
