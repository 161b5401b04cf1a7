//! Plain JS data and the core's format-neutral tree ([`Value`]), both ways.
//!
//! Configuration is read by the core's one reader (`PolicyConfig::from_value`
//! and friends), so a JS object gets exactly the rules and field paths of
//! JSON text in every other language, with no JSON code in the wasm: JSON text
//! is parsed by the host's `JSON.parse`. Object keys are renamed at this edge
//! only: camelCase in JS, snake_case in the core (values stay as they are).

use js_sys::{Array, Object, Reflect};
use retryplan::value::{Number, Value};
use retryplan::Error;
use wasm_bindgen::{JsCast, JsValue};

/// Deeper than any configuration: a cycle, refused rather than overflowing the stack.
const MAX_DEPTH: u32 = 32;

/// How object keys are spelt on the JS side.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// camelCase (JS objects), snake_case in the core.
    Camel,
    /// snake_case as in the JSON schema (parsed JSON text), unchanged.
    Snake,
}

fn reading_error(field: &str, message: String) -> Error {
    Error::InvalidPolicyJson { field: field.to_owned(), message }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
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

/// `max_attempts` -> `maxAttempts`.
fn camel_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Plain JS data (null, booleans, numbers, strings, arrays, plain objects) as
/// a tree. Properties that are `undefined` are left out, as `JSON.stringify`
/// does; anything else (a function, a bigint, a Map, a Date, a cycle) is an
/// `invalid_policy_json` error naming the field.
pub(crate) fn from_js(value: &JsValue, keys: Keys) -> Result<Value, Error> {
    let plain = Object::get_prototype_of(&Object::new());
    read(value, "", keys, &plain, 0)
}

fn read(value: &JsValue, path: &str, keys: Keys, plain: &Object, depth: u32) -> Result<Value, Error> {
    if depth > MAX_DEPTH {
        return Err(reading_error(path, format!("nested more than {MAX_DEPTH} levels deep (a cycle?)")));
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
    if let Some(text) = value.as_string() {
        return Ok(Value::String(text));
    }
    if Array::is_array(value) {
        let items = Array::from(value);
        return items
            .iter()
            .enumerate()
            .map(|(index, item)| read(&item, &format!("{path}[{index}]"), keys, plain, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::List);
    }
    if let Some(object) = value.dyn_ref::<Object>().filter(|_| !value.is_function()) {
        let prototype = Object::get_prototype_of(object);
        if prototype.is_null() || prototype == *plain {
            let mut fields = Vec::new();
            for entry in Object::entries(object).iter() {
                let entry = Array::from(&entry);
                let item = entry.get(1);
                if item.is_undefined() {
                    continue;
                }
                let key = entry.get(0).as_string().unwrap_or_default();
                let key = if keys == Keys::Camel { snake_case(&key) } else { key };
                let item = read(&item, &child(path, &key), keys, plain, depth + 1)?;
                fields.push((key, item));
            }
            return Ok(Value::Object(fields));
        }
    }
    let kind = if value.is_undefined() {
        "undefined".to_owned()
    } else if value.is_object() && !value.is_function() {
        "an object that is not plain data (a class instance, Map or Date)".to_owned()
    } else {
        format!("a {}", value.js_typeof().as_string().unwrap_or_default())
    };
    Err(reading_error(
        path,
        format!("expected plain data (null, a boolean, number, string, array or object), found {kind}"),
    ))
}

/// A tree as plain JS data (numbers as JS numbers: the core's values stay below 2^53).
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
                let key = if keys == Keys::Camel { camel_case(key) } else { key.clone() };
                // Setting a property of a fresh plain object cannot fail.
                let _ = Reflect::set(&object, &JsValue::from_str(&key), &to_js(item, keys));
            }
            object.into()
        }
    }
}
