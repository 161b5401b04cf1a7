//! Propagation across hops: the incoming request's context read by the core,
//! and the headers the core writes on each attempt's request and on the
//! answer. Every value here is the core's (`retryplan::propagation`); this
//! module only carries them. The incoming side and the answer
//! (`lib/propagation.js`, `lib/server.js`: Node and the tools entry) need the
//! feature `propagation`; the outgoing headers (`_driverOutgoing`) are in
//! every build, the browser runtime's too (its retryFetch sends them on a
//! same-origin request, and on a cross-origin one when the caller opts in).

#[cfg(feature = "propagation")]
use alloc::vec::Vec;

use js_sys::Array;
use retryplan as rp;
#[cfg(feature = "propagation")]
use rp::propagation::{Answer, IncomingContext, REQUEST_HEADERS};
use rp::propagation::{HeaderList, Protocol};
use wasm_bindgen::prelude::*;

use crate::args::named;
use crate::driver::with as with_driver;
#[cfg(feature = "propagation")]
use crate::num;
#[cfg(feature = "propagation")]
use crate::objects::{self, Object};
use crate::{either, js_error};

/// Reads the incoming request's context under `policy` at `nowMs`: `values`
/// holds the request headers (`REQUEST_HEADERS`, generated into
/// lib/generated/propagation.js, in that order: a string, or
/// anything else when absent, several field lines joined by `", "`). The
/// context's handle, or the `RetryplanError` (`invalid_request_header`,
/// blame `caller`, naming the header; `invalid_argument` naming
/// `Idempotency-Key`).
#[cfg(feature = "propagation")]
#[wasm_bindgen(js_name = _incomingRead)]
pub fn incoming_read(policy: u32, now_ms: f64, values: Vec<JsValue>) -> JsValue {
    let values: Vec<Option<alloc::string::String>> = values.iter().map(JsValue::as_string).collect();
    let lookup = |wanted: &str| {
        let at = REQUEST_HEADERS.iter().position(|name| *name == wanted)?;
        values.get(at)?.as_deref()
    };
    let read = objects::policy(policy).and_then(|policy| {
        let context = IncomingContext::read(&policy, now_ms as u64, lookup).map_err(js_error)?;
        let reserve_ms = policy.propagation().reserve_ms;
        objects::insert(Object::Incoming(alloc::boxed::Box::new((context, reserve_ms, Answer::new()))))
    });
    either(read.map(|handle| JsValue::from_f64(f64::from(handle))))
}

/// What the context `handle` names read: `[receivedAtMs, callerRemainingNs
/// (a `bigint`, or undefined), deadlineHeader, previousAttempts,
/// idempotencyKey, callerRetries, deadlineMs (the core's, with the policy's
/// reserve; or undefined)]`, or the `RetryplanError` of a freed handle.
#[cfg(feature = "propagation")]
#[wasm_bindgen(js_name = _incomingFields)]
pub fn incoming_fields(handle: u32) -> JsValue {
    either(objects::incoming(handle).map(|(context, reserve_ms)| {
        let optional = |value: Option<JsValue>| value.unwrap_or(JsValue::UNDEFINED);
        let fields: Array = [
            JsValue::from_f64(num(context.received_at_ms)),
            optional(context.caller_remaining_ns.map(|ns| js_sys::BigInt::from(ns).into())),
            optional(context.deadline_header.map(JsValue::from_str)),
            JsValue::from_f64(f64::from(context.previous_attempts)),
            optional(context.idempotency_key.as_ref().map(|key| JsValue::from_str(key.as_str()))),
            JsValue::from_bool(context.caller_retries),
            optional(context.deadline_ms(reserve_ms).map(|ms| JsValue::from_f64(num(ms)))),
        ]
        .into_iter()
        .collect();
        fields.into()
    }))
}

/// Headers as one array, `[name, value, name, value, ...]`, in the core's order.
fn header_array(headers: &HeaderList) -> JsValue {
    let array = Array::new();
    for (name, value) in headers.iter() {
        array.push(&JsValue::from_str(name));
        array.push(&JsValue::from_str(value));
    }
    array.into()
}

/// The request headers of running attempt `attempt` sent at `nowMs` to a
/// next hop speaking `protocol` (`http` or `grpc`): the core's
/// `Driver::outgoing_headers`, as `[name, value, ...]`, or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverOutgoing)]
pub fn driver_outgoing(handle: u32, attempt: u32, now_ms: f64, protocol: &str) -> JsValue {
    let protocol = named::<Protocol>("protocol", protocol);
    either(with_driver(handle, |driver| {
        let headers = driver.outgoing_headers(attempt, now_ms as u64, protocol?).map_err(js_error)?;
        Ok(header_array(&headers))
    }))
}

/// The headers of the answer to this layer's caller once the operation ended
/// (the core's `Driver::answer_headers`), as `[name, value, ...]`.
#[cfg(feature = "propagation")]
#[wasm_bindgen(js_name = _driverAnswer)]
pub fn driver_answer(handle: u32, protocol: &str) -> JsValue {
    let protocol = named::<Protocol>("protocol", protocol);
    either(with_driver(handle, |driver| Ok(header_array(&driver.answer_headers(protocol?)))))
}

/// The answer's headers (`[name, value, ...]`, for an HTTP caller) of the
/// request whose context is `incoming`, after recording the ending of driver
/// `driver` (0: none), an operation made while serving it: the core's
/// `propagation::Answer` (the last give-up decides).
#[cfg(feature = "propagation")]
#[wasm_bindgen(js_name = _incomingAnswer)]
pub fn incoming_answer(incoming: u32, driver: u32) -> JsValue {
    let ending = if driver == 0 { Ok(None) } else { with_driver(driver, |driver| Ok(driver.ended())) };
    either(ending.and_then(|ending| {
        objects::with(incoming, "incoming", |object| match object {
            Object::Incoming(served) => {
                ending.iter().for_each(|ending| served.2.record(ending));
                Ok(header_array(&served.2.headers(Protocol::Http)))
            }
            _ => Err(objects::freed("incoming")),
        })
    }))
}
