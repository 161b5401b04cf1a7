//! AWS SDK "standard" retry mode: the error-code tables, the error code of a
//! response, and the built-in profiles and dependencies of its two revisions.
//!
//! **Classic** (profile `aws_standard`, [`standard_dependency`]): what every
//! AWS SDK did by default before the 2026 update, as documented in the AWS
//! SDKs and Tools reference guide ("Retry behavior") and implemented by
//! botocore's `retries/standard.py` and `quota.py` up to 1.43 (1.44 removed
//! it: its standard mode is the 2026 revision):
//!
//! - **attempts**: 3, the first included.
//! - **transient errors**: HTTP 500, 502, 503, 504 whatever the error code; the
//!   error codes in [`TRANSIENT_ERROR_CODES`]; an I/O failure with no response.
//! - **throttling errors**: the error codes in [`THROTTLING_ERROR_CODES`]; the
//!   status does not matter (a 403 `RequestThrottled` is throttling, a 429
//!   without a code is not). [`classify`](crate::outcomes::classify::classify()) reports them as
//!   retryable with `throttling: true`.
//! - **backoff**: `t_i = random(0, 1) * min(2^i s, 20 s)`: base 1 s, factor 2,
//!   the cap applied *before* the draw (jitter `full`, [`standard_profile`]),
//!   as botocore has drawn since 1.34.107 (its test
//!   `test_uniform_rand_dist_on_max_attempts`: uniform over `[0, 20 s)` after
//!   the tenth attempt), smithy-rs, aws-sdk-go-v2 and aws-sdk-java-v2. The
//!   reference guide writes `min(random(0, 1) * 2^i, 20 s)`, the draw first,
//!   as aws-sdk-js-v3 does (jitter `full_then_cap`; the compatibility page).
//! - **quota** ([`standard_dependency`]): 500 units at the start; a retry
//!   costs 5, or 10 after a timeout; a success refunds what its retry cost, or
//!   adds 1 when the call needed no retry; never above 500. A retry the quota
//!   cannot pay ends the call. [`RetryBudget::acquire`](crate::RetryBudget::acquire)
//!   and [`RetryBudget::release`](crate::RetryBudget::release) drive it directly.
//! - `Retry-After` and `x-amz-retry-after` are not read.
//!
//! **2026 revision** (profile `aws_standard_2026`, [`standard_2026_dependency`]):
//! the updated behaviour the SDKs ship behind `AWS_NEW_RETRIES_2026=true`,
//! announced as the default from November 2026 (AWS Developer Tools blog,
//! "Announcing updated retry behavior for AWS SDKs and Tools"; botocore
//! `STANDARD_RETRY_MODE_VERSION` 2.1, boto/botocore#3678; aws-sdk-go-v2#3400;
//! smithy-rs `RetrySpec::V2_1`). The same classification, and a 429 too; and:
//!
//! - **429**: an HTTP 429 is a throttling error whatever its error code
//!   (botocore 1.44's `ThrottlingStatusCodeChecker`, for a 429 that matches
//!   none of the operation's modeled errors: the engine has no models), so
//!   it is retried from the throttling base at the throttling cost.
//! - **backoff**: `t_i = random(0, 1) * min(b * 2^i, 20 s)`, as before, with
//!   `b` = 1 s after a throttling error and 50 ms after any other
//!   (`backoff.throttling_base_ms`).
//! - **quota**: 500 units; a retry costs 14, or 5 after a throttling error; a
//!   timeout costs no more than any other error (14); refunds as before
//!   (`throttling_retry_cost` of the quota).
//! - **`x-amz-retry-after`** (milliseconds): honoured within `[t_i, t_i + 5 s]`
//!   (`server_guidance.max_above_backoff_ms`); an unreadable value is ignored.
//!   [`Outcome::from_http_response`](crate::Outcome::from_http_response)
//!   reads it ([`crate::outcomes::http::AWS_RETRY_AFTER_HEADER`]).
//! - **DynamoDB and DynamoDB Streams** (profile `aws_standard_2026_dynamodb`):
//!   base 25 ms after non-throttling errors and 4 attempts.
//!
//! The compatibility page ([`crate::compatibility::grpc_aws`]) lists where the
//! engine differs and why.

use crate::controls::budget::BudgetConfig;
use crate::controls::dependency::DependencyConfig;
use crate::ground::codes::TransportFailure;
use crate::policy::{
    AboveCap, AttemptTimeoutConfig, BackoffConfig, BackoffKind, GuidanceMode, Idempotency, JitterConfig, PolicyConfig,
    RetryLimitsConfig, RetryOnConfig, ServerGuidanceConfig, StatusSetConfig, MAX_MS,
};

