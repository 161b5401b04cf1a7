#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::field_reassign_with_default
    )
)]

extern crate alloc;

pub mod aws;
pub mod backoff;
pub mod breaker;
pub mod budget;
pub mod check;
pub mod classify;
pub mod clock;
mod codes;
pub mod compatibility;
pub mod deadline;
pub mod decision;
pub mod dependency;
pub mod driver;
mod email_date;
pub mod error;
mod error_body;
mod error_code;
pub mod failure;
pub mod grant;
pub mod grpc;
pub mod grpc_timeout;
mod guidance;
pub mod http;
mod http_date;
mod idempotency_key;
mod lock;
pub mod message;
mod named;
pub mod operation;
pub mod policy;
pub mod profiles;
pub mod propagation;
pub mod rate_limit;
pub mod redelivery;
pub mod retry_after;
pub mod retry_slots;
mod rng;
pub mod stats;
mod structured_field;
mod text;
pub mod timeline;
mod units;
pub mod value;
mod window;

/// The repository's README, compiled and run by `cargo test --doc` (never
/// built otherwise): its Rust examples cannot drift from this crate's API.
/// `scripts/readme_snippets.py check` proves every other block of it is run by
/// some suite or marked as not tested.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct RepositoryReadme;

pub use backoff::{backoff_ceilings_ms, delay_range_after_ms, delay_range_ms};
pub use breaker::{BreakerConfig, BreakerPermit, BreakerSnapshot, BreakerState, CircuitBreaker, TripConfig};
pub use budget::{BudgetConfig, BudgetSnapshot, RetryBudget, RetryCause, RetryCharge};
pub use classify::{classify, Class, GrpcCode, Outcome, TransportFailure, Verdict};
pub use deadline::{admit, remaining_budget_ms, Admission};
pub use decision::{AttemptSet, Decision, GiveUpReason, RequestId};
pub use dependency::{Dependency, DependencyConfig, DependencySnapshot};
pub use driver::wire;
pub use driver::{
    AbortReason, Action, AttemptPlan, AttemptResult, Concurrency, Driver, DriverOptions, Ending, EndingResult, Event,
    Held, Receipt,
};
pub use error::{Blame, ConfigKind, Error, Violation};
pub use failure::{Failure, MAX_CAUSE_DEPTH};
pub use grant::GrantCell;
pub use grpc_timeout::{
    encode_grpc_timeout, encode_grpc_timeout_into, encode_grpc_timeout_ns, parse_grpc_timeout, parse_grpc_timeout_ns,
    read_call_deadline, CallDeadline, MAX_GRPC_TIMEOUT_NS,
};
pub use http::{
    HttpRequest, Repeatability, AWS_ERROR_TYPE_HEADER, AWS_RETRY_AFTER_HEADER, GUIDANCE_HEADERS,
    IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, RETRY_AFTER_MS_HEADERS,
};
pub use operation::{IdempotencyKey, Operation, OperationOptions, SharedPolicy};
pub use policy::{
    AboveCap, AttemptTimeout, AttemptTimeoutConfig, Backoff, BackoffConfig, BackoffKind, CompiledFormError,
    GuidanceMode, HedgingConfig, Idempotency, Jitter, JitterConfig, Policy, PolicyConfig, RetryLimitsConfig,
    RetryOnConfig, ServerGuidanceConfig, StatusGuidanceConfig, StatusSetConfig, MAX_ATTEMPTS_LIMIT, MAX_MS,
};
pub use rate_limit::{parse_rate_limit, parse_rate_limit_reset};
pub use redelivery::{redeliver, DeadLetterReason, Redelivery, RedeliveryConfig};
pub use retry_after::{
    parse_grpc_pushback, parse_http_date, parse_retry_after, parse_retry_after_ms_header, parse_retry_after_with,
    HeaderError, Pushback, RetryAfterReading,
};
pub use retry_slots::{RetrySlot, RetrySlots};
pub use stats::{GiveUpCounts, SharedStats, Stats};
pub use timeline::{explain, Timeline, TimelineStep, Warning};

/// The old name of [`RetrySlots`], kept for one release.
#[deprecated(note = "renamed `RetrySlots`; this alias is removed in the next release")]
pub type ConcurrencyLimit = RetrySlots;
