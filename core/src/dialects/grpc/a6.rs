//! gRFC A6 (client retries), rule by rule: how a method config of a service
//! config becomes a [`PolicyConfig`], and which engine rules carry A6's
//! semantics.
//!
//! | A6 section | rule | where |
//! |---|---|---|
//! | Maximum Number of Retries | `maxAttempts` counts the original attempt; the call deadline spans every attempt | `max_attempts`; `timeout` becomes `total_timeout_ms` |
//! | Validation of retryPolicy | `maxAttempts` a JSON integer > 1, `initialBackoff`/`maxBackoff` Durations > 0, `backoffMultiplier` > 0, `retryableStatusCodes` non-empty | [`super::service_config`] refuses anything else; a multiplier is kept in thousandths (warned when rounded) |
//! | Limits on Retries and Hedges | `maxAttempts` above the client cap (default 5) is treated as the cap | capped, with a warning |
//! | Exponential Backoff (2024 revision) | retry `n` waits `min(initialBackoff * multiplier^n, maxBackoff) * random(0.8, 1.2)`, which may exceed `maxBackoff` | backoff `exponential`, jitter `a6` ([`JitterConfig::A6`]) |
//! | Retryable Status Codes | only the listed codes are retried | `retry_on.grpc_codes`; nothing else (HTTP, transport) |
//! | Pushback | a valid `grpc-retry-pushback-ms` replaces the backoff: retry after exactly that delay, and the next backoff starts again from `initialBackoff`; a negative or unparseable value means do not retry | `server_guidance.mode` `a6` ([`GuidanceMode::A6`]); [`crate::headers::retry_after::parse_grpc_pushback`] |
//! | Pushback | exhausted `maxAttempts` wins over a pushback | the attempts check comes first |
//! | Throttling | `token_count` starts at `maxTokens`; a failure with a retryable (or non-fatal) code, or a "do not retry" pushback, takes 1; an OK adds `tokenRatio`; retries and hedges only while `token_count > maxTokens / 2` | [`ServiceConfig::throttling`](super::ServiceConfig::throttling) as a `token_bucket` budget |
//! | Validation of retryThrottling | `maxTokens` a JSON integer in (0, 1000]; `tokenRatio` > 0, decimals beyond 3 ignored | refused / truncated with a warning |
//! | Hedging Policy | the original at once, then one hedge every `hedgingDelay` up to `maxAttempts`; a non-fatal code sends the next hedge at once; any other code ends the call | `hedging` with `max_hedged_attempts = maxAttempts - 1`, `retry_on.grpc_codes` = `nonFatalStatusCodes` |
//!
//! A profile read from a service config has no per-attempt timeout of its
//! own (each attempt may use what remains of the call's deadline, as in
//! gRPC), no response reserve, no minimum useful attempt time, no ambiguous
//! or conflict codes (A6 leaves the choice of codes to the service owner), and
//! an unbounded budget when the method config has no `timeout` (give the
//! operation the caller's deadline).

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::error::Error;
use crate::controls::budget::BudgetConfig;
use crate::controls::dependency::DependencyConfig;
use crate::ground::message::message;
use crate::ground::units::float;
use crate::outcomes::classify::GrpcCode;
use crate::policy::{
    AboveCap, AttemptTimeoutConfig, BackoffConfig, BackoffKind, GuidanceMode, HedgingConfig, Idempotency, JitterConfig,
    PolicyConfig, RetryLimitsConfig, RetryOnConfig, ServerGuidanceConfig, StatusSetConfig, MAX_MS, MAX_MULTIPLIER,
};

use super::findings::{rule, Warnings};

const NS_PER_MS: i128 = 1_000_000;

/// A validated `retryPolicy`, with the paths of its fields for messages.
pub(crate) struct RetryPolicy {
    pub(crate) max_attempts: u32,
    pub(crate) initial_backoff_ns: i128,
    pub(crate) initial_path: String,
    pub(crate) max_backoff_ns: i128,
    pub(crate) max_path: String,
    pub(crate) backoff_multiplier: f64,
    pub(crate) multiplier_path: String,
    pub(crate) retryable_codes: Vec<GrpcCode>,
}

/// A validated `hedgingPolicy`.
pub(crate) struct HedgingPolicy {
    pub(crate) max_attempts: u32,
    pub(crate) delay_ns: i128,
    pub(crate) delay_path: String,
    pub(crate) non_fatal_codes: Vec<GrpcCode>,
}

