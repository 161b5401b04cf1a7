//! The core's one wire encoding (`retryplan::wire`), carried to JS: its
//! version (every constant is generated for `lib/` by core/mirrors), and the
//! records the core writes in wasm memory, which
//! `lib/wire.js` reads through `Float64Array` views: the output record of
//! `Driver::exchange`, and the decision record (`wire::encode_decision`) of
//! every decision JS gets (an `Operation`'s, a finish's, an event's), with a
//! finish's or event's last result after it (`wire::encode_outcome`), which
//! `lib/records.js` spells as the public objects through the generated
//! readers of `lib/generated/`.

use core::cell::{Cell, RefCell};

use js_sys::Array;
use retryplan as rp;
use rp::wire::{self, DECISION_WORDS, OUTPUT_WORDS};

const _: () = assert!(DECISION_WORDS <= RECORD_WORDS);
use wasm_bindgen::prelude::*;

use crate::Global;

/// The last output record, as JS numbers (every word fits one exactly).
static OUTPUT: Global<RefCell<[f64; OUTPUT_WORDS]>> = Global(RefCell::new([0.0; OUTPUT_WORDS]));
/// The last record of numbers a call wrote: a decision record, or the numbers
/// a reading returns (an operation's state, a policy's, the stats' counters).
static RECORD: Global<RefCell<[f64; RECORD_WORDS]>> = Global(RefCell::new([0.0; RECORD_WORDS]));
/// Room for a decision record and for the stats' counters (7 and the give-ups by reason).
const RECORD_WORDS: usize = 24;
/// The last idempotency key read (`_operationKey`, a helper's `_driverNew`):
/// visible ASCII, at most 255 bytes, then its length in the last byte.
static KEY: Global<RefCell<[u8; KEY_BYTES]>> = Global(RefCell::new([0; KEY_BYTES]));
const KEY_BYTES: usize = 256;
/// The `RetryplanError` of the last exchange the driver refused.
static REFUSAL: Global<Cell<Option<JsValue>>> = Global(Cell::new(None));

/// Copies `record` into `buffer` (every word fits a JS number exactly).
fn store<const N: usize, const M: usize>(buffer: &RefCell<[f64; N]>, record: &[i64; M]) {
    for (slot, word) in buffer.borrow_mut().iter_mut().zip(record) {
        *slot = *word as f64;
    }
}

/// Copies an output record where `_wireMemory` points.
pub(crate) fn store_output(record: &[i64; OUTPUT_WORDS]) {
    store(&OUTPUT.0, record);
}

/// The kind of the last output record stored.
pub(crate) fn output_kind() -> f64 {
    OUTPUT.0.borrow().get(wire::output::ACTION_KIND).copied().unwrap_or(0.0)
}

/// Copies `numbers` where `_wireMemory` points, for JS to read through its
/// view: a reading's value, `undefined`. More than [`RECORD_WORDS`] does not
/// compile (none is dropped).
pub(crate) fn numbers<const N: usize>(numbers: &[f64; N]) -> JsValue {
    const { assert!(N <= RECORD_WORDS, "more numbers than the record holds") };
    for (slot, number) in RECORD.0.borrow_mut().iter_mut().zip(numbers) {
        *slot = *number;
    }
    JsValue::UNDEFINED
}

/// Stores a decision's record for JS to read (`lib/records.js` spells it
/// with the generated `lib/generated/decisions.js`): only its kind's words
/// are written, as JS reads only those.
pub(crate) fn decision(decision: &rp::Decision) -> JsValue {
    let mut record = [wire::NONE; DECISION_WORDS];
    wire::encode_decision(decision, &mut record);
    store(&RECORD.0, &record);
    JsValue::UNDEFINED
}

/// Where the last result lies after the decision record (its attempt, -1 for
/// none, then its outcome's three words), and an event's time: as
/// `lib/generated/outcomes.js` reads them (core/mirrors/src/js_outcomes.rs
/// places them the same way, after `DECISION_WORDS`).
const RESULT_AT: usize = DECISION_WORDS;
const AT_MS_AT: usize = RESULT_AT + 4;
const _: () = assert!(AT_MS_AT < RECORD_WORDS);

