//! Backoff ceilings and jitter ranges, in integer milliseconds.
//!
//! The retry number `r` starts at 0 for the first retry (the wait after the
//! first attempt). The ceiling of retry `r` is:
//!
//! - exponential: `min(cap, base * multiplier^r)`, computed step by step as
//!   `ceiling(r+1) = min(cap, ceiling(r) * multiplier_permille / 1000)` with
//!   integer division, so every platform gets the same numbers (a multiplier
//!   below 1 shrinks the ceiling toward 0);
//! - linear: `min(cap, base * (r + 1))`;
//! - constant: `min(cap, base)`.
//!
//! `base` is `backoff.base_ms`, or `backoff.throttling_base_ms` when the
//! failure being retried is a throttling error and the policy sets one.
//!
//! With `immediate_first_retry` the first retry's ceiling (and delay) is 0,
//! whatever the kind, jitter and failure; later retries keep theirs
//! (urllib3's shape).
//!
//! Under `a6` jitter (gRFC A6) the steps keep the microsecond
//! instead: the ceiling is A6's
//! `min(initialBackoff * multiplier^r, maxBackoff)` to within a microsecond, and
//! the draw's range is the whole ms within `[0.8, 1.2]` of it. Rounding each
//! step down compounds, and A6's peers (grpc-go, grpc-java, grpc-js) compute
//! in float or nanoseconds: an `initialBackoff` of 1 ms times 1.6 grows to
//! 1.6, 2.56, 4.1 ms there, where whole-ms steps stay at 1 ms.
//!
//! The jitter then gives an inclusive range, and one draw picks the delay
//! (see [`crate::policy::Jitter`] and the [`rng`](crate) notes). No delay ever
//! exceeds the cap, except under `a6` jitter, where gRFC A6 multiplies the
//! capped ceiling by `random(0.8, 1.2)`; server guidance may raise a delay
//! above it (it is a floor). `full_then_cap` draws over the ceiling *before*
//! the cap (the same step-by-step arithmetic, saturating at 2^53 - 1 ms) and
//! caps the draw afterwards.

pub(crate) mod polly;

use alloc::vec::Vec;

use crate::config::error::Error;
use crate::ground::message::message;
use crate::ground::rng::Draws;
use crate::policy::{Backoff, BackoffKind, Jitter, Policy, MAX_ATTEMPTS_LIMIT, MAX_MS};

impl Backoff {
    /// The ceiling for retry `r` (0 = first retry), before jitter. Under
    /// jitter `polly`, [`backoff_ceilings_ms`] also bounds a ceiling by .NET's
    /// `TimeSpan.MaxValue` (922 337 203 685 477 ms), as Polly does without
    /// `MaxDelay`; the backoff alone does not know its jitter.
    ///
    /// ```
    /// use retryplan::Policy;
    /// let policy = Policy::from_json(r#"{"backoff": {"base_ms": 100, "cap_ms": 2000}}"#).unwrap();
    /// let ceilings: Vec<u64> = (0..7).map(|r| policy.backoff().ceiling_ms(r)).collect();
    /// assert_eq!(ceilings, [100, 200, 400, 800, 1600, 2000, 2000]);
    /// ```
    #[must_use]
    pub fn ceiling_ms(&self, retry: u32) -> u64 {
        self.ceiling_after_ms(retry, false)
    }

    /// The ceiling for retry `r` after a failure that was, or was not, a
    /// throttling error (the same as [`Backoff::ceiling_ms`] unless the
    /// policy sets `throttling_base_ms`).
    #[must_use]
    pub fn ceiling_after_ms(&self, retry: u32, after_throttling: bool) -> u64 {
        if self.immediate_first_retry && retry == 0 {
            return 0;
        }
        self.grown(self.base_for_ms(after_throttling), retry, self.cap_ms)
    }

    /// The base of a retry: `throttling_base_ms` after a throttling error
    /// when the policy sets one, else `base_ms`.
    #[must_use]
    pub fn base_for_ms(&self, after_throttling: bool) -> u64 {
        match self.throttling_base_ms {
            Some(base_ms) if after_throttling => base_ms,
            _ => self.base_ms,
        }
    }

