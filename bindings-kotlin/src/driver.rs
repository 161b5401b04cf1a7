//! The host loop (the core's `Driver`) as a thread-safe object, the failure
//! vocabulary, and the HTTP conventions (header names, method safety, the
//! guidance headers read by the core). Conversion only: every rule is the
//! core's (`retryplan::driver`, `retryplan::failure`, `retryplan::http`).
//! The helpers' loop calls it through the core's wire (`exchange`, and the
//! C path of `wire.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use retryplan as rp;
use retryplan::propagation::Protocol;

use crate::decision::outcome_from_http_response;
use crate::live::Registry;
use crate::operation::{OperationOptions, Stats};
use crate::policy::Policy;
use crate::propagation::{fields, HeaderField, IncomingContext};
use crate::records::{Action, Event, Outcome};
use crate::{lock, long_out, ms_in, opt_ms_in, u32_in, Result};

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

#[uniffi::export]
impl Driver {
    /// Starts an operation at `now_ms` under `policy`, run as `driver_options` says.
    /// `Unsupported` (field `hedging`) when the policy hedges and the host is `Sequential`.
    #[uniffi::constructor]
    pub fn new(
        policy: Arc<Policy>,
        now_ms: i64,
        options: OperationOptions,
        driver_options: DriverOptions,
    ) -> Result<Arc<Driver>> {
        let now_ms = ms_in("now_ms", now_ms)?;
        let driver = rp::Driver::new(&policy.0, now_ms, options.into_core()?, core_options(driver_options))?;
        Ok(Driver::registered(driver))
    }

    /// The request headers of running attempt `attempt`, sent at `now_ms` to a
    /// next hop that speaks `protocol` (the attempt's remaining time, its
    /// number, the key, whether a layer above retries), in order.
    /// `AttemptNotRunning` when `attempt` is not running.
    pub fn outgoing_headers(&self, attempt: i32, now_ms: i64, protocol: Protocol) -> Result<Vec<HeaderField>> {
        let (attempt, now_ms) = (u32_in("attempt", attempt)?, ms_in("now_ms", now_ms)?);
        Ok(fields(&lock(&self.0).outgoing_headers(attempt, now_ms, protocol)?))
    }

    /// The headers of the answer this layer gives its own caller once the
    /// operation has ended: "do not retry" when it gave up because of overload
    /// or its retry budget, else none (and none before the end).
    pub fn answer_headers(&self, protocol: Protocol) -> Vec<HeaderField> {
        fields(&lock(&self.0).answer_headers(protocol))
    }

    /// What to do now.
    pub fn poll_action(&self, now_ms: i64) -> Result<Action> {
        Ok(lock(&self.0).poll_action(ms_in("now_ms", now_ms)?)?.into())
    }

    /// Hands in how attempt `attempt` ended, as observed at `now_ms`; with a
    /// `token` (the host's handle to what it holds, `held`), the driver says
    /// what becomes of it (`Receipt.DISCARDED`, `Action.Release`, `Ending.result`).
    #[uniffi::method(default(token = None, held = None))]
    pub fn handle_result(
        &self,
        now_ms: i64,
        attempt: i32,
        outcome: Outcome,
        token: Option<i64>,
        held: Option<rp::Held>,
    ) -> Result<rp::Receipt> {
        self.result(ms_in("now_ms", now_ms)?, u32_in("attempt", attempt)?, outcome.try_into()?, token, held)
    }

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
        self.result(ms_in("now_ms", now_ms)?, u32_in("attempt", attempt)?, failure.outcome(), token, held)
    }

    /// Hands in the HTTP response attempt `attempt` received, read by the
    /// core: `status` exactly as the platform gave it (any number; outside
    /// 100..=599 it is a malformed response), `headers` (those named in
    /// `guidance_headers()` suffice, names in any case), `Retry-After` read
    /// as the policy says against the wall clock `now_unix_ms`. The response
    /// is held as a value under `token` when one is given.
    pub fn handle_response(
        &self,
        now_ms: i64,
        attempt: i32,
        token: Option<i64>,
        status: i64,
        headers: HashMap<String, String>,
        now_unix_ms: i64,
    ) -> Result<rp::Receipt> {
        let (now_ms, attempt) = (ms_in("now_ms", now_ms)?, u32_in("attempt", attempt)?);
        let (token, now_unix_ms) = (opt_ms_in("token", token)?, ms_in("now_unix_ms", now_unix_ms)?);
        let lookup = |name: &str| {
            headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
        };
        Ok(lock(&self.0).handle_response(now_ms, attempt, token, status, lookup, now_unix_ms)?)
    }

    /// One step of the core's wire encoding (`retryplan::wire`): an input
    /// record in (8 words), the output record (15 words) back. The helpers
    /// call it through the C path (`wire.rs`); this typed call raises the
    /// typed exception for a record the core refuses.
    pub fn exchange(&self, input: Vec<i64>) -> Result<Vec<i64>> {
        let mut output = [rp::wire::NONE; rp::wire::OUTPUT_WORDS];
        lock(&self.0).exchange(&input, &mut output)?;
        Ok(output.to_vec())
    }

    /// The caller abandons the operation: it gives up (`cancelled`) and every running attempt is aborted.
    pub fn handle_cancel(&self, now_ms: i64) -> Result<()> {
        lock(&self.0).handle_cancel(ms_in("now_ms", now_ms)?);
        Ok(())
    }

    /// The oldest recorded event not yet read (only with `record_events`).
    pub fn poll_event(&self) -> Option<Event> {
        lock(&self.0).poll_event().map(Into::into)
    }

    /// The operation's idempotency key (the same on every attempt).
    pub fn idempotency_key(&self) -> String {
        lock(&self.0).idempotency_key().as_str().to_owned()
    }

    /// `min(start + total_timeout_ms, caller deadline)`.
    pub fn deadline_ms(&self) -> i64 {
        long_out(lock(&self.0).operation().deadline_ms())
    }

    /// A response's outcome (`outcome_from_http_response`), `Retry-After` read
    /// as this operation's policy says (`server_guidance.retry_after_reading`):
    /// how every HTTP helper reads a response. `headers` needs only those named
    /// in `guidance_headers()` (names in any case).
    pub fn read_response(&self, status: i32, headers: HashMap<String, String>, now_unix_ms: i64) -> Result<Outcome> {
        let reading = lock(&self.0).operation().policy().server_guidance().retry_after_reading;
        outcome_from_http_response(status, headers, now_unix_ms, reading)
    }

    /// True once the operation has ended.
    pub fn is_ended(&self) -> bool {
        lock(&self.0).is_ended()
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
    fn registered(driver: rp::Driver) -> Arc<Driver> {
        let driver = Arc::new(Driver(Mutex::new(driver)));
        DRIVERS.register(&driver);
        driver
    }

    fn result(
        &self,
        now_ms: u64,
        attempt: u32,
        outcome: rp::Outcome,
        token: Option<i64>,
        held: Option<rp::Held>,
    ) -> Result<rp::Receipt> {
        let token = opt_ms_in("token", token)?;
        let mut driver = lock(&self.0);
        Ok(match token {
            Some(token) => {
                driver.handle_result_with_token(now_ms, attempt, outcome, token, held.unwrap_or_default())?
            }
            None => driver.handle_result(now_ms, attempt, outcome)?,
        })
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
