//! The host loop (the core's `Driver`) as a thread-safe object, the failure
//! vocabulary, and the HTTP conventions (header names, method safety, the
//! guidance headers read by the core). Conversion only: every rule is the
//! core's (`retryplan::driver`, `retryplan::failure`, `retryplan::http`).
//! The helpers' loop calls it through the core's wire (`exchange`, and the
//! C path of `wire.rs`).
//!
//! The driver's typed methods are generated (`driver_generated.rs`, from the
//! driver's family in core/mirrors/src/methods/table.rs, as Python's are); this file
//! keeps the object, what those methods call (`start`, `hand_in`,
//! `hand_in_response`) and Kotlin's own methods (`handle_failure`,
//! `read_response`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use retryplan as rp;
use retryplan::propagation::Protocol;

use crate::decision::{read_http_response, HeaderLines, ERROR_HOOK};
use crate::live::Registry;
use crate::operation::{OperationOptions, Stats};
use crate::policy::Policy;
use crate::propagation::{fields, HeaderField, IncomingContext};
use crate::records::{Action, Event, Outcome};
use crate::{attempts_out, count_out, lock, long_out, ms_in, opt_ms_in, u32_in, Result};

/// How a host runs its driver.
#[derive(Clone, Debug, Default, uniffi::Record)]
pub struct DriverOptions {
    /// Whether the host can run attempts concurrently (`Concurrent` by default).
    #[uniffi(default)]
    pub concurrency: Option<rp::Concurrency>,
    /// Counters shared with other operations, counted by the engine as it decides.
    #[uniffi(default)]
    pub stats: Option<Arc<Stats>>,
    /// Keep each new decision as an `Event` for `poll_event` (off: nothing is kept).
    #[uniffi(default)]
    pub record_events: bool,
    /// The host returns the last response even when the operation did not
    /// succeed (the HTTP helpers), except for a reconcile or the caller's
    /// cancel; off, only a success's value is returned (`Ending.result`).
    #[uniffi(default)]
    pub returns_responses: bool,
}

/// Live drivers, by handle (`wire.rs` steps them).
pub(crate) static DRIVERS: Registry<Driver> = Registry::new();

/// The host loop of one operation (the core's `Driver`): results in, one
/// `Action` out per poll. Thread-safe: calls are serialised by a lock, so
/// attempts running on other threads may hand in their results themselves.
#[derive(Debug, uniffi::Object)]
pub struct Driver(pub(crate) Mutex<rp::Driver>);

// The typed methods of the driver's family (`methods::DRIVER`), written by core/mirrors; they call `start`,
// `hand_in` and `hand_in_response` below.
include!("driver_generated.rs");

/// Kotlin's own methods, beside the family's.
#[uniffi::export]
impl Driver {
    /// Hands in attempt `attempt`'s failure, named in the vocabulary (its outcome is the core's).
    #[uniffi::method(default(token = None, held = None))]
    pub fn handle_failure(
        &self,
        now_ms: i64,
        attempt: i32,
        failure: rp::Failure,
        token: Option<i64>,
        held: Option<rp::Held>,
    ) -> Result<rp::Receipt> {
        let (now_ms, attempt, token) =
            (ms_in("now_ms", now_ms)?, u32_in("attempt", attempt)?, opt_ms_in("token", token)?);
        Ok(self.hand_in(now_ms, attempt, failure.outcome(), token, held)?)
    }

    /// A response's outcome (`outcome_from_http_response`), read as this
    /// operation's policy says (`Policy::http_outcome`: the guidance headers
    /// `server_guidance.headers` names, `Retry-After` as
    /// `server_guidance.retry_after_reading` says): how every HTTP helper
    /// reads a response. `headers` needs only those named in
    /// `guidance_headers()` (names in any case).
    pub fn read_response(&self, status: i32, headers: HashMap<String, String>, now_unix_ms: i64) -> Result<Outcome> {
        let policy = *lock(&self.0).operation().policy();
        read_http_response(status, &headers, now_unix_ms, |status, lookup, now_unix_ms| {
            Ok(policy.http_outcome(status, lookup, now_unix_ms))
        })
    }

    /// The whole message of the typed ending this ended driver raises, the
    /// core's (`Ending::message`, the same words in every language): the
    /// ending's words (`ending_message`) naming `operation` as the helper
    /// names it, the hint naming `outcomeOfError` after an error nothing
    /// classified (not when the ending is raised with a value), and, when the
    /// last response's status was no HTTP status (outside 100..=599) or an
    /// interim 1xx but 101, read as a malformed response, that status. `key_sent` false when the helper
    /// sent no idempotency key (`idempotencyKeyHeader = null`): a
    /// reconcile's words then name none. None while the operation runs, and
    /// for a success. Reads only (no action is handed out).
    #[uniffi::method(default(key_sent = true))]
    pub fn ending_message(&self, operation: String, key_sent: bool) -> Option<String> {
        let driver = lock(&self.0);
        let ending = driver.ended()?;
        let key = key_sent.then(|| driver.idempotency_key().as_str());
        ending.message(&operation, key, ERROR_HOOK).map(|message| message.to_string())
    }
}

