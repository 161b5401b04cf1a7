//! Decisions: what the caller must do now, with the reason and the numbers behind it.

use serde::{Deserialize, Serialize};

/// An identifier for one attempt's request: 64 bits shown as 16 lowercase hex digits.
///
/// Derived from the operation's seed and the attempt number, so it is fresh
/// per attempt and reproducible in tests. Send it as a request-id header so
/// server logs can tell attempts apart; the idempotency key stays the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

impl core::fmt::Display for RequestId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        if text.len() != 16 {
            return Err(serde::de::Error::custom("a request id is 16 hex digits"));
        }
        u64::from_str_radix(&text, 16).map(RequestId).map_err(serde::de::Error::custom)
    }
}

/// Why an operation gave up. Stable snake_case names in JSON and every binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GiveUpReason {
    /// The last allowed attempt failed (`max_attempts` counts the first).
    AttemptsExhausted,
    /// What remains of the budget (after the response reserve) cannot hold the
    /// next wait plus a minimum useful attempt.
    DeadlineInsufficient,
    /// The server asked for a wait that, plus a minimum useful attempt, does
    /// not fit in what remains of the budget.
    RetryAfterExceedsBudget,
    /// The server asked for a wait above `server_guidance.cap_ms` and the
    /// policy says to give up rather than clamp.
    RetryAfterAboveCap,
    /// The server's gRPC pushback said not to retry.
    ServerDeclinedRetry,
    /// The outcome is not worth another attempt.
    NotRetryable,
    /// The caller cancelled.
    Cancelled,
}

impl GiveUpReason {
    /// Every reason, in declaration order.
    pub const ALL: [GiveUpReason; 7] = [
        GiveUpReason::AttemptsExhausted,
        GiveUpReason::DeadlineInsufficient,
        GiveUpReason::RetryAfterExceedsBudget,
        GiveUpReason::RetryAfterAboveCap,
        GiveUpReason::ServerDeclinedRetry,
        GiveUpReason::NotRetryable,
        GiveUpReason::Cancelled,
    ];

    /// The stable snake_case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            GiveUpReason::AttemptsExhausted => "attempts_exhausted",
            GiveUpReason::DeadlineInsufficient => "deadline_insufficient",
            GiveUpReason::RetryAfterExceedsBudget => "retry_after_exceeds_budget",
            GiveUpReason::RetryAfterAboveCap => "retry_after_above_cap",
            GiveUpReason::ServerDeclinedRetry => "server_declined_retry",
            GiveUpReason::NotRetryable => "not_retryable",
            GiveUpReason::Cancelled => "cancelled",
        }
    }
}

impl core::fmt::Display for GiveUpReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the caller must do now. Exactly one per call; all times are absolute
/// milliseconds on the caller's monotonic clock.
///
/// An ending (`Succeeded`, `GaveUp`, `Reconcile`, `Restart`) also means:
/// abort any attempt still running.
///
/// `StartAttempt` and the four endings (`Succeeded`, `GaveUp`, `Reconcile`,
/// `Restart`) are each returned exactly once; `Wait` and `AwaitOutcome` are
/// returned again by every [`poll`](crate::Operation::poll) until their time
/// comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Decision {
    /// Start attempt `attempt` now; abort it at `abort_at_ms` (that is,
    /// after `timeout_ms`), then report its [`Outcome`](crate::Outcome) with
    /// [`on_outcome`](crate::Operation::on_outcome).
    StartAttempt {
        /// Attempt number, 1 for the first.
        attempt: u32,
        /// The effective timeout: `min(per-attempt timeout, remaining budget)`.
        /// Propagate it downstream (e.g. as `grpc-timeout`).
        timeout_ms: u64,
        /// When to abort the attempt: now + `timeout_ms`.
        abort_at_ms: u64,
        /// A fresh id for this attempt's request.
        request_id: RequestId,
        /// Budget left at the start, after the response reserve.
        remaining_budget_ms: u64,
    },
    /// Sleep until `until_ms` (cancellably), then call
    /// [`poll`](crate::Operation::poll).
    Wait {
        /// Retry number this wait precedes (0 = first retry).
        retry: u32,
        /// The delay: the jittered backoff, raised to any server guidance.
        delay_ms: u64,
        /// When to poll again: now + `delay_ms`.
        until_ms: u64,
        /// The server's requested delay after the policy's cap, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server_delay_ms: Option<u64>,
        /// Budget left now, after the response reserve.
        remaining_budget_ms: u64,
    },
    /// Attempts are running: report each one's outcome, and poll again at
    /// `until_ms` at the latest (the earliest abort time of a running attempt).
    AwaitOutcome {
        /// How many attempts are running.
        in_flight: u32,
        /// When to poll again at the latest.
        until_ms: u64,
    },
    /// The operation succeeded. It has ended.
    Succeeded {
        /// Attempts made, the successful one included.
        attempts: u32,
    },
    /// The operation gave up; `reason` says why. It has ended.
    GaveUp {
        /// Why.
        reason: GiveUpReason,
        /// Attempts made.
        attempts: u32,
        /// Budget left now, after the response reserve.
        remaining_budget_ms: u64,
        /// The wait that was considered and refused, if one was computed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        refused_delay_ms: Option<u64>,
    },
    /// The last attempt of an unsafe write may have been processed: do not
    /// repeat it; query the outcome by the operation's idempotency key (its
    /// operation id). It has ended.
    Reconcile {
        /// Attempts made.
        attempts: u32,
        /// Budget left now, after the response reserve, for the reconciliation.
        remaining_budget_ms: u64,
    },
    /// A conflict: re-read the current state, recompute the change and start
    /// a new operation with `deadline_ms` as its caller deadline (no layer
    /// mints time). It has ended.
    Restart {
        /// Attempts made.
        attempts: u32,
        /// The deadline the redone unit must respect.
        deadline_ms: u64,
        /// Budget left now, after the response reserve.
        remaining_budget_ms: u64,
    },
}

impl Decision {
    /// True for the four endings: `Succeeded`, `GaveUp`, `Reconcile`, `Restart`.
    #[must_use]
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            Decision::Succeeded { .. }
                | Decision::GaveUp { .. }
                | Decision::Reconcile { .. }
                | Decision::Restart { .. }
        )
    }

    /// The snake_case name of the decision's kind, as in JSON's `type`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Decision::StartAttempt { .. } => "start_attempt",
            Decision::Wait { .. } => "wait",
            Decision::AwaitOutcome { .. } => "await_outcome",
            Decision::Succeeded { .. } => "succeeded",
            Decision::GaveUp { .. } => "gave_up",
            Decision::Reconcile { .. } => "reconcile",
            Decision::Restart { .. } => "restart",
        }
    }
}
