#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
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

pub mod backoff;
pub mod classify;
pub mod deadline;
pub mod decision;
pub mod error;
pub mod grpc_timeout;
pub mod operation;
pub mod policy;
pub mod profiles;
pub mod retry_after;
mod rng;
pub mod stats;
pub mod timeline;

pub use backoff::{backoff_ceilings_ms, delay_range_ms};
pub use classify::{classify, Class, GrpcCode, Outcome, TransportFailure, Verdict};
pub use deadline::{admit, remaining_budget_ms, Admission};
pub use decision::{Decision, GiveUpReason, RequestId};
pub use error::{Error, Violation};
pub use grpc_timeout::{encode_grpc_timeout, encode_grpc_timeout_into, parse_grpc_timeout};
pub use operation::{IdempotencyKey, Operation, OperationOptions};
pub use policy::{
    AboveCap, AttemptTimeout, AttemptTimeoutConfig, Backoff, BackoffConfig, BackoffKind, Idempotency, Jitter,
    JitterConfig, Policy, PolicyConfig, RetryOnConfig, ServerGuidanceConfig, StatusSetConfig,
};
pub use retry_after::{parse_grpc_pushback, parse_retry_after, parse_retry_after_ms_header, HeaderError, Pushback};
pub use stats::{GiveUpCounts, Stats};
pub use timeline::{explain, Timeline, TimelineStep, Warning};
