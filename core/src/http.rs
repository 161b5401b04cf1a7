//! The HTTP conventions every binding's HTTP helper follows, in one place.
//!
//! - **Which requests may be repeated** is decided here, from the method
//!   ([`Repeatability::for_http`]): RFC 9110 §9.2.2 calls GET, HEAD, OPTIONS,
//!   TRACE, PUT and DELETE idempotent, and nothing else. An operation whose
//!   request is not idempotent runs as [`Idempotency::Unsafe`] under a `safe`
//!   or `idempotent` policy (an ambiguous failure answers `reconcile`, never a
//!   repeat), unless the policy is `keyed` (the server deduplicates by the key)
//!   or the caller says, per request, that it may be repeated.
//! - Send the operation's idempotency key in [`IDEMPOTENCY_KEY_HEADER`] when
//!   the operation's idempotency is keyed or unsafe (the server deduplicates
//!   by it, or records it so the outcome can be reconciled); the same key on
//!   every attempt. The driver's start action says so per attempt.
//! - If the caller already set that header, its value is the operation's key
//!   ([`IdempotencyKey::new`](crate::IdempotencyKey::new) checks it): never
//!   replace a key the caller chose.
//! - Send a fresh request id per attempt in [`REQUEST_ID_HEADER`].
//! - Read server guidance from the response headers named in
//!   [`GUIDANCE_HEADERS`], through [`Outcome::from_http_response`], which
//!   decides which one wins; a status outside 100..=599 is the server's fault
//!   ([`Failure::MalformedResponse`]), never the caller's.

use crate::classify::Outcome;
use crate::error::Error;
use crate::error_code::{error_code_from_response, ErrorCode};
use crate::failure::Failure;
use crate::message::message;
use crate::policy::{Idempotency, Policy};
use crate::retry_after::{parse_retry_after, parse_retry_after_ms_header};

/// The header carrying the operation's idempotency key.
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";

/// The header carrying each attempt's request id.
pub const REQUEST_ID_HEADER: &str = "X-Request-Id";

/// The millisecond guidance headers, in the order they are consulted.
pub const RETRY_AFTER_MS_HEADERS: [&str; 2] = ["retry-after-ms", "x-ms-retry-after-ms"];

/// Every response header [`Outcome::from_http_response`] may read, lower case,
/// in the order it consults them. A helper hands the engine a lookup over
/// these names (or their values in this order); it never picks one itself.
pub const GUIDANCE_HEADERS: [&str; 4] = ["retry-after-ms", "x-ms-retry-after-ms", "retry-after", AWS_ERROR_TYPE_HEADER];

/// The header in which AWS services with JSON protocols send the error code
/// (read into [`Outcome::HttpStatus`]'s `error_code`; codes in XML bodies are
/// read by [`crate::aws::error_code_from_response`]).
pub const AWS_ERROR_TYPE_HEADER: &str = "x-amzn-errortype";