#[doc(no_inline)]
pub use crate::config::error_code::{
    error_code_from_response, sanitize_error_code, ErrorCode, ErrorCodeTable, ErrorCodeTables, MAX_ERROR_CODE_LEN,
    THROTTLING_ERROR_CODES, TRANSIENT_ERROR_CODES,
};

/// HTTP statuses the SDKs retry as transient, whatever the error code.
pub const TRANSIENT_STATUSES: [u16; 4] = [500, 502, 503, 504];
/// 2026 revision: the HTTP statuses retried as throttling errors, whatever the
/// error code (botocore 1.44 `ThrottlingStatusCodeChecker._THROTTLING_STATUS_CODES`).
pub const THROTTLING_STATUSES_2026: [u16; 1] = [429];
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

/// 2026 revision: units a retry costs (botocore `_RETRY_COST_V2`).
pub const RETRY_COST_2026: u32 = 14;
/// 2026 revision: units a retry after a throttling error costs (`_THROTTLING_RETRY_COST`).
pub const THROTTLING_RETRY_COST_2026: u32 = 5;
/// 2026 revision: the backoff base after a non-throttling error, in ms
/// (`_NON_THROTTLING_BASE_SCALE = 0.05` s).
pub const BASE_DELAY_2026_MS: u64 = 50;
/// 2026 revision: the backoff base after a throttling error, in ms (`_THROTTLING_BASE_SCALE = 1` s).
pub const THROTTLING_BASE_DELAY_2026_MS: u64 = 1_000;
/// 2026 revision: how far `x-amz-retry-after` may raise a delay above the
/// drawn backoff, in ms (`_RETRY_AFTER_MAX_ADDITIONAL = 5` s).
pub const MAX_RETRY_AFTER_ABOVE_BACKOFF_MS: u64 = 5_000;
/// 2026 revision, DynamoDB and DynamoDB Streams: the base after a
/// non-throttling error, in ms (`_DYNAMODB_BASE_SCALE = 0.025` s).
pub const DYNAMODB_BASE_DELAY_2026_MS: u64 = 25;
/// 2026 revision, DynamoDB and DynamoDB Streams: attempts in all (`_SERVICE_MAX_ATTEMPTS`).
pub const DYNAMODB_MAX_ATTEMPTS_2026: u32 = 4;

/// The built-in profile `aws_standard`: the AWS SDKs' classic standard mode.
///
/// 3 attempts; `random(0, 1) * min(1 s * 2^i, 20 s)` (jitter `full`);
/// retries HTTP 500/502/503/504, every transport failure, and the transient
/// and throttling error codes; server guidance is not read (classic
/// standard mode reads none); no per-attempt timeout of its own and no
/// total timeout (the SDKs have none by default: give the operation a
/// deadline).
#[must_use]
pub fn standard_profile() -> PolicyConfig {
    PolicyConfig {
        max_attempts: MAX_ATTEMPTS,
        total_timeout_ms: MAX_MS,
        attempt_timeout: AttemptTimeoutConfig::FractionOfRemaining(1.0),
        response_reserve_ms: 0,
        minimum_useful_attempt_ms: 0,
        backoff: BackoffConfig {
            kind: BackoffKind::Exponential,
            base_ms: BASE_DELAY_MS,
            multiplier: 2.0,
            cap_ms: MAX_BACKOFF_MS,
            ..BackoffConfig::default()
        },
        jitter: JitterConfig::Full,
        retry_on: RetryOnConfig {
            http_statuses: TRANSIENT_STATUSES.to_vec(),
            transport: TransportFailure::ALL.to_vec(),
            error_codes: ErrorCodeTable::ALL.to_vec(),
            ..RetryOnConfig::none()
        },
        ambiguous: StatusSetConfig::default(),
        conflict: StatusSetConfig::default(),
        server_guidance: ServerGuidanceConfig { honor: false, ..ServerGuidanceConfig::default() },
        idempotency: Idempotency::Idempotent,
        hedging: None,
        redelivery: None,
        propagation: crate::policy::PropagationConfig::default(),
        retry_limits: RetryLimitsConfig::default(),
        retry_methods: None,
    }
}

