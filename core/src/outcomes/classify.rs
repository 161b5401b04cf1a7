//! Outcomes (what the caller saw) and their classification by a policy.
//!
//! The caller reports what happened to an attempt as an [`Outcome`]; the
//! policy's sets decide what it means ([`classify`]):
//!
//! | outcome | meaning |
//! |---|---|
//! | [`Outcome::Success`], HTTP 101 and 2xx-3xx (but a 2xx listed in `retry_on`, or one whose `error_code` is in a `retry_on.error_codes` table), gRPC `ok` | success |
//! | an interim HTTP 1xx (100, 102, 103, ...) given as the answer | as the failure `malformed_response`: the request may have been processed |
//! | a status or code in `conflict` | conflict: re-read, recompute, redo the unit |
//! | an HTTP answer whose `error_code` is in a `retry_on.error_codes` table, whatever its status | retryable; `throttling` for `aws_throttling` codes |
//! | a 429 in `retry_on`, in a policy that lists the `aws_throttling` table | retryable and `throttling`, whatever its error code |
//! | a status (a 2xx too: polled again, as urllib3's `status_forcelist` allows), code or transport failure in `retry_on` | retryable; ambiguous if in `ambiguous` or the request may have been processed |
//! | a status in `retry_on` whose `server_guidance.statuses` rule `requires_guidance`, answered without guidance | not retryable |
//! | [`TransportFailure::NotSent`] | never ambiguous: the request never left |
//! | [`TransportFailure::ConnectionLost`], [`TransportFailure::TimedOut`] | always ambiguous |
//! | [`Verdict`] from the application | as it says (never ambiguous), but [`Verdict::Ambiguous`] (an error nothing classified): retryable and ambiguous |
//! | [`Outcome::Cancelled`] | the caller gave up |
//! | anything else | not retryable |

use serde::{Deserialize, Serialize};

use crate::config::error::Error;
use crate::config::error_code::{ErrorCode, ErrorCodeTable};
#[doc(no_inline)]
pub use crate::ground::codes::{GrpcCode, TransportFailure};
use crate::ground::message::message;
use crate::ground::units::MAX_MS;
use crate::headers::retry_after::Pushback;
use crate::policy::Policy;

impl crate::ground::named::Named for Verdict {
    const ALL: &'static [Self] = &[Verdict::Retryable, Verdict::NotRetryable, Verdict::Conflict, Verdict::Ambiguous];
    fn name(self) -> &'static str {
        match self {
            Verdict::Retryable => "retryable",
            Verdict::NotRetryable => "not_retryable",
            Verdict::Conflict => "conflict",
            Verdict::Ambiguous => "ambiguous",
        }
    }
}

crate::ground::named::named_serde!(Verdict);

/// The application's own judgement of a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Worth another attempt; the effect certainly did not happen.
    Retryable,
    /// Not worth another attempt.
    NotRetryable,
    /// State changed underneath: re-read, recompute, redo the unit.
    Conflict,
    /// Nobody can tell what happened: the attempt failed in a way no table
    /// or hook classified (an exception a helper's failure table does not
    /// know), so it may have had its effect, and another attempt may help.
    /// Retryable and ambiguous: repeated while the operation may repeat an
    /// ambiguous attempt (a `safe`, `idempotent` or `keyed` operation, what a
    /// function wrapper declares by default), and answered with reconcile
    /// when it may not (`unsafe`: the caller said the call is a
    /// non-idempotent write). What every helper in every language makes of
    /// an error it does not know ([`Verdict::UNKNOWN_ERROR`]).
    Ambiguous,
}

impl Verdict {
    /// The verdict every helper gives an error that neither its platform's
    /// failure table nor the caller's hook classifies: one default for every
    /// language. Wrapping a function in a retry helper is the caller saying
    /// it may run again (tenacity, p-retry and Resilience4j retry any
    /// exception), but a write is still a write: the failure is ambiguous, so
    /// an `unsafe` operation answers reconcile instead of repeating it.
    pub const UNKNOWN_ERROR: Verdict = Verdict::Ambiguous;

