//! What a driver tells its host to do, and what it tells it back about a result.

use serde::Serialize;

use crate::ground::message::{message, Arg, Message, Rule};
use crate::ground::named::Named;
use crate::outcomes::classify::Outcome;
use crate::outcomes::decision::{Decision, RequestId};

/// One thing the host must do now. [`Driver::poll_action`](crate::Driver::poll_action)
/// returns exactly one; all times are absolute milliseconds on the host's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Start this attempt now, carrying out the plan; report how it ended
    /// with [`Driver::handle_result`](crate::Driver::handle_result).
    StartAttempt(AttemptPlan),
    /// Abort this running attempt (cancel its I/O, close what it opened). Any
    /// result it still delivers is discarded.
    AbortAttempt {
        /// The attempt to abort.
        attempt: u32,
        /// Why.
        reason: AbortReason,
    },
    /// Sleep until `until_ms`, waking early when an attempt delivers a result
    /// or the caller cancels; then poll again.
    Sleep {
        /// When to poll again at the latest.
        until_ms: u64,
    },
    /// Close or drop what the host holds under `token` now (a response body,
    /// a value): the driver will never name it again. Sent for a result the
    /// host handed in with a token once a later result replaces it, once the
    /// driver counts a later attempt as timed out, or at the end when the
    /// ending neither returns nor raises it. A result the driver discards is
    /// not released this way: its [`Receipt::Discarded`] says so at once.
    Release {
        /// The host's token for that result.
        token: u64,
    },
    /// The operation has ended: return or raise [`Ending::decision`] as
    /// [`Ending::result`] says. Every poll from now on returns the same ending.
    Finish(Ending),
}

/// Everything a host needs to send one attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AttemptPlan {
    /// Attempt number, 1 for the first.
    pub attempt: u32,
    /// The effective timeout: `min(per-attempt timeout, time left)`.
    /// Propagate it downstream (e.g. as `grpc-timeout`).
    pub timeout_ms: u64,
    /// When the driver counts the attempt as timed out: now + `timeout_ms`.
    /// A host that can interrupt the attempt aborts it then; a result that
    /// arrives at or after this time is discarded either way.
    pub abort_at_ms: u64,
    /// A fresh id for this attempt's request (send it as `X-Request-Id`).
    pub request_id: RequestId,
    /// Time left at the start, after the response reserve.
    pub remaining_ms: u64,
    /// True for a hedge: an extra attempt while another still runs.
    pub hedge: bool,
    /// True when the request carries the operation's idempotency key (keyed
    /// or unsafe operations, see [`crate::outcomes::http`]; or a key the caller sent,
    /// which travels unchanged: [`Driver::with_incoming`](crate::Driver::with_incoming)).
    pub send_idempotency_key: bool,
}

/// Why the driver aborts a running attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AbortReason {
    /// It reached its `abort_at_ms`; it counts as `timed_out`.
    TimedOut,
    /// Another attempt's success won the race.
    LostRace,
    /// The caller cancelled the operation.
    Cancelled,
    /// The operation ended otherwise (gave up, reconcile, restart).
    OperationEnded,
}

impl AbortReason {
    /// Every reason, in declaration order.
    pub const ALL: [AbortReason; 4] =
        [AbortReason::TimedOut, AbortReason::LostRace, AbortReason::Cancelled, AbortReason::OperationEnded];
}

impl Named for AbortReason {
    const ALL: &'static [Self] = &AbortReason::ALL;
    fn name(self) -> &'static str {
        match self {
            AbortReason::TimedOut => "timed_out",
            AbortReason::LostRace => "lost_race",
            AbortReason::Cancelled => "cancelled",
            AbortReason::OperationEnded => "operation_ended",
        }
    }
}

crate::ground::named::named_serde!(AbortReason);

/// How an operation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Ending {
    /// The final decision: `Succeeded`, `GaveUp`, `Reconcile` or `Restart`.
    pub decision: Decision,
    /// The last attempt result the driver took into account (a host's report,
    /// or a timeout it counted itself); `None` when no attempt ended before
    /// the operation did. For `Succeeded` it is the winner's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_result: Option<AttemptResult>,
    /// What the host does with the one result it still holds, when the last
    /// result was handed in with a token: return it, or raise the ending with
    /// it (an error as its cause, a function's value as its last value).
    /// `None` when the host holds nothing the ending needs (a response it
    /// does not return was released before this action): raise the ending
    /// alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<EndingResult>,
    /// The status the last result's response came with when it was no HTTP
    /// status (outside 100..=599: the platform gave 999, 0, -1, 70000 ...),
    /// or an interim 1xx but 101 that the client returned as the answer,
    /// which the driver read as a malformed response
    /// ([`Failure::MalformedResponse`](crate::Failure::MalformedResponse):
    /// `last_result` is then a lost connection, and the status is known only
    /// here); `None` otherwise. The ending's words name it
    /// ([`Ending::message`]): the outcome alone would tell the caller a
    /// connection was lost. Not part of the serialized form (nor the driver
    /// transcripts).
    #[serde(skip)]
    pub malformed_status: Option<i64>,
}

