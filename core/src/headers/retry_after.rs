//! Reading the guidance a server attaches to a failed or throttled response.
//!
//! Three sources are understood:
//!
//! * `Retry-After` (RFC 9110 section 10.2.3): delta-seconds or an HTTP-date,
//!   see [`parse_retry_after`].
//! * `retry-after-ms` / `x-ms-retry-after-ms`: a non-standard but widely sent
//!   millisecond variant, see [`parse_retry_after_ms_header`].
//! * `grpc-retry-pushback-ms` (gRPC proposal A6), see [`parse_grpc_pushback`].
//!
//! Every function here is pure: the caller passes the current wall-clock time
//! where one is needed, and nothing in this module reads a clock, allocates
//! on the success path, or panics on any input.

use alloc::string::String;

use crate::ground::message::{message, Message};
use crate::ground::text::excerpt;
use crate::ground::units::MAX_MS;
use crate::headers::{email_date, http_date};

/// Header name used in errors produced by [`parse_retry_after`].
const RETRY_AFTER: &str = "retry-after";
/// Header name used in errors produced by [`parse_retry_after_ms_header`].
const RETRY_AFTER_MS: &str = "retry-after-ms";

/// Why a header value could not be read.
///
/// Shared by every header parser in the crate. The `header` field always
/// names the header (lower case) so that a log line is useful on its own, and
/// `value` holds at most 64 characters of the offending input, with a
/// trailing `…` when it had to be shortened (the excerpt every error of the
/// crate keeps of a caller's or a server's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// The value was empty, or held nothing but whitespace.
    Empty {
        /// The header being parsed.
        header: &'static str,
    },
    /// The value does not follow the header's grammar.
    Malformed {
        /// The header being parsed.
        header: &'static str,
        /// The rule that was broken, phrased as what was expected instead.
        expected: &'static str,
        /// A bounded excerpt of the value that was received.
        value: String,
    },
    /// The value is well formed but outside the range the header allows.
    OutOfRange {
        /// The header being parsed.
        header: &'static str,
        /// The limit that was exceeded, in words.
        limit: &'static str,
        /// A bounded excerpt of the value that was received.
        value: String,
    },
}

impl HeaderError {
    /// Builds [`HeaderError::Malformed`], keeping only a bounded excerpt of
    /// `value`.
    #[must_use]
    pub fn malformed(header: &'static str, expected: &'static str, value: &str) -> Self {
        Self::Malformed { header, expected, value: excerpt(value) }
    }

    /// Builds [`HeaderError::OutOfRange`], keeping only a bounded excerpt of
    /// `value`.
    #[must_use]
    pub fn out_of_range(header: &'static str, limit: &'static str, value: &str) -> Self {
        Self::OutOfRange { header, limit, value: excerpt(value) }
    }

    /// The name of the header whose value was rejected.
    #[must_use]
    pub fn header(&self) -> &'static str {
        match self {
            Self::Empty { header } | Self::Malformed { header, .. } | Self::OutOfRange { header, .. } => header,
        }
    }

    /// The error as a message (its rule and values).
    #[must_use]
    pub fn message(&self) -> Message {
        match self {
            Self::Empty { header } => message!(HeaderEmpty, *header),
            Self::Malformed { header, expected, value } => message!(HeaderMalformed, *header, *expected, value),
            Self::OutOfRange { header, limit, value } => message!(HeaderOutOfRange, *header, value, *limit),
        }
    }
}

impl core::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.message().fmt(f)
    }
}

impl core::error::Error for HeaderError {}

/// Reads `1*DIGIT` as a `u64`, saturating at `u64::MAX` instead of
/// overflowing. Returns `None` for an empty string or any non-digit byte
/// (signs, dots, spaces and non-ASCII included).
pub(crate) fn parse_digits_saturating(digits: &str) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.bytes().try_fold(0u64, |acc, byte| {
        byte.is_ascii_digit().then(|| acc.saturating_mul(10).saturating_add(u64::from(byte.saturating_sub(b'0'))))
    })
}

/// How a `Retry-After` value is read: the policy's
/// `server_guidance.retry_after_reading`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RetryAfterReading {
    /// RFC 9110 to the letter (the default): `1*DIGIT` seconds or an
    /// HTTP-date, see [`parse_retry_after`].
    #[default]
    Strict,
    /// Everything `Strict` reads, with the same result, and also what
    /// Python's `email.utils.parsedate_tz` reads (urllib3's reading): one-digit
    /// days, numeric and North American zones, missing seconds, any
    /// whitespace around digits. See [`parse_retry_after_with`].
    Lenient,
}

