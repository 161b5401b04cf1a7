//! Reading JS arguments: times, whole numbers, strings, names and outcomes.
//!
//! Nothing is coerced: a time is a JS number (never `null`, `'0'` or `true`,
//! which JS would silently turn into 0 or 1), a string is a JS string (never a
//! number turned into text), and each refusal is a `RetryplanError`
//! (`invalid_argument`) naming the argument. Strings are bounded before they
//! are copied into wasm memory, so no argument can exhaust it (a trap would
//! leave the object it was passed to unusable), and a lone surrogate, which
//! the copy would silently replace with U+FFFD, is refused instead.
//!
//! A refusal names its rule by a key of `lib/messages.js` (`BINDING`) and
//! hands over the value it refused: the words are composed there, outside
//! the wasm.

use alloc::string::String;

use js_sys::{Array, JsString, Reflect};
use retryplan::value::Named;
use retryplan::{GrpcCode, Outcome, Pushback};
use wasm_bindgen::{JsCast, JsValue};

use crate::{invalid, invalid_with, is_well_formed, js_error, MAX_SAFE};

/// The longest string accepted from JS, in UTF-16 code units (1 MiB of
/// ASCII): far above any real name, header value or policy file, far below
/// what could exhaust wasm memory.
pub(crate) const MAX_TEXT: u32 = 1 << 20;

/// A JS number, never coerced from another type.
pub(crate) fn number(name: &'static str, value: &JsValue) -> Result<f64, JsValue> {
    value.as_f64().ok_or_else(|| invalid_with(name, "number", value, &JsValue::UNDEFINED))
}

/// A JS number as whole milliseconds: floored; NaN, infinities, negatives and
/// values above 2^53-1 are refused.
pub(crate) fn ms_number(name: &'static str, value: f64) -> Result<u64, JsValue> {
    if value.is_finite() && (0.0..=MAX_SAFE).contains(&value) {
        // In range and finite, so the conversion is exact after flooring
        // (a cast truncates, which floors a number >= 0).
        Ok(value as u64)
    } else {
        Err(invalid_with(name, "ms", &JsValue::from_f64(value), &JsValue::UNDEFINED))
    }
}

/// A JS argument that is a time or duration in milliseconds (see [`ms_number`]).
#[cfg(feature = "tools")]
pub(crate) fn ms(name: &'static str, value: &JsValue) -> Result<u64, JsValue> {
    ms_number(name, number(name, value)?)
}

/// An optional time: `undefined` and `null` are absent.
#[cfg(feature = "tools")]
pub(crate) fn optional_ms(name: &'static str, value: &JsValue) -> Result<Option<u64>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    ms(name, value).map(Some)
}

/// A JS number that must be a whole number in `0..=max` (no flooring).
pub(crate) fn whole_number(name: &'static str, value: f64, max: f64) -> Result<u64, JsValue> {
    if value.is_finite() && value == (value as u64) as f64 && (0.0..=max).contains(&value) {
        Ok(value as u64)
    } else {
        Err(invalid_with(name, "whole", &JsValue::from_f64(value), &JsValue::from_f64(max)))
    }
}

/// A JS argument that must be a whole number in `0..=max`.
#[cfg(feature = "tools")]
pub(crate) fn whole(name: &'static str, value: &JsValue, max: f64) -> Result<u64, JsValue> {
    whole_number(name, number(name, value)?, max)
}

#[cfg(feature = "tools")]
pub(crate) fn attempt_number(value: f64) -> Result<u32, JsValue> {
    whole_number("attempt", value, f64::from(u32::MAX)).map(|attempt| attempt as u32)
}

/// Why a JS string cannot be read as Rust text, if it cannot: the key of the
/// rule and its value (it is longer than [`MAX_TEXT`] or holds a lone
/// surrogate). Checked before the copy.
pub(crate) fn unreadable(string: &JsString) -> Option<(&'static str, JsValue)> {
    let length = string.length();
    if length > MAX_TEXT {
        return Some(("long", JsValue::from(length)));
    }
    if !is_well_formed(string) {
        return Some(("surrogate", JsValue::UNDEFINED));
    }
    None
}

/// A JS argument that must be a string (see [`unreadable`]), checked but not copied.
pub(crate) fn checked_string<'a>(name: &'static str, value: &'a JsValue) -> Result<&'a JsString, JsValue> {
    let Some(string) = value.dyn_ref::<JsString>() else {
        return Err(invalid_with(name, "string", value, &JsValue::UNDEFINED));
    };
    match unreadable(string) {
        Some((rule, detail)) => Err(invalid_with(name, rule, &detail, &JsValue::from(MAX_TEXT))),
        None => Ok(string),
    }
}

/// A JS argument that must be a string (see [`unreadable`]), copied into Rust.
pub(crate) fn text(name: &'static str, value: &JsValue) -> Result<String, JsValue> {
    checked_string(name, value).map(String::from)
}

/// An optional string: `undefined` and `null` are absent.
#[cfg(feature = "tools")]
pub(crate) fn optional_text(name: &'static str, value: &JsValue) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    text(name, value).map(Some)
}

/// The property names and tags read on every call, as JS strings made once
/// (making a JS string from Rust costs more than a decision).
const KEY_NAMES: [&str; 7] = ["type", "status", "retryAfterMs", "http_status", "success", "seed", "errorCode"];

/// The JS strings of [`KEY_NAMES`], made on first use.
static KEYS: crate::Global<core::cell::OnceCell<[JsValue; 7]>> = crate::Global(core::cell::OnceCell::new());

