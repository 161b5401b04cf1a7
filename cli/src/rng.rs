//! The simulated world's randomness: SplitMix64 (Steele, Lea and Flood, 2014).
//!
//! The same algorithm as the core's jitter generator, written again here only
//! for the *world* (arrival gaps, service times, which client an arrival comes
//! from); the core's generator is private to its decisions and the CLI never
//! draws a jitter itself. Each world stream gets its own generator seeded by
//! [`mix`]`(seed, stream, 0)`, and each logical operation gets the seed
//! `mix(seed, OPERATION_STREAM, n)` for its n-th operation, so one `--seed`
//! reproduces a whole run exactly.
//!
//! ```text
//! state = state + 0x9E3779B97F4A7C15            (wrapping)
//! z = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9
//! z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//! next = z ^ (z >> 31)
//! ```

const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

fn finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A stateless hash of `(seed, stream, counter)`.
#[must_use]
pub fn mix(seed: u64, stream: u64, counter: u64) -> u64 {
    finalize(seed ^ finalize(stream.wrapping_add(counter.wrapping_mul(GOLDEN_GAMMA))).wrapping_add(GOLDEN_GAMMA))
}

/// SplitMix64.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator for one stream of a run.
    #[must_use]
    pub fn new(seed: u64, stream: u64) -> SplitMix64 {
        SplitMix64 { state: mix(seed, stream, 0) }
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        finalize(self.state)
    }

    /// Uniform in `[0, 1)` with 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, n)` (`n >= 1`).
    pub fn below(&mut self, n: u64) -> u64 {
        // Lemire's multiply-shift: no division, negligible bias for small n.
        ((u128::from(self.next_u64()) * u128::from(n.max(1))) >> 64) as u64
    }

    /// Exponential with this mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }

    /// A non-negative real rounded to a whole number without bias (the
    /// fraction becomes a chance of rounding up).
    pub fn round(&mut self, value: f64) -> u64 {
        // `as` truncates, which is the floor for the non-negative values
        // drawn here (and avoids a libm call without SSE4.1).
        let whole = value as u64;
        let up = u64::from(self.unit() < value - whole as f64);
        whole.saturating_add(up)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_and_separated() {
        let mut a = SplitMix64::new(1, 2);
        let mut b = SplitMix64::new(1, 2);
        let mut c = SplitMix64::new(1, 3);
        let first = a.next_u64();
        assert_eq!(first, b.next_u64());
        assert_ne!(first, c.next_u64());
        for _ in 0..1000 {
            assert!(a.below(7) < 7);
            let unit = a.unit();
            assert!((0.0..1.0).contains(&unit));
        }
    }

    #[test]
    fn rounding_keeps_the_mean() {
        let mut rng = SplitMix64::new(9, 9);
        let total: u64 = (0..100_000).map(|_| rng.round(2.25)).sum();
        let mean = total as f64 / 100_000.0;
        assert!((mean - 2.25).abs() < 0.02, "{mean}");
    }
}