    /// What an ending says after such an error, naming the helper's hook
    /// that classifies errors (`hook`: `outcome_of_error=` in Python,
    /// `outcomeOfError` in JavaScript and Kotlin): every language renders this
    /// one text.
    ///
    /// ```
    /// let hint = retryplan::Verdict::unknown_error_hint("outcomeOfError").to_string();
    /// assert!(hint.contains("return an outcome from outcomeOfError"));
    /// ```
    #[must_use]
    pub fn unknown_error_hint(hook: &str) -> crate::ground::message::Message {
        message!(UnknownErrorHint, alloc::string::String::from(hook))
    }
}

/// True for an interim HTTP status (RFC 9110 §15.2: 1xx, but 101 Switching Protocols, which is final for the
/// exchange): never an answer a response can be read as.
pub(crate) fn is_interim(status: u16) -> bool {
    (100..=199).contains(&status) && status != 101
}

/// What the caller saw when an attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Outcome {
    /// The attempt succeeded.
    Success,
    /// An HTTP response arrived.
    HttpStatus {
        /// The status, 100..=599. 101 and 2xx-3xx count as success; any other
        /// 1xx is interim, never an answer, and counts as a malformed response
        /// (`malformed_response`: the request may have been processed).
        status: u16,
        /// A Retry-After delay already converted to milliseconds from now
        /// (see [`parse_retry_after`](crate::headers::retry_after::parse_retry_after), or build the outcome
        /// with [`Outcome::read_http_response`] given the operation's policy, which reads the guidance
        /// headers as its HTTP helpers do).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
        /// The service's error code (AWS: `ThrottlingException`, `SlowDown`,
        /// ...), read with [`crate::dialects::aws::error_code_from_response`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_code: Option<ErrorCode>,
    },
    /// A gRPC status arrived.
    GrpcStatus {
        /// The status code.
        code: GrpcCode,
        /// The `grpc-retry-pushback-ms` trailer, if present.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pushback: Option<Pushback>,
    },
    /// The transport failed.
    Transport {
        /// How it failed.
        failure: TransportFailure,
        /// A wait the server asked for with the failure, in milliseconds from
        /// now (a transient error that came with a retry-after, as smithy-rs's
        /// `RetryReason::RetryableError { retry_after }`): applied exactly as
        /// an HTTP Retry-After is, by the policy's `server_guidance` section
        /// (`honor`, `cap_ms` and `above_cap`, the mode, `max_above_backoff_ms`;
        /// per-status rules are for HTTP statuses only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
    },
    /// The application judged the result itself.
    Application {
        /// Its judgement.
        verdict: Verdict,
    },
    /// The caller abandoned the attempt and the operation.
    Cancelled,
}

/// `serde`'s `skip_serializing_if` for a `false` flag.
fn is_false(flag: &bool) -> bool {
    !*flag
}

/// What an outcome means under a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum Class {
    /// The operation succeeded.
    Success,
    /// Another attempt may help.
    Retryable {
        /// The request may have been processed.
        ambiguous: bool,
        /// The server throttled the request (an `aws_throttling` error code):
        /// retryable, but a sign of overload rather than a transient fault.
        #[serde(default, skip_serializing_if = "is_false")]
        throttling: bool,
    },
    /// Another identical attempt will not help.
    NotRetryable,
    /// The unit of work must be redone from a fresh read.
    Conflict,
    /// The caller gave up.
    Cancelled,
}

