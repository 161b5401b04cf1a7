//! Decisions: what the caller must do now, with the reason and the numbers behind it.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::ground::message::{Arg, Message, Rule};
use crate::outcomes::classify::{Outcome, Verdict};

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

impl RequestId {
    /// The id `text` spells: exactly 16 hex digits (either case; [`Display`](core::fmt::Display)
    /// writes lowercase), or None for any other text (a sign, a space, 15 or 17 digits). The one
    /// rule for reading a request id, serde's and [`Decision::from_value`]'s.
    pub(crate) fn from_hex(text: &str) -> Option<RequestId> {
        if text.len() != 16 || !text.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(text, 16).ok().map(RequestId)
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <alloc::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        RequestId::from_hex(&text).ok_or_else(|| serde::de::Error::custom("a request id is 16 hex digits"))
    }
}

/// A set of attempt numbers (1..=128), e.g. the attempts to abort.
/// Serialized as an ascending list; debug-printed as the set of its numbers.
///
/// ```
/// use retryplan::outcomes::decision::AttemptSet;
/// let mut set = AttemptSet::EMPTY;
/// set.insert(4);
/// set.insert(3);
/// assert_eq!(format!("{set:?}"), "{3, 4}");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AttemptSet(u128);

/// The attempt numbers, ascending (`{3, 4}`), not the bits that hold them.
impl core::fmt::Debug for AttemptSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl AttemptSet {
    /// The empty set.
    pub const EMPTY: AttemptSet = AttemptSet(0);

    /// Adds an attempt number (numbers outside 1..=128 are ignored).
    pub fn insert(&mut self, attempt: u32) {
        if let Some(bit) = attempt.checked_sub(1).filter(|bit| *bit < 128) {
            self.0 |= 1 << bit;
        }
    }

    /// Removes an attempt number (absent numbers are ignored).
    pub fn remove(&mut self, attempt: u32) {
        if let Some(bit) = attempt.checked_sub(1).filter(|bit| *bit < 128) {
            self.0 &= !(1 << bit);
        }
    }

    /// True when the set holds `attempt`.
    #[must_use]
    pub fn contains(&self, attempt: u32) -> bool {
        attempt.checked_sub(1).filter(|bit| *bit < 128).is_some_and(|bit| self.0 & (1 << bit) != 0)
    }

    /// True when the set is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// How many attempts the set holds.
    #[must_use]
    pub fn len(&self) -> u32 {
        self.0.count_ones()
    }

    /// The set as four 32-bit words, the form every wire and binding carries
    /// it in: word `w` holds attempts `32 * w + 1..=32 * w + 32`, attempt `n`
    /// as bit `(n - 1) % 32` of word `(n - 1) / 32` (the decision record's
    /// `aborts_1`, `aborts_33`, `aborts_65` and `aborts_97`).
    ///
    /// ```
    /// use retryplan::AttemptSet;
    /// let mut set = AttemptSet::EMPTY;
    /// for attempt in [1, 32, 33, 66, 128] {
    ///     set.insert(attempt);
    /// }
    /// assert_eq!(set.words(), [1 | 1 << 31, 1, 0b10, 1 << 31]);
    /// ```
    #[must_use]
    pub fn words(&self) -> [u32; 4] {
        [0, 1, 2, 3].map(|word| (self.0 >> (32 * word)) as u32)
    }

    /// The attempt numbers in ascending order (one step per member: every
    /// ending walks its `abort_attempts`, mostly empty).
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let mut bits = self.0;
        core::iter::from_fn(move || {
            let lowest = bits.trailing_zeros();
            bits &= bits.wrapping_sub(1);
            (lowest < 128).then_some(lowest + 1)
        })
    }
}

impl Serialize for AttemptSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for AttemptSet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let attempts = Vec::<u32>::deserialize(deserializer)?;
        let mut set = AttemptSet::EMPTY;
        for attempt in attempts {
            if !(1..=128).contains(&attempt) {
                return Err(serde::de::Error::custom("attempt numbers are 1..=128"));
            }
            set.insert(attempt);
        }
        Ok(set)
    }
}

