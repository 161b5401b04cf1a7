//! Errors: the caller's misuse of the engine, never the normal failure path.
//!
//! A failed attempt is an [`Outcome`](crate::Outcome) and giving up is a
//! [`Decision`](crate::Decision). [`Error`] is reserved for input the engine
//! cannot accept: an invalid policy, an outcome for an attempt that is not
//! running, an event after the operation ended, a header it cannot read.

//!
//! Every error is data: its [`code`](Error::code), its [`blame`](Error::blame)
//! (who must act), its typed fields, and its [`message`](Error::message) (a
//! [`Message`]: a rule and the values it names), which
//! [`Display`](core::fmt::Display) composes into text.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::ground::message::{message, Message};
use crate::ground::suggest::did_you_mean;
use crate::headers::retry_after::HeaderError;

/// One rule a configuration breaks: the dotted field path (from the
/// configuration the error names) and the rule with its values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// Dotted path of the offending field, e.g. `backoff.cap_ms`.
    pub field: String,
    /// The rule it breaks, with the values involved, e.g.
    /// `backoff.cap_ms (100) must be >= backoff.base_ms (200)`.
    pub message: Message,
}

impl Violation {
    /// The violation of `message` at `field`.
    #[must_use]
    pub fn new(field: &str, message: Message) -> Violation {
        Violation { field: String::from(field), message }
    }
}

impl core::fmt::Display for Violation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.message.fmt(f)
    }
}

/// Who must act to fix an [`Error`]: what to do about it, as opposed to what
/// went wrong ([`Error::code`]). Every code has exactly one blame.
///
/// | blame | codes | who acts | [misuse](Blame::is_misuse) |
/// |---|---|---|---|
/// | [`Caller`](Blame::Caller) | `operation_ended`, `attempt_not_running`, `invalid_argument`, `invalid_request_header` | the code calling the engine (a bug in how it uses the API), or the caller of the service it serves (a request header it cannot read) | yes |
/// | [`Configuration`](Blame::Configuration) | `config_violations`, `invalid_config`, `unknown_profile`, `unsupported` | whoever wrote the configuration: fix the policy or pick another host | yes |
/// | [`Server`](Blame::Server) | `invalid_header` | the server: it answered with a header the engine cannot read | no |
/// | [`Environment`](Blame::Environment) | `entropy_unavailable` | the machine: the operating system's random source failed | no |
///
/// `unsupported` is configuration: the policy asks for something this host
/// cannot do (hedging where attempts run one at a time); the fix is to change
/// the policy or the host, not the calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Blame {
    /// Misuse of the API by the code calling it, or a request the caller of
    /// the service sent that cannot be read.
    Caller,
    /// A configuration the engine cannot accept or carry out.
    Configuration,
    /// What the server answered (a response header the engine cannot read).
    Server,
    /// The environment the engine runs in (the random source).
    Environment,
}

impl Blame {
    /// Every blame, in declaration order.
    pub const ALL: &'static [Blame] = &[Blame::Caller, Blame::Configuration, Blame::Server, Blame::Environment];

    /// The stable snake_case name, the same in every language binding.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Blame::Caller => "caller",
            Blame::Configuration => "configuration",
            Blame::Server => "server",
            Blame::Environment => "environment",
        }
    }

    /// Whether an error of this blame, raised inside an attempt (by the code
    /// the attempt runs), is misuse of retryplan itself rather than that
    /// attempt's failure: `Caller` and `Configuration` are, `Server` and
    /// `Environment` are not.
    ///
    /// What a host does with it: a misuse error is no attempt's outcome. The
    /// host hands in nothing for the attempt; it ends the operation and raises
    /// the error unchanged, never retried (the fix is in the caller's code or
    /// configuration: a retry would only raise it again). An error of any other
    /// blame raised inside an attempt is that attempt's error like any other:
    /// the host's failure table, then the caller's hook (by default the
    /// verdict for an unknown error). Every binding's host loop reads this,
    /// through the copy `retryplan-mirrors` writes of it.
    ///
    /// ```
    /// use retryplan::Blame;
    /// assert!(Blame::Caller.is_misuse());
    /// assert!(!Blame::Server.is_misuse());
    /// ```
    #[must_use]
    pub fn is_misuse(self) -> bool {
        match self {
            Blame::Caller | Blame::Configuration => true,
            Blame::Server | Blame::Environment => false,
        }
    }
}

