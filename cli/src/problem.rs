//! One problem in a `retryplan` file: the dotted path of the field and the
//! rule it breaks. The plan's reader ([`crate::file`]) and the scenario's
//! ([`crate::scenario`]) both report them, and `main` prints them, so the
//! type lives here on its own, below both readers.

use retryplan::config::value::excerpt;
use serde::Serialize;

/// One problem: where, and the rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Dotted path of the field (empty for the whole file).
    pub field: String,
    /// The rule it breaks, in words.
    pub message: String,
}

/// The longest field path and message a problem keeps, in characters: a
/// key or value of the file is quoted as an excerpt, never whole.
const MAX_FIELD_CHARS: usize = 256;
pub(crate) const MAX_MESSAGE_CHARS: usize = 512;

impl Problem {
    /// The problem at `field` (a dotted path), breaking the rule `message`
    /// says; each quoted as an excerpt when longer than a problem keeps.
    #[must_use]
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { field: excerpt(&field.into(), MAX_FIELD_CHARS), message: excerpt(&message.into(), MAX_MESSAGE_CHARS) }
    }

    /// The problem in one line, its path said once: `field: message`, or,
    /// when the message begins with the end of the path (a rule names its
    /// field: `max_attempts (0) must be a whole number in 1..=128` at `policy.max_attempts`),
    /// the path with the rest of the message (`policy.max_attempts (0) must
    /// be in 1..=128`).
    #[must_use]
    pub fn line(&self) -> String {
        if self.field.is_empty() {
            return format!("(file): {}", self.message);
        }
        let mut start = 0;
        loop {
            let tail = &self.field[start..];
            if self.message.strip_prefix(tail).is_some_and(|rest| rest.starts_with(' ')) {
                return format!("{}{}", &self.field[..start], self.message);
            }
            match tail.find('.') {
                Some(dot) => start += dot + 1,
                None => return format!("{}: {}", self.field, self.message),
            }
        }
    }
}
