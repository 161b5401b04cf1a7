//! HTTP-date (RFC 9110 section 5.6.7), read to the letter.
//!
//! The three forms, case-sensitive, single spaces exactly where the grammar
//! has `SP`:
//!
//! | form | example |
//! |---|---|
//! | IMF-fixdate | `Sun, 06 Nov 1994 08:49:37 GMT` |
//! | rfc850-date (obsolete) | `Sunday, 06-Nov-94 08:49:37 GMT` |
//! | asctime-date (obsolete) | `Sun Nov  6 08:49:37 1994` |
//!
//! - Years 0000 to 9999 of the proleptic Gregorian calendar; the day must
//!   exist in its month; hours 00-23, minutes 00-59, seconds 00-60 (60 is a
//!   leap second, read as the next second: RFC 9110 allows `23:59:60`).
//! - The day name must be the day of that date (RFC 9110 gives `day-name`
//!   the meaning of RFC 5322 section 3.3, where it MUST match) for
//!   IMF-fixdate and asctime. An rfc850-date has its century chosen by the
//!   50-year rule below, which can move it away from its day name (RFC 7231
//!   errata 5448), so its day name is read but not checked.
//! - rfc850-date's two-digit year: RFC 9110 says a recipient MUST read a
//!   year that "appears to be more than 50 years in the future" as the most
//!   recent past year with the same last two digits. Of the years `C - 100 +
//!   yy`, `C + yy` and `C + 100 + yy` (`C` the century of `now`), the latest
//!   whose timestamp is not after `now` plus 50 calendar years wins.
//!
//! Everything is integer arithmetic on Unix seconds; nothing here reads a
//! clock or formats text.

/// Seconds in a day.
const DAY_SECS: i64 = 86_400;

/// Day names, Monday first, as `(short, long)`.
const DAY_NAMES: [(&[u8], &[u8]); 7] = [
    (b"Mon", b"Monday"),
    (b"Tue", b"Tuesday"),
    (b"Wed", b"Wednesday"),
    (b"Thu", b"Thursday"),
    (b"Fri", b"Friday"),
    (b"Sat", b"Saturday"),
    (b"Sun", b"Sunday"),
];

/// Month names, January first.
const MONTHS: [&[u8; 3]; 12] =
    [b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec"];

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). Any day
/// number is accepted: day 29 of February in a common year is 1 March.
pub(crate) fn days_from_civil(year: i64, month: u32, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The `(year, month, day)` of a day number (days since 1970-01-01).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    // month is 1..=12 by construction.
    (year, u32::try_from(month).unwrap_or(1), day)
}

/// True for a Gregorian leap year.
pub(crate) fn is_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1-12) of `year`.
pub(crate) fn days_in_month(year: i64, month: u32) -> i64 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A date and time as written, before it is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Written {
    year: i64,
    month: u32,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
}

impl Written {
    /// Unix seconds, when every part is in range (second 60 counts as the
    /// next second).
    fn unix_seconds(&self) -> Option<i64> {
        let in_range = (0..=9999).contains(&self.year)
            && (1..=days_in_month(self.year, self.month)).contains(&self.day)
            && (0..=23).contains(&self.hour)
            && (0..=59).contains(&self.minute)
            && (0..=60).contains(&self.second);
        in_range.then(|| {
            days_from_civil(self.year, self.month, self.day) * DAY_SECS
                + self.hour * 3600
                + self.minute * 60
                + self.second
        })
    }

    /// Monday = 0 ... Sunday = 6.
    fn weekday(&self) -> usize {
        let days = days_from_civil(self.year, self.month, self.day);
        // 1970-01-01 was a Thursday (3 when Monday is 0).
        usize::try_from((days + 3).rem_euclid(7)).unwrap_or(0)
    }
}

fn digit(byte: u8) -> Option<i64> {
    byte.is_ascii_digit().then(|| i64::from(byte - b'0'))
}

fn two_digits(high: u8, low: u8) -> Option<i64> {
    Some(digit(high)? * 10 + digit(low)?)
}

fn four_digits(a: u8, b: u8, c: u8, d: u8) -> Option<i64> {
    Some(two_digits(a, b)? * 100 + two_digits(c, d)?)
}

fn month(name: [u8; 3]) -> Option<u32> {
    MONTHS.iter().position(|candidate| **candidate == name).and_then(|index| u32::try_from(index + 1).ok())
}

fn short_day(name: [u8; 3]) -> Option<usize> {
    DAY_NAMES.iter().position(|(short, _)| *short == name.as_slice())
}

