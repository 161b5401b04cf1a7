//! The `grpc-timeout` request header, which carries a call's remaining
//! deadline to the next hop.
//!
//! gRPC's HTTP/2 protocol description defines the value as a positive integer
//! of at most eight ASCII digits followed by a single unit letter:
//!
//! | unit | meaning      |
//! |------|--------------|
//! | `H`  | hours        |
//! | `M`  | minutes      |
//! | `S`  | seconds      |
//! | `m`  | milliseconds |
//! | `u`  | microseconds |
//! | `n`  | nanoseconds  |
//!
//! Two pairs of functions read and write it:
//!
//! - [`parse_grpc_timeout_ns`] / [`encode_grpc_timeout_ns`] keep every unit
//!   exactly, in integer nanoseconds, as grpc-go and grpc-java do. Parsing
//!   saturates where they saturate: at `i64::MAX` nanoseconds (about 292
//!   years, [`MAX_GRPC_TIMEOUT_NS`]), which `99999999H` exceeds. Encoding picks
//!   the unit a peer would choose: the finest of `n`, `u`, `m`, `S`, `M`, `H`
//!   whose value fits in eight digits.
//! - [`parse_grpc_timeout`] / [`encode_grpc_timeout`] work in the whole
//!   milliseconds the engine counts in.
//!
//! Conversions to a coarser unit round toward zero, so a timeout handed
//! downstream is never larger than the one actually left. (grpc-java's
//! `TimeoutMarshaller` rounds down too; grpc-go's `encodeTimeout` rounds up,
//! which can grant the next hop up to one unit more than the caller has.)

use alloc::string::String;

use crate::headers::retry_after::{parse_digits_saturating, HeaderError};

/// Header name used in errors produced by [`parse_grpc_timeout`].
const GRPC_TIMEOUT: &str = "grpc-timeout";

/// Largest number the eight-digit value field can hold.
const MAX_VALUE: u64 = 99_999_999;
/// Most digits the value field may have.
const MAX_DIGITS: usize = 8;

/// The largest budget [`parse_grpc_timeout_ns`] returns: `i64::MAX`
/// nanoseconds, where grpc-go and grpc-java saturate.
pub const MAX_GRPC_TIMEOUT_NS: u64 = i64::MAX as u64;

const NS_PER_US: u64 = 1_000;
const NS_PER_MS: u64 = 1_000_000;
const NS_PER_SECOND: u64 = 1_000_000_000;
const NS_PER_MINUTE: u64 = 60 * NS_PER_SECOND;
const NS_PER_HOUR: u64 = 60 * NS_PER_MINUTE;

const MS_PER_SECOND: u64 = 1_000;
const MS_PER_MINUTE: u64 = 60 * MS_PER_SECOND;
const MS_PER_HOUR: u64 = 60 * MS_PER_MINUTE;

/// Encodes a remaining time of `timeout_ms` milliseconds as a
/// `grpc-timeout` value.
///
/// The most precise unit whose value fits in eight digits is chosen:
/// milliseconds up to `99999999m`, then whole seconds, whole minutes and
/// whole hours. Coarser units always round down, never up, so the
/// downstream service is never granted time the caller does not have.
/// Budgets beyond `99999999H` (about 11 400 years) are clamped to that
/// value.
///
/// A timeout of `0` encodes as `"0m"`: the deadline has already passed, and a
/// caller should normally fail the call locally instead of sending it.
#[must_use]
pub fn encode_grpc_timeout(timeout_ms: u64) -> String {
    let mut out = String::with_capacity(MAX_DIGITS + 1);
    encode_grpc_timeout_into(timeout_ms, &mut out);
    out
}

/// Appends the `grpc-timeout` encoding of `timeout_ms` to `out`.
///
/// Same rules as [`encode_grpc_timeout`]; useful for reusing a buffer. At
/// most nine bytes are appended. Existing contents of `out` are kept.
pub fn encode_grpc_timeout_into(timeout_ms: u64, out: &mut String) {
    let (value, unit) = if timeout_ms <= MAX_VALUE {
        (timeout_ms, 'm')
    } else if timeout_ms / MS_PER_SECOND <= MAX_VALUE {
        (timeout_ms / MS_PER_SECOND, 'S')
    } else if timeout_ms / MS_PER_MINUTE <= MAX_VALUE {
        (timeout_ms / MS_PER_MINUTE, 'M')
    } else {
        ((timeout_ms / MS_PER_HOUR).min(MAX_VALUE), 'H')
    };
    // Without the formatter: the wasm builds carry no formatting machinery.
    crate::ground::text::push_decimal(out, value);
    out.push(unit);
}

