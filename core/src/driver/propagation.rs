//! The driver's side of [`propagation`](crate::propagation): started from
//! an incoming context, it writes each attempt's request headers and the
//! answer's headers, so no host computes them.

use super::Driver;
use crate::config::error::Error;
use crate::engine::operation::{OperationOptions, SharedPolicy};
use crate::policy::HeaderFamily;
use crate::propagation::{Answer, HeaderList, IncomingContext, Protocol};

use super::DriverOptions;

impl Driver {
    /// [`Driver::new`] for an operation that serves a request whose context
    /// the host read with [`IncomingContext::read`]
    /// ([`OperationOptions::with_incoming`]): the operation ends by
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
    /// let Action::StartAttempt(plan) = driver.poll_action(500).unwrap() else { unreachable!() };
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
        Driver::new(&policy, now_ms, options.with_incoming(&policy, incoming), driver_options)
    }

    /// The request headers of running attempt `attempt`, sent at `now_ms`
    /// to a next hop that speaks `protocol`: [`Operation::outgoing_headers`](crate::Operation::outgoing_headers).
    ///
    /// # Errors
    /// [`Error::AttemptNotRunning`] when `attempt` is not running.
    pub fn outgoing_headers(&self, attempt: u32, now_ms: u64, protocol: Protocol) -> Result<HeaderList, Error> {
        self.operation.outgoing_headers(attempt, now_ms, protocol)
    }

    /// The headers of the answer this layer gives its own caller, once the
    /// operation has ended: "do not retry" when it gave up because of
    /// overload or its retry budget ([`answers_do_not_retry`](crate::propagation::answers_do_not_retry)),
    /// else none (and none before the end): the [`Answer`] of this one operation.
    #[must_use]
    pub fn answer_headers(&self, protocol: Protocol) -> HeaderList {
        let mut answer = Answer::new();
        if let Some(ending) = self.ended() {
            answer.record(&ending);
        }
        answer.headers(protocol)
    }

    /// Whether responses' `retryplan-retryable` is read: the policy honours
    /// server guidance and reads the `retryplan` headers.
    pub(super) fn reads_declined_retry(&self) -> bool {
        let policy = self.operation.policy();
        policy.server_guidance().honor && policy.propagation().read_headers.contains(HeaderFamily::Retryplan)
    }
}
