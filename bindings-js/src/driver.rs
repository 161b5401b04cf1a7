//! `Driver`: the host loop decided by the core (actions out, results in),
//! and what hosts read with it: the failure vocabulary, HTTP responses
//! through a header lookup, and the HTTP header names.

use js_sys::{Array, Function, Reflect};
use retryplan as rp;
use rp::value::Named;
use rp::{Action, AttemptPlan, AttemptResult, Concurrency, Ending, Outcome, Receipt, Repeatability};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::args::{
    attempt_number, get, kind_of, ms, ms_number, named, number, optional_flag, optional_text, outcome,
    outcome_from_parts, text, whole,
};
use crate::decisions::{decision, to_js};
use crate::operation::operation_options;
use crate::{either, invalid, js_error, js_http_outcome, num, Dependency, Policy, Stats, MAX_SAFE};

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    #[wasm_bindgen(js_name = startAction)]
    #[allow(clippy::too_many_arguments)]
    fn js_start_action(
        attempt: u32,
        timeout_ms: f64,
        abort_at_ms: f64,
        id_high: u32,
        id_low: u32,
        remaining: f64,
        hedge: bool,
        send_idempotency_key: bool,
    ) -> JsValue;
    #[wasm_bindgen(js_name = abortAction)]
    fn js_abort_action(attempt: u32, reason: &str) -> JsValue;
    #[wasm_bindgen(js_name = sleepAction)]
    fn js_sleep_action(until_ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = finishAction)]
    fn js_finish_action(decision: JsValue, last_result: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = attemptResult)]
    fn js_attempt_result(attempt: u32, outcome: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = decisionEvent)]
    fn js_decision_event(at_ms: f64, decision: JsValue, after: JsValue) -> JsValue;
}

thread_local! {
    /// The receipts as JS strings, made once.
    static RECEIPTS: (JsValue, JsValue) = (JsValue::from_str(Receipt::Accepted.name()), JsValue::from_str(Receipt::Discarded.name()));
}

fn receipt_js(receipt: Receipt) -> JsValue {
    RECEIPTS.with(|(accepted, discarded)| match receipt {
        Receipt::Accepted => accepted.clone(),
        Receipt::Discarded => discarded.clone(),
    })
}

/// An outcome as a plain JS object (HTTP statuses through their factory).
pub(crate) fn outcome_js(outcome: &Outcome) -> Result<JsValue, JsValue> {
    match *outcome {
        Outcome::HttpStatus { status, retry_after_ms } => Ok(js_http_outcome(status, retry_after_ms.map(num))),
        other => to_js(&other),
    }
}

fn attempt_result_js(result: Option<AttemptResult>) -> Result<JsValue, JsValue> {
    match result {
        Some(AttemptResult { attempt, outcome }) => Ok(js_attempt_result(attempt, outcome_js(&outcome)?)),
        None => Ok(JsValue::UNDEFINED),
    }
}

fn start_js(plan: AttemptPlan) -> JsValue {
    // The request id's two 32-bit halves, spelt by JS as the core's 16 hex digits.
    let id = plan.request_id.0;
    js_start_action(
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
            return Err(invalid(
                "concurrency",
                format!("unknown name \"{other}\" (one of concurrent, sequential, sequential_without_hedging)"),
            ))
        }
    })
}

/// The host loop of one operation: `pollAction` hands out one action at a
/// time, `handleResult` takes each attempt's outcome as it arrives.
#[wasm_bindgen]
pub struct Driver {
    inner: rp::Driver,
    /// The ending, once a poll returned it (for `_lastResult`).
    ending: Option<Ending>,
}

#[wasm_bindgen]
impl Driver {
    /// Starts an operation at `nowMs` run by a host. `options` is the
    /// operation's (see `operation_options`) plus `method` and `idempotent`
    /// (the request's repeatability), `concurrency` and `recordEvents`.
    /// Called by `lib/driver.js`, which passes handles it made for this call
    /// (`dependency`, `stats`) and the random words.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)] // the random words cross as numbers: no array to copy
    pub fn new(
        policy: &Policy,
        now_ms: &JsValue,
        options: &JsValue,
        dependency: Option<Dependency>,
        stats: Option<Stats>,
        r0: u32,
        r1: u32,
        r2: u32,
        r3: u32,
        r4: u32,
        r5: u32,
    ) -> Result<Driver, JsValue> {
        let now = ms("nowMs", now_ms)?;
        let mut operation = operation_options(options, dependency, [r0, r1, r2, r3, r4, r5])?;
        let mut host = rp::DriverOptions { stats: stats.map(|stats| stats.0), ..rp::DriverOptions::default() };
        if !options.is_undefined() && !options.is_null() {
            let idempotent = optional_flag("idempotent", &get(options, "idempotent")?)?;
            match optional_text("method", &get(options, "method")?)? {
                Some(method) => {
                    let repeatability = Repeatability::for_http(&method, idempotent).map_err(js_error)?;
                    operation = operation.with_repeatability(repeatability);
                }
                None if idempotent.is_some() => {
                    return Err(invalid(
                        "idempotent",
                        "says whether a request may be repeated: give its `method`".into(),
                    ))
                }
                None => {}
            }
            host.concurrency = concurrency(&get(options, "concurrency")?)?;
            host.record_events = optional_flag("recordEvents", &get(options, "recordEvents")?)?.unwrap_or(false);
        }
        let inner = rp::Driver::new(&policy.0, now, operation, host).map_err(js_error)?;
        Ok(Driver { inner, ending: None })
    }

