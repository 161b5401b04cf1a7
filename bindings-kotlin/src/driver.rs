//! The host loop (the core's `Driver`) as a thread-safe object, the failure
//! vocabulary, and the HTTP conventions (header names, method safety, the
//! guidance headers read by the core). Conversion only: every rule is the
//! core's (`retryplan::driver`, `retryplan::failure`, `retryplan::http`).
//! `poll_action`, `handle_result`, `handle_failure`, `handle_cancel` and
//! `poll_event` also have a hot path for Kotlin (`hot_driver.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use retryplan as rp;

use crate::decision::{outcome_from_http_response, Decision, Outcome};
use crate::hot_driver;
use crate::operation::{OperationOptions, Stats};
use crate::policy::Policy;
use crate::{clock_in, count_out, lock, long_out, u32_in, Result};

/// Everything a host needs to send one attempt.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct AttemptPlan {
    /// Attempt number, 1 for the first.
    pub attempt: i32,
    /// The effective timeout: `min(per-attempt timeout, remaining budget)`.
    pub timeout_ms: i64,
    /// When the driver counts the attempt as timed out (now + `timeout_ms`).
    pub abort_at_ms: i64,
    /// A fresh id for this attempt's request, 16 hex digits (send it as `X-Request-Id`).
    pub request_id: String,
    /// Budget left at the start, after the response reserve.
    pub remaining_budget_ms: i64,
    /// True for a hedge: an extra attempt while another still runs.
    pub hedge: bool,
    /// True when the request carries the operation's idempotency key.
    pub send_idempotency_key: bool,
}

/// An attempt and how it ended.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct AttemptResult {
    /// The attempt number.
    pub attempt: i32,
    /// How it ended.
    pub outcome: Outcome,
}

/// How an operation ended.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Ending {
    /// The final decision: `Succeeded`, `GaveUp`, `Reconcile` or `Restart`.
    pub decision: Decision,
    /// The last attempt result the driver took into account (the winner's for a success).
    pub last_result: Option<AttemptResult>,
}

/// One thing the host must do now; all times are absolute ms on the host's clock.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum Action {
    /// Start this attempt now; report how it ended with `handle_result`.
    StartAttempt { plan: AttemptPlan },
    /// Abort this running attempt; any result it still delivers is discarded.
    AbortAttempt { attempt: i32, reason: rp::AbortReason },
    /// Sleep until `until_ms`, waking early for a result or the caller's cancel; then poll again.
    Sleep { until_ms: i64 },
    /// Drop what the host holds under `token` now (results handed in with a token only).
    Release { token: i64 },
    /// The operation has ended; every poll from now on answers the same.
    Finish { ending: Ending },
}

/// A decision the engine made, for observers (the helpers' `onDecision`).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Event {
    /// When it was made (the host's clock reading).
    pub at_ms: i64,
    /// The decision.
    pub decision: Decision,
    /// The result that led to it, when one did.
    pub after: Option<AttemptResult>,
}

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
}

impl From<rp::AttemptResult> for AttemptResult {
    fn from(result: rp::AttemptResult) -> Self {
        AttemptResult { attempt: count_out(result.attempt), outcome: result.outcome.into() }
    }
}

impl From<rp::Ending> for Ending {
    fn from(ending: rp::Ending) -> Self {
        Ending { decision: ending.decision.into(), last_result: ending.last_result.map(Into::into) }
    }
}

impl From<rp::Action> for Action {
    fn from(action: rp::Action) -> Self {
        match action {
            rp::Action::StartAttempt(plan) => Action::StartAttempt {
                plan: AttemptPlan {
                    attempt: count_out(plan.attempt),
                    timeout_ms: long_out(plan.timeout_ms),
                    abort_at_ms: long_out(plan.abort_at_ms),
                    request_id: plan.request_id.to_string(),
                    remaining_budget_ms: long_out(plan.remaining_budget_ms),
                    hedge: plan.hedge,
                    send_idempotency_key: plan.send_idempotency_key,
                },
            },
            rp::Action::AbortAttempt { attempt, reason } => {
                Action::AbortAttempt { attempt: count_out(attempt), reason }
            }
            rp::Action::Sleep { until_ms } => Action::Sleep { until_ms: long_out(until_ms) },
            rp::Action::Release { token } => Action::Release { token: long_out(token) },
            rp::Action::Finish(ending) => Action::Finish { ending: ending.into() },
        }
    }
}

impl From<rp::Event> for Event {
    fn from(event: rp::Event) -> Self {
        Event { at_ms: long_out(event.at_ms), decision: event.decision.into(), after: event.after.map(Into::into) }
    }
}

