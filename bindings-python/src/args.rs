//! Python arguments to core values, one reading per kind of argument, each
//! error naming the argument. A clock reading is float seconds
//! (`time.monotonic()`, `time.time()`) under one name, or its exact
//! integer-millisecond twin keyword under another; both stop at 2^53 - 1 ms.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyFloat, PyInt, PyMemoryView, PyString};
use pyo3::PyClass;
use retryplan::config::value::Named;
use retryplan::policy::MAX_MS;

use crate::fault::{invalid, wrong_type, Fault, Res};

/// An optional argument as pyo3 hands it over (absent: `None`).
pub(crate) type Arg<'a, 'py> = Option<&'a Bound<'py, PyAny>>;

/// A clock reading's two spellings: seconds, and its `_ms` twin.
#[derive(Clone, Copy)]
pub(crate) struct Clock(&'static str, &'static str);

pub(crate) const NOW: Clock = Clock("now", "now_ms");
pub(crate) const DEADLINE: Clock = Clock("deadline", "deadline_ms");
pub(crate) const NOW_UNIX: Clock = Clock("now_unix", "now_unix_ms");
pub(crate) const FIRST_SEEN: Clock = Clock("first_seen", "first_seen_ms");
/// What a helper's own `clock=` returned: an error names the option the caller gave, not an argument of the engine.
pub(crate) const CLOCK: Clock = Clock("clock", "clock");

impl Clock {
    /// The reading in ms when one spelling is given; both is an error.
    pub(crate) fn optional(self, seconds: Arg, ms: Arg) -> Res<Option<u64>> {
        let Clock(name, ms_name) = self;
        match (seconds, ms) {
            (Some(_), Some(_)) => {
                Err(invalid(name, format!("pass either {name} (seconds) or {ms_name} (int ms), not both")))
            }
            (Some(seconds), None) => seconds_arg(name, seconds).map(Some),
            (None, Some(ms)) => ms_arg(ms_name, ms).map(Some),
            (None, None) => Ok(None),
        }
    }

    /// The reading in ms; one spelling is required.
    pub(crate) fn read(self, seconds: Arg, ms: Arg) -> Res<u64> {
        let Clock(name, ms_name) = self;
        let required =
            || invalid(name, format!("is required: {name} as float seconds, or {ms_name} as int milliseconds"));
        self.optional(seconds, ms)?.ok_or_else(required)
    }
}

/// Float seconds to integer ms: the floor of `seconds * 1000`, where a float
/// that is the nearest one to a whole millisecond (e.g. `1.005`) counts as
/// exactly that millisecond, so `ms / 1000` converts back to `ms` for every
/// `ms` below 2^52 (above it a float of seconds is coarser than 1 ms).
pub(crate) fn seconds_to_ms(name: &'static str, seconds: f64) -> Res<u64> {
    if seconds.is_nan() {
        return Err(invalid(name, "must be a number of seconds, got nan".to_owned()));
    }
    if !seconds.is_finite() {
        return Err(invalid(name, format!("must be finite, got {seconds}")));
    }
    if seconds < 0.0 {
        return Err(invalid(name, format!("must be >= 0, got {seconds}")));
    }
    let mut ms = (seconds * 1000.0).floor();
    if (ms + 1.0) / 1000.0 == seconds {
        ms += 1.0;
    }
    if ms > MAX_MS as f64 {
        // Past 1e16 a float's digits are noise: 1e300, not 301 digits.
        let got = if seconds < 1e16 { format!("{seconds}") } else { format!("{seconds:e}") };
        return Err(too_late(name, &got));
    }
    Ok(ms as u64)
}

/// The refusal of a reading in seconds past the engine's range (2^53 - 1 ms), `got` as the caller wrote it.
fn too_late(name: &'static str, got: &str) -> Fault {
    let (whole, thousandths) = (MAX_MS / 1000, MAX_MS % 1000);
    invalid(name, format!("must be at most {whole}.{thousandths:03} seconds (2^53 - 1 ms), got {got}"))
}

fn seconds_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u64> {
    if let Ok(float) = obj.cast::<PyFloat>() {
        return seconds_to_ms(name, float.value());
    }
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        return match obj.extract::<f64>() {
            Ok(seconds) => seconds_to_ms(name, seconds),
            Err(_) => Err(too_late(name, &obj.to_string())),
        };
    }
    Err(wrong_type(name, "a float (seconds)", obj))
}

