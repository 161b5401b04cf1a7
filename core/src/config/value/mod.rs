//! A format-neutral data tree: what a JSON text, a JS object or a Python dict
//! carries, and the one reader that turns it into configuration.
//!
//! Every binding reads configuration through this module, so the rules
//! (unknown fields refused, defaults, which fields are lists, which names an
//! enum accepts) and the dotted field paths in [`Error::InvalidConfig`]
//! are the same whether the text came from `Policy.from_json` in Python, a
//! plain object in JavaScript or a `&str` in Rust. The JSON reader (feature
//! `json`) only parses text into a [`Value`]; a host with its own parser (the
//! browser's `JSON.parse`) builds the [`Value`] itself and needs no JSON code.
//!
//! ```
//! use retryplan::config::value::{Number, Value};
//! use retryplan::PolicyConfig;
//!
//! let value = Value::Object(vec![("max_attempts".into(), Value::Number(Number::Unsigned(5)))]);
//! assert_eq!(PolicyConfig::from_value(&value).unwrap().max_attempts, 5);
//!
//! let typo = Value::Object(vec![("max_attemps".into(), Value::Number(Number::Unsigned(5)))]);
//! let error = PolicyConfig::from_value(&typo).unwrap_err();
//! assert_eq!(error.to_string(), "invalid policy configuration at `max_attemps`: unknown field `max_attemps` \
//!     (did you mean `max_attempts`?), expected one of \
//!     `max_attempts`, `total_timeout_ms`, `attempt_timeout`, `response_reserve_ms`, `minimum_useful_attempt_ms`, \
//!     `backoff`, `jitter`, `retry_on`, `ambiguous`, `conflict`, `server_guidance`, `retry_limits`, `retry_methods`, `idempotency`, `hedging`, `redelivery`, `propagation`");
//! ```

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::config::error::Error;
use crate::ground::message::{message, Arg, Message};
use crate::ground::text::EXCERPT_CHARS;
use crate::ground::units::{float, Decimal};

mod error_fields;
mod read;
mod serializer;
#[cfg(feature = "json")]
mod text_path;

#[doc(no_inline)]
pub use crate::ground::named::Named;
pub use crate::ground::suggest::closest_name;
pub(crate) use read::{
    deserialize_through_value, expected, list, one_of, optional, read_duration_ms, read_error, read_name, tagged,
    Bounded, Fields, FromValue, Reader, DURATION_MS,
};

/// A number as the source spelt it: integers are kept exactly (JSON text may
/// hold integers beyond 2^53), anything else as a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// A whole number >= 0.
    Unsigned(u64),
    /// A whole number < 0.
    Negative(i64),
    /// A number with a fraction, or a whole number too large for the integer kinds.
    Float(f64),
}

impl Number {
    /// A host's float (a JS number) as the most exact kind: whole numbers in
    /// range become [`Number::Unsigned`] or [`Number::Negative`].
    #[must_use]
    pub fn from_f64(value: f64) -> Number {
        // 2^64 and -2^63 are exact as f64; the casts below are exact inside these bounds.
        if float::fract(value) == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&value) {
            Number::Unsigned(value as u64)
        } else if float::fract(value) == 0.0 && (-9_223_372_036_854_775_808.0..0.0).contains(&value) {
            Number::Negative(value as i64)
        } else {
            Number::Float(value)
        }
    }

    /// The number as a float (rounded to the nearest float for large integers).
    #[must_use]
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Unsigned(value) => value as f64,
            Number::Negative(value) => value as f64,
            Number::Float(value) => value,
        }
    }
}

impl Number {
    /// The number as a message value, exactly as written.
    pub(crate) fn arg(self) -> Arg {
        match self {
            Number::Unsigned(value) => Arg::Unsigned(value),
            Number::Negative(value) => Arg::Signed(value),
            Number::Float(value) => Arg::Float(value),
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Number::Unsigned(value) => write!(f, "{value}"),
            Number::Negative(value) => write!(f, "{value}"),
            Number::Float(value) => Decimal(value).fmt(f),
        }
    }
}

/// A tree of plain data. Objects keep their keys in order, duplicates included
/// (the reader refuses duplicates rather than silently keeping one).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// JSON `null` (JS `null`; an `undefined` property is left out instead).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(String),
    /// A list.
    List(Vec<Value>),
    /// An object: its keys and values in order.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// Any serializable value as a tree (how the bindings turn a timeline or a
    /// snapshot into a host object without a JSON round trip).
    ///
    /// # Errors
    /// Only a map with keys that are not strings, which no type of this crate has.
    pub fn from_serialize<T: serde::Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
        value.serialize(serializer::ValueSerializer).map_err(|error| Error::InvalidArgument {
            field: "value",
            rule: Message::text(alloc::string::ToString::to_string(&error)),
        })
    }

    /// A whole number as a value.
    #[must_use]
    pub fn unsigned(value: u64) -> Value {
        Value::Number(Number::Unsigned(value))
    }

    /// A float as a value (kept as a float when whole: `2.0` stays `2.0` in JSON).
    #[must_use]
    pub fn float(value: f64) -> Value {
        Value::Number(Number::Float(value))
    }

    /// A string as a value.
    #[must_use]
    pub fn string(value: &str) -> Value {
        Value::String(value.to_owned())
    }

    /// What this value is, in words, for messages: `a list`, `the string "x"`, ...
    pub(crate) fn describe(&self) -> Message {
        match self {
            Value::Null => message!(FoundNull),
            Value::Bool(value) => message!(FoundBoolean, if *value { "true" } else { "false" }),
            Value::Number(number) => message!(FoundNumber, number.arg()),
            Value::String(text) => message!(FoundString, excerpt(text, EXCERPT_CHARS)),
            Value::List(_) => message!(List),
            Value::Object(_) => message!(Object),
        }
    }
}

