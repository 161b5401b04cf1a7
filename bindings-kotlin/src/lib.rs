//! The uniffi binding of `retryplan` for Kotlin (JVM and Android, through JNA)
//! and Swift. It converts types and errors and decides nothing: every rule
//! lives in the core crate.
//!
//! Boundary conventions:
//! - milliseconds are `i64` (Kotlin `Long`, Swift `Int64`), counts are `i32`;
//!   a negative value handed in is an `InvalidArgument` error, never clamped;
//! - a value the core returns above `i64::MAX` comes out as `i64::MAX` (the
//!   core keeps durations at most 2^53 - 1, so only sums with absurd clock
//!   readings near `i64::MAX` could reach it);
//! - seeds are 64 random bits: a negative `Long` is the same bits as a `u64`;
//! - request ids are the core's 16 lowercase hex digits, as sent in headers.
// The one exception, with a SAFETY comment on its one block: `wire.rs` reads and writes the caller's arrays.
#![deny(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::sync::{Mutex, MutexGuard, PoisonError};

use retryplan as rp;
use retryplan::{Blame, Class, ConfigKind, Repeatability};

uniffi::setup_scaffolding!();

mod config;
mod controls;
mod decision;
mod dialects;
mod driver;
mod generated;
mod operation;
mod policy;
mod wire;

pub use config::{
    AttemptTimeoutConfig, BackoffConfig, BreakerConfig, BudgetConfig, DependencyConfig, HedgingConfig, PolicyConfig,
    RedeliveryConfig, RetryLimitsConfig, RetryOnConfig, ServerGuidanceConfig, StatusGuidanceConfig, StatusSetConfig,
    TripConfig,
};
pub use controls::{
    BreakerPermit, BreakerSnapshot, BudgetSnapshot, CircuitBreaker, Dependency, DependencySnapshot, RetryBudget,
    RetryCharge, RetrySlot, RetrySlots,
};
pub use decision::{outcome_from_http, outcome_from_http_response, Decision, Outcome, Pushback};
pub use dialects::{
    aws_error_code_from_response, aws_standard_2026_dependency, aws_standard_dependency, encode_grpc_timeout_ns,
    parse_grpc_timeout_ns, ConfigWarning, MethodProfile, ServiceConfig,
};
pub use driver::{
    failure_outcome, guidance_headers, idempotency_key_header, request_id_header, Action, AttemptPlan, AttemptResult,
    Driver, DriverOptions, Ending, EndingResult, Event,
};
pub use operation::{
    admit, encode_grpc_timeout, parse_grpc_pushback, parse_grpc_timeout, parse_http_date, parse_rate_limit,
    parse_rate_limit_reset, parse_retry_after, parse_retry_after_ms_header, parse_retry_after_with,
    remaining_budget_ms, Admission, GiveUpCounts, Operation, OperationOptions, Stats, StatsSnapshot,
};
pub use policy::{
    default_policy_config, policy_config_from_json, profile_config, profile_names, Policy, Redelivery, Timeline,
    TimelineStep, Warning,
};
pub use wire::{wire_tables, WireTables};

// The core's unit enums (GiveUpReason, GrpcCode, Failure, Blame, ConfigKind, ...)
// are exported as themselves: generated.rs restates them for uniffi, written by
// core/mirrors from the core's tables (`cargo run -p retryplan-mirrors`).
// JitterConfig is restated in config.rs, from the schema. Enums with data that
// are no configuration (Class, Repeatability) stay restated below by hand.

#[uniffi::remote(Enum)]
pub enum Class {
    Success,
    Retryable { ambiguous: bool, throttling: bool },
    NotRetryable,
    Conflict,
    Cancelled,
}

#[uniffi::remote(Enum)]
pub enum Repeatability {
    Unknown,
    Idempotent,
    NotIdempotent,
    Keyed,
    NotRetried { idempotent: bool },
}

// ---------------------------------------------------------------- errors

/// One rule a policy breaks: the dotted field path and the rule, in words.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Violation {
    /// Dotted path of the offending field, e.g. `backoff.cap_ms`.
    pub field: String,
    /// The rule it breaks, with the values involved.
    pub message: String,
}

