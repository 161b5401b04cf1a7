//! Named profiles: every built-in starting point, in this one table. The AWS
//! ones are built in [`crate::dialects::aws`], next to the numbers they come from.
//!
//! A profile is a [`PolicyConfig`]; change any field before validating it.
//!
//! | name | for | attempts | budget | per attempt | backoff | idempotency |
//! |---|---|---|---|---|---|---|
//! | `read` | user-facing reads | 3 | 2 s | 800 ms | 50 ms x2 to 1 s, full jitter | safe |
//! | `checkout` | a user-facing keyed write (800 ms) | 3 | 800 ms | 200 ms | 50 ms x2 to 400 ms, full jitter | keyed |
//! | `write_keyed` | writes the server deduplicates by key | 3 | 5 s | 2 s | 100 ms x2 to 2 s, full jitter | keyed |
//! | `write_strict` | writes without deduplication | 2 | 5 s | 2 s | 200 ms, equal jitter | unsafe: ambiguous outcomes reconcile |
//! | `background` | queue workers, batch jobs | 8 | 5 min | 30 s | 1 s x2 to 1 min, decorrelated | idempotent |
//! | `aws_standard` | AWS SDK standard retry mode, classic ([`crate::dialects::aws`]) | 3 | none (give a deadline) | the remaining time | 1 s x2 to 20 s, full jitter (capped before the draw) | idempotent |
//! | `aws_standard_2026` | AWS SDK standard retry mode, 2026 revision ([`crate::dialects::aws`]) | 3 | none (give a deadline) | the remaining time | 50 ms (1 s after throttling) x2 to 20 s, full jitter; `x-amz-retry-after` within `[t, t + 5 s]` | idempotent |
//! | `aws_standard_2026_dynamodb` | the same for DynamoDB and DynamoDB Streams | 4 | none (give a deadline) | the remaining time | 25 ms (1 s after throttling) x2 to 20 s, full jitter; `x-amz-retry-after` within `[t, t + 5 s]` | idempotent |
//! | `polly_v8` | Polly v8's `RetryStrategyOptions` as shipped ([`polly_v8_profile`]) | 4 | none (give a deadline) | the remaining time | 2 s constant, no jitter, no cap (`jitter: polly`); server guidance not read | idempotent |

use alloc::string::String;

use crate::config::error::Error;
use crate::outcomes::classify::{GrpcCode, TransportFailure};
use crate::policy::{
    AboveCap, AttemptTimeoutConfig, BackoffConfig, BackoffKind, Idempotency, JitterConfig, PolicyConfig,
    RetryLimitsConfig, RetryOnConfig, ServerGuidanceConfig, StatusSetConfig, MAX_MS,
};

/// The built-in profile names.
pub const NAMES: [&str; 9] = [
    "read",
    "checkout",
    "write_keyed",
    "write_strict",
    "background",
    "aws_standard",
    "aws_standard_2026",
    "aws_standard_2026_dynamodb",
    "polly_v8",
];