/// An int in `0..=max`; anything else (negative, too large) is refused
/// with that range, the one the argument has.
fn int_arg(name: &'static str, obj: &Bound<'_, PyAny>, max: u64) -> Res<u64> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(wrong_type(name, "an int", obj));
    }
    match obj.extract::<u64>() {
        Ok(value) if value <= max => Ok(value),
        _ => Err(invalid(name, format!("must be a whole number in 0..={max}, got {obj}"))),
    }
}

pub(crate) fn u64_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u64> {
    int_arg(name, obj, u64::MAX)
}

/// A millisecond int (a clock reading, a delay): `0..=2^53 - 1`, refused
/// beyond with the core's one message, as every binding refuses it.
pub(crate) fn ms_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u64> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(wrong_type(name, "an int", obj));
    }
    match obj.extract::<u64>() {
        Ok(value) => Ok(retryplan::Error::check_ms(name, value)?),
        Err(_) => Err(retryplan::Error::ms_out_of_range(name, obj).into()),
    }
}

pub(crate) fn u32_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u32> {
    Ok(u32::try_from(int_arg(name, obj, u64::from(u32::MAX))?).unwrap_or(u32::MAX))
}

pub(crate) fn u16_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u16> {
    Ok(u16::try_from(int_arg(name, obj, u64::from(u16::MAX))?).unwrap_or(u16::MAX))
}

/// Text, refusing lone surrogates (which no UTF-8 text can hold).
pub(crate) fn str_arg<'a>(name: &'static str, obj: &'a Bound<'_, PyAny>) -> Res<Cow<'a, str>> {
    let text = obj.cast::<PyString>().map_err(|_| wrong_type(name, "a str", obj))?;
    text.to_cow().map_err(|_| invalid(name, "must be text without lone surrogates (U+D800 to U+DFFF)".to_owned()))
}

/// The JSON text a `from_json` reads: its argument `json`, as every binding
/// names it, or (for one release) the keyword `text`, Python's old name, with
/// a `DeprecationWarning`. Both at once, or neither, is a `TypeError`.
pub(crate) fn json_arg<'a>(json: Arg<'a, '_>, text: Arg<'a, '_>) -> Res<Cow<'a, str>> {
    match (json, text) {
        (Some(json), None) => str_arg("json", json),
        (None, Some(text)) => {
            let py = text.py();
            let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
            PyErr::warn(py, &category, c"retryplan: from_json(text=...) is renamed from_json(json=...)", 1)?;
            str_arg("json", text)
        }
        (Some(_), Some(_)) => {
            Err(PyTypeError::new_err("from_json() takes `json` or its old name `text`, not both").into())
        }
        (None, None) => Err(PyTypeError::new_err("from_json() missing 1 required argument: 'json'").into()),
    }
}

/// Binary data: `bytes`, `bytearray` or a `memoryview` (of bytes), copied.
pub(crate) fn bytes_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<Vec<u8>> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(array) = obj.cast::<PyByteArray>() {
        return Ok(array.to_vec());
    }
    if obj.cast::<PyMemoryView>().is_ok() {
        // A view of any buffer: its bytes, in the view's order (`memoryview.tobytes`).
        let bytes = obj.call_method0("tobytes")?;
        return Ok(bytes.cast::<PyBytes>().map_err(|_| wrong_type(name, "bytes", obj))?.as_bytes().to_vec());
    }
    Err(wrong_type(name, "bytes, bytearray or memoryview", obj))
}

/// An enum by its snake_case name.
pub(crate) fn by_name<T: Named>(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<T> {
    let text = str_arg(name, obj)?;
    T::from_name(&text).ok_or_else(|| {
        let known: Vec<&str> = T::ALL.iter().map(|variant| variant.name()).collect();
        let got: String = text.chars().take(64).collect();
        invalid(name, format!("must be one of {}, got `{got}`", known.join(", ")))
    })
}

/// An instance of the frozen class `T` (`retryplan.<T>`).
pub(crate) fn class_arg<'a, T: PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync>(
    name: &'static str,
    obj: &'a Bound<'_, PyAny>,
) -> Res<&'a T> {
    Ok(obj.cast::<T>().map_err(|_| wrong_type(name, &format!("a retryplan.{}", T::NAME), obj))?.get())
}

/// A required argument that pyo3 saw as optional (so the error is ours, naming it).
pub(crate) fn given<'a, 'py>(name: &'static str, obj: Option<&'a Bound<'py, PyAny>>) -> Res<&'a Bound<'py, PyAny>> {
    obj.ok_or_else(|| invalid(name, "is required".to_owned()))
}
