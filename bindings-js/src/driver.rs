//! The driver: the host loop decided by the core (actions out, results in).
//!
//! Drivers are objects of the table (`objects`), named by handles: a helper
//! makes and frees one per operation through the `_driver*` functions, and
//! `lib/driver.js` makes the public `Driver` class over the same handles.
//! A call never holds the table while it reads a JS object (a getter could
//! call back in): outcome objects are read first.

use alloc::string::String;
use alloc::vec::Vec;
use core::cell::OnceCell;

use retryplan as rp;
use rp::value::Named;
use rp::{Action, AttemptPlan, Concurrency, Ending, Outcome, Receipt};
use wasm_bindgen::prelude::*;

use crate::args::{outcome, outcome_from_parts};
use crate::decisions::decision;
use crate::objects::{self, Object};
use crate::operation::Options;
use crate::outcomes::attempt_result_js;
use crate::policy::handle_js;
use crate::{either, js_error, js_start_attempt, num, Global, START_ACTION, START_HELPER};

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    #[wasm_bindgen(js_name = abortAction)]
    fn js_abort_action(attempt: u32, reason: &str) -> JsValue;
    #[wasm_bindgen(js_name = sleepAction)]
    fn js_sleep_action(until_ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = releaseAction)]
    fn js_release_action(token: f64) -> JsValue;
    #[wasm_bindgen(js_name = finishAction)]
    fn js_finish_action(decision: JsValue, last_result: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = decisionEvent)]
    fn js_decision_event(at_ms: f64, decision: JsValue, after: JsValue) -> JsValue;
    /// Tells `lib/host.js` that the result `_driverResultPoll` took was discarded.
    #[wasm_bindgen(js_name = resultDiscarded)]
    fn js_result_discarded();
}

/// The receipts as JS strings, made once.
static RECEIPTS: Global<OnceCell<[JsValue; 2]>> = Global(OnceCell::new());

fn receipt_js(receipt: Receipt) -> JsValue {
    let [accepted, discarded] = RECEIPTS
        .0
        .get_or_init(|| [JsValue::from_str(Receipt::Accepted.name()), JsValue::from_str(Receipt::Discarded.name())]);
    match receipt {
        Receipt::Accepted => accepted.clone(),
        Receipt::Discarded => discarded.clone(),
    }
}

/// A start action as the public object, or as the helpers' `Attempt`.
fn start_js(plan: AttemptPlan, for_helpers: bool) -> JsValue {
    // The request id's two 32-bit halves, spelt by JS as the core's 16 hex digits.
    let id = plan.request_id.0;
    js_start_attempt(
        if for_helpers { START_HELPER } else { START_ACTION },
        plan.attempt,
        num(plan.timeout_ms),
        num(plan.abort_at_ms),
        (id >> 32) as u32,
        id as u32,
        num(plan.remaining_budget_ms),
        plan.hedge,
        plan.send_idempotency_key,
    )
}

/// One operation's driver, and its ending once a poll returned it.
pub(crate) struct DriverState {
    inner: rp::Driver,
    ending: Option<Ending>,
}

impl DriverState {
    fn action(&mut self, now_ms: f64, for_helpers: bool) -> Result<JsValue, JsValue> {
        Ok(match self.inner.poll_action(now_ms as u64) {
            Action::StartAttempt(plan) => start_js(plan, for_helpers),
            Action::AbortAttempt { attempt, reason } => js_abort_action(attempt, reason.name()),
            Action::Sleep { until_ms } => js_sleep_action(num(until_ms)),
            Action::Release { token } => js_release_action(num(token)),
            Action::Finish(ending) => {
                self.ending = Some(ending);
                // The helpers ask for the last result only when they need it (`_driverLastResult`).
                let last = if for_helpers { JsValue::UNDEFINED } else { attempt_result_js(ending.last_result)? };
                js_finish_action(decision(ending.decision), last)
            }
        })
    }

    fn result(&mut self, now_ms: f64, attempt: u32, outcome: Outcome) -> Result<JsValue, JsValue> {
        self.inner.handle_result(now_ms as u64, attempt, outcome).map(receipt_js).map_err(js_error)
    }
}

/// Runs `use_driver` on the driver `handle` names.
fn with<T>(handle: u32, use_driver: impl FnOnce(&mut DriverState) -> Result<T, JsValue>) -> Result<T, JsValue> {
    objects::with(handle, "driver", |object| match object {
        Object::Driver(driver) => use_driver(driver),
        _ => Err(objects::freed("driver")),
    })
}

