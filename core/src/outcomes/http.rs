//! The HTTP conventions every binding's HTTP helper follows, in one place.
//!
//! - **Which requests may be repeated** (the request's [`Repeatability`]) is
//!   decided here, from the method ([`Policy::http_request`]): RFC 9110
//!   §9.2.2 calls GET, HEAD, OPTIONS, TRACE, PUT and DELETE idempotent, RFC
//!   10008 adds QUERY, and nothing else is. An operation whose
//!   request is not idempotent runs as [`Idempotency::Unsafe`] under a `safe`
//!   or `idempotent` policy (an ambiguous failure answers `reconcile`, never a
//!   repeat), unless the policy is `keyed` (the server deduplicates by the key)
//!   or the caller says, per request, that it may be repeated.
//! - Send the operation's idempotency key in [`IDEMPOTENCY_KEY_HEADER`] when
//!   the operation's idempotency is keyed or unsafe (the server deduplicates
//!   by it, or records it so the outcome can be reconciled); the same key on
//!   every attempt. The driver's start action says so per attempt.
//! - If the caller already set that header, the request is keyed and the
//!   header's value, exactly as written (without the whitespace around it,
//!   which RFC 9110 §5.5 excludes from a field value), is the operation's key
//!   ([`Policy::http_request`], one call for every helper): never replace a
//!   key the caller chose, and never treat a request that carries one as
//!   unkeyed.
//! - Send a fresh request id per attempt in [`REQUEST_ID_HEADER`].
//! - Read server guidance from the response headers named in
//!   [`GUIDANCE_HEADERS`], through [`Outcome::from_http_response`], which
//!   decides which one wins; a status outside 100..=599 is the server's fault
//!   ([`Failure::MalformedResponse`]), never the caller's, and so is an interim
//!   1xx handed in as the answer (RFC 9110 §15.2; 101 is final). A policy whose
//!   `server_guidance.headers` is `retry_after` ([`GuidanceHeaders::RetryAfter`],
//!   as urllib3 reads guidance) reads `Retry-After` alone
//!   ([`Policy::http_outcome`], what every helper calls).
//!
//! ## Which guidance header wins
//!
//! The first header in this order that asks for a wait gives the outcome's
//! `retry_after_ms`; a header that is absent, unreadable (malformed, or a
//! singleton sent as several field lines) or asks for no wait is passed over:
//!
//! 1. `retry-after-ms`, then `x-ms-retry-after-ms`, then `x-amz-retry-after`
//!    ([`AWS_RETRY_AFTER_HEADER`]): milliseconds, the most precise (the AWS
//!    header is a service's own millisecond `Retry-After`, so it sits with the
//!    other millisecond headers, before the standard one it refines);
//! 2. `Retry-After` (RFC 9110 section 10.2.3): the standard, and the
//!    rate-limit draft says it MUST take precedence over `RateLimit`;
//! 3. `RateLimit` (with `RateLimit-Policy`, IETF httpapi draft): the longest
//!    window of an exhausted quota (`r=0`), see
//!    [`parse_rate_limit`];
//! 4. `RateLimit-Reset`, unless `RateLimit-Remaining` says quota is left;
//! 5. `X-RateLimit-Reset`, unless `X-RateLimit-Remaining` says quota is left.
//!
//! On a response that comes from a cache the rate-limit fields (3 to 5) are
//! not read: the draft says they SHOULD be ignored there ("Caching": a
//! positive current_age, RFC 9111 §4.2.3, which the engine reads as an `Age`
//! above 0, having no request and response times to compute the rest), as
//! they may not be current.
//!
//! Reset values are delta-seconds below 1 000 000 000 and Unix times from
//! there on ([`parse_rate_limit_reset`](crate::headers::rate_limit::parse_rate_limit_reset)).
//!
//! A header the server sent as several field lines reaches the engine as one
//! value joined by `", "` (what fetch, requests and OkHttp's `values()` give
//! after joining). For the singleton headers (all but the two List fields)
//! no line wins: RFC 9110 section 5.3 forbids a sender to split them, the
//! joined value is outside their grammar, and a browser cannot tell the lines
//! apart, so "the first line" could not mean the same in every language. The
//! List fields `RateLimit` and `RateLimit-Policy` are read whole, as
//! Structured Fields define (RFC 9651 section 4.2).

use alloc::string::String;

use crate::config::error::Error;
use crate::config::error_code::{error_code_from_response, ErrorCode};
use crate::config::idempotency_key::IdempotencyKey;
#[doc(no_inline)]
pub use crate::config::idempotency_key::IDEMPOTENCY_KEY_HEADER;
use crate::ground::message::message;
use crate::headers::rate_limit::{parse_rate_limit, quota_left, reset_header};
use crate::headers::retry_after::{
    parse_digits_saturating, parse_retry_after_ms_header, parse_retry_after_with, trim_ows, RetryAfterReading,
};
use crate::outcomes::classify::{is_interim, Outcome};
use crate::outcomes::failure::Failure;
use crate::policy::{GuidanceHeaders, Idempotency, Policy};

/// The header carrying each attempt's request id.
pub const REQUEST_ID_HEADER: &str = "X-Request-Id";

/// The millisecond guidance headers, in the order they are consulted.
pub const RETRY_AFTER_MS_HEADERS: [&str; 3] = ["retry-after-ms", "x-ms-retry-after-ms", AWS_RETRY_AFTER_HEADER];

/// Every response header [`Outcome::from_http_response`] may read, lower case,
/// in the order it consults them. A helper hands the engine a lookup over
/// these names (or their values in this order); it never picks one itself.
pub const GUIDANCE_HEADERS: [&str; 12] = [
    "retry-after-ms",
    "x-ms-retry-after-ms",
    AWS_RETRY_AFTER_HEADER,
    "retry-after",
    "age",
    "ratelimit",
    "ratelimit-policy",
    "ratelimit-reset",
    "ratelimit-remaining",
    "x-ratelimit-reset",
    "x-ratelimit-remaining",
    AWS_ERROR_TYPE_HEADER,
];

/// The header in which AWS services suggest a retry delay in milliseconds,
/// honoured by the AWS SDKs' 2026 standard mode within `[t, t + 5 s]` of the
/// computed backoff `t` (see [`crate::dialects::aws`]).
pub const AWS_RETRY_AFTER_HEADER: &str = "x-amz-retry-after";

