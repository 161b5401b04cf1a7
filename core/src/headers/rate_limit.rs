//! Rate-limit headers read as server guidance: how long the server asks the
//! client to wait before its quota returns.
//!
//! * `RateLimit` and `RateLimit-Policy` (IETF httpapi draft
//!   `draft-ietf-httpapi-ratelimit-headers`, revision 10): Structured Field
//!   Lists of service limits `"name";r=<remaining>;t=<seconds>` and policies
//!   `"name";q=<quota>;w=<window seconds>`. See [`parse_rate_limit`].
//! * `RateLimit-Reset` (earlier revisions of that draft) and the widespread
//!   `X-RateLimit-Reset`: a number that is either delta-seconds or a Unix
//!   time. See [`parse_rate_limit_reset`].
//!
//! Which of them wins against `Retry-After` is decided where every guidance
//! header is read together (see [`crate::outcomes::http`]).

use alloc::string::String;
use alloc::vec::Vec;

use crate::headers::retry_after::{ms_until, parse_digits_saturating, seconds_to_ms, trim_ows, HeaderError};
use crate::headers::structured_field::{parse_list, BareItem, Member};

/// Header name used in errors produced by [`parse_rate_limit`].
const RATE_LIMIT: &str = "ratelimit";
/// Header name used in errors produced by [`parse_rate_limit_reset`].
const RATE_LIMIT_RESET: &str = "ratelimit-reset";

/// The smallest reset value read as a Unix time, in seconds: 2001-09-09
/// 01:46:40 UTC. Below it a value is delta-seconds (a wait of more than 31
/// years is not a real one); from it on, a Unix time (ky reads reset headers
/// with the same threshold).
pub const UNIX_TIME_THRESHOLD_SECONDS: u64 = 1_000_000_000;

/// A non-negative Integer parameter of a member, or why the field is malformed.
fn non_negative(member: &Member, key: &str) -> Result<Option<u64>, ()> {
    match member.parameter(key) {
        None => Ok(None),
        Some(BareItem::Integer(value)) => u64::try_from(*value).map(Some).map_err(|_| ()),
        Some(_) => Err(()),
    }
}

/// The name of a `RateLimit-Policy` member, which the draft requires to be a String (§3).
fn policy_name(member: &Member) -> Result<&str, ()> {
    match &member.item {
        Some(BareItem::String(name)) => Ok(name),
        _ => Err(()),
    }
}

/// The policy a `RateLimit` member names: the draft says only that its item "identifies the quota policy" (§4.1),
/// so a Token names it as a String does (`default` is the policy `"default"`); any other item names none.
fn limit_name(member: &Member) -> Result<&str, ()> {
    match &member.item {
        Some(BareItem::String(name) | BareItem::Token(name)) => Ok(name),
        _ => Err(()),
    }
}

/// The windows (`w`, seconds) of a well-formed `RateLimit-Policy` field, by
/// policy name. A malformed field gives none: the draft makes it informative
/// and says malformed fields MUST be ignored.
fn policy_windows(rate_limit_policy: &str) -> Vec<(String, u64)> {
    let read = || -> Result<Vec<(String, u64)>, ()> {
        let members = parse_list(trim_ows(rate_limit_policy)).map_err(|_| ())?;
        let mut windows = Vec::new();
        for member in &members {
            let name = policy_name(member)?;
            non_negative(member, "q")?.ok_or(())?;
            match non_negative(member, "w")? {
                Some(0) => return Err(()),
                Some(window) => windows.push((String::from(name), window)),
                None => {}
            }
            if !matches!(member.parameter("qu"), None | Some(BareItem::String(_)))
                || !matches!(member.parameter("pk"), None | Some(BareItem::ByteSequence))
            {
                return Err(());
            }
        }
        Ok(windows)
    };
    read().unwrap_or_default()
}