/// Stores an outcome's words (`wire::encode_outcome`) after the result's
/// attempt word: an `http_status`'s error code (text, not a word), or `undefined`.
pub(crate) fn outcome(outcome: &rp::Outcome) -> JsValue {
    let words = wire::encode_outcome(outcome);
    let mut record = RECORD.0.borrow_mut();
    for (slot, word) in record.iter_mut().skip(RESULT_AT + 1).zip(words) {
        *slot = word as f64;
    }
    match outcome {
        rp::Outcome::HttpStatus { error_code: Some(code), .. } => JsValue::from_str(code.as_str()),
        _ => JsValue::UNDEFINED,
    }
}

/// Stores an attempt result (or -1 for none) after the decision record, as [`outcome`] does.
pub(crate) fn result(result: Option<rp::AttemptResult>) -> JsValue {
    put(RESULT_AT, result.map_or(-1.0, |result| f64::from(result.attempt)));
    result.map_or(JsValue::UNDEFINED, |result| outcome(&result.outcome))
}

/// Stores an event's time after its decision and result.
pub(crate) fn at_ms(at_ms: u64) {
    put(AT_MS_AT, crate::num(at_ms));
}

/// Writes `number` at `at` of the record of numbers (within it: see the assertion on `AT_MS_AT`).
fn put(at: usize, number: f64) {
    if let Some(slot) = RECORD.0.borrow_mut().get_mut(at) {
        *slot = number;
    }
}

/// Copies the idempotency key `key` where `_wireMemory` points, its length
/// in the buffer's last byte (a key is at most 255 bytes: the byte after the
/// longest), spelt without the core keeping a spelling (no `String`
/// allocated and freed): its length.
#[inline(never)] // one copy for `_operationKey` and a helper's `_driverNew`
pub(crate) fn copy_key(key: &rp::IdempotencyKey) -> i32 {
    key.read_text(|key| {
        let mut buffer = KEY.0.borrow_mut();
        let mut length = 0;
        for (slot, byte) in buffer.iter_mut().zip(key.bytes()) {
            *slot = byte;
            length += 1;
        }
        if let Some(last) = buffer.last_mut() {
            *last = length as u8;
        }
        length
    })
}

/// Keeps `error` for `_wireRefusal`.
pub(crate) fn refuse(error: JsValue) {
    REFUSAL.0.set(Some(error));
}

/// The `RetryplanError` of the last exchange that returned false.
#[wasm_bindgen(js_name = _wireRefusal)]
pub fn refusal() -> JsValue {
    REFUSAL.0.take().unwrap_or(JsValue::UNDEFINED)
}

/// Where the output record (15 f64s), the last key read (256 bytes) and the
/// record of numbers (see `numbers`) lie in wasm memory: `[memory, output
/// address, key address, record address, record words]`. (The input
/// record crosses as eight f64 arguments: measured faster, about 84 ns
/// against 93 ns an exchange, than JS writing it through a second view. A
/// key read through the buffer costs no allocation and no string returned
/// by the glue: about 170 ns less per operation.)
#[wasm_bindgen(js_name = _wireMemory)]
pub fn memory() -> Array {
    let output = OUTPUT.0.as_ptr() as usize as f64;
    let key = KEY.0.as_ptr() as usize as f64;
    let decision = RECORD.0.as_ptr() as usize as f64;
    let words = JsValue::from_f64(RECORD_WORDS as f64);
    [wasm_bindgen::memory(), JsValue::from_f64(output), JsValue::from_f64(key), JsValue::from_f64(decision), words]
        .into_iter()
        .collect()
}

/// The wasm's wire version, as `[[WIRE_VERSION]]` (the shape of the tables
/// the wasm once returned): every constant of the encoding is generated for
/// `lib/` (`lib/generated/wire.js`), which checks this at load.
#[wasm_bindgen(js_name = _wireTables)]
pub fn tables() -> Array {
    let numbers: Array = [JsValue::from_f64(wire::wire_version() as f64)].into_iter().collect();
    [numbers].into_iter().collect()
}