/// Encodes a timeout of `timeout_ns` nanoseconds as a `grpc-timeout` value,
/// in the finest unit whose value fits in eight digits (`n`, then `u`, `m`,
/// `S`, `M`, `H`), as grpc-go and grpc-java choose it.
///
/// A coarser unit rounds down, never up. Every `u64` fits: `u64::MAX`
/// nanoseconds is `5124095H`.
///
/// ```
/// use retryplan::headers::grpc_timeout::encode_grpc_timeout_ns;
/// assert_eq!(encode_grpc_timeout_ns(1_500), "1500n");
/// assert_eq!(encode_grpc_timeout_ns(123_456_789), "123456u");
/// assert_eq!(encode_grpc_timeout_ns(2_000_000_000), "2000000u");
/// ```
#[must_use]
pub fn encode_grpc_timeout_ns(timeout_ns: u64) -> String {
    let mut out = String::with_capacity(MAX_DIGITS + 1);
    let units = [(1, 'n'), (NS_PER_US, 'u'), (NS_PER_MS, 'm'), (NS_PER_SECOND, 'S'), (NS_PER_MINUTE, 'M')];
    let (value, unit) = units
        .iter()
        .map(|&(per, unit)| (timeout_ns / per, unit))
        .find(|&(value, _)| value <= MAX_VALUE)
        .unwrap_or(((timeout_ns / NS_PER_HOUR).min(MAX_VALUE), 'H'));
    // Without the formatter: the wasm builds carry no formatting machinery.
    crate::ground::text::push_decimal(&mut out, value);
    out.push(unit);
    out
}

/// Reads a `grpc-timeout` value and returns the timeout in nanoseconds,
/// exactly for every unit.
///
/// The grammar is that of [`parse_grpc_timeout`]. The result saturates at
/// [`MAX_GRPC_TIMEOUT_NS`] (`i64::MAX` nanoseconds), as in grpc-go and
/// grpc-java: `99999999H` reads as that value.
///
/// ```
/// use retryplan::headers::grpc_timeout::parse_grpc_timeout_ns;
/// assert_eq!(parse_grpc_timeout_ns("1500u"), Ok(1_500_000));
/// assert_eq!(parse_grpc_timeout_ns("7n"), Ok(7));
/// assert_eq!(parse_grpc_timeout_ns("99999999H"), Ok(i64::MAX as u64));
/// ```
///
/// # Errors
/// As [`parse_grpc_timeout`].
pub fn parse_grpc_timeout_ns(value: &str) -> Result<u64, HeaderError> {
    let (amount, unit) = split_grpc_timeout(value)?;
    let per = match unit {
        b'H' => NS_PER_HOUR,
        b'M' => NS_PER_MINUTE,
        b'S' => NS_PER_SECOND,
        b'm' => NS_PER_MS,
        b'u' => NS_PER_US,
        _ => 1,
    };
    Ok(amount.saturating_mul(per).min(MAX_GRPC_TIMEOUT_NS))
}

/// How one unit of a `grpc-timeout` value converts to milliseconds.
#[derive(Clone, Copy)]
enum Scale {
    /// Multiply the value by this many milliseconds per unit.
    Times(u64),
    /// Divide the value by this many units per millisecond, rounding down.
    Per(u64),
}

