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

// The floors, ground floor first: each module imports only from its own
// floor and the floors below it (`scripts/check_module_cycles.py` checks this
// against its table `FLOORS`; ARCHITECTURE.md draws the plan).
pub mod compatibility;
pub mod config;
pub mod controls;
pub mod dialects;
pub mod driver;
pub mod engine;
pub mod ground;
pub mod headers;
pub mod outcomes;
pub mod policy;
pub mod propagation;
pub mod tools;

// The repository's README is compiled and run by the workspace crate
// `retryplan-repository` (tests/repository), not here: this package reads no
// file outside itself, so its own `cargo test --doc` runs where it is published.

// The deliberate public surface: the names a caller of the engine, a host
// loop or a binding uses every day. Everything else is reached through the
// floor that defines it (`retryplan::headers::retry_after::parse_retry_after`,
// `retryplan::controls::budget::BudgetConfig`, `retryplan::dialects::grpc`,
// ...); the crate root's page lists both.

// The policy, and the operation that runs it.
pub use engine::operation::{Operation, OperationOptions};
pub use policy::{CompiledFormError, Idempotency, Policy, PolicyConfig};
// What a host hands in, and what the engine answers.
pub use outcomes::classify::{Class, Outcome, Verdict};
pub use outcomes::decision::{Decision, GiveUpReason};
pub use outcomes::failure::Failure;
// The driver, its protocol and its wire.
pub use driver::telemetry;
pub use driver::wire;
pub use driver::{Concurrency, Driver, DriverOptions};
pub use outcomes::action::{
    AbortReason, Action, AttemptPlan, AttemptResult, Ending, EndingResult, Event, Held, Receipt,
};
// The shared controls of a dependency, their configurations and the grants
// they hand out.
pub use controls::breaker::{BreakerConfig, BreakerPermit, CircuitBreaker};
pub use controls::budget::{BudgetConfig, RetryBudget, RetryCharge};
pub use controls::dependency::{Dependency, DependencyConfig};
pub use controls::retry_slots::{RetrySlot, RetrySlots};
// Errors, keys and the explanation of a policy.
pub use config::error::{Blame, Error};
pub use config::idempotency_key::IdempotencyKey;
pub use tools::timeline::{explain, Timeline};

// The names the root published before this release, now at their floor's
// path, and the module paths before the floors (`retryplan::classify`, ...):
// kept one release, hidden, so code written against them keeps building
// (the README's renamed table lists them), behind the default feature
// `root-aliases`. Nothing in this repository uses them: its crates take the
// core without that feature.
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use config::error::{ConfigKind, Violation};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use config::grant::GrantCell;
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use config::{error, grant, value};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use controls::breaker::{BreakerSnapshot, BreakerState, TripConfig};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use controls::budget::{BudgetSnapshot, RetryCause};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use controls::dependency::DependencySnapshot;
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use controls::{breaker, budget, dependency, retry_slots};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use dialects::{aws, grpc, profiles};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use engine::backoff::{backoff_ceilings_ms, delay_range_after_ms, delay_range_ms};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use engine::operation::SharedPolicy;
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use engine::redelivery::{redeliver, DeadLetterReason, Redelivery, RedeliveryConfig};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use engine::stats::{GiveUpCounts, SharedStats, Stats};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use engine::{backoff, operation, redelivery, stats};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use ground::codes::{GrpcCode, TransportFailure};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
#[allow(deprecated)]
pub use ground::deadline::{admit, remaining_budget_ms, Admission};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use ground::{clock, deadline, message};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use headers::grpc_timeout::{
    encode_grpc_timeout, encode_grpc_timeout_into, encode_grpc_timeout_ns, parse_grpc_timeout, parse_grpc_timeout_ns,
    read_call_deadline, CallDeadline, MAX_GRPC_TIMEOUT_NS,
};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use headers::rate_limit::{parse_rate_limit, parse_rate_limit_reset};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use headers::retry_after::{
    parse_grpc_pushback, parse_http_date, parse_retry_after, parse_retry_after_ms_header, parse_retry_after_with,
    HeaderError, Pushback, RetryAfterReading,
};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use headers::{grpc_timeout, rate_limit, retry_after};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use outcomes::classify::classify;
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use outcomes::decision::{AttemptSet, RequestId};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use outcomes::failure::MAX_CAUSE_DEPTH;
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use outcomes::http::{
    HttpRequest, Repeatability, AWS_ERROR_TYPE_HEADER, AWS_RETRY_AFTER_HEADER, GUIDANCE_HEADERS,
    IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, RETRY_AFTER_MS_HEADERS,
};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use outcomes::{classify, decision, failure, http};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use policy::{
    AboveCap, AttemptTimeout, AttemptTimeoutConfig, Backoff, BackoffConfig, BackoffKind, GuidanceHeaders, GuidanceMode,
    HedgingConfig, Jitter, JitterConfig, RetryLimitsConfig, RetryOnConfig, ServerGuidanceConfig, StatusGuidanceConfig,
    StatusSetConfig, MAX_ATTEMPTS_LIMIT, MAX_MS,
};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use tools::timeline::{TimelineStep, Warning};
#[cfg(feature = "root-aliases")]
#[doc(hidden)]
pub use tools::{check, timeline};

/// The old name of [`RetrySlots`], kept for one release.
#[deprecated(note = "renamed `RetrySlots`; this alias is removed in the next release")]
pub type ConcurrencyLimit = RetrySlots;