/// Starts an operation at `nowMs` run by a host, as `lib/driver.js` checked
/// its options: the operation's (see `Options`), the request's `method` and
/// `idempotent` (its repeatability, with the policy's `retry_methods`),
/// `concurrency` (0 concurrent, 1 sequential, 2 sequential without hedging),
/// the stats' handle (0 for none) and `recordEvents`. Its handle, or the
/// `RetryplanError`.
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
    concurrency: u32,
    stats: u32,
    record_events: bool,
    r0: u32,
    r1: u32,
    r2: u32,
    r3: u32,
    r4: u32,
    r5: u32,
) -> JsValue {
    let options = Options { seed, key, deadline_ms, dependency, random: [r0, r1, r2, r3, r4, r5] };
    handle_js(objects::policy(policy).and_then(|policy| {
        let mut operation = options.core()?;
        if let Some(method) = method {
            operation =
                operation.with_repeatability(policy.repeatability_for_http(&method, idempotent).map_err(js_error)?);
        }
        let concurrency = match concurrency {
            0 => Concurrency::Concurrent,
            1 => Concurrency::Sequential,
            _ => Concurrency::SequentialWithoutHedging,
        };
        let host = rp::DriverOptions {
            stats: objects::stats(stats)?,
            concurrency,
            record_events,
            ..rp::DriverOptions::default()
        };
        let inner = rp::Driver::new(&policy, now_ms as u64, operation, host).map_err(js_error)?;
        objects::insert(Object::Driver(DriverState { inner, ending: None }))
    }))
}

/// What to do now, as `pollAction` gives it (a finish with its `lastResult`), or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverPollAction)]
pub fn driver_poll_action(handle: u32, now_ms: f64) -> JsValue {
    either(with(handle, |driver| driver.action(now_ms, false)))
}

/// What to do now, for the helpers: a start as an `Attempt`, a finish without
/// its last result; or the `RetryplanError` (see `either`).
#[wasm_bindgen(js_name = _driverPoll)]
pub fn driver_poll(handle: u32, now_ms: f64) -> JsValue {
    either(with(handle, |driver| driver.action(now_ms, true)))
}

/// How an attempt ended, as an outcome object: `"accepted"` or `"discarded"`, or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverResultOf)]
pub fn driver_result_of(handle: u32, now_ms: f64, attempt: u32, outcome_value: &JsValue) -> JsValue {
    // Read before the table is taken: it reads a JS object.
    either(outcome(outcome_value).and_then(|outcome| with(handle, |driver| driver.result(now_ms, attempt, outcome))))
}

/// How an attempt ended, as the parts `lib/outcomes.js` read (see
/// `outcome_from_parts`): the receipt or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverResult)]
pub fn driver_result(handle: u32, now_ms: f64, attempt: u32, tag: u32, a: f64, b: Option<f64>) -> JsValue {
    either(
        outcome_from_parts(tag, a, b)
            .and_then(|outcome| with(handle, |driver| driver.result(now_ms, attempt, outcome))),
    )
}

/// `_driverResult` and then `_driverPoll` at the same time, in one call (for
/// an attempt that answered before the host's next poll): the next action,
/// or the `RetryplanError`. A discarded result is told by `resultDiscarded`.
#[wasm_bindgen(js_name = _driverResultPoll)]
pub fn driver_result_poll(handle: u32, now_ms: f64, attempt: u32, tag: u32, a: f64, b: Option<f64>) -> JsValue {
    let next = outcome_from_parts(tag, a, b).and_then(|outcome| {
        with(handle, |driver| {
            if driver.inner.handle_result(now_ms as u64, attempt, outcome).map_err(js_error)? == Receipt::Discarded {
                js_result_discarded();
            }
            driver.action(now_ms, true)
        })
    });
    either(next)
}

/// The caller abandons the operation (nothing happens after the end).
#[wasm_bindgen(js_name = _driverCancel)]
pub fn driver_cancel(handle: u32, now_ms: f64) -> JsValue {
    either(with(handle, |driver| {
        driver.inner.handle_cancel(now_ms as u64);
        Ok(JsValue::UNDEFINED)
    }))
}

/// The oldest decision recorded and not yet read, `undefined`, or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverEvent)]
pub fn driver_event(handle: u32) -> JsValue {
    either(with(handle, |driver| match driver.inner.poll_event() {
        Some(event) => {
            Ok(js_decision_event(num(event.at_ms), decision(event.decision), attempt_result_js(event.after)?))
        }
        None => Ok(JsValue::UNDEFINED),
    }))
}

/// The last result of the ending a poll returned, `undefined`, or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverLastResult)]
pub fn driver_last_result(handle: u32) -> JsValue {
    either(with(handle, |driver| attempt_result_js(driver.ending.and_then(|ending| ending.last_result))))
}

/// The operation's idempotency key (the same on every attempt).
#[wasm_bindgen(js_name = _driverKey)]
pub fn driver_key(handle: u32) -> Result<String, JsValue> {
    with(handle, |driver| Ok(String::from(driver.inner.idempotency_key().as_str())))
}

/// `[deadlineMs, attemptsStarted, isEnded as 0 or 1]`.
#[wasm_bindgen(js_name = _driverState)]
pub fn driver_state(handle: u32) -> Result<Vec<f64>, JsValue> {
    with(handle, |driver| {
        let operation = driver.inner.operation();
        Ok(alloc::vec![
            num(operation.deadline_ms()),
            f64::from(operation.attempts_started()),
            f64::from(u8::from(driver.inner.is_ended())),
        ])
    })
}