/// Reads a `grpc-timeout` value and returns the timeout in milliseconds.
///
/// Surrounding ASCII whitespace (optional whitespace in HTTP terms) is
/// ignored; anything else must match `1*8DIGIT unit` exactly. A value of
/// zero is accepted and means the deadline has already expired.
///
/// Microsecond and nanosecond values are rounded down to whole
/// milliseconds, so `999u` or `500000n` read as `0`: a timeout below one
/// millisecond is treated as already spent. Larger units are multiplied out
/// with saturating arithmetic.
///
/// # Errors
///
/// * [`HeaderError::Empty`] for an empty or all-whitespace value.
/// * [`HeaderError::Malformed`] for a missing or unknown unit, no digits,
///   a sign, inner whitespace, or any non-ASCII character.
/// * [`HeaderError::OutOfRange`] for more than eight digits.
pub fn parse_grpc_timeout(value: &str) -> Result<u64, HeaderError> {
    let (amount, unit) = split_grpc_timeout(value)?;
    let scale = match unit {
        b'H' => Scale::Times(MS_PER_HOUR),
        b'M' => Scale::Times(MS_PER_MINUTE),
        b'S' => Scale::Times(MS_PER_SECOND),
        b'm' => Scale::Times(1),
        b'u' => Scale::Per(1_000),
        _ => Scale::Per(1_000_000),
    };
    Ok(match scale {
        Scale::Times(ms) => amount.saturating_mul(ms),
        Scale::Per(units) => amount.checked_div(units).unwrap_or(0),
    })
}

/// The deadline an incoming call carries, from its `grpc-timeout` header or
/// its absence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallDeadline {
    /// No `grpc-timeout` header: the caller set no deadline, and the call
    /// runs without one (grpc-go and grpc-java set no deadline on the
    /// server's context then). Give the operation your own budget.
    None,
    /// The caller's time left, in milliseconds ([`parse_grpc_timeout`]).
    Ms(u64),
}

/// Reads the `grpc-timeout` header of an incoming call, present or absent:
/// `None` (no header) is [`CallDeadline::None`], the caller having set no
/// deadline; a value is read by [`parse_grpc_timeout`].
///
/// ```
/// use retryplan::headers::grpc_timeout::{read_call_deadline, CallDeadline};
/// assert_eq!(read_call_deadline(None), Ok(CallDeadline::None));
/// assert_eq!(read_call_deadline(Some("250m")), Ok(CallDeadline::Ms(250)));
/// assert!(read_call_deadline(Some("")).is_err(), "a header sent empty is not an absent one");
/// ```
///
/// # Errors
/// As [`parse_grpc_timeout`], for a header that is present but unreadable
/// (grpc-go answers such a call with `INTERNAL`; an empty value is not an
/// absent header).
pub fn read_call_deadline(header: Option<&str>) -> Result<CallDeadline, HeaderError> {
    match header {
        None => Ok(CallDeadline::None),
        Some(value) => parse_grpc_timeout(value).map(CallDeadline::Ms),
    }
}

