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

/// The repository's README, compiled and run by `cargo test --doc` (never
/// built otherwise): its Rust examples cannot drift from this crate's API.
/// `scripts/readme_snippets.py check` proves every other block of it is run by
/// some suite or marked as not tested.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct RepositoryReadme;

// The deliberate public surface: the names a caller of the engine, a host
// loop or a binding uses every day, grouped by the floor that defines them.
// Everything else is reached through its floor (`retryplan::headers::
// structured_field`, `retryplan::dialects::grpc`, ...).

// Floor 1, the ground.
#[allow(deprecated)]
pub use ground::deadline::remaining_budget_ms;
pub use ground::deadline::{admit, remaining_ms, Admission};
// Floor 2, the header and date readers.
pub use headers::grpc_timeout::{
    encode_grpc_timeout, encode_grpc_timeout_into, encode_grpc_timeout_ns, parse_grpc_timeout, parse_grpc_timeout_ns,
    read_call_deadline, CallDeadline, MAX_GRPC_TIMEOUT_NS,
};
pub use headers::rate_limit::{parse_rate_limit, parse_rate_limit_reset};
pub use headers::retry_after::{
    parse_grpc_pushback, parse_http_date, parse_retry_after, parse_retry_after_ms_header, parse_retry_after_with,
    HeaderError, Pushback, RetryAfterReading,
};
// Floor 3, configurations and their messages.
pub use config::error::{Blame, ConfigKind, Error, Violation};
pub use config::grant::GrantCell;
pub use config::idempotency_key::IdempotencyKey;
// Floor 4, the shared controls.
pub use controls::breaker::{BreakerConfig, BreakerPermit, BreakerSnapshot, BreakerState, CircuitBreaker, TripConfig};
pub use controls::budget::{BudgetConfig, BudgetSnapshot, RetryBudget, RetryCause, RetryCharge};
pub use controls::dependency::{Dependency, DependencyConfig, DependencySnapshot};
pub use controls::retry_slots::{RetrySlot, RetrySlots};
// Floor 5, the policy.
pub use policy::{
    AboveCap, AttemptTimeout, AttemptTimeoutConfig, Backoff, BackoffConfig, BackoffKind, CompiledFormError,
    GuidanceMode, HedgingConfig, Idempotency, Jitter, JitterConfig, Policy, PolicyConfig, RetryLimitsConfig,
    RetryOnConfig, ServerGuidanceConfig, StatusGuidanceConfig, StatusSetConfig, MAX_ATTEMPTS_LIMIT, MAX_MS,
};
// Floor 7, outcomes and answers.
pub use ground::codes::{GrpcCode, TransportFailure};
pub use outcomes::action::{
    AbortReason, Action, AttemptPlan, AttemptResult, Ending, EndingResult, Event, Held, Receipt,
};
pub use outcomes::classify::{classify, Class, Outcome, Verdict};
pub use outcomes::decision::{AttemptSet, Decision, GiveUpReason, RequestId};
pub use outcomes::failure::{Failure, MAX_CAUSE_DEPTH};
pub use outcomes::http::{
    HttpRequest, Repeatability, AWS_ERROR_TYPE_HEADER, AWS_RETRY_AFTER_HEADER, GUIDANCE_HEADERS,
    IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, RETRY_AFTER_MS_HEADERS,
};
// Floor 9, the engine.
pub use engine::backoff::{backoff_ceilings_ms, delay_range_after_ms, delay_range_ms};
pub use engine::operation::{Operation, OperationOptions, SharedPolicy};
pub use engine::redelivery::{redeliver, DeadLetterReason, Redelivery, RedeliveryConfig};
pub use engine::stats::{GiveUpCounts, SharedStats, Stats};
// Floor 10, the driver and its wire.
pub use driver::telemetry;
pub use driver::wire;
pub use driver::{Concurrency, Driver, DriverOptions};
// Floor 11, the tools.
pub use tools::timeline::{explain, Timeline, TimelineStep, Warning};

// The module paths before the floors (`retryplan::classify`, ...), kept so
// the bindings, the CLI and code written against them keep building; not
// part of the surface, and removed in a later release.
#[doc(hidden)]
pub use config::{error, grant, value};
#[doc(hidden)]
pub use controls::{breaker, budget, dependency, retry_slots};
#[doc(hidden)]
pub use dialects::{aws, grpc, profiles};
#[doc(hidden)]
pub use engine::{backoff, operation, redelivery, stats};
#[doc(hidden)]
pub use ground::{clock, deadline, message};
#[doc(hidden)]
pub use headers::{grpc_timeout, rate_limit, retry_after};
#[doc(hidden)]
pub use outcomes::{classify, decision, failure, http};
#[doc(hidden)]
pub use tools::{check, timeline};
// The crate-private paths `core/src/propagation/` still imports by their old
// names (it is being extended on other branches; its imports move to the
// floors' paths after those land).
use config::idempotency_key;
use ground::{named, units};

/// The old name of [`RetrySlots`], kept for one release.
#[deprecated(note = "renamed `RetrySlots`; this alias is removed in the next release")]
pub type ConcurrencyLimit = RetrySlots;
