//! Policy: the serde schema ([`PolicyConfig`]) and its validated, immutable form ([`Policy`]).
//!
//! JSON is the lingua franca: field names are snake_case, durations are whole
//! milliseconds in fields ending `_ms`, ratios are decimal numbers with at most
//! three decimals (they are stored as integer thousandths so every platform
//! computes bit-identical delays). Every field has a default, and unknown
//! fields are rejected. [`Policy::new`] checks every rule and reports all
//! violations at once, each naming its field; nothing is clamped silently.
//!
//! One job per file, each using only the files listed before it:
//!
//! - `config.rs`: the schema as written, its defaults and limits;
//! - `names.rs`: the snake_case names of its enums;
//! - `read.rs`: the one reader from a [`Value`](crate::config::value::Value) or JSON
//!   text, and the writer back;
//! - `sets.rs`: the classification sets as bit sets;
//! - `status_rules.rs`: per-status guidance rules, validated;
//! - `retry_limits.rs`: retry limits per failure kind and the method
//!   allow-list, validated;
//! - `validated.rs`: the validated [`Policy`], its accessors and
//!   [`Policy::to_config`];
//! - `validate.rs`: the rules, checked by [`Policy::new`];
//! - `compiled/`: the compiled form of a validated [`Policy`] (see
//!   [`compiled`]), read back without the reader;
//! - `schema.json`: the JSON Schema of [`PolicyConfig`] as written (a test in
//!   `read.rs` checks its sections name exactly the reader's fields), from
//!   which `core/mirrors` writes the vectors' schema and every binding's
//!   configuration types.

pub mod compiled;
pub(crate) mod config;
mod names;
mod read;
pub mod retry_limits;
mod sets;
pub mod status_rules;
mod validate;
pub(crate) mod validated;

pub use compiled::CompiledFormError;
pub use config::{
    AboveCap, AttemptTimeoutConfig, BackoffConfig, BackoffKind, GuidanceHeaders, GuidanceMode, HeaderFamily,
    HedgingConfig, Idempotency, JitterConfig, PolicyConfig, PropagationConfig, RetryLayer, RetryLimitsConfig,
    RetryOnConfig, ServerGuidanceConfig, StatusGuidanceConfig, StatusSetConfig, DEFAULT_PROPAGATION_RESERVE_MS,
    MAX_ATTEMPTS_LIMIT, MAX_HEDGED_ATTEMPTS, MAX_MULTIPLIER,
};
pub use retry_limits::{FailureKind, MethodSet, RetryLimits, RETRY_METHODS};
pub use sets::{Classification, GrpcCodeSet, HttpStatusSet, TransportSet};
pub use status_rules::{StatusGuidance, StatusRules, MAX_STATUS_RULES};
pub use validated::{AttemptTimeout, Backoff, HeaderFamilies, Jitter, Policy, Propagation, ServerGuidance};

#[doc(no_inline)]
pub use crate::ground::units::MAX_MS;
