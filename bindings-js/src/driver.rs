//! The driver: the host loop decided by the core (actions out, results in).
//!
//! Drivers are objects of the table (`objects`), named by handles: a helper
//! makes and frees one per operation through the `_driver*` functions, and
//! `lib/driver.js` makes the public `Driver` class over the same handles.
//! The helpers' loop (`lib/host.js`) talks to a driver through the core's
//! wire (`_driverExchange`: numbers in, numbers out) and `_driverResponse`;
//! the public class through typed objects. A call never holds the table
//! while it reads a JS object (a getter could call back in): outcome objects
//! are read first.

use alloc::string::String;
use alloc::vec::Vec;

use retryplan as rp;
use rp::config::value::Named;
use rp::wire::{self, INPUT_WORDS, OUTPUT_WORDS};
use rp::{Concurrency, Held, Receipt};
use wasm_bindgen::prelude::*;

use crate::args::{named_or_default, outcome, whole_number};
#[cfg(feature = "messages")]
use crate::message_js;
use crate::objects::{self, Object};
use crate::operation::Options;
use crate::outcomes::guidance_lookup;
use crate::{either, invalid_with, js_error, num};

/// A receipt as its number (its place in `Receipt::ALL`), which JS names
/// through the generated `NAMES.receipts` (a number crosses for less than a string).
fn receipt_js(receipt: Receipt) -> JsValue {
    let number = Receipt::ALL.iter().position(|member| *member == receipt).unwrap_or(0);
    JsValue::from_f64(number as f64)
}

/// After an exchange: a finish's decision and last result stored after the
/// output record, for `lib/records.js` to spell the whole finish (its
/// `http_status`'s error code returned, or `undefined`); nothing for any
/// other action, spelt from the output record alone.
fn finish_record(driver: &rp::Driver) -> JsValue {
    let finish = crate::wire::output_kind() == wire::ActionKind::Finish.word() as f64;
    match driver.ended() {
        Some(ending) if finish => {
            crate::wire::decision(&ending.decision);
            crate::wire::result(ending.last_result)
        }
        _ => JsValue::UNDEFINED,
    }
}

/// The host's token for a result (`-1` for none, as on the wire), as the core's.
fn token_of(token: f64) -> Result<Option<u64>, JsValue> {
    if token == wire::NONE as f64 {
        Ok(None)
    } else {
        whole_number("token", token, num(wire::MAX_WORD as u64)).map(Some)
    }
}

/// Runs `use_driver` on the driver `handle` names.
pub(crate) fn with<T>(
    handle: u32,
    use_driver: impl FnOnce(&mut rp::Driver) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    objects::with(handle, "driver", |object| match object {
        Object::Driver(driver) => use_driver(driver),
        _ => Err(objects::freed("driver")),
    })
}

/// Starts an operation at `nowMs` run by a host, as `lib/driver.js` checked
/// its options: the operation's (see `Options`), the request's `method` and
/// `idempotent` (its repeatability, with the policy's `retry_methods`),
/// whether its body can be sent only once (`oneShotBody`), `concurrency`
/// (its index in `Concurrency::ALL`; the default when absent), the stats'
/// handle (0 for none), `recordEvents` and `returnsResponses`, the incoming
/// context's handle (0 for none: see `crate::propagation`; ignored without
/// the feature `propagation`, whose JS never passes one); with `poll`,
/// the wire's first `poll` at `nowMs` too (its output record, and the
/// operation's key as `_operationKey` copies it, left where `_wireMemory`
/// says: two crossings less for a helper); with `operation`, an
/// `Operation` (`lib/operation.js`) from the operation's options alone
/// instead. Its handle, or 0 when refused (`_wireRefusal` has the
/// `RetryplanError`): a number crosses without a `JsValue` made for it.
#[wasm_bindgen(js_name = _driverNew)]
#[allow(clippy::too_many_arguments)] // numbers and strings cross: no object to read
pub fn driver_new(
    policy: u32,
    now_ms: f64,
    seed: Option<f64>,
    key: Option<String>,
    deadline_ms: Option<f64>,
    dependency: u32,
    method: Option<String>,
    idempotent: Option<bool>,
    request_key: Option<String>,
    one_shot_body: bool,
    concurrency: Option<u32>,
    stats: u32,
    record_events: bool,
    returns_responses: bool,
    incoming: u32,
    poll: bool,
    operation: bool,
    r0: u32,
    r1: u32,
    r2: u32,
    r3: u32,
    r4: u32,
    r5: u32,
) -> u32 {
    let options = Options { seed, key, deadline_ms, dependency, random: [r0, r1, r2, r3, r4, r5] };
    let made = objects::policy(policy).and_then(|policy| {
        let core = options.core()?;
        if operation {
            return objects::insert(Object::Operation(rp::Operation::new(&policy, now_ms as u64, core)));
        }
        let mut operation = core;
        if let Some(method) = method {
            let request = policy.http_request(&method, idempotent, request_key.as_deref()).map_err(js_error)?;
            operation = operation.with_http_request(request);
        }
        if one_shot_body {
            operation = operation.with_one_shot_body();
        }
        #[cfg(feature = "propagation")]
        if incoming != 0 {
            operation = operation.with_incoming(&policy, &objects::incoming(incoming)?.0);
        }
        #[cfg(not(feature = "propagation"))]
        let _ = incoming;
        let concurrency: Concurrency = named_or_default(concurrency);
        let host = rp::DriverOptions { stats: objects::stats(stats)?, concurrency, record_events, returns_responses };
        // Boxed at once: the driver is moved once, into the box.
        let mut driver =
            alloc::boxed::Box::new(rp::Driver::new(&policy, now_ms as u64, operation, host).map_err(js_error)?);
        if poll {
            exchange(&mut driver, &[wire::InputKind::Poll.word(), now_ms as i64])?;
            // Every helper reads the key (run() gives it to each attempt): copied now, one crossing less.
            crate::wire::copy_key(driver.idempotency_key());
        }
        objects::insert(Object::Driver(driver))
    });
    made.unwrap_or_else(|error| {
        crate::wire::refuse(error);
        0
    })
}

