//! Backoff ceilings and jitter ranges, in integer milliseconds.
//!
//! The retry number `r` starts at 0 for the first retry (the wait after the
//! first attempt). The ceiling of retry `r` is:
//!
//! - exponential: `min(cap, base * multiplier^r)`, computed step by step as
//!   `ceiling(r+1) = min(cap, ceiling(r) * multiplier_permille / 1000)` with
//!   integer division, so every platform gets the same numbers;
//! - linear: `min(cap, base * (r + 1))`;
//! - constant: `min(cap, base)`.
//!
//! With `immediate_first_retry` the first retry's ceiling (and delay) is 0,
//! whatever the kind and jitter; later retries keep theirs (urllib3's shape).
//!
//! The jitter then gives an inclusive range of delays, and one draw picks the
//! delay (see [`crate::Jitter`] and the [`rng`](crate) notes). No delay ever
//! exceeds the cap, except under `a6` jitter, where gRFC A6 multiplies the
//! capped ceiling by `random(0.8, 1.2)`; server guidance may raise a delay
//! above it (it is a floor).

pub(crate) mod polly;

use alloc::vec::Vec;

use crate::error::Error;
use crate::message::message;
use crate::policy::{Backoff, BackoffKind, Jitter, Policy, MAX_ATTEMPTS_LIMIT};

impl Backoff {
    /// The ceiling for retry `r` (0 = first retry), before jitter.
    ///
    /// ```
    /// use retryplan::Policy;
    /// let policy = Policy::from_json(r#"{"backoff": {"base_ms": 100, "cap_ms": 2000}}"#).unwrap();
    /// let ceilings: Vec<u64> = (0..7).map(|r| policy.backoff().ceiling_ms(r)).collect();
    /// assert_eq!(ceilings, [100, 200, 400, 800, 1600, 2000, 2000]);
    /// ```
    #[must_use]
    pub fn ceiling_ms(&self, retry: u32) -> u64 {
        if self.immediate_first_retry && retry == 0 {
            return 0;
        }
        let base = self.base_ms.min(self.cap_ms);
        match self.kind {
            BackoffKind::Constant => base,
            BackoffKind::Linear => base.saturating_mul(u64::from(retry) + 1).min(self.cap_ms),
            BackoffKind::Exponential => {
                let mut ceiling = base;
                for _ in 0..retry {
                    if ceiling >= self.cap_ms {
                        break;
                    }
                    // In u64 (a division by a constant is a multiplication there;
                    // u128 division is a library call). A product beyond u64 is
                    // beyond 2^64 / 1000 ms, far above any cap (at most 2^53 - 1).
                    let grown = match ceiling.checked_mul(u64::from(self.multiplier_permille)) {
                        Some(product) => product / 1000,
                        None => u64::MAX,
                    };
                    ceiling = grown.min(self.cap_ms);
                }
                ceiling
            }
        }
    }
}

/// The inclusive range a jittered delay for retry `r` is drawn from.
///
/// `previous_delay_ms` is the delay drawn for the previous retry (the base
/// before the first); only decorrelated jitter uses it. For Polly's jitter
/// the range holds whatever Polly draws (see the jitter kind `polly`).
#[must_use]
pub fn delay_range_ms(policy: &Policy, retry: u32, previous_delay_ms: u64) -> (u64, u64) {
    if policy.backoff.immediate_first_retry && retry == 0 {
        return (0, 0);
    }
    let backoff = policy.backoff;
    let cap = backoff.cap_ms;
    let ceiling = backoff.ceiling_ms(retry);
    match policy.jitter {
        Jitter::None => (ceiling, ceiling),
        Jitter::Full => (0, ceiling),
        Jitter::Equal => (ceiling / 2, ceiling),
        Jitter::Decorrelated => {
            let low = backoff.base_ms.min(cap);
            let high = previous_delay_ms.saturating_mul(3).clamp(low, cap);
            (low, high)
        }
        Jitter::Proportional { ratio_permille } => {
            // A ceiling is at most 2^53 - 1 ms and the ratio at most 1000: the product fits in u64.
            let spread = ceiling.saturating_mul(u64::from(ratio_permille)) / 1000;
            (ceiling.saturating_sub(spread), ceiling.saturating_add(spread).min(cap))
        }
        Jitter::Polly { use_jitter } => polly::delay_range_ms(backoff.kind, use_jitter, retry, backoff.base_ms, cap),
        Jitter::A6 => {
            // min(initial * m^n, max) * random(0.8, 1.2): the spread is not capped (gRFC A6).
            let spread = ceiling / 5;
            (ceiling - spread, ceiling.saturating_add(spread))
        }
    }
}

