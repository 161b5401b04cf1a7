//! Plain JS data and the core's format-neutral tree ([`Value`]), both ways.
//!
//! Configuration is read by the core's one reader (`PolicyConfig::from_value`
//! and friends), so a JS object gets exactly the rules and field paths of
//! JSON text in every other language, with no JSON code in the wasm: JSON text
//! is parsed by the host (`parseJson` in `lib/json.js`). Object keys are
//! renamed at this edge only: camelCase in JS, snake_case in the core (values
//! stay as they are).
//!
//! Reading is bounded so that no configuration can exhaust wasm memory (a
//! trap would leave the module unusable): strings as every string argument is
//! ([`unreadable`]), the text of one call in all by [`MAX_TEXT_IN_ALL`]
//! (checked before each string is copied: 4,000 strings of 1 MiB each once
//! trapped the module for good), nesting by [`MAX_DEPTH`], and the number of
//! values read by [`MAX_VALUES`] (a list holding the same list many times
//! over, many levels deep, would otherwise grow without bound).

use alloc::string::String;
use alloc::vec::Vec;

use js_sys::{Array, JsString, Map, Object, Reflect};
use retryplan::config::error::ConfigKind;
use retryplan::config::value::{item, join, Number, Value};
use wasm_bindgen::{JsCast, JsValue};

use crate::args::{unreadable, MAX_TEXT};
use crate::binding_error;

/// Deeper than any configuration (the deepest field is `breaker.trip.kind`).
const MAX_DEPTH: usize = 16;

/// Far more values than any configuration holds (a policy has about 40).
const MAX_VALUES: usize = 100_000;

/// The most text one configuration may hand to the wasm, in UTF-16 code
/// units, its strings and keys together: 4 MiB of ASCII, the size of the
/// largest configuration any reader is meant for (a policy holds well under
/// a kilobyte). At most three bytes of wasm memory per unit, so a call never
/// asks for more than 12 MiB of text, and a refused one copies none past it.
const MAX_TEXT_IN_ALL: u32 = 4 << 20;

/// How object keys are spelt on the JS side, for [`to_js`].
#[cfg(feature = "tools")]
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// camelCase (JS objects), snake_case in the core.
    Camel,
    /// snake_case as in the JSON schema, unchanged.
    Snake,
}

/// Where data read by [`from_js`] comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// A JS configuration object: camelCase keys, renamed to snake_case.
    Camel,
    /// A JS object whose keys are read as written (a gRPC service config:
    /// `methodConfig`, `retryPolicy`).
    #[cfg(feature = "tools")]
    AsWritten,
    /// JSON text parsed by `parseJson`: snake_case keys as written, and every
    /// object an `{entries: [[key, value], ...]}` holding its keys in text
    /// order, a repeated key included (so that the core refuses it).
    #[cfg(feature = "tools")]
    Json,
}

/// What one read carries along: the objects around the value (to refuse
/// cycles) and how many values it has read.
struct Reading {
    source: Source,
    /// The configuration being read, which every reading error names
    /// (`invalid_config`); None for an argument that is no configuration (a
    /// decision object), whose reading errors are `invalid_argument`.
    config: Option<ConfigKind>,
    ancestors: Vec<JsValue>,
    values: usize,
    /// The UTF-16 code units of every string and key read so far.
    text_units: u32,
}

/// An `invalid_config` error naming `config` at `field` (`invalid_argument`
/// without one): `rule` is the key of its words in `lib/messages.js`, `value`
/// what they name.
pub(crate) fn reading_error(config: Option<ConfigKind>, field: &str, rule: &str, value: &JsValue) -> JsValue {
    refusal(config, field, rule, value, &JsValue::UNDEFINED)
}

/// [`reading_error`] naming the values `a` and `b`.
fn refusal(config: Option<ConfigKind>, field: &str, rule: &str, a: &JsValue, b: &JsValue) -> JsValue {
    binding_error(config.map(ConfigKind::name), config.map(ConfigKind::words), field, rule, a, b)
}

/// `maxAttempts` -> `max_attempts`.
fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Plain JS data as a tree: null, booleans, finite numbers, strings, arrays,
/// plain objects (from any realm, `Object.create(null)` included) and `Map`s
/// with string keys. Properties that are `undefined` are left out, as
/// `JSON.stringify` does. Anything else (a function, a bigint, a class
/// instance or a `Date`, whose fields `JSON.stringify` would change or drop, a
/// cycle) is an `invalid_config` error naming `config` and the field, or for
/// an argument that is no configuration (`None`: a decision object)
/// `invalid_argument` naming the field.
pub(crate) fn from_js(value: &JsValue, source: Source, config: Option<ConfigKind>) -> Result<Value, JsValue> {
    read(value, "", &mut Reading { source, config, ancestors: Vec::new(), values: 0, text_units: 0 })
}

