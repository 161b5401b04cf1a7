//! What hosts read with the driver: outcomes as JS objects, the failure
//! vocabulary, HTTP responses through a header lookup, and the names the fast
//! paths pass as indexes.

use js_sys::{Array, Function, Reflect};
use retryplan as rp;
use rp::value::Named;
use rp::{AttemptResult, Outcome, Pushback};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use alloc::string::String;
use alloc::vec::Vec;

use crate::args::{ms, named, optional_text, text, whole};
use crate::{invalid, invalid_with, js_http_outcome, num, MAX_SAFE};

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    #[wasm_bindgen(js_name = attemptResult)]
    fn js_attempt_result(attempt: u32, outcome: JsValue) -> JsValue;
    /// `{type}`, or `{type, [key]: name}` when `key` is not empty.
    #[wasm_bindgen(js_name = namedOutcome)]
    fn js_named_outcome(kind: &str, key: &str, name: &str) -> JsValue;
    /// `{type: "grpc_status", code, pushback?}`: `{retryAfterMs}` or `"do_not_retry"` (`declined`).
    #[wasm_bindgen(js_name = grpcOutcome)]
    fn js_grpc_outcome(code: &str, retry_after_ms: Option<f64>, declined: bool) -> JsValue;
}

/// An outcome as a plain JS object, through a factory (no serde).
pub(crate) fn outcome_js(outcome: &Outcome) -> Result<JsValue, JsValue> {
    Ok(match *outcome {
        Outcome::Success => js_named_outcome("success", "", ""),
        Outcome::HttpStatus { status, retry_after_ms, error_code } => {
            js_http_outcome(status, retry_after_ms.map(num), error_code.as_ref().map(rp::aws::ErrorCode::as_str))
        }
        Outcome::GrpcStatus { code, pushback } => {
            let (delay, declined) = match pushback {
                None => (None, false),
                Some(Pushback::RetryAfterMs(ms)) => (Some(num(ms)), false),
                Some(Pushback::DoNotRetry) => (None, true),
            };
            js_grpc_outcome(code.name(), delay, declined)
        }
        Outcome::Transport { failure } => js_named_outcome("transport", "failure", failure.name()),
        Outcome::Application { verdict } => js_named_outcome("application", "verdict", verdict.name()),
        Outcome::Cancelled => js_named_outcome("cancelled", "", ""),
    })
}

/// `{attempt, outcome}`, or `undefined`.
pub(crate) fn attempt_result_js(result: Option<AttemptResult>) -> Result<JsValue, JsValue> {
    match result {
        Some(AttemptResult { attempt, outcome }) => Ok(js_attempt_result(attempt, outcome_js(&outcome)?)),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// The names the fast paths pass as indexes, in the core's order, and the
/// give-up reasons in the order of `Stats#_counts`:
/// `[transport failures, verdicts, failures, give-up reasons]`. Internal.
#[wasm_bindgen(js_name = _names)]
pub fn names() -> Array {
    fn list<T: Named>() -> JsValue {
        T::ALL.iter().map(|variant| JsValue::from_str(variant.name())).collect::<Array>().into()
    }
    [list::<rp::TransportFailure>(), list::<rp::Verdict>(), list::<rp::Failure>(), list::<rp::GiveUpReason>()]
        .into_iter()
        .collect()
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
        let get = get.dyn_ref::<Function>().ok_or_else(|| invalid("headers", "header_lookup"))?;
        get.call1(lookup, &name)?
    } else {
        return Err(invalid_with("headers", "headers", lookup, &JsValue::UNDEFINED));
    };
    if !value.is_string() && !value.is_null() && !value.is_undefined() {
        return Err(invalid_with("headers", "header_value", &value, &JsValue::UNDEFINED));
    }
    optional_text("headers", &value)
}

/// An HTTP response as an outcome, read by the core as in every language: a
/// status outside 100..=599 is a malformed response (the server's fault: the
/// request may have been processed); otherwise the guidance headers
/// (`GUIDANCE_HEADERS`, in that order) through `headers`, HTTP-dates against
/// `nowUnixMs`; Retry-After read as `reading` says (`"strict"`, the default,
/// or `"lenient"`).
#[wasm_bindgen(js_name = outcomeFromHttpResponse)]
pub fn outcome_from_http_response(
    status: &JsValue,
    headers: &JsValue,
    now_unix_ms: &JsValue,
    reading: &JsValue,
) -> Result<JsValue, JsValue> {
    // Any whole number is a status a server may send; past u16 it is as far
    // outside 100..=599 as 65535 is.
    let status = u16::try_from(whole("status", status, MAX_SAFE)?).unwrap_or(u16::MAX);
    let now_unix = ms("nowUnixMs", now_unix_ms)?;
    let reading = crate::http_dialect::reading(reading)?;
    response_outcome(status, headers, now_unix, reading)
}

/// An HTTP response as an outcome under `policy`: Retry-After read as its
/// `server_guidance.retry_after_reading` says (what `retryFetch` hands the
/// driver). Internal.
#[wasm_bindgen(js_name = _policyHttpOutcome)]
pub fn policy_http_outcome(
    policy: &crate::Policy,
    status: &JsValue,
    headers: &JsValue,
    now_unix_ms: &JsValue,
) -> Result<JsValue, JsValue> {
    let status = u16::try_from(whole("status", status, MAX_SAFE)?).unwrap_or(u16::MAX);
    let now_unix = ms("nowUnixMs", now_unix_ms)?;
    response_outcome(status, headers, now_unix, policy.0.server_guidance().retry_after_reading)
}

fn response_outcome(
    status: u16,
    headers: &JsValue,
    now_unix: u64,
    reading: rp::RetryAfterReading,
) -> Result<JsValue, JsValue> {
    let mut values = Vec::with_capacity(rp::GUIDANCE_HEADERS.len());
    for name in rp::GUIDANCE_HEADERS {
        values.push((name, header(headers, name)?));
    }
    let lookup = |wanted: &str| values.iter().find(|(name, _)| *name == wanted).and_then(|(_, value)| value.as_deref());
    outcome_js(&Outcome::from_http_response_with(status, lookup, now_unix, reading))
}
