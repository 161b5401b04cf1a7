//! Polly v8's retry delays (`Polly.Core/Retry/RetryHelper.cs`), computed as
//! Polly computes them: in 100 ns ticks, in the same order of floating-point
//! operations, truncated to whole milliseconds only at the end.
//!
//! For retry `attempt` (0 for the first retry), base delay `d` and the
//! optional cap `MaxDelay`:
//!
//! | backoff | without jitter | with jitter |
//! |---|---|---|
//! | constant | `d` | `d + (d * 0.5 * U) - d * 0.25`, so `[0.75 d, 1.25 d)` |
//! | linear | `(attempt + 1) * d` | the same jitter around `(attempt + 1) * d` |
//! | exponential | `2^attempt * d` | DecorrelatedJitterBackoffV2 (below) |
//!
//! DecorrelatedJitterBackoffV2 keeps a state `prev` (0 before the first
//! retry): `t = attempt + U`, `next = 2^t * tanh(sqrt(4 t))`, the delay is
//! `(next - prev) * (1 / 1.4) * d` in ticks, at most `TimeSpan.MaxValue - 1000`
//! ticks, and `prev = next` (an infinite `next` gives that maximum).
//!
//! Then: a zero `d` is zero whatever the type (and draws nothing); a delay
//! above `MaxDelay` is `MaxDelay` (so a cap below the base caps every delay);
//! a delay that overflows a `TimeSpan` is `MaxDelay`, or `TimeSpan.MaxValue`
//! (922 337 203 685 477 ms) without one. Polly's `MaxDelay` is at most a day,
//! so that is `min(cap, TimeSpan.MaxValue)`: a cap at or above
//! `TimeSpan.MaxValue` (the profile's 2^53 - 1 ms) is Polly's `MaxDelay: null`.
//! `U` is one draw in `[0, 1)` from the engine's seeded generator (see
//! [`unit_interval`](crate::ground::rng)); the math functions are the `libm`
//! crate's, so every platform and the wasm build agree to the bit.

use crate::ground::rng::LARGEST_BELOW_ONE;
use crate::ground::units::float;
use crate::policy::config::POLLY_MAX_BASE_MS;
use crate::policy::BackoffKind;

/// Ticks (100 ns) in a millisecond.
const TICKS_PER_MS: i64 = 10_000;

/// `TimeSpan.MaxValue.Ticks`.
const TIMESPAN_MAX_TICKS: i64 = i64::MAX;

/// `TimeSpan.MaxValue` in whole milliseconds (its 0.5807 ms beyond truncated,
/// as every Polly delay is): the longest delay Polly gives.
const TIMESPAN_MAX_MS: u64 = TIMESPAN_MAX_TICKS.unsigned_abs() / TICKS_PER_MS.unsigned_abs();

/// `(double)TimeSpan.MaxValue.Ticks - 1000`, Polly's bound for the jittered
/// exponential delay.
const MAX_TIMESPAN_TICKS_F64: f64 = TIMESPAN_MAX_TICKS as f64 - 1000.0;

/// Polly's jitter factor for constant and linear delays.
const JITTER_FACTOR: f64 = 0.5;

/// Polly's `ExponentialFactor`.
const EXPONENTIAL_FACTOR: f64 = 2.0;

/// What a Polly retry strategy keeps between the delays of one execution:
/// the previous `next` of DecorrelatedJitterBackoffV2 (0 at the start).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PollyState {
    prev: f64,
}

/// `TimeSpan(ticks)` built from a double, or `None` where .NET throws
/// `OverflowException` (`IntervalFromDoubleTicks`).
fn ticks_from_f64(ticks: f64) -> Option<i64> {
    // 2^63 is the first double above long.MaxValue; NaN fails the comparison.
    const TWO_POW_63: f64 = (1u64 << 63) as f64;
    if ticks.is_nan() || !(-TWO_POW_63..TWO_POW_63).contains(&ticks) {
        return None;
    }
    // In range, so the truncating cast is exact to .NET's `(long)ticks`.
    Some(ticks as i64)
}

