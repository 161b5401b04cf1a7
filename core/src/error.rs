//! Errors: the caller's misuse of the engine, never the normal failure path.
//!
//! A failed attempt is an [`Outcome`](crate::Outcome) and giving up is a
//! [`Decision`](crate::Decision). [`Error`] is reserved for input the engine
//! cannot accept: an invalid policy, an outcome for an attempt that is not
//! running, an event after the operation ended, a header it cannot read.

use crate::retry_after::HeaderError;

/// One rule a policy breaks: the dotted field path and the rule, in words.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// Dotted path of the offending field, e.g. `backoff.cap_ms`.
    pub field: String,
    /// The rule it breaks, with the values involved, e.g.
    /// `backoff.cap_ms (100) must be >= backoff.base_ms (200)`.
    pub message: String,
}

impl core::fmt::Display for Violation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Misuse of the engine by its caller. Normal failures are decisions, not errors.
///
/// [`Error::code`] is the stable, language-neutral identifier every binding
/// exposes; messages may be reworded, codes may not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The policy breaks one or more rules; every violation is listed, none is
    /// silently clamped. Raised by [`Policy::new`](crate::Policy::new) and the
    /// JSON readers. No policy is created.
    #[error("invalid policy: {}", join_violations(.violations))]
    InvalidPolicy {
        /// Every rule the configuration breaks, in field order.
        violations: Vec<Violation>,
    },
    /// The policy JSON could not be read (syntax, a wrong type, an unknown
    /// field). `field` is the dotted path where reading stopped (empty at the
    /// top level).
    #[error("invalid policy JSON at `{field}`: {message}")]
    InvalidPolicyJson {
        /// Dotted path of the field being read when the error occurred.
        field: String,
        /// What was wrong, as reported by the JSON reader.
        message: String,
    },
    /// No built-in profile has this name. See [`profiles::NAMES`](crate::profiles::NAMES).
    #[error("unknown profile `{name}` (known: {known})")]
    UnknownProfile {
        /// The name asked for.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// An outcome, cancellation or poll arrived after the operation ended.
    /// The operation stays ended; start a new one.
    #[error("the operation already ended; start a new operation")]
    OperationEnded,
    /// An outcome names an attempt that is not running (already reported,
    /// never started, or the operation is waiting). The operation is unchanged.
    #[error("attempt {attempt} is not running (running: {running})")]
    AttemptNotRunning {
        /// The attempt number the outcome named.
        attempt: u32,
        /// The attempt that is running, or `none`.
        running: String,
    },
    /// A value handed to the engine cannot be represented (an HTTP status
    /// outside 100..=599, an empty idempotency key, a negative or non-finite
    /// time in a binding), or a grant cannot be used: a breaker `permit`,
    /// retry `charge` or retry `slot` already settled, or issued by another
    /// control ([`crate::grant`]). Nothing was changed.
    #[error("invalid argument `{name}`: {rule}")]
    InvalidArgument {
        /// The argument's name.
        name: &'static str,
        /// The rule it breaks.
        rule: String,
    },
    /// The host cannot carry out a section of the policy as written (a host
    /// that runs one attempt at a time cannot hedge); `field` names the
    /// section. Nothing was started.
    #[error("`{field}` cannot run here: {rule}")]
    Unsupported {
        /// The policy section, e.g. `hedging`.
        field: &'static str,
        /// Why, and what the caller can do instead.
        rule: &'static str,
    },
    /// A header value could not be read (Retry-After, grpc-timeout).
    #[error(transparent)]
    InvalidHeader(#[from] HeaderError),
    /// The operating system's random source failed (only with the `entropy`
    /// feature, when drawing a seed or an idempotency key).
    #[error("no entropy available: {message}")]
    EntropyUnavailable {
        /// What the random source reported.
        message: String,
    },
}

fn join_violations(violations: &[Violation]) -> String {
    let mut text = String::new();
    for (index, violation) in violations.iter().enumerate() {
        if index > 0 {
            text.push_str("; ");
        }
        text.push_str(&violation.message);
    }
    text
}

impl Error {
    /// The stable snake_case identifier of this kind of error, the same in
    /// every language binding.
    ///
    /// ```
    /// use retryplan::{Error, PolicyConfig, Policy};
    /// let mut config = PolicyConfig::default();
    /// config.max_attempts = 0;
    /// let error = Policy::new(&config).unwrap_err();
    /// assert_eq!(error.code(), "invalid_policy");
    /// ```
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidPolicy { .. } => "invalid_policy",
            Error::InvalidPolicyJson { .. } => "invalid_policy_json",
            Error::UnknownProfile { .. } => "unknown_profile",
            Error::OperationEnded => "operation_ended",
            Error::AttemptNotRunning { .. } => "attempt_not_running",
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::Unsupported { .. } => "unsupported",
            Error::InvalidHeader(_) => "invalid_header",
            Error::EntropyUnavailable { .. } => "entropy_unavailable",
        }
    }
}
