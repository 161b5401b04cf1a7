//! `_driverEventSignals`: the oldest recorded event of a driver (stored on
//! the wire as `_driverEvent` stores it) with what the core's telemetry
//! mapping (`retryplan::telemetry::signals`) makes of it, for `lib/otel.js`.
//! Nothing is decided here. The Node and tools entries only (`config`): the
//! browser runtime reports to no OpenTelemetry.

use js_sys::Array;
use retryplan as rp;
use rp::config::value::Named as _;
use rp::telemetry::{signals, ErrorType, Signal};
use wasm_bindgen::prelude::*;

/// A number, or null.
fn number(value: Option<u32>) -> JsValue {
    value.map_or(JsValue::NULL, JsValue::from)
}

/// `error.type`: a string, a status (a number: lib/otel.js writes it as text, sparing the wasm
/// `core::fmt`), true for "the type of what the attempt threw", or null.
fn error_type(kind: Option<ErrorType>) -> JsValue {
    match kind {
        None => JsValue::NULL,
        Some(ErrorType::Status(status)) => JsValue::from(u32::from(status)),
        Some(ErrorType::Named(name)) => JsValue::from_str(name),
        Some(ErrorType::Raised) => JsValue::TRUE,
    }
}

/// One signal as an array, its `SignalKind`'s name first (`lib/otel.js` reads it): `[kind, attempt, resendCount,
/// hedge]`, `[kind, attempt, status, errorType]`, `[kind, onAttempt, reason, attempts]`, `[kind, instrument, value]`.
fn signal(signal: Signal) -> Array {
    let [a, b, c] = match signal {
        Signal::AttemptStarted { attempt, resend_count, hedge } => [attempt.into(), number(resend_count), hedge.into()],
        Signal::AttemptEnded { attempt, status_code, error_type: kind } => {
            [attempt.into(), number(status_code.map(u32::from)), error_type(kind)]
        }
        Signal::GaveUp { on_attempt, reason, attempts } => {
            [number(on_attempt), JsValue::from_str(reason.name()), attempts.into()]
        }
        Signal::Count { metric, value } => {
            [JsValue::from_str(metric.otel_name()), value.map_or(JsValue::NULL, JsValue::from_str), JsValue::UNDEFINED]
        }
    };
    [JsValue::from_str(signal.kind().name()), a, b, c].iter().collect()
}

/// The oldest event of driver `handle` not yet read, stored on the wire as
/// `_driverEvent` stores it, and `[errorCode, signals]`; `null` when none is
/// left, or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverEventSignals)]
pub fn driver_event_signals(handle: u32) -> JsValue {
    crate::either(crate::driver::with(handle, |driver| match driver.poll_event() {
        Some(event) => {
            crate::wire::decision(&event.decision);
            crate::wire::at_ms(event.at_ms);
            let code = crate::wire::result(event.after);
            let list: Array = signals(&event).into_iter().map(signal).collect();
            Ok(Array::of2(&code, &list).into())
        }
        None => Ok(JsValue::NULL),
    }))
}