impl crate::ground::named::Named for RetryAfterReading {
    const ALL: &'static [Self] = &[RetryAfterReading::Strict, RetryAfterReading::Lenient];
    fn name(self) -> &'static str {
        match self {
            RetryAfterReading::Strict => "strict",
            RetryAfterReading::Lenient => "lenient",
        }
    }
}

crate::ground::named::named_serde!(RetryAfterReading);

/// Trims the optional whitespace (`OWS`: spaces and horizontal tabs) that
/// RFC 9110 section 5.5 keeps out of a field value.
pub(crate) fn trim_ows(value: &str) -> &str {
    value.trim_matches([' ', '\t'])
}

/// Milliseconds from `now_unix_ms` until a moment given in Unix seconds
/// (plus `extra_ms`); `0` when it has passed, at most [`MAX_MS`].
pub(crate) fn ms_until(unix_seconds: i128, now_unix_ms: u64) -> u64 {
    let delay = unix_seconds.saturating_mul(1000).saturating_sub(i128::from(now_unix_ms));
    u64::try_from(delay.clamp(0, i128::from(MAX_MS))).unwrap_or(MAX_MS)
}

/// Milliseconds in a whole number of seconds, at most [`MAX_MS`].
pub(crate) fn seconds_to_ms(seconds: u64) -> u64 {
    seconds.saturating_mul(1000).min(MAX_MS)
}

/// Returns the delay, in milliseconds from `now_unix_ms`, that a
/// `Retry-After` value asks for, read strictly (RFC 9110 section 10.2.3).
///
/// Optional whitespace (spaces and tabs) around the value is ignored. Two
/// forms are accepted:
///
/// * delta-seconds, one or more ASCII digits (leading zeros allowed). A value
///   larger than [`MAX_MS`] (2^53 - 1 ms, the largest a JavaScript number
///   holds exactly) saturates to `MAX_MS` rather than failing, so an absurd
///   hint still reads as "a very long time" in every language.
/// * an HTTP-date in any of the three forms of RFC 9110 section 5.6.7:
///   IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
///   (`Sunday, 06-Nov-94 08:49:37 GMT`, the two-digit year read by the
///   50-year rule against `now_unix_ms`) and asctime (`Sun Nov  6 08:49:37
///   1994`). Years 0000-9999; second 60 (a leap second) is the next second;
///   the day name must agree with the date (not checked for the RFC 850
///   form, whose century the 50-year rule chooses). The delay is the date
///   minus `now_unix_ms`, and a date that has already passed yields `0`.
///
/// A header sent as several field lines arrives joined by commas (`1, 2`)
/// and is not in the grammar, so it is unreadable: RFC 9110 section 5.3
/// forbids a sender to split a singleton field, and no line is preferred.
///
/// `now_unix_ms` is the caller's wall-clock time in milliseconds since the
/// Unix epoch; it is only consulted for the date form.
///
/// # Errors
///
/// [`HeaderError::Empty`] for an empty or all-whitespace value, and
/// [`HeaderError::Malformed`] for anything else that is neither form:
/// signed or fractional numbers (`-5`, `+5`, `1.5`), impossible or
/// inconsistent dates, other time zones, lists, and free text.
pub fn parse_retry_after(value: &str, now_unix_ms: u64) -> Result<u64, HeaderError> {
    parse_retry_after_with(value, now_unix_ms, RetryAfterReading::Strict)
}