impl Class {
    /// The class of a response the client got by following at least one
    /// redirect inside the attempt: a retryable failure is ambiguous (an
    /// earlier hop of the chain may have processed the request, as a `POST`
    /// answered `303 See Other` was); any other class is unchanged. See
    /// [`Driver::handle_response_after_redirects`](crate::Driver::handle_response_after_redirects).
    ///
    /// ```
    /// use retryplan::Class;
    /// let unavailable = Class::Retryable { ambiguous: false, throttling: true };
    /// assert_eq!(unavailable.after_redirect(), Class::Retryable { ambiguous: true, throttling: true });
    /// assert_eq!(Class::Success.after_redirect(), Class::Success);
    /// ```
    #[must_use]
    pub fn after_redirect(self) -> Class {
        match self {
            Class::Retryable { throttling, .. } => Class::Retryable { ambiguous: true, throttling },
            other => other,
        }
    }
}

/// Classifies an outcome under a policy.
///
/// ```
/// use retryplan::{Class, Outcome, Policy};
/// use retryplan::outcomes::classify::classify;
/// use retryplan::ground::codes::TransportFailure;
/// let policy = Policy::default();
/// let lost = Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None };
/// assert_eq!(classify(&policy, &lost), Ok(Class::Retryable { ambiguous: true, throttling: false }));
/// let teapot = Outcome::HttpStatus { status: 418, retry_after_ms: None, error_code: None };
/// assert_eq!(classify(&policy, &teapot), Ok(Class::NotRetryable));
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an HTTP status outside 100..=599, and for
/// a `retry_after_ms` or a `pushback` past [`MAX_MS`] (2^53 - 1), the range
/// of every time the engine keeps (the bindings refuse the same values).
pub fn classify(policy: &Policy, outcome: &Outcome) -> Result<Class, Error> {
    if let Outcome::HttpStatus { retry_after_ms: Some(ms), .. }
    | Outcome::Transport { retry_after_ms: Some(ms), .. }
    | Outcome::GrpcStatus { pushback: Some(Pushback::RetryAfterMs(ms)), .. } = *outcome
    {
        if ms > MAX_MS {
            return Err(guidance_above_max(outcome, ms));
        }
    }
    let sets = &policy.classification;
    Ok(match *outcome {
        Outcome::Success => Class::Success,
        Outcome::HttpStatus { status, retry_after_ms, error_code } => {
            if !(100..=599).contains(&status) {
                return Err(not_http_status(status));
            }
            if is_interim(status) {
                // An interim 1xx given as the answer: a malformed response, as the response reader reads it; its
                // outcome is a lost connection (`Failure::MalformedResponse`'s, which a test of failure.rs holds
                // to this).
                let lost = Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None };
                return classify(policy, &lost);
            }
            let retried_status = sets.retry_http.contains(status);
            // An error code of a retried table names an error whatever the status (S3 answers some errors 200
            // with an error body; smithy-rs `classify_generic`, botocore's `_handle_200_error`).
            let tabled = |table| error_code.is_some_and(|code| in_table(sets, table, &code));
            if status < 400
                && !retried_status
                && !tabled(ErrorCodeTable::AwsThrottling)
                && !tabled(ErrorCodeTable::AwsTransient)
            {
                // A 2xx listed in `retry_on` is polled again (a 202 "still working").
                Class::Success
            } else if sets.conflict_http.contains(status) {
                Class::Conflict
            } else if tabled(ErrorCodeTable::AwsThrottling) {
                Class::Retryable { ambiguous: false, throttling: true }
            } else if retried_status || tabled(ErrorCodeTable::AwsTransient) {
                let needs_guidance =
                    policy.server_guidance.statuses.get(status).is_some_and(|rule| rule.requires_guidance);
                if needs_guidance && retry_after_ms.is_none() {
                    Class::NotRetryable
                } else {
                    // A retried 429 ("Too Many Requests") is a throttling error
                    // where the policy reads the AWS throttling table (botocore
                    // 1.44's `ThrottlingStatusCodeChecker`, whatever the code).
                    let throttling = status == TOO_MANY_REQUESTS
                        && retried_status
                        && sets.retry_error_codes.contains(ErrorCodeTable::AwsThrottling);
                    Class::Retryable { ambiguous: sets.ambiguous_http.contains(status), throttling }
                }
            } else {
                Class::NotRetryable
            }
        }
        Outcome::GrpcStatus { code, .. } => {
            if code == GrpcCode::Ok {
                Class::Success
            } else if sets.conflict_grpc.contains(code) {
                Class::Conflict
            } else if sets.retry_grpc.contains(code) {
                Class::Retryable { ambiguous: sets.ambiguous_grpc.contains(code), throttling: false }
            } else {
                Class::NotRetryable
            }
        }
        Outcome::Transport { failure, .. } => {
            if sets.retry_transport.contains(failure) {
                Class::Retryable { ambiguous: failure.may_have_been_processed(), throttling: false }
            } else {
                Class::NotRetryable
            }
        }
        Outcome::Application { verdict } => match verdict {
            Verdict::Retryable => Class::Retryable { ambiguous: false, throttling: false },
            Verdict::NotRetryable => Class::NotRetryable,
            Verdict::Conflict => Class::Conflict,
            Verdict::Ambiguous => Class::Retryable { ambiguous: true, throttling: false },
        },
        Outcome::Cancelled => Class::Cancelled,
    })
}

