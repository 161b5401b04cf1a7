//! An error as data: [`Error::fields`], the one generic conversion a binding
//! makes its exception's attributes with. It is a [`Value`] made from an
//! [`Error`], so it lives with the values (which already read into errors),
//! not with the errors (which would then import the values back).

use alloc::string::String;
use alloc::vec::Vec;

use super::Value;
use crate::config::error::{Error, Violation};
use crate::ground::message::Message;
use crate::headers::retry_after::HeaderError;

impl Error {
    /// The error's fields as data, in the variant's order, each under its
    /// name in the variant (`config`, `violations`, `field`, `message`, ...):
    /// what a binding makes its exception's attributes with one generic
    /// conversion, where the mirrors (core/mirrors) generate each language's
    /// error classes from the same variants. A configuration kind is its
    /// [`name`](crate::config::error::ConfigKind::name), a [`Message`] its text, a [`Violation`]
    /// an object `{field, message}`. [`Error::InvalidHeader`] and
    /// [`Error::InvalidRequestHeader`] have their [`HeaderError`]'s fields: `header`, `kind` (the variant's snake_case
    /// name: `empty`, `malformed` or `out_of_range`), then those of that
    /// variant. [`Error::OperationEnded`] has none.
    ///
    /// ```
    /// use retryplan::config::value::Value;
    /// use retryplan::Error;
    /// use retryplan::headers::retry_after::HeaderError;
    /// let error = Error::AttemptNotRunning { attempt: 3, running: vec![1] };
    /// let running = Value::List(vec![Value::unsigned(1)]);
    /// assert_eq!(error.fields(), [("attempt", Value::unsigned(3)), ("running", running)]);
    /// let header = Error::InvalidHeader(HeaderError::Empty { header: "retry-after" });
    /// assert_eq!(header.fields(), [("header", Value::string("retry-after")), ("kind", Value::string("empty"))]);
    /// ```
    #[must_use]
    pub fn fields(&self) -> Vec<(&'static str, Value)> {
        let text = |message: &Message| Value::String(alloc::string::ToString::to_string(message));
        let list = |items: &[String]| Value::List(items.iter().map(|item| Value::string(item)).collect());
        match self {
            Error::ConfigViolations { config, violations } => {
                let violation = |violation: &Violation| {
                    let field = (String::from("field"), Value::string(&violation.field));
                    Value::Object(alloc::vec![field, (String::from("message"), text(&violation.message))])
                };
                let violations = Value::List(violations.iter().map(violation).collect());
                alloc::vec![("config", Value::string(config.name())), ("violations", violations)]
            }
            Error::InvalidConfig { config, field, message } => alloc::vec![
                ("config", Value::string(config.name())),
                ("field", Value::string(field)),
                ("message", text(message)),
            ],
            Error::UnknownProfile { profile, known } => {
                alloc::vec![("profile", Value::string(profile)), ("known", list(known))]
            }
            Error::OperationEnded => Vec::new(),
            Error::AttemptNotRunning { attempt, running } => {
                let running = running.iter().map(|attempt| Value::unsigned(u64::from(*attempt))).collect();
                alloc::vec![("attempt", Value::unsigned(u64::from(*attempt))), ("running", Value::List(running))]
            }
            Error::InvalidArgument { field, rule } => {
                alloc::vec![("field", Value::string(field)), ("rule", text(rule))]
            }
            Error::Unsupported { field, rule } => alloc::vec![("field", Value::string(field)), ("rule", text(rule))],
            Error::InvalidHeader(header) => header_fields(header),
            Error::InvalidRequestHeader(header) => header_fields(header),
            Error::EntropyUnavailable { message } => alloc::vec![("message", Value::string(message))],
        }
    }
}

/// A [`HeaderError`]'s fields: `header`, `kind`, then those of its variant.
fn header_fields(header: &HeaderError) -> Vec<(&'static str, Value)> {
    let (kind, more) = match header {
        HeaderError::Empty { .. } => ("empty", Vec::new()),
        HeaderError::Malformed { expected, value, .. } => {
            ("malformed", alloc::vec![("expected", Value::string(expected)), ("value", Value::string(value))])
        }
        HeaderError::OutOfRange { limit, value, .. } => {
            ("out_of_range", alloc::vec![("limit", Value::string(limit)), ("value", Value::string(value))])
        }
    };
    let mut fields = alloc::vec![("header", Value::string(header.header())), ("kind", Value::string(kind))];
    fields.extend(more);
    fields
}