impl crate::ground::named::Named for Blame {
    const ALL: &'static [Self] = Blame::ALL;
    fn name(self) -> &'static str {
        Blame::name(self)
    }
}

/// Which configuration the error [`Error::InvalidConfig`] was reading, or the
/// error [`Error::ConfigViolations`] was validating: the reader or constructor the
/// caller called, so that the error says which input to fix. A nested
/// configuration is named by the outer one (a dependency's budget is
/// `dependency`, at the field path `budget...`; a budget on its own is
/// `budget`, at `max_tokens`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConfigKind {
    /// A retry policy ([`PolicyConfig`](crate::PolicyConfig)).
    Policy,
    /// A dependency's shared controls ([`DependencyConfig`](crate::DependencyConfig)).
    Dependency,
    /// A retry budget on its own ([`BudgetConfig`](crate::controls::budget::BudgetConfig)).
    Budget,
    /// A circuit breaker on its own ([`BreakerConfig`](crate::controls::breaker::BreakerConfig)).
    Breaker,
    /// A gRPC service config ([`ServiceConfig`](crate::dialects::grpc::ServiceConfig)).
    ServiceConfig,
    /// A urllib3 `Retry`, read as a policy
    /// ([`Urllib3Retry`](crate::dialects::urllib3::Urllib3Retry)); its fields are
    /// the `Retry` attributes.
    Urllib3Retry,
}

impl crate::ground::named::Named for ConfigKind {
    const ALL: &'static [Self] = ConfigKind::ALL;
    fn name(self) -> &'static str {
        ConfigKind::name(self)
    }
}

impl ConfigKind {
    /// Every kind, in declaration order.
    pub const ALL: &'static [ConfigKind] = &[
        ConfigKind::Policy,
        ConfigKind::Dependency,
        ConfigKind::Budget,
        ConfigKind::Breaker,
        ConfigKind::ServiceConfig,
        ConfigKind::Urllib3Retry,
    ];

    /// The stable snake_case name, the same in every language binding.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ConfigKind::Policy => "policy",
            ConfigKind::Dependency => "dependency",
            ConfigKind::Budget => "budget",
            ConfigKind::Breaker => "breaker",
            ConfigKind::ServiceConfig => "service_config",
            ConfigKind::Urllib3Retry => "urllib3_retry",
        }
    }

    /// How messages name it: `invalid {words} configuration at ...`.
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            ConfigKind::ServiceConfig => "gRPC service",
            ConfigKind::Urllib3Retry => "urllib3 Retry",
            other => other.name(),
        }
    }

    /// How a violations message names it: `invalid {subject}: ...`. A policy
    /// keeps the words its users know (`invalid policy: ...`); every other
    /// configuration is named as a reading error names it (`invalid budget
    /// configuration: ...`).
    #[must_use]
    pub fn subject(self) -> String {
        let mut subject = String::from(self.words());
        if self != ConfigKind::Policy {
            subject.push_str(" configuration");
        }
        subject
    }

    /// `result`, its [`Error::InvalidConfig`] (if any) naming this kind
    /// (see [`Error::name_config`]): what every public reader applies to what
    /// its field readers return. In place: the configuration read is never
    /// moved (each move is code in the wasm build).
    ///
    /// # Errors
    /// The error of `result`, an [`Error::InvalidConfig`] naming this kind.
    pub fn reading<T>(self, mut result: Result<T, Error>) -> Result<T, Error> {
        if let Err(error) = &mut result {
            error.name_config(self);
        }
        result
    }
}