/// Why an operation gave up. Stable snake_case names in JSON and every binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GiveUpReason {
    /// The last allowed attempt failed (`max_attempts` counts the first).
    AttemptsExhausted,
    /// The time left (after the response reserve) cannot hold the
    /// next wait plus a minimum useful attempt.
    DeadlineInsufficient,
    /// The server asked for a wait that, plus a minimum useful attempt, does
    /// not fit in the time left.
    RetryAfterExceedsDeadline,
    /// The server asked for a wait above `server_guidance.cap_ms` and the
    /// policy says to give up rather than clamp.
    RetryAfterAboveCap,
    /// The server's gRPC pushback said not to retry.
    ServerDeclinedRetry,
    /// The outcome is not worth another attempt.
    NotRetryable,
    /// The caller cancelled.
    Cancelled,
    /// The dependency's retry budget refused the retry.
    BudgetExhausted,
    /// The dependency's circuit breaker is open.
    CircuitOpen,
    /// Every retry slot of the dependency is in use.
    NoRetrySlot,
    /// The request's body can be sent only once (a stream), so the retry the
    /// outcome called for was not made.
    ///
    /// See [`OperationOptions::with_one_shot_body`](crate::OperationOptions::with_one_shot_body).
    BodyNotReplayable,
}

impl crate::ground::named::Named for GiveUpReason {
    const ALL: &'static [Self] = &GiveUpReason::ALL;
    fn name(self) -> &'static str {
        GiveUpReason::name(self)
    }
}

crate::ground::named::named_serde!(GiveUpReason);

impl GiveUpReason {
    /// Every reason, in declaration order.
    pub const ALL: [GiveUpReason; 11] = [
        GiveUpReason::AttemptsExhausted,
        GiveUpReason::DeadlineInsufficient,
        GiveUpReason::RetryAfterExceedsDeadline,
        GiveUpReason::RetryAfterAboveCap,
        GiveUpReason::ServerDeclinedRetry,
        GiveUpReason::NotRetryable,
        GiveUpReason::Cancelled,
        GiveUpReason::BudgetExhausted,
        GiveUpReason::CircuitOpen,
        GiveUpReason::NoRetrySlot,
        GiveUpReason::BodyNotReplayable,
    ];