/// The backoff ceilings of the first `retries` retries of a policy.
///
/// # Errors
/// [`Error::InvalidArgument`] when `retries` exceeds
/// [`MAX_ATTEMPTS_LIMIT`]: no policy
/// retries more often, and an unbounded list is a way to exhaust memory.
pub fn backoff_ceilings_ms(policy: &Policy, retries: u32) -> Result<Vec<u64>, Error> {
    if retries > MAX_ATTEMPTS_LIMIT {
        return Err(Error::InvalidArgument {
            name: "retries",
            rule: message!(TooManyRetries, MAX_ATTEMPTS_LIMIT, retries),
        });
    }
    Ok((0..retries).map(|retry| policy.backoff.ceiling_ms(retry)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{BackoffConfig, JitterConfig, PolicyConfig};

    fn policy(backoff: BackoffConfig, jitter: JitterConfig) -> Policy {
        let mut config = PolicyConfig { backoff, jitter, ..PolicyConfig::default() };
        config.max_attempts = 10;
        Policy::new(&config).expect("valid")
    }

    #[test]
    fn seed_ceilings() {
        let p = policy(BackoffConfig { base_ms: 100, cap_ms: 2000, ..BackoffConfig::default() }, JitterConfig::None);
        assert_eq!(backoff_ceilings_ms(&p, 7).unwrap(), [100, 200, 400, 800, 1600, 2000, 2000]);
        let p = policy(BackoffConfig { base_ms: 50, cap_ms: 400, ..BackoffConfig::default() }, JitterConfig::None);
        assert_eq!(backoff_ceilings_ms(&p, 5).unwrap(), [50, 100, 200, 400, 400]);
    }

    #[test]
    fn linear_constant_and_fractional_multiplier() {
        let linear = BackoffConfig {
            kind: BackoffKind::Linear,
            base_ms: 100,
            cap_ms: 250,
            multiplier: 1.0,
            ..BackoffConfig::default()
        };
        assert_eq!(backoff_ceilings_ms(&policy(linear, JitterConfig::None), 4).unwrap(), [100, 200, 250, 250]);
        let constant = BackoffConfig {
            kind: BackoffKind::Constant,
            base_ms: 70,
            cap_ms: 70,
            multiplier: 1.0,
            ..BackoffConfig::default()
        };
        assert_eq!(backoff_ceilings_ms(&policy(constant, JitterConfig::None), 3).unwrap(), [70, 70, 70]);
        let grpc = BackoffConfig {
            kind: BackoffKind::Exponential,
            base_ms: 1000,
            cap_ms: 120_000,
            multiplier: 1.6,
            ..BackoffConfig::default()
        };
        assert_eq!(backoff_ceilings_ms(&policy(grpc, JitterConfig::None), 4).unwrap(), [1000, 1600, 2560, 4096]);
    }

    #[test]
    fn huge_values_saturate() {
        let config =
            BackoffConfig { base_ms: 1, cap_ms: crate::policy::MAX_MS, multiplier: 100.0, ..BackoffConfig::default() };
        let p = policy(config, JitterConfig::Proportional { ratio: 1.0 });
        assert_eq!(p.backoff.ceiling_ms(99), crate::policy::MAX_MS);
        let (low, high) = delay_range_ms(&p, 99, u64::MAX);
        assert_eq!((low, high), (0, crate::policy::MAX_MS));
    }

    #[test]
    fn jitter_ranges() {
        let b = BackoffConfig { base_ms: 100, cap_ms: 1000, ..BackoffConfig::default() };
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::Full), 2, 0), (0, 400));
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::Equal), 2, 0), (200, 400));
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::Proportional { ratio: 0.2 }), 2, 0), (320, 480));
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::Proportional { ratio: 0.2 }), 9, 0), (800, 1000));
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::Decorrelated), 0, 100), (100, 300));
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::Decorrelated), 5, 900), (100, 1000));
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::A6), 0, 0), (80, 120));
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::A6), 9, 0), (800, 1200), "A6 may exceed the cap");
    }
}