/// `TimeSpan.FromMilliseconds(ms)` in ticks (.NET Core 3.0 and later keep
/// the full precision and truncate to ticks).
fn from_milliseconds(ms: f64) -> Option<i64> {
    ticks_from_f64(ms * TICKS_PER_MS as f64)
}

/// `RetryHelper.ApplyJitter`: `delay + (delay * 0.5 * U) - delay * 0.5 / 2`.
fn apply_jitter(delay_ticks: i64, unit: f64) -> Option<i64> {
    let total_ms = delay_ticks as f64 / TICKS_PER_MS as f64;
    let offset = (total_ms * JITTER_FACTOR) / 2.0;
    let random_delay = (total_ms * JITTER_FACTOR * unit) - offset;
    from_milliseconds(total_ms + random_delay)
}

/// `RetryHelper.DecorrelatedJitterBackoffV2`.
fn decorrelated_jitter_v2(attempt: u32, base_ticks: i64, state: &mut PollyState, unit: f64) -> i64 {
    const P_FACTOR: f64 = 4.0;
    const RP_SCALING_FACTOR: f64 = 1.0 / 1.4;
    let t = f64::from(attempt) + unit;
    let next = libm::pow(EXPONENTIAL_FACTOR, t) * libm::tanh(libm::sqrt(P_FACTOR * t));
    if next.is_infinite() {
        state.prev = next;
        return MAX_TIMESPAN_TICKS_F64 as i64;
    }
    let formula_intrinsic_value = next - state.prev;
    state.prev = next;
    let ticks = (formula_intrinsic_value * RP_SCALING_FACTOR * base_ticks as f64).min(MAX_TIMESPAN_TICKS_F64);
    // Polly asserts the value is not negative, which holds while attempts
    // grow (they do within an execution); a repeated attempt could step back.
    ticks.max(0.0) as i64
}

/// The delay Polly computes before retry `attempt`, in milliseconds.
///
/// `base_ms` must be at most [`POLLY_MAX_BASE_MS`] (policy validation
/// guarantees it); `cap_ms` is `MaxDelay`. `unit` is called once, only when
/// jitter is on and the base is not zero, for a draw in `[0, 1)`.
pub(crate) fn delay_ms(
    kind: BackoffKind,
    jitter: bool,
    attempt: u32,
    base_ms: u64,
    cap_ms: u64,
    state: &mut PollyState,
    unit: impl FnOnce() -> f64,
) -> u64 {
    // min(ticks, cap_ms * 10_000) / 10_000 is min(ticks / 10_000, cap_ms) for
    // ticks >= 0, in u64 (a cap in ticks may not fit in an i64, and an i128
    // division is a library call).
    match core_ticks(kind, jitter, attempt, base_ms, state, unit) {
        Some(ticks) => match u64::try_from(ticks) {
            Ok(ticks) => (ticks / TICKS_PER_MS.unsigned_abs()).min(cap_ms),
            // Not drawn (the draw is clamped at 0); kept as the i128 arithmetic had it.
            Err(_) if ticks > -TICKS_PER_MS => 0,
            Err(_) => u64::MAX,
        },
        // OverflowException: MaxDelay when set, else TimeSpan.MaxValue (a cap
        // at or above it is no MaxDelay: Polly's is at most a day).
        None => cap_ms.min(TIMESPAN_MAX_MS),
    }
}

/// Polly's delay before retry `attempt` without jitter, in milliseconds: the
/// ceiling of that retry whatever `UseJitter` says.
pub(crate) fn ceiling_ms(kind: BackoffKind, attempt: u32, base_ms: u64, cap_ms: u64) -> u64 {
    delay_ms(kind, false, attempt, base_ms, cap_ms, &mut PollyState::default(), || 0.0)
}

