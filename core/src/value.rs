//! A format-neutral data tree: what a JSON text, a JS object or a Python dict
//! carries, and the one reader that turns it into configuration.
//!
//! Every binding reads configuration through this module, so the rules
//! (unknown fields refused, defaults, which fields are lists, which names an
//! enum accepts) and the dotted field paths in [`Error::InvalidPolicyJson`]
//! are the same whether the text came from `Policy.from_json` in Python, a
//! plain object in JavaScript or a `&str` in Rust. The JSON reader (feature
//! `json`) only parses text into a [`Value`]; a host with its own parser (the
//! browser's `JSON.parse`) builds the [`Value`] itself and needs no JSON code.
//!
//! ```
//! use retryplan::value::{Number, Value};
//! use retryplan::PolicyConfig;
//!
//! let value = Value::Object(vec![("max_attempts".into(), Value::Number(Number::Unsigned(5)))]);
//! assert_eq!(PolicyConfig::from_value(&value).unwrap().max_attempts, 5);
//!
//! let typo = Value::Object(vec![("max_attemps".into(), Value::Number(Number::Unsigned(5)))]);
//! let error = PolicyConfig::from_value(&typo).unwrap_err();
//! assert_eq!(error.to_string(), "invalid policy JSON at `max_attemps`: unknown field `max_attemps` \
//!     (did you mean `max_attempts`?), expected one of \
//!     `max_attempts`, `total_budget_ms`, `attempt_timeout`, `response_reserve_ms`, `minimum_useful_attempt_ms`, \
//!     `backoff`, `jitter`, `retry_on`, `ambiguous`, `conflict`, `server_guidance`, `retry_limits`, `retry_methods`, `idempotency`, `hedging`, `redelivery`");
//! ```

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::error::Error;
use crate::message::{message, Arg, Message, Rule};
use crate::text::EXCERPT_CHARS;
use crate::units::{float, Decimal};

mod serializer;
mod suggest;

