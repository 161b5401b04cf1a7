//! The driver: the host loop decided by the core (actions out, results in).
//!
//! Drivers are held in a table and named by handles (`_driver*` functions),
//! not as wasm-bindgen objects: a helper makes and frees one per operation,
//! and a wasm-bindgen object costs a JS wrapper and a FinalizationRegistry
//! entry each time, more than all of a short operation's decisions.
//! `lib/driver.js` makes the public `Driver` class over the same handles.
//!
//! A call never holds the table while it reads a JS object (a getter could
//! call back in): options and outcome objects are read first.

use alloc::string::String;
use alloc::vec::Vec;
use core::cell::{OnceCell, RefCell};

use retryplan as rp;
use rp::value::Named;
use rp::{Action, AttemptPlan, Concurrency, Ending, Outcome, Receipt};
use wasm_bindgen::prelude::*;

use crate::args::{
    attempt_number, get, ms, ms_number, number, optional_flag, optional_text, outcome, outcome_from_parts,
};
use crate::decisions::decision;
use crate::operation::operation_options;
use crate::outcomes::attempt_result_js;
use crate::{
    either, invalid, invalid_with, js_error, js_start_attempt, num, Dependency, Global, Policy, Stats, START_ACTION,
    START_HELPER,
};

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    #[wasm_bindgen(js_name = abortAction)]
    fn js_abort_action(attempt: u32, reason: &str) -> JsValue;
    #[wasm_bindgen(js_name = sleepAction)]
    fn js_sleep_action(until_ms: f64) -> JsValue;
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

/// The drivers alive (see [`Drivers`]).
static DRIVERS: Global<RefCell<Drivers>> = Global(RefCell::new(Drivers { slots: Vec::new(), free: Vec::new() }));

/// Runs `use_table` on the table of drivers.
fn table<T>(use_table: impl FnOnce(&RefCell<Drivers>) -> T) -> T {
    use_table(&DRIVERS.0)
}

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

/// `concurrency` as the core's enum: "concurrent" (the default), "sequential"
/// or "sequential_without_hedging".
fn concurrency(value: &JsValue) -> Result<Concurrency, JsValue> {
    Ok(match optional_text("concurrency", value)?.as_deref() {
        None | Some("concurrent") => Concurrency::Concurrent,
        Some("sequential") => Concurrency::Sequential,
        Some("sequential_without_hedging") => Concurrency::SequentialWithoutHedging,
        Some(other) => {
            let known: js_sys::Array =
                ["concurrent", "sequential", "sequential_without_hedging"].into_iter().map(JsValue::from_str).collect();
            return Err(invalid_with("concurrency", "name", &JsValue::from_str(other), &known));
        }
    })
}

/// One operation's driver, and its ending once a poll returned it.
struct DriverState {
    inner: rp::Driver,
    ending: Option<Ending>,
}

impl DriverState {
    fn action(&mut self, now_ms: f64, for_helpers: bool) -> Result<JsValue, JsValue> {
        let now = ms_number("nowMs", now_ms)?;
        Ok(match self.inner.poll_action(now) {
            Action::StartAttempt(plan) => start_js(plan, for_helpers),
            Action::AbortAttempt { attempt, reason } => js_abort_action(attempt, reason.name()),
            Action::Sleep { until_ms } => js_sleep_action(num(until_ms)),
            Action::Finish(ending) => {
                self.ending = Some(ending);
                // The helpers ask for the last result only when they need it (`_driverLastResult`).
                let last = if for_helpers { JsValue::UNDEFINED } else { attempt_result_js(ending.last_result)? };
                js_finish_action(decision(ending.decision), last)
            }
        })
    }

    fn result(&mut self, now_ms: f64, attempt: f64, outcome: Outcome) -> Result<JsValue, JsValue> {
        let now = ms_number("nowMs", now_ms)?;
        let attempt = attempt_number(attempt)?;
        self.inner.handle_result(now, attempt, outcome).map(receipt_js).map_err(js_error)
    }
}