/// `RetryHelper.GetRetryDelayCore`, in ticks; `None` for an overflow.
fn core_ticks(
    kind: BackoffKind,
    jitter: bool,
    attempt: u32,
    base_ms: u64,
    state: &mut PollyState,
    unit: impl FnOnce() -> f64,
) -> Option<i64> {
    let base_ticks = i64::try_from(base_ms.min(POLLY_MAX_BASE_MS)).ok()? * TICKS_PER_MS;
    if base_ticks == 0 {
        return Some(0);
    }
    let retries = f64::from(attempt) + 1.0;
    if jitter {
        return match kind {
            BackoffKind::Constant => apply_jitter(base_ticks, unit()),
            BackoffKind::Linear => apply_jitter(from_milliseconds(retries * (base_ticks as f64 / 1e4))?, unit()),
            BackoffKind::Exponential => Some(decorrelated_jitter_v2(attempt, base_ticks, state, unit())),
        };
    }
    match kind {
        BackoffKind::Constant => Some(base_ticks),
        // `TimeSpan * double`: Math.Round(ticks * factor), then the range check.
        BackoffKind::Linear => ticks_from_f64(float::round_ties_even(base_ticks as f64 * retries)),
        BackoffKind::Exponential => {
            let factor = libm::pow(EXPONENTIAL_FACTOR, f64::from(attempt));
            ticks_from_f64(float::round_ties_even(base_ticks as f64 * factor))
        }
    }
}