pub use crate::named::Named;
pub use suggest::closest_name;

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
            name: "value",
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
    fn describe(&self) -> Message {
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
    /// [`Error::InvalidPolicyJson`] at the top level (`field` empty) for text that is not one JSON value.
    pub fn from_json(json: &str) -> Result<Value, Error> {
        serde_json::from_str(json).map_err(|error| Error::InvalidPolicyJson {
            field: String::new(),
            message: Message::text(error.to_string()),
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

/// serde's `Deserialize` for a configuration type through its reader: the
/// input becomes a [`Value`] first, so every serde format gets the rules of
/// [`PolicyConfig::from_value`](crate::PolicyConfig::from_value) (the error's
/// field path is in its message). It needs a self-describing format (JSON,
/// TOML, YAML, ...), as it reads with `deserialize_any`.
macro_rules! deserialize_through_value {
    ($type:ty, $read:expr) => {
        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <$crate::value::Value as serde::Deserialize>::deserialize(deserializer)?;
                let read: $crate::value::Reader<$type> = $read;
                read(&value, "").map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use deserialize_through_value;

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
    crate::text::push_decimal(&mut joined, u64::try_from(index).unwrap_or(u64::MAX));
    joined.push(']');
    joined
}

/// At most `max_chars` characters of `text`, cut on a char boundary and
/// marked with a trailing `…`: what every error of the crate keeps of a
/// caller's or a server's text (64 characters). Hosts that build messages of
/// their own from input (the CLI's plan reader) cut them the same way.
///
/// ```
/// assert_eq!(retryplan::value::excerpt("retry_after_ms", 5), "retry…");
/// assert_eq!(retryplan::value::excerpt("ok", 5), "ok");
/// ```
#[must_use]
pub fn excerpt(text: &str, max_chars: usize) -> String {
    crate::text::excerpt_chars(text, max_chars)
}

/// The reading error at `field`. Cold and never inlined, as every error
/// path here: the reader's happy path stays small in the wasm build.
#[cold]
#[inline(never)]
pub(crate) fn read_error(field: &str, message: Message) -> Error {
    Error::InvalidPolicyJson { field: field.to_owned(), message }
}

/// The reading error for `found` where `what` (a phrase without values) was expected.
#[cold]
#[inline(never)]
pub(crate) fn expected(field: &str, what: Rule, found: &Value) -> Error {
    expected_message(field, Message::new(what, Vec::new()), found)
}

/// The reading error for `found` where `what` was expected.
#[cold]
#[inline(never)]
pub(crate) fn expected_message(field: &str, what: Message, found: &Value) -> Error {
    read_error(field, message!(Expected, what, found.describe()))
}

/// A type read from one [`Value`] at a dotted path.
pub(crate) trait FromValue: Sized {
    fn from_value(value: &Value, path: &str) -> Result<Self, Error>;
}

impl FromValue for bool {
    fn from_value(value: &Value, path: &str) -> Result<Self, Error> {
        match value {
            Value::Bool(flag) => Ok(*flag),
            other => Err(expected(path, Rule::Boolean, other)),
        }
    }
}

impl FromValue for f64 {
    /// Any finite number. JSON has no NaN or infinities, so a host that has them
    /// (JS, a Rust caller) gets the reading error that JSON text would get.
    fn from_value(value: &Value, path: &str) -> Result<Self, Error> {
        match value {
            Value::Number(number) if number.as_f64().is_finite() => Ok(number.as_f64()),
            other => Err(expected(path, Rule::FiniteNumber, other)),
        }
    }
}

/// A whole number in `0..=max` (a float spelling of a whole number, `3.0`, is accepted:
/// a JS number cannot tell them apart).
fn whole(value: &Value, path: &str, max: u64) -> Result<u64, Error> {
    let found = match value {
        Value::Number(Number::Unsigned(number)) if *number <= max => return Ok(*number),
        Value::Number(Number::Float(number)) if float::fract(*number) == 0.0 && (0.0..=max as f64).contains(number) => {
            // Whole and within a u64 range, so exact (a float at exactly 2^64 is refused above for max = u64::MAX).
            if *number < 18_446_744_073_709_551_616.0 {
                return Ok(*number as u64);
            }
            value
        }
        other => other,
    };
    Err(expected_message(path, message!(WholeNumber, max), found))
}

impl FromValue for u64 {
    fn from_value(value: &Value, path: &str) -> Result<Self, Error> {
        whole(value, path, u64::MAX)
    }
}

impl FromValue for u32 {
    fn from_value(value: &Value, path: &str) -> Result<Self, Error> {
        // In range by the check, so the conversion cannot fail.
        whole(value, path, u64::from(u32::MAX)).map(|number| u32::try_from(number).unwrap_or(u32::MAX))
    }
}

impl FromValue for u16 {
    fn from_value(value: &Value, path: &str) -> Result<Self, Error> {
        whole(value, path, u64::from(u16::MAX)).map(|number| u16::try_from(number).unwrap_or(u16::MAX))
    }
}

impl<T: FromValue> FromValue for Vec<T> {
    fn from_value(value: &Value, path: &str) -> Result<Self, Error> {
        list(value, path, Rule::List, T::from_value)
    }
}

/// Reads a list, each item with `read` (its path `path[index]`); anything
/// else is an error expecting `what`. A plain loop: collecting into a
/// `Result<Vec<T>, _>` costs the wasm build about 1 KB per item type.
pub(crate) fn list<T>(
    value: &Value,
    path: &str,
    what: Rule,
    mut read: impl FnMut(&Value, &str) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    let Value::List(items) = value else { return Err(expected(path, what, value)) };
    let mut read_items = Vec::with_capacity(items.len());
    for (index, value) in items.iter().enumerate() {
        read_items.push(read(value, &item(path, index))?);
    }
    Ok(read_items)
}

/// ` (did you mean `x`?)` when `name` looks like a typo of one of `known`, else nothing.
#[cold]
fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Arg {
    match closest_name(name, known) {
        Some(close) => Arg::from(message!(DidYouMean, String::from(close))),
        None => Arg::from(""),
    }
}

/// The names of `T`'s variants, for messages.
fn names<T: Named>() -> Arg {
    Arg::Names(T::ALL.iter().map(|variant| alloc::borrow::Cow::Borrowed(variant.name())).collect())
}

/// Reads an enum's name (what the bindings use for names in events, too).
///
/// # Errors
/// [`Error::InvalidPolicyJson`] at `path` naming the accepted names.
pub(crate) fn read_name<T: Named>(value: &Value, path: &str) -> Result<T, Error> {
    match value {
        Value::String(name) => T::from_name(name).ok_or_else(|| {
            let hint = did_you_mean(name, T::ALL.iter().map(|variant| variant.name()));
            read_error(path, message!(UnknownVariant, excerpt(name, EXCERPT_CHARS), hint, names::<T>()))
        }),
        other => Err(expected_message(path, message!(OneOf, names::<T>()), other)),
    }
}

/// Reads one value at a dotted path. A plain function pointer, not a closure:
/// every closure would be another copy of the generic reader in the wasm build.
pub(crate) type Reader<T> = fn(&Value, &str) -> Result<T, Error>;

/// The fields of one configuration object, checked against the known names.
pub(crate) struct Fields<'a> {
    path: &'a str,
    fields: &'a [(String, Value)],
}

impl<'a> Fields<'a> {
    /// The object at `path`, refusing anything but an object, unknown fields and repeated fields.
    pub(crate) fn new(value: &'a Value, path: &'a str, known: &[&str]) -> Result<Fields<'a>, Error> {
        let Value::Object(fields) = value else {
            return Err(expected(path, Rule::Object, value));
        };
        for (index, (key, _)) in fields.iter().enumerate() {
            // A key is echoed as an excerpt: a bad configuration must not copy megabytes into an error.
            if !known.contains(&key.as_str()) {
                let hint = did_you_mean(key, known.iter().copied());
                let key = excerpt(key, EXCERPT_CHARS);
                let message = message!(UnknownField, &key, hint, Arg::names(known.iter().copied()));
                return Err(read_error(&join(path, &key), message));
            }
            if fields.iter().take(index).any(|(earlier, _)| earlier == key) {
                return Err(read_error(&join(path, key), message!(DuplicateField, key)));
            }
        }
        Ok(Fields { path, fields })
    }

    /// Every field present, in order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&'a str, &'a Value)> {
        self.fields.iter().map(|(key, value)| (key.as_str(), value))
    }

    /// The value of `key`, if present.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.fields.iter().find(|(name, _)| name == key).map(|(_, value)| value)
    }

    /// The dotted path of `key` in this object.
    pub(crate) fn path(&self, key: &str) -> String {
        join(self.path, key)
    }

    /// `key` read with `read`, or `default` when absent.
    pub(crate) fn with<T>(&self, key: &str, default: T, read: Reader<T>) -> Result<T, Error> {
        match self.get(key) {
            Some(value) => read(value, &self.path(key)),
            None => Ok(default),
        }
    }

    /// `key`, or `default` when absent.
    pub(crate) fn or<T: FromValue>(&self, key: &str, default: T) -> Result<T, Error> {
        self.with(key, default, T::from_value)
    }

    /// `key`, which must be present.
    pub(crate) fn required<T: FromValue>(&self, key: &str) -> Result<T, Error> {
        self.required_with(key, T::from_value)
    }

    /// `key` read with `read`; it must be present.
    pub(crate) fn required_with<T>(&self, key: &str, read: Reader<T>) -> Result<T, Error> {
        match self.get(key) {
            Some(value) => read(value, &self.path(key)),
            None => Err(read_error(&self.path(key), message!(MissingField, String::from(key)))),
        }
    }

    /// `key` read with `read`; absent or `null` is `None`.
    pub(crate) fn optional<T>(&self, key: &str, read: Reader<T>) -> Result<Option<T>, Error> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => read(value, &self.path(key)).map(Some),
        }
    }
}

