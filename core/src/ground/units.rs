//! Numbers every module shares: the millisecond range, ratios as integer
//! thousandths, and a float in words for messages. A leaf: it depends on
//! nothing else in the crate, so any module may use it.

use core::fmt;

/// The largest millisecond value accepted anywhere: 2^53 - 1, the largest
/// integer a JavaScript number holds exactly.
pub const MAX_MS: u64 = (1 << 53) - 1;

/// Floats without the standard library (`round` and friends are `std`, not
/// `core`): exact, and the same in every build.
pub(crate) mod float {
    /// Above this every f64 is whole.
    const WHOLE: f64 = 4_503_599_627_370_496.0; // 2^52

    /// `value` without its fraction (NaN and infinities unchanged).
    pub(crate) fn trunc(value: f64) -> f64 {
        if value.abs() < WHOLE {
            // Below 2^52 in magnitude: the cast is exact after truncation
            // (the sign kept for a zero: trunc(-0.5) is -0.0).
            (value as i64 as f64).copysign(value)
        } else {
            value
        }
    }

    /// The fraction of `value`, with its sign.
    pub(crate) fn fract(value: f64) -> f64 {
        value - trunc(value)
    }

    /// The largest whole number <= `value`.
    pub(crate) fn floor(value: f64) -> f64 {
        let whole = trunc(value);
        if whole > value {
            whole - 1.0
        } else {
            whole
        }
    }

    /// The nearest whole number, halves to even (`f64::round_ties_even`, C's
    /// `rint`), without libm's: below 2^52 in magnitude, adding 2^52 rounds
    /// the fraction away as IEEE 754's default rounding does (to nearest,
    /// ties to even), and subtracting it again is exact.
    pub(crate) fn round_ties_even(value: f64) -> f64 {
        if value.abs() < WHOLE {
            ((value.abs() + WHOLE) - WHOLE).copysign(value)
        } else {
            value
        }
    }

    /// The nearest whole number, halves away from zero (as `f64::round`).
    pub(crate) fn round(value: f64) -> f64 {
        let whole = trunc(value);
        // Exact: a float minus its whole part loses nothing.
        let fraction = value - whole;
        if fraction >= 0.5 {
            whole + 1.0
        } else if fraction <= -0.5 {
            whole - 1.0
        } else {
            whole
        }
    }
}

/// A decimal with at most three decimals in `[low, high]` (or `(low, high]`)
/// as integer thousandths, or the rule it breaks.
///
/// The value must *be* a number of thousandths, up to the float's own
/// rounding (a few units in its last place, so `0.1 + 0.2` is 0.3): a value
/// that is not (`1e-10`, `0.0005`) is refused, never rounded to the nearest
/// thousandth, so what is stored is what was written and a configuration
/// written back out reads in again as the same thing.
pub(crate) fn permille_of(value: f64, low: f64, high: f64, open_low: bool) -> Result<u32, Permille> {
    let in_range = value.is_finite() && value <= high && if open_low { value > low } else { value >= low };
    if !in_range {
        return Err(Permille::OutOfRange { low, high, open_low });
    }
    let rounded = float::round(value * 1000.0);
    // Relative to the value: thousandths read from decimal text land within
    // an ulp or two of `rounded / 1000`; anything further is another number.
    if (rounded / 1000.0 - value).abs() > value.abs() * 8.0 * f64::EPSILON {
        return Err(Permille::TooManyDecimals);
    }
    // Finite and within the checked range (callers use ranges up to 10^6, so
    // at most 10^9 thousandths, below u32::MAX), so the cast is exact.
    Ok(rounded as u32)
}

/// Why a decimal cannot be held in thousandths (see [`permille_of`]); its
/// message is `Permille::message`, in [`crate::ground::message`] (this module is a leaf).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Permille {
    /// Outside `[low, high]` (`(low, high]` when `open_low`).
    OutOfRange { low: f64, high: f64, open_low: bool },
    /// More than three decimals.
    TooManyDecimals,
}