/// The header in which AWS services with JSON protocols send the error code
/// (read into [`Outcome::HttpStatus`]'s `error_code`; codes in XML bodies are
/// read by [`crate::dialects::aws::error_code_from_response`]).
pub const AWS_ERROR_TYPE_HEADER: &str = "x-amzn-errortype";

impl Outcome {
    /// An HTTP outcome from a response's status and a lookup of its headers
    /// (by the lower-case names in [`GUIDANCE_HEADERS`]), reading
    /// `Retry-After` strictly: [`Outcome::from_http_response_with`] with
    /// [`RetryAfterReading::Strict`].
    ///
    /// ```
    /// use retryplan::Outcome;
    /// use retryplan::ground::codes::TransportFailure;
    /// let headers = [("retry-after", "2"), ("retry-after-ms", "oops")];
    /// let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
    /// assert_eq!(Outcome::from_http_response(503, lookup, 0), Outcome::HttpStatus { status: 503, retry_after_ms: Some(2_000), error_code: None });
    /// assert_eq!(Outcome::from_http_response(999, lookup, 0), Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None });
    /// ```
    #[must_use]
    pub fn from_http_response<'a>(
        status: impl Into<i64>,
        header: impl FnMut(&'static str) -> Option<&'a str>,
        now_unix_ms: u64,
    ) -> Outcome {
        Outcome::from_http_response_with(status, header, now_unix_ms, RetryAfterReading::Strict)
    }

    /// An HTTP outcome from a response's status and a lookup of its headers,
    /// the one reading every helper in every language uses:
    ///
    /// - a status outside 100..=599, or an interim 1xx but 101, is [`Failure::MalformedResponse`] (the
    ///   request may have been processed): the status is whatever integer the
    ///   platform gave (negative, 0, 70000 ...), read here so that every
    ///   language treats it the same;
    /// - the wait is the first guidance header, in the order of the
    ///   [module documentation](self), that asks for one; `Retry-After` is read
    ///   as `reading` says, against the caller's wall clock `now_unix_ms`;
    /// - no readable guidance leaves `retry_after_ms` empty: the status alone
    ///   decides, and the policy's backoff applies.
    ///
    /// ```
    /// use retryplan::Outcome;
    /// use retryplan::headers::retry_after::RetryAfterReading;
    /// let headers = [("ratelimit", "\"default\";r=0;t=30"), ("retry-after", "Mon, 3 Jun 2019 11:00:10 UTC")];
    /// let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
    /// let now = 1_559_559_600_000; // 2019-06-03 11:00:00 UTC
    /// let strict = Outcome::from_http_response_with(429, lookup, now, RetryAfterReading::Strict);
    /// assert_eq!(strict, Outcome::HttpStatus { status: 429, retry_after_ms: Some(30_000), error_code: None });
    /// let lenient = Outcome::from_http_response_with(429, lookup, now, RetryAfterReading::Lenient);
    /// assert_eq!(lenient, Outcome::HttpStatus { status: 429, retry_after_ms: Some(10_000), error_code: None });
    /// ```
    #[must_use]
    pub fn from_http_response_with<'a>(
        status: impl Into<i64>,
        mut header: impl FnMut(&'static str) -> Option<&'a str>,
        now_unix_ms: u64,
        reading: RetryAfterReading,
    ) -> Outcome {
        http_status_outcome(status.into(), &mut header, now_unix_ms, reading, GuidanceHeaders::All)
    }

    /// A response's outcome as the standalone readers every binding exports
    /// read it (Python's `Outcome.from_http_response`, JS's
    /// `Outcome.fromHttpResponse`, Kotlin's `outcomeFromHttpResponse`), so
    /// that an outcome a host builds itself and records in an operation or a
    /// driver is the one the helpers would read:
    ///
    /// - given a `policy`, exactly as [`Policy::http_outcome`] reads: the
    ///   guidance headers its `server_guidance.headers` names, `Retry-After`
    ///   as its `server_guidance.retry_after_reading` says;
    /// - without one, [`Outcome::from_http_response_with`]: every guidance
    ///   header, `Retry-After` as `reading` says (strict when absent).
    ///
    /// ```
    /// use retryplan::{Outcome, Policy};
    /// use retryplan::headers::retry_after::RetryAfterReading;
    /// let urllib3 = Policy::from_json(r#"{"server_guidance": {"headers": "retry_after"}}"#).unwrap();
    /// let headers = [("retry-after-ms", "2500"), ("retry-after", "1")];
    /// let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
    /// let wait = |ms| Ok(Outcome::HttpStatus { status: 503, retry_after_ms: Some(ms), error_code: None });
    /// assert_eq!(Outcome::read_http_response(503, lookup, 0, None, Some(&urllib3)), wait(1_000));
    /// assert_eq!(Outcome::read_http_response(503, lookup, 0, None, None), wait(2_500));
    /// let both = Outcome::read_http_response(503, lookup, 0, Some(RetryAfterReading::Strict), Some(&urllib3));
    /// assert!(matches!(both, Err(retryplan::Error::InvalidArgument { field: "reading", .. })));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `reading` when both `reading` and
    /// `policy` are given: the policy carries its reading, and one of the two
    /// would be ignored.
    pub fn read_http_response<'a>(
        status: impl Into<i64>,
        mut header: impl FnMut(&'static str) -> Option<&'a str>,
        now_unix_ms: u64,
        reading: Option<RetryAfterReading>,
        policy: Option<&Policy>,
    ) -> Result<Outcome, Error> {
        match (reading, policy) {
            (Some(_), Some(_)) => Err(Error::InvalidArgument { field: "reading", rule: message!(ReadingWithPolicy) }),
            (None, Some(policy)) => Ok(policy.http_outcome(status, header, now_unix_ms)),
            (reading, None) => Ok(http_status_outcome(
                status.into(),
                &mut header,
                now_unix_ms,
                reading.unwrap_or(RetryAfterReading::Strict),
                GuidanceHeaders::All,
            )),
        }
    }