/// `value` read with `read`, `null` as `None`.
pub(crate) fn optional<T>(value: &Value, path: &str, read: Reader<T>) -> Result<Option<T>, Error> {
    match value {
        Value::Null => Ok(None),
        value => read(value, path).map(Some),
    }
}

/// An internally tagged object (`{"kind": "proportional", "ratio": 0.2}`):
/// the tag's variant, and the fields checked against what that variant knows.
pub(crate) fn tagged<'a, T: Named>(
    value: &'a Value,
    path: &'a str,
    known: impl Fn(T) -> &'static [&'static str],
) -> Result<(T, Fields<'a>), Error> {
    let Value::Object(fields) = value else {
        // `"jitter": "full"` for `{"kind": "full"}`: say so.
        return Err(match value {
            Value::String(name) if T::from_name(name).is_some() => {
                read_error(path, message!(KindAsString, value.describe(), name))
            }
            other => expected(path, Rule::Object, other),
        });
    };
    let tag = fields
        .iter()
        .find(|(key, _)| key == "kind")
        .map(|(_, tag)| tag)
        .ok_or_else(|| read_error(&join(path, "kind"), message!(MissingKind, names::<T>())))?;
    let variant = read_name::<T>(tag, &join(path, "kind"))?;
    Ok((variant, Fields::new(value, path, known(variant))?))
}