/// A float in words for messages, without the float formatter (it costs
/// ~20 KB of wasm): its digits up to the 15 significant ones every f64 holds
/// (at most 12 decimals, rounded), so a value refused for its decimals shows
/// them; `NaN`, infinities and magnitudes beyond 10^19 or below 10^-12 in words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Decimal(pub(crate) f64);

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SIGNIFICANT: u32 = 15;
        let value = self.0;
        if value.is_nan() {
            return f.write_str("NaN");
        }
        let sign = if value < 0.0 { "-" } else { "" };
        let magnitude = value.abs();
        if magnitude >= 1e19 {
            return f.write_str(if value > 0.0 { "over 10^19" } else { "below -10^19" });
        }
        // Below 10^19 < 2^64, so the whole part converts exactly (u64, not u128:
        // formatting a u128 costs the wasm build 2 KB).
        let whole = float::trunc(magnitude) as u64;
        let whole_digits = whole.checked_ilog10().map_or(1, |log| log + 1);
        let decimals = SIGNIFICANT.saturating_sub(whole_digits).min(12);
        let scale = 10u64.pow(decimals);
        // At most 10^15 after scaling, so the rounded cast is exact.
        let scaled = if decimals == 0 { whole } else { float::round(magnitude * scale as f64) as u64 };
        if scaled == 0 && magnitude > 0.0 {
            return f.write_str("a number closer to 0 than 10^-12");
        }
        let (whole, mut fraction) = (scaled / scale, scaled % scale);
        let sign = if scaled == 0 { "" } else { sign };
        write!(f, "{sign}{whole}")?;
        if fraction != 0 {
            let mut digits = decimals as usize;
            while fraction % 10 == 0 {
                fraction /= 10;
                digits -= 1;
            }
            write!(f, ".{fraction:0digits$}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_as_the_standard_library_does() {
        for value in
            [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, 1e15 + 0.5, 4.5e15, 1e300, -7.25, 3.999]
        {
            assert_eq!(float::round(value).to_bits(), value.round().to_bits(), "round {value}");
            assert_eq!(float::floor(value), value.floor(), "floor {value}");
            assert_eq!(float::trunc(value), value.trunc(), "trunc {value}");
            assert_eq!(float::fract(value), value.fract(), "fract {value}");
        }
        for value in [
            0.0,
            -0.0,
            0.3,
            -0.3,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            1e15 + 0.5,
            4503599627370495.5,
            4.5e15,
            1e300,
            -7.25,
            3.999,
            f64::INFINITY,
            f64::MIN_POSITIVE,
        ] {
            assert_eq!(float::round_ties_even(value).to_bits(), value.round_ties_even().to_bits(), "{value}");
            assert_eq!(float::round_ties_even(value).to_bits(), libm::rint(value).to_bits(), "{value}");
        }
        assert!(float::round_ties_even(f64::NAN).is_nan());
        assert!(float::round(f64::NAN).is_nan() && float::trunc(f64::INFINITY).is_infinite());
    }

    #[test]
    fn decimals_print_without_the_float_formatter() {
        for (value, text) in [
            (2.0005, "2.0005"),
            (0.1, "0.1"),
            (-1.5, "-1.5"),
            (3.0, "3"),
            (-0.0, "0"),
            (0.1234567, "0.1234567"),
            (0.2000001, "0.2000001"),
            (1e-7, "0.0000001"),
            (1e-13, "a number closer to 0 than 10^-12"),
            (-1e-13, "a number closer to 0 than 10^-12"),
            (123_456_789.123, "123456789.123"),
            (1e14, "100000000000000"),
            (1e18, "1000000000000000000"),
            (1e20, "over 10^19"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "below -10^19"),
        ] {
            assert_eq!(Decimal(value).to_string(), text, "{value}");
        }
    }
}