/// Misuse of the engine by its caller. Normal failures are decisions, not errors.
///
/// [`Error::code`] is the stable, language-neutral identifier every binding
/// exposes; messages may be reworded, codes may not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A configuration that reads breaks one or more rules: a policy, a
    /// dependency, a budget, a breaker, a gRPC service config or a urllib3 `Retry`, as `config`
    /// says. Every violation is listed, none is silently clamped, each
    /// naming its field from that configuration (`max_tokens` for a budget,
    /// `budget.max_tokens` for a dependency). Raised by
    /// [`Policy::new`](crate::Policy::new), the controls' constructors and
    /// the JSON readers; nothing is created. (Named `InvalidPolicy`, code
    /// `invalid_policy`, before this release.)
    ConfigViolations {
        /// Which configuration breaks the rules.
        config: ConfigKind,
        /// Every rule the configuration breaks, in field order.
        violations: Vec<Violation>,
    },
    /// A configuration could not be read (JSON syntax, a wrong type, an
    /// unknown field, a value out of its type's range): a policy, a
    /// dependency, a budget, a breaker, a gRPC service config or a urllib3 `Retry`, as `config`
    /// says. `field` is the dotted path where reading stopped (empty at the
    /// top level). Rules broken by a configuration that reads are
    /// [`Error::ConfigViolations`]. (Named `InvalidPolicyJson`, code
    /// `invalid_policy_json`, before this release.)
    InvalidConfig {
        /// Which configuration was being read.
        config: ConfigKind,
        /// Dotted path of the field being read when the error occurred
        /// (empty at the top level).
        // A `Box<str>`, not a `String`: it keeps `Error` at 32 bytes on
        // 32-bit targets, which every `Result` of the engine carries.
        field: Box<str>,
        /// What was wrong, as reported by the reader.
        message: Message,
    },
    /// No built-in profile has this name. See [`profiles::NAMES`](crate::dialects::profiles::NAMES).
    UnknownProfile {
        /// The profile name asked for (`profile`, as every binding names it).
        profile: String,
        /// The known names, in [`profiles::NAMES`](crate::dialects::profiles::NAMES) order.
        known: Vec<String>,
    },
    /// An outcome, cancellation or poll arrived after the operation ended.
    /// The operation stays ended; start a new one.
    OperationEnded,
    /// An outcome names an attempt that is not running (already reported,
    /// never started, or the operation is waiting). The operation is unchanged.
    AttemptNotRunning {
        /// The attempt number the outcome named.
        attempt: u32,
        /// The attempts running now, ascending (empty when none is).
        running: Vec<u32>,
    },
    /// A value handed to the engine cannot be represented (an HTTP status
    /// outside 100..=599, an empty idempotency key, a negative or non-finite
    /// time in a binding), or a grant cannot be used: a breaker `permit`,
    /// retry `charge` or retry `slot` already settled, or issued by another
    /// control ([`crate::config::grant`]). The refusing control is unchanged; a
    /// grant of another control is used up and goes back to the control that
    /// issued it, as if dropped.
    InvalidArgument {
        /// The argument it blames (`field`, as every binding names the input
        /// an error blames).
        field: &'static str,
        /// The rule it breaks.
        rule: Message,
    },
    /// The host cannot carry out a section of the policy as written (a host
    /// that runs one attempt at a time cannot hedge); `field` names the
    /// section. Nothing was started.
    Unsupported {
        /// The policy section, e.g. `hedging`.
        field: &'static str,
        /// Why, and what the caller can do instead.
        rule: Message,
    },
    /// A header value a server answered with could not be read
    /// (`Retry-After`, `retry-after-ms`, `RateLimit`; the header tools
    /// refuse a `grpc-timeout` the same way). A request header this service
    /// was sent is [`Error::InvalidRequestHeader`].
    InvalidHeader(HeaderError),
    /// A header value of the request being served could not be read (a
    /// propagation header: `grpc-timeout`, `retryplan-attempt`, ...), refused
    /// by [`IncomingContext::read`](crate::propagation::IncomingContext::read)
    /// naming the header and its rule. The caller of this service sent it:
    /// a host answers the request as malformed (HTTP 400, gRPC `INTERNAL`).
    // Boxed, as `field` of `InvalidConfig` is: a second inline `HeaderError`
    // grew `Error` (and every `Result` of the engine) from 64 to 72 bytes on
    // 64-bit targets, and the Node wasm by 979 B gzip.
    InvalidRequestHeader(Box<HeaderError>),
    /// The operating system's random source failed (only with the `entropy`
    /// feature, when drawing a seed or an idempotency key).
    EntropyUnavailable {
        /// What the random source reported.
        message: String,
    },
}