/// The drivers alive, by handle: a slot index in the low 20 bits, the slot's
/// generation above, so that a handle freed (and its slot reused) is refused.
struct Drivers {
    slots: Vec<(u32, Option<DriverState>)>,
    free: Vec<usize>,
}

const INDEX_BITS: u32 = 20;

fn stale() -> JsValue {
    invalid("driver", "freed")
}

/// Runs `use_driver` on the driver `handle` names.
fn with<T>(handle: u32, use_driver: impl FnOnce(&mut DriverState) -> Result<T, JsValue>) -> Result<T, JsValue> {
    table(|drivers| {
        let mut drivers = drivers.try_borrow_mut().map_err(|_| stale())?;
        let index = (handle & ((1 << INDEX_BITS) - 1)) as usize;
        match drivers.slots.get_mut(index) {
            Some((generation, Some(state))) if *generation == handle >> INDEX_BITS => use_driver(state),
            _ => Err(stale()),
        }
    })
}

/// Starts an operation at `nowMs` run by a host; returns its handle.
/// `options` is the operation's (see `operation_options`) plus `method` and
/// `idempotent` (the request's repeatability, with the policy's `retry_methods`), `concurrency` and
/// `recordEvents`; `dependency` and `stats` are handles made for this call.
#[wasm_bindgen(js_name = _driverNew)]
#[allow(clippy::too_many_arguments)] // the random words cross as numbers: no array to copy
pub fn driver_new(
    policy: &Policy,
    now_ms: &JsValue,
    options: Option<JsValue>,
    dependency: Option<Dependency>,
    stats: Option<Stats>,
    r0: u32,
    r1: u32,
    r2: u32,
    r3: u32,
    r4: u32,
    r5: u32,
) -> Result<u32, JsValue> {
    let now = ms("nowMs", now_ms)?;
    let mut operation = operation_options(options.as_ref(), dependency, [r0, r1, r2, r3, r4, r5])?;
    let mut host = rp::DriverOptions { stats: stats.map(|stats| stats.0), ..rp::DriverOptions::default() };
    if let Some(options) = &options {
        let idempotent = optional_flag("idempotent", &get(options, "idempotent")?)?;
        match optional_text("method", &get(options, "method")?)? {
            Some(method) => {
                let repeatability = policy.0.repeatability_for_http(&method, idempotent).map_err(js_error)?;
                operation = operation.with_repeatability(repeatability);
            }
            None if idempotent.is_some() => return Err(invalid("idempotent", "method_needed")),
            None => {}
        }
        host.concurrency = concurrency(&get(options, "concurrency")?)?;
        host.record_events = optional_flag("recordEvents", &get(options, "recordEvents")?)?.unwrap_or(false);
    }
    let state =
        DriverState { inner: rp::Driver::new(&policy.0, now, operation, host).map_err(js_error)?, ending: None };
    table(|drivers| {
        let mut drivers = drivers.try_borrow_mut().map_err(|_| stale())?;
        let index = match drivers.free.pop() {
            Some(index) => index,
            None if drivers.slots.len() < 1 << INDEX_BITS => {
                drivers.slots.push((0, None));
                drivers.slots.len() - 1
            }
            None => {
                return Err(invalid_with("driver", "drivers", &JsValue::from(1u32 << INDEX_BITS), &JsValue::UNDEFINED))
            }
        };
        let slot = drivers.slots.get_mut(index).ok_or_else(stale)?;
        slot.1 = Some(state);
        Ok(slot.0 << INDEX_BITS | index as u32)
    })
}

/// Frees a driver (dropping it gives back what its running attempts held). A
/// stale handle is ignored.
#[wasm_bindgen(js_name = _driverFree)]
pub fn driver_free(handle: u32) {
    let dropped = table(|drivers| {
        let mut drivers = drivers.try_borrow_mut().ok()?;
        let index = (handle & ((1 << INDEX_BITS) - 1)) as usize;
        let (generation, state) = drivers.slots.get_mut(index)?;
        if *generation != handle >> INDEX_BITS || state.is_none() {
            return None;
        }
        *generation = (*generation + 1) % (1 << (32 - INDEX_BITS));
        let dropped = state.take();
        drivers.free.push(index);
        dropped
    });
    drop(dropped); // outside the table: dropping may reach shared controls, never JS
}

