//! What reading a service config finds besides the policies: a warning for
//! each value A6 says to change rather than refuse, and the error of a rule
//! broken. Both the walk through the JSON ([`super::service_config`]) and
//! the A6 rules ([`super::a6`]) report them, so they live here, under both.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::error::{ConfigKind, Error, Violation};
use crate::ground::message::Message;

/// Something the reader changed rather than refused, as A6 says to.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ConfigWarning {
    /// The field path, such as `methodConfig[0].retryPolicy.maxAttempts`.
    pub field: String,
    /// What was changed, with the values.
    pub message: Message,
}

/// The warnings of one read, in the order they were found.
#[derive(Default)]
pub(crate) struct Warnings(pub(crate) Vec<ConfigWarning>);

impl Warnings {
    /// Notes that the value at `field` was changed, and how.
    pub(crate) fn warn(&mut self, field: &str, message: Message) {
        self.0.push(ConfigWarning { field: field.to_owned(), message });
    }
}

/// A rule broken at `field`.
pub(crate) fn rule(field: &str, message: Message) -> Error {
    Error::ConfigViolations {
        config: ConfigKind::ServiceConfig,
        violations: alloc::vec![Violation::new(field, message)],
    }
}