    fn action(&mut self, now_ms: f64, with_last_result: bool) -> Result<JsValue, JsValue> {
        let now = ms_number("nowMs", now_ms)?;
        Ok(match self.inner.poll_action(now) {
            Action::StartAttempt(plan) => start_js(plan),
            Action::AbortAttempt { attempt, reason } => js_abort_action(attempt, reason.name()),
            Action::Sleep { until_ms } => js_sleep_action(num(until_ms)),
            Action::Finish(ending) => {
                self.ending = Some(ending);
                let last = if with_last_result { attempt_result_js(ending.last_result)? } else { JsValue::UNDEFINED };
                js_finish_action(decision(ending.decision), last)
            }
        })
    }

    /// What to do now: `{type: "start_attempt", ...plan}`, `{type:
    /// "abort_attempt", attempt, reason}`, `{type: "sleep", untilMs}` or
    /// `{type: "finish", decision, lastResult?}`.
    #[wasm_bindgen(js_name = pollAction)]
    pub fn poll_action(&mut self, now_ms: &JsValue) -> Result<JsValue, JsValue> {
        self.action(number("nowMs", now_ms)?, true)
    }

    /// `pollAction` for `lib/host.js`: the action (a finish without its
    /// `lastResult`, see `_lastResult`) or the `RetryplanError`. Internal.
    #[wasm_bindgen(js_name = _pollAction)]
    pub fn poll_action_fast(&mut self, now_ms: f64) -> JsValue {
        either(self.action(now_ms, false))
    }

    /// The last result of the ending a poll returned, or `undefined`. Internal.
    #[wasm_bindgen(js_name = _lastResult)]
    pub fn last_result(&self) -> Result<JsValue, JsValue> {
        attempt_result_js(self.ending.and_then(|ending| ending.last_result))
    }

    fn result(&mut self, now_ms: f64, attempt: f64, outcome: Result<Outcome, JsValue>) -> Result<JsValue, JsValue> {
        let now = ms_number("nowMs", now_ms)?;
        let attempt = attempt_number(attempt)?;
        self.inner.handle_result(now, attempt, outcome?).map(receipt_js).map_err(js_error)
    }

    /// How attempt `attempt` ended: `"accepted"` (keep what it carried) or
    /// `"discarded"` (dispose of it: the attempt had already timed out or
    /// been aborted, or the operation had ended).
    #[wasm_bindgen(js_name = handleResult)]
    pub fn handle_result(
        &mut self,
        now_ms: &JsValue,
        attempt: &JsValue,
        outcome_value: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = number("nowMs", now_ms)?;
        let attempt = number("attempt", attempt)?;
        self.result(now, attempt, outcome(outcome_value))
    }

    /// `handleResult` with the outcome's parts (see `outcome_from_parts`):
    /// the receipt or the `RetryplanError`. Internal.
    #[wasm_bindgen(js_name = _handleResult)]
    pub fn handle_result_parts(&mut self, now_ms: f64, attempt: f64, tag: u32, a: f64, b: Option<f64>) -> JsValue {
        either(self.result(now_ms, attempt, outcome_from_parts(tag, a, b)))
    }

    /// The caller abandons the operation: it gives up (`cancelled`) and the
    /// next polls abort every running attempt. Nothing happens after the end.
    #[wasm_bindgen(js_name = handleCancel)]
    pub fn handle_cancel(&mut self, now_ms: &JsValue) -> Result<(), JsValue> {
        self.inner.handle_cancel(ms("nowMs", now_ms)?);
        Ok(())
    }