/// Reads a `Retry-After` value as `reading` says: the delay it asks for, in
/// milliseconds.
///
/// [`RetryAfterReading::Strict`] reads it as [`parse_retry_after`] does: the
/// delta-seconds and HTTP-date forms of RFC 9110, to the letter.
/// [`RetryAfterReading::Lenient`] first reads the value strictly; when that
/// fails it reads it as urllib3 does: digits with any whitespace around them
/// are seconds (`^\s*[0-9]+\s*$`), anything else goes through the model of
/// Python's `email.utils.parsedate_tz` + `mktime_tz` (two-digit years
/// 1969-2068, zones `GMT`/`UTC`/`EST`/`+0800`/..., a missing zone is UTC).
///
/// # Errors
///
/// As [`parse_retry_after`], for what neither reading accepts.
pub fn parse_retry_after_with(value: &str, now_unix_ms: u64, reading: RetryAfterReading) -> Result<u64, HeaderError> {
    let trimmed = trim_ows(value);
    if trimmed.is_empty() {
        return Err(HeaderError::Empty { header: RETRY_AFTER });
    }
    if let Some(seconds) = parse_digits_saturating(trimmed) {
        return Ok(seconds_to_ms(seconds));
    }
    let now_secs = i64::try_from(now_unix_ms / 1000).unwrap_or(i64::MAX);
    if let Some(date) = http_date::parse_http_date(trimmed, now_secs) {
        return Ok(ms_until(i128::from(date), now_unix_ms));
    }
    if reading == RetryAfterReading::Lenient {
        let digits = value.trim_matches(email_date::is_python_space);
        if let Some(seconds) = parse_digits_saturating(digits) {
            // urllib3's `^\s*[0-9]+\s*$` matched; its `int()` then strips every
            // white space but the ASCII separators `\x1c`-`\x1f` that `\s`
            // allows: a `ValueError`, and no date is read.
            if value.contains(|c| ('\u{1c}'..='\u{1f}').contains(&c)) {
                return Err(HeaderError::malformed(RETRY_AFTER, "delta-seconds or an HTTP-date", trimmed));
            }
            return Ok(seconds_to_ms(seconds));
        }
        if let Some(date) = email_date::parse_email_date(value) {
            return Ok(ms_until(date, now_unix_ms));
        }
    }
    Err(HeaderError::malformed(RETRY_AFTER, "delta-seconds or an HTTP-date", trimmed))
}

/// Name used in errors produced by [`parse_http_date`].
const HTTP_DATE: &str = "http-date";

/// Reads an HTTP-date on its own (RFC 9110 section 5.6.7): the moment it
/// names, in milliseconds since the Unix epoch (negative before 1970).
///
/// The dates [`parse_retry_after_with`] reads, without the delta-seconds
/// form: `"0"` is not a date. [`RetryAfterReading::Strict`] reads the three
/// forms to the letter (IMF-fixdate, rfc850-date with the 50-year rule
/// against `now_unix_ms`, asctime-date; years 0000-9999, second 60 the next
/// second, day names checked); [`RetryAfterReading::Lenient`] also reads
/// what Python's `email.utils.parsedate_tz` + `mktime_tz` read, strict
/// results kept where strict reads the value. Optional whitespace around the
/// value is ignored. `now_unix_ms` is only consulted for an rfc850-date.
///
/// ```
/// use retryplan::headers::retry_after::{parse_http_date, RetryAfterReading};
/// let now = 1_700_000_000_000;
/// assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", now, RetryAfterReading::Strict), Ok(784_111_777_000));
/// assert!(parse_http_date("0", now, RetryAfterReading::Strict).is_err());
/// assert_eq!(parse_http_date("Sun, 6 Nov 1994 08:49:37 +0000", now, RetryAfterReading::Lenient), Ok(784_111_777_000));
/// ```
///
/// # Errors
///
/// [`HeaderError::Empty`] for an empty or all-whitespace value,
/// [`HeaderError::Malformed`] for anything that is not a date the reading
/// reads, and [`HeaderError::OutOfRange`] for a lenient date further than
/// 2^53 - 1 ms from the epoch (Python reads any number of year digits).
pub fn parse_http_date(value: &str, now_unix_ms: u64, reading: RetryAfterReading) -> Result<i64, HeaderError> {
    let trimmed = trim_ows(value);
    if trimmed.is_empty() {
        return Err(HeaderError::Empty { header: HTTP_DATE });
    }
    let now_secs = i64::try_from(now_unix_ms / 1000).unwrap_or(i64::MAX);
    let seconds = match http_date::parse_http_date(trimmed, now_secs) {
        Some(date) => i128::from(date),
        None if reading == RetryAfterReading::Lenient => email_date::parse_email_date(value)
            .ok_or_else(|| HeaderError::malformed(HTTP_DATE, "an HTTP-date", trimmed))?,
        None => return Err(HeaderError::malformed(HTTP_DATE, "an HTTP-date", trimmed)),
    };
    let ms = seconds.saturating_mul(1000);
    if ms.unsigned_abs() > u128::from(MAX_MS) {
        return Err(HeaderError::out_of_range(HTTP_DATE, "2^53 - 1 ms from the Unix epoch", trimmed));
    }
    // Within +-(2^53 - 1): fits in i64.
    Ok(i64::try_from(ms).unwrap_or_default())
}

