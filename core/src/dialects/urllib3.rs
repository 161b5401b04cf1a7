//! urllib3's `Retry` (2.x, `urllib3/util/retry.py`) as a policy: the
//! attributes of a `Retry` ([`Urllib3Retry`], as urllib3 names them), and the
//! policy that retries the same answers, the same number of times, with the
//! same waits ([`policy_from_urllib3`]). What no policy expresses is refused,
//! naming the attribute; nothing is dropped silently.
//!
//! The mapping, rule by rule, and every deliberate deviation are on the
//! compatibility page ([`crate::compatibility::http_clients`], "urllib3
//! `Retry`"). In short:
//!
//! - `total` retries: `max_attempts = total + 1` (`True` is 1, as Python
//!   counts it); `None`: 128 attempts (the most a policy makes), the kind
//!   counters decide; `False`, `0` or a negative count: one attempt (urllib3
//!   is exhausted at the first increment).
//! - `connect`, `read`, `status`, `other`: `retry_limits` (`False` or a
//!   negative count: 0); more than 127 retries of any counter is refused. A
//!   negative count of any counter (`redirect` too) is one attempt: urllib3's
//!   `is_exhausted` reads them all at the first increment.
//! - `redirect`: a positive count is refused (the HTTP client follows
//!   redirects, a policy does not retry them).
//! - `allowed_methods`: `retry_methods`; `None`, `False` or empty: every
//!   one of GET HEAD POST PUT DELETE CONNECT OPTIONS TRACE PATCH QUERY (any
//!   other method is repeated only when the request never left); an entry
//!   that is not one of them as written (upper case) is refused.
//! - `status_forcelist`: `retry_on.http_statuses` (2xx and 400-599; a whole
//!   float such as `503.0` is that status); with `respect_retry_after_header`
//!   and a truthy `total`, the statuses of `RETRY_AFTER_STATUS_CODES` (413,
//!   429 and 503, unless a subclass replaces them) are
//!   retried when they carry Retry-After (`requires_guidance` rules, unless
//!   forced).
//! - `backoff_factor`, `backoff_max`, `backoff_jitter`: urllib3's
//!   `min(backoff_max, factor * 2^(n-1) + random() * backoff_jitter)`, 0
//!   before the first retry: exponential backoff with
//!   `immediate_first_retry` and `additive` jitter, in whole milliseconds.
//! - Retry-After: the only guidance header read (`server_guidance.headers:
//!   retry_after`: urllib3 reads no `retry-after-ms`, `RateLimit` or
//!   `X-RateLimit-Reset`), read leniently (as `email.utils` reads it),
//!   replacing the backoff, clamped at `retry_after_max` (`inf`: no cap).
//!
//! ```
//! use retryplan::dialects::urllib3::{policy_from_urllib3, Urllib3Retry};
//! use retryplan::Policy;
//! let retry = Urllib3Retry { backoff_factor: 0.2, status_forcelist: vec![500.0], ..Urllib3Retry::default() };
//! let config = policy_from_urllib3(&retry, None).unwrap();
//! assert_eq!((config.max_attempts, config.backoff.base_ms), (11, 200));
//! assert!(Policy::new(&config).is_ok());
//! ```

use alloc::borrow::ToOwned;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::error::{ConfigKind, Error, Violation};
use crate::config::value::{expected, list, Fields, Number, Value};
use crate::ground::codes::TransportFailure;
use crate::ground::message::{message, Arg, Message, Rule};
use crate::ground::text::excerpt;
use crate::ground::units::float;
use crate::headers::retry_after::RetryAfterReading;
use crate::policy::{
    AboveCap, AttemptTimeoutConfig, BackoffConfig, BackoffKind, GuidanceHeaders, GuidanceMode, Idempotency,
    JitterConfig, PolicyConfig, RetryLimitsConfig, RetryOnConfig, ServerGuidanceConfig, StatusGuidanceConfig,
    StatusSetConfig, MAX_ATTEMPTS_LIMIT, MAX_MS, RETRY_METHODS,
};

/// The total timeout of a mapped policy when the caller gives none: 24 hours.
/// urllib3 has no overall deadline (urllib3#1338): pass the deadline of your call.
pub const DEFAULT_TOTAL_TIMEOUT_MS: u64 = 86_400_000;

