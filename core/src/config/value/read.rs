//! The one reader from a [`Value`] to configuration: fields checked against
//! the known names, enums by their [`Named`] table, numbers by their range,
//! and every error an [`Error::InvalidConfig`] at a dotted field path.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::{excerpt, item, join, Number, Value};
use crate::config::error::{ConfigKind, Error, Violation};
use crate::ground::message::{message, Arg, Message, Rule};
use crate::ground::named::Named;
use crate::ground::suggest::did_you_mean;
use crate::ground::text::EXCERPT_CHARS;
use crate::ground::units::{float, MAX_MS};

/// serde's `Deserialize` for a configuration type through its reader: the
/// input becomes a [`Value`] first, so every serde format gets the rules of
/// [`PolicyConfig::from_value`](crate::PolicyConfig::from_value) (the error's
/// field path is in its message). It needs a self-describing format (JSON,
/// TOML, YAML, ...), as it reads with `deserialize_any`. A part of a
/// configuration other than a policy names the configuration it belongs to.
macro_rules! deserialize_through_value {
    ($type:ty, $read:expr, $config:expr) => {
        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <$crate::config::value::Value as serde::Deserialize>::deserialize(deserializer)?;
                let read: $crate::config::value::Reader<$type> = $read;
                $config.reading(read(&value, "")).map_err(serde::de::Error::custom)
            }
        }
    };
    ($type:ty, $read:expr) => {
        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <$crate::config::value::Value as serde::Deserialize>::deserialize(deserializer)?;
                let read: $crate::config::value::Reader<$type> = $read;
                read(&value, "").map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use deserialize_through_value;

/// The reading error at `field`. It names a policy until the public reader
/// that was called names its own configuration ([`ConfigKind::reading`]): a
/// field reader does not know whose field it reads. Cold and never inlined,
/// as every error path here: the reader's happy path stays small in the wasm
/// build.
#[cold]
#[inline(never)]
pub(crate) fn read_error(field: &str, message: Message) -> Error {
    Error::InvalidConfig { config: ConfigKind::Policy, field: Box::from(field), message }
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
    let what = match max {
        u64::MAX if names_milliseconds(path) => message!(WholeMilliseconds),
        u64::MAX => message!(WholeNumberFromZero),
        _ => message!(WholeNumber, max),
    };
    Err(expected_message(path, what, found))
}

/// Whether the field at `path` is a time in milliseconds: its name ends in
/// `_ms` (`backoff.base_ms`, `redelivery.delays_ms[1]`) or, spelt in
/// camelCase by a binding, `Ms`.
fn names_milliseconds(path: &str) -> bool {
    let name = path.rsplit('.').next().unwrap_or(path);
    let name = name.split('[').next().unwrap_or(name);
    name.ends_with("_ms") || name.ends_with("Ms")
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

/// A whole-number field with a rule of its own: the range its
/// configuration's validation enforces (`max_attempts` in 1..=128,
/// `budget.max_tokens` in 1..=1000, an HTTP status in 100..=599) and the
/// [`Rule`] that words it, with the arguments field, value found, `max` (a
/// rule may leave `max` out: an HTTP status's words name its range). Validation
/// refuses a number outside the range with it ([`Bounded::check`]); the reader
/// ([`Bounded::read`], [`Bounded::read_u16`] for a field kept in a `u16`,
/// [`Bounded::read_u64`] for a control's time in ms) refuses with the same
/// words what is no whole number of the type at all (2^32, -1, 2.5, a string;
/// 70000 for a `u16`), not with the range of the type it is kept in: one
/// field, one rule, whichever step finds the mistake (a breaker's
/// `half_open_probes` of -1, 0 and 2^32 are all "must be a whole number in
/// 1..=4294967295").
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounded {
    /// The least value the rule allows.
    pub(crate) min: u64,
    /// The largest value the rule allows.
    pub(crate) max: u64,
    /// The words of the rule: field, value, `max`.
    pub(crate) rule: Rule,
}

impl Bounded {
    /// The rule's message for `found` at `field`.
    #[cold]
    #[inline(never)]
    fn message(self, field: &str, found: Arg) -> Message {
        Message::new(self.rule, alloc::vec![Arg::from(String::from(field)), found, Arg::from(self.max)])
    }

    /// Reads the field's `u32` at `path`; what is no `u32` at all is refused
    /// with the field's rule. A `u32` outside the range is read: validation
    /// refuses it with every other broken rule.
    pub(crate) fn read(self, value: &Value, path: &str) -> Result<u32, Error> {
        u32::from_value(value, path).map_err(|_| self.refused(value, path))
    }

    /// [`Bounded::read`] for a field kept in a `u64` (a time in ms): what is
    /// no `u64` at all is refused with the field's rule.
    pub(crate) fn read_u64(self, value: &Value, path: &str) -> Result<u64, Error> {
        u64::from_value(value, path).map_err(|_| self.refused(value, path))
    }

    /// [`Bounded::read`] for a field kept in a `u16` (an HTTP status): what
    /// is no `u16` at all (70000 included) is refused with the field's rule.
    pub(crate) fn read_u16(self, value: &Value, path: &str) -> Result<u16, Error> {
        // Through the u32 reader (one reader of whole numbers in the wasm), then the u16's own range.
        let number = self.read(value, path)?;
        u16::try_from(number).map_err(|_| self.refused(value, path))
    }

    /// The reading error of `value` at `path`, no whole number of the field's type: the rule's words.
    #[cold]
    #[inline(never)]
    fn refused(self, value: &Value, path: &str) -> Error {
        let found = match value {
            Value::Number(number) => number.arg(),
            other => Arg::from(other.describe()),
        };
        read_error(path, self.message(path, found))
    }

    /// The violation at `field` when `value` is outside the range.
    pub(crate) fn check(self, field: &str, value: u64) -> Option<Violation> {
        (!(self.min..=self.max).contains(&value)).then(|| Violation::new(field, self.message(field, value.into())))
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

/// A duration that must be at least 1 ms (a policy's `total_timeout_ms` and
/// `attempt_timeout.fixed_ms`, a breaker's `open_ms`, a window's `window_ms`):
/// 1 ms to `MAX_MS`, read and validated in the same words.
pub(crate) const DURATION_MS: Bounded = Bounded { min: 1, max: MAX_MS, rule: Rule::OutOfRange };

/// Reads a duration of at least 1 ms at `path`: what is no whole number of ms
/// is refused in [`DURATION_MS`]'s words (one reader for every such field).
pub(crate) fn read_duration_ms(value: &Value, path: &str) -> Result<u64, Error> {
    DURATION_MS.read_u64(value, path)
}

/// The names of `T`'s variants, for messages.
fn names<T: Named>() -> Arg {
    Arg::Names(T::ALL.iter().map(|variant| alloc::borrow::Cow::Borrowed(variant.name())).collect())
}

/// Reads an enum's name (what the bindings use for names in events, too).
///
/// # Errors
/// [`Error::InvalidConfig`] at `path` naming the accepted names.
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
        Fields::with_old_names(value, path, known, &[])
    }

    /// [`Fields::new`] that also accepts `old_names`, deprecated names read for
    /// one release: an unknown field's message lists only the `known` ones,
    /// so it never suggests an old name.
    pub(crate) fn with_old_names(
        value: &'a Value,
        path: &'a str,
        known: &[&str],
        old_names: &[&str],
    ) -> Result<Fields<'a>, Error> {
        let Value::Object(fields) = value else {
            return Err(expected(path, Rule::Object, value));
        };
        for (index, (key, _)) in fields.iter().enumerate() {
            // A key is echoed as an excerpt: a bad configuration must not copy megabytes into an error.
            if !known.contains(&key.as_str()) && !old_names.contains(&key.as_str()) {
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

    /// `key` read as `bounded`'s field; it must be present.
    pub(crate) fn required_bounded(&self, key: &str, bounded: Bounded) -> Result<u32, Error> {
        match self.get(key) {
            Some(value) => bounded.read(value, &self.path(key)),
            None => Err(read_error(&self.path(key), message!(MissingField, String::from(key)))),
        }
    }

    /// `key` read as `bounded`'s field; absent or `null` is `None`.
    pub(crate) fn optional_bounded(&self, key: &str, bounded: Bounded) -> Result<Option<u32>, Error> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => bounded.read(value, &self.path(key)).map(Some),
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
            (object("total_timeout_ms", Value::String(huge.clone())), "total_timeout_ms"),
            (object(&huge, Value::Null), ""),
        ] {
            let error = crate::PolicyConfig::from_value(&config).unwrap_err();
            let Error::InvalidConfig { field: at, .. } = &error else { panic!("{error:?}") };
            assert!(error.to_string().len() < 1_000, "{} bytes", error.to_string().len());
            assert!(at.starts_with(field) && at.len() < 100, "{at}");
            assert!(error.to_string().contains(&format!("{}…", "x".repeat(64))), "{error}");
        }
    }

    #[test]
    fn whole_numbers_name_the_range_and_what_was_found() {
        let error = u32::from_value(&Value::Number(Number::Negative(-5)), "a.b").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid policy configuration at `a.b`: expected a whole number from 0 to 4294967295, found the number -5"
        );
        // No 0..=2^64-1: the limit as a person says it, in milliseconds for a time.
        let said = |path: &str| u64::from_value(&Value::Number(Number::Negative(-5)), path).unwrap_err().to_string();
        assert_eq!(
            said("backoff.base_ms"),
            "invalid policy configuration at `backoff.base_ms`: expected a whole number of milliseconds, 0 or more, found the number -5"
        );
        assert!(said("redelivery.delays_ms[1]").contains("expected a whole number of milliseconds, 0 or more"));
        assert!(said("hedging.delayMs").contains("expected a whole number of milliseconds, 0 or more"));
        assert!(said("seed").contains("expected a whole number, 0 or more, found"));
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
            format!("invalid policy configuration at `max_attempts`: expected a whole number from 0 to 4294967295, found the string \"{cut}\"")
        );
        let unknown = Value::Object(vec![(huge.clone(), Value::Null)]);
        let Err(Error::InvalidConfig { field, message, .. }) = Fields::new(&unknown, "backoff", &["a"]) else {
            panic!("expected a reading error")
        };
        assert_eq!(&*field, format!("backoff.{cut}"));
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
        let Err(Error::InvalidConfig { field, message, .. }) = Fields::new(&value, "x", &["a"]) else {
            panic!("expected a reading error")
        };
        assert_eq!((&*field, message.to_string().as_str()), ("x.a", "duplicate field `a`"));
        assert!(Fields::new(&value, "", &["b"]).is_err());
        assert!(Fields::new(&Value::List(vec![]), "", &["b"]).is_err());
    }
}