/// What to do now, as `pollAction` gives it (a finish with its `lastResult`).
#[wasm_bindgen(js_name = _driverPollAction)]
pub fn driver_poll_action(handle: u32, now_ms: &JsValue) -> Result<JsValue, JsValue> {
    let now = number("nowMs", now_ms)?;
    with(handle, |driver| driver.action(now, false))
}

/// What to do now, for the helpers: a start as an `Attempt`, a finish without
/// its last result; or the `RetryplanError` (see `either`).
#[wasm_bindgen(js_name = _driverPoll)]
pub fn driver_poll(handle: u32, now_ms: f64) -> JsValue {
    either(with(handle, |driver| driver.action(now_ms, true)))
}

/// How an attempt ended, as an outcome object: `"accepted"` or `"discarded"`.
#[wasm_bindgen(js_name = _driverResultOf)]
pub fn driver_result_of(
    handle: u32,
    now_ms: &JsValue,
    attempt: &JsValue,
    outcome_value: &JsValue,
) -> Result<JsValue, JsValue> {
    let (now, attempt) = (number("nowMs", now_ms)?, number("attempt", attempt)?);
    let outcome = outcome(outcome_value)?; // before taking the table: it reads a JS object
    with(handle, |driver| driver.result(now, attempt, outcome))
}

/// How an attempt ended, as the parts `lib/outcomes.js` read (see
/// `outcome_from_parts`): the receipt or the `RetryplanError`.
#[wasm_bindgen(js_name = _driverResult)]
pub fn driver_result(handle: u32, now_ms: f64, attempt: f64, tag: u32, a: f64, b: Option<f64>) -> JsValue {
    either(
        outcome_from_parts(tag, a, b)
            .and_then(|outcome| with(handle, |driver| driver.result(now_ms, attempt, outcome))),
    )
}

/// `_driverResult` and then `_driverPoll` at the same time, in one call (for
/// an attempt that answered before the host's next poll): the next action,
/// or the `RetryplanError`. A discarded result is told by `resultDiscarded`.
#[wasm_bindgen(js_name = _driverResultPoll)]
pub fn driver_result_poll(handle: u32, now_ms: f64, attempt: f64, tag: u32, a: f64, b: Option<f64>) -> JsValue {
    let next = outcome_from_parts(tag, a, b).and_then(|outcome| {
        with(handle, |driver| {
            let now = ms_number("nowMs", now_ms)?;
            let attempt = attempt_number(attempt)?;
            if driver.inner.handle_result(now, attempt, outcome).map_err(js_error)? == Receipt::Discarded {
                js_result_discarded();
            }
            driver.action(now_ms, true)
        })
    });
    either(next)
}

/// The caller abandons the operation (nothing happens after the end).
#[wasm_bindgen(js_name = _driverCancel)]
pub fn driver_cancel(handle: u32, now_ms: &JsValue) -> Result<(), JsValue> {
    let now = ms("nowMs", now_ms)?;
    with(handle, |driver| {
        driver.inner.handle_cancel(now);
        Ok(())
    })
}

/// The oldest decision recorded and not yet read, or `undefined`.
#[wasm_bindgen(js_name = _driverEvent)]
pub fn driver_event(handle: u32) -> Result<JsValue, JsValue> {
    with(handle, |driver| match driver.inner.poll_event() {
        Some(event) => {
            Ok(js_decision_event(num(event.at_ms), decision(event.decision), attempt_result_js(event.after)?))
        }
        None => Ok(JsValue::UNDEFINED),
    })
}

/// The last result of the ending a poll returned, or `undefined`.
#[wasm_bindgen(js_name = _driverLastResult)]
pub fn driver_last_result(handle: u32) -> Result<JsValue, JsValue> {
    with(handle, |driver| attempt_result_js(driver.ending.and_then(|ending| ending.last_result)))
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