/// Reads a `RateLimit` field (all its field lines joined with `", "`) with
/// the optional `RateLimit-Policy` field, and returns the wait it asks for in
/// milliseconds, or `None` when it asks for none.
///
/// Each service limit `"name";r=<remaining>;t=<seconds>` with `r=0` is an
/// exhausted quota that returns after `t` seconds (its effective window; a
/// limit without `t` takes the window `w` of the same-named
/// `RateLimit-Policy` item, when there is one). The wait is the longest of
/// them: only then are all exhausted quotas back. Limits with quota left ask
/// for no wait. The result saturates at [`MAX_MS`](crate::policy::MAX_MS).
///
/// ```
/// use retryplan::headers::rate_limit::parse_rate_limit;
/// assert_eq!(parse_rate_limit(r#""burst";r=0;t=5, "daily";r=10;t=3600"#, None), Ok(Some(5_000)));
/// assert_eq!(parse_rate_limit(r#""default";r=50;t=30"#, None), Ok(None));
/// let policy = Some(r#""hourly";q=100;w=3600"#);
/// assert_eq!(parse_rate_limit(r#""hourly";r=0"#, policy), Ok(Some(3_600_000)));
/// ```
///
/// # Errors
///
/// [`HeaderError::Malformed`] when the field is not a Structured Field List
/// of service limits (a String or Token name, a non-negative Integer `r`, an optional
/// non-negative Integer `t`, an optional Byte Sequence `pk`): the draft says
/// a malformed `RateLimit` MUST be ignored, which callers do. An empty
/// field is [`HeaderError::Empty`].
pub fn parse_rate_limit(rate_limit: &str, rate_limit_policy: Option<&str>) -> Result<Option<u64>, HeaderError> {
    let value = trim_ows(rate_limit);
    if value.is_empty() {
        return Err(HeaderError::Empty { header: RATE_LIMIT });
    }
    let malformed =
        || HeaderError::malformed(RATE_LIMIT, "a list of service limits such as \"default\";r=0;t=30", value);
    let members = parse_list(value).map_err(|_| malformed())?;
    let windows = rate_limit_policy.map(policy_windows).unwrap_or_default();
    let mut wait_seconds: Option<u64> = None;
    for member in &members {
        let name = limit_name(member).map_err(|_| malformed())?;
        let remaining = non_negative(member, "r").map_err(|_| malformed())?.ok_or_else(malformed)?;
        let window = non_negative(member, "t").map_err(|_| malformed())?;
        if !matches!(member.parameter("pk"), None | Some(BareItem::ByteSequence)) {
            return Err(malformed());
        }
        if remaining > 0 {
            continue;
        }
        let returns_after =
            window.or_else(|| windows.iter().find(|(policy, _)| policy == name).map(|(_, seconds)| *seconds));
        if let Some(seconds) = returns_after {
            wait_seconds = Some(wait_seconds.map_or(seconds, |longest| longest.max(seconds)));
        }
    }
    Ok(wait_seconds.map(seconds_to_ms))
}

/// Reads a `RateLimit-Reset` or `X-RateLimit-Reset` value: the wait in
/// milliseconds from `now_unix_ms`.
///
/// The value is one or more ASCII digits (optional whitespace around it is
/// ignored). The same number is sent in two meanings, told apart by size: a
/// value of at least [`UNIX_TIME_THRESHOLD_SECONDS`] (1 000 000 000, in
/// September 2001) is a Unix time in seconds (as GitHub sends), and the wait
/// is until then (`0` once it has passed); a smaller value is delta-seconds
/// (as the draft's `RateLimit-Reset` defines it). The result saturates at
/// [`MAX_MS`](crate::policy::MAX_MS).
///
/// ```
/// use retryplan::headers::rate_limit::parse_rate_limit_reset;
/// assert_eq!(parse_rate_limit_reset("30", 0), Ok(30_000));
/// assert_eq!(parse_rate_limit_reset("1700000060", 1_700_000_000_000), Ok(60_000));
/// assert_eq!(parse_rate_limit_reset("1000000000", 1_700_000_000_000), Ok(0));
/// ```
///
/// # Errors
///
/// [`HeaderError::Empty`] for an empty value, [`HeaderError::Malformed`] for
/// anything but digits (dates, signs, fractions).
pub fn parse_rate_limit_reset(value: &str, now_unix_ms: u64) -> Result<u64, HeaderError> {
    reset_header(RATE_LIMIT_RESET, value, now_unix_ms)
}

/// [`parse_rate_limit_reset`] with the header named in errors.
pub(crate) fn reset_header(header: &'static str, value: &str, now_unix_ms: u64) -> Result<u64, HeaderError> {
    let trimmed = trim_ows(value);
    if trimmed.is_empty() {
        return Err(HeaderError::Empty { header });
    }
    let seconds = parse_digits_saturating(trimmed)
        .ok_or_else(|| HeaderError::malformed(header, "delta-seconds or a Unix time in seconds", trimmed))?;
    Ok(if seconds >= UNIX_TIME_THRESHOLD_SECONDS {
        ms_until(i128::from(seconds), now_unix_ms)
    } else {
        seconds_to_ms(seconds)
    })
}