/// The policy of a method config.
pub(crate) fn method_policy(
    warnings: &mut Warnings,
    timeout_ns: Option<(i128, &str)>,
    retry: Option<RetryPolicy>,
    hedging: Option<HedgingPolicy>,
) -> Result<PolicyConfig, Error> {
    let total_timeout_ms = match timeout_ns {
        None => MAX_MS,
        Some((ns, path)) => {
            let ms = ns.div_euclid(NS_PER_MS);
            if ms < 1 {
                return Err(rule(path, message!(TimeoutBelowMs, path.to_owned())));
            }
            if ns % NS_PER_MS != 0 {
                warnings.warn(path, message!(TimeoutTruncated, path.to_owned(), i64::try_from(ms).unwrap_or(i64::MAX)));
            }
            // Durations hold at most 315576000000 s, below MAX_MS.
            u64::try_from(ms).unwrap_or(MAX_MS)
        }
    };
    let mut config = PolicyConfig {
        max_attempts: 1,
        total_timeout_ms,
        attempt_timeout: AttemptTimeoutConfig::FractionOfRemaining(1.0),
        response_reserve_ms: 0,
        minimum_useful_attempt_ms: 0,
        backoff: BackoffConfig {
            kind: BackoffKind::Constant,
            base_ms: 0,
            multiplier: 1.0,
            cap_ms: 0,
            ..BackoffConfig::default()
        },
        jitter: JitterConfig::None,
        retry_on: RetryOnConfig::none(),
        ambiguous: StatusSetConfig::default(),
        conflict: StatusSetConfig::default(),
        server_guidance: ServerGuidanceConfig {
            honor: true,
            cap_ms: MAX_MS,
            above_cap: AboveCap::Clamp,
            mode: GuidanceMode::A6,
            ..ServerGuidanceConfig::default()
        },
        idempotency: Idempotency::Idempotent,
        hedging: None,
        redelivery: None,
        propagation: crate::policy::PropagationConfig::default(),
        retry_limits: RetryLimitsConfig::default(),
        retry_methods: None,
    };
    if let Some(retry) = retry {
        let initial_ms = ceil_ms(warnings, retry.initial_backoff_ns, &retry.initial_path);
        let max_ms = ceil_ms(warnings, retry.max_backoff_ns, &retry.max_path);
        let multiplier =
            multiplier(warnings, retry.backoff_multiplier, &retry.multiplier_path, initial_ms.min(max_ms), max_ms)?;
        config.max_attempts = retry.max_attempts;
        // min(initial * m^n, max) is max for every n when initial > max.
        config.backoff = BackoffConfig {
            kind: BackoffKind::Exponential,
            base_ms: initial_ms.min(max_ms),
            multiplier,
            cap_ms: max_ms,
            ..BackoffConfig::default()
        };
        config.jitter = JitterConfig::A6;
        config.retry_on.grpc_codes = retry.retryable_codes;
    }
    if let Some(hedging) = hedging {
        let delay_ms = ceil_ms(warnings, hedging.delay_ns, &hedging.delay_path);
        config.max_attempts = hedging.max_attempts;
        config.hedging = Some(HedgingConfig { delay_ms, max_hedged_attempts: hedging.max_attempts - 1 });
        config.retry_on.grpc_codes = hedging.non_fatal_codes;
    }
    Ok(config)
}

/// `backoffMultiplier` (a number > 0, already checked) as the engine
/// keeps it: in thousandths, the nearest one (warned when it differs;
/// 0.001 at least). Above [`MAX_MULTIPLIER`] it is kept as that bound
/// (warned) when the first retry already reaches `maxBackoff` either way,
/// so every ceiling is the same; otherwise it is refused.
fn multiplier(warnings: &mut Warnings, multiplier: f64, path: &str, base_ms: u64, max_ms: u64) -> Result<f64, Error> {
    if multiplier > MAX_MULTIPLIER {
        // base * 10^6 computed exactly in u128 (base and max are below 2^53).
        if u128::from(base_ms) * 1_000_000 >= u128::from(max_ms) {
            warnings.warn(path, message!(MultiplierCapped, path.to_owned(), multiplier, MAX_MULTIPLIER));
            return Ok(MAX_MULTIPLIER);
        }
        return Err(rule(path, message!(MultiplierTooLarge, path.to_owned(), multiplier, MAX_MULTIPLIER)));
    }
    let thousandths = float::round(multiplier * 1000.0).max(1.0);
    let kept = thousandths / 1000.0;
    if (multiplier * 1000.0 - thousandths).abs() > 1e-6 {
        warnings.warn(path, message!(MultiplierThousandths, path.to_owned(), multiplier, kept));
    }
    Ok(kept)
}

/// A non-negative duration in whole ms, rounded up (a positive wait never
/// becomes no wait), with a warning when it was not whole.
fn ceil_ms(warnings: &mut Warnings, ns: i128, path: &str) -> u64 {
    let ms = (ns.max(0) + NS_PER_MS - 1) / NS_PER_MS;
    if ns % NS_PER_MS != 0 {
        warnings.warn(path, message!(RoundedUp, path.to_owned(), i64::try_from(ms).unwrap_or(i64::MAX)));
    }
    // Durations hold at most 315576000000 s, below MAX_MS.
    u64::try_from(ms).unwrap_or(MAX_MS)
}

/// The token bucket of `retryThrottling`: `tokenRatio` keeps three decimals
/// (the rest ignored, warned); a ratio above `maxTokens` refills the bucket
/// in one success either way, so it is kept as `maxTokens` (warned).
pub(crate) fn throttling(
    warnings: &mut Warnings,
    max_tokens: u32,
    token_ratio: f64,
    ratio_path: &str,
) -> DependencyConfig {
    let scaled = token_ratio * 1000.0;
    let whole = if (scaled - float::round(scaled)).abs() <= 1e-6 { float::round(scaled) } else { float::floor(scaled) };
    let mut milli = whole.min(f64::from(max_tokens) * 1000.0) as u32;
    if (whole - scaled).abs() > 1e-6 {
        warnings
            .warn(ratio_path, message!(RatioDecimals, ratio_path.to_owned(), token_ratio, f64::from(milli) / 1000.0));
    }
    if whole > f64::from(max_tokens) * 1000.0 {
        warnings.warn(ratio_path, message!(RatioAboveTokens, ratio_path.to_owned(), token_ratio, max_tokens));
    }
    if milli == 0 {
        // A6 leaves a ratio below 0.001 at 0 after truncation; the bucket then never refills.
        warnings.warn(ratio_path, message!(RatioZero, ratio_path.to_owned()));
        milli = 1;
    }
    DependencyConfig {
        budget: Some(BudgetConfig::TokenBucket { max_tokens, token_ratio: f64::from(milli) / 1000.0 }),
        breaker: None,
        retry_slots: None,
    }
}
