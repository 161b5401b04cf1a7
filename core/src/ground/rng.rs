//! The one pseudo-random generator: SplitMix64, fixed forever.
//!
//! Every language runs this same compiled code, and the conformance vectors pin
//! its output, so a seed reproduces the exact same delays everywhere.
//!
//! Algorithm (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", 2014), all arithmetic wrapping on `u64`:
//!
//! ```text
//! state = state + 0x9E3779B97F4A7C15
//! z = state
//! z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//! z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//! return z ^ (z >> 31)
//! ```
//!
//! A draw in the inclusive range `[low, high]` is `low + next() % (high - low + 1)`
//! (the whole `u64` range when that span would overflow). The modulo bias is
//! negligible for millisecond ranges; what matters is that the method is fixed.
//!
//! A draw in `[0, 1)` (Polly's jitter) is the top 53 bits of the next output
//! times 2^-53.
//!
//! What consumes draws, in order: exactly one draw per computed backoff delay
//! whose jitter range is wider than a single value (Polly's jitter: one per
//! delay whose base is not zero, as Polly calls its randomizer). Nothing else touches the
//! stream: request ids and derived idempotency keys come from [`mix`], a
//! stateless hash of the seed, so they never shift a jitter draw.

/// SplitMix64 state. `Clone` so an operation can be forked in tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SplitMix64 {
    state: u64,
}

const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

fn finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SplitMix64 {
    /// A generator whose first output is `finalize(seed + GOLDEN_GAMMA)`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        finalize(self.state)
    }

    /// A double in `[0, 1)`: the top 53 bits of the next draw, times 2^-53
    /// (every value a multiple of 2^-53, as .NET's `Random.NextDouble` spans
    /// the same interval).
    pub(crate) fn unit_interval(&mut self) -> f64 {
        const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
        (self.next_u64() >> 11) as f64 * SCALE
    }

    /// A value in `[low, high]`; `low` when `high <= low`, without a draw.
    pub(crate) fn in_range(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        let span = high - low;
        let draw = self.next_u64();
        match span.checked_add(1) {
            Some(width) => low + draw % width,
            None => draw,
        }
    }
}

/// The largest double below 1, the top of a draw in `[0, 1)`.
pub(crate) const LARGEST_BELOW_ONE: f64 = 1.0 - f64::EPSILON / 2.0;

/// Where jitter draws come from: the seeded generator, or always the top of
/// the range (the worst case that [`explain`](crate::explain) prints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Draws {
    Seeded(SplitMix64),
    Highest,
}

impl Draws {
    /// A value in `[low, high]` (see [`SplitMix64::in_range`]).
    pub(crate) fn in_range(&mut self, low: u64, high: u64) -> u64 {
        match self {
            Draws::Seeded(rng) => rng.in_range(low, high),
            Draws::Highest => high.max(low),
        }
    }

    /// A double in `[0, 1)` (see [`SplitMix64::unit_interval`]); the largest
    /// double below 1 for [`Draws::Highest`].
    pub(crate) fn unit_interval(&mut self) -> f64 {
        match self {
            Draws::Seeded(rng) => rng.unit_interval(),
            Draws::Highest => LARGEST_BELOW_ONE,
        }
    }
}

/// A stateless 64-bit hash of `(seed, stream, counter)`, used for request ids
/// and derived keys so they never consume jitter draws.
pub(crate) fn mix(seed: u64, stream: u64, counter: u64) -> u64 {
    finalize(
        seed.wrapping_add(finalize(stream.wrapping_add(counter.wrapping_mul(GOLDEN_GAMMA)))).wrapping_add(GOLDEN_GAMMA),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answers_for_seed_zero_and_one() {
        // Reference values of SplitMix64 published with the algorithm.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut rng = SplitMix64::new(1234567);
        assert_eq!(rng.next_u64(), 6457827717110365317);
        assert_eq!(rng.next_u64(), 3203168211198807973);
    }

    #[test]
    fn in_range_stays_inside_and_handles_degenerate_ranges() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..10_000 {
            let value = rng.in_range(100, 200);
            assert!((100..=200).contains(&value));
        }
        let before = rng.clone();
        assert_eq!(rng.in_range(5, 5), 5);
        assert_eq!(rng.in_range(9, 3), 9);
        assert_eq!(rng, before, "a single-value range draws nothing");
        let _ = rng.in_range(0, u64::MAX);
    }

    #[test]
    fn mix_separates_streams_and_counters() {
        assert_ne!(mix(1, 2, 3), mix(1, 2, 4));
        assert_ne!(mix(1, 2, 3), mix(1, 3, 3));
        assert_ne!(mix(1, 2, 3), mix(2, 2, 3));
        assert_eq!(mix(1, 2, 3), mix(1, 2, 3));
    }
}