/// True when a `RateLimit-Remaining` / `X-RateLimit-Remaining` value says
/// quota is left (a number above zero). An absent or unreadable value says
/// nothing, so the reset header is read as a wait.
pub(crate) fn quota_left(remaining: Option<&str>) -> bool {
    remaining.and_then(|value| parse_digits_saturating(trim_ows(value))).is_some_and(|left| left > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limit_waits_for_the_longest_exhausted_quota() {
        assert_eq!(parse_rate_limit(r#""default";r=0;t=50"#, None), Ok(Some(50_000)));
        assert_eq!(parse_rate_limit(r#""a";r=0;t=5, "b";r=0;t=9"#, None), Ok(Some(9_000)));
        assert_eq!(parse_rate_limit(r#""a";r=0;t=5,"b";r=1;t=99"#, None), Ok(Some(5_000)));
        assert_eq!(parse_rate_limit(r#""dayLimit";r=100;t=36000"#, None), Ok(None));
        assert_eq!(parse_rate_limit(r#""default";r=0;t=0"#, None), Ok(Some(0)));
        // No window anywhere: an exhausted quota with no known return.
        assert_eq!(parse_rate_limit(r#""default";r=0"#, None), Ok(None));
        // Partition keys and unknown parameters are allowed.
        let keyed = r#""default";r=0;t=60;pk=:QXBwLTk5OQ==:;acme-burst=5"#;
        assert_eq!(parse_rate_limit(keyed, None), Ok(Some(60_000)));
        assert_eq!(parse_rate_limit(" \t\"d\";r=0;t=1 ", None), Ok(Some(1_000)));
    }

    #[test]
    fn policy_window_fills_a_missing_t() {
        let policy = r#""permin";q=50;w=60,"perhr";q=1000;w=3600"#;
        assert_eq!(parse_rate_limit(r#""perhr";r=0"#, Some(policy)), Ok(Some(3_600_000)));
        assert_eq!(parse_rate_limit(r#""perhr";r=0;t=7"#, Some(policy)), Ok(Some(7_000)));
        assert_eq!(parse_rate_limit(r#""other";r=0"#, Some(policy)), Ok(None));
        // A malformed policy (no q, zero w, token name) is ignored.
        for bad in [r#""perhr";w=3600"#, r#""perhr";q=1;w=0"#, "perhr;q=1;w=3600", "nonsense,,"] {
            assert_eq!(parse_rate_limit(r#""perhr";r=0"#, Some(bad)), Ok(None), "{bad}");
        }
    }

    #[test]
    fn malformed_rate_limit() {
        // A Token identifies the policy as a String does (the draft asks a String of RateLimit-Policy only).
        assert_eq!(parse_rate_limit("default;r=0;t=5", None), Ok(Some(5_000)));
        for bad in [
            "1;r=0;t=5",
            "?1;r=0;t=5",
            r#""default";t=5"#,
            r#""default";r=-1"#,
            r#""default";r=0;t=-5"#,
            r#""default";r=0;t=1.5"#,
            r#""default";r="0""#,
            r#""default";r=0;pk="x""#,
            "limit=10, remaining=0, reset=5",
            r#""a";r=0,"#,
        ] {
            assert!(
                matches!(parse_rate_limit(bad, None), Err(HeaderError::Malformed { header: "ratelimit", .. })),
                "{bad}"
            );
        }
        assert_eq!(parse_rate_limit(" ", None), Err(HeaderError::Empty { header: "ratelimit" }));
    }

    #[test]
    fn reset_values_delta_or_unix_time() {
        // ky's cases, now at 2026-05-23.
        let now = 1_779_494_400_000;
        assert_eq!(parse_rate_limit_reset("1700000000", now), Ok(0));
        assert_eq!(parse_rate_limit_reset("1672531200", now), Ok(0));
        assert_eq!(parse_rate_limit_reset("1000000000", now), Ok(0));
        assert_eq!(parse_rate_limit_reset("999999999", now), Ok(999_999_999_000));
        assert_eq!(parse_rate_limit_reset("30", now), Ok(30_000));
        assert_eq!(parse_rate_limit_reset("1779494460", now), Ok(60_000));
        assert_eq!(parse_rate_limit_reset("99999999999999999999999", now), Ok(crate::policy::MAX_MS));
        for bad in ["-1", "+1", "1.5", "Sun, 06 Nov 1994 08:49:37 GMT", "1, 2"] {
            assert!(parse_rate_limit_reset(bad, now).is_err(), "{bad}");
        }
        assert!(matches!(
            reset_header("x-ratelimit-reset", "", now),
            Err(HeaderError::Empty { header: "x-ratelimit-reset" })
        ));
    }

    #[test]
    fn remaining_says_whether_quota_is_left() {
        assert!(quota_left(Some("4999")));
        assert!(!quota_left(Some("0")));
        assert!(!quota_left(Some("many")));
        assert!(!quota_left(None));
    }
}