impl Outcome {
    /// An HTTP outcome from a response's status and a lookup of its headers
    /// (by the lower-case names in [`GUIDANCE_HEADERS`]), the one reading
    /// every helper in every language uses:
    ///
    /// - a status outside 100..=599 is [`Failure::MalformedResponse`] (the
    ///   request may have been processed);
    /// - `retry-after-ms`, else `x-ms-retry-after-ms` (milliseconds), wins
    ///   when readable, being the more precise;
    /// - otherwise `Retry-After` (delta-seconds or an HTTP-date, read against
    ///   the caller's wall clock `now_unix_ms`);
    /// - an unreadable value counts as no guidance at all: the status alone
    ///   decides, and the policy's backoff applies;
    /// - `x-amzn-errortype` (AWS JSON protocols) gives the `error_code`,
    ///   sanitized as the SDKs do ([`crate::aws::error_code_from_response`]).
    ///
    /// ```
    /// use retryplan::{Outcome, TransportFailure};
    /// let headers = [("retry-after", "2"), ("retry-after-ms", "oops")];
    /// let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
    /// assert_eq!(Outcome::from_http_response(503, lookup, 0), Outcome::HttpStatus { status: 503, retry_after_ms: Some(2_000), error_code: None });
    /// assert_eq!(Outcome::from_http_response(999, lookup, 0), Outcome::Transport { failure: TransportFailure::ConnectionLost });
    /// ```
    #[must_use]
    pub fn from_http_response<'a>(
        status: u16,
        mut header: impl FnMut(&'static str) -> Option<&'a str>,
        now_unix_ms: u64,
    ) -> Outcome {
        if !(100..=599).contains(&status) {
            return Failure::MalformedResponse.outcome();
        }
        let precise = RETRY_AFTER_MS_HEADERS
            .iter()
            .find_map(|name| header(name).and_then(|value| parse_retry_after_ms_header(value).ok()));
        let retry_after_ms =
            precise.or_else(|| header("retry-after").and_then(|value| parse_retry_after(value, now_unix_ms).ok()));
        let error_code = header(AWS_ERROR_TYPE_HEADER).and_then(|value| error_code_from_response(Some(value), None));
        Outcome::HttpStatus { status, retry_after_ms, error_code }
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
    /// use retryplan::{aws::ErrorCode, Outcome};
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

/// Whether the request an operation sends may be repeated by its protocol's
/// own rules. An input to [`OperationOptions`](crate::OperationOptions): the
/// engine combines it with the policy's [`Idempotency`] once, for every helper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Repeatability {
    /// Not known (not an HTTP request): the policy alone decides.
    #[default]
    Unknown,
    /// Repeating the request has the effect of sending it once (an idempotent
    /// method, or the caller says so for this request).
    Idempotent,
    /// Repeating it may repeat its effect (POST, PATCH, CONNECT, any method
    /// RFC 9110 does not call idempotent).
    NotIdempotent,
}

impl Repeatability {
    /// The repeatability of an HTTP request with `method`, unless the caller
    /// says otherwise for this request (`caller_says_idempotent`).
    ///
    /// ```
    /// use retryplan::http::Repeatability;
    /// assert_eq!(Repeatability::for_http("PUT", None), Ok(Repeatability::Idempotent));
    /// assert_eq!(Repeatability::for_http("POST", None), Ok(Repeatability::NotIdempotent));
    /// assert_eq!(Repeatability::for_http("POST", Some(true)), Ok(Repeatability::Idempotent));
    /// // Method names are case-sensitive (RFC 9110 §9.1): `get` is not GET.
    /// assert_eq!(Repeatability::for_http("get", None), Ok(Repeatability::NotIdempotent));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `method` when it is not a method
    /// token (RFC 9110 §9.1: one or more letters, digits or ``!#$%&'*+-.^_`|~``).
    pub fn for_http(method: &str, caller_says_idempotent: Option<bool>) -> Result<Repeatability, Error> {
        let idempotent = is_idempotent_method(method)?;
        Ok(match caller_says_idempotent.unwrap_or(idempotent) {
            true => Repeatability::Idempotent,
            false => Repeatability::NotIdempotent,
        })
    }

    /// The idempotency an operation runs with: the policy's, except that a
    /// request that is not idempotent makes a `safe` or `idempotent` policy
    /// `unsafe` (a `keyed` policy sends the key, so the server deduplicates).
    #[must_use]
    pub fn effective(self, policy: Idempotency) -> Idempotency {
        match (self, policy) {
            (Repeatability::NotIdempotent, Idempotency::Safe | Idempotency::Idempotent) => Idempotency::Unsafe,
            (_, policy) => policy,
        }
    }
}

/// True when RFC 9110 §9.2.2 calls `method` idempotent: GET, HEAD, OPTIONS,
/// TRACE (the safe methods), PUT and DELETE. Method names are case-sensitive.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `method` when it is not a method token.
pub fn is_idempotent_method(method: &str) -> Result<bool, Error> {
    let is_tchar = |byte: u8| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte);
    if method.is_empty() || !method.bytes().all(is_tchar) {
        return Err(Error::InvalidArgument { name: "method", rule: message!(NotMethodToken) });
    }
    Ok(matches!(method, "GET" | "HEAD" | "OPTIONS" | "TRACE" | "PUT" | "DELETE"))
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

    #[test]
    fn rfc_9110_idempotent_methods() {
        for method in ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"] {
            assert_eq!(is_idempotent_method(method), Ok(true), "{method}");
        }
        for method in ["POST", "PATCH", "CONNECT", "QUERY", "PROPFIND", "get", "Put"] {
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
        assert_eq!(read(&[]), ms(None));
        for status in [0, 99, 600, 999] {
            assert_eq!(
                Outcome::from_http_response(status, |_| None, 0),
                Failure::MalformedResponse.outcome(),
                "{status}"
            );
        }
    }

    #[test]
    fn every_guidance_header_is_listed_lower_case() {
        for name in GUIDANCE_HEADERS {
            assert_eq!(name, name.to_ascii_lowercase());
        }
        assert!(RETRY_AFTER_MS_HEADERS.iter().all(|name| GUIDANCE_HEADERS.contains(name)));
    }
}