    /// An HTTP outcome from the status and the raw server-guidance headers:
    /// [`Outcome::from_http_response`] for a response whose only guidance
    /// headers are `Retry-After` and `retry-after-ms` (either may be absent).
    ///
    /// ```
    /// use retryplan::Outcome;
    /// let outcome = Outcome::from_http(503, Some("2"), Some("oops"), 0);
    /// assert_eq!(outcome, Outcome::HttpStatus { status: 503, retry_after_ms: Some(2_000), error_code: None });
    /// ```
    #[must_use]
    pub fn from_http(
        status: u16,
        retry_after: Option<&str>,
        retry_after_ms: Option<&str>,
        now_unix_ms: u64,
    ) -> Outcome {
        let header = |name: &'static str| match name {
            "retry-after" => retry_after,
            "retry-after-ms" => retry_after_ms,
            _ => None,
        };
        Outcome::from_http_response(status, header, now_unix_ms)
    }

    /// The same outcome with the service's error code (HTTP outcomes only;
    /// any other outcome is returned unchanged).
    ///
    /// ```
    /// use retryplan::{dialects::aws::ErrorCode, Outcome};
    /// let code = ErrorCode::new("SlowDown").unwrap();
    /// let outcome = Outcome::from_http(503, None, None, 0).with_error_code(Some(code));
    /// assert!(matches!(outcome, Outcome::HttpStatus { error_code: Some(_), .. }));
    /// ```
    #[must_use]
    pub fn with_error_code(self, code: Option<ErrorCode>) -> Outcome {
        match self {
            Outcome::HttpStatus { status, retry_after_ms, .. } => {
                Outcome::HttpStatus { status, retry_after_ms, error_code: code }
            }
            other => other,
        }
    }
}

/// The outcome of a response with `status` (malformed outside 100..=599, and an interim 1xx but 101),
/// its guidance read from the headers `headers` names: the one reading of
/// [`Outcome::from_http_response_with`] (every header) and
/// [`Policy::http_outcome`] (the policy's `server_guidance.headers`).
fn http_status_outcome<'a>(
    status: i64,
    header: &mut impl FnMut(&'static str) -> Option<&'a str>,
    now_unix_ms: u64,
    reading: RetryAfterReading,
    headers: GuidanceHeaders,
) -> Outcome {
    let Some(status) = u16::try_from(status).ok().filter(|status| (100..=599).contains(status)) else {
        return Failure::MalformedResponse.outcome();
    };
    if is_interim(status) {
        // RFC 9110 §15.2: a 1xx is interim, the final answer follows it; a client that hands one in as the answer
        // (http.client returns a 103 Early Hints so) left the real answer unread. 101 ends the exchange (an upgrade).
        return Failure::MalformedResponse.outcome();
    }
    let retry_after_ms = guidance_ms(header, now_unix_ms, reading, headers);
    let error_code = header(AWS_ERROR_TYPE_HEADER).and_then(|value| error_code_from_response(Some(value), None));
    Outcome::HttpStatus { status, retry_after_ms, error_code }
}

/// The wait the first guidance header that asks for one gives (see the
/// module documentation for the order), of those `headers` names:
/// [`GuidanceHeaders::RetryAfter`] reads `Retry-After` alone.
fn guidance_ms<'a>(
    header: &mut impl FnMut(&'static str) -> Option<&'a str>,
    now_unix_ms: u64,
    reading: RetryAfterReading,
    headers: GuidanceHeaders,
) -> Option<u64> {
    let every_header = headers == GuidanceHeaders::All;
    if every_header {
        for name in RETRY_AFTER_MS_HEADERS {
            if let Some(ms) = header(name).and_then(|value| parse_retry_after_ms_header(value).ok()) {
                return Some(ms);
            }
        }
    }
    let retry_after = header("retry-after").and_then(|value| parse_retry_after_with(value, now_unix_ms, reading).ok());
    if retry_after.is_some() || !every_header {
        return retry_after;
    }
    // draft-ietf-httpapi-ratelimit-headers-10, "Caching": rate-limit fields on a response that comes from a cache (a
    // positive current_age, RFC 9111 §4.2.3, read here as an `Age` above 0) SHOULD be ignored, as they may not be
    // current; so are the older reset fields.
    let from_cache = header("age").and_then(|age| parse_digits_saturating(trim_ows(age))).is_some_and(|age| age > 0);
    if from_cache {
        return None;
    }
    if let Some(rate_limit) = header("ratelimit") {
        let policy = header("ratelimit-policy");
        if let Ok(Some(ms)) = parse_rate_limit(rate_limit, policy) {
            return Some(ms);
        }
    }
    for (reset, remaining) in
        [("ratelimit-reset", "ratelimit-remaining"), ("x-ratelimit-reset", "x-ratelimit-remaining")]
    {
        let Some(value) = header(reset) else { continue };
        if quota_left(header(remaining)) {
            continue;
        }
        if let Ok(ms) = reset_header(reset, value, now_unix_ms) {
            return Some(ms);
        }
    }
    None
}

impl Policy {
    /// [`Outcome::from_http_response_with`], reading the guidance headers
    /// this policy's `server_guidance.headers` names (all of them by default;
    /// `Retry-After` alone for `retry_after`), and `Retry-After` as its
    /// `server_guidance.retry_after_reading` says: how every HTTP helper
    /// turns a response into an outcome.
    ///
    /// ```
    /// let urllib3 = retryplan::Policy::from_json(r#"{"server_guidance": {"headers": "retry_after"}}"#).unwrap();
    /// let headers = [("retry-after-ms", "2500"), ("retry-after", "1")];
    /// let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
    /// let wait = |outcome| match outcome { retryplan::Outcome::HttpStatus { retry_after_ms, .. } => retry_after_ms, _ => None };
    /// assert_eq!(wait(urllib3.http_outcome(503, lookup, 0)), Some(1_000));
    /// assert_eq!(wait(retryplan::Policy::default().http_outcome(503, lookup, 0)), Some(2_500));
    /// ```
    #[must_use]
    pub fn http_outcome<'a>(
        &self,
        status: impl Into<i64>,
        mut header: impl FnMut(&'static str) -> Option<&'a str>,
        now_unix_ms: u64,
    ) -> Outcome {
        let guidance = self.server_guidance;
        http_status_outcome(status.into(), &mut header, now_unix_ms, guidance.retry_after_reading, guidance.headers)
    }
}