    /// The oldest decision recorded (`recordEvents`) and not yet read, as
    /// `{atMs, decision, after?: {attempt, outcome}}`, or `undefined`.
    #[wasm_bindgen(js_name = pollEvent)]
    pub fn poll_event(&mut self) -> Result<JsValue, JsValue> {
        match self.inner.poll_event() {
            Some(event) => {
                Ok(js_decision_event(num(event.at_ms), decision(event.decision), attempt_result_js(event.after)?))
            }
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The operation's idempotency key (the same on every attempt).
    #[wasm_bindgen(getter, js_name = idempotencyKey)]
    pub fn idempotency_key(&self) -> String {
        self.inner.idempotency_key().to_string()
    }

    /// The operation's deadline: `min(start + totalBudgetMs, deadlineMs)`.
    #[wasm_bindgen(getter, js_name = deadlineMs)]
    pub fn deadline_ms(&self) -> f64 {
        num(self.inner.operation().deadline_ms())
    }

    /// Attempts started so far (hedges included).
    #[wasm_bindgen(getter, js_name = attemptsStarted)]
    pub fn attempts_started(&self) -> u32 {
        self.inner.operation().attempts_started()
    }

    /// True once the operation has ended (the next polls finish, after any aborts).
    #[wasm_bindgen(getter, js_name = isEnded)]
    pub fn is_ended(&self) -> bool {
        self.inner.is_ended()
    }
}

/// The names the fast paths pass as indexes, in the core's order:
/// `[transport failures, verdicts, failures]`. Internal.
#[wasm_bindgen(js_name = _names)]
pub fn names() -> Array {
    fn list<T: Named>() -> JsValue {
        T::ALL.iter().map(|variant| JsValue::from_str(variant.name())).collect::<Array>().into()
    }
    [list::<rp::TransportFailure>(), list::<rp::Verdict>(), list::<rp::Failure>()].into_iter().collect()
}

/// The core's HTTP header names: `[GUIDANCE_HEADERS, IDEMPOTENCY_KEY_HEADER,
/// REQUEST_ID_HEADER]`. Internal: `lib/constants.js` exports them.
#[wasm_bindgen(js_name = _headers)]
pub fn headers() -> Array {
    let guidance: Array = rp::GUIDANCE_HEADERS.iter().map(|name| JsValue::from_str(name)).collect();
    [guidance.into(), JsValue::from_str(rp::IDEMPOTENCY_KEY_HEADER), JsValue::from_str(rp::REQUEST_ID_HEADER)]
        .into_iter()
        .collect()
}

/// What a failure of the vocabulary (`"dns_lookup_failed"`, ...) means to the
/// engine, as an outcome.
#[wasm_bindgen(js_name = outcomeOfFailure)]
pub fn outcome_of_failure(failure: &JsValue) -> Result<JsValue, JsValue> {
    outcome_js(&named::<rp::Failure>("failure", &text("failure", failure)?)?.outcome())
}

/// The value of header `name` through `lookup`: a function of the lower-case
/// name, or an object with a `get` method (`Headers`, a `Map`); a string,
/// `null` or `undefined`.
fn header(lookup: &JsValue, name: &str) -> Result<Option<String>, JsValue> {
    let name = JsValue::from_str(name);
    let value = if let Some(function) = lookup.dyn_ref::<Function>() {
        function.call1(&JsValue::UNDEFINED, &name)?
    } else if lookup.is_object() {
        let get = Reflect::get(lookup, &JsValue::from_str("get"))?;
        let get = get.dyn_ref::<Function>().ok_or_else(|| {
            invalid("headers", "must be a function of the header name, or have a `get` method (Headers)".into())
        })?;
        get.call1(lookup, &name)?
    } else {
        return Err(invalid("headers", format!("must be a Headers object or a function, got {}", kind_of(lookup))));
    };
    if !value.is_string() && !value.is_null() && !value.is_undefined() {
        return Err(invalid(
            "headers",
            format!("a header value must be a string, null or undefined, got {}", kind_of(&value)),
        ));
    }
    optional_text("headers", &value)
}

/// An HTTP response as an outcome, read by the core as in every language: a
/// status outside 100..=599 is a malformed response (the server's fault: the
/// request may have been processed); otherwise the guidance headers
/// (`GUIDANCE_HEADERS`, in that order) through `headers`, HTTP-dates against
/// `nowUnixMs`.
#[wasm_bindgen(js_name = outcomeFromHttpResponse)]
pub fn outcome_from_http_response(
    status: &JsValue,
    headers: &JsValue,
    now_unix_ms: &JsValue,
) -> Result<JsValue, JsValue> {
    // Any whole number is a status a server may send; past u16 it is as far
    // outside 100..=599 as 65535 is.
    let status = u16::try_from(whole("status", status, MAX_SAFE)?).unwrap_or(u16::MAX);
    let now_unix = ms("nowUnixMs", now_unix_ms)?;
    let mut values = Vec::with_capacity(rp::GUIDANCE_HEADERS.len());
    for name in rp::GUIDANCE_HEADERS {
        values.push((name, header(headers, name)?));
    }
    let lookup = |wanted: &str| values.iter().find(|(name, _)| *name == wanted).and_then(|(_, value)| value.as_deref());
    outcome_js(&Outcome::from_http_response(status, lookup, now_unix))
}