    /// The ceiling of retry `retry` grown from `base`, never above `limit`, in
    /// the unit of both (ms for [`Backoff::ceiling_after_ms`], µs for
    /// [`Backoff::a6_ceiling_us`]).
    fn grown(&self, base: u64, retry: u32, limit: u64) -> u64 {
        let start = base.min(limit);
        match self.kind {
            BackoffKind::Constant => start,
            BackoffKind::Linear => start.saturating_mul(u64::from(retry) + 1).min(limit),
            // Doubling (the default multiplier): one shift gives what the loop
            // below does, `min(start * 2^retry, limit)`, a shift that loses
            // bits being above any limit.
            BackoffKind::Exponential if self.multiplier_permille == 2000 => match start.checked_shl(retry) {
                Some(ceiling) if ceiling >> retry == start => ceiling.min(limit),
                // Bits shifted out: above any limit (zero stays zero).
                _ if start == 0 => 0,
                _ => limit,
            },
            BackoffKind::Exponential => {
                let growing = self.multiplier_permille >= 1000;
                let mut ceiling = start;
                for _ in 0..retry {
                    if ceiling == 0 || (growing && ceiling >= limit) {
                        break;
                    }
                    // In u64 (a division by a constant is a multiplication there;
                    // u128 division is a library call). A product beyond u64 is
                    // beyond 2^64 / 1000 ms, far above any cap (at most 2^53 - 1).
                    let grown = match ceiling.checked_mul(u64::from(self.multiplier_permille)) {
                        Some(product) => product / 1000,
                        None => u64::MAX,
                    };
                    ceiling = grown.min(limit);
                }
                ceiling
            }
        }
    }

    /// gRFC A6's ceiling of retry `retry`, `min(base * multiplier^retry, cap)`,
    /// in microseconds: the steps of [`Backoff::ceiling_ms`] taken in µs, so
    /// that a fractional multiplier grows even a 1 ms base as A6 says. (A cap
    /// is at most 2^53 - 1 ms, under 2^63 µs; a step whose product passes 2^64,
    /// a ceiling above 2^64 / 10^6 ms, about 585 years, is the cap.)
    fn a6_ceiling_us(&self, base_ms: u64, retry: u32) -> u64 {
        self.grown(base_ms.saturating_mul(1000), retry, self.cap_ms.saturating_mul(1000))
    }
}

/// The ceiling of retry `retry` under `policy`: [`Backoff::ceiling_after_ms`],
/// except under jitter `polly`, where it is Polly's delay without jitter (the
/// same numbers, but a delay beyond .NET's `TimeSpan` is `TimeSpan.MaxValue`
/// when the cap is above it, as Polly has it without `MaxDelay`).
pub(crate) fn policy_ceiling_ms(policy: &Policy, retry: u32, after_throttling: bool) -> u64 {
    let backoff = &policy.backoff;
    if backoff.immediate_first_retry && retry == 0 {
        return 0;
    }
    let base = backoff.base_for_ms(after_throttling);
    match policy.jitter {
        Jitter::Polly { .. } => polly::ceiling_ms(backoff.kind, retry, base, backoff.cap_ms),
        Jitter::A6 => backoff.a6_ceiling_us(base, retry) / 1000,
        _ => backoff.grown(base, retry, backoff.cap_ms),
    }
}

/// One delay's draw: uniform in `[low, high]`, then at most `cap`.
struct DrawRange {
    low: u64,
    high: u64,
    cap: u64,
}

impl DrawRange {
    fn uncapped(low: u64, high: u64) -> DrawRange {
        DrawRange { low, high, cap: u64::MAX }
    }
}

/// How the delay of retry `retry` is drawn. `previous_delay_ms` is the delay
/// drawn for the previous retry (the base before the first); only
/// decorrelated jitter uses it. For Polly's jitter the range holds whatever
/// Polly draws (see the jitter kind `polly`).
fn draw_range(policy: &Policy, retry: u32, previous_delay_ms: u64, after_throttling: bool) -> DrawRange {
    if policy.backoff.immediate_first_retry && retry == 0 {
        return DrawRange::uncapped(0, 0);
    }
    let backoff = &policy.backoff;
    let cap = backoff.cap_ms;
    let base = backoff.base_for_ms(after_throttling);
    let ceiling = backoff.grown(base, retry, cap);
    match policy.jitter {
        Jitter::None => DrawRange::uncapped(ceiling, ceiling),
        Jitter::Full => DrawRange::uncapped(0, ceiling),
        Jitter::Equal => DrawRange::uncapped(ceiling / 2, ceiling),
        Jitter::Decorrelated => {
            let low = base.min(cap);
            DrawRange::uncapped(low, previous_delay_ms.saturating_mul(3).clamp(low, cap))
        }
        Jitter::Proportional { ratio_permille } => {
            // A ceiling is at most 2^53 - 1 ms and the ratio at most 1000: the product fits in u64.
            let spread = ceiling.saturating_mul(u64::from(ratio_permille)) / 1000;
            DrawRange::uncapped(ceiling.saturating_sub(spread), ceiling.saturating_add(spread).min(cap))
        }
        Jitter::Polly { use_jitter } => {
            let (low, high) = polly::delay_range_ms(backoff.kind, use_jitter, retry, base, cap);
            DrawRange::uncapped(low, high)
        }
        Jitter::A6 => {
            // min(initial * m^n, max) * random(0.8, 1.2): the whole ms within [0.8, 1.2] of the
            // ceiling kept to the microsecond. The spread is not capped (gRFC A6), but no time is ever
            // past MAX_MS (a cap of 2^53 - 1 would draw up to 1.2 times it). Below 2.5 ms a
            // fractional ceiling may leave no whole ms in the range: then its top, rounded down
            // (what a timer given 1.2 times the ceiling waits).
            let us = backoff.a6_ceiling_us(base, retry);
            // c - c/5 is 0.8c rounded up, c + c/5 is 1.2c rounded down: in µs, then in whole ms.
            let spread = us / 5;
            let high = (us.saturating_add(spread) / 1000).min(MAX_MS);
            DrawRange::uncapped((us - spread).div_ceil(1000).min(high), high)
        }
        Jitter::FullThenCap => DrawRange { low: 0, high: backoff.grown(base, retry, MAX_MS), cap },
        // urllib3: min(backoff_max, factor * 2^(n-1) + random() * backoff_jitter).
        Jitter::Additive { max_ms } => DrawRange { low: ceiling, high: ceiling.saturating_add(max_ms), cap },
    }
}