impl Policy {
    /// The repeatability of an HTTP request with `method` under this policy,
    /// before its own key is looked at (step 1 and 3 of [`Policy::http_request`]).
    ///
    /// - The caller's word for this request (`caller_says_idempotent`) comes
    ///   first.
    /// - Without `retry_methods`, RFC 9110 §9.2.2 (and RFC 10008 for QUERY) decides.
    /// - With `retry_methods`, a listed method may be repeated (the policy says
    ///   so, as urllib3's `allowed_methods`), and an unlisted one is
    ///   [`Repeatability::NotRetried`].
    fn method_repeatability(&self, method: &str, caller_says_idempotent: Option<bool>) -> Result<Repeatability, Error> {
        let rfc = Repeatability::by_method(method, caller_says_idempotent)?;
        let Some(methods) = self.retry_methods else { return Ok(rfc) };
        Ok(match caller_says_idempotent {
            Some(_) => rfc,
            None if methods.contains(method) => Repeatability::Idempotent,
            None => Repeatability::NotRetried { idempotent: is_idempotent_method(method)? },
        })
    }

    /// The repeatability of an HTTP request with `method` under this policy,
    /// for a request without its own `Idempotency-Key`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `method` when it is not a method token.
    #[deprecated(note = "use `Policy::http_request`, the one entry point for a host (its `repeatability`)")]
    pub fn repeatability_for_http(
        &self,
        method: &str,
        caller_says_idempotent: Option<bool>,
    ) -> Result<Repeatability, Error> {
        self.method_repeatability(method, caller_says_idempotent)
    }
}

/// What an HTTP helper makes of a request before its first attempt
/// ([`Policy::http_request`]): how it may be repeated, and the key the
/// request itself carries. Hand it to the operation with
/// [`OperationOptions::with_http_request`](crate::OperationOptions::with_http_request).
#[derive(Clone, Debug)]
pub struct HttpRequest {
    /// How the request may be repeated.
    pub repeatability: Repeatability,
    /// The key the caller set in the request's own `Idempotency-Key` header,
    /// exactly as written (without the whitespace around it: see
    /// [`IdempotencyKey::from_request_header`]): the operation's key, sent on
    /// every attempt.
    pub idempotency_key: Option<IdempotencyKey>,
}

impl Policy {
    /// The one rule every HTTP helper applies to a request: its method, the
    /// caller's word for it (`caller_says_idempotent`, per request) and the
    /// value of its own `Idempotency-Key` header, if it has one
    /// (`request_idempotency_key`).
    ///
    /// This is the one entry point for a host: the policy's [`Idempotency`]
    /// says what the operation tolerates; this reads the request's
    /// [`Repeatability`] (what its protocol and the caller allow), which the
    /// engine combines with it ([`Repeatability::effective`]).
    ///
    /// 1. The caller's word for this request (`caller_says_idempotent`) comes
    ///    first: `Some(true)` may be repeated, `Some(false)` may not.
    /// 2. Else a request that carries its own key is [`Repeatability::Keyed`]:
    ///    the server deduplicates by that key (Stripe-style APIs), so the
    ///    header alone is enough, whatever the method or `retry_methods`.
    /// 3. Else the policy's `retry_methods`: a listed method may be repeated
    ///    (as urllib3's `allowed_methods`), an unlisted one is
    ///    [`Repeatability::NotRetried`].
    /// 4. Else RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT and DELETE are
    ///    idempotent, and QUERY (RFC 10008), nothing else is (method names are
    ///    case-sensitive: `get` is not GET).
    ///
    /// The header's key is the operation's key in every case (read by
    /// [`IdempotencyKey::from_request_header`]).
    ///
    /// ```
    /// use retryplan::{outcomes::http::Repeatability, Policy};
    /// let policy = Policy::default();
    /// let request = policy.http_request("POST", None, Some("order-5001")).unwrap();
    /// assert_eq!(request.repeatability, Repeatability::Keyed);
    /// assert_eq!(request.idempotency_key.unwrap().as_str(), "order-5001");
    /// let unkeyed = policy.http_request("POST", None, None).unwrap();
    /// assert_eq!((unkeyed.repeatability, unkeyed.idempotency_key.is_none()), (Repeatability::NotIdempotent, true));
    /// let said = policy.http_request("POST", Some(true), None).unwrap();
    /// assert_eq!(said.repeatability, Repeatability::Idempotent);
    /// let listed = Policy::from_json(r#"{"retry_methods": ["GET", "POST"]}"#).unwrap();
    /// assert_eq!(listed.http_request("POST", None, None).unwrap().repeatability, Repeatability::Idempotent);
    /// let unlisted = listed.http_request("PUT", None, None).unwrap().repeatability;
    /// assert_eq!(unlisted, Repeatability::NotRetried { idempotent: true });
    /// assert_eq!(policy.http_request("get", None, None).unwrap().repeatability, Repeatability::NotIdempotent);
    /// let error = policy.http_request("POST", None, Some("")).unwrap_err();
    /// assert!(error.to_string().starts_with("invalid argument `Idempotency-Key`: is empty"));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `method` when it is not a method
    /// token, or `Idempotency-Key` when the request's key is empty or neither
    /// a Structured Field String nor a bare visible-ASCII key.
    pub fn http_request(
        &self,
        method: &str,
        caller_says_idempotent: Option<bool>,
        request_idempotency_key: Option<&str>,
    ) -> Result<HttpRequest, Error> {
        let repeatability = self.method_repeatability(method, caller_says_idempotent)?;
        let idempotency_key = request_idempotency_key.map(IdempotencyKey::from_request_header).transpose()?;
        let repeatability = match (caller_says_idempotent, &idempotency_key) {
            (None, Some(_)) => Repeatability::Keyed,
            _ => repeatability,
        };
        Ok(HttpRequest { repeatability, idempotency_key })
    }
}

/// Whether the request an operation sends may be repeated, by its protocol's
/// own rules and its caller's word: the request's repeatability, beside the
/// policy's [`Idempotency`] (what the operation tolerates). An HTTP host gets
/// it from [`Policy::http_request`]; the engine combines the two once
/// ([`Repeatability::effective`]), for every helper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Repeatability {
    /// Not known (not an HTTP request): the policy alone decides.
    #[default]
    Unknown,
    /// Repeating the request has the effect of sending it once (an idempotent
    /// method, or the caller says so for this request).
    Idempotent,
    /// Repeating it may repeat its effect (POST, PATCH, CONNECT, any method
    /// that is not idempotent by RFC 9110 §9.2.2 or RFC 10008).
    NotIdempotent,
    /// The request carries its own idempotency key (the caller set the
    /// `Idempotency-Key` header): the server deduplicates by it, so it may be
    /// repeated as a `keyed` policy's requests are ([`Policy::http_request`]).
    Keyed,
    /// The policy's `retry_methods` does not list the method: the request is
    /// tried again only when it never left or the application judges the
    /// failure retryable (see [`Policy::http_request`]).
    NotRetried {
        /// Whether the method is idempotent (RFC 9110 §9.2.2, and RFC 10008's QUERY).
        idempotent: bool,
    },
}