/// The error for an HTTP status outside 100..=599 (out of line: building its
/// message would otherwise weigh on every classification).
#[cold]
#[inline(never)]
fn not_http_status(status: u16) -> Error {
    Error::InvalidArgument { field: "status", rule: message!(NotHttpStatus, status) }
}

/// The error for a wait the server asked for past [`MAX_MS`], naming the
/// outcome's field as the bindings do (out of line: the check is on every
/// classification).
#[cold]
#[inline(never)]
fn guidance_above_max(outcome: &Outcome, ms: u64) -> Error {
    let field = if matches!(outcome, Outcome::GrpcStatus { .. }) { "pushback" } else { "retry_after_ms" };
    Error::ms_above_max(field, ms)
}

/// HTTP 429 Too Many Requests.
const TOO_MANY_REQUESTS: u16 = 429;

/// True when the policy retries `table` and `code` is in it.
fn in_table(sets: &crate::policy::Classification, table: ErrorCodeTable, code: &ErrorCode) -> bool {
    sets.retry_error_codes.contains(table) && table.contains(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PolicyConfig;

    #[test]
    fn default_http_classification() {
        let policy = Policy::default();
        let class = |status| classify(&policy, &Outcome::HttpStatus { status, retry_after_ms: None, error_code: None });
        for status in [408, 429, 503] {
            assert_eq!(class(status), Ok(Class::Retryable { ambiguous: false, throttling: false }), "{status}");
        }
        for status in [500, 502, 504] {
            assert_eq!(class(status), Ok(Class::Retryable { ambiguous: true, throttling: false }), "{status}");
        }
        for status in [400, 401, 403, 404, 422, 501] {
            assert_eq!(class(status), Ok(Class::NotRetryable), "{status}");
        }
        assert_eq!(class(409), Ok(Class::Conflict));
        assert_eq!(class(204), Ok(Class::Success));
        assert_eq!(class(99).unwrap_err().code(), "invalid_argument");
        assert_eq!(class(600).unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn classification_is_overridable() {
        let mut config = PolicyConfig::default();
        config.retry_on.grpc_codes = vec![GrpcCode::Unavailable, GrpcCode::ResourceExhausted];
        config.conflict.grpc_codes = vec![];
        config.retry_on.transport = vec![TransportFailure::NotSent];
        let policy = Policy::new(&config).expect("valid");
        let grpc = |code| classify(&policy, &Outcome::GrpcStatus { code, pushback: None });
        assert_eq!(grpc(GrpcCode::ResourceExhausted), Ok(Class::Retryable { ambiguous: false, throttling: false }));
        assert_eq!(grpc(GrpcCode::Aborted), Ok(Class::NotRetryable));
        let lost = Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None };
        assert_eq!(classify(&policy, &lost), Ok(Class::NotRetryable));
    }
}