    /// The stable snake_case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            GiveUpReason::AttemptsExhausted => "attempts_exhausted",
            GiveUpReason::DeadlineInsufficient => "deadline_insufficient",
            GiveUpReason::RetryAfterExceedsDeadline => "retry_after_exceeds_deadline",
            GiveUpReason::RetryAfterAboveCap => "retry_after_above_cap",
            GiveUpReason::ServerDeclinedRetry => "server_declined_retry",
            GiveUpReason::NotRetryable => "not_retryable",
            GiveUpReason::Cancelled => "cancelled",
            GiveUpReason::BudgetExhausted => "budget_exhausted",
            GiveUpReason::CircuitOpen => "circuit_open",
            GiveUpReason::NoRetrySlot => "no_retry_slot",
            GiveUpReason::BodyNotReplayable => "body_not_replayable",
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
/// An ending (`Succeeded`, `GaveUp`, `Reconcile`, `Restart`) lists in
/// `abort_attempts` the hedged attempts still running, which the caller aborts.
///
/// `StartAttempt` and the four endings (`Succeeded`, `GaveUp`, `Reconcile`,
/// `Restart`) are each returned exactly once; `Wait` and `AwaitOutcome` are
/// returned again by every [`poll`](crate::Operation::poll) until their time
/// comes.
///
/// Serialized as `{"type": "wait", "retry": 0, ...}` (absent optional fields
/// left out); read back by [`Decision::from_value`], serde's `Deserialize`
/// included (one reader of a decision: the old names `server_delay_ms` and
/// `in_flight` are read for one release, an unknown field is refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Decision {
    /// Start attempt `attempt` now; abort it at `abort_at_ms` (that is,
    /// after `timeout_ms`), then report its [`Outcome`] with
    /// [`on_outcome`](crate::Operation::on_outcome).
    StartAttempt {
        /// Attempt number, 1 for the first.
        attempt: u32,
        /// The effective timeout: `min(per-attempt timeout, time left)`.
        /// Propagate it downstream (e.g. as `grpc-timeout`).
        timeout_ms: u64,
        /// When to abort the attempt: now + `timeout_ms`.
        abort_at_ms: u64,
        /// A fresh id for this attempt's request.
        request_id: RequestId,
        /// Time left at the start, after the response reserve.
        remaining_ms: u64,
        /// True for a hedge: an extra attempt while another still runs (keep
        /// both; the first acceptable result wins).
        hedge: bool,
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
        /// The retry after: the wait the server asked for, as honored (after
        /// the policy's `cap_ms` and `max_above_backoff_ms`), if any.
        // Read under its old name too, for one release (issue 28): `Decision::from_value`.
        #[serde(skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
        /// Time left now, after the response reserve.
        remaining_ms: u64,
    },
    /// Attempts are running: report each one's outcome, and poll again at
    /// `until_ms` at the latest (the earliest abort time of a running attempt).
    /// It is in the past when a running attempt is past its abort time and
    /// not yet reported: abort it and report it timed out (the sleep until
    /// then is 0, not negative). A [`Driver`](crate::Driver) does this itself.
    AwaitOutcome {
        /// How many attempts are running.
        // Read under its old name too, for one release (issue 28): `Decision::from_value`.
        running: u32,
        /// When to poll again at the latest.
        until_ms: u64,
    },
    /// The operation succeeded. It has ended.
    Succeeded {
        /// Attempts made, the successful one included.
        attempts: u32,
        /// The attempt whose result won.
        winner: u32,
        /// Attempts still running that the caller must abort now.
        #[serde(skip_serializing_if = "AttemptSet::is_empty")]
        abort_attempts: AttemptSet,
    },
    /// The operation gave up; `reason` says why. It has ended.
    GaveUp {
        /// Why.
        reason: GiveUpReason,
        /// Attempts made.
        attempts: u32,
        /// Time left now, after the response reserve.
        remaining_ms: u64,
        /// The wait that was considered and refused, if one was computed.
        #[serde(skip_serializing_if = "Option::is_none")]
        refused_delay_ms: Option<u64>,
        /// Attempts still running that the caller must abort now.
        #[serde(skip_serializing_if = "AttemptSet::is_empty")]
        abort_attempts: AttemptSet,
    },
    /// The last attempt of an unsafe write may have been processed: do not
    /// repeat it; query the outcome by the operation's idempotency key (its
    /// operation id). It has ended.
    Reconcile {
        /// Attempts made.
        attempts: u32,
        /// Time left now, after the response reserve, for the reconciliation.
        remaining_ms: u64,
        /// Attempts still running that the caller must abort now.
        #[serde(skip_serializing_if = "AttemptSet::is_empty")]
        abort_attempts: AttemptSet,
    },
    /// A conflict: re-read the current state, recompute the change and start
    /// a new operation with `deadline_ms` as its caller deadline (no layer
    /// mints time). It has ended.
    Restart {
        /// Attempts made.
        attempts: u32,
        /// The deadline the redone unit must respect.
        deadline_ms: u64,
        /// Time left now, after the response reserve.
        remaining_ms: u64,
        /// Attempts still running that the caller must abort now.
        #[serde(skip_serializing_if = "AttemptSet::is_empty")]
        abort_attempts: AttemptSet,
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

    /// The words of the typed ending a helper raises for this decision: what
    /// happened and what to do, the same in every language (`GaveUp`,
    /// `Reconcile`, `Restart`; None for any other decision). `operation`
    /// names the operation as its helper knows it (a function's name, an
    /// HTTP request's method and URL), `idempotency_key` is the key its
    /// helper sent with it (None: the helper sent none, so a reconcile's
    /// words send the caller to other means, `ending_reconcile_key_not_sent`). The
    /// words alone: a helper raises [`Decision::ending_message_after`], which
    /// adds the hint after an error nothing classified.
    ///
    /// ```
    /// use retryplan::Decision;
    /// let reconcile = Decision::Reconcile { attempts: 1, remaining_ms: 1919, abort_attempts: Default::default() };
    /// let message = reconcile.ending_message("POST http://127.0.0.1:8080/orders", Some("k-1")).unwrap();
    /// assert_eq!(
    ///     message.to_string(),
    ///     "retryplan: POST http://127.0.0.1:8080/orders: the write may have happened; do not repeat it blindly: \
    ///      look it up (reconcile it) by its idempotency key \"k-1\""
    /// );
    /// // A helper that sent no key (JS `idempotencyKeyHeader: null`, Python `idempotency_key_header=None`):
    /// let message = reconcile.ending_message("POST /orders", None).unwrap();
    /// assert!(message.to_string().ends_with("by other means: no idempotency key was sent with it"));
    /// ```
    #[must_use]
    pub fn ending_message(&self, operation: &str, idempotency_key: Option<&str>) -> Option<Message> {
        let operation = Arg::Text(Cow::Owned(String::from(operation)));
        Some(match *self {
            Decision::GaveUp { reason, attempts, .. } => Message::new(
                Rule::EndingGaveUp,
                alloc::vec![operation, Arg::from(attempts_made(attempts)), Arg::from(reason.name())],
            ),
            Decision::Reconcile { .. } => match idempotency_key {
                Some(key) => Message::new(
                    Rule::EndingReconcile,
                    alloc::vec![operation, Arg::Text(Cow::Owned(String::from(key)))],
                ),
                None => Message::new(Rule::EndingReconcileKeyNotSent, alloc::vec![operation]),
            },
            Decision::Restart { .. } => Message::new(Rule::EndingRestart, alloc::vec![operation]),
            _ => return None,
        })
    }

    /// The whole text of the typed ending a helper raises: the ending's words
    /// ([`Decision::ending_message`]) and, when `last_outcome` (the last
    /// outcome the core took into account, [`Ending::last_result`](crate::Ending::last_result))
    /// is the application verdict every helper gives an error nothing
    /// classified ([`Verdict::UNKNOWN_ERROR`]), `"; "` and the hint naming
    /// `error_hook`, the helper's hook that classifies errors
    /// ([`Verdict::unknown_error_hint`]: `outcomeOfError` in JavaScript and
    /// Kotlin, `outcome_of_error=` in Python), unless `raised_with_value`: the
    /// ending is raised with a value (a function's value the caller's
    /// `outcomeOfResult` judged), and the hint speaks of an error. None for any decision but `GaveUp`, `Reconcile` and
    /// `Restart`. The one place that decides when an ending carries the hint;
    /// [`Ending::message`](crate::Ending::message) reads all three from a
    /// driver's ending.
    ///
    /// ```
    /// use retryplan::{Decision, Outcome, Verdict};
    /// let reconcile = Decision::Reconcile { attempts: 1, remaining_ms: 0, abort_attempts: Default::default() };
    /// let unknown = Outcome::Application { verdict: Verdict::UNKNOWN_ERROR };
    /// let message = reconcile.ending_message_after(Some(unknown), false, "placeOrder", Some("k-1"), "outcomeOfError").unwrap();
    /// assert_eq!(
    ///     message.to_string(),
    ///     format!("{}; {}", reconcile.ending_message("placeOrder", Some("k-1")).unwrap(), Verdict::unknown_error_hint("outcomeOfError"))
    /// );
    /// // Any other last outcome (or none), or an ending raised with a value: the ending's words alone.
    /// let conflict = Outcome::Application { verdict: Verdict::Conflict };
    /// let message = reconcile.ending_message_after(Some(conflict), false, "placeOrder", Some("k-1"), "outcomeOfError").unwrap();
    /// assert!(!message.to_string().contains("outcomeOfError"));
    /// let message = reconcile.ending_message_after(Some(unknown), true, "placeOrder", Some("k-1"), "outcomeOfError").unwrap();
    /// assert!(!message.to_string().contains("outcomeOfError"));
    /// ```
    #[must_use]
    pub fn ending_message_after(
        &self,
        last_outcome: Option<Outcome>,
        raised_with_value: bool,
        operation: &str,
        idempotency_key: Option<&str>,
        error_hook: &str,
    ) -> Option<Message> {
        let words = self.ending_message(operation, idempotency_key)?;
        Some(match last_outcome {
            Some(Outcome::Application { verdict: Verdict::UNKNOWN_ERROR }) if !raised_with_value => Message::new(
                Rule::EndingWithHint,
                alloc::vec![Arg::from(words), Arg::from(Verdict::unknown_error_hint(error_hook))],
            ),
            _ => words,
        })
    }

    /// What the decision says, in words, for a log line: attempts count from
    /// 1, a wait is a duration and the attempt it comes before (a `Wait`'s
    /// `retry` counts from 0), and no clock reading appears (`until_ms`,
    /// `abort_at_ms` and `deadline_ms` stay in the fields). The same words in
    /// every language.
    ///
    /// ```
    /// use retryplan::Decision;
    /// let wait = Decision::Wait { retry: 0, delay_ms: 250, until_ms: 98_250, retry_after_ms: None, remaining_ms: 900 };
    /// assert_eq!(wait.describe().to_string(), "wait 250 ms, before attempt 2");
    /// ```
    #[must_use]
    pub fn describe(&self) -> Message {
        match *self {
            Decision::StartAttempt { attempt, timeout_ms, hedge, .. } => Message::new(
                if hedge { Rule::StepStartHedge } else { Rule::StepStartAttempt },
                alloc::vec![Arg::from(attempt), Arg::from(timeout_ms)],
            ),
            Decision::Wait { retry, delay_ms, retry_after_ms, .. } => {
                // Retry r (from 0) is attempt r + 2, as in `retryplan explain`.
                let mut args = alloc::vec![Arg::from(delay_ms), Arg::from(u64::from(retry).saturating_add(2))];
                match retry_after_ms {
                    Some(server) => {
                        args.push(Arg::from(server));
                        Message::new(Rule::StepWaitServer, args)
                    }
                    None => Message::new(Rule::StepWait, args),
                }
            }
            Decision::AwaitOutcome { running, .. } => {
                Message::new(Rule::StepAwait, alloc::vec![Arg::from(attempts_made(running))])
            }
            Decision::Succeeded { attempts, winner, .. } => {
                Message::new(Rule::StepSucceeded, alloc::vec![Arg::from(winner), Arg::from(attempts_made(attempts))])
            }
            Decision::GaveUp { reason, attempts, .. } => Message::new(
                Rule::StepGaveUp,
                alloc::vec![Arg::from(attempts_made(attempts)), Arg::from(reason.name())],
            ),
            Decision::Reconcile { attempts, .. } => {
                Message::new(Rule::StepReconcile, alloc::vec![Arg::from(attempts_made(attempts))])
            }
            Decision::Restart { attempts, .. } => {
                Message::new(Rule::StepRestart, alloc::vec![Arg::from(attempts_made(attempts))])
            }
        }
    }
}

/// "1 attempt" or "n attempts".
fn attempts_made(attempts: u32) -> Message {
    match attempts {
        1 => Message::new(Rule::OneAttempt, Vec::new()),
        n => Message::new(Rule::Attempts, alloc::vec![Arg::from(n)]),
    }
}

#[cfg(test)]
mod tests {
    use super::{AttemptSet, Decision, GiveUpReason};
    use alloc::string::ToString;

