//! The header readers (`lib/http.js`): Retry-After (strict RFC 9110, or
//! lenient), `retry-after-ms`, and the rate-limit headers (`RateLimit` with
//! `RateLimit-Policy`, `RateLimit-Reset`, `X-RateLimit-Reset`). Each answers
//! a number of ms, or the `RetryplanError` (`invalid_header`).

use alloc::string::String;

use retryplan as rp;
use wasm_bindgen::prelude::*;

use crate::{either, js_error, num};

/// The member at `index` of `T::ALL` (a name JS checked against the core's
/// table), or `T`'s default when absent.
pub(crate) fn named_or_default<T: rp::config::value::Named + Default + Copy>(index: Option<u32>) -> T {
    index.and_then(|index| T::ALL.get(index as usize).copied()).unwrap_or_default()
}

/// A header error as a `RetryplanError`.
pub(crate) fn header_error(error: rp::headers::retry_after::HeaderError) -> JsValue {
    js_error(error.into())
}

fn ms_js(result: Result<u64, rp::headers::retry_after::HeaderError>) -> JsValue {
    either(result.map(|ms| JsValue::from_f64(num(ms))).map_err(header_error))
}

/// A Retry-After value (delta-seconds or an HTTP-date) as ms from `nowUnixMs`,
/// read as `reading` says (its index in `RetryAfterReading::ALL`; the
/// default when absent).
#[wasm_bindgen(js_name = _parseRetryAfter)]
pub fn parse_retry_after(value: &str, now_unix_ms: f64, reading: Option<u32>) -> JsValue {
    ms_js(rp::headers::retry_after::parse_retry_after_with(value, now_unix_ms as u64, named_or_default(reading)))
}

/// A `retry-after-ms` value.
#[wasm_bindgen(js_name = _parseRetryAfterMs)]
pub fn parse_retry_after_ms(value: &str) -> JsValue {
    ms_js(rp::headers::retry_after::parse_retry_after_ms_header(value))
}

/// The wait in ms a `RateLimit` field asks for (with its `RateLimit-Policy`),
/// `undefined` when it asks for none.
#[wasm_bindgen(js_name = _parseRateLimit)]
pub fn parse_rate_limit(value: &str, policy: Option<String>) -> JsValue {
    either(
        rp::headers::rate_limit::parse_rate_limit(value, policy.as_deref())
            .map(|wait| wait.map_or(JsValue::UNDEFINED, |ms| JsValue::from_f64(num(ms))))
            .map_err(header_error),
    )
}

/// The wait in ms a `RateLimit-Reset` / `X-RateLimit-Reset` value asks for from `nowUnixMs`.
#[wasm_bindgen(js_name = _parseRateLimitReset)]
pub fn parse_rate_limit_reset(value: &str, now_unix_ms: f64) -> JsValue {
    ms_js(rp::headers::rate_limit::parse_rate_limit_reset(value, now_unix_ms as u64))
}