/// What to do now, for `pollAction` (`lib/records.js`): a poll on the wire,
/// its output record (and a finish's record, see `finish_record`) stored;
/// the finish's error code or `undefined`, or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverPollAction)]
pub fn driver_poll_action(handle: u32, now_ms: f64) -> JsValue {
    either(with(handle, |driver| {
        exchange(driver, &[wire::InputKind::Poll.word(), now_ms as i64])?;
        Ok(finish_record(driver))
    }))
}

/// How an attempt ended, as an outcome object, held under `token` (-1 for
/// none) as `held` says (its index in `Held::ALL`; the default when absent): the
/// receipt's number (see `receipt_js`), or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverResultOf)]
pub fn driver_result_of(
    handle: u32,
    now_ms: f64,
    attempt: u32,
    outcome_value: &JsValue,
    token: f64,
    held: Option<u32>,
) -> JsValue {
    // Read before the table is taken: it reads a JS object.
    let handed = outcome(outcome_value).and_then(|outcome| {
        let token = token_of(token)?;
        with(handle, |driver| {
            let receipt = match token {
                Some(token) => {
                    let held: Held = named_or_default(held);
                    driver.handle_result_with_token(now_ms as u64, attempt, outcome, token, held)
                }
                None => driver.handle_result(now_ms as u64, attempt, outcome),
            };
            receipt.map(receipt_js).map_err(js_error)
        })
    });
    either(handed)
}

/// The HTTP response attempt `attempt` received, read by the core: `status`
/// as the platform gave it (any whole number), `values` the guidance headers
/// (`GUIDANCE_HEADERS`, in that order: a string, or absent) and the caller's
/// wall clock `nowUnixMs`; held under `token` (-1 for none); `redirected`:
/// fetch followed a redirect inside the attempt to get it (`Response.redirected`).
/// The receipt's number (see `receipt_js`), or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverResponse)]
#[allow(clippy::too_many_arguments)] // the response's facts cross as plain values
pub fn driver_response(
    handle: u32,
    now_ms: f64,
    attempt: u32,
    token: f64,
    status: f64,
    values: Vec<JsValue>,
    now_unix_ms: f64,
    redirected: bool,
) -> JsValue {
    let values = guidance_lookup(&values);
    let handed = token_of(token).and_then(|token| {
        with(handle, |driver| {
            let (now_ms, status, now_unix_ms) = (now_ms as u64, status as i64, now_unix_ms as u64);
            let lookup = values.lookup();
            driver
                .handle_response_after_redirects(now_ms, attempt, token, status, lookup, now_unix_ms, redirected)
                .map(receipt_js)
                .map_err(js_error)
        })
    });
    either(handed)
}