impl Repeatability {
    /// The repeatability of an HTTP request with `method` by its method alone (RFC 9110 §9.2.2, RFC 10008),
    /// unless the caller says otherwise for this request
    /// (`caller_says_idempotent`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `method` when it is not a method
    /// token (RFC 9110 §9.1: one or more letters, digits or ``!#$%&'*+-.^_`|~``).
    pub(crate) fn by_method(method: &str, caller_says_idempotent: Option<bool>) -> Result<Repeatability, Error> {
        let idempotent = is_idempotent_method(method)?;
        Ok(match caller_says_idempotent.unwrap_or(idempotent) {
            true => Repeatability::Idempotent,
            false => Repeatability::NotIdempotent,
        })
    }

    /// The repeatability of an HTTP request with `method` by its method alone (RFC 9110 §9.2.2, RFC 10008)
    /// (the policy's `retry_methods` and the request's own key unread).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `method` when it is not a method token.
    #[deprecated(note = "use `Policy::http_request`, the one entry point for a host (its `repeatability`)")]
    pub fn for_http(method: &str, caller_says_idempotent: Option<bool>) -> Result<Repeatability, Error> {
        Repeatability::by_method(method, caller_says_idempotent)
    }

    /// The idempotency an operation runs with: the policy's, except that a
    /// request that is not idempotent makes a `safe` or `idempotent` policy
    /// `unsafe` (a `keyed` policy sends the key, so the server deduplicates),
    /// and a request with its own key makes any policy but `unsafe` `keyed`
    /// (an `unsafe` policy says this operation is never repeated after it may
    /// have happened, key or not; the caller's per-request `idempotent` word
    /// does not override it either).
    #[must_use]
    pub fn effective(self, policy: Idempotency) -> Idempotency {
        match (self, policy) {
            (Repeatability::Keyed, Idempotency::Unsafe) => Idempotency::Unsafe,
            (Repeatability::Keyed, _) => Idempotency::Keyed,
            (
                Repeatability::NotIdempotent | Repeatability::NotRetried { idempotent: false },
                Idempotency::Safe | Idempotency::Idempotent,
            ) => Idempotency::Unsafe,
            (_, policy) => policy,
        }
    }
}

/// True when RFC 9110 §9.2.2 calls `method` idempotent: GET, HEAD, OPTIONS,
/// TRACE (the safe methods), PUT and DELETE; and QUERY, which RFC 10008
/// defines as safe and idempotent ("QUERY requests can be automatically
/// repeated"). Method names are case-sensitive.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `method` when it is not a method token.
pub fn is_idempotent_method(method: &str) -> Result<bool, Error> {
    let is_tchar = |byte: u8| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte);
    if method.is_empty() || !method.bytes().all(is_tchar) {
        return Err(Error::InvalidArgument { field: "method", rule: message!(NotMethodToken) });
    }
    Ok(matches!(method, "GET" | "HEAD" | "OPTIONS" | "TRACE" | "PUT" | "DELETE" | "QUERY"))
}

/// How the HTTP helpers name a request in their endings, logs and spans
/// (their `url.full` is the name after its method): `"METHOD url"`, the URL
/// as the platform gave it without its user info or its fragment (a name
/// must not carry credentials, and a fragment is never sent), and with the
/// value of each query parameter the OpenTelemetry semantic conventions call
/// sensitive replaced by `REDACTED` (`url.full`: the signatures and keys of
/// presigned URLs).
///
/// The URL is read as text, never parsed nor normalised: the scheme, host
/// (its case, an IPv6 literal's brackets), port, path and query stay as
/// given. Of an absolute URL with an authority (`scheme://authority...`), the
/// user info is everything of the authority up to its last `@`; the
/// authority ends at the first `/`, `?` or `#` after the `//`, so an `@` in
/// the path or query is kept. The fragment is everything from the first `#`.
/// A URL without an authority, or not absolute (no scheme, a path, an empty
/// text), is kept as given, minus its fragment. Never fails: a name is
/// information, and any text makes one.
///
/// The query is everything after the first `?` (before the fragment), its
/// parameters separated by `&`. A parameter whose key is one of
/// `X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`,
/// `AWSAccessKeyId`, `Signature`, `sig` and `X-Goog-Signature` (the
/// conventions' list, matched as written and case-sensitively, as they say:
/// `SIG` and a percent-escaped `%73ig` are other keys) keeps its key and its
/// `=`, and its value, whatever it is (empty included), becomes `REDACTED`:
/// `sig=abc` names `sig=REDACTED`. A key without `=` has no value and is
/// kept; every other parameter is kept as given. Naming a name again gives it
/// back unchanged.
///
/// ```
/// use retryplan::outcomes::http::request_name;
/// assert_eq!(request_name("GET", "https://user:pw@api.example:8443/a?q=1#top"), "GET https://api.example:8443/a?q=1");
/// assert_eq!(request_name("POST", "/orders#new"), "POST /orders");
/// assert_eq!(
///     request_name("GET", "https://bucket.example/k?X-Amz-Signature=ab12&color=blue&sig=c3&SIG=kept"),
///     "GET https://bucket.example/k?X-Amz-Signature=REDACTED&color=blue&sig=REDACTED&SIG=kept",
/// );
/// ```
#[must_use]
pub fn request_name(method: &str, url: &str) -> String {
    // Every index found is that of an ASCII byte, so a char boundary: `get` never answers `None` here.
    let bytes = url.as_bytes();
    let end = bytes.iter().position(|&byte| byte == b'#').unwrap_or(bytes.len());
    let (scheme, rest) = match authority_start(bytes) {
        Some(start) if start <= end => {
            let after_scheme = bytes.get(start..end).unwrap_or_default();
            let authority_end = after_scheme.iter().position(|&byte| byte == b'/' || byte == b'?');
            let authority = after_scheme.get(..authority_end.unwrap_or(after_scheme.len())).unwrap_or_default();
            let host = start + authority.iter().rposition(|&byte| byte == b'@').map_or(0, |at| at + 1);
            (url.get(..start).unwrap_or_default(), url.get(host..end).unwrap_or_default())
        }
        _ => ("", url.get(..end).unwrap_or_default()),
    };
    let mut name = String::with_capacity(method.len() + 1 + scheme.len() + rest.len());
    for part in [method, " ", scheme] {
        name.push_str(part);
    }
    let Some((before_query, query)) = rest.split_once('?') else {
        name.push_str(rest);
        return name;
    };
    for part in [before_query, "?"] {
        name.push_str(part);
    }
    for (index, parameter) in query.split('&').enumerate() {
        if index > 0 {
            name.push('&');
        }
        match parameter.split_once('=') {
            Some((key, _value)) if SENSITIVE_QUERY_KEYS.contains(&key) => {
                for part in [key, "=", REDACTED] {
                    name.push_str(part);
                }
            }
            _ => name.push_str(parameter),
        }
    }
    name
}

