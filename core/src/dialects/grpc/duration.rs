//! The proto3 JSON form of `google.protobuf.Duration`, as service configs
//! write it: `"0.25s"`, `"1s"`, `"-1.5s"`, `".002s"`.
//!
//! The rules (protobuf JSON mapping; grpc-go `internal/serviceconfig`
//! `Duration.UnmarshalJSON` and its tests; grpc-java `ServiceConfigUtil`):
//! a JSON string ending in `s`; an optional leading `-`; whole seconds and/or
//! a fraction of at most 9 digits, at least one digit in all (`"1.s"` and
//! `".5s"` are durations, `"s"` and `".s"` are not); ASCII digits only, no
//! sign other than the leading `-`, no spaces, no other unit; seconds within
//! ±315,576,000,000 (10,000 years).

use crate::ground::message::Rule;

/// The largest number of whole seconds a Duration holds.
const MAX_SECONDS: i128 = 315_576_000_000;

const NS_PER_SECOND: i128 = 1_000_000_000;

/// Reads a Duration string into signed nanoseconds.
///
/// # Errors
/// The broken rule, phrased as what was expected (a message's rule).
pub(crate) fn parse_duration_ns(text: &str) -> Result<i128, Rule> {
    let unsigned = text.strip_suffix('s').ok_or(Rule::DurationUnit)?;
    let (negative, digits) = match unsigned.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, unsigned),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((whole, fraction)) => (whole, fraction),
        None => (digits, ""),
    };
    if whole.is_empty() && fraction.is_empty() {
        return Err(Rule::DurationDigits);
    }
    if !whole.bytes().chain(fraction.bytes()).all(|byte| byte.is_ascii_digit()) {
        return Err(Rule::DurationCharacters);
    }
    if fraction.len() > 9 {
        return Err(Rule::DurationNanoseconds);
    }
    let seconds = whole.bytes().try_fold(0i128, |acc, byte| {
        let next = acc * 10 + i128::from(byte - b'0');
        (next <= MAX_SECONDS).then_some(next)
    });
    let seconds = seconds.ok_or(Rule::DurationSeconds)?;
    let mut nanos = fraction.bytes().fold(0i128, |acc, byte| acc * 10 + i128::from(byte - b'0'));
    for _ in fraction.len()..9 {
        nanos *= 10;
    }
    let total = seconds * NS_PER_SECOND + nanos;
    Ok(if negative { -total } else { total })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_go_duration_cases() {
        let ms = 1_000_000;
        for (text, ns) in [
            ("1s", NS_PER_SECOND),
            ("-1s", -NS_PER_SECOND),
            ("1.1s", 1_100 * ms),
            ("1.s", NS_PER_SECOND),
            ("1.0s", NS_PER_SECOND),
            (".002s", 2 * ms),
            (".002000s", 2 * ms),
            ("0.003s", 3 * ms),
            ("0.000004s", 4_000),
            ("5000.000000009s", 5_000 * NS_PER_SECOND + 9),
            ("4999.999999999s", 5_000 * NS_PER_SECOND - 1),
            ("315576000000s", MAX_SECONDS * NS_PER_SECOND),
        ] {
            assert_eq!(parse_duration_ns(text), Ok(ns), "{text}");
        }
        for text in [
            "1",
            "s",
            ".s",
            "1 s",
            " 1s",
            "1ms",
            "1.1.1s",
            "Xs",
            "as",
            ".0000000001s",
            "+1s",
            "--1s",
            "315576000001s",
            "1e3s",
        ] {
            assert!(parse_duration_ns(text).is_err(), "{text}");
        }
    }
}