/// The inclusive range of the delay of retry `r` after a failure that is
/// not a throttling error (what one draw can give, after any cap).
///
/// `previous_delay_ms` is the delay drawn for the previous retry (the base
/// before the first); only decorrelated jitter uses it. For Polly's jitter
/// the range holds whatever Polly draws (see the jitter kind `polly`).
#[must_use]
pub fn delay_range_ms(policy: &Policy, retry: u32, previous_delay_ms: u64) -> (u64, u64) {
    delay_range_after_ms(policy, retry, previous_delay_ms, false)
}

/// The inclusive range of the delay of retry `r` after a failure that was,
/// or was not, a throttling error: [`delay_range_ms`] with the base the
/// failure chooses (`backoff.throttling_base_ms` after a throttling error,
/// when the policy sets one), jitter and cap included.
///
/// ```
/// use retryplan::{dialects::profiles, Policy};
/// use retryplan::engine::backoff::delay_range_after_ms;
/// let aws = Policy::new(&profiles::profile("aws_standard_2026").unwrap()).unwrap();
/// assert_eq!(delay_range_after_ms(&aws, 0, 0, false), (0, 50), "50 ms base after a transient error");
/// assert_eq!(delay_range_after_ms(&aws, 0, 0, true), (0, 1_000), "1 s base after a throttling error");
/// assert_eq!(delay_range_after_ms(&aws, 6, 0, true), (0, 20_000), "capped before the draw");
/// ```
#[must_use]
pub fn delay_range_after_ms(policy: &Policy, retry: u32, previous_delay_ms: u64, after_throttling: bool) -> (u64, u64) {
    let range = draw_range(policy, retry, previous_delay_ms, after_throttling);
    (range.low.min(range.cap), range.high.min(range.cap))
}