/// The range Polly's delay before retry `attempt` falls in, in
/// milliseconds, whatever the draws: for constant and linear the delays at
/// `U = 0` and `U` just below 1; for the jittered exponential, from 0 to
/// `(g(attempt + 1) - g(attempt - 1)) / 1.4 * d` with `g(t) = 2^t tanh(sqrt(4 t))`
/// (`g` is 0 below 0), its largest step whatever the previous draw.
pub(crate) fn delay_range_ms(kind: BackoffKind, jitter: bool, attempt: u32, base_ms: u64, cap_ms: u64) -> (u64, u64) {
    let at = |unit: f64| delay_ms(kind, jitter, attempt, base_ms, cap_ms, &mut PollyState::default(), || unit);
    if !(jitter && kind == BackoffKind::Exponential) {
        return (at(0.0), at(LARGEST_BELOW_ONE));
    }
    let g = |t: f64| if t <= 0.0 { 0.0 } else { libm::pow(EXPONENTIAL_FACTOR, t) * libm::tanh(libm::sqrt(4.0 * t)) };
    let mut state = PollyState { prev: g(f64::from(attempt) - 1.0) };
    let highest = delay_ms(kind, jitter, attempt, base_ms, cap_ms, &mut state, || LARGEST_BELOW_ONE);
    (0, highest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use BackoffKind::{Constant, Exponential, Linear};

    const SECOND: u64 = 1000;

    fn polly(kind: BackoffKind, jitter: bool, attempt: u32, base_ms: u64, cap_ms: u64, unit: f64) -> u64 {
        delay_ms(kind, jitter, attempt, base_ms, cap_ms, &mut PollyState::default(), || unit)
    }

    const NO_CAP: u64 = crate::policy::MAX_MS;

    #[test]
    fn retry_helper_tests_without_jitter() {
        for kind in [Constant, Linear, Exponential] {
            for attempt in 0..3 {
                assert_eq!(polly(kind, false, attempt, 0, NO_CAP, 0.5), 0);
                assert_eq!(polly(kind, true, attempt, 0, NO_CAP, 0.5), 0);
            }
        }
        let series = |kind| (0..3).map(|attempt| polly(kind, false, attempt, SECOND, NO_CAP, 0.0)).collect::<Vec<_>>();
        assert_eq!(series(Constant), [1000, 1000, 1000]);
        assert_eq!(series(Linear), [1000, 2000, 3000]);
        assert_eq!(series(Exponential), [1000, 2000, 4000]);
    }

    #[test]
    fn retry_helper_tests_constant_and_linear_jitter() {
        let constant = |attempt, unit| polly(Constant, true, attempt, SECOND, NO_CAP, unit);
        assert_eq!((constant(0, 0.0), constant(0, 0.4), constant(1, 0.6), constant(0, 1.0)), (750, 950, 1050, 1250));
        let linear = |unit| polly(Linear, true, 2, SECOND, NO_CAP, unit);
        assert_eq!([0.0, 0.4, 0.5, 0.6, 1.0].map(linear), [2250, 2850, 3000, 3150, 3750]);
    }

    #[test]
    fn max_delay_caps_every_type_even_below_the_base() {
        for kind in [Constant, Linear, Exponential] {
            for jitter in [false, true] {
                assert_eq!(polly(kind, jitter, 2, 10 * SECOND, SECOND, 0.5), SECOND, "{kind:?} {jitter}");
            }
        }
        assert_eq!(polly(Constant, false, 2, SECOND, 2 * SECOND, 0.5), SECOND);
        // Overflow gives the cap.
        assert_eq!(
            polly(Exponential, false, 1000, POLLY_MAX_BASE_MS, 2 * POLLY_MAX_BASE_MS, 0.0),
            2 * POLLY_MAX_BASE_MS
        );
        // GetRetryDelay_Overflow_ReturnsMaxTimeSpan: without MaxDelay, TimeSpan.MaxValue.
        assert_eq!(polly(Exponential, false, 1000, POLLY_MAX_BASE_MS, NO_CAP, 0.0), TIMESPAN_MAX_MS);
        // A day doubled 23 times fits in a TimeSpan, 24 times overflows.
        assert_eq!(polly(Exponential, false, 23, POLLY_MAX_BASE_MS, NO_CAP, 0.0), POLLY_MAX_BASE_MS << 23);
        assert_eq!(polly(Exponential, false, 24, POLLY_MAX_BASE_MS, NO_CAP, 0.0), TIMESPAN_MAX_MS);
        assert_eq!(TIMESPAN_MAX_MS, 922_337_203_685_477);
        // The jittered exponential stops at MaxValue - 1000 ticks: the same whole milliseconds.
        assert_eq!(polly(Exponential, true, 98, POLLY_MAX_BASE_MS, NO_CAP, 0.5), TIMESPAN_MAX_MS);
    }

    #[test]
    fn decorrelated_jitter_v2_is_positive_and_capped() {
        for attempt in [1, 2, 3, 4, 10, 100, 1000, 1024, 1025] {
            let mut state = PollyState::default();
            let mut rng = crate::ground::rng::SplitMix64::new(0);
            // Within one execution attempts grow, so `next` always grows.
            let first = delay_ms(Exponential, true, attempt, 2 * SECOND, NO_CAP, &mut state, || rng.unit_interval());
            let second =
                delay_ms(Exponential, true, attempt + 1, 2 * SECOND, NO_CAP, &mut state, || rng.unit_interval());
            assert!(first > 0 && second > 0, "{attempt}: {first} {second}");
            let mut state = PollyState::default();
            let capped = delay_ms(Exponential, true, attempt, 2 * SECOND, 30 * SECOND, &mut state, || 0.25);
            assert!(capped > 0 && capped <= 30 * SECOND, "{attempt}: {capped}");
        }
    }

    #[test]
    fn decorrelated_jitter_v2_by_hand() {
        // attempt 0, U = 0.5: t = 0.5, next = 2^0.5 * tanh(sqrt(2)) = 1.2544...,
        // delay = next / 1.4 * 1000 ms = 896.0 ms (truncated).
        let mut state = PollyState::default();
        let first = delay_ms(Exponential, true, 0, SECOND, NO_CAP, &mut state, || 0.5);
        let next = 2f64.powf(0.5) * 2f64.sqrt().tanh();
        assert_eq!(first, (next / 1.4 * 1000.0) as u64);
        // attempt 1, U = 0.5: the step from the previous next.
        let second = delay_ms(Exponential, true, 1, SECOND, NO_CAP, &mut state, || 0.5);
        let next2 = 2f64.powf(1.5) * 6f64.sqrt().tanh();
        assert_eq!(second, ((next2 - next) / 1.4 * 1000.0) as u64);
    }

    #[test]
    fn ranges() {
        assert_eq!(delay_range_ms(Constant, true, 0, SECOND, NO_CAP), (750, 1250));
        assert_eq!(delay_range_ms(Linear, false, 1, SECOND, NO_CAP), (2000, 2000));
        assert_eq!(delay_range_ms(Constant, true, 0, SECOND, 900), (750, 900));
        let (low, high) = delay_range_ms(Exponential, true, 0, SECOND, NO_CAP);
        assert_eq!(low, 0);
        assert_eq!(high, (2f64.powf(1.0) * 4f64.sqrt().tanh() / 1.4 * 1000.0) as u64);
    }
}