/// Misuse of the engine (Kotlin: `RetryplanException` and one subclass per
/// variant). A failed attempt is an `Outcome` and giving up is a `Decision`;
/// this is raised only for input the engine cannot accept. Every variant
/// carries `code`, the core's stable identifier (the same in every language),
/// `blame`, who must act ([`Blame`]), and `description`, the core's message (also what `toString()` returns).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, uniffi::Error)]
#[uniffi::export(Display)]
pub enum RetryplanError {
    /// A configuration that reads breaks one or more rules: `config` says
    /// which, `violations` lists every rule, each path from that
    /// configuration (`max_tokens` for a budget, `budget.max_tokens` for a
    /// dependency). (Renamed from `InvalidPolicy`, code `invalid_policy`: the
    /// old name is a deprecated alias for one release.)
    #[error("{description}")]
    ConfigViolations { config: ConfigKind, violations: Vec<Violation>, code: String, blame: Blame, description: String },
    /// A configuration could not be read: `config` says which, `field` where
    /// reading stopped. (Renamed from `InvalidPolicyJson`, code
    /// `invalid_policy_json`: the old name is a deprecated alias for one release.)
    #[error("{description}")]
    InvalidConfig { config: ConfigKind, field: String, code: String, blame: Blame, description: String },
    /// No built-in profile has this name.
    #[error("{description}")]
    UnknownProfile { name: String, known: Vec<String>, code: String, blame: Blame, description: String },
    /// An event arrived after the operation ended; it stays ended.
    #[error("{description}")]
    OperationEnded { code: String, blame: Blame, description: String },
    /// An outcome names an attempt that is not running; nothing changed.
    #[error("{description}")]
    AttemptNotRunning { attempt: i32, running: Vec<i32>, code: String, blame: Blame, description: String },
    /// A value cannot be represented or is out of its range; nothing changed.
    #[error("{description}")]
    InvalidArgument { name: String, code: String, blame: Blame, description: String },
    /// The host cannot carry out a section of the policy (e.g. `hedging` one attempt at a time).
    #[error("{description}")]
    Unsupported { field: String, code: String, blame: Blame, description: String },
    /// A header value could not be read.
    #[error("{description}")]
    InvalidHeader { header: String, code: String, blame: Blame, description: String },
    /// The operating system's random source failed.
    #[error("{description}")]
    EntropyUnavailable { code: String, blame: Blame, description: String },
}

impl From<rp::Error> for RetryplanError {
    fn from(error: rp::Error) -> Self {
        let code = error.code().to_owned();
        let description = error.to_string();
        let blame = error.blame();
        // Exhaustive on purpose: a new core error must be mapped here.
        match error {
            rp::Error::ConfigViolations { config, violations } => RetryplanError::ConfigViolations {
                config,
                violations: violations
                    .into_iter()
                    .map(|v| Violation { field: v.field, message: v.message.to_string() })
                    .collect(),
                code,
                blame,
                description,
            },
            rp::Error::InvalidConfig { config, field, .. } => {
                RetryplanError::InvalidConfig { config, field: field.into(), code, blame, description }
            }
            rp::Error::UnknownProfile { name, known } => {
                RetryplanError::UnknownProfile { name, known, code, blame, description }
            }
            rp::Error::OperationEnded => RetryplanError::OperationEnded { code, blame, description },
            rp::Error::AttemptNotRunning { attempt, running } => {
                RetryplanError::AttemptNotRunning {
                    // Attempt numbers are Int everywhere in Kotlin (runningAttempts, abortAttempts).
                    attempt: count_out(attempt),
                    running: running.into_iter().map(count_out).collect(),
                    code,
                    blame,
                    description,
                }
            }
            rp::Error::InvalidArgument { name, .. } => {
                RetryplanError::InvalidArgument { name: name.to_owned(), code, blame, description }
            }
            rp::Error::Unsupported { field, .. } => {
                RetryplanError::Unsupported { field: field.to_owned(), code, blame, description }
            }
            rp::Error::InvalidHeader(header) => {
                RetryplanError::InvalidHeader { header: header.header().to_owned(), code, blame, description }
            }
            rp::Error::EntropyUnavailable { .. } => RetryplanError::EntropyUnavailable { code, blame, description },
        }
    }
}

type Result<T, E = RetryplanError> = std::result::Result<T, E>;

// ---------------------------------------------------------------- numbers across the boundary

fn invalid(name: &'static str, rule: String) -> RetryplanError {
    rp::Error::InvalidArgument { name, rule: rule.into() }.into()
}

/// A millisecond value or a clock reading handed in (a delay, `retry_after_ms`,
/// `now_ms`, `deadline_ms`): 0 to the core's `MAX_MS` (2^53 - 1), the range of every time
/// the core keeps, refused with the core's one message (Python and JS refuse
/// the same values alike). A `Long` holds up to 2^63 - 1; nothing past
/// 2^53 - 1 is a time the engine could keep.
fn ms_in(name: &'static str, value: i64) -> Result<u64> {
    match u64::try_from(value) {
        Ok(ms) => Ok(rp::Error::check_ms(name, ms)?),
        Err(_) => Err(rp::Error::ms_out_of_range(name, value).into()),
    }
}

fn opt_ms_in(name: &'static str, value: Option<i64>) -> Result<Option<u64>> {
    value.map(|value| ms_in(name, value)).transpose()
}

/// A count or number handed in: never negative.
fn u32_in(name: &'static str, value: i32) -> Result<u32> {
    u32::try_from(value).map_err(|_| invalid(name, format!("must be >= 0, got {value}")))
}

fn status_in(name: &'static str, value: i32) -> Result<u16> {
    u16::try_from(value).map_err(|_| invalid(name, format!("an HTTP status must be in 100..=599, got {value}")))
}

/// A millisecond value or a counter handed out (see the crate doc for the saturation).
fn long_out(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn count_out(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The core never panics while a lock is held; recover rather than abort if it ever did.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