/// `Driver::new` for an operation that serves a request whose context the host
/// read with `IncomingContext.read`: it ends by the caller's deadline less
/// `propagation.reserve_ms`, runs under the caller's idempotency key, and
/// makes one attempt when the caller retries (`retry_layer` `outermost`).
/// (A function, not a secondary constructor: uniffi 0.32's Kotlin template
/// names a renamed object's converter by its Rust name there.)
#[uniffi::export]
pub fn driver_with_incoming(
    policy: Arc<Policy>,
    now_ms: i64,
    options: OperationOptions,
    driver_options: DriverOptions,
    incoming: Arc<IncomingContext>,
) -> Result<Arc<Driver>> {
    let now_ms = ms_in("now_ms", now_ms)?;
    let driver =
        rp::Driver::with_incoming(&policy.0, now_ms, options.into_core()?, core_options(driver_options), &incoming.0)?;
    Ok(Driver::registered(driver))
}

fn core_options(driver_options: DriverOptions) -> rp::DriverOptions {
    rp::DriverOptions {
        concurrency: driver_options.concurrency.unwrap_or_default(),
        stats: driver_options.stats.map(|stats| Arc::clone(&stats.0)),
        record_events: driver_options.record_events,
        returns_responses: driver_options.returns_responses,
    }
}

impl Driver {
    /// A driver of `policy` started at `now_ms`, registered for the wire.
    fn start(
        policy: &rp::Policy,
        now_ms: u64,
        options: rp::OperationOptions,
        driver_options: DriverOptions,
    ) -> Result<Arc<Driver>> {
        Ok(Driver::registered(rp::Driver::new(policy, now_ms, options, core_options(driver_options))?))
    }

    fn registered(driver: rp::Driver) -> Arc<Driver> {
        let driver = Arc::new(Driver(Mutex::new(driver)));
        DRIVERS.register(&driver);
        driver
    }

    /// Hands in attempt `attempt`'s outcome, with the token of what the host holds when it gave one.
    fn hand_in(
        &self,
        now_ms: u64,
        attempt: u32,
        outcome: rp::Outcome,
        token: Option<u64>,
        held: Option<rp::Held>,
    ) -> std::result::Result<rp::Receipt, rp::Error> {
        let mut driver = lock(&self.0);
        match token {
            Some(token) => driver.handle_result_with_token(now_ms, attempt, outcome, token, held.unwrap_or_default()),
            None => driver.handle_result(now_ms, attempt, outcome),
        }
    }

    /// Hands in a response as the platform received it: its headers looked up in any case; `redirected`: the
    /// client followed a redirect inside the attempt to get it.
    #[allow(clippy::too_many_arguments)] // the core's, and the object
    fn hand_in_response(
        &self,
        now_ms: u64,
        attempt: u32,
        token: Option<u64>,
        status: i64,
        headers: HashMap<String, String>,
        now_unix_ms: u64,
        redirected: bool,
    ) -> std::result::Result<rp::Receipt, rp::Error> {
        let lines = HeaderLines::new(&headers);
        let lookup = |name: &str| lines.get(name);
        lock(&self.0).handle_response_after_redirects(now_ms, attempt, token, status, lookup, now_unix_ms, redirected)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        DRIVERS.unregister(self);
    }
}

/// What a failure of the vocabulary means to the engine.
#[uniffi::export]
pub fn failure_outcome(failure: rp::Failure) -> Outcome {
    failure.outcome().into()
}

/// Every response header the core reads for guidance, lower case, in the
/// order it consults them (`retry-after-ms`, `x-ms-retry-after-ms`,
/// `retry-after`, the rate-limit headers, ...): the headers
/// `outcome_from_http_response` and `Driver.read_response` need.
#[uniffi::export]
pub fn guidance_headers() -> Vec<String> {
    rp::outcomes::http::GUIDANCE_HEADERS.iter().map(|name| (*name).to_owned()).collect()
}

/// The verdict every helper gives an error that neither its failure table nor
/// its `outcomeOfError` hook classifies (the core's `Verdict::UNKNOWN_ERROR`:
/// `AMBIGUOUS`).
#[uniffi::export]
pub fn unknown_error_verdict() -> rp::Verdict {
    rp::Verdict::UNKNOWN_ERROR
}

/// What an ending says after such an error, naming the hook (`outcomeOfError`): the core's text.
#[uniffi::export]
pub fn unknown_error_hint() -> String {
    rp::Verdict::unknown_error_hint(crate::decision::ERROR_HOOK).to_string()
}

/// The header carrying the operation's idempotency key (`Idempotency-Key`).
#[uniffi::export]
pub fn idempotency_key_header() -> String {
    rp::outcomes::http::IDEMPOTENCY_KEY_HEADER.to_owned()
}

/// The header carrying each attempt's request id (`X-Request-Id`).
#[uniffi::export]
pub fn request_id_header() -> String {
    rp::outcomes::http::REQUEST_ID_HEADER.to_owned()
}

/// The answer of a request being served, from the endings of the operations
/// made inside it: the core's `propagation::Answer` (the last give-up
/// decides). `RequestContext` keeps one.
#[derive(Debug, Default, uniffi::Object)]
pub struct Answer(Mutex<rp::propagation::Answer>);

#[uniffi::export]
impl Answer {
    /// No operation has given up yet: no headers.
    #[uniffi::constructor]
    pub fn new() -> Arc<Answer> {
        Arc::default()
    }

    /// The operation of `driver`, made inside the request, ended: its ending is recorded (nothing before its end).
    pub fn record(&self, driver: Arc<Driver>) {
        if let Some(ending) = lock(&driver.0).ended() {
            lock(&self.0).record(&ending);
        }
    }

    /// The answer's headers for a caller speaking `protocol`.
    pub fn headers(&self, protocol: Protocol) -> Vec<HeaderField> {
        fields(&lock(&self.0).headers(protocol))
    }
}