/// The built-in profile `aws_standard_2026`: the 2026 revision of standard
/// mode (see the module notes): 3 attempts; `random(0, 1) * min(b * 2^i, 20 s)`
/// with `b` 50 ms, or 1 s after a throttling error; a 429 is a throttling
/// error whatever its code; `x-amz-retry-after` honoured within `[t_i, t_i + 5 s]`.
#[must_use]
pub fn standard_2026_profile() -> PolicyConfig {
    let mut classic = standard_profile();
    // A 429 in `retry_on` beside the `aws_throttling` table is classified as
    // throttling (`classify`), as botocore's status checker counts it.
    classic.retry_on.http_statuses.extend_from_slice(&THROTTLING_STATUSES_2026);
    PolicyConfig {
        backoff: BackoffConfig {
            kind: BackoffKind::Exponential,
            base_ms: BASE_DELAY_2026_MS,
            multiplier: 2.0,
            cap_ms: MAX_BACKOFF_MS,
            throttling_base_ms: Some(THROTTLING_BASE_DELAY_2026_MS),
            ..classic.backoff
        },
        // x-amz-retry-after within [t, t + 5 s], whatever it asks for: t is at
        // most 20 s, so clamping first at 25 s changes nothing.
        server_guidance: ServerGuidanceConfig {
            honor: true,
            cap_ms: MAX_BACKOFF_MS + MAX_RETRY_AFTER_ABOVE_BACKOFF_MS,
            above_cap: AboveCap::Clamp,
            mode: GuidanceMode::Floor,
            max_above_backoff_ms: Some(MAX_RETRY_AFTER_ABOVE_BACKOFF_MS),
            ..ServerGuidanceConfig::default()
        },
        ..classic
    }
}

/// The built-in profile `aws_standard_2026_dynamodb`: the 2026 revision for
/// DynamoDB and DynamoDB Streams (25 ms base, 4 attempts).
pub(crate) fn standard_2026_dynamodb_profile() -> PolicyConfig {
    let general = standard_2026_profile();
    PolicyConfig {
        max_attempts: DYNAMODB_MAX_ATTEMPTS_2026,
        backoff: BackoffConfig { base_ms: DYNAMODB_BASE_DELAY_2026_MS, ..general.backoff },
        ..general
    }
}

/// The dependency of the classic standard mode: the retry quota (500 units,
/// a retry costs 5 or 10 after a timeout, a first-attempt success returns 1).
///
/// ```
/// let config = retryplan::dialects::aws::standard_dependency();
/// let dependency = retryplan::Dependency::new(&config).unwrap();
/// let quota = dependency.budget().unwrap();
/// assert_eq!(quota.acquire(5), Ok(true));
/// ```
#[must_use]
pub fn standard_dependency() -> DependencyConfig {
    quota(RETRY_COST, TIMEOUT_RETRY_COST, None)
}

/// The dependency of the 2026 revision: the retry quota (500 units, a retry
/// costs 14, or 5 after a throttling error; a first-attempt success returns 1).
///
/// ```
/// use retryplan::{controls::budget::RetryCause, Dependency};
/// let dependency = Dependency::new(&retryplan::dialects::aws::standard_2026_dependency()).unwrap();
/// let quota = dependency.budget().unwrap();
/// assert_eq!(quota.try_retry_for(0, RetryCause::Throttling).map(|charge| charge.cost()), Some(5));
/// assert_eq!(quota.try_retry_for(0, RetryCause::Timeout).map(|charge| charge.cost()), Some(14));
/// ```
#[must_use]
pub fn standard_2026_dependency() -> DependencyConfig {
    quota(RETRY_COST_2026, RETRY_COST_2026, Some(THROTTLING_RETRY_COST_2026))
}

fn quota(retry_cost: u32, timeout_retry_cost: u32, throttling_retry_cost: Option<u32>) -> DependencyConfig {
    DependencyConfig {
        budget: Some(BudgetConfig::Quota {
            capacity: INITIAL_RETRY_TOKENS,
            retry_cost,
            timeout_retry_cost,
            success_increment: NO_RETRY_INCREMENT,
            throttling_retry_cost,
        }),
        breaker: None,
        retry_slots: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::backoff::draw_delay_ms;
    use crate::ground::rng::{Draws, SplitMix64};
    use crate::Policy;

    /// botocore's `test_uniform_rand_dist_on_max_attempts`: 10,000 waits after the tenth attempt, counted by
    /// whole seconds, spread evenly over `[0, 20 s)` within 20%. The guide's order (draw, then cap) would put
    /// about 96% of them (1 - 20/512) at exactly 20 s.
    #[test]
    fn the_classic_profile_waits_uniformly_under_the_cap_after_the_tenth_attempt() {
        let policy = Policy::new(&standard_profile()).unwrap();
        let mut draws = Draws::Seeded(SplitMix64::new(2024));
        let mut seconds = [0_u32; 21];
        for _ in 0..10_000 {
            let delay = draw_delay_ms(&policy, 9, 0, false, &mut draws);
            seconds[usize::try_from(delay / 1000).unwrap()] += 1;
        }
        // The engine's draws are whole ms in [0, 20000]: exactly 20 s is one draw in 20,001.
        assert!(seconds[20] <= 3, "{seconds:?}");
        for (second, count) in seconds[..20].iter().enumerate() {
            assert!((400..=600).contains(count), "second {second}: {count} of 10000, expected 500 +- 20%");
        }
    }
}
