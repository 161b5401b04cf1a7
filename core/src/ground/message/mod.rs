//! Messages as data: a [`Rule`] (what was wrong, one stable id each) and the
//! values it names ([`Arg`]), composed into text by one table of templates.
//!
//! Every error and warning of the engine is a [`Message`]. Rust composes it
//! with [`Display`](core::fmt::Display), following the template of its rule
//! ([`Rule::template`]); the JavaScript binding composes it outside its wasm
//! from the same table (`bindings-js/lib/messages.js` is generated from
//! [`Rule::ALL`]), so the wasm carries no message text and no formatting
//! machinery, and both spell every message byte for byte alike (the
//! conformance runners check it on every error vector).
//!
//! A template is text with placeholders: `{0}` is the first value, `{1:q}`
//! the second in double quotes with escapes (see [`Arg::Text`]), and `{{` /
//! `}}` are literal braces. How each kind of value is written:
//!
//! | value | written as |
//! |---|---|
//! | [`Arg::Text`] | as is; with `:q`, quoted: `"` and `\` escaped with `\`, control and invisible formatting characters as `\u{hex}` |
//! | [`Arg::Unsigned`], [`Arg::Signed`] | decimal digits |
//! | [`Arg::Float`] | decimal digits, at most 15 significant ones and 12 decimals, no exponent (`0.1`, `2`, `-1.5`; `NaN`, `over 10^19`, `below -10^19`, `a number closer to 0 than 10^-12`) |
//! | [`Arg::Names`] | each name in backticks, joined by `, ` |
//! | [`Arg::Message`] | its own text |
//! | [`Arg::Messages`] | their texts joined by `; ` |
//!
//! ```
//! use retryplan::{Error, Policy, PolicyConfig};
//! use retryplan::ground::message::{Arg, Rule};
//! let config = PolicyConfig { backoff: retryplan::policy::BackoffConfig { base_ms: 200, cap_ms: 100, ..Default::default() }, ..Default::default() };
//! let Err(Error::ConfigViolations { violations, .. }) = Policy::new(&config) else { unreachable!() };
//! let message = &violations[0].message;
//! assert_eq!(message.rule(), Rule::CapBelowBase);
//! assert_eq!(message.rule().id(), "cap_below_base");
//! assert_eq!(message.args(), [Arg::Unsigned(100), Arg::Unsigned(200)]);
//! assert_eq!(message.to_string(), "backoff.cap_ms (100) must be >= backoff.base_ms (200)");
//! ```

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::ground::text::Quoted;
use crate::ground::units::{Decimal, Permille};

mod rules;

pub use rules::Rule;