/// A JS string as Rust text, or the reading error naming `path`: counted
/// against [`MAX_TEXT_IN_ALL`] and checked by [`unreadable`] before it is
/// copied.
fn string(string: &JsString, path: &str, reading: &mut Reading) -> Result<String, JsValue> {
    let config = reading.config;
    reading.text_units = reading.text_units.saturating_add(string.length());
    if reading.text_units > MAX_TEXT_IN_ALL {
        return Err(reading_error(config, path, "text_in_all", &JsValue::from(MAX_TEXT_IN_ALL)));
    }
    match unreadable(string) {
        Some((rule, detail)) => Err(refusal(config, path, rule, &detail, &JsValue::from(MAX_TEXT))),
        None => Ok(String::from(string)),
    }
}

fn read(value: &JsValue, path: &str, reading: &mut Reading) -> Result<Value, JsValue> {
    reading.values += 1;
    if reading.values > MAX_VALUES {
        return Err(reading_error(reading.config, path, "values", &JsValue::from_f64(MAX_VALUES as f64)));
    }
    if value.is_null() {
        return Ok(Value::Null);
    }
    if let Some(flag) = value.as_bool() {
        return Ok(Value::Bool(flag));
    }
    if let Some(number) = value.as_f64() {
        return Ok(Value::Number(Number::from_f64(number)));
    }
    if let Some(text) = value.dyn_ref::<JsString>() {
        return string(text, path, reading).map(Value::String);
    }
    let container = Array::is_array(value) || (value.is_object() && !value.is_function());
    if container {
        if reading.ancestors.iter().any(|ancestor| Object::is(ancestor, value)) {
            return Err(reading_error(reading.config, path, "cycle", &JsValue::UNDEFINED));
        }
        if reading.ancestors.len() >= MAX_DEPTH {
            return Err(reading_error(reading.config, path, "depth", &JsValue::from_f64(MAX_DEPTH as f64)));
        }
        reading.ancestors.push(value.clone());
        let read = read_container(value, path, reading);
        reading.ancestors.pop();
        if let Some(read) = read {
            return read;
        }
    }
    Err(reading_error(reading.config, path, "plain", value))
}

/// An array, a plain object or a `Map` as a tree; `None` for any other object.
fn read_container(value: &JsValue, path: &str, reading: &mut Reading) -> Option<Result<Value, JsValue>> {
    if Array::is_array(value) {
        let items = Array::from(value);
        let mut list = Vec::new();
        for (index, entry) in items.iter().enumerate() {
            match read(&entry, &item(path, index), reading) {
                Ok(entry) => list.push(entry),
                Err(error) => return Some(Err(error)),
            }
        }
        return Some(Ok(Value::List(list)));
    }
    #[cfg(feature = "tools")]
    let json = reading.source == Source::Json;
    #[cfg(not(feature = "tools"))]
    let json = false;
    let entries = if json {
        // `parseJson` made every object, with its entries in text order.
        Array::from(&Reflect::get(value, &JsValue::from_str("entries")).unwrap_or_default())
    } else if let Some(map) = value.dyn_ref::<Map>() {
        Array::from(&map.entries())
    } else {
        // Plain: no prototype, or one whose own prototype is null (`Object.prototype`
        // of this realm or another: an iframe's, a `vm` context's).
        let object = value.unchecked_ref::<Object>();
        let prototype = Object::get_prototype_of(object);
        if !(prototype.is_null() || Object::get_prototype_of(&prototype).is_null()) {
            return None;
        }
        Object::entries(object)
    };
    let mut fields = Vec::new();
    for entry in entries.iter() {
        let entry = Array::from(&entry);
        let item = entry.get(1);
        if item.is_undefined() {
            continue;
        }
        let key = entry.get(0);
        let Some(key) = key.dyn_ref::<JsString>() else {
            return Some(Err(reading_error(reading.config, path, "map_keys", &JsValue::UNDEFINED)));
        };
        let key = match string(key, path, reading) {
            Ok(key) if reading.source == Source::Camel => snake_case(&key),
            Ok(key) => key,
            Err(error) => return Some(Err(error)),
        };
        match read(&item, &join(path, &key), reading) {
            Ok(item) => fields.push((key, item)),
            Err(error) => return Some(Err(error)),
        }
    }
    Some(Ok(Value::Object(fields)))
}

/// A configuration argument (a plain object, camelCase keys) as the core's data
/// tree; anything else is refused by the core's reader, as in JSON, naming `kind`.
pub(crate) fn config_value(config: &JsValue, kind: ConfigKind) -> Result<Value, JsValue> {
    from_js(config, Source::Camel, Some(kind))
}

/// A tree as plain JS data (numbers as JS numbers: the core's values stay below 2^53).
#[cfg(feature = "tools")]
pub(crate) fn to_js(value: &Value, keys: Keys) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(flag) => JsValue::from_bool(*flag),
        Value::Number(number) => JsValue::from_f64(number.as_f64()),
        Value::String(text) => JsValue::from_str(text),
        Value::List(items) => items.iter().map(|item| to_js(item, keys)).collect::<Array>().into(),
        Value::Object(fields) => {
            let object = Object::new();
            for (key, item) in fields {
                let key = if keys == Keys::Camel { retryplan::config::value::camel_case(key) } else { key.clone() };
                // Setting a property of a fresh plain object cannot fail.
                let _ = Reflect::set(&object, &JsValue::from_str(&key), &to_js(item, keys));
            }
            object.into()
        }
    }
}
