//! The core's one wire encoding (`retryplan::wire`), carried to JS: its tables
//! once at load (`lib/wire.js` builds every constant from them, none written
//! by hand), and the output record of `Driver::exchange` in wasm memory, which
//! `lib/wire.js` reads through a `Float64Array` view.

use core::cell::{Cell, RefCell};

use js_sys::{Array, Object, Reflect};
use retryplan as rp;
use rp::value::Named;
use rp::wire::{self, OUTPUT_WORDS};
use wasm_bindgen::prelude::*;

use crate::Global;

/// The last output record, as JS numbers (every word fits one exactly).
static OUTPUT: Global<RefCell<[f64; OUTPUT_WORDS]>> = Global(RefCell::new([0.0; OUTPUT_WORDS]));
/// The input record of `_driverExchangeView`, written by JS through a view.
static INPUT: Global<RefCell<[f64; wire::INPUT_WORDS]>> = Global(RefCell::new([0.0; wire::INPUT_WORDS]));
/// The `RetryplanError` of the last exchange the driver refused.
static REFUSAL: Global<Cell<Option<JsValue>>> = Global(Cell::new(None));

/// Copies an output record where `_wireOutput` points.
pub(crate) fn store_output(record: &[i64; OUTPUT_WORDS]) {
    let mut output = OUTPUT.0.borrow_mut();
    for (slot, word) in output.iter_mut().zip(record) {
        *slot = *word as f64;
    }
}

/// The input record JS wrote where `_wireInput` points, as words.
pub(crate) fn load_input() -> [i64; wire::INPUT_WORDS] {
    INPUT.0.borrow().map(|word| word as i64)
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

/// Where the output record lies in wasm memory (15 f64s), and the input record
/// of `_driverExchangeView` (8 f64s): `[memory, output address, input address]`.
#[wasm_bindgen(js_name = _wireMemory)]
pub fn memory() -> Array {
    let output = OUTPUT.0.as_ptr() as usize as f64;
    let input = INPUT.0.as_ptr() as usize as f64;
    [wasm_bindgen::memory(), JsValue::from_f64(output), JsValue::from_f64(input)].into_iter().collect()
}

fn names<T: Named>() -> JsValue {
    T::ALL.iter().map(|member| JsValue::from_str(member.name())).collect::<Array>().into()
}

/// `{name: index}` of a record's fields.
fn fields(table: &[(&str, usize)]) -> JsValue {
    let object = Object::new();
    for (name, index) in table {
        let _ = Reflect::set(&object, &JsValue::from_str(name), &JsValue::from_f64(*index as f64));
    }
    object.into()
}

/// The core's wire tables, by name: `version`, `none`, the flags
/// (`hedge`, `sendIdempotencyKey`, `endingReturns`, `pushbackDoNotRetry`),
/// `input` and `output` (field name to word), and each kind or name table
/// in the core's order (a member's number is its place).
#[wasm_bindgen(js_name = _wireTables)]
pub fn tables() -> Object {
    let object = Object::new();
    let entries: [(&str, JsValue); 20] = [
        ("version", JsValue::from_f64(wire::wire_version() as f64)),
        ("none", JsValue::from_f64(wire::NONE as f64)),
        ("hedge", JsValue::from_f64(wire::FLAG_HEDGE as f64)),
        ("sendIdempotencyKey", JsValue::from_f64(wire::FLAG_SEND_IDEMPOTENCY_KEY as f64)),
        ("endingReturns", JsValue::from_f64(wire::ENDING_RETURNS as f64)),
        ("pushbackDoNotRetry", JsValue::from_f64(wire::PUSHBACK_DO_NOT_RETRY as f64)),
        ("input", fields(wire::input::FIELDS)),
        ("output", fields(wire::output::FIELDS)),
        ("inputKinds", names::<wire::InputKind>()),
        ("outcomeKinds", names::<wire::OutcomeKind>()),
        ("actionKinds", names::<wire::ActionKind>()),
        ("endingKinds", names::<wire::EndingKind>()),
        ("failures", names::<rp::Failure>()),
        ("verdicts", names::<rp::Verdict>()),
        ("transportFailures", names::<rp::TransportFailure>()),
        ("abortReasons", names::<rp::AbortReason>()),
        ("giveUpReasons", names::<rp::GiveUpReason>()),
        ("receipts", names::<rp::Receipt>()),
        ("held", names::<rp::Held>()),
        ("outputWords", JsValue::from_f64(OUTPUT_WORDS as f64)),
    ];
    for (name, value) in entries {
        let _ = Reflect::set(&object, &JsValue::from_str(name), &value);
    }
    object
}