/// urllib3's `Retry.DEFAULT_ALLOWED_METHODS`, the idempotent methods.
pub const DEFAULT_ALLOWED_METHODS: [&str; 6] = ["HEAD", "GET", "PUT", "DELETE", "OPTIONS", "TRACE"];

/// urllib3's `Retry.RETRY_AFTER_STATUS_CODES` (a class attribute a subclass
/// may replace): retried when they carry Retry-After.
pub const RETRY_AFTER_STATUS_CODES: [u16; 3] = [413, 429, 503];

/// urllib3's `Retry.DEFAULT_BACKOFF_MAX`, in seconds.
pub const DEFAULT_BACKOFF_MAX: f64 = 120.0;

/// urllib3's `Retry.DEFAULT_RETRY_AFTER_MAX`, in seconds (6 hours).
pub const DEFAULT_RETRY_AFTER_MAX: f64 = 21_600.0;

/// The attributes of a `Retry` the mapping reads, in urllib3's order (the
/// fields of [`Urllib3Retry::from_value`]).
pub const ATTRIBUTES: [&str; 14] = [
    "total",
    "connect",
    "read",
    "redirect",
    "status",
    "other",
    "allowed_methods",
    "status_forcelist",
    "backoff_factor",
    "backoff_max",
    "backoff_jitter",
    "respect_retry_after_header",
    "retry_after_max",
    "RETRY_AFTER_STATUS_CODES",
];

/// A retry counter as a `Retry` holds it (`total`, `connect`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryCount {
    /// `None`: no limit of its own.
    Unlimited,
    /// `False`: no retry (urllib3 re-raises at once).
    Disabled,
    /// A count of retries.
    Retries(u64),
    /// A negative count: urllib3 is exhausted at the first increment.
    Negative(i64),
}

/// The attributes of a urllib3 `Retry`, as urllib3 names them; numbers of
/// seconds as floats, so that `inf` and NaN reach the mapping's rules.
/// [`Default`] is `Retry()`.
#[derive(Clone, Debug, PartialEq)]
pub struct Urllib3Retry {
    /// `total`: retries in all (default 10).
    pub total: RetryCount,
    /// `connect`: retries after a connection error (the request never left).
    pub connect: RetryCount,
    /// `read`: retries after a read error (the request was sent).
    pub read: RetryCount,
    /// `redirect`: redirects to follow.
    pub redirect: RetryCount,
    /// `status`: retries after a status in `status_forcelist`.
    pub status: RetryCount,
    /// `other`: retries after any other error.
    pub other: RetryCount,
    /// `allowed_methods`: the methods retried; `None` (urllib3's `None` or
    /// `False`) or empty: every method the engine knows.
    pub allowed_methods: Option<Vec<String>>,
    /// `status_forcelist`: the statuses always retried (numbers, as Python
    /// compares them: `503.0` is 503).
    pub status_forcelist: Vec<f64>,
    /// `backoff_factor`, in seconds (default 0).
    pub backoff_factor: f64,
    /// `backoff_max`, in seconds (default 120).
    pub backoff_max: f64,
    /// `backoff_jitter`, in seconds (default 0).
    pub backoff_jitter: f64,
    /// `respect_retry_after_header` (default true).
    pub respect_retry_after_header: bool,
    /// `retry_after_max`, in seconds (default 6 hours).
    pub retry_after_max: f64,
    /// `RETRY_AFTER_STATUS_CODES`, the class's: the statuses retried when
    /// they carry Retry-After (default 413, 429, 503), as numbers like
    /// `status_forcelist`. (An instance's own set would apply to its first
    /// response only: `Retry.new()` makes the next `Retry` of the class.)
    pub retry_after_status_codes: Vec<f64>,
}

impl Default for Urllib3Retry {
    fn default() -> Self {
        Urllib3Retry {
            total: RetryCount::Retries(10),
            connect: RetryCount::Unlimited,
            read: RetryCount::Unlimited,
            redirect: RetryCount::Unlimited,
            status: RetryCount::Unlimited,
            other: RetryCount::Unlimited,
            allowed_methods: Some(DEFAULT_ALLOWED_METHODS.iter().map(|&method| method.to_owned()).collect()),
            status_forcelist: Vec::new(),
            backoff_factor: 0.0,
            backoff_max: DEFAULT_BACKOFF_MAX,
            backoff_jitter: 0.0,
            respect_retry_after_header: true,
            retry_after_max: DEFAULT_RETRY_AFTER_MAX,
            retry_after_status_codes: RETRY_AFTER_STATUS_CODES.iter().map(|&status| f64::from(status)).collect(),
        }
    }
}