/// The configuration of a built-in profile.
///
/// ```
/// let config = retryplan::dialects::profiles::profile("checkout").unwrap();
/// assert_eq!(config.total_timeout_ms, 800);
/// assert_eq!(retryplan::dialects::profiles::profile("nope").unwrap_err().code(), "unknown_profile");
/// ```
///
/// # Errors
/// [`Error::UnknownProfile`] for a name not in [`NAMES`].
pub fn profile(name: &str) -> Result<PolicyConfig, Error> {
    let base = PolicyConfig::default();
    let exponential = |base_ms, cap_ms| BackoffConfig {
        kind: BackoffKind::Exponential,
        base_ms,
        multiplier: 2.0,
        cap_ms,
        ..BackoffConfig::default()
    };
    Ok(match name {
        "read" => PolicyConfig {
            max_attempts: 3,
            total_timeout_ms: 2_000,
            attempt_timeout: AttemptTimeoutConfig::FixedMs(800),
            backoff: exponential(50, 1_000),
            idempotency: Idempotency::Safe,
            ..base
        },
        "checkout" => PolicyConfig {
            max_attempts: 3,
            total_timeout_ms: 800,
            attempt_timeout: AttemptTimeoutConfig::FixedMs(200),
            response_reserve_ms: 50,
            minimum_useful_attempt_ms: 200,
            backoff: exponential(50, 400),
            server_guidance: ServerGuidanceConfig { cap_ms: 500, ..ServerGuidanceConfig::default() },
            idempotency: Idempotency::Keyed,
            ..base
        },
        "write_keyed" => PolicyConfig {
            max_attempts: 3,
            total_timeout_ms: 5_000,
            attempt_timeout: AttemptTimeoutConfig::FixedMs(2_000),
            idempotency: Idempotency::Keyed,
            ..base
        },
        "write_strict" => PolicyConfig {
            max_attempts: 2,
            total_timeout_ms: 5_000,
            attempt_timeout: AttemptTimeoutConfig::FixedMs(2_000),
            backoff: BackoffConfig {
                kind: BackoffKind::Constant,
                base_ms: 200,
                multiplier: 1.0,
                cap_ms: 200,
                ..BackoffConfig::default()
            },
            jitter: JitterConfig::Equal,
            idempotency: Idempotency::Unsafe,
            ..base
        },
        "background" => PolicyConfig {
            max_attempts: 8,
            total_timeout_ms: 300_000,
            attempt_timeout: AttemptTimeoutConfig::FixedMs(30_000),
            response_reserve_ms: 0,
            minimum_useful_attempt_ms: 1_000,
            backoff: exponential(1_000, 60_000),
            jitter: JitterConfig::Decorrelated,
            retry_on: RetryOnConfig { transport: TransportFailure::ALL.to_vec(), ..RetryOnConfig::default() },
            server_guidance: ServerGuidanceConfig {
                cap_ms: 120_000,
                above_cap: AboveCap::Clamp,
                ..ServerGuidanceConfig::default()
            },
            idempotency: Idempotency::Idempotent,
            ..base
        },
        "aws_standard" => crate::dialects::aws::standard_profile(),
        "aws_standard_2026" => crate::dialects::aws::standard_2026_profile(),
        "aws_standard_2026_dynamodb" => crate::dialects::aws::standard_2026_dynamodb_profile(),
        "polly_v8" => polly_v8_profile(),
        _ => {
            return Err(Error::UnknownProfile {
                profile: crate::ground::text::excerpt(name),
                known: NAMES.iter().map(|name| String::from(*name)).collect(),
            })
        }
    })
}

/// The built-in profile `polly_v8`: Polly v8's `RetryStrategyOptions` as
/// shipped (`MaxRetryAttempts` 3, `BackoffType` Constant, `Delay` 2 s,
/// `MaxDelay` none, `UseJitter` false), under Polly's own arithmetic
/// (`jitter: polly`).
///
/// Polly's default `ShouldHandle` handles every exception but
/// `OperationCanceledException`: every transport failure and every gRPC
/// status but OK is retried (Grpc.Net.Client throws `RpcException` for each),
/// and an application error by its verdict. An HTTP response is a result, not
/// an exception, so no status is retried. Polly reads no `Retry-After`
/// without a `DelayGenerator` and has no timeout of its own: server guidance
/// is not read, there is no total timeout (give the operation a deadline)
/// and no per-attempt timeout beyond what remains.
#[must_use]
pub fn polly_v8_profile() -> PolicyConfig {
    PolicyConfig {
        max_attempts: 4,
        total_timeout_ms: MAX_MS,
        attempt_timeout: AttemptTimeoutConfig::FractionOfRemaining(1.0),
        response_reserve_ms: 0,
        minimum_useful_attempt_ms: 0,
        backoff: BackoffConfig {
            kind: BackoffKind::Constant,
            base_ms: 2_000,
            multiplier: 1.0,
            cap_ms: MAX_MS,
            ..BackoffConfig::default()
        },
        jitter: JitterConfig::Polly { use_jitter: false },
        retry_on: RetryOnConfig {
            grpc_codes: GrpcCode::ALL.into_iter().filter(|code| *code != GrpcCode::Ok).collect(),
            transport: TransportFailure::ALL.to_vec(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policy;

    #[test]
    fn every_profile_is_valid() {
        for name in NAMES {
            let config = profile(name).expect("known");
            Policy::new(&config).unwrap_or_else(|error| panic!("{name}: {error}"));
        }
    }

    #[test]
    fn an_unknown_name_is_kept_as_an_excerpt() {
        let Err(Error::UnknownProfile { profile: name, .. }) = profile(&"r".repeat(1 << 20)) else { panic!("unknown") };
        assert_eq!(name, format!("{}…", "r".repeat(64)));
    }
}