#[cfg(feature = "json")]
impl Value {
    /// Parses JSON text into a tree. Only the syntax is checked here.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] (naming a policy: the reader of another
    /// configuration names its own, see [`ConfigKind::reading`](crate::config::error::ConfigKind::reading))
    /// at the top level (`field` empty) for text that is not one JSON value,
    /// and at the number's field for a number beyond an `f64` (`1e400`), the
    /// field a host that parses the text itself gets from the reader.
    ///
    /// ```
    /// use retryplan::config::value::Value;
    /// use retryplan::Error;
    /// let Err(Error::InvalidConfig { field, .. }) = Value::from_json(r#"{"retry_on": {"http_statuses": [1e400]}}"#)
    /// else { unreachable!() };
    /// assert_eq!(&*field, "retry_on.http_statuses[0]");
    /// let Err(Error::InvalidConfig { field, .. }) = Value::from_json(r#"{"retry_on": {"http_statuses": [500,]}}"#)
    /// else { unreachable!() };
    /// assert_eq!(&*field, "");
    /// ```
    pub fn from_json(json: &str) -> Result<Value, Error> {
        serde_json::from_str(json).map_err(|error| {
            // serde_json refuses such a number while parsing, before any reader sees it (its message is the one
            // sign of it: serde_json does not expose its error codes). It names the byte after the number.
            let field = if error.to_string().starts_with("number out of range") {
                let after = text_path::offset(json, error.line(), error.column());
                text_path::path_at(json, after.saturating_sub(1))
            } else {
                String::new()
            };
            Error::InvalidConfig {
                config: crate::config::error::ConfigKind::Policy,
                field: field.into(),
                message: Message::text(error.to_string()),
            }
        })
    }

    /// The tree as pretty-printed JSON text (two-space indent, keys in order).
    #[must_use]
    pub fn to_json(&self) -> String {
        // A tree has string keys only, so serializing it cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(value) => serializer.serialize_bool(*value),
            Value::Number(Number::Unsigned(value)) => serializer.serialize_u64(*value),
            Value::Number(Number::Negative(value)) => serializer.serialize_i64(*value),
            Value::Number(Number::Float(value)) => serializer.serialize_f64(*value),
            Value::String(text) => serializer.serialize_str(text),
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, item) in fields {
                    map.serialize_entry(key, item)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_unit<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_none<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
                serde::Deserialize::deserialize(deserializer)
            }
            fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
                Ok(Value::Bool(value))
            }
            fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
                Ok(Value::unsigned(value))
            }
            fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
                Ok(Value::Number(u64::try_from(value).map_or(Number::Negative(value), Number::Unsigned)))
            }
            fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
                Ok(Value::float(value))
            }
            fn visit_str<E>(self, value: &str) -> Result<Value, E> {
                Ok(Value::string(value))
            }
            fn visit_string<E>(self, value: String) -> Result<Value, E> {
                Ok(Value::String(value))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Value::List(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
                let mut fields = Vec::new();
                while let Some((key, item)) = map.next_entry::<String, Value>()? {
                    fields.push((key, item));
                }
                Ok(Value::Object(fields))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// The path of field `key` inside the object at `path`, as error field paths
/// spell it (`backoff` + `cap_ms` = `backoff.cap_ms`; the top level is `""`).
/// Hosts that convert their own data into a [`Value`] use it to name fields the same way.
#[must_use]
pub fn join(path: &str, key: &str) -> String {
    let mut joined = String::with_capacity(path.len() + 1 + key.len());
    if !path.is_empty() {
        joined.push_str(path);
        joined.push('.');
    }
    joined.push_str(key);
    joined
}

/// The path of item `index` of the list at `path`: `delays_ms[2]`.
#[must_use]
pub fn item(path: &str, index: usize) -> String {
    let mut joined = String::with_capacity(path.len() + 4);
    joined.push_str(path);
    joined.push('[');
    crate::ground::text::push_decimal(&mut joined, u64::try_from(index).unwrap_or(u64::MAX));
    joined.push(']');
    joined
}

/// At most `max_chars` characters of `text`, cut on a char boundary and
/// marked with a trailing `…`: what every error of the crate keeps of a
/// caller's or a server's text (64 characters). Hosts that build messages of
/// their own from input (the CLI's plan reader) cut them the same way.
///
/// ```
/// assert_eq!(retryplan::config::value::excerpt("retry_after_ms", 5), "retry…");
/// assert_eq!(retryplan::config::value::excerpt("ok", 5), "ok");
/// ```
#[must_use]
pub fn excerpt(text: &str, max_chars: usize) -> String {
    crate::ground::text::excerpt_chars(text, max_chars)
}

/// A snake_case name as JavaScript spells it (camelCase): the one spelling
/// rule between the core's names and the JS binding's keys, used by the
/// binding when it writes a configuration out and by the generator of its
/// type declarations.
///
/// ```
/// assert_eq!(retryplan::config::value::camel_case("retry_after_ms"), "retryAfterMs");
/// assert_eq!(retryplan::config::value::camel_case("kind"), "kind");
/// ```
#[must_use]
pub fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_floats_become_the_most_exact_number() {
        assert_eq!(Number::from_f64(5.0), Number::Unsigned(5));
        assert_eq!(Number::from_f64(-5.0), Number::Negative(-5));
        assert_eq!(Number::from_f64(0.5), Number::Float(0.5));
        assert_eq!(Number::from_f64(1e20), Number::Float(1e20));
        assert!(matches!(Number::from_f64(f64::NAN), Number::Float(value) if value.is_nan()));
    }
}