impl Urllib3Retry {
    /// Reads the attributes from an object keyed by their names
    /// ([`ATTRIBUTES`]); an absent attribute has urllib3's default (an older
    /// urllib3 has no `backoff_jitter` or `retry_after_max`). A counter is a
    /// whole number, `null` or a boolean (`true` is 1, as Python counts it); `allowed_methods` a list of names,
    /// `null` or `false`; `status_forcelist` a list of numbers, `null` or
    /// `false`; seconds are numbers; `respect_retry_after_header` a boolean.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a urllib3 `Retry` and the attribute
    /// (`status_forcelist[0]`) for a value of the wrong type or an unknown
    /// attribute.
    pub fn from_value(value: &Value) -> Result<Urllib3Retry, Error> {
        ConfigKind::Urllib3Retry.reading(Urllib3Retry::read(value))
    }

    fn read(value: &Value) -> Result<Urllib3Retry, Error> {
        let fields = Fields::new(value, "", &ATTRIBUTES)?;
        let defaults = Urllib3Retry::default();
        Ok(Urllib3Retry {
            total: fields.with("total", defaults.total, count)?,
            connect: fields.with("connect", defaults.connect, count)?,
            read: fields.with("read", defaults.read, count)?,
            redirect: fields.with("redirect", defaults.redirect, count)?,
            status: fields.with("status", defaults.status, count)?,
            other: fields.with("other", defaults.other, count)?,
            allowed_methods: fields.with("allowed_methods", defaults.allowed_methods, methods)?,
            status_forcelist: fields.with("status_forcelist", defaults.status_forcelist, statuses)?,
            backoff_factor: fields.with("backoff_factor", defaults.backoff_factor, seconds)?,
            backoff_max: fields.with("backoff_max", defaults.backoff_max, seconds)?,
            backoff_jitter: fields.with("backoff_jitter", defaults.backoff_jitter, seconds)?,
            respect_retry_after_header: fields.or("respect_retry_after_header", defaults.respect_retry_after_header)?,
            retry_after_max: fields.with("retry_after_max", defaults.retry_after_max, seconds)?,
            retry_after_status_codes: fields.with(
                "RETRY_AFTER_STATUS_CODES",
                defaults.retry_after_status_codes,
                status_collection,
            )?,
        })
    }
}

fn count(value: &Value, path: &str) -> Result<RetryCount, Error> {
    match value {
        Value::Null => Ok(RetryCount::Unlimited),
        Value::Bool(false) => Ok(RetryCount::Disabled),
        // Python's `True` is the int 1 to every use urllib3 makes of a
        // counter (`True - 1 == 0`); only `is False` tells the bools apart.
        // `Retry.from_int(True)`, what `retries=True` makes, is `Retry(total=True)`.
        Value::Bool(true) => Ok(RetryCount::Retries(1)),
        Value::Number(Number::Unsigned(retries)) => Ok(RetryCount::Retries(*retries)),
        Value::Number(Number::Negative(retries)) => Ok(RetryCount::Negative(*retries)),
        other => Err(expected(path, Rule::Urllib3Count, other)),
    }
}

fn seconds(value: &Value, path: &str) -> Result<f64, Error> {
    match value {
        Value::Number(number) => Ok(number.as_f64()),
        other => Err(expected(path, Rule::Seconds, other)),
    }
}

fn methods(value: &Value, path: &str) -> Result<Option<Vec<String>>, Error> {
    match value {
        Value::Null | Value::Bool(false) => Ok(None),
        Value::List(_) => list(value, path, Rule::Urllib3Methods, |method, path| match method {
            Value::String(method) => Ok(method.clone()),
            other => Err(expected(path, Rule::MethodName, other)),
        })
        .map(Some),
        other => Err(expected(path, Rule::Urllib3Methods, other)),
    }
}

fn statuses(value: &Value, path: &str) -> Result<Vec<f64>, Error> {
    match value {
        Value::Null | Value::Bool(false) => Ok(Vec::new()),
        Value::List(_) => list(value, path, Rule::Urllib3Statuses, |status, path| match status {
            Value::Number(number) => Ok(number.as_f64()),
            other => Err(expected(path, Rule::FiniteNumber, other)),
        }),
        other => Err(expected(path, Rule::Urllib3Statuses, other)),
    }
}

