//! The HTTP clients' dialects: how Retry-After is read (strict RFC 9110 or
//! lenient), and the rate-limit headers (`RateLimit`/`RateLimit-Policy`,
//! `RateLimit-Reset`, `X-RateLimit-Reset`).

use retryplan as rp;
use rp::value::Named;
use wasm_bindgen::prelude::*;

use crate::args::{ms, optional_text, text};
use crate::{header_error, invalid_with, num};

/// `"strict"` (RFC 9110, the default when absent) or `"lenient"`.
pub(crate) fn reading(value: &JsValue) -> Result<rp::RetryAfterReading, JsValue> {
    match optional_text("reading", value)? {
        None => Ok(rp::RetryAfterReading::Strict),
        Some(name) => rp::RetryAfterReading::from_name(&name)
            .ok_or_else(|| invalid_with("reading", "reading", &JsValue::from_str(&name), &JsValue::UNDEFINED)),
    }
}

/// The wait in ms a `RateLimit` field asks for (with its `RateLimit-Policy`,
/// `null` or `undefined` when absent), or `undefined` when it asks for none.
#[wasm_bindgen(js_name = parseRateLimit)]
pub fn parse_rate_limit(value: &JsValue, policy_value: &JsValue) -> Result<Option<f64>, JsValue> {
    let value = text("value", value)?;
    let policy = optional_text("policyValue", policy_value)?;
    rp::parse_rate_limit(&value, policy.as_deref()).map(|wait| wait.map(num)).map_err(header_error)
}

/// The wait in ms a `RateLimit-Reset` / `X-RateLimit-Reset` value asks for
/// (delta-seconds below 1e9, a Unix time from it) from `nowUnixMs`.
#[wasm_bindgen(js_name = parseRateLimitReset)]
pub fn parse_rate_limit_reset(value: &JsValue, now_unix_ms: &JsValue) -> Result<f64, JsValue> {
    let value = text("value", value)?;
    let now = ms("nowUnixMs", now_unix_ms)?;
    rp::parse_rate_limit_reset(&value, now).map(num).map_err(header_error)
}