/// What a sensitive query value becomes in a request's name (the conventions' `url.full`).
const REDACTED: &str = "REDACTED";

/// The query keys whose values the OpenTelemetry semantic conventions say
/// `url.full` SHOULD redact by default (`model/url/registry.yaml`, `url.full`
/// and `url.query`, as of August 2026), in their order and letter case.
const SENSITIVE_QUERY_KEYS: [&str; 7] = [
    "X-Amz-Signature",
    "X-Amz-Credential",
    "X-Amz-Security-Token",
    "AWSAccessKeyId",
    "Signature",
    "sig",
    "X-Goog-Signature",
];

/// Where the authority of `url` starts: after its scheme (RFC 3986: a letter,
/// then letters, digits, `+`, `-` or `.`), its `:` and `//`; `None` when the
/// URL has no scheme or no authority.
fn authority_start(url: &[u8]) -> Option<usize> {
    let colon = url.iter().position(|&byte| byte == b':')?;
    let is_scheme = url.first().is_some_and(u8::is_ascii_alphabetic)
        && url.get(..colon)?.iter().all(|&byte| byte.is_ascii_alphanumeric() || b"+-.".contains(&byte));
    (is_scheme && url.get(colon + 1..colon + 3) == Some(b"//")).then_some(colon + 3)
}

impl Idempotency {
    /// True when requests carry the idempotency key header: for keyed
    /// operations (the server deduplicates by it) and unsafe ones (it names
    /// the operation when its outcome must be reconciled).
    #[must_use]
    pub fn sends_idempotency_key(self) -> bool {
        matches!(self, Idempotency::Keyed | Idempotency::Unsafe)
    }
}