/// A collection of statuses that must be one: `RETRY_AFTER_STATUS_CODES`, which urllib3 tests with `in` (`None`
/// would raise there).
fn status_collection(value: &Value, path: &str) -> Result<Vec<f64>, Error> {
    match value {
        Value::List(_) => statuses(value, path),
        other => Err(expected(path, Rule::Urllib3StatusSet, other)),
    }
}

/// The attributes of a `Retry` whose values are numbers of seconds: in JSON
/// text, which holds no infinity or NaN, each may also be the string `inf`,
/// `-inf` or `nan` ([`policy_from_urllib3_json`]).
pub const SECONDS_ATTRIBUTES: [&str; 4] = ["backoff_factor", "backoff_max", "backoff_jitter", "retry_after_max"];

/// [`policy_from_urllib3`] from a `Retry`'s attributes as JSON text (an
/// object keyed by urllib3's names, as [`Urllib3Retry::from_value`] reads
/// them): for hosts that hold the attributes as configuration rather than as
/// a Python object. JSON holds no infinity or NaN, so a number of seconds
/// ([`SECONDS_ATTRIBUTES`]) may be the string `inf`, `-inf` or `nan`.
///
/// ```
/// use retryplan::dialects::urllib3::policy_from_urllib3_json;
/// let config = policy_from_urllib3_json(r#"{"total": 3, "backoff_max": "inf"}"#, Some(5_000)).unwrap();
/// assert_eq!((config.max_attempts, config.total_timeout_ms), (4, 5_000));
/// ```
///
/// # Errors
/// [`Error::InvalidConfig`] naming a urllib3 `Retry` for text that is not
/// JSON or a value of the wrong type, and the errors of
/// [`policy_from_urllib3`].
#[cfg(feature = "json")]
pub fn policy_from_urllib3_json(json: &str, total_timeout_ms: Option<u64>) -> Result<PolicyConfig, Error> {
    let attributes = ConfigKind::Urllib3Retry.reading(Value::from_json(json))?;
    policy_from_urllib3_attributes(attributes, total_timeout_ms)
}

/// [`policy_from_urllib3_json`] from the JSON text already read as a data
/// tree (by a host that parses JSON itself, as the JS binding does).
///
/// # Errors
/// As [`policy_from_urllib3_json`], but for the syntax.
pub fn policy_from_urllib3_attributes(attributes: Value, total_timeout_ms: Option<u64>) -> Result<PolicyConfig, Error> {
    let attributes = match attributes {
        Value::Object(fields) => {
            Value::Object(fields.into_iter().map(|(name, value)| spelt_seconds(name, value)).collect())
        }
        other => other,
    };
    policy_from_urllib3(&Urllib3Retry::from_value(&attributes)?, total_timeout_ms)
}

/// A seconds attribute spelt `inf`, `-inf` or `nan` in JSON text, as that float.
fn spelt_seconds(name: String, value: Value) -> (String, Value) {
    let spelt = match &value {
        Value::String(text) if SECONDS_ATTRIBUTES.contains(&name.as_str()) => match text.as_str() {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        },
        _ => None,
    };
    (name, spelt.map_or(value, Value::float))
}

