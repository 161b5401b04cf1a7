//! The wire for an [`Operation`]: the same input record in
//! ([`Operation::exchange`]), a decision record out ([`encode_decision`]).
//! See "Operation: the decision record" in the module documentation.

use super::{index_of, refuse, word, Input, InputKind, FLAG_HEDGE, NONE};
use crate::config::error::Error;
use crate::engine::operation::Operation;
use crate::outcomes::decision::{Decision, GiveUpReason};

record! {
    /// The decision record's word positions (an operation to its host).
    decision, DECISION_WORDS = 19 {
        /// [`DecisionKind`](super::DecisionKind).
        DECISION_KIND = 0, "decision_kind";
        /// The attempt to start, or the retry a wait is for.
        ATTEMPT = 1, "attempt";
        /// The effective timeout.
        TIMEOUT_MS = 2, "timeout_ms";
        /// When the attempt counts as timed out.
        ABORT_AT_MS = 3, "abort_at_ms";
        /// The request id's upper 32 bits.
        REQUEST_ID_HIGH = 4, "request_id_high";
        /// The request id's lower 32 bits.
        REQUEST_ID_LOW = 5, "request_id_low";
        /// Time left after the response reserve.
        REMAINING_MS = 6, "remaining_ms";
        /// [`FLAG_HEDGE`](super::FLAG_HEDGE).
        FLAGS = 7, "flags";
        /// The wait's length.
        DELAY_MS = 8, "delay_ms";
        /// When the wait ends, or when to poll at the latest.
        UNTIL_MS = 9, "until_ms";
        /// The retry after (the wait the server asked for, as honored), or
        /// [`NONE`](super::NONE).
        RETRY_AFTER_MS = 10, "retry_after_ms";
        /// Attempts running.
        RUNNING = 11, "running";
        /// The give-up reason's index.
        REASON = 12, "reason";
        /// Attempts made.
        ATTEMPTS = 13, "attempts";
        /// The winner, the refused wait, or the restart's deadline.
        DETAIL = 14, "detail";
        /// Attempts 1..=32 to abort (bit `n - 1` for attempt `n`).
        ABORTS_1 = 15, "aborts_1";
        /// Attempts 33..=64 to abort (bit `n - 33` for attempt `n`).
        ABORTS_33 = 16, "aborts_33";
        /// Attempts 65..=96 to abort.
        ABORTS_65 = 17, "aborts_65";
        /// Attempts 97..=128 to abort.
        ABORTS_97 = 18, "aborts_97";
    }
    renamed {
        /// The old name of [`RETRY_AFTER_MS`] (issue 28: one name per concept).
        #[deprecated(note = "renamed RETRY_AFTER_MS (the word `retry_after_ms`)")]
        SERVER_DELAY_MS = RETRY_AFTER_MS;
        /// The old name of [`RUNNING`] (issue 28: one name per concept).
        #[deprecated(note = "renamed RUNNING (the word `running`)")]
        IN_FLIGHT = RUNNING;
    }
}

pub use crate::outcomes::decision_kind::DecisionKind;