impl Policy {
    /// True when requests carry the idempotency key header: for keyed
    /// operations (the server deduplicates by it) and unsafe ones (it names
    /// the operation when its outcome must be reconciled). Safe and idempotent
    /// operations need no key. An operation whose request is not idempotent
    /// may send it even so: ask the operation
    /// ([`Operation::sends_idempotency_key`](crate::Operation::sends_idempotency_key)).
    ///
    /// ```
    /// let keyed = retryplan::Policy::from_json(r#"{"idempotency": "keyed"}"#).unwrap();
    /// assert!(keyed.sends_idempotency_key());
    /// assert!(!retryplan::Policy::default().sends_idempotency_key());
    /// ```
    #[must_use]
    pub fn sends_idempotency_key(&self) -> bool {
        self.idempotency.sends_idempotency_key()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An interim status is one decision wherever it is met: read from a response, it is the failure
    /// `malformed_response`; handed in as an outcome, `classify` (which cannot depend on the failure table) reads it
    /// as the same lost connection.
    #[test]
    fn an_interim_status_is_a_malformed_response_read_or_classified() {
        // Policies that tell the transport classes apart: the same class as a malformed response in each.
        let mut only_lost = crate::policy::PolicyConfig::default();
        only_lost.retry_on.transport = alloc::vec![crate::ground::codes::TransportFailure::ConnectionLost];
        let mut only_timed_out = only_lost.clone();
        only_timed_out.retry_on.transport = alloc::vec![crate::ground::codes::TransportFailure::TimedOut];
        let malformed = Failure::MalformedResponse.outcome();
        for config in [crate::policy::PolicyConfig::default(), only_lost, only_timed_out] {
            let policy = Policy::new(&config).unwrap();
            for status in [100_u16, 102, 103, 199] {
                assert_eq!(Outcome::from_http_response(status, |_| None, 0), malformed, "{status}");
                let handed_in = Outcome::HttpStatus { status, retry_after_ms: None, error_code: None };
                assert_eq!(crate::classify(&policy, &handed_in), crate::classify(&policy, &malformed), "{status}");
            }
        }
        let upgraded = Outcome::from_http_response(101_u16, |_| None, 0);
        assert_eq!(upgraded, Outcome::HttpStatus { status: 101, retry_after_ms: None, error_code: None });
    }

    /// A request's name drops the user info (up to the authority's last `@`) and the fragment, and keeps the rest
    /// as given; a URL without an authority is kept, minus its fragment.
    #[test]
    fn a_request_is_named_by_its_url_without_user_info_or_fragment() {
        for (url, named) in [
            ("https://api.example/orders?id=7", "https://api.example/orders?id=7"),
            ("https://user:pw@api.example:8443/a?q=1#top", "https://api.example:8443/a?q=1"),
            ("http://a@b@Host.Example:80/", "http://Host.Example:80/"),
            ("http://host/path/@me?to=a@b", "http://host/path/@me?to=a@b"),
            ("http://host?to=a@b", "http://host?to=a@b"),
            ("http://host#frag@x", "http://host"),
            ("http://u@[2001:db8::1]:8080/x", "http://[2001:db8::1]:8080/x"),
            ("http://[::1]", "http://[::1]"),
            ("HTTP://USER@HOST", "HTTP://HOST"),
            ("https://api.example/a%20b", "https://api.example/a%20b"),
            ("http://u@", "http://"),
            ("//user@host/p", "//user@host/p"),
            ("user@host/p#x", "user@host/p"),
            ("mailto:me@example.org", "mailto:me@example.org"),
            ("1http://u@h/", "1http://u@h/"),
            ("/orders?x#y", "/orders?x"),
            ("", ""),
            ("#", ""),
            ("#only", ""),
            ("http://h\u{e9}@h\u{f6}st/\u{1f600}", "http://h\u{f6}st/\u{1f600}"),
        ] {
            assert_eq!(request_name("GET", url), format!("GET {named}"), "{url:?}");
        }
        assert_eq!(request_name("", ""), " ");
    }

    /// The values of the conventions' sensitive query keys (matched as written, case-sensitively) are `REDACTED`, their keys kept; every other parameter, the path and a fragment's `?` are not
    /// touched; a name named again is unchanged.
    #[test]
    fn a_request_name_redacts_the_values_of_the_sensitive_query_keys() {
        for (url, named) in [
            (
                "http://user:pw@127.0.0.1:8765/z?seq=200&X-Amz-Signature=SECRET&sig=abc",
                "http://127.0.0.1:8765/z?seq=200&X-Amz-Signature=REDACTED&sig=REDACTED",
            ),
            (
                "https://b.example/k?X-Amz-Credential=AK%2F1&X-Amz-Security-Token=t&X-Amz-Date=1",
                "https://b.example/k?X-Amz-Credential=REDACTED&X-Amz-Security-Token=REDACTED&X-Amz-Date=1",
            ),
            (
                "https://b.example/k?AWSAccessKeyId=AK&Signature=s%3D&Expires=9",
                "https://b.example/k?AWSAccessKeyId=REDACTED&Signature=REDACTED&Expires=9",
            ),
            ("https://g.example/o?X-Goog-Signature=ff&a=1", "https://g.example/o?X-Goog-Signature=REDACTED&a=1"),
            (
                "http://h/?SIG=a&Sig=b&x-amz-signature=c&sig2=d&asig=e",
                "http://h/?SIG=a&Sig=b&x-amz-signature=c&sig2=d&asig=e",
            ),
            ("http://h/?sig=a&sig=b&sig=&sig", "http://h/?sig=REDACTED&sig=REDACTED&sig=REDACTED&sig"),
            ("http://h/?sig=a=b&q=sig=c", "http://h/?sig=REDACTED&q=sig=c"),
            ("http://h/?%73ig=a&X%2DAmz%2DSignature=b&%7=c", "http://h/?%73ig=a&X%2DAmz%2DSignature=b&%7=c"),
            ("http://h/?sig=REDACTED", "http://h/?sig=REDACTED"),
            ("http://h/p/sig=a?q=1", "http://h/p/sig=a?q=1"),
            ("http://h/?q=1#sig=a", "http://h/?q=1"),
            ("http://h/?a?sig=b&c", "http://h/?a?sig=b&c"),
            ("http://h/??sig=b", "http://h/??sig=b"),
            ("http://h/?&&sig=b&", "http://h/?&&sig=REDACTED&"),
            ("http://h?", "http://h?"),
            ("/upload?sig=abc#x", "/upload?sig=REDACTED"),
            ("http://h/?sig=\u{1f600}&\u{e9}=1", "http://h/?sig=REDACTED&\u{e9}=1"),
        ] {
            let name = request_name("GET", url);
            assert_eq!(name, format!("GET {named}"), "{url:?}");
            assert_eq!(request_name("GET", &name["GET ".len()..]), name, "named again: {url:?}");
        }
    }

    /// The two old entry points answer as `Policy::http_request` does for a request without its own key.
    #[test]
    #[allow(deprecated)]
    fn the_deprecated_entry_points_answer_as_http_request() {
        let listed = Policy::from_json(r#"{"retry_methods": ["GET", "POST"]}"#).unwrap();
        for policy in [Policy::default(), listed] {
            for (method, said) in [("POST", None), ("PUT", None), ("PATCH", Some(true)), ("GET", Some(false))] {
                let one = policy.http_request(method, said, None).unwrap().repeatability;
                assert_eq!(policy.repeatability_for_http(method, said), Ok(one), "{method} {said:?}");
            }
        }
        assert_eq!(Repeatability::for_http("POST", None), Ok(Repeatability::NotIdempotent));
        assert_eq!(Repeatability::for_http("get", Some(true)), Ok(Repeatability::Idempotent));
    }

    #[test]
    fn rfc_9110_idempotent_methods() {
        for method in ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "QUERY"] {
            assert_eq!(is_idempotent_method(method), Ok(true), "{method}");
        }
        for method in ["POST", "PATCH", "CONNECT", "PROPFIND", "get", "Put", "query"] {
            assert_eq!(is_idempotent_method(method), Ok(false), "{method}");
        }
        for bad in ["", "GET ", "GE T", "GET\r\n", "GÉT", "(GET)"] {
            assert_eq!(is_idempotent_method(bad).unwrap_err().code(), "invalid_argument", "{bad:?}");
        }
    }

    #[test]
    fn a_request_that_is_not_idempotent_makes_repeatable_policies_unsafe() {
        let post = Repeatability::NotIdempotent;
        assert_eq!(post.effective(Idempotency::Safe), Idempotency::Unsafe);
        assert_eq!(post.effective(Idempotency::Idempotent), Idempotency::Unsafe);
        assert_eq!(post.effective(Idempotency::Keyed), Idempotency::Keyed);
        assert_eq!(post.effective(Idempotency::Unsafe), Idempotency::Unsafe);
        for policy in [Idempotency::Safe, Idempotency::Idempotent, Idempotency::Keyed] {
            assert_eq!(Repeatability::Keyed.effective(policy), Idempotency::Keyed);
        }
        assert_eq!(Repeatability::Keyed.effective(Idempotency::Unsafe), Idempotency::Unsafe);
        for policy in [Idempotency::Safe, Idempotency::Idempotent, Idempotency::Keyed, Idempotency::Unsafe] {
            assert_eq!(Repeatability::Idempotent.effective(policy), policy);
            assert_eq!(Repeatability::Unknown.effective(policy), policy);
        }
    }

    #[test]
    fn guidance_headers_precedence() {
        let read = |headers: &[(&'static str, &'static str)]| {
            Outcome::from_http_response(429, |name| headers.iter().find(|(k, _)| *k == name).map(|(_, v)| *v), 0)
        };
        let ms = |value| Outcome::HttpStatus { status: 429, retry_after_ms: value, error_code: None };
        assert_eq!(read(&[("retry-after", "3"), ("x-ms-retry-after-ms", "250")]), ms(Some(250)));
        assert_eq!(read(&[("retry-after-ms", "100"), ("x-ms-retry-after-ms", "250")]), ms(Some(100)));
        assert_eq!(read(&[("retry-after-ms", "x"), ("x-ms-retry-after-ms", "250")]), ms(Some(250)));
        assert_eq!(read(&[("retry-after-ms", "x"), ("retry-after", "1")]), ms(Some(1000)));
        assert_eq!(read(&[("retry-after", "soon")]), ms(None));
        assert_eq!(read(&[("retry-after", "3"), ("x-amz-retry-after", "1500")]), ms(Some(1500)));
        assert_eq!(read(&[("x-amz-retry-after", "1500"), ("x-ms-retry-after-ms", "250")]), ms(Some(250)));
        assert_eq!(read(&[("x-amz-retry-after", "invalid"), ("retry-after", "1")]), ms(Some(1000)));
        assert_eq!(read(&[]), ms(None));
        for status in [-1, 0, 99, 600, 999, 65_535, 70_000, i64::MIN, i64::MAX] {
            assert_eq!(
                Outcome::from_http_response(status, |_| None, 0),
                Failure::MalformedResponse.outcome(),
                "{status}"
            );
        }
    }

    #[test]
    fn rate_limit_headers_come_after_retry_after() {
        let now = 1_700_000_000_000;
        let read = |headers: &[(&'static str, &'static str)]| {
            let lookup = |name: &str| headers.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
            match Outcome::from_http_response(429, lookup, now) {
                Outcome::HttpStatus { retry_after_ms, .. } => retry_after_ms,
                other => panic!("{other:?}"),
            }
        };
        let rate_limit = ("ratelimit", "\"default\";r=0;t=30");
        // Retry-After takes precedence over RateLimit (the draft's MUST).
        assert_eq!(read(&[rate_limit, ("retry-after", "5")]), Some(5_000));
        // So do the millisecond headers, x-amz-retry-after among them.
        assert_eq!(read(&[rate_limit, ("x-amz-retry-after", "1500")]), Some(1_500));
        assert_eq!(read(&[("ratelimit-reset", "12"), ("x-amz-retry-after", "oops")]), Some(12_000));
        // An unreadable Retry-After is passed over.
        assert_eq!(read(&[rate_limit, ("retry-after", "5, 6")]), Some(30_000));
        // RateLimit with quota left asks for no wait: the reset headers are next.
        let available = ("ratelimit", "\"default\";r=5;t=30");
        assert_eq!(read(&[available, ("ratelimit-reset", "7")]), Some(7_000));
        // A missing t takes the policy's window.
        let exhausted = ("ratelimit", "\"hour\";r=0");
        assert_eq!(read(&[exhausted, ("ratelimit-policy", "\"hour\";q=100;w=3600")]), Some(3_600_000));
        // Reset headers: delta seconds or Unix time, unless quota is left.
        assert_eq!(read(&[("ratelimit-reset", "12")]), Some(12_000));
        assert_eq!(read(&[("x-ratelimit-reset", "1700000042")]), Some(42_000));
        assert_eq!(read(&[("x-ratelimit-reset", "1700000042"), ("x-ratelimit-remaining", "0")]), Some(42_000));
        assert_eq!(read(&[("x-ratelimit-reset", "1700000042"), ("x-ratelimit-remaining", "4999")]), None);
        assert_eq!(read(&[("ratelimit-reset", "12"), ("x-ratelimit-reset", "1700000042")]), Some(12_000));
        assert_eq!(read(&[("ratelimit-reset", "soon"), ("x-ratelimit-reset", "1700000042")]), Some(42_000));
        assert_eq!(read(&[("ratelimit", "nonsense;;"), ("ratelimit-reset", "3")]), Some(3_000));
    }

    #[test]
    fn lenient_reading_reads_what_strict_passes_over() {
        let headers = [("retry-after", "Mon, 3 Jun 2019 11:00:10 UTC")];
        let lookup = |name: &str| headers.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
        let now = 1_559_559_600_000;
        let strict = Outcome::from_http_response_with(503, lookup, now, RetryAfterReading::Strict);
        assert_eq!(strict, Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None });
        let lenient = Outcome::from_http_response_with(503, lookup, now, RetryAfterReading::Lenient);
        assert_eq!(lenient, Outcome::HttpStatus { status: 503, retry_after_ms: Some(10_000), error_code: None });
    }