/// The delay of retry `retry`: one draw from its range (none when the range
/// is a single value), capped as the jitter says.
pub(crate) fn draw_delay_ms(
    policy: &Policy,
    retry: u32,
    previous_delay_ms: u64,
    after_throttling: bool,
    draws: &mut Draws,
) -> u64 {
    let range = draw_range(policy, retry, previous_delay_ms, after_throttling);
    draws.in_range(range.low, range.high).min(range.cap)
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
            field: "retries",
            rule: message!(TooManyRetries, MAX_ATTEMPTS_LIMIT, retries),
        });
    }
    Ok((0..retries).map(|retry| policy_ceiling_ms(policy, retry, false)).collect())
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
    fn doubling_by_shift_gives_the_ceilings_of_repeated_doubling() {
        let doubling = policy(BackoffConfig::default(), JitterConfig::None).backoff;
        assert_eq!(doubling.multiplier_permille, 2000, "the shortcut's case is the default");
        for start in [0, 1, 3, 100, 1 << 40, MAX_MS / 2, MAX_MS] {
            for limit in [0, 1, 400, 2000, 1 << 50, MAX_MS] {
                let mut expected = start.min(limit);
                for retry in 0..70 {
                    assert_eq!(doubling.grown(start, retry, limit), expected, "{start} << {retry}, at most {limit}");
                    expected = expected.saturating_mul(2).min(limit);
                }
            }
        }
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
        // gRFC A6 draws up to 1.2 times a ceiling of 2^53 - 1: no time is ever past MAX_MS.
        let config = BackoffConfig { base_ms: MAX_MS, cap_ms: MAX_MS, ..BackoffConfig::default() };
        let a6 = policy(config, JitterConfig::A6);
        assert_eq!(delay_range_ms(&a6, 0, 0), (MAX_MS - MAX_MS / 5, MAX_MS));
        assert_eq!(draw_delay_ms(&a6, 0, 0, false, &mut Draws::Highest), MAX_MS);
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
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::FullThenCap), 2, 0), (0, 400));
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::FullThenCap), 9, 0), (0, 1000));
    }

    #[test]
    fn a6_ceilings_keep_the_fraction_of_each_step() {
        // grpc-js (as grpc-go and grpc-java) grows a 1 ms initialBackoff times 1.6 to 1.6, 2.56, 4.096, 6.5536 ms;
        // whole-ms steps would stay at 1 ms.
        let b = BackoffConfig { base_ms: 1, cap_ms: 1000, multiplier: 1.6, ..BackoffConfig::default() };
        let a6 = policy(b, JitterConfig::A6);
        assert_eq!(backoff_ceilings_ms(&a6, 5).unwrap(), [1, 1, 2, 4, 6]);
        let ranges: Vec<(u64, u64)> = (0..5).map(|r| delay_range_ms(&a6, r, 0)).collect();
        // [0.8, 1.2] of 1, 1.6, 2.56, 4.096, 6.5536 ms in whole ms; 1.6 has none, so its top rounded down.
        assert_eq!(ranges, [(1, 1), (1, 1), (3, 3), (4, 4), (6, 7)]);
        // Another jitter keeps the general rule: whole-ms steps.
        assert_eq!(backoff_ceilings_ms(&policy(b, JitterConfig::None), 5).unwrap(), [1, 1, 1, 1, 1]);
        // A whole ceiling keeps the range it always had: [c - c/5, c + c/5].
        let b = BackoffConfig { base_ms: 13, cap_ms: 1000, multiplier: 2.0, ..BackoffConfig::default() };
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::A6), 0, 0), (11, 15));
        // Growth saturates at the cap, and 1.2 times the largest cap at MAX_MS.
        let b = BackoffConfig { base_ms: 1, cap_ms: MAX_MS, multiplier: 1.5, ..BackoffConfig::default() };
        assert_eq!(delay_range_ms(&policy(b, JitterConfig::A6), 200, 0), (MAX_MS - MAX_MS / 5, MAX_MS));
        let b = BackoffConfig { base_ms: 3, cap_ms: MAX_MS, multiplier: 999_999.5, ..BackoffConfig::default() };
        assert_eq!(policy(b, JitterConfig::A6).backoff().a6_ceiling_us(3, 3), MAX_MS * 1000);
    }

    #[test]
    fn multipliers_below_one_shrink_the_ceiling_even_from_the_cap() {
        let b = BackoffConfig { base_ms: 1000, cap_ms: 1000, multiplier: 0.5, ..BackoffConfig::default() };
        let p = policy(b, JitterConfig::None);
        assert_eq!(backoff_ceilings_ms(&p, 12).unwrap(), [1000, 500, 250, 125, 62, 31, 15, 7, 3, 1, 0, 0]);
        let b = BackoffConfig { base_ms: 100, cap_ms: 1000, multiplier: 1.0, ..BackoffConfig::default() };
        assert_eq!(backoff_ceilings_ms(&policy(b, JitterConfig::None), 3).unwrap(), [100, 100, 100]);
    }

    #[test]
    fn full_then_cap_draws_over_the_uncapped_ceiling_and_caps_the_draw() {
        let b = BackoffConfig { base_ms: 1000, cap_ms: 20_000, ..BackoffConfig::default() };
        let p = policy(b, JitterConfig::FullThenCap);
        // Retry 5: u = 32 s; a draw is in [0, 32000] and waits min(draw, 20000).
        let (mut capped, mut below) = (0, 0);
        let mut draws = Draws::Seeded(crate::ground::rng::SplitMix64::new(3));
        for _ in 0..10_000 {
            let delay = draw_delay_ms(&p, 5, 0, false, &mut draws);
            assert!(delay <= 20_000);
            if delay == 20_000 {
                capped += 1;
            } else {
                below += 1;
            }
        }
        // P(capped) = 12000 / 32001: about 3750 of 10000.
        assert!((3_450..4_050).contains(&capped), "{capped} capped, {below} below");
        assert_eq!(draw_delay_ms(&p, 5, 0, false, &mut Draws::Highest), 20_000);
        assert_eq!(draw_delay_ms(&p, 99, 0, false, &mut Draws::Highest), 20_000);
    }

    #[test]
    fn a_throttling_base_replaces_the_base_after_throttling_only() {
        let b =
            BackoffConfig { base_ms: 50, cap_ms: 20_000, throttling_base_ms: Some(1_000), ..BackoffConfig::default() };
        let p = policy(b, JitterConfig::None);
        let delay = |retry, throttling| draw_delay_ms(&p, retry, 0, throttling, &mut Draws::Highest);
        assert_eq!([delay(0, false), delay(1, false), delay(2, false)], [50, 100, 200]);
        assert_eq!([delay(0, true), delay(1, true), delay(5, true)], [1_000, 2_000, 20_000]);
    }
}