/// A value inside a [`Message`] (see the module docs for how each is written).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Arg {
    /// Text: a field path, a name, a caller's value (quoted by `{n:q}`).
    Text(Cow<'static, str>),
    /// A whole number >= 0.
    Unsigned(u64),
    /// A whole number < 0.
    Signed(i64),
    /// A number with a fraction, as a configuration holds it.
    Float(f64),
    /// Names, each in backticks, joined by `, `.
    Names(Vec<Cow<'static, str>>),
    /// A message inside this one.
    Message(Box<Message>),
    /// Messages, joined by `; `.
    Messages(Vec<Message>),
}

impl PartialEq for Arg {
    /// Floats compare by their bits, so that every message equals itself.
    fn eq(&self, other: &Arg) -> bool {
        match (self, other) {
            (Arg::Text(a), Arg::Text(b)) => a == b,
            (Arg::Unsigned(a), Arg::Unsigned(b)) => a == b,
            (Arg::Signed(a), Arg::Signed(b)) => a == b,
            (Arg::Float(a), Arg::Float(b)) => a.to_bits() == b.to_bits(),
            (Arg::Names(a), Arg::Names(b)) => a == b,
            (Arg::Message(a), Arg::Message(b)) => a == b,
            (Arg::Messages(a), Arg::Messages(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Arg {}

impl From<&'static str> for Arg {
    fn from(text: &'static str) -> Arg {
        Arg::Text(Cow::Borrowed(text))
    }
}

impl From<String> for Arg {
    fn from(text: String) -> Arg {
        Arg::Text(Cow::Owned(text))
    }
}

impl From<&String> for Arg {
    fn from(text: &String) -> Arg {
        Arg::Text(Cow::Owned(text.clone()))
    }
}

impl From<u64> for Arg {
    fn from(number: u64) -> Arg {
        Arg::Unsigned(number)
    }
}

impl From<u32> for Arg {
    fn from(number: u32) -> Arg {
        Arg::Unsigned(u64::from(number))
    }
}

impl From<u16> for Arg {
    fn from(number: u16) -> Arg {
        Arg::Unsigned(u64::from(number))
    }
}

impl From<usize> for Arg {
    fn from(number: usize) -> Arg {
        Arg::Unsigned(u64::try_from(number).unwrap_or(u64::MAX))
    }
}

impl From<i64> for Arg {
    fn from(number: i64) -> Arg {
        u64::try_from(number).map_or(Arg::Signed(number), Arg::Unsigned)
    }
}

impl From<f64> for Arg {
    fn from(number: f64) -> Arg {
        Arg::Float(number)
    }
}

impl From<Message> for Arg {
    fn from(message: Message) -> Arg {
        Arg::Message(Box::new(message))
    }
}

impl From<Vec<Message>> for Arg {
    fn from(messages: Vec<Message>) -> Arg {
        Arg::Messages(messages)
    }
}

impl Arg {
    /// Names, each written in backticks.
    pub fn names<'a>(names: impl IntoIterator<Item = &'a str>) -> Arg {
        Arg::Names(names.into_iter().map(|name| Cow::Owned(String::from(name))).collect())
    }

    /// Names known at compile time (no copies).
    #[must_use]
    pub fn static_names(names: &[&'static str]) -> Arg {
        Arg::Names(names.iter().map(|name| Cow::Borrowed(*name)).collect())
    }
}

/// A message as data: its rule and the values it names. [`Display`](fmt::Display)
/// composes the text from the rule's template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    rule: Rule,
    args: Vec<Arg>,
}

impl Message {
    /// A message of `rule` naming `args`, in the order its template numbers them.
    #[must_use]
    pub fn new(rule: Rule, args: Vec<Arg>) -> Message {
        Message { rule, args }
    }

    /// Free text (a message the engine does not compose: see [`Rule::Text`]).
    #[must_use]
    pub fn text(text: impl Into<Cow<'static, str>>) -> Message {
        Message { rule: Rule::Text, args: alloc::vec![Arg::Text(text.into())] }
    }

    /// What the message says.
    #[must_use]
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The values it names.
    #[must_use]
    pub fn args(&self) -> &[Arg] {
        &self.args
    }
}

impl From<String> for Message {
    fn from(text: String) -> Message {
        Message::text(text)
    }
}

impl From<&'static str> for Message {
    fn from(text: &'static str) -> Message {
        Message::text(text)
    }
}

impl From<Message> for String {
    /// The message's text.
    fn from(message: Message) -> String {
        alloc::string::ToString::to_string(&message)
    }
}

impl PartialEq<str> for Message {
    /// True when the message reads `text`.
    fn eq(&self, text: &str) -> bool {
        alloc::string::ToString::to_string(self) == text
    }
}

impl PartialEq<&str> for Message {
    fn eq(&self, text: &&str) -> bool {
        *self == **text
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        compose(self.rule.template(), &self.args, f)
    }
}

impl serde::Serialize for Message {
    /// A message serializes as its text.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Writes `template` with its placeholders replaced by `args` (see the module docs).
fn compose(template: &str, args: &[Arg], out: &mut fmt::Formatter<'_>) -> fmt::Result {
    let mut rest = template;
    while let Some(brace) = rest.find(['{', '}']) {
        out.write_str(rest.get(..brace).unwrap_or_default())?;
        let after = rest.get(brace..).unwrap_or_default();
        if let Some(tail) = after.strip_prefix("{{").or_else(|| after.strip_prefix("}}")) {
            out.write_str(after.get(..1).unwrap_or_default())?;
            rest = tail;
            continue;
        }
        let end = after.find('}').unwrap_or(after.len());
        let placeholder = after.get(1..end).unwrap_or_default();
        let (index, spec) = placeholder.split_once(':').unwrap_or((placeholder, ""));
        match index.parse::<usize>().ok().and_then(|index| args.get(index)) {
            Some(arg) => write_arg(arg, spec == "q", out)?,
            // A template without its value (a bug in the table): shown, never a panic.
            None => out.write_str(after.get(..=end).unwrap_or(after))?,
        }
        rest = after.get(end + 1..).unwrap_or_default();
    }
    out.write_str(rest)
}

fn write_arg(arg: &Arg, quoted: bool, out: &mut fmt::Formatter<'_>) -> fmt::Result {
    match arg {
        Arg::Text(text) if quoted => write!(out, "{}", Quoted(text)),
        Arg::Text(text) => out.write_str(text),
        Arg::Unsigned(number) => write!(out, "{number}"),
        Arg::Signed(number) => write!(out, "{number}"),
        Arg::Float(number) => write!(out, "{}", Decimal(*number)),
        Arg::Names(names) => {
            for (index, name) in names.iter().enumerate() {
                out.write_str(if index == 0 { "`" } else { ", `" })?;
                out.write_str(name)?;
                out.write_str("`")?;
            }
            Ok(())
        }
        Arg::Message(message) => write!(out, "{message}"),
        Arg::Messages(messages) => {
            for (index, message) in messages.iter().enumerate() {
                if index > 0 {
                    out.write_str("; ")?;
                }
                write!(out, "{message}")?;
            }
            Ok(())
        }
    }
}

impl Permille {
    /// The message about `value` at `field` (here, not in the leaf
    /// [`crate::ground::units`], so that the leaf needs no messages).
    pub(crate) fn message(self, field: &str, value: f64) -> Message {
        match self {
            Permille::OutOfRange { low, high, open_low } => {
                message!(DecimalOutOfRange, String::from(field), value, if open_low { "(" } else { "[" }, low, high)
            }
            Permille::TooManyDecimals => message!(TooManyDecimals, String::from(field), value),
        }
    }
}

/// A message: `message!(Rule, arg, ...)`, each argument anything `Into<Arg>`.
macro_rules! message {
    ($rule:ident $(, $arg:expr)* $(,)?) => {
        $crate::ground::message::Message::new(
            $crate::ground::message::Rule::$rule,
            alloc::vec![$($crate::ground::message::Arg::from($arg)),*],
        )
    };
}
pub(crate) use message;

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn templates_number_their_values_and_escape_braces() {
        let found = message!(FoundString, "full");
        let message = message!(KindAsString, found, "full");
        assert_eq!(
            message.to_string(),
            "expected an object, found the string \"full\" (did you mean `{\"kind\": \"full\"}`?)"
        );
        let header = message!(HeaderMalformed, "retry-after", "delta-seconds", "soon\n\"x\"");
        assert_eq!(header.to_string(), "retry-after: expected delta-seconds, got \"soon\\u{a}\\\"x\\\"\"");
        let listed =
            message!(UnknownField, "jiter", message!(DidYouMean, "jitter"), Arg::static_names(&["jitter", "backoff"]));
        assert_eq!(
            listed.to_string(),
            "unknown field `jiter` (did you mean `jitter`?), expected one of `jitter`, `backoff`"
        );
        let joined = message!(
            ConfigViolations,
            "policy",
            alloc::vec![message!(AtLeastOne, "a", 0u64), message!(AtLeastOne, "b", 0u64)]
        );
        assert_eq!(
            joined.to_string(),
            "invalid policy: a (0) must be a whole number in 1..=4294967295; b (0) must be a whole number in 1..=4294967295"
        );
        assert_eq!(message!(FoundNumber, 0.1).to_string(), "the number 0.1");
        assert_eq!(message!(FoundNumber, -5i64).to_string(), "the number -5");
    }

    #[test]
    fn every_rule_has_a_unique_id_and_placeholders_for_its_values() {
        for (index, rule) in Rule::ALL.iter().enumerate() {
            assert!(Rule::ALL.iter().skip(index + 1).all(|other| other.id() != rule.id()), "{}", rule.id());
            assert!(rule.id().bytes().all(|byte| byte.is_ascii_lowercase() || byte == b'_'), "{}", rule.id());
            // Every placeholder is a number (with `:q` at most), in order from 0 with none missing.
            let template = rule.template().replace("{{", "").replace("}}", "");
            let mut highest = None;
            for piece in template.split('{').skip(1) {
                let (placeholder, _) = piece.split_once('}').expect("a closed placeholder");
                let (number, spec) = placeholder.split_once(':').unwrap_or((placeholder, ""));
                assert!(spec.is_empty() || spec == "q", "{}: {placeholder}", rule.id());
                let number: usize = number.parse().expect("a numbered placeholder");
                assert!(number <= highest.map_or(0, |high| high + 1), "{}: {placeholder}", rule.id());
                highest = highest.max(Some(number));
            }
        }
    }
}