/// One exchange of the core's wire (`Driver::exchange`): the input record's
/// eight words in, the output record left where `_wireMemory` says. False
/// when the record is refused (`_wireRefusal` has the error): a word that is
/// not a whole number, named by its field, or whatever the core refuses.
#[wasm_bindgen(js_name = _driverExchange)]
#[allow(clippy::too_many_arguments)] // the record's words cross as numbers
pub fn driver_exchange(handle: u32, w0: f64, w1: f64, w2: f64, w3: f64, w4: f64, w5: f64, w6: f64, w7: f64) -> bool {
    let record = input_record([w0, w1, w2, w3, w4, w5, w6, w7]);
    answered(record.and_then(|record| with(handle, |driver| exchange(driver, &record))))
}

/// An input record's words from JS numbers: exact (a fraction, NaN or a
/// number past i64 is refused by its field's name, never truncated).
pub(crate) fn input_record(numbers: [f64; INPUT_WORDS]) -> Result<[i64; INPUT_WORDS], JsValue> {
    let mut record = [wire::NONE; INPUT_WORDS];
    // The core lists the fields in word order.
    for ((word, number), (field, _)) in record.iter_mut().zip(numbers).zip(wire::input::FIELDS) {
        *word = number as i64;
        if *word as f64 != number {
            return Err(invalid_with(field, "integer", &JsValue::from_f64(number), &JsValue::UNDEFINED));
        }
    }
    Ok(record)
}

/// True for an exchange done, false (its error kept for `_wireRefusal`) for one refused.
pub(crate) fn answered(exchanged: Result<(), JsValue>) -> bool {
    exchanged.map_err(crate::wire::refuse).is_ok()
}

/// `driver.exchange` of `record`, its output record left where `_wireMemory` says.
#[inline(never)]
fn exchange(driver: &mut rp::Driver, record: &[i64]) -> Result<(), JsValue> {
    let mut output = [wire::NONE; OUTPUT_WORDS];
    driver.exchange(record, &mut output).map_err(js_error)?;
    crate::wire::store_output(&output);
    Ok(())
}

/// The caller abandons the operation (nothing happens after the end).
#[wasm_bindgen(js_name = _driverCancel)]
pub fn driver_cancel(handle: u32, now_ms: f64) -> JsValue {
    either(with(handle, |driver| {
        driver.handle_cancel(now_ms as u64);
        Ok(JsValue::UNDEFINED)
    }))
}

/// The timer the host armed for the last sleep ran out, the clock at `now_ms`: the core's refusal of a clock that
/// did not move through the wait, or undefined.
#[wasm_bindgen(js_name = _driverHandleTimerEnd)]
pub fn driver_handle_timer_end(handle: u32, now_ms: f64) -> JsValue {
    either(with(handle, |driver| {
        driver.handle_timer_end(now_ms as u64).map_err(js_error)?;
        Ok(JsValue::UNDEFINED)
    }))
}

/// The whole text of the typed ending of the ended driver `handle` names, the
/// core's (`Ending::message`: the ending's words, and the hint naming
/// `outcomeOfError` after an error nothing classified), as message data for
/// `lib/messages.js` to compose; `operation` is how the helper names the
/// operation, `key_sent` false when the helper sent no idempotency key (the
/// core's reconcile words then name none). Undefined while the operation
/// runs, and for a success. Reads
/// only (no action is handed out).
/// Without the feature `messages` (the browser runtime): always undefined.
#[wasm_bindgen(js_name = _endingMessage)]
pub fn ending_message(handle: u32, operation: &str, key_sent: bool) -> JsValue {
    #[cfg(not(feature = "messages"))]
    return {
        let _ = (handle, operation, key_sent);
        JsValue::UNDEFINED
    };
    #[cfg(feature = "messages")]
    either(with(handle, |driver| {
        let key = key_sent.then(|| driver.idempotency_key().as_str());
        let message = driver.ended().and_then(|ending| ending.message(operation, key, ERROR_HOOK));
        Ok(message.map_or(JsValue::UNDEFINED, |message| message_js(&message)))
    }))
}

/// How the helpers' option that classifies errors is named (`run`'s and `retryFetch`'s).
#[cfg(feature = "messages")]
const ERROR_HOOK: &str = "outcomeOfError";

/// The oldest decision recorded and not yet read, stored as a finish's is
/// (its decision, the result it followed, its time) for `lib/records.js`:
/// its error code or `undefined`; `null` when none is left, or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverEvent)]
pub fn driver_event(handle: u32) -> JsValue {
    either(with(handle, |driver| match driver.poll_event() {
        Some(event) => {
            crate::wire::decision(&event.decision);
            crate::wire::at_ms(event.at_ms);
            Ok(crate::wire::result(event.after))
        }
        None => Ok(JsValue::NULL),
    }))
}