/// The policy that retries as `retry` does, with `total_timeout_ms` as the
/// deadline of the whole call ([`DEFAULT_TOTAL_TIMEOUT_MS`] when `None`:
/// urllib3 has none). Each attempt may run for what remains of it (the HTTP
/// client's connect and read timeouts bound it, as in urllib3), with no
/// response reserve and no minimum useful attempt (urllib3 has neither).
/// Validate it with [`Policy::new`](crate::Policy::new), which refuses a
/// `total_timeout_ms` out of its range.
///
/// # Errors
/// [`Error::ConfigViolations`] naming a urllib3 `Retry`, one violation per
/// rule broken, each at the attribute (`status_forcelist`) a policy cannot
/// express (see the module docs).
pub fn policy_from_urllib3(retry: &Urllib3Retry, total_timeout_ms: Option<u64>) -> Result<PolicyConfig, Error> {
    let mut check = Check::default();
    let max_attempts = match retry.total {
        RetryCount::Unlimited => MAX_ATTEMPTS_LIMIT,
        total => check.retries("total", total).unwrap_or(Some(0)).unwrap_or(0).saturating_add(1),
    };
    // `Retry.is_exhausted` reads every counter, `redirect` included: one
    // below 0 exhausts the Retry at its first `increment`, whatever was counted.
    let counters = [retry.total, retry.connect, retry.read, retry.redirect, retry.status, retry.other];
    let max_attempts =
        if counters.iter().any(|count| matches!(count, RetryCount::Negative(_))) { 1 } else { max_attempts };
    let retry_limits = RetryLimitsConfig {
        connect: check.retries("connect", retry.connect).flatten(),
        read: check.retries("read", retry.read).flatten(),
        status: check.retries("status", retry.status).flatten(),
        other: check.retries("other", retry.other).flatten(),
    };
    if let RetryCount::Retries(redirects @ 1..) = retry.redirect {
        check.refuse("redirect", message!(Urllib3Redirect, redirects));
    }
    let retry_methods = check.methods(retry.allowed_methods.as_deref());
    let forced = check.statuses("status_forcelist", &retry.status_forcelist);
    let retry_after_statuses = check.statuses("RETRY_AFTER_STATUS_CODES", &retry.retry_after_status_codes);
    let (backoff, jitter) = check.backoff(retry);
    let cap_ms = check.cap_ms("retry_after_max", retry.retry_after_max);
    if !check.violations.is_empty() {
        return Err(Error::ConfigViolations { config: ConfigKind::Urllib3Retry, violations: check.violations });
    }
    // `Retry.is_retry`: the Retry-After statuses need a truthy `total`, the
    // header and `respect_retry_after_header`.
    let total_truthy = matches!(retry.total, RetryCount::Retries(1..) | RetryCount::Negative(_));
    let mut http_statuses = forced.clone();
    let mut rules = Vec::new();
    if retry.respect_retry_after_header && total_truthy {
        for status in retry_after_statuses {
            if http_statuses.insert(status) {
                rules.push(StatusGuidanceConfig {
                    status,
                    honor: None,
                    requires_guidance: true,
                    cap_ms: None,
                    above_cap: None,
                });
            }
        }
    }
    Ok(PolicyConfig {
        max_attempts,
        total_timeout_ms: total_timeout_ms.unwrap_or(DEFAULT_TOTAL_TIMEOUT_MS),
        attempt_timeout: AttemptTimeoutConfig::FractionOfRemaining(1.0),
        response_reserve_ms: 0,
        minimum_useful_attempt_ms: 0,
        backoff,
        jitter,
        retry_on: RetryOnConfig {
            http_statuses: http_statuses.into_iter().collect(),
            transport: TransportFailure::ALL.to_vec(),
            ..RetryOnConfig::none()
        },
        ambiguous: StatusSetConfig::default(),
        conflict: StatusSetConfig::default(),
        server_guidance: ServerGuidanceConfig {
            honor: retry.respect_retry_after_header,
            cap_ms: cap_ms.unwrap_or(MAX_MS),
            above_cap: AboveCap::Clamp,
            retry_after_reading: RetryAfterReading::Lenient,
            statuses: rules,
            mode: GuidanceMode::Replace,
            max_above_backoff_ms: None,
            headers: GuidanceHeaders::RetryAfter,
        },
        retry_limits,
        retry_methods: Some(retry_methods),
        idempotency: Idempotency::Idempotent,
        hedging: None,
        redelivery: None,
        propagation: crate::policy::PropagationConfig::default(),
    })
}

/// The violations found so far; each check returns `None` for a value it refused.
#[derive(Default)]
struct Check {
    violations: Vec<Violation>,
}

impl Check {
    fn refuse(&mut self, field: &str, message: Message) {
        self.violations.push(Violation::new(field, message));
    }

    /// A counter as a retry limit: `Some(None)` for no limit, `Some(Some(n))`
    /// for `n` retries (`False` and negative counts: 0).
    fn retries(&mut self, field: &'static str, count: RetryCount) -> Option<Option<u32>> {
        match count {
            RetryCount::Unlimited => Some(None),
            RetryCount::Disabled | RetryCount::Negative(_) => Some(Some(0)),
            RetryCount::Retries(retries) => match u32::try_from(retries) {
                Ok(retries) if retries < MAX_ATTEMPTS_LIMIT => Some(Some(retries)),
                _ => {
                    self.refuse(field, message!(LimitTooHigh, field, retries, MAX_ATTEMPTS_LIMIT));
                    None
                }
            },
        }
    }