/// The driver and an event the hot path could not encode (kept for the typed `poll_event`).
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) driver: rp::Driver,
    pub(crate) stashed_event: Option<rp::Event>,
}

/// The host loop of one operation (the core's `Driver`): results in, one
/// `Action` out per poll. Thread-safe: calls are serialised by a lock, so
/// attempts running on other threads may hand in their results themselves.
#[derive(Debug, uniffi::Object)]
pub struct Driver(pub(crate) Mutex<State>);

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
        let now_ms = clock_in("now_ms", now_ms)?;
        let core_options = rp::DriverOptions {
            concurrency: driver_options.concurrency.unwrap_or_default(),
            stats: driver_options.stats.map(|stats| Arc::clone(&stats.0)),
            record_events: driver_options.record_events,
            ..rp::DriverOptions::default()
        };
        let driver = rp::Driver::new(&policy.0, now_ms, options.into_core()?, core_options)?;
        let driver = Arc::new(Driver(Mutex::new(State { driver, stashed_event: None })));
        hot_driver::DRIVERS.register(&driver);
        Ok(driver)
    }

    /// What to do now.
    pub fn poll_action(&self, now_ms: i64) -> Result<Action> {
        Ok(self.action(clock_in("now_ms", now_ms)?).into())
    }

    /// Hands in how attempt `attempt` ended, as observed at `now_ms`.
    pub fn handle_result(&self, now_ms: i64, attempt: i32, outcome: Outcome) -> Result<rp::Receipt> {
        self.result(clock_in("now_ms", now_ms)?, u32_in("attempt", attempt)?, outcome.try_into()?)
    }

    /// Hands in attempt `attempt`'s failure, named in the vocabulary (its outcome is the core's).
    pub fn handle_failure(&self, now_ms: i64, attempt: i32, failure: rp::Failure) -> Result<rp::Receipt> {
        self.result(clock_in("now_ms", now_ms)?, u32_in("attempt", attempt)?, failure.outcome())
    }

    /// The caller abandons the operation: it gives up (`cancelled`) and every running attempt is aborted.
    pub fn handle_cancel(&self, now_ms: i64) -> Result<()> {
        self.cancel(clock_in("now_ms", now_ms)?);
        Ok(())
    }

    /// The oldest recorded event not yet read (only with `record_events`).
    pub fn poll_event(&self) -> Option<Event> {
        let mut state = lock(&self.0);
        state.stashed_event.take().or_else(|| state.driver.poll_event()).map(Into::into)
    }

    /// The operation's idempotency key (the same on every attempt).
    pub fn idempotency_key(&self) -> String {
        lock(&self.0).driver.idempotency_key().as_str().to_owned()
    }

    /// `min(start + total_budget_ms, caller deadline)`.
    pub fn deadline_ms(&self) -> i64 {
        long_out(lock(&self.0).driver.operation().deadline_ms())
    }

    /// A response's outcome (`outcome_from_http_response`), `Retry-After` read
    /// as this operation's policy says (`server_guidance.retry_after_reading`):
    /// how every HTTP helper reads a response. `headers` needs only those named
    /// in `guidance_headers()` (names in any case).
    pub fn read_response(&self, status: i32, headers: HashMap<String, String>, now_unix_ms: i64) -> Result<Outcome> {
        let reading = lock(&self.0).driver.operation().policy().server_guidance().retry_after_reading;
        outcome_from_http_response(status, headers, now_unix_ms, reading)
    }

    /// True once the operation has ended.
    pub fn is_ended(&self) -> bool {
        lock(&self.0).driver.is_ended()
    }
}

/// The core's answers, shared by the uniffi methods above and the hot path (`hot_driver.rs`).
impl Driver {
    pub(crate) fn action(&self, now_ms: u64) -> rp::Action {
        lock(&self.0).driver.poll_action(now_ms)
    }

    pub(crate) fn result(&self, now_ms: u64, attempt: u32, outcome: rp::Outcome) -> Result<rp::Receipt> {
        Ok(lock(&self.0).driver.handle_result(now_ms, attempt, outcome)?)
    }

    pub(crate) fn cancel(&self, now_ms: u64) {
        lock(&self.0).driver.handle_cancel(now_ms);
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        hot_driver::DRIVERS.unregister(self);
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
    rp::GUIDANCE_HEADERS.iter().map(|name| (*name).to_owned()).collect()
}

/// The header carrying the operation's idempotency key (`Idempotency-Key`).
#[uniffi::export]
pub fn idempotency_key_header() -> String {
    rp::IDEMPOTENCY_KEY_HEADER.to_owned()
}

/// The header carrying each attempt's request id (`X-Request-Id`).
#[uniffi::export]
pub fn request_id_header() -> String {
    rp::REQUEST_ID_HEADER.to_owned()
}
