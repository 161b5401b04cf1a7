//! The core's one wire encoding (`retryplan::wire`), carried to JS: its tables
//! once at load (`lib/wire.js` builds every constant from them, none written
//! by hand), and the output record of `Driver::exchange` in wasm memory, which
//! `lib/wire.js` reads through a `Float64Array` view.

use core::cell::{Cell, RefCell};

use js_sys::Array;
use retryplan as rp;
use rp::value::Named;
use rp::wire::{self, OUTPUT_WORDS};
use wasm_bindgen::prelude::*;

use crate::Global;

/// The last output record, as JS numbers (every word fits one exactly).
static OUTPUT: Global<RefCell<[f64; OUTPUT_WORDS]>> = Global(RefCell::new([0.0; OUTPUT_WORDS]));
/// The last idempotency key read (`_operationKey`): visible ASCII, at most 255 bytes.
static KEY: Global<RefCell<[u8; KEY_BYTES]>> = Global(RefCell::new([0; KEY_BYTES]));
const KEY_BYTES: usize = 256;
/// The `RetryplanError` of the last exchange the driver refused.
static REFUSAL: Global<Cell<Option<JsValue>>> = Global(Cell::new(None));

/// Copies an output record where `_wireOutput` points.
pub(crate) fn store_output(record: &[i64; OUTPUT_WORDS]) {
    let mut output = OUTPUT.0.borrow_mut();
    for (slot, word) in output.iter_mut().zip(record) {
        *slot = *word as f64;
    }
}

/// Copies the idempotency key `read` gives where `_wireMemory` points: its
/// length, or -1 when refused (`_wireRefusal` has the error).
pub(crate) fn store_key(read: Result<&str, JsValue>) -> i32 {
    let key = match read {
        Ok(key) => key,
        Err(error) => {
            refuse(error);
            return -1;
        }
    };
    let mut buffer = KEY.0.borrow_mut();
    let mut length = 0;
    for (slot, byte) in buffer.iter_mut().zip(key.bytes()) {
        *slot = byte;
        length += 1;
    }
    length
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

/// Where the output record (15 f64s) and the last key read (256 bytes) lie
/// in wasm memory: `[memory, output address, key address]`. (The input
/// record crosses as eight f64 arguments: measured faster, about 84 ns
/// against 93 ns an exchange, than JS writing it through a second view. A
/// key read through the buffer costs no allocation and no string returned
/// by the glue: about 170 ns less per operation.)
#[wasm_bindgen(js_name = _wireMemory)]
pub fn memory() -> Array {
    let output = OUTPUT.0.as_ptr() as usize as f64;
    let key = KEY.0.as_ptr() as usize as f64;
    [wasm_bindgen::memory(), JsValue::from_f64(output), JsValue::from_f64(key)].into_iter().collect()
}

fn names<T: Named>() -> JsValue {
    T::ALL.iter().map(|member| JsValue::from_str(member.name())).collect::<Array>().into()
}

/// A record's fields as `[name, word]` pairs (the core's `FIELDS`).
fn fields(table: &[(&str, usize)]) -> JsValue {
    table
        .iter()
        .map(|(name, word)| [JsValue::from_str(name), JsValue::from_f64(*word as f64)].into_iter().collect::<Array>())
        .collect::<Array>()
        .into()
}

/// The core's wire tables, in the order `lib/wire.js` reads them: the
/// numbers `[WIRE_VERSION, NONE, FLAG_HEDGE, FLAG_SEND_IDEMPOTENCY_KEY,
/// ENDING_RETURNS, PUSHBACK_DO_NOT_RETRY, OUTPUT_WORDS]`, the input and
/// output fields (`[name, word]`), and the kind and name tables in the
/// core's order (a member's number is its place): input kinds, outcome
/// kinds, action kinds, ending kinds, failures, verdicts, transport failures,
/// abort reasons, give-up reasons, receipts, held, and (for the driver's
/// and the header readers' arguments) concurrencies and Retry-After readings.
#[wasm_bindgen(js_name = _wireTables)]
pub fn tables() -> Array {
    let numbers = [
        wire::wire_version(),
        wire::NONE,
        wire::FLAG_HEDGE,
        wire::FLAG_SEND_IDEMPOTENCY_KEY,
        wire::ENDING_RETURNS,
        wire::PUSHBACK_DO_NOT_RETRY,
        OUTPUT_WORDS as i64,
        // The verdict of an error nothing classified (Verdict::UNKNOWN_ERROR), by its place.
        rp::Verdict::ALL.iter().position(|verdict| *verdict == rp::Verdict::UNKNOWN_ERROR).unwrap_or(0) as i64,
    ];
    let numbers: Array = numbers.iter().map(|number| JsValue::from_f64(*number as f64)).collect();
    [
        numbers.into(),
        fields(wire::input::FIELDS),
        fields(wire::output::FIELDS),
        names::<wire::InputKind>(),
        names::<wire::OutcomeKind>(),
        names::<wire::ActionKind>(),
        names::<wire::EndingKind>(),
        names::<rp::Failure>(),
        names::<rp::Verdict>(),
        names::<rp::TransportFailure>(),
        names::<rp::AbortReason>(),
        names::<rp::GiveUpReason>(),
        names::<rp::Receipt>(),
        names::<rp::Held>(),
        names::<rp::Concurrency>(),
        names::<rp::RetryAfterReading>(),
    ]
    .into_iter()
    .collect()
}