    /// `allowed_methods` as `retry_methods`, in [`RETRY_METHODS`] order: none or empty is every method.
    fn methods(&mut self, allowed: Option<&[String]>) -> Vec<String> {
        let allowed = allowed.unwrap_or_default();
        if allowed.is_empty() {
            return RETRY_METHODS.iter().map(|&method| method.to_owned()).collect();
        }
        let unknown: BTreeSet<&str> =
            allowed.iter().map(String::as_str).filter(|method| !RETRY_METHODS.contains(method)).collect();
        if !unknown.is_empty() {
            let names = Arg::Names(unknown.iter().map(|method| excerpt(method).into()).collect());
            self.refuse("allowed_methods", message!(Urllib3UnknownMethods, names, Arg::static_names(&RETRY_METHODS)));
        }
        RETRY_METHODS
            .iter()
            .filter(|method| allowed.iter().any(|given| given == *method))
            .map(|&m| m.to_owned())
            .collect()
    }

    /// `status_forcelist` or `RETRY_AFTER_STATUS_CODES` (`field`) as statuses: whole numbers in 200..=299 or
    /// 400..=599.
    fn statuses(&mut self, field: &'static str, given: &[f64]) -> BTreeSet<u16> {
        let mut statuses = BTreeSet::new();
        for &status in given {
            let whole = status.is_finite() && float::fract(status) == 0.0;
            if whole && ((200.0..=299.0).contains(&status) || (400.0..=599.0).contains(&status)) {
                // Whole and within 200..=599: the cast is exact.
                statuses.insert(status as u16);
            } else {
                self.refuse(field, message!(Urllib3StatusRange, field, status));
            }
        }
        statuses
    }

    /// A number of seconds: NaN and negative numbers refused.
    fn seconds(&mut self, field: &'static str, seconds: f64) -> Option<f64> {
        if seconds.is_nan() {
            self.refuse(field, message!(SecondsNan, field));
            None
        } else if seconds < 0.0 {
            self.refuse(field, message!(Negative, field));
            None
        } else {
            Some(seconds)
        }
    }

    /// Seconds as whole milliseconds, refusing what rounding would change and
    /// what 2^53 - 1 ms cannot hold.
    fn ms(&mut self, field: &'static str, seconds: f64) -> Option<u64> {
        let seconds = self.seconds(field, seconds)?;
        let ms = seconds * 1000.0;
        let rounded = float::round(ms);
        // Not NaN (refused above); infinity is above the largest too.
        if rounded > MAX_MS as f64 || (rounded - ms).abs() > 1e-6 {
            self.refuse(field, message!(SecondsNotMs, field, seconds));
            None
        } else {
            // Whole and within 0..=2^53 - 1: the cast is exact.
            Some(rounded as u64)
        }
    }

    /// A cap in whole milliseconds: infinity, or beyond 2^53 - 1 ms, is no cap.
    fn cap_ms(&mut self, field: &'static str, seconds: f64) -> Option<u64> {
        match self.seconds(field, seconds)? {
            seconds if seconds * 1000.0 > MAX_MS as f64 => Some(MAX_MS),
            seconds => self.ms(field, seconds),
        }
    }