/// Reads a `retry-after-ms` or `x-ms-retry-after-ms` value: a non-negative
/// integer number of milliseconds.
///
/// Surrounding ASCII whitespace is ignored and leading zeros are allowed. A
/// value above [`MAX_MS`] saturates to `MAX_MS`.
///
/// # Errors
///
/// [`HeaderError::Empty`] for an empty or all-whitespace value, and
/// [`HeaderError::Malformed`] for anything other than ASCII digits (signs,
/// fractions, units, dates).
pub fn parse_retry_after_ms_header(value: &str) -> Result<u64, HeaderError> {
    let trimmed = trim_ows(value);
    if trimmed.is_empty() {
        return Err(HeaderError::Empty { header: RETRY_AFTER_MS });
    }
    parse_digits_saturating(trimmed)
        .map(|ms| ms.min(MAX_MS))
        .ok_or_else(|| HeaderError::malformed(RETRY_AFTER_MS, "a non-negative integer number of milliseconds", trimmed))
}

/// What a gRPC server asked for in its `grpc-retry-pushback-ms` trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pushback {
    /// Retry, but not before this many milliseconds have passed. Under gRPC
    /// A6 this replaces the backoff the client would otherwise have chosen.
    RetryAfterMs(u64),
    /// The server asked the client not to retry this call at all.
    DoNotRetry,
}