/// `hh:mm:ss` into its three numbers.
fn time_of_day(bytes: [u8; 8]) -> Option<(i64, i64, i64)> {
    let [h0, h1, b':', m0, m1, b':', s0, s1] = bytes else { return None };
    Some((two_digits(h0, h1)?, two_digits(m0, m1)?, two_digits(s0, s1)?))
}

/// Reads an HTTP-date, returning Unix seconds. `now_secs` only matters for
/// the century of an rfc850-date.
pub(crate) fn parse_http_date(value: &str, now_secs: i64) -> Option<i64> {
    let bytes = value.as_bytes();
    imf_fixdate(bytes).or_else(|| asctime_date(bytes)).or_else(|| rfc850_date(bytes, now_secs))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`
fn imf_fixdate(bytes: &[u8]) -> Option<i64> {
    let &[w0, w1, w2, b',', b' ', d0, d1, b' ', m0, m1, m2, b' ', y0, y1, y2, y3, b' ', h0, h1, c0, n0, n1, c1, s0, s1, b' ', b'G', b'M', b'T'] =
        bytes
    else {
        return None;
    };
    let (hour, minute, second) = time_of_day([h0, h1, c0, n0, n1, c1, s0, s1])?;
    let written = Written {
        year: four_digits(y0, y1, y2, y3)?,
        month: month([m0, m1, m2])?,
        day: two_digits(d0, d1)?,
        hour,
        minute,
        second,
    };
    checked_with_day_name(written, short_day([w0, w1, w2])?)
}

/// `Sun Nov  6 08:49:37 1994` (the day is two digits, or a space and one).
fn asctime_date(bytes: &[u8]) -> Option<i64> {
    let &[w0, w1, w2, b' ', m0, m1, m2, b' ', d0, d1, b' ', h0, h1, c0, n0, n1, c1, s0, s1, b' ', y0, y1, y2, y3] =
        bytes
    else {
        return None;
    };
    let day = if d0 == b' ' { digit(d1)? } else { two_digits(d0, d1)? };
    let (hour, minute, second) = time_of_day([h0, h1, c0, n0, n1, c1, s0, s1])?;
    let written =
        Written { year: four_digits(y0, y1, y2, y3)?, month: month([m0, m1, m2])?, day, hour, minute, second };
    checked_with_day_name(written, short_day([w0, w1, w2])?)
}

fn checked_with_day_name(written: Written, day_name: usize) -> Option<i64> {
    let seconds = written.unix_seconds()?;
    (written.weekday() == day_name).then_some(seconds)
}

/// `Sunday, 06-Nov-94 08:49:37 GMT`
fn rfc850_date(bytes: &[u8], now_secs: i64) -> Option<i64> {
    let rest = DAY_NAMES.iter().find_map(|(_, long)| bytes.strip_prefix(*long))?;
    let &[b',', b' ', d0, d1, b'-', m0, m1, m2, b'-', y0, y1, b' ', h0, h1, c0, n0, n1, c1, s0, s1, b' ', b'G', b'M', b'T'] =
        rest
    else {
        return None;
    };
    let (hour, minute, second) = time_of_day([h0, h1, c0, n0, n1, c1, s0, s1])?;
    let two_digit_year = two_digits(y0, y1)?;
    let written = Written { year: 0, month: month([m0, m1, m2])?, day: two_digits(d0, d1)?, hour, minute, second };

    let (now_year, now_month, now_day) = civil_from_days(now_secs.div_euclid(DAY_SECS));
    let now_time = now_secs.rem_euclid(DAY_SECS);
    let fifty_years_later = days_from_civil(now_year + 50, now_month, now_day) * DAY_SECS + now_time;
    let century = now_year.div_euclid(100) * 100;
    [century - 100, century, century + 100]
        .into_iter()
        .filter_map(|start| Written { year: start + two_digit_year, ..written }.unix_seconds())
        .rfind(|seconds| *seconds <= fifty_years_later)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-05-23T00:00:00Z, the "now" of most tests.
    const NOW: i64 = 1_779_494_400;

    fn parse(value: &str) -> Option<i64> {
        parse_http_date(value, NOW)
    }

    #[test]
    fn civil_round_trip_and_known_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(0, 1, 1), -719_528);
        assert_eq!(days_from_civil(2023, 2, 29), days_from_civil(2023, 3, 1));
        for days in [-719_528, -1, 0, 1, 11_016, 11_017, 20_596, 2_932_896] {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(days_from_civil(year, month, day), days, "{days}");
        }
        assert_eq!(civil_from_days(NOW / DAY_SECS), (2026, 5, 23));
    }

    #[test]
    fn the_three_rfc_examples() {
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            assert_eq!(parse(form), Some(784_111_777), "{form}");
        }
        assert_eq!(parse("Sun, 02 Oct 2016 14:44:11 GMT"), Some(1_475_419_451));
        assert_eq!(parse("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(parse("Fri, 31 Dec 9999 23:59:59 GMT"), Some(253_402_300_799));
        assert_eq!(parse("Fri, 01 Jan 0010 00:00:00 GMT"), Some(-61_851_600_000));
        assert_eq!(parse("Thu Jan 16 12:00:02 2031"), Some(1_926_331_202));
    }

    #[test]
    fn leap_second_and_leap_day() {
        assert_eq!(parse("Wed, 31 Dec 2031 23:59:60 GMT"), parse("Thu, 01 Jan 2032 00:00:00 GMT"));
        assert_eq!(parse("Wed Dec 31 23:59:60 2031"), parse("Thu, 01 Jan 2032 00:00:00 GMT"));
        assert!(parse("Thu, 29 Feb 2024 00:00:00 GMT").is_some());
        assert_eq!(parse("Sat, 29 Feb 2031 12:00:00 GMT"), None);
        assert!(parse("Tue, 29 Feb 2000 00:00:00 GMT").is_some());
        assert_eq!(parse("Thu, 29 Feb 2100 00:00:00 GMT"), None);
    }

    #[test]
    fn rejections() {
        for bad in [
            "Wed, 00 Jan 2031 12:00:00 GMT",
            "Fri, 32 Jan 2031 12:00:00 GMT",
            "Thu, 31 Apr 2031 12:00:00 GMT",
            "Wed, 01 Foo 2031 12:00:00 GMT",
            "Foo, 01 Jan 2031 12:00:00 GMT",
            "Wed, 01 Jan 2031 24:00:00 GMT",
            "Wed, 01 Jan 2031 12:60:00 GMT",
            "Wed, 01 Jan 2031 12:00:61 GMT",
            "Wed, 01 Jan 2031 12:00:00 UTC",
            "Wed, 01 Jan 2031 12:00:00 +0000",
            "2031-01-01T12:00:00Z",
            "wed, 01 jan 2031 12:00:00 gmt",
            "Wed, 1 Jan 2031 12:00:00 GMT",
            "Wed,  01 Jan 2031 12:00:00 GMT",
            "Sun, 07 Nov 1994 08:48:37 GMT",
            "Sun Nov 10 08:00:00 1000",
            "Sun Nov 10 08*00:00 2000",
            "Sunday, 06-Nov-94 08+49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sun, 06-Nov-94 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994",
            " Sun, 06 Nov 1994 08:49:37 GMT",
            "1, 2",
            "",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn rfc850_fifty_year_rule() {
        // In 2026, "30" is 2030 (4 years ahead) and "94" is 1994 (2094 is
        // 68 years ahead).
        assert_eq!(parse("Wednesday, 01-Jan-30 00:00:00 GMT"), Some(days_from_civil(2030, 1, 1) * DAY_SECS));
        // "76": 2076-05-23 is exactly 50 years ahead: not more than 50, so 2076.
        assert_eq!(parse("Saturday, 23-May-76 00:00:00 GMT"), Some(days_from_civil(2076, 5, 23) * DAY_SECS));
        // One second later is more than 50 years ahead: 1976. The day name
        // is read but not checked for this form.
        assert_eq!(parse("Saturday, 23-May-76 00:00:01 GMT"), Some(days_from_civil(1976, 5, 23) * DAY_SECS + 1));
        // Near the end of a century, low years belong to the next one.
        let late_2090s = days_from_civil(2095, 6, 1) * DAY_SECS;
        assert_eq!(
            parse_http_date("Monday, 01-Jan-05 00:00:00 GMT", late_2090s),
            Some(days_from_civil(2105, 1, 1) * DAY_SECS)
        );
        // 29 Feb exists only in the leap candidate.
        assert_eq!(parse("Tuesday, 29-Feb-00 00:00:00 GMT"), Some(days_from_civil(2000, 2, 29) * DAY_SECS));
    }

    #[test]
    fn no_panic_on_any_byte_in_any_position() {
        let seeds = ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"];
        for seed in seeds {
            for at in 0..seed.len() {
                for with in ['0', '9', ' ', '-', ':', 'é', '\u{0}', 'Z'] {
                    let (head, tail) = seed.split_at(at);
                    let mutated: String = head.chars().chain([with]).chain(tail.chars().skip(1)).collect();
                    let _ = parse_http_date(&mutated, 0);
                    let _ = parse_http_date(&mutated, i64::from(u32::MAX) * 1000);
                }
            }
        }
    }
}