/// Checks the grammar `1*8DIGIT unit` (surrounding ASCII whitespace ignored)
/// and returns the amount and the unit letter (one of `HMSmun`).
fn split_grpc_timeout(value: &str) -> Result<(u64, u8), HeaderError> {
    let trimmed = value.trim_ascii();
    if trimmed.is_empty() {
        return Err(HeaderError::Empty { header: GRPC_TIMEOUT });
    }
    let malformed = |expected| HeaderError::malformed(GRPC_TIMEOUT, expected, trimmed);
    if !trimmed.is_ascii() {
        return Err(malformed("only ASCII digits and a unit letter"));
    }
    let (digits, unit) = match trimmed.as_bytes().split_last() {
        Some((unit, rest)) => (rest, *unit),
        None => return Err(malformed("digits followed by a unit")),
    };
    match unit {
        b'H' | b'M' | b'S' | b'm' | b'u' | b'n' => {}
        b'0'..=b'9' => return Err(malformed("a unit after the digits (H, M, S, m, u or n)")),
        _ => return Err(malformed("a unit of H, M, S, m, u or n")),
    }
    if digits.is_empty() {
        return Err(malformed("at least one digit before the unit"));
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return Err(malformed("only ASCII digits before the unit"));
    }
    if digits.len() > MAX_DIGITS {
        return Err(HeaderError::out_of_range(GRPC_TIMEOUT, "at most 8 digits", trimmed));
    }
    // All bytes were checked to be ASCII digits, so this is valid UTF-8.
    let amount = core::str::from_utf8(digits)
        .ok()
        .and_then(parse_digits_saturating)
        .ok_or_else(|| malformed("only ASCII digits before the unit"))?;
    Ok((amount, unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(value: &str) -> Option<u64> {
        parse_grpc_timeout(value).ok()
    }

    #[test]
    fn encode_boundaries() {
        assert_eq!(encode_grpc_timeout(0), "0m");
        assert_eq!(encode_grpc_timeout(1), "1m");
        assert_eq!(encode_grpc_timeout(1_500), "1500m");
        assert_eq!(encode_grpc_timeout(99_999_999), "99999999m");
        assert_eq!(encode_grpc_timeout(100_000_000), "100000S");
        // Seconds round down: 100_000.999 s is sent as 100000 s.
        assert_eq!(encode_grpc_timeout(100_000_999), "100000S");
        assert_eq!(encode_grpc_timeout(99_999_999_999), "99999999S");
        assert_eq!(encode_grpc_timeout(100_000_000_000), "1666666M");
        assert_eq!(encode_grpc_timeout(99_999_999 * MS_PER_MINUTE + 59_999), "99999999M");
        assert_eq!(encode_grpc_timeout(100_000_000 * MS_PER_MINUTE), "1666666H");
        assert_eq!(encode_grpc_timeout(99_999_999 * MS_PER_HOUR), "99999999H");
        assert_eq!(encode_grpc_timeout(u64::MAX), "99999999H");
    }

    #[test]
    fn encode_never_rounds_up() {
        for ms in [
            0,
            99_999_999,
            100_000_001,
            123_456_789_012,
            98_765_432_109_876,
            400_000_000_000_000,
            u64::MAX / 2,
            u64::MAX,
        ] {
            let encoded = encode_grpc_timeout(ms);
            assert!(encoded.len() <= MAX_DIGITS + 1, "{encoded}");
            let back = parsed(&encoded);
            assert!(back.is_some_and(|b| b <= ms), "{ms} -> {encoded} -> {back:?}");
        }
    }

    #[test]
    fn encode_into_appends() {
        let mut buf = String::from("x=");
        encode_grpc_timeout_into(2_500, &mut buf);
        assert_eq!(buf, "x=2500m");
    }

    #[test]
    fn round_trip_in_each_coarse_unit() {
        let cases: [(u64, char); 9] = [
            (0, 'm'),
            (42, 'm'),
            (99_999_999, 'm'),
            (100_000_000, 'S'),
            (99_999_999_000, 'S'),
            (120_000_000_000, 'M'),
            (99_999_999 * MS_PER_MINUTE, 'M'),
            (7_200_000_000_000, 'H'),
            (99_999_999 * MS_PER_HOUR, 'H'),
        ];
        for (ms, unit) in cases {
            let encoded = encode_grpc_timeout(ms);
            assert!(encoded.ends_with(unit), "{ms} -> {encoded}");
            assert_eq!(parsed(&encoded), Some(ms), "{ms} -> {encoded}");
        }
    }

    #[test]
    fn parse_each_unit() {
        assert_eq!(parsed("2H"), Some(7_200_000));
        assert_eq!(parsed("3M"), Some(180_000));
        assert_eq!(parsed("5S"), Some(5_000));
        assert_eq!(parsed("250m"), Some(250));
        assert_eq!(parsed("1500u"), Some(1));
        assert_eq!(parsed("999u"), Some(0));
        assert_eq!(parsed("2500000n"), Some(2));
        assert_eq!(parsed("999999n"), Some(0));
        assert_eq!(parsed("99999999H"), Some(359_999_996_400_000));
        assert_eq!(parsed("99999999n"), Some(99));
        assert_eq!(parsed("00000010S"), Some(10_000));
        assert_eq!(parsed(" 10S\t"), Some(10_000));
    }

    #[test]
    fn nanoseconds_exactly() {
        assert_eq!(parse_grpc_timeout_ns("1n"), Ok(1));
        assert_eq!(parse_grpc_timeout_ns("999u"), Ok(999_000));
        assert_eq!(parse_grpc_timeout_ns("12345678m"), Ok(12_345_678_000_000));
        assert_eq!(parse_grpc_timeout_ns("3S"), Ok(3_000_000_000));
        assert_eq!(parse_grpc_timeout_ns("2M"), Ok(120_000_000_000));
        assert_eq!(parse_grpc_timeout_ns("1H"), Ok(3_600_000_000_000));
        assert_eq!(parse_grpc_timeout_ns("2562047H"), Ok(9_223_369_200_000_000_000));
        assert_eq!(parse_grpc_timeout_ns("2562048H"), Ok(MAX_GRPC_TIMEOUT_NS));
        assert_eq!(parse_grpc_timeout_ns("99999999M"), Ok(5_999_999_940_000_000_000));
        assert!(parse_grpc_timeout_ns("123456789n").is_err());
        assert_eq!(encode_grpc_timeout_ns(0), "0n");
        assert_eq!(encode_grpc_timeout_ns(99_999_999), "99999999n");
        assert_eq!(encode_grpc_timeout_ns(100_000_000), "100000u");
        assert_eq!(encode_grpc_timeout_ns(100_000_000_000), "100000m");
        assert_eq!(encode_grpc_timeout_ns(100_000_000_000_000), "100000S");
        assert_eq!(encode_grpc_timeout_ns(100_000_000 * NS_PER_SECOND), "1666666M");
        assert_eq!(encode_grpc_timeout_ns(100_000_000 * NS_PER_MINUTE), "1666666H");
        assert_eq!(encode_grpc_timeout_ns(u64::MAX), "5124095H");
        for ns in [1, 999, 123_456_789, 98_765_432_109, u64::MAX / 3] {
            let back = parse_grpc_timeout_ns(&encode_grpc_timeout_ns(ns)).unwrap();
            assert!(back <= ns, "{ns}");
        }
    }

    #[test]
    fn parse_rejections() {
        assert_eq!(parse_grpc_timeout(""), Err(HeaderError::Empty { header: "grpc-timeout" }));
        assert!(matches!(parse_grpc_timeout("  "), Err(HeaderError::Empty { .. })));
        assert!(matches!(
            parse_grpc_timeout("123456789m"),
            Err(HeaderError::OutOfRange { header: "grpc-timeout", .. })
        ));
        for bad in [
            "10x",
            "10",
            "123456789",
            "m",
            "S",
            "-1m",
            "+1m",
            "1 m",
            "1.5S",
            "10s",
            "10h",
            "1mm",
            "１0m",
            "10µ",
            "0x10m",
            "10 S",
        ] {
            assert!(
                matches!(parse_grpc_timeout(bad), Err(HeaderError::Malformed { header: "grpc-timeout", .. })),
                "{bad:?} -> {:?}",
                parse_grpc_timeout(bad)
            );
        }
    }

    #[test]
    fn error_messages() {
        let msg = |v: &str| parse_grpc_timeout(v).err().map(|e| e.to_string());
        assert_eq!(msg("10x").as_deref(), Some("grpc-timeout: expected a unit of H, M, S, m, u or n, got \"10x\""));
        assert_eq!(
            msg("10").as_deref(),
            Some("grpc-timeout: expected a unit after the digits (H, M, S, m, u or n), got \"10\"")
        );
        assert_eq!(
            msg("-1m").as_deref(),
            Some("grpc-timeout: expected only ASCII digits before the unit, got \"-1m\"")
        );
        assert_eq!(
            msg("123456789S").as_deref(),
            Some("grpc-timeout: \"123456789S\" is out of range (at most 8 digits)")
        );
        assert_eq!(msg("").as_deref(), Some("grpc-timeout: value is empty"));
    }

    #[test]
    fn no_panics_on_mutated_input() {
        for seed in ["99999999H", "12345678n", "1m", "0S"] {
            for at in 0..seed.len() {
                for with in ['0', '9', ' ', '-', 'x', 'é', '\u{0}'] {
                    let (head, tail) = seed.split_at(at);
                    let tail = tail.chars().skip(1);
                    let mutated: String = head.chars().chain([with]).chain(tail).collect();
                    let _ = parse_grpc_timeout(&mutated);
                    let _ = parse_grpc_timeout(head);
                }
            }
        }
    }
}