/// Interprets a `grpc-retry-pushback-ms` trailer value.
///
/// A value of the form `0` or `[1-9][0-9]*` that fits in a signed 32-bit
/// integer yields [`Pushback::RetryAfterMs`]. Surrounding ASCII whitespace
/// is ignored.
///
/// This function cannot fail, on purpose: gRPC proposal A6 gives every
/// other value a meaning. A negative number, leading zeros, an
/// out-of-range number, or text that does not parse at all is the server
/// saying "do not retry", so all of them map to [`Pushback::DoNotRetry`].
/// Callers who only want to know whether a trailer was present should check
/// for its presence before calling.
#[must_use]
pub fn parse_grpc_pushback(value: &str) -> Pushback {
    let trimmed = value.trim_ascii();
    let well_formed = !trimmed.is_empty()
        && trimmed.bytes().all(|byte| byte.is_ascii_digit())
        && (trimmed == "0" || !trimmed.starts_with('0'));
    if !well_formed {
        return Pushback::DoNotRetry;
    }
    match trimmed.parse::<i32>().map(u64::try_from) {
        Ok(Ok(ms)) => Pushback::RetryAfterMs(ms),
        _ => Pushback::DoNotRetry,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Sun, 06 Nov 1994 08:49:37 GMT` in Unix milliseconds.
    const REF_MS: u64 = 784_111_777_000;

    #[test]
    fn delta_seconds() {
        assert_eq!(parse_retry_after("120", 0), Ok(120_000));
        assert_eq!(parse_retry_after("0", REF_MS), Ok(0));
        assert_eq!(parse_retry_after("0007", 0), Ok(7_000));
        assert_eq!(parse_retry_after(" \t30 ", 0), Ok(30_000));
        // The clock does not matter for the delta form.
        assert_eq!(parse_retry_after("5", u64::MAX), Ok(5_000));
    }

    #[test]
    fn huge_delta_saturates() {
        let huge = "99999999999999999999999";
        assert_eq!(parse_retry_after(huge, 0), Ok(MAX_MS));
        // Fits in u64 seconds but not in u64 milliseconds.
        assert_eq!(parse_retry_after("18446744073709552", 0), Ok(MAX_MS));
        // The largest whole number of seconds below MAX_MS is exact; one more saturates.
        assert_eq!(parse_retry_after("9007199254740", 0), Ok(9_007_199_254_740_000));
        assert_eq!(parse_retry_after("9007199254741", 0), Ok(MAX_MS));
        assert_eq!(parse_retry_after_ms_header(huge), Ok(MAX_MS));
        assert_eq!(parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", 0), Ok(253_402_300_799_000));
    }

    #[test]
    fn all_three_date_forms() {
        let now = REF_MS - 30_000;
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "  Sun, 06 Nov 1994 08:49:37 GMT\t",
        ] {
            assert_eq!(parse_retry_after(form, now), Ok(30_000), "{form}");
        }
    }

    #[test]
    fn date_edges() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(parse_retry_after(date, REF_MS), Ok(0));
        assert_eq!(parse_retry_after(date, REF_MS + 5_000), Ok(0)); // past
        assert_eq!(parse_retry_after(date, u64::MAX), Ok(0));
        assert_eq!(parse_retry_after("Thu, 01 Jan 1970 00:00:00 GMT", 0), Ok(0));
        let last = parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", 0);
        assert_eq!(last, Ok(253_402_300_799_000));
        // RFC 850 two-digit years: at the epoch, "00" is 2000 (30 years ahead).
        let y2k = parse_retry_after("Saturday, 01-Jan-00 00:00:00 GMT", 0);
        assert_eq!(y2k, Ok(946_684_800_000));
        // Dates before 1970 are dates too: already passed.
        assert_eq!(parse_retry_after("Wed, 31 Dec 1969 23:59:59 GMT", 0), Ok(0));
        assert_eq!(parse_retry_after("Fri, 01 Jan 0010 00:00:00 GMT", REF_MS), Ok(0));
        // A leap second is the next second.
        let leap = parse_retry_after("Wed, 31 Dec 2031 23:59:60 GMT", 1_956_527_999_000);
        assert_eq!(leap, Ok(1_000));
    }

    #[test]
    fn lenient_reads_what_email_utils_reads() {
        let lenient = |value| parse_retry_after_with(value, 1_559_559_600_000, RetryAfterReading::Lenient);
        // urllib3's test_respect_retry_after_header_sleep, now 2019-06-03 11:00:00 UTC.
        assert_eq!(lenient("Mon, 3 Jun 2019 12:00:00 UTC"), Ok(3_600_000));
        assert_eq!(lenient("Mon, 3 Jun 2019 11:00:00 UTC"), Ok(0));
        assert_eq!(lenient("Mon, 03 Jun 2019 11:30:12 GMT"), Ok(1_812_000));
        assert_eq!(lenient("Monday, 03-Jun-19 11:30:12 GMT"), Ok(1_812_000));
        assert_eq!(lenient("Mon Jun  3 11:30:12 2019"), Ok(1_812_000));
        assert_eq!(lenient("\t42 "), Ok(42_000));
        assert_eq!(lenient("\n42\u{a0}"), Ok(42_000));
        // `\s` matches the ASCII separators, but Python's `int()` refuses them.
        for bad in ["-1", "+1", "1.0", "\u{b2}", "", "soon", "\u{1c}42", "42\u{1f}", "\t42\u{1d} "] {
            assert!(lenient(bad).is_err(), "{bad:?}");
        }
        // Strict refuses the same one-digit day and UTC zone.
        assert!(parse_retry_after("Mon, 3 Jun 2019 12:00:00 UTC", 1_559_559_600_000).is_err());
        // Lenient agrees with strict wherever strict reads a value.
        let rfc850 = "Saturday, 23-May-76 00:00:01 GMT";
        let now = 1_779_494_400_000;
        assert_eq!(parse_retry_after_with(rfc850, now, RetryAfterReading::Lenient), parse_retry_after(rfc850, now));
    }

    fn malformed(result: Result<u64, HeaderError>, name: &str) -> bool {
        matches!(result, Err(HeaderError::Malformed { header, .. }) if header == name)
    }

    #[test]
    fn rejections() {
        let empty = Err(HeaderError::Empty { header: "retry-after" });
        assert_eq!(parse_retry_after("", 0), empty);
        assert_eq!(parse_retry_after(" \t ", 0), empty);
        // Signs, fractions, exponents, units, free text, non-ASCII digits
        // (Arabic-Indic three, fullwidth five), then dates the strict reader refuses:
        // wrong weekday, other zones, lower case, impossible day or hour,
        // truncated, two field lines joined by a comma.
        let words = "-5 +5 1.5 1e3 12abc 5s soon \u{663} \u{FF15}".split(' ');
        let dates = [
            "Mon, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "sun, 06 nov 1994 08:49:37 gmt",
            "Tue, 31 Feb 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994",
            "5 s",
            "1, 2",
            "Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT",
        ];
        for bad in words.chain(dates) {
            let result = parse_retry_after(bad, 0);
            assert!(malformed(result, "retry-after"), "{bad:?}");
        }
    }

    #[test]
    fn display_names_header_and_rule() {
        let err = parse_retry_after("12abc", 0).err();
        assert_eq!(
            err.as_ref().map(ToString::to_string).as_deref(),
            Some("retry-after: expected delta-seconds or an HTTP-date, got \"12abc\"")
        );
        assert_eq!(err.map(|e| e.header()), Some("retry-after"));
        let err = parse_retry_after_ms_header("").err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("retry-after-ms: value is empty"));
        let err = HeaderError::out_of_range("grpc-timeout", "at most 8 digits", "123456789m");
        assert_eq!(err.to_string(), "grpc-timeout: \"123456789m\" is out of range (at most 8 digits)");
    }

    #[test]
    fn excerpt_is_bounded_on_char_boundary() {
        let long = "é".repeat(100);
        let Err(HeaderError::Malformed { value, .. }) = parse_retry_after(&long, 0) else {
            panic!("expected Malformed");
        };
        assert_eq!(value.chars().count(), crate::ground::text::EXCERPT_CHARS + 1);
        assert!(value.ends_with('…'));
    }

    #[test]
    fn retry_after_ms_header() {
        assert_eq!(parse_retry_after_ms_header("0"), Ok(0));
        assert_eq!(parse_retry_after_ms_header(" 1500 "), Ok(1_500));
        assert_eq!(parse_retry_after_ms_header("00250"), Ok(250));
        for bad in "-1 +1 1.5 10ms 1e3 soon".split(' ').chain(["1 0", "Sun, 06 Nov 1994"]) {
            let result = parse_retry_after_ms_header(bad);
            assert!(malformed(result, "retry-after-ms"), "{bad:?}");
        }
        assert!(matches!(parse_retry_after_ms_header("  "), Err(HeaderError::Empty { .. })));
    }

    #[test]
    fn grpc_pushback() {
        assert_eq!(parse_grpc_pushback("0"), Pushback::RetryAfterMs(0));
        assert_eq!(parse_grpc_pushback("100"), Pushback::RetryAfterMs(100));
        assert_eq!(parse_grpc_pushback("2147483647"), Pushback::RetryAfterMs(2_147_483_647));
        let odd = ["", " ", "1 0", "0x10"];
        let listed = "-1 -0 007 00 2147483648 99999999999999999999 abc +5 1.5 1e3".split(' ');
        for dnr in listed.chain(odd) {
            assert_eq!(parse_grpc_pushback(dnr), Pushback::DoNotRetry, "{dnr:?}");
        }
    }

    #[test]
    fn no_panics_on_mutated_input() {
        // Overwrite every position of each valid form with characters that
        // stress the positional date parsers, including multi-byte ones.
        let seeds = [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Fri, 31 Dec 9999 23:59:59 GMT",
            "2147483647",
        ];
        for seed in seeds {
            for at in 0..seed.len() {
                for with in ['0', '9', ' ', '-', ':', 'é', '\u{0}'] {
                    let (head, tail) = seed.split_at(at);
                    let mutated: String = head.chars().chain([with]).chain(tail.chars().skip(1)).collect();
                    let _ = parse_retry_after(&mutated, REF_MS);
                    let _ = parse_retry_after_ms_header(&mutated);
                    let _ = parse_grpc_pushback(&mutated);
                    let _ = parse_retry_after(head, u64::MAX);
                }
            }
        }
    }

    #[test]
    fn pushback_serde_shape() {
        let json = serde_json::to_string(&Pushback::RetryAfterMs(250));
        assert_eq!(json.ok().as_deref(), Some(r#"{"retry_after_ms":250}"#));
        let json = serde_json::to_string(&Pushback::DoNotRetry);
        assert_eq!(json.ok().as_deref(), Some(r#""do_not_retry""#));
        let back: Result<Pushback, _> = serde_json::from_str(r#"{"retry_after_ms":7}"#);
        assert_eq!(back.ok(), Some(Pushback::RetryAfterMs(7)));
    }
}
