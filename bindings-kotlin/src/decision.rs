//! Outcomes in, decisions out: the core's reading of an HTTP response, and
//! the text of an ending. (The `Outcome` and `Decision` types themselves are
//! generated: `records.rs`.)

use retryplan as rp;

use crate::records::{Decision, Outcome};
use crate::{ms_in, status_in, Result};

/// An HTTP response as an outcome, its guidance headers read the one way every
/// binding reads them (the core's `Outcome::from_http`): `retry_after` and
/// `retry_after_ms` are the raw header values, if present; `now_unix_ms` is
/// the wall clock, for the date form of Retry-After.
#[uniffi::export]
pub fn outcome_from_http(
    status: i32,
    retry_after: Option<String>,
    retry_after_ms: Option<String>,
    now_unix_ms: i64,
) -> Result<Outcome> {
    let status = status_in("status", status)?;
    let now_unix_ms = ms_in("now_unix_ms", now_unix_ms)?;
    Ok(rp::Outcome::from_http(status, retry_after.as_deref(), retry_after_ms.as_deref(), now_unix_ms).into())
}

/// An HTTP response as an outcome: `status` and the response's headers
/// (names in any case; a repeated header's lines joined by ", "), read the
/// core's one way: the first guidance header that asks for a wait wins
/// (retry-after-ms, x-ms-retry-after-ms, x-amz-retry-after, Retry-After read
/// as `reading` says, strict when absent, RateLimit with RateLimit-Policy,
/// RateLimit-Reset, X-RateLimit-Reset). A status outside
/// 100..=599 is a lost connection (the server's fault). Given a `policy`, read
/// as its HTTP helpers read a response (`Outcome::read_http_response`: the
/// guidance headers its `server_guidance.headers` names, Retry-After as its
/// `server_guidance.retry_after_reading` says), as an outcome recorded in an
/// operation or a driver of that policy should be; a `reading` beside it is
/// refused (`InvalidArgument` naming `reading`: the policy carries its reading).
#[uniffi::export(default(reading = None, policy = None))]
pub fn outcome_from_http_response(
    status: i32,
    headers: std::collections::HashMap<String, String>,
    now_unix_ms: i64,
    reading: Option<rp::headers::retry_after::RetryAfterReading>,
    policy: Option<std::sync::Arc<crate::policy::Policy>>,
) -> Result<Outcome> {
    read_http_response(status, &headers, now_unix_ms, |status, lookup, now_unix_ms| {
        let policy = policy.as_deref().map(|policy| &policy.0);
        rp::Outcome::read_http_response(status, lookup, now_unix_ms, reading, policy)
    })
}

/// `status`, `headers` (names in any case) and `now_unix_ms` checked, then read by `read` (the core's
/// `Outcome::read_http_response`, or a policy's `http_outcome`, which reads the headers it names).
pub(crate) fn read_http_response<'h>(
    status: i32,
    headers: &'h std::collections::HashMap<String, String>,
    now_unix_ms: i64,
    read: impl FnOnce(
        u16,
        &mut dyn FnMut(&'static str) -> Option<&'h str>,
        u64,
    ) -> core::result::Result<rp::Outcome, rp::Error>,
) -> Result<Outcome> {
    let status = u16::try_from(status)
        .map_err(|_| crate::invalid("status", format!("must be a whole number in 0..=65535, got {status}")))?;
    let now_unix_ms = ms_in("now_unix_ms", now_unix_ms)?;
    let mut lookup =
        |name: &str| headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str());
    Ok(read(status, &mut lookup, now_unix_ms)?.into())
}

/// The whole message of the typed ending a helper throws for `decision`, the
/// core's (`Decision::ending_message_after`), the same in every language:
/// `operation` names the operation as its helper knows it (the block's name,
/// an HTTP request's method and URL), `idempotency_key` is its key, and
/// `last_outcome` is how the last attempt the core took into account ended:
/// when it is the verdict every helper gives an error nothing classified
/// (`unknownErrorVerdict()`), the core adds its hint naming `outcomeOfError`
/// (`unknownErrorHint()`), unless `raisedWithValue`: the ending is raised
/// with a value (`retrying`'s `outcomeOfResult` judged it), and the hint
/// speaks of an error. Null for a decision that is not a typed ending
/// (`GaveUp`, `Reconcile`, `Restart`).
#[uniffi::export(default(last_outcome = None, raised_with_value = false))]
pub fn ending_message(
    decision: Decision,
    operation: String,
    idempotency_key: String,
    last_outcome: Option<Outcome>,
    raised_with_value: bool,
) -> Result<Option<String>> {
    let decision = rp::Decision::try_from(decision)?;
    let last_outcome = last_outcome.map(rp::Outcome::try_from).transpose()?;
    let message =
        decision.ending_message_after(last_outcome, raised_with_value, &operation, Some(&idempotency_key), ERROR_HOOK);
    Ok(message.map(|message| message.to_string()))
}

/// How the helpers' parameter that classifies errors is named (`retrying`'s,
/// the HTTP helpers'): what the core's hint after an unknown error names.
pub(crate) const ERROR_HOOK: &str = "outcomeOfError";