    /// urllib3's `min(backoff_max, factor * 2^(n-1) + random() * backoff_jitter)`,
    /// 0 before the first retry.
    fn backoff(&mut self, retry: &Urllib3Retry) -> (BackoffConfig, JitterConfig) {
        let factor = self.seconds("backoff_factor", retry.backoff_factor);
        let cap_ms = self.cap_ms("backoff_max", retry.backoff_max);
        let jitter_ms = self.ms("backoff_jitter", retry.backoff_jitter);
        let jitter = match jitter_ms {
            Some(max_ms @ 1..) => JitterConfig::Additive { max_ms },
            _ => JitterConfig::None,
        };
        let backoff = |kind, base_ms, multiplier, cap_ms| BackoffConfig {
            kind,
            base_ms,
            multiplier,
            cap_ms,
            immediate_first_retry: true,
            ..BackoffConfig::default()
        };
        let (Some(factor), Some(cap_ms)) = (factor, cap_ms) else {
            return (BackoffConfig::default(), jitter);
        };
        if factor * 1000.0 >= cap_ms as f64 {
            if cap_ms == MAX_MS {
                self.refuse("backoff_factor", message!(Urllib3BackoffNoCap, factor));
            }
            // Every wait after the first reaches the cap: min(cap, f * 2^k + jitter) = cap.
            return (backoff(BackoffKind::Constant, cap_ms, 1.0, cap_ms), JitterConfig::None);
        }
        match self.ms("backoff_factor", factor) {
            Some(0) => (backoff(BackoffKind::Constant, 0, 1.0, cap_ms), jitter),
            Some(factor_ms) => (backoff(BackoffKind::Exponential, factor_ms, 2.0, cap_ms), jitter),
            None => (BackoffConfig::default(), jitter),
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::vec;

    use super::*;
    use crate::Policy;

    fn refused(retry: &Urllib3Retry) -> Vec<(String, String)> {
        match policy_from_urllib3(retry, None) {
            Err(Error::ConfigViolations { config: ConfigKind::Urllib3Retry, violations }) => {
                violations.into_iter().map(|violation| (violation.field, violation.message.to_string())).collect()
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn the_default_retry_maps_to_a_valid_policy() {
        let config = policy_from_urllib3(&Urllib3Retry::default(), None).unwrap();
        assert_eq!(config.max_attempts, 11);
        assert_eq!(config.retry_on.http_statuses, [413, 429, 503]);
        assert_eq!(config.total_timeout_ms, DEFAULT_TOTAL_TIMEOUT_MS);
        assert_eq!(config.retry_methods.as_deref().unwrap(), ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]);
        assert!(Policy::new(&config).is_ok());
    }

    #[test]
    fn every_refusal_is_listed_naming_its_attribute() {
        let retry = Urllib3Retry {
            total: RetryCount::Retries(u64::MAX),
            redirect: RetryCount::Retries(5),
            allowed_methods: Some(vec!["get".to_owned(), "GET".to_owned()]),
            status_forcelist: vec![304.0, 503.5, f64::NAN],
            backoff_factor: -1.0,
            backoff_jitter: f64::INFINITY,
            retry_after_max: f64::NAN,
            ..Urllib3Retry::default()
        };
        let fields: Vec<String> = refused(&retry).into_iter().map(|(field, _)| field).collect();
        assert_eq!(
            fields,
            [
                "total",
                "redirect",
                "allowed_methods",
                "status_forcelist",
                "status_forcelist",
                "status_forcelist",
                "backoff_factor",
                "backoff_jitter",
                "retry_after_max"
            ]
        );
    }

    #[test]
    fn a_negative_count_of_any_counter_is_one_attempt() {
        let counters: [fn(&mut Urllib3Retry) -> &mut RetryCount; 6] = [
            |retry| &mut retry.total,
            |retry| &mut retry.connect,
            |retry| &mut retry.read,
            |retry| &mut retry.redirect,
            |retry| &mut retry.status,
            |retry| &mut retry.other,
        ];
        for counter in counters {
            let mut retry = Urllib3Retry { status_forcelist: vec![500.0], ..Urllib3Retry::default() };
            *counter(&mut retry) = RetryCount::Negative(-1);
            let config = policy_from_urllib3(&retry, None).unwrap();
            assert_eq!(config.max_attempts, 1, "{retry:?}");
            assert!(Policy::new(&config).is_ok());
        }
    }

    #[test]
    fn a_huge_factor_is_the_cap_unless_there_is_none() {
        let retry = Urllib3Retry { backoff_factor: 1e300, ..Urllib3Retry::default() };
        let config = policy_from_urllib3(&retry, None).unwrap();
        assert_eq!(
            (config.backoff.kind, config.backoff.base_ms, config.backoff.cap_ms),
            (BackoffKind::Constant, 120_000, 120_000)
        );
        let no_cap = Urllib3Retry { backoff_max: f64::INFINITY, ..retry };
        assert_eq!(refused(&no_cap)[0].0, "backoff_factor");
    }

    #[test]
    fn wrong_types_are_reading_errors_at_the_attribute() {
        let value = Value::Object(vec![("status_forcelist".to_owned(), Value::List(vec![Value::string("503")]))]);
        match Urllib3Retry::from_value(&value) {
            Err(Error::InvalidConfig { config: ConfigKind::Urllib3Retry, field, .. }) => {
                assert_eq!(&*field, "status_forcelist[0]");
            }
            other => panic!("expected a reading error, got {other:?}"),
        }
    }
}