    /// `server_guidance.headers: retry_after` reads Retry-After alone (leniently here, as urllib3's policy does):
    /// every other guidance header is passed over, even one that would win under `all`.
    #[test]
    fn a_retry_after_only_policy_reads_retry_after_alone() {
        let policy =
            Policy::from_json(r#"{"server_guidance": {"headers": "retry_after", "retry_after_reading": "lenient"}}"#)
                .unwrap();
        let now = 1_700_000_000_000;
        let read = |policy: &Policy, headers: &[(&'static str, &'static str)]| {
            let lookup = |name: &str| headers.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
            match policy.http_outcome(429, lookup, now) {
                Outcome::HttpStatus { retry_after_ms, .. } => retry_after_ms,
                other => panic!("{other:?}"),
            }
        };
        let others: [(&'static str, &'static str); 6] = [
            ("retry-after-ms", "2500"),
            ("x-ms-retry-after-ms", "2500"),
            ("x-amz-retry-after", "2500"),
            ("ratelimit", "\"default\";r=0;t=2"),
            ("ratelimit-reset", "2"),
            ("x-ratelimit-reset", "1700000003"),
        ];
        for header in others {
            assert_eq!(read(&policy, &[header]), None, "{header:?}");
            assert!(read(&Policy::default(), &[header]).is_some(), "{header:?}");
            assert_eq!(read(&policy, &[header, ("retry-after", "1")]), Some(1_000), "{header:?}");
        }
        assert_eq!(read(&policy, &[("retry-after", " 7 ")]), Some(7_000));
        assert_eq!(read(&policy, &[("retry-after", "soon"), ("retry-after-ms", "2500")]), None);
        assert_eq!(policy.http_outcome(999, |_| None, now), Failure::MalformedResponse.outcome());
    }

    #[test]
    fn every_guidance_header_is_listed_lower_case() {
        for name in GUIDANCE_HEADERS {
            assert_eq!(name, name.to_ascii_lowercase());
        }
        assert!(RETRY_AFTER_MS_HEADERS.iter().all(|name| GUIDANCE_HEADERS.contains(name)));
    }
}
