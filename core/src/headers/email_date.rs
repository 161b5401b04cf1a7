//! The lenient date reading: what Python's `email.utils.parsedate_tz`
//! accepts, turned into Unix seconds as `email.utils.mktime_tz` does (the
//! path urllib3's `Retry.parse_retry_after` takes).
//!
//! It is used only when a policy asks for it (`server_guidance.
//! retry_after_reading: "lenient"`), never as a silent fallback of the
//! strict RFC 9110 reader. The steps follow CPython's
//! `Lib/email/_parseaddr.py`:
//!
//! 1. split on whitespace; a first word ending in `,` or naming a weekday
//!    (any case) is dropped, otherwise only what follows its last `,` is kept;
//! 2. three words whose first splits on `-` into three parts are an RFC 850
//!    date (`19-Nov-82`); four words get their zone split off the time
//!    (`14:58:26+0800`) or an empty zone;
//! 3. the first five words are day, month, year, time, zone, in that order or
//!    with day and month swapped, year and time swapped (`Jun 3 11:30:12
//!    2019`), year and zone swapped; a month is a name (`jan`..`dec` or
//!    `january`..`december`, any case); trailing commas are dropped;
//! 4. the time is `h:m`, `h:m:s`, `h.m` or `h.m.s`; every number is read as
//!    Python's `int()` reads it (a sign, `_` between digits);
//! 5. a year below 100 is 1969-1999 above 68, 2000-2068 otherwise (POSIX,
//!    not RFC 9110's 50-year rule);
//! 6. the zone is `UT`, `UTC`, `GMT`, `Z`, a North American name (`EST`,
//!    `PDT`, ...), or `+hhmm` / `-hhmm`; anything else, and `-0000`, is UTC;
//! 7. the result is plain arithmetic from the first of the month (`timegm`):
//!    day, hour, minute and second are not range-checked (hour 27 is 3 a.m.
//!    the next day), but the year must be 1 to 9999 (Python's `date`).
//!
//! Deviations, all on input no HTTP server sends: digits are ASCII only
//! (Python's `int()` also reads other scripts' decimal digits), and case is
//! folded for ASCII letters only.

use alloc::vec::Vec;

use crate::headers::http_date::days_from_civil;

/// Month names as `email.utils` knows them: the short ones, then the long.
const MONTH_NAMES: [&str; 24] = [
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Weekday names that mark a leading word to drop.
const DAY_NAMES: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// Zone names with their offsets, as `+hhmm` numbers.
const ZONES: [(&str, i128); 14] = [
    ("UT", 0),
    ("UTC", 0),
    ("GMT", 0),
    ("Z", 0),
    ("AST", -400),
    ("ADT", -300),
    ("EST", -500),
    ("EDT", -400),
    ("CST", -600),
    ("CDT", -500),
    ("MST", -700),
    ("MDT", -600),
    ("PST", -800),
    ("PDT", -700),
];

/// Python's `str.isspace()` for the characters that matter: Unicode white
/// space plus the ASCII separators `\x1c`-`\x1f`.
pub(crate) fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `int()` of a string without surrounding space: an optional sign,
/// then ASCII digits with single `_` between them. Saturates instead of
/// growing without bound.
pub(crate) fn python_int(text: &str) -> Option<i128> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    let bytes = digits.as_bytes();
    let well_formed = bytes.first().is_some_and(u8::is_ascii_digit)
        && bytes.last().is_some_and(u8::is_ascii_digit)
        && bytes.iter().all(|b| b.is_ascii_digit() || *b == b'_')
        && !digits.contains("__");
    if !well_formed {
        return None;
    }
    let magnitude = bytes
        .iter()
        .filter(|b| b.is_ascii_digit())
        .fold(0i128, |acc, b| acc.saturating_mul(10).saturating_add(i128::from(b - b'0')));
    Some(if negative { -magnitude } else { magnitude })
}

fn month_number(word: &str) -> Option<u32> {
    let index = MONTH_NAMES.iter().position(|name| name.eq_ignore_ascii_case(word))?;
    u32::try_from(index % 12 + 1).ok()
}

fn strip_comma(word: &str) -> &str {
    word.strip_suffix(',').unwrap_or(word)
}

/// The zone offset in seconds east of UTC.
fn zone_offset(zone: &str) -> i128 {
    let named = ZONES.iter().find(|(name, _)| name.eq_ignore_ascii_case(zone)).map(|(_, hhmm)| *hhmm);
    // An unknown zone, and `-0000` ("UTC, local zone unknown"), come out of
    // parsedate_tz as None, which it then turns into 0.
    let hhmm = named.or_else(|| python_int(zone)).unwrap_or_default();
    let (hours, minutes) = div_rem_100(hhmm.unsigned_abs());
    let seconds =
        i128::try_from(hours).unwrap_or(i128::MAX).saturating_mul(3600).saturating_add(i128::from(minutes) * 60);
    if hhmm < 0 {
        -seconds
    } else {
        seconds
    }
}

