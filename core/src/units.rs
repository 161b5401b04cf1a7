//! Numbers every module shares: the millisecond range, ratios as integer
//! thousandths, and a float in words for messages. A leaf: it depends on
//! nothing else in the crate, so any module may use it.

use core::fmt;

/// The largest millisecond value accepted anywhere: 2^53 - 1, the largest
/// integer a JavaScript number holds exactly.
pub const MAX_MS: u64 = (1 << 53) - 1;

/// A decimal with at most three decimals in `[low, high]` (or `(low, high]`)
/// as integer thousandths, or the rule it breaks.
///
/// The value must *be* a number of thousandths, up to the float's own
/// rounding (a few units in its last place, so `0.1 + 0.2` is 0.3): a value
/// that is not (`1e-10`, `0.0005`) is refused, never rounded to the nearest
/// thousandth, so what is stored is what was written and a configuration
/// written back out reads in again as the same thing.
pub(crate) fn permille_of(value: f64, low: f64, high: f64, open_low: bool) -> Result<u32, String> {
    let in_range = value.is_finite() && value <= high && if open_low { value > low } else { value >= low };
    if !in_range {
        let bracket = if open_low { "(" } else { "[" };
        return Err(format!("must be a number in {bracket}{}, {}]", Decimal(low), Decimal(high)));
    }
    let rounded = (value * 1000.0).round();
    // Relative to the value: thousandths read from decimal text land within
    // an ulp or two of `rounded / 1000`; anything further is another number.
    if (rounded / 1000.0 - value).abs() > value.abs() * 8.0 * f64::EPSILON {
        return Err("must have at most three decimals".to_owned());
    }
    // Finite and within the checked range (callers use ranges up to 10^6, so
    // at most 10^9 thousandths, below u32::MAX), so the cast is exact.
    Ok(rounded as u32)
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
        let whole = magnitude.trunc() as u64;
        let whole_digits = whole.checked_ilog10().map_or(1, |log| log + 1);
        let decimals = SIGNIFICANT.saturating_sub(whole_digits).min(12);
        let scale = 10u64.pow(decimals);
        // At most 10^15 after scaling, so the rounded cast is exact.
        let scaled = if decimals == 0 { whole } else { (magnitude * scale as f64).round() as u64 };
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
