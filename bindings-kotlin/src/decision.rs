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
/// 100..=599 (-1 included) is `malformed_response`, never an error: a lost
/// connection, the server's fault. Given a `policy`, read
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

/// `headers` (names in any case) and `now_unix_ms` checked, then `status` read by `read` (the core's
/// `Outcome::read_http_response`, or a policy's `http_outcome`, which reads the headers it names) as the core reads
/// any status: one outside 100..=599 (-1 from `HttpURLConnection.getResponseCode()`, 65536), or an interim 1xx but
/// 101, is a malformed response, never an error.
pub(crate) fn read_http_response(
    status: i32,
    headers: &std::collections::HashMap<String, String>,
    now_unix_ms: i64,
    read: impl for<'h> FnOnce(
        i64,
        &mut dyn FnMut(&'static str) -> Option<&'h str>,
        u64,
    ) -> core::result::Result<rp::Outcome, rp::Error>,
) -> Result<Outcome> {
    let now_unix_ms = ms_in("now_unix_ms", now_unix_ms)?;
    let lines = HeaderLines::new(headers);
    let mut lookup = |name: &str| lines.get(name);
    Ok(read(i64::from(status), &mut lookup, now_unix_ms)?.into())
}

/// A response's headers as the core looks them up: a name in any case gives every line whose name matches it, in
/// any case, joined by `", "` (as the core reads a repeated header), in the order of the map's names sorted, so
/// `{"Retry-After": "5", "retry-after": "60"}` reads `"5, 60"` whatever the map's hash order.
pub(crate) struct HeaderLines(std::collections::BTreeMap<String, String>);

impl HeaderLines {
    /// The lines of `headers`, grouped by lower-case name.
    pub(crate) fn new(headers: &std::collections::HashMap<String, String>) -> Self {
        let mut names: Vec<&String> = headers.keys().collect();
        names.sort();
        let mut lines = std::collections::BTreeMap::<String, String>::new();
        for name in names {
            let value = &headers[name];
            lines
                .entry(name.to_ascii_lowercase())
                .and_modify(|joined| {
                    joined.push_str(", ");
                    joined.push_str(value);
                })
                .or_insert_with(|| value.clone());
        }
        Self(lines)
    }

    /// The lines named `name` (in any case), joined; None when no line has that name.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0.get(&name.to_ascii_lowercase()).map(String::as_str)
    }
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