/// An object with exactly one of `known` as its key (`{"fixed_ms": 3000}`): the key and its value.
pub(crate) fn one_of<'a>(value: &'a Value, path: &str, known: &[&str]) -> Result<(&'a str, &'a Value), Error> {
    Fields::new(value, path, known)?;
    match value {
        Value::Object(fields) => match fields.as_slice() {
            [(key, inner)] => Ok((key.as_str(), inner)),
            _ => Err(read_error(path, message!(ExactlyOneOf, Arg::names(known.iter().copied())))),
        },
        _ => Err(expected(path, Rule::Object, value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_errors_echo_a_huge_value_or_key_as_an_excerpt() {
        let huge = "x".repeat(50_000);
        let object = |key: &str, value: Value| Value::Object(vec![(key.to_owned(), value)]);
        for (config, field) in [
            (object("idempotency", Value::String(huge.clone())), "idempotency"),
            (object("total_budget_ms", Value::String(huge.clone())), "total_budget_ms"),
            (object(&huge, Value::Null), ""),
        ] {
            let error = crate::PolicyConfig::from_value(&config).unwrap_err();
            let Error::InvalidPolicyJson { field: at, .. } = &error else { panic!("{error:?}") };
            assert!(error.to_string().len() < 1_000, "{} bytes", error.to_string().len());
            assert!(at.starts_with(field) && at.len() < 100, "{at}");
            assert!(error.to_string().contains(&format!("{}…", "x".repeat(64))), "{error}");
        }
    }

    #[test]
    fn host_floats_become_the_most_exact_number() {
        assert_eq!(Number::from_f64(5.0), Number::Unsigned(5));
        assert_eq!(Number::from_f64(-5.0), Number::Negative(-5));
        assert_eq!(Number::from_f64(0.5), Number::Float(0.5));
        assert_eq!(Number::from_f64(1e20), Number::Float(1e20));
        assert!(matches!(Number::from_f64(f64::NAN), Number::Float(value) if value.is_nan()));
    }

    #[test]
    fn whole_numbers_name_the_range_and_what_was_found() {
        let error = u32::from_value(&Value::Number(Number::Negative(-5)), "a.b").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid policy JSON at `a.b`: expected a whole number in 0..=4294967295, found the number -5"
        );
        assert_eq!(u64::from_value(&Value::float(3.0), "x").unwrap(), 3);
        assert!(u16::from_value(&Value::float(2.5), "x").is_err());
        assert!(u16::from_value(&Value::unsigned(70_000), "x").is_err());
        assert!(u64::from_value(&Value::float(18_446_744_073_709_551_616.0), "x").is_err());
    }

    #[test]
    fn refused_text_is_kept_as_a_bounded_excerpt() {
        let huge = "x".repeat(50 * 1024 * 1024);
        let cut = format!("{}…", "x".repeat(64));
        let error = u32::from_value(&Value::String(huge.clone()), "max_attempts").unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("invalid policy JSON at `max_attempts`: expected a whole number in 0..=4294967295, found the string \"{cut}\"")
        );
        let unknown = Value::Object(vec![(huge.clone(), Value::Null)]);
        let Err(Error::InvalidPolicyJson { field, message }) = Fields::new(&unknown, "backoff", &["a"]) else {
            panic!("expected a reading error")
        };
        assert_eq!(field, format!("backoff.{cut}"));
        let message = message.to_string();
        assert!(message.len() < 200, "{} bytes", message.len());
        let error = crate::PolicyConfig::from_value(&Value::Object(vec![("idempotency".into(), Value::String(huge))]))
            .unwrap_err();
        assert!(error.to_string().len() < 300, "{} bytes", error.to_string().len());
        assert!(error.to_string().contains(&cut));
    }

    #[test]
    fn repeated_and_unknown_fields_are_refused() {
        let value = Value::Object(vec![("a".into(), Value::Null), ("a".into(), Value::Null)]);
        let Err(Error::InvalidPolicyJson { field, message }) = Fields::new(&value, "x", &["a"]) else {
            panic!("expected a reading error")
        };
        assert_eq!((field.as_str(), message.to_string().as_str()), ("x.a", "duplicate field `a`"));
        assert!(Fields::new(&value, "", &["b"]).is_err());
        assert!(Fields::new(&Value::List(vec![]), "", &["b"]).is_err());
    }
}