impl Ending {
    /// The whole text of the typed ending a helper raises for this ending
    /// ([`Decision::ending_message_after`] with the last result's outcome):
    /// the ending's words, and the hint naming `error_hook` (the helper's hook
    /// that classifies errors) when the last attempt raised an error nothing
    /// classified; not when the ending is raised with a value (a value the
    /// caller's `outcomeOfResult` judged ambiguous: no error to classify).
    /// When the last response's status was no HTTP status
    /// ([`malformed_status`](Ending::malformed_status)), the words say so
    /// after `"; "`: the status, and that the core read it as a malformed
    /// response, the server's fault. `operation` names the operation as its
    /// helper knows it, `idempotency_key` is the key its helper sent with it
    /// ([`Driver::idempotency_key`](crate::Driver::idempotency_key); None when
    /// the helper sends none, as [`Decision::ending_message`] reads it). None
    /// for a success.
    ///
    /// ```
    /// use retryplan::{AttemptResult, Decision, Ending, Failure, Outcome, Verdict};
    /// let ending = Ending {
    ///     decision: Decision::Reconcile { attempts: 1, remaining_ms: 0, abort_attempts: Default::default() },
    ///     last_result: Some(AttemptResult { attempt: 1, outcome: Outcome::Application { verdict: Verdict::UNKNOWN_ERROR } }),
    ///     result: None,
    ///     malformed_status: None,
    /// };
    /// let message = ending.message("place_order", Some("k-1"), "outcome_of_error=").unwrap().to_string();
    /// assert!(message.starts_with("retryplan: place_order: the write may have happened"));
    /// assert!(message.ends_with(&Verdict::unknown_error_hint("outcome_of_error=").to_string()));
    /// let last_result = Some(AttemptResult { attempt: 1, outcome: Failure::MalformedResponse.outcome() });
    /// let status_999 = Ending { last_result, malformed_status: Some(999), ..ending };
    /// assert_eq!(
    ///     status_999.message("POST http://127.0.0.1/orders", Some("k-1"), "outcome_of_error=").unwrap().to_string(),
    ///     "retryplan: POST http://127.0.0.1/orders: the write may have happened; do not repeat it blindly: look it up \
    ///      (reconcile it) by its idempotency key \"k-1\"; the last response's status 999 is no HTTP status \
    ///      (100..=599): read as a malformed response, the server's fault"
    /// );
    /// ```
    #[must_use]
    pub fn message(&self, operation: &str, idempotency_key: Option<&str>, error_hook: &str) -> Option<Message> {
        let last_outcome = self.last_result.map(|result| result.outcome);
        let raised_with_value = matches!(self.result, Some(EndingResult { returned: false, held: Held::Value, .. }));
        let words = self.decision.ending_message_after(
            last_outcome,
            raised_with_value,
            operation,
            idempotency_key,
            error_hook,
        )?;
        Some(match self.malformed_status {
            Some(status) => {
                let interim = u16::try_from(status).is_ok_and(crate::outcomes::classify::is_interim);
                let hint = if interim { message!(InterimStatus, status) } else { message!(MalformedStatus, status) };
                Message::new(Rule::EndingWithHint, alloc::vec![Arg::from(words), Arg::from(hint)])
            }
            None => words,
        })
    }
}

/// The one held result an ending concerns (see [`Ending::result`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EndingResult {
    /// The host's token for it.
    pub token: u64,
    /// True: return the value held under `token` (the winner's on success;
    /// for a host that returns responses, the last response unless the ending
    /// is a reconcile or the caller's cancel). False: raise the typed ending
    /// with what is held under `token`: an error as its cause; a value, which
    /// only a host of functions is left holding (a host of responses is told
    /// to close a response the ending does not return), as the ending's last
    /// value (the typed ending carries it), dropped after.
    pub returned: bool,
    /// Until when (the host's monotonic ms) the returned value stays the
    /// caller's to read: the abort time of the attempt that produced it when
    /// the ending returns it (`returned`) and is not [`Decision::Succeeded`]
    /// (a host that returns responses handing back the last failed one, a
    /// 503 after the retries ran out: its body is read within its attempt's
    /// window, then cut). `None` otherwise: a success's value is the caller's
    /// without limit, and a raised ending returns nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readable_until_ms: Option<u64>,
    /// What the host handed the result in as: a value or an error. The host
    /// knows it already, so it is not part of the serialized form (nor the
    /// driver transcripts); [`Ending::message`] reads it, so that an ending
    /// raised with a value never carries the hint about an unknown error.
    #[serde(skip)]
    pub held: Held,
}

/// What a host holds under the token of a result it hands in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Held {
    /// A value the attempt returned: a response (whose body may need
    /// closing) or a function's result.
    #[default]
    Value,
    /// An error the attempt raised.
    Error,
}

impl Named for Held {
    const ALL: &'static [Self] = &[Held::Value, Held::Error];
    fn name(self) -> &'static str {
        match self {
            Held::Value => "value",
            Held::Error => "error",
        }
    }
}

crate::ground::named::named_serde!(Held);

/// An attempt and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AttemptResult {
    /// The attempt number.
    pub attempt: u32,
    /// How it ended.
    pub outcome: Outcome,
}

/// What the driver did with a result the host handed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Receipt {
    /// The result counts: it may decide the operation. Keep the value it
    /// carried as the operation's latest (closing the one it replaces).
    Accepted,
    /// The attempt had already been counted as timed out or aborted, or the
    /// operation had ended: the result is ignored. Dispose of what it carried
    /// (close a response body, drop a value).
    Discarded,
}

impl Named for Receipt {
    const ALL: &'static [Self] = &[Receipt::Accepted, Receipt::Discarded];
    fn name(self) -> &'static str {
        match self {
            Receipt::Accepted => "accepted",
            Receipt::Discarded => "discarded",
        }
    }
}

crate::ground::named::named_serde!(Receipt);

/// A decision the engine made, for observers (logs, metrics, the helpers'
/// `on_decision` hooks): recorded when
/// [`DriverOptions::record_events`](crate::DriverOptions::record_events) is set,
/// read with [`Driver::poll_event`](crate::Driver::poll_event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    /// When it was made (the host's clock reading).
    pub at_ms: u64,
    /// The decision: each attempt start, each wait and hedge-wait that
    /// follows a result, and the ending, each once.
    pub decision: Decision,
    /// The result that led to it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<AttemptResult>,
}