/// `value / 100` and `value % 100`, by long division in 32-bit digits (an
/// i128 or u128 division is a library call of about 1 KB in the wasm).
fn div_rem_100(value: u128) -> (u128, u64) {
    let mut quotient = 0u128;
    let mut remainder = 0u64;
    for shift in [96, 64, 32, 0] {
        let digit = u64::from(u32::try_from((value >> shift) & 0xffff_ffff).unwrap_or_default());
        let current = remainder << 32 | digit;
        quotient |= u128::from(current / 100) << shift;
        remainder = current % 100;
    }
    (quotient, remainder)
}

/// `h:m[:s]` or `h.m[.s]` into three numbers.
fn time_parts(time: &str) -> Option<(i128, i128, i128)> {
    let colon: Vec<&str> = time.split(':').collect();
    let parts = match colon.as_slice() {
        [_, _] | [_, _, _] => colon,
        [single] if single.contains('.') => single.split('.').collect(),
        _ => return None,
    };
    match parts.as_slice() {
        [hour, minute] => Some((python_int(hour)?, python_int(minute)?, 0)),
        [hour, minute, second] => Some((python_int(hour)?, python_int(minute)?, python_int(second)?)),
        _ => None,
    }
}

/// Reads a date as `email.utils.parsedate_tz` + `mktime_tz` do; Unix seconds.
pub(crate) fn parse_email_date(value: &str) -> Option<i128> {
    let mut words: Vec<&str> = value.split(is_python_space).filter(|word| !word.is_empty()).collect();
    let first = *words.first()?;
    if first.ends_with(',') || DAY_NAMES.iter().any(|day| day.eq_ignore_ascii_case(first)) {
        words.remove(0);
    } else if let Some(comma) = first.rfind(',') {
        if let (Some(slot), Some(after)) = (words.first_mut(), first.get(comma + 1..)) {
            *slot = after;
        }
    }
    if let [date, rest @ ..] = words.as_slice() {
        let parts: Vec<&str> = date.split('-').collect();
        if rest.len() == 2 && parts.len() == 3 {
            words = parts.into_iter().chain(rest.iter().copied()).collect();
        }
    }
    if words.len() == 4 {
        let last = words.pop().unwrap_or_default();
        let sign_at = last.find('+').or_else(|| last.find('-'));
        match sign_at {
            Some(at) if at > 0 => {
                let (time, zone) = last.split_at(at);
                words.extend([time, zone]);
            }
            _ => words.extend([last, ""]),
        }
    }
    let &[day, month, year, time, zone, ..] = words.as_slice() else { return None };
    if day.is_empty() || month.is_empty() || year.is_empty() {
        return None;
    }
    let (mut day, month) = match month_number(month) {
        Some(number) => (day, number),
        None => (month, month_number(day)?),
    };
    day = strip_comma(day);
    let (mut year, mut time, mut zone) = (year, time, zone);
    if year.find(':').is_some_and(|at| at > 0) {
        (year, time) = (time, year);
    }
    if let Some(stripped) = year.strip_suffix(',') {
        if stripped.is_empty() {
            return None;
        }
        year = stripped;
    }
    if !year.chars().next().is_some_and(char::is_numeric) {
        (year, zone) = (zone, year);
    }
    time = strip_comma(time);

    let (hour, minute, second) = time_parts(time)?;
    let mut year = python_int(year)?;
    let day = python_int(day)?;
    if year < 100 {
        year += if year > 68 { 1900 } else { 2000 };
    }
    if !(1..=9999).contains(&year) {
        return None;
    }
    let year = i64::try_from(year).ok()?;
    let first_of_month = i128::from(days_from_civil(year, month, 1));
    let days = first_of_month.saturating_add(day).saturating_sub(1);
    let seconds = days
        .saturating_mul(86_400)
        .saturating_add(hour.saturating_mul(3600))
        .saturating_add(minute.saturating_mul(60))
        .saturating_add(second);
    Some(seconds.saturating_sub(zone_offset(zone)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_division_by_100() {
        for value in [0, 99, 100, 12_345, u128::from(u64::MAX), u128::from(u64::MAX) * 1000 + 7, u128::MAX] {
            assert_eq!(div_rem_100(value), (value / 100, u64::try_from(value % 100).unwrap()), "{value}");
        }
    }

    #[test]
    fn a_huge_zone_saturates() {
        let huge = "9".repeat(60);
        assert_eq!(zone_offset(&huge), i128::MAX);
        assert_eq!(zone_offset(&format!("-{huge}")), -i128::MAX);
        assert_eq!(zone_offset("+0830"), 8 * 3600 + 30 * 60);
        assert_eq!(zone_offset("-0145"), -(3600 + 45 * 60));
    }

    fn utc(year: i64, month: u32, day: i64, hour: i128, minute: i128, second: i128) -> i128 {
        i128::from(days_from_civil(year, month, day)) * 86_400 + hour * 3600 + minute * 60 + second
    }

    #[test]
    fn cpython_valid_dates() {
        let plus8 = utc(2002, 4, 3, 14, 58, 26) - 8 * 3600;
        for value in [
            "Wed, 3 Apr 2002 14:58:26 +0800",
            "Wed,3 Apr 2002 14:58:26 +0800",
            "Wed 3 Apr 2002 14:58:26 +0800",
            "Wed, 3 Apr 2002 14:58:26+0800",
            "Wed, 3 Apr 2002 14.58.26 +0800",
        ] {
            assert_eq!(parse_email_date(value), Some(plus8), "{value}");
        }
        let minus8 = utc(2003, 2, 5, 13, 47, 26) + 8 * 3600;
        for value in ["5 Feb 2003 13:47:26 -0800", "February 5, 2003 13:47:26 -0800", "5 Feb 2003 13.47.26 -0800"] {
            assert_eq!(parse_email_date(value), Some(minus8), "{value}");
        }
        assert_eq!(parse_email_date("Wed, 3 Apr 2002 14:58:26-0800"), Some(utc(2002, 4, 3, 22, 58, 26)));
        assert_eq!(parse_email_date("5 Feb 2003 13.47 -0800"), Some(utc(2003, 2, 5, 21, 47, 0)));
        assert_eq!(parse_email_date("Wed, 3 Apr 2002 14:58 +0800"), Some(utc(2002, 4, 3, 6, 58, 0)));
        assert_eq!(parse_email_date("Friday, 19-Nov-82 16:14:55 EST"), Some(utc(1982, 11, 19, 21, 14, 55)));
        assert_eq!(parse_email_date("25 Feb 03 13:47:26 -0800"), parse_email_date("25 Feb 2003 13:47:26 -0800"));
        assert_eq!(parse_email_date("25 Feb 71 13:47:26 -0800"), parse_email_date("25 Feb 1971 13:47:26 -0800"));
    }

    #[test]
    fn urllib3_dates() {
        let at = |hour, minute, second| Some(utc(2019, 6, 3, hour, minute, second));
        assert_eq!(parse_email_date("Mon, 3 Jun 2019 12:00:00 UTC"), at(12, 0, 0));
        assert_eq!(parse_email_date("Mon, 03 Jun 2019 11:30:12 GMT"), at(11, 30, 12));
        assert_eq!(parse_email_date("Monday, 03-Jun-19 11:30:12 GMT"), at(11, 30, 12));
        assert_eq!(parse_email_date("Mon Jun  3 11:30:12 2019"), at(11, 30, 12));
        // No zone, `-0000` and unknown zones are UTC; hour 27 is arithmetic.
        assert_eq!(parse_email_date("3 Jun 2019 11:30:12 -0000"), at(11, 30, 12));
        assert_eq!(parse_email_date("3 Jun 2019 11:30:12 XYZ"), at(11, 30, 12));
        assert_eq!(parse_email_date("Tue, 06 Jun 2017 27:39:33 +0600"), Some(utc(2017, 6, 7, 3, 39, 33) - 6 * 3600));
    }

    #[test]
    fn cpython_invalid_dates() {
        for value in [
            "",
            " ",
            "0",
            "A Complete Waste of Time",
            "Wed, 3 Apr 2002 12.34.56.78+0800",
            "17 June , 2022",
            "Friday, -Nov-82 16:14:55 EST",
            "Friday, Nov--82 16:14:55 EST",
            "Friday, 19-Nov- 16:14:55 EST",
            "-1",
            "+1",
            "1.0",
            "\u{b2}",
            "1, 2",
            "3 Jun 10000 11:30:12 GMT",
        ] {
            assert_eq!(parse_email_date(value), None, "{value:?}");
        }
    }

    #[test]
    fn python_int_rules() {
        assert_eq!(python_int("042"), Some(42));
        assert_eq!(python_int("-5"), Some(-5));
        assert_eq!(python_int("+5"), Some(5));
        assert_eq!(python_int("1_000"), Some(1000));
        for bad in ["", "-", "_1", "1_", "1__0", "1.0", "\u{b2}", "1 0"] {
            assert_eq!(python_int(bad), None, "{bad:?}");
        }
        assert_eq!(python_int(&"9".repeat(60)), Some(i128::MAX));
    }
}
