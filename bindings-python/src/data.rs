//! Python data and the core's format-neutral tree ([`Value`]), both ways.
//!
//! A configuration dict is read by the core's one reader (rules and dotted
//! field paths as for JSON text in every language), with no JSON text in
//! between; results come back as dicts, lists, ints and floats.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use retryplan::config::error::ConfigKind;
use retryplan::config::value::{join, Number, Value};
use retryplan::Error;

use crate::fault::Res;

/// Deeper than any configuration (the deepest field is `breaker.trip.kind`).
const MAX_DEPTH: usize = 16;

fn reading_error(config: ConfigKind, field: &str, message: String) -> Error {
    Error::InvalidConfig { config, field: Box::from(field), message: message.into() }
}

/// Plain data as a tree: None, bool, int, float (NaN and infinities are left
/// to the reader, which refuses them naming the field), str, list, tuple and
/// dict with str keys. Anything else is `invalid_config` naming `config`
/// (the configuration being read) and the field.
pub(crate) fn from_py(obj: &Bound<'_, PyAny>, config: ConfigKind) -> Res<Value> {
    read(obj, "", 0, config)
}

fn read(obj: &Bound<'_, PyAny>, path: &str, depth: usize, config: ConfigKind) -> Res<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(number) = obj.extract::<u64>() {
            return Ok(Value::unsigned(number));
        }
        if let Ok(number) = obj.extract::<i64>() {
            return Ok(Value::Number(Number::Negative(number)));
        }
        return match obj.extract::<f64>() {
            Ok(number) => Ok(Value::float(number)),
            Err(_) => {
                Err(reading_error(config, path, "expected a number, found an integer beyond any float".to_owned())
                    .into())
            }
        };
    }
    if let Ok(number) = obj.cast::<PyFloat>() {
        return Ok(Value::float(number.value()));
    }
    if let Ok(text) = obj.cast::<PyString>() {
        let text =
            text.to_cow().map_err(|_| reading_error(config, path, "a string with a lone surrogate".to_owned()))?;
        return Ok(Value::String(text.into_owned()));
    }
    let container = obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    if container && depth >= MAX_DEPTH {
        return Err(reading_error(config, path, format!("nested more than {MAX_DEPTH} levels deep")).into());
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut fields = Vec::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let key = match key.cast::<PyString>() {
                Ok(key) => {
                    key.to_cow().map_err(|_| reading_error(config, path, "a key with a lone surrogate".to_owned()))?
                }
                Err(_) => {
                    return Err(reading_error(config, path, format!("a key that is not text: {}", kind(&key))).into())
                }
            };
            let key = key.into_owned();
            let item = read(&item, &join(path, &key), depth + 1, config)?;
            fields.push((key, item));
        }
        return Ok(Value::Object(fields));
    }
    if container {
        let items = obj
            .try_iter()?
            .enumerate()
            .map(|(index, item)| read(&item?, &format!("{path}[{index}]"), depth + 1, config));
        return Ok(Value::List(items.collect::<Res<_>>()?));
    }
    let message =
        format!("expected plain data (None, bool, int, float, str, list, tuple or dict), found {}", kind(obj));
    Err(reading_error(config, path, message).into())
}

/// `a set`, `an int`: the object's type in words.
fn kind(obj: &Bound<'_, PyAny>) -> String {
    let name = obj.get_type().name().map(|name| name.to_string()).unwrap_or_default();
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {name}")
}

/// A tree as Python data.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Number(Number::Unsigned(number)) => number.into_pyobject(py)?.into_any(),
        Value::Number(Number::Negative(number)) => number.into_pyobject(py)?.into_any(),
        Value::Number(Number::Float(number)) => number.into_pyobject(py)?.into_any(),
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::List(items) => {
            PyList::new(py, items.iter().map(|item| to_py(py, item)).collect::<PyResult<Vec<_>>>()?)?.into_any()
        }
        Value::Object(fields) => {
            let dict = PyDict::new(py);
            for (key, item) in fields {
                dict.set_item(key, to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

static VALUES: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// A core value that holds no engine state as an instance of its class in `retryplan._values`
/// (`Classification`, `Admission`, ...), built from its JSON form (and `extra`, when the class takes more).
pub(crate) fn typed<'py, T: serde::Serialize>(
    py: Python<'py>,
    class: &str,
    value: &T,
    extra: Option<Bound<'py, PyAny>>,
) -> Res<Bound<'py, PyAny>> {
    let module = VALUES.get_or_try_init(py, || py.import("retryplan._values").map(Bound::unbind))?;
    let class = module.bind(py).getattr(class)?;
    let fields = serialized(py, value)?;
    Ok(match extra {
        None => class.call1((fields,))?,
        Some(extra) => class.call1((fields, extra))?,
    })
}

/// Any serializable core value (a snapshot, a decision, a timeline) as Python data.
pub(crate) fn serialized<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> Res<Bound<'py, PyAny>> {
    Ok(to_py(py, &Value::from_serialize(value)?)?)
}

/// `Name(field=value, ...)` from the serialized form, without its `type` tag.
pub(crate) fn repr_of<T: serde::Serialize>(class: &str, value: &T) -> String {
    let fields = match Value::from_serialize(value) {
        Ok(Value::Object(fields)) => fields,
        _ => Vec::new(),
    };
    let fields: Vec<String> = fields
        .iter()
        .filter(|(key, _)| key != "type")
        .map(|(key, value)| format!("{key}={}", literal(value)))
        .collect();
    format!("{class}({})", fields.join(", "))
}

/// A value as Python would print it.
fn literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(flag) => if *flag { "True" } else { "False" }.to_owned(),
        Value::String(text) => format!("'{text}'"),
        Value::Number(number) => number.to_string(),
        Value::List(items) => format!("[{}]", items.iter().map(literal).collect::<Vec<_>>().join(", ")),
        Value::Object(_) => "{...}".to_owned(),
    }
}