    #[test]
    fn a_decision_is_read_under_the_old_names_of_renamed_fields_for_one_release() {
        let old = r#"{"type":"wait","retry":0,"delay_ms":5,"until_ms":9,"server_delay_ms":4,"remaining_ms":7}"#;
        let wait: Decision = serde_json::from_str(old).unwrap();
        assert_eq!(
            wait,
            Decision::Wait { retry: 0, delay_ms: 5, until_ms: 9, retry_after_ms: Some(4), remaining_ms: 7 }
        );
        let written = serde_json::to_string(&wait).unwrap();
        assert!(written.contains(r#""retry_after_ms":4"#) && !written.contains("server_delay_ms"), "{written}");
        let awaiting: Decision =
            serde_json::from_str(r#"{"type":"await_outcome","in_flight":2,"until_ms":9}"#).unwrap();
        assert_eq!(awaiting, Decision::AwaitOutcome { running: 2, until_ms: 9 });
        let both = r#"{"type":"await_outcome","in_flight":2,"running":2,"until_ms":9}"#;
        assert!(serde_json::from_str::<Decision>(both).is_err(), "both names at once is refused");
    }

    #[test]
    fn an_ending_says_what_happened_and_what_to_do() {
        let gave_up = |attempts| Decision::GaveUp {
            reason: GiveUpReason::DeadlineInsufficient,
            attempts,
            remaining_ms: 0,
            refused_delay_ms: None,
            abort_attempts: AttemptSet::EMPTY,
        };
        let text =
            |decision: Decision| decision.ending_message("GET http://h:81/a?b=1", Some("k")).map(|m| m.to_string());
        assert_eq!(
            text(gave_up(1)).unwrap(),
            "retryplan: GET http://h:81/a?b=1: gave up after 1 attempt: deadline_insufficient"
        );
        assert_eq!(
            text(gave_up(3)).unwrap(),
            "retryplan: GET http://h:81/a?b=1: gave up after 3 attempts: deadline_insufficient"
        );
        let restart =
            Decision::Restart { attempts: 1, deadline_ms: 9, remaining_ms: 0, abort_attempts: AttemptSet::EMPTY };
        assert!(text(restart).unwrap().contains(": a conflict: re-read the current state"));
        let succeeded = Decision::Succeeded { attempts: 1, winner: 1, abort_attempts: AttemptSet::EMPTY };
        assert_eq!(text(succeeded), None);
    }

    #[test]
    fn an_ending_after_an_error_nothing_classified_names_the_hook_and_no_other_does() {
        use crate::outcomes::classify::{Outcome, TransportFailure, Verdict};
        let endings = [
            Decision::GaveUp {
                reason: GiveUpReason::AttemptsExhausted,
                attempts: 3,
                remaining_ms: 0,
                refused_delay_ms: None,
                abort_attempts: AttemptSet::EMPTY,
            },
            Decision::Reconcile { attempts: 1, remaining_ms: 0, abort_attempts: AttemptSet::EMPTY },
            Decision::Restart { attempts: 2, deadline_ms: 9, remaining_ms: 0, abort_attempts: AttemptSet::EMPTY },
        ];
        let hint = Verdict::unknown_error_hint("outcome_of_error=").to_string();
        let unknown = Outcome::Application { verdict: Verdict::UNKNOWN_ERROR };
        for ending in endings {
            let words = ending.ending_message("op", Some("k")).unwrap().to_string();
            let after = |outcome| {
                let message =
                    ending.ending_message_after(outcome, false, "op", Some("k"), "outcome_of_error=").unwrap();
                message.to_string()
            };
            let with_hint = after(Some(unknown));
            assert_eq!(with_hint, alloc::format!("{words}; {hint}"), "{ending:?}");
            assert!(with_hint.contains("return an outcome from outcome_of_error="));
            // Every other last outcome, and none: the words alone.
            let others = [
                None,
                Some(Outcome::Application { verdict: Verdict::Retryable }),
                Some(Outcome::Application { verdict: Verdict::NotRetryable }),
                Some(Outcome::Application { verdict: Verdict::Conflict }),
                Some(Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None }),
                Some(Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None }),
                Some(Outcome::Cancelled),
            ];
            for outcome in others {
                assert_eq!(after(outcome), words, "{ending:?} after {outcome:?}");
            }
        }
        // A decision that is not a typed ending has no words, hint or not.
        let not_endings = [
            Decision::Succeeded { attempts: 1, winner: 1, abort_attempts: AttemptSet::EMPTY },
            Decision::AwaitOutcome { running: 1, until_ms: 5 },
            Decision::Wait { retry: 0, delay_ms: 1, until_ms: 2, retry_after_ms: None, remaining_ms: 3 },
        ];
        for decision in not_endings {
            assert!(decision.ending_message_after(Some(unknown), false, "op", Some("k"), "outcomeOfError").is_none());
        }
    }

    #[test]
    fn a_decision_in_words_counts_from_one_and_reads_no_clock() {
        let said = |decision: Decision| decision.describe().to_string();
        let start = |hedge| Decision::StartAttempt {
            attempt: 2,
            timeout_ms: 800,
            abort_at_ms: 123_456_800,
            request_id: super::RequestId(7),
            remaining_ms: 1500,
            hedge,
        };
        assert_eq!(said(start(false)), "start attempt 2 (timeout 800 ms)");
        assert_eq!(said(start(true)), "start attempt 2, a hedge (timeout 800 ms)");
        let wait = |retry_after_ms| Decision::Wait {
            retry: 1,
            delay_ms: 250,
            until_ms: 123_456_250,
            retry_after_ms,
            remaining_ms: 900,
        };
        assert_eq!(said(wait(None)), "wait 250 ms, before attempt 3");
        assert_eq!(said(wait(Some(250))), "wait 250 ms, before attempt 3 (the server asked for 250 ms)");
        let awaiting = |running| Decision::AwaitOutcome { running, until_ms: 123_456_999 };
        assert_eq!(said(awaiting(1)), "await the outcome of 1 attempt still running");
        assert_eq!(said(awaiting(2)), "await the outcome of 2 attempts still running");
        let succeeded = Decision::Succeeded { attempts: 3, winner: 2, abort_attempts: AttemptSet::EMPTY };
        assert_eq!(said(succeeded), "succeeded on attempt 2 (after 3 attempts)");
        let gave_up = Decision::GaveUp {
            reason: GiveUpReason::DeadlineInsufficient,
            attempts: 3,
            remaining_ms: 0,
            refused_delay_ms: None,
            abort_attempts: AttemptSet::EMPTY,
        };
        assert_eq!(said(gave_up), "gave up after 3 attempts: deadline_insufficient");
        let reconcile = Decision::Reconcile { attempts: 1, remaining_ms: 5, abort_attempts: AttemptSet::EMPTY };
        assert_eq!(said(reconcile), "reconcile after 1 attempt: the write may have happened");
        let restart = Decision::Restart {
            attempts: 2,
            deadline_ms: 123_457_000,
            remaining_ms: 5,
            abort_attempts: AttemptSet::EMPTY,
        };
        assert_eq!(said(restart), "restart after 2 attempts: a conflict");
    }

    #[test]
    fn an_attempt_set_walks_its_members_in_order() {
        let mut set = AttemptSet::EMPTY;
        assert_eq!(set.iter().count(), 0);
        for attempt in [128, 65, 3, 64, 1, 0, 129] {
            set.insert(attempt);
        }
        assert_eq!(set.iter().collect::<Vec<_>>(), [1, 3, 64, 65, 128]);
        set.remove(64);
        assert_eq!(set.iter().collect::<Vec<_>>(), [1, 3, 65, 128]);
    }
}
