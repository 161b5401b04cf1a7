//! What hosts read with the driver (`lib/http.js`): outcomes as JS
//! objects, the failure vocabulary, HTTP responses from the values of their
//! guidance headers, and the names the fast paths pass as indexes.

use retryplan as rp;
use rp::value::Named;
use rp::{AttemptResult, Outcome, Pushback};
use wasm_bindgen::prelude::*;

use alloc::string::String;
use alloc::vec::Vec;

use crate::num;

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    #[wasm_bindgen(js_name = httpOutcome)]
    fn js_http_outcome(status: u16, retry_after_ms: Option<f64>, error_code: Option<&str>) -> JsValue;
    #[wasm_bindgen(js_name = attemptResult)]
    fn js_attempt_result(attempt: u32, outcome: JsValue) -> JsValue;
    /// `{type}`, or `{type, [key]: name}` when `key` is not empty.
    #[wasm_bindgen(js_name = namedOutcome)]
    fn js_named_outcome(kind: &str, key: &str, name: &str) -> JsValue;
    /// `{type: "transport", failure, retryAfterMs?}`.
    #[wasm_bindgen(js_name = transportOutcome)]
    fn js_transport_outcome(failure: &str, retry_after_ms: Option<f64>) -> JsValue;
    /// `{type: "grpc_status", code, pushback?}`: `{retryAfterMs}` or `"do_not_retry"` (`declined`).
    #[wasm_bindgen(js_name = grpcOutcome)]
    fn js_grpc_outcome(code: &str, retry_after_ms: Option<f64>, declined: bool) -> JsValue;
}

/// An outcome as a plain JS object, through a factory (no serde).
pub(crate) fn outcome_js(outcome: &Outcome) -> JsValue {
    match *outcome {
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
        Outcome::Transport { failure, retry_after_ms } => js_transport_outcome(failure.name(), retry_after_ms.map(num)),
        Outcome::Application { verdict } => js_named_outcome("application", "verdict", verdict.name()),
        Outcome::Cancelled => js_named_outcome("cancelled", "", ""),
    }
}

/// `{attempt, outcome}`, or `undefined`.
pub(crate) fn attempt_result_js(result: Option<AttemptResult>) -> Result<JsValue, JsValue> {
    match result {
        Some(AttemptResult { attempt, outcome }) => Ok(js_attempt_result(attempt, outcome_js(&outcome))),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// What failure `index` of the vocabulary (`Failure::ALL`, `_names()[2]`)
/// means to the engine, as an outcome.
#[wasm_bindgen(js_name = _outcomeOfFailure)]
pub fn outcome_of_failure(index: u32) -> JsValue {
    let failure = rp::Failure::ALL.get(index as usize).copied().unwrap_or(rp::Failure::Cancelled);
    outcome_js(&failure.outcome())
}

/// An HTTP response as an outcome: `status` (checked by `lib/http.js`
/// to be a whole number <= 65535), and the raw `Retry-After` and
/// `retry-after-ms` values, read by the core against `nowUnixMs`.
#[wasm_bindgen(js_name = _outcomeFromHttp)]
pub fn outcome_from_http(
    status: u32,
    retry_after: Option<String>,
    retry_after_ms: Option<String>,
    now_unix_ms: f64,
) -> JsValue {
    let status = u16::try_from(status).unwrap_or(u16::MAX);
    outcome_js(&Outcome::from_http(status, retry_after.as_deref(), retry_after_ms.as_deref(), now_unix_ms as u64))
}

/// An HTTP response as an outcome, read by the core as in every language: a
/// status outside 100..=599 is a malformed response (the server's fault);
/// otherwise `values` holds the guidance headers (`GUIDANCE_HEADERS`, in that
/// order: a string, or `null` when absent), HTTP-dates against `nowUnixMs`,
/// Retry-After read as `reading` says (its index in `RetryAfterReading::ALL`).
#[wasm_bindgen(js_name = _outcomeFromResponse)]
pub fn outcome_from_response(status: f64, values: Vec<JsValue>, now_unix_ms: f64, reading: Option<u32>) -> JsValue {
    response_outcome(status, &values, now_unix_ms, crate::headers::named_or_default(reading))
}

fn response_outcome(status: f64, values: &[JsValue], now_unix_ms: f64, reading: rp::RetryAfterReading) -> JsValue {
    // Any whole number is a status a server may send (`lib/http.js` checked
    // it is one): the core reads it as it is.
    let values = guidance_lookup(values);
    outcome_js(&Outcome::from_http_response_with(status as i64, |name| values.get(name), now_unix_ms as u64, reading))
}

/// The values of the guidance headers, given in `GUIDANCE_HEADERS` order (a
/// string, or anything else for an absent header), looked up by name.
pub(crate) struct Guidance(Vec<Option<String>>);

impl Guidance {
    pub(crate) fn get(&self, wanted: &str) -> Option<&str> {
        let at = rp::GUIDANCE_HEADERS.iter().position(|name| *name == wanted)?;
        self.0.get(at)?.as_deref()
    }
}

pub(crate) fn guidance_lookup(values: &[JsValue]) -> Guidance {
    Guidance(values.iter().map(JsValue::as_string).collect())
}