/// Calls `use_key` with `name` as a JS string: cached for the names in `KEY_NAMES`.
fn with_key<T>(name: &'static str, use_key: impl FnOnce(&JsValue) -> T) -> T {
    let keys = KEYS.0.get_or_init(|| KEY_NAMES.map(JsValue::from_str));
    match KEY_NAMES.iter().position(|known| core::ptr::eq(*known, name) || *known == name).and_then(|at| keys.get(at)) {
        Some(key) => use_key(key),
        None => use_key(&JsValue::from_str(name)),
    }
}

/// True when `value` is the JS string `name` (no copy into Rust).
fn is_str(value: &JsValue, name: &'static str) -> bool {
    with_key(name, |key| value == key)
}

/// Property `key` of `object` (an options or outcome object).
pub(crate) fn get(object: &JsValue, key: &'static str) -> Result<JsValue, JsValue> {
    if !object.is_object() {
        return Err(invalid_with("options", "options", object, &JsValue::from_str(key)));
    }
    with_key(key, |name| Reflect::get(object, name))
}

/// Property `key` as a number, `None` when `undefined` or `null`.
pub(crate) fn optional_number(object: &JsValue, key: &'static str) -> Result<Option<f64>, JsValue> {
    let value = get(object, key)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    number(key, &value).map(Some)
}

pub(crate) fn string_field(object: &JsValue, key: &'static str) -> Result<String, JsValue> {
    text(key, &get(object, key)?)
}

/// The names of `T`'s variants as a JS array (for a message).
pub(crate) fn names_js<T: Named>() -> JsValue {
    T::ALL.iter().map(|variant| JsValue::from_str(variant.name())).collect::<Array>().into()
}

/// A snake_case name read into a core enum by the core's own names.
pub(crate) fn named<T: Named>(key: &'static str, name: &str) -> Result<T, JsValue> {
    T::from_name(name).ok_or_else(|| invalid_with(key, "name", &JsValue::from_str(name), &names_js::<T>()))
}

fn grpc_code(name: &str) -> Result<GrpcCode, JsValue> {
    GrpcCode::ALL
        .into_iter()
        .find(|code| code.name() == name)
        .ok_or_else(|| invalid_with("code", "grpc_code", &JsValue::from_str(name), &JsValue::UNDEFINED))
}

fn pushback(value: &JsValue) -> Result<Option<Pushback>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if value.is_string() && text("pushback", value)? == "do_not_retry" {
        return Ok(Some(Pushback::DoNotRetry));
    }
    match value.is_object().then(|| optional_number(value, "retryAfterMs")) {
        Some(Ok(Some(delay))) => Ok(Some(Pushback::RetryAfterMs(ms_number("pushback.retryAfterMs", delay)?))),
        _ => Err(invalid("pushback", "pushback")),
    }
}

/// An `http_status` outcome from its `status` (absent is an error) and, read
/// only once the status is valid, its optional `retryAfterMs`.
pub(crate) fn http_status(
    status: Option<f64>,
    retry_after_ms: impl FnOnce() -> Result<Option<f64>, JsValue>,
) -> Result<Outcome, JsValue> {
    let status = status.ok_or_else(|| invalid("status", "required"))?;
    let status = whole_number("status", status, f64::from(u16::MAX))? as u16;
    let retry_after_ms = retry_after_ms()?.map(|v| ms_number("retryAfterMs", v)).transpose()?;
    Ok(Outcome::HttpStatus { status, retry_after_ms, error_code: None })
}

/// An `http_status` outcome object's optional `errorCode` (the service's
/// error code, AWS), checked by the core's `ErrorCode::new`.
fn with_error_code(outcome: Outcome, value: &JsValue) -> Result<Outcome, JsValue> {
    let code = get(value, "errorCode")?;
    if code.is_undefined() || code.is_null() {
        return Ok(outcome);
    }
    let code = retryplan::aws::ErrorCode::new(&text("errorCode", &code)?).map_err(js_error)?;
    Ok(outcome.with_error_code(Some(code)))
}

/// A JS outcome object (`{type: "http_status", status, retryAfterMs?}`, ...) as a core `Outcome`.
pub(crate) fn outcome(value: &JsValue) -> Result<Outcome, JsValue> {
    let kind = get(value, "type")?;
    // The common tags are compared as JS strings; the rest are read into Rust.
    if is_str(&kind, "http_status") {
        let outcome = http_status(optional_number(value, "status")?, || optional_number(value, "retryAfterMs"))?;
        return with_error_code(outcome, value);
    }
    if is_str(&kind, "success") {
        return Ok(Outcome::Success);
    }
    Ok(match text("type", &kind)?.as_str() {
        "grpc_status" => Outcome::GrpcStatus {
            code: grpc_code(&string_field(value, "code")?)?,
            pushback: pushback(&get(value, "pushback")?)?,
        },
        "transport" => Outcome::Transport {
            failure: named("failure", &string_field(value, "failure")?)?,
            retry_after_ms: optional_number(value, "retryAfterMs")?
                .map(|v| ms_number("retryAfterMs", v))
                .transpose()?,
        },
        "application" => Outcome::Application { verdict: named("verdict", &string_field(value, "verdict")?)? },
        "cancelled" => Outcome::Cancelled,
        _ => return Err(invalid_with("outcome.type", "outcome_type", &kind, &JsValue::UNDEFINED)),
    })
}
