//! The driver's side of [`propagation`](crate::propagation): started from
//! an incoming context, it writes each attempt's request headers and the
//! answer's headers, so no host computes them.

use super::Driver;
use crate::error::Error;
use crate::operation::{OperationOptions, SharedPolicy};
use crate::policy::{HeaderFamily, RetryLayer};
use crate::propagation::{
    answer_headers, answers_do_not_retry, request_headers, HeaderList, IncomingContext, Protocol,
};

use super::DriverOptions;

impl Driver {
    /// [`Driver::new`] for an operation that serves a request whose context
    /// the host read with [`IncomingContext::read`]: the operation ends by
    /// the caller's deadline minus `propagation.reserve_ms` (or its own
    /// budget's end, whichever is earlier; so does every attempt's abort
    /// time, and it gives up `deadline_insufficient` when too little
    /// remains), runs under the caller's idempotency key, and, when the
    /// caller retries and `propagation.retry_layer` is `outermost`, makes one
    /// attempt and no hedge (a retryable failure then ends
    /// `attempts_exhausted`, handed back for the caller to retry).
    ///
    /// ```
    /// use retryplan::{propagation::{IncomingContext, Protocol}, Action, Driver, DriverOptions, OperationOptions, Policy};
    /// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 3000}}"#).unwrap();
    /// let headers = [("retryplan-timeout-ms", "1000"), ("retryplan-caller-retries", "?1"), ("idempotency-key", "k-1")];
    /// let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
    /// let incoming = IncomingContext::read(&policy, 500, lookup).unwrap();
    /// let mut driver = Driver::with_incoming(&policy, 500, OperationOptions::new(7), DriverOptions::default(), &incoming).unwrap();
    /// let Action::StartAttempt(plan) = driver.poll_action(500) else { unreachable!() };
    /// // 500 + 1000 - 20 (the way back) - 50 (the response reserve): 930 ms, not 3000.
    /// assert_eq!((plan.timeout_ms, plan.abort_at_ms), (930, 1_430));
    /// let out = driver.outgoing_headers(1, 500, Protocol::Grpc).unwrap();
    /// assert_eq!(out.get("grpc-timeout"), Some("930000u"));
    /// assert_eq!(out.get("idempotency-key"), Some("k-1"));
    /// ```
    ///
    /// # Errors
    /// As [`Driver::new`].
    pub fn with_incoming(
        policy: impl SharedPolicy,
        now_ms: u64,
        options: OperationOptions,
        driver_options: DriverOptions,
        incoming: &IncomingContext,
    ) -> Result<Driver, Error> {
        let policy = policy.share();
        let propagation = policy.propagation();
        let mut options = options;
        if let Some(deadline_ms) = incoming.deadline_ms(propagation.reserve_ms) {
            options = options.with_earlier_deadline_ms(deadline_ms);
        }
        if let Some(key) = &incoming.idempotency_key {
            options = options.with_idempotency_key(key.clone());
        }
        if incoming.caller_retries && propagation.retry_layer == RetryLayer::Outermost {
            options = options.with_retries_delegated();
        }
        let mut driver = Driver::new(&policy, now_ms, options, driver_options)?;
        driver.caller_retries = incoming.caller_retries;
        driver.key_from_caller = incoming.idempotency_key.is_some();
        Ok(driver)
    }

    /// The request headers of running attempt `attempt`, sent at `now_ms`
    /// to a next hop that speaks `protocol` (see
    /// [`propagation`](crate::propagation) for the wire form): the time
    /// left for the attempt (its abort time minus now; for gRPC a
    /// `grpc-timeout` in the finest unit that holds it exactly), its number
    /// (gRPC: `grpc-previous-rpc-attempts` on retries and hedges), the
    /// idempotency key when the policy sends it or the caller gave it, and
    /// `retryplan-caller-retries`: `?1` when this layer or one above it may
    /// retry the request.
    ///
    /// # Errors
    /// [`Error::AttemptNotRunning`] when `attempt` is not running.
    pub fn outgoing_headers(&self, attempt: u32, now_ms: u64, protocol: Protocol) -> Result<HeaderList, Error> {
        let operation = &self.operation;
        let abort_at_ms = operation
            .abort_at_ms(attempt)
            .ok_or_else(|| Error::AttemptNotRunning { attempt, running: operation.running_list() })?;
        let key = (operation.sends_idempotency_key() || self.key_from_caller).then(|| operation.idempotency_key());
        let retried_above = self.caller_retries || operation.may_retry();
        Ok(request_headers(protocol, attempt, abort_at_ms.saturating_sub(now_ms), key, retried_above))
    }

    /// The headers of the answer this layer gives its own caller, once the
    /// operation has ended: "do not retry" when it gave up because of
    /// overload or its retry budget ([`answers_do_not_retry`]), else none
    /// (and none before the end).
    #[must_use]
    pub fn answer_headers(&self, protocol: Protocol) -> HeaderList {
        let do_not_retry = self.ended().is_some_and(|ending| answers_do_not_retry(&ending));
        answer_headers(protocol, do_not_retry)
    }

    /// Whether responses' `retryplan-retryable` is read: the policy honours
    /// server guidance and reads the `retryplan` headers.
    pub(super) fn reads_declined_retry(&self) -> bool {
        let policy = self.operation.policy();
        policy.server_guidance().honor && policy.propagation().read_headers.contains(HeaderFamily::Retryplan)
    }
}