/// Writes `decision` into a decision record (see the module documentation
/// for the layout): the one encoding of an operation's decision. Only the
/// words its kind uses are written (`decision_kind` and its rows of the
/// table); every other word is left as it was, so that a record made as
/// `[NONE; DECISION_WORDS]` reads [`NONE`] there (a host reads only the
/// words of the kind it finds, and a decision costs no more than its words).
///
/// ```
/// use retryplan::wire::{decision, encode_decision, DecisionKind, DECISION_WORDS, NONE};
/// use retryplan::Decision;
/// use retryplan::outcomes::decision::AttemptSet;
/// let mut aborts = AttemptSet::EMPTY;
/// aborts.insert(2);
/// aborts.insert(40);
/// let mut record = [NONE; DECISION_WORDS];
/// encode_decision(&Decision::Succeeded { attempts: 40, winner: 1, abort_attempts: aborts }, &mut record);
/// assert_eq!(record[decision::DECISION_KIND], DecisionKind::Succeeded.word());
/// assert_eq!((record[decision::ATTEMPTS], record[decision::DETAIL]), (40, 1));
/// assert_eq!((record[decision::ABORTS_1], record[decision::ABORTS_33]), (0b10, 1 << 7));
/// ```
pub fn encode_decision(decision: &Decision, record: &mut [i64; DECISION_WORDS]) {
    let (kind, aborts) = match *decision {
        Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_ms, hedge } => {
            record[decision::ATTEMPT] = i64::from(attempt);
            record[decision::TIMEOUT_MS] = word(timeout_ms);
            record[decision::ABORT_AT_MS] = word(abort_at_ms);
            record[decision::REQUEST_ID_HIGH] = (request_id.0 >> 32) as i64;
            record[decision::REQUEST_ID_LOW] = (request_id.0 & 0xffff_ffff) as i64;
            record[decision::REMAINING_MS] = word(remaining_ms);
            record[decision::FLAGS] = i64::from(hedge) * FLAG_HEDGE;
            (DecisionKind::StartAttempt, None)
        }
        Decision::Wait { retry, delay_ms, until_ms, retry_after_ms, remaining_ms } => {
            record[decision::ATTEMPT] = i64::from(retry);
            record[decision::DELAY_MS] = word(delay_ms);
            record[decision::UNTIL_MS] = word(until_ms);
            record[decision::RETRY_AFTER_MS] = retry_after_ms.map_or(NONE, word);
            record[decision::REMAINING_MS] = word(remaining_ms);
            (DecisionKind::Wait, None)
        }
        Decision::AwaitOutcome { running, until_ms } => {
            record[decision::RUNNING] = i64::from(running);
            record[decision::UNTIL_MS] = word(until_ms);
            (DecisionKind::AwaitOutcome, None)
        }
        Decision::Succeeded { attempts, winner, abort_attempts } => {
            record[decision::ATTEMPTS] = i64::from(attempts);
            record[decision::DETAIL] = i64::from(winner);
            (DecisionKind::Succeeded, Some(abort_attempts))
        }
        Decision::GaveUp { reason, attempts, remaining_ms, refused_delay_ms, abort_attempts } => {
            record[decision::REASON] = index_of::<GiveUpReason>(reason);
            record[decision::ATTEMPTS] = i64::from(attempts);
            record[decision::REMAINING_MS] = word(remaining_ms);
            record[decision::DETAIL] = refused_delay_ms.map_or(NONE, word);
            (DecisionKind::GaveUp, Some(abort_attempts))
        }
        Decision::Reconcile { attempts, remaining_ms, abort_attempts } => {
            record[decision::ATTEMPTS] = i64::from(attempts);
            record[decision::DETAIL] = NONE;
            record[decision::REMAINING_MS] = word(remaining_ms);
            (DecisionKind::Reconcile, Some(abort_attempts))
        }
        Decision::Restart { attempts, deadline_ms, remaining_ms, abort_attempts } => {
            record[decision::ATTEMPTS] = i64::from(attempts);
            record[decision::DETAIL] = word(deadline_ms);
            record[decision::REMAINING_MS] = word(remaining_ms);
            (DecisionKind::Restart, Some(abort_attempts))
        }
    };
    record[decision::DECISION_KIND] = kind.word();
    if let Some(aborts) = aborts {
        let [aborts_1, aborts_33, aborts_65, aborts_97] = aborts.words();
        record[decision::ABORTS_1] = aborts_1.into();
        record[decision::ABORTS_33] = aborts_33.into();
        record[decision::ABORTS_65] = aborts_65.into();
        record[decision::ABORTS_97] = aborts_97.into();
    }
}

impl Operation {
    /// Carries out one input record (the driver's, see the module
    /// documentation) and writes the decision into `output` as a decision
    /// record: a `poll` polls ([`Operation::poll`]), a `result` reports the
    /// attempt's outcome ([`Operation::on_outcome`]; `token` and `held` are
    /// ignored: an operation holds no results), a `cancel` cancels
    /// ([`Operation::cancel`]); a `timer_ended` is refused (naming
    /// `input_kind`: an operation keeps no waits). One call per decision,
    /// whatever the language.
    ///
    /// ```
    /// use retryplan::wire::{decision, DecisionKind, InputKind, OutcomeKind, DECISION_WORDS, NONE};
    /// use retryplan::{Operation, OperationOptions, Policy};
    /// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#).unwrap();
    /// let mut operation = Operation::new(&policy, 0, OperationOptions::new(7));
    /// let mut out = [NONE; DECISION_WORDS];
    /// operation.exchange(&[InputKind::Poll.word(), 0], &mut out).unwrap();
    /// assert_eq!((out[decision::DECISION_KIND], out[decision::ABORT_AT_MS]), (DecisionKind::StartAttempt.word(), 300));
    /// let busy = [InputKind::Result.word(), 40, 1, NONE, NONE, OutcomeKind::HttpStatus.word(), 503, 250];
    /// operation.exchange(&busy, &mut out).unwrap();
    /// assert_eq!((out[decision::DECISION_KIND], out[decision::UNTIL_MS]), (DecisionKind::Wait.word(), 290));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the word's field for a record that
    /// breaks the encoding's rules, or an `http_status` outside 100..=599
    /// (an operation's outcome is the caller's, refused as
    /// [`Operation::on_outcome`] refuses it, never read as a malformed
    /// response); whatever the typed call refuses. Nothing changes then,
    /// and `output` is left as it was.
    pub fn exchange(&mut self, words: &[i64], output: &mut [i64; DECISION_WORDS]) -> Result<(), Error> {
        let decision = match Input::read(words)? {
            Input::Poll { now_ms } => self.poll(now_ms)?,
            Input::Cancel { now_ms } => self.cancel(now_ms)?,
            // An operation keeps no waits: it is told the time by each poll.
            Input::TimerEnded { .. } => {
                return Err(refuse(
                    "input_kind",
                    "poll 0, result 1 or cancel 2 for an operation",
                    InputKind::TimerEnded.word(),
                ))
            }
            Input::Result { now_ms, attempt, outcome, status_code, .. } => {
                if let Some(code) = status_code.filter(|code| !(100..=599).contains(code)) {
                    return Err(refuse("outcome_code", "an HTTP status in 100..=599 for an operation", code));
                }
                self.on_outcome(now_ms, attempt, &outcome)?
            }
        };
        encode_decision(&decision, output);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
