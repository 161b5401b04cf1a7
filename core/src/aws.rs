//! AWS SDK "standard" retry mode: the error-code tables, the error code of a
//! response, and the built-in profile and dependency.
//!
//! This follows the behaviour every AWS SDK has by default (the revision
//! before the 2026 update, which SDKs ship behind `AWS_NEW_RETRIES_2026`),
//! as documented in the AWS SDKs and Tools reference guide ("Retry behavior")
//! and implemented by botocore's `retries/standard.py` and `quota.py`:
//!
//! - **attempts**: 3, the first included.
//! - **transient errors**: HTTP 500, 502, 503, 504 whatever the error code; the
//!   error codes in [`TRANSIENT_ERROR_CODES`]; an I/O failure with no response.
//! - **throttling errors**: the error codes in [`THROTTLING_ERROR_CODES`]; the
//!   status does not matter (a 403 `RequestThrottled` is throttling, a 429
//!   without a code is not). [`classify`](crate::classify()) reports them as
//!   retryable with `throttling: true`.
//! - **backoff**: `random(0, 1) * min(2^retry s, 20 s)`: base 1 s, factor 2,
//!   20 s cap, full jitter ([`standard_profile`]).
//! - **quota** ([`standard_dependency`]): 500 units at the start; a retry
//!   costs 5, or 10 after a timeout; a success refunds what its retry cost, or
//!   adds 1 when the call needed no retry; never above 500. A retry the quota
//!   cannot pay ends the call. [`RetryBudget::acquire`](crate::RetryBudget::acquire)
//!   and [`RetryBudget::release`](crate::RetryBudget::release) drive it directly.
//!
//! The compatibility page ([`crate::compatibility::grpc_aws`]) lists where the
//! engine differs and why.

use crate::budget::BudgetConfig;
use crate::dependency::DependencyConfig;

pub use crate::error_code::{
    error_code_from_response, sanitize_error_code, ErrorCode, ErrorCodeTable, ErrorCodeTables, MAX_ERROR_CODE_LEN,
    THROTTLING_ERROR_CODES, TRANSIENT_ERROR_CODES,
};

/// HTTP statuses the SDKs retry as transient, whatever the error code.
pub const TRANSIENT_STATUSES: [u16; 4] = [500, 502, 503, 504];
/// The quota's capacity at the start (botocore `quota.INITIAL_CAPACITY`).
pub const INITIAL_RETRY_TOKENS: u32 = 500;
/// Units a retry costs (botocore `RetryQuotaChecker._RETRY_COST`).
pub const RETRY_COST: u32 = 5;
/// Units a retry after a timeout costs (`_TIMEOUT_RETRY_REQUEST`).
pub const TIMEOUT_RETRY_COST: u32 = 10;
/// Units a call that succeeded without a retry returns (`_NO_RETRY_INCREMENT`).
pub const NO_RETRY_INCREMENT: u32 = 1;
/// The backoff base, in ms (the first retry waits `random(0, 1 s)`).
pub const BASE_DELAY_MS: u64 = 1_000;
/// The backoff cap, in ms (`_MAX_BACKOFF = 20` seconds).
pub const MAX_BACKOFF_MS: u64 = 20_000;
/// Attempts in all, the first included.
pub const MAX_ATTEMPTS: u32 = 3;

/// The built-in profile `aws_standard`: the AWS SDKs' standard mode.
///
/// 3 attempts; exponential backoff from 1 s, x2, capped at 20 s, full
/// jitter; retries HTTP 500/502/503/504, every transport failure, and the
/// transient and throttling error codes; Retry-After is not read (standard
/// mode does not); no per-attempt timeout of its own and no overall budget
/// (the SDKs have none by default: give the operation a deadline).
#[must_use]
pub fn standard_profile() -> crate::PolicyConfig {
    crate::profiles::aws_standard()
}

/// The dependency of the AWS standard mode: the retry quota (500 units, a
/// retry costs 5 or 10 after a timeout, a first-attempt success returns 1).
///
/// ```
/// let config = retryplan::aws::standard_dependency();
/// let dependency = retryplan::Dependency::new(&config).unwrap();
/// let quota = dependency.budget().unwrap();
/// assert_eq!(quota.acquire(5), Ok(true));
/// ```
#[must_use]
pub fn standard_dependency() -> DependencyConfig {
    DependencyConfig {
        budget: Some(BudgetConfig::Quota {
            capacity: INITIAL_RETRY_TOKENS,
            retry_cost: RETRY_COST,
            timeout_retry_cost: TIMEOUT_RETRY_COST,
            success_increment: NO_RETRY_INCREMENT,
        }),
        breaker: None,
        max_concurrent_retries: None,
    }
}