impl Error {
    /// Every code [`Error::code`] returns, in the variants' order: the table
    /// the bindings' lists of codes are generated from (core/mirrors).
    pub const CODES: [&'static str; 10] = [
        "config_violations",
        "invalid_config",
        "unknown_profile",
        "operation_ended",
        "attempt_not_running",
        "invalid_argument",
        "unsupported",
        "invalid_header",
        "invalid_request_header",
        "entropy_unavailable",
    ];

    /// Codes renamed in this release, `(old, new)`: no error has the old one,
    /// and the bindings still list it, deprecated, for one release.
    pub const RENAMED_CODES: [(&'static str, &'static str); 2] =
        [("invalid_policy", "config_violations"), ("invalid_policy_json", "invalid_config")];
    /// The error for a millisecond argument (a clock reading, a delay, a
    /// `retry_after_ms`) outside `0..=2^53 - 1`, the range of every time the
    /// engine keeps: one message for every binding, naming the argument and
    /// what was passed (`got`, as the caller wrote it: `-1`, `2**64`).
    ///
    /// ```
    /// use retryplan::Error;
    /// assert_eq!(
    ///     Error::ms_out_of_range("retry_after_ms", -1).to_string(),
    ///     "invalid argument `retry_after_ms`: must be a whole number of milliseconds in 0..=2^53 - 1 (9007199254740991), got -1"
    /// );
    /// ```
    #[must_use]
    pub fn ms_out_of_range(name: &'static str, got: impl core::fmt::Display) -> Error {
        let got = alloc::string::ToString::to_string(&got);
        Error::InvalidArgument { field: name, rule: message!(MsOutOfRange, crate::ground::units::MAX_MS, got) }
    }

    /// A millisecond argument checked: `ms` when it is at most
    /// [`MAX_MS`](crate::policy::MAX_MS) (2^53 - 1).
    ///
    /// # Errors
    /// [`Error::ms_out_of_range`] above it.
    ///
    /// ```
    /// use retryplan::Error;
    /// use retryplan::policy::MAX_MS;
    /// assert_eq!(Error::check_ms("now_ms", MAX_MS), Ok(MAX_MS));
    /// assert!(Error::check_ms("now_ms", MAX_MS + 1).is_err());
    /// ```
    pub fn check_ms(name: &'static str, ms: u64) -> Result<u64, Error> {
        if ms <= crate::ground::units::MAX_MS {
            Ok(ms)
        } else {
            Err(Error::ms_above_max(name, ms))
        }
    }

    /// [`Error::ms_out_of_range`] of a `u64` past [`MAX_MS`](crate::policy::MAX_MS),
    /// the number kept as data rather than formatted (a wasm build composes
    /// the text in JS, without Rust's formatting code). Out of line: the
    /// checks that call it are on every call's path.
    #[cold]
    #[inline(never)]
    pub(crate) fn ms_above_max(name: &'static str, ms: u64) -> Error {
        Error::InvalidArgument { field: name, rule: message!(MsOutOfRange, crate::ground::units::MAX_MS, ms) }
    }

