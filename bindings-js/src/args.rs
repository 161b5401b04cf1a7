//! Reading JS arguments: times, whole numbers, strings and names (and, for
//! the wasm's object path, outcomes, read by `lib/outcomes.js`).
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

#[cfg(feature = "tools")]
use alloc::string::String;

use js_sys::Array;
#[cfg(feature = "config")]
use js_sys::JsString;
use retryplan::wire::decode_caller_outcome;
use retryplan::Outcome;
use wasm_bindgen::prelude::*;
#[cfg(feature = "tools")]
use wasm_bindgen::JsCast;

#[cfg(feature = "config")]
use crate::is_well_formed;
#[cfg(feature = "tools")]
use crate::MAX_SAFE;
use crate::{invalid_with, js_error};

/// The longest string accepted from JS, in UTF-16 code units (1 MiB of
/// ASCII): far above any real name, header value or policy file, far below
/// what could exhaust wasm memory.
#[cfg(feature = "config")]
pub(crate) const MAX_TEXT: u32 = 1 << 20;

#[cfg(feature = "tools")]
/// A JS number, never coerced from another type.
pub(crate) fn number(name: &'static str, value: &JsValue) -> Result<f64, JsValue> {
    value.as_f64().ok_or_else(|| invalid_with(name, "number", value, &JsValue::UNDEFINED))
}

/// A JS argument that is a time or duration in milliseconds, a JS number:
/// floored; NaN, infinities, negatives and values above 2^53-1 are refused.
#[cfg(feature = "tools")]
pub(crate) fn ms(name: &'static str, value: &JsValue) -> Result<u64, JsValue> {
    let value = number(name, value)?;
    if value.is_finite() && (0.0..=MAX_SAFE).contains(&value) {
        // In range and finite, so the conversion is exact after flooring
        // (a cast truncates, which floors a number >= 0).
        Ok(value as u64)
    } else {
        Err(invalid_with(name, "ms", &JsValue::from_f64(value), &JsValue::UNDEFINED))
    }
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

/// Why a JS string cannot be read as Rust text, if it cannot: the key of the
/// rule and its value (it is longer than [`MAX_TEXT`] or holds a lone
/// surrogate). Checked before the copy.
#[cfg(feature = "config")]
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

#[cfg(feature = "tools")]
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

#[cfg(feature = "tools")]
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

/// The member at `index` of `T::ALL` (a name JS checked against the core's
/// table), or `T`'s default when absent.
pub(crate) fn named_or_default<T: retryplan::config::value::Named + Default + Copy>(index: Option<u32>) -> T {
    index.and_then(|index| T::ALL.get(index as usize).copied()).unwrap_or_default()
}

/// A snake_case name read into a core enum by the core's own names.
pub(crate) fn named<T: retryplan::config::value::Named>(key: &'static str, name: &str) -> Result<T, JsValue> {
    T::from_name(name).ok_or_else(|| {
        let names: Array = T::ALL.iter().map(|variant| JsValue::from_str(variant.name())).collect();
        invalid_with(key, "name", &JsValue::from_str(name), &names)
    })
}

#[wasm_bindgen(raw_module = "../lib/outcomes.js")]
extern "C" {
    /// An outcome object read by the binding's one reader: `[kind, code,
    /// delay, errorCode]` in the core's wire words, or its refusal thrown.
    #[wasm_bindgen(js_name = outcomeWords, catch)]
    fn outcome_words(outcome: &JsValue) -> Result<Array, JsValue>;
}

/// A JS outcome object (`{type: "http_status", status, retryAfterMs?}`, ...)
/// as a core `Outcome`, read by `lib/outcomes.js` (the one reader of an
/// outcome object, which the fast paths use too).
pub(crate) fn outcome(value: &JsValue) -> Result<Outcome, JsValue> {
    let words = outcome_words(value)?;
    let word = |at| words.get(at).as_f64().unwrap_or(-1.0);
    outcome_of(word(0), word(1), word(2), words.get(3).as_string().as_deref())
}

/// An outcome from the wire words `lib/outcomes.js` wrote, read by the
/// core's `decode_caller_outcome` (a status outside 100..=599 is the caller's
/// mistake, refused), and an `http_status`'s error code (checked by the
/// core's `ErrorCode::new`).
pub(crate) fn outcome_of(kind: f64, code: f64, delay: f64, error_code: Option<&str>) -> Result<Outcome, JsValue> {
    let mut outcome = decode_caller_outcome(kind as i64, code as i64, delay as i64).map_err(js_error)?;
    if let Outcome::HttpStatus { error_code: read, .. } = &mut outcome {
        *read = error_code.map(retryplan::dialects::aws::ErrorCode::new).transpose().map_err(js_error)?;
    }
    Ok(outcome)
}