    /// The stable snake_case identifier of this kind of error, the same in
    /// every language binding.
    ///
    /// ```
    /// use retryplan::{Error, PolicyConfig, Policy};
    /// let mut config = PolicyConfig::default();
    /// config.max_attempts = 0;
    /// let error = Policy::new(&config).unwrap_err();
    /// assert_eq!(error.code(), "config_violations");
    /// ```
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Error::ConfigViolations { .. } => "config_violations",
            Error::InvalidConfig { .. } => "invalid_config",
            Error::UnknownProfile { .. } => "unknown_profile",
            Error::OperationEnded => "operation_ended",
            Error::AttemptNotRunning { .. } => "attempt_not_running",
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::Unsupported { .. } => "unsupported",
            Error::InvalidHeader(_) => "invalid_header",
            Error::InvalidRequestHeader(_) => "invalid_request_header",
            Error::EntropyUnavailable { .. } => "entropy_unavailable",
        }
    }

    /// Names `config` as the configuration being read, if this is an
    /// [`Error::InvalidConfig`] (any other error is unchanged): a field
    /// reader does not know whose field it reads, so every public reader
    /// names its configuration ([`ConfigKind::reading`]).
    #[cold]
    #[inline(never)]
    pub fn name_config(&mut self, config: ConfigKind) {
        if let Error::InvalidConfig { config: named, .. } = self {
            *named = config;
        }
    }

    /// Who must act to fix this error (see [`Blame`]).
    ///
    /// ```
    /// use retryplan::{Blame, Error};
    /// assert_eq!(Error::OperationEnded.blame(), Blame::Caller);
    /// assert_eq!(Error::OperationEnded.blame().name(), "caller");
    /// ```
    #[must_use]
    pub fn blame(&self) -> Blame {
        match self {
            Error::OperationEnded
            | Error::AttemptNotRunning { .. }
            | Error::InvalidArgument { .. }
            | Error::InvalidRequestHeader(_) => Blame::Caller,
            Error::ConfigViolations { .. }
            | Error::InvalidConfig { .. }
            | Error::UnknownProfile { .. }
            | Error::Unsupported { .. } => Blame::Configuration,
            Error::InvalidHeader(_) => Blame::Server,
            Error::EntropyUnavailable { .. } => Blame::Environment,
        }
    }

    /// The whole error as a message (its rule and values), as
    /// [`Display`](core::fmt::Display) writes it.
    #[must_use]
    pub fn message(&self) -> Message {
        match self {
            Error::ConfigViolations { config, violations } => {
                message!(
                    ConfigViolations,
                    config.subject(),
                    violations.iter().map(|violation| violation.message.clone()).collect::<Vec<_>>()
                )
            }
            Error::InvalidConfig { config, field, message } if field.is_empty() => {
                message!(InvalidConfigWhole, config.words(), message.clone())
            }
            Error::InvalidConfig { config, field, message } => {
                message!(InvalidConfig, config.words(), String::from(&**field), message.clone())
            }
            Error::UnknownProfile { profile, known } => {
                let hint = did_you_mean(profile, known.iter().map(String::as_str));
                message!(UnknownProfile, profile, hint, known.join(", "))
            }
            Error::OperationEnded => message!(OperationEnded),
            Error::AttemptNotRunning { attempt, running } => {
                message!(AttemptNotRunning, *attempt, attempt_list(running))
            }
            Error::InvalidArgument { field, rule } => message!(InvalidArgument, *field, rule.clone()),
            Error::Unsupported { field, rule } => message!(Unsupported, *field, rule.clone()),
            Error::InvalidHeader(header) => header.message(),
            Error::InvalidRequestHeader(header) => message!(InvalidRequestHeader, header.message()),
            Error::EntropyUnavailable { message } => message!(EntropyUnavailable, message),
        }
    }
}

/// Attempt numbers as the message writes them: `1, 2`, or `none`.
fn attempt_list(attempts: &[u32]) -> String {
    let mut list = String::new();
    for attempt in attempts {
        if !list.is_empty() {
            list.push_str(", ");
        }
        crate::ground::text::push_decimal(&mut list, u64::from(*attempt));
    }
    if list.is_empty() {
        list.push_str("none");
    }
    list
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.message().fmt(f)
    }
}

/// The header error an [`Error::InvalidHeader`] or [`Error::InvalidRequestHeader`]
/// wraps is its `source()`; the other variants wrap no error.
///
/// ```
/// use core::error::Error as _;
/// use retryplan::headers::retry_after::parse_retry_after;
/// let error: retryplan::Error = parse_retry_after("soon", 0).unwrap_err().into();
/// assert_eq!(error.source().map(ToString::to_string), Some(parse_retry_after("soon", 0).unwrap_err().to_string()));
/// ```
impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Error::InvalidHeader(header) => Some(header),
            Error::InvalidRequestHeader(header) => Some(&**header),
            _ => None,
        }
    }
}

impl From<HeaderError> for Error {
    fn from(error: HeaderError) -> Error {
        Error::InvalidHeader(error)
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::vec;

    use super::*;

    #[test]
    fn typed_lists_are_written_as_before() {
        let running = Error::AttemptNotRunning { attempt: 3, running: vec![1, 2] };
        assert_eq!(running.to_string(), "attempt 3 is not running (running: 1, 2)");
        let none = Error::AttemptNotRunning { attempt: 3, running: Vec::new() };
        assert_eq!(none.to_string(), "attempt 3 is not running (running: none)");
        let profile =
            Error::UnknownProfile { profile: String::from("x"), known: vec![String::from("a"), String::from("b")] };
        assert_eq!(profile.to_string(), "unknown profile `x` (known: a, b)");
    }

    /// A misspelt profile, or one in other letter case, is offered as what was meant, as a misspelt field is.
    #[test]
    fn an_unknown_profile_offers_the_closest_known_one() {
        let known = || vec![String::from("read"), String::from("checkout"), String::from("aws_standard")];
        let typo = Error::UnknownProfile { profile: String::from("chekout"), known: known() };
        assert_eq!(
            typo.to_string(),
            "unknown profile `chekout` (did you mean `checkout`?) (known: read, checkout, aws_standard)"
        );
        let upper = Error::UnknownProfile { profile: String::from("AWS_STANDARD"), known: known() };
        assert!(upper.to_string().starts_with("unknown profile `AWS_STANDARD` (did you mean `aws_standard`?) (known:"));
        let far = Error::UnknownProfile { profile: String::from("fast"), known: known() };
        assert_eq!(far.to_string(), "unknown profile `fast` (known: read, checkout, aws_standard)");
    }

    /// Misuse is the blame of the caller's code or configuration: the fix is there, so a host never retries it.
    #[test]
    fn misuse_is_the_callers_and_the_configurations_blame() {
        let misuse: Vec<&str> = Blame::ALL.iter().filter(|blame| blame.is_misuse()).map(|blame| blame.name()).collect();
        assert_eq!(misuse, ["caller", "configuration"]);
        assert!(Error::OperationEnded.blame().is_misuse());
        assert!(!Error::EntropyUnavailable { message: String::new() }.blame().is_misuse());
    }

    #[test]
    fn a_violations_error_names_its_configuration() {
        let texts: Vec<String> = ConfigKind::ALL
            .iter()
            .map(|&config| {
                let violations = vec![Violation::new("a", Message::from("x")), Violation::new("b", Message::from("y"))];
                Error::ConfigViolations { config, violations }.to_string()
            })
            .collect();
        assert_eq!(
            texts,
            [
                "invalid policy: x; y",
                "invalid dependency configuration: x; y",
                "invalid budget configuration: x; y",
                "invalid breaker configuration: x; y",
                "invalid gRPC service configuration: x; y",
                "invalid urllib3 Retry configuration: x; y",
            ]
        );
    }

    #[test]
    fn a_reading_error_names_its_configuration() {
        let names: Vec<&str> = ConfigKind::ALL.iter().map(|kind| kind.name()).collect();
        assert_eq!(names, ["policy", "dependency", "budget", "breaker", "service_config", "urllib3_retry"]);
        let read: Result<(), Error> = Err(Error::InvalidConfig {
            config: ConfigKind::Policy,
            field: Box::from("budget.kind"),
            message: Message::from("x"),
        });
        let error = ConfigKind::Dependency.reading(read).unwrap_err();
        assert_eq!(error.to_string(), "invalid dependency configuration at `budget.kind`: x");
        assert_eq!((error.code(), error.blame()), ("invalid_config", Blame::Configuration));
        let service = ConfigKind::ServiceConfig.reading::<()>(Err(error)).unwrap_err();
        assert_eq!(service.to_string(), "invalid gRPC service configuration at `budget.kind`: x");
        // Any other error passes through unchanged.
        assert_eq!(ConfigKind::Budget.reading::<()>(Err(Error::OperationEnded)), Err(Error::OperationEnded));
    }
}
