#![doc = include_str!("../wire.md")]

use super::{AbortReason, Action, Driver, EndingResult, Held, Receipt, Step};
use crate::config::error::Error;
use crate::ground::codes::GrpcCode;
use crate::ground::message::message;
use crate::ground::named::Named;
use crate::headers::retry_after::Pushback;
use crate::outcomes::classify::{Outcome, TransportFailure, Verdict};
use crate::outcomes::decision::{Decision, GiveUpReason};
use crate::outcomes::failure::Failure;

/// The encoding's version; a host built for another refuses to run.
pub const WIRE_VERSION: i64 = 2;

/// The version of the encoding this core speaks (see the module docs).
#[must_use]
pub fn wire_version() -> i64 {
    WIRE_VERSION
}

/// An absent value.
pub const NONE: i64 = -1;

/// `outcome_retry_after_ms` of a gRPC status whose pushback says "do not retry".
pub const PUSHBACK_DO_NOT_RETRY: i64 = -2;

/// The largest word: 2^53 - 1, what a JavaScript number holds exactly.
pub const MAX_WORD: i64 = (1 << 53) - 1;

/// `flags` bit: the attempt is a hedge.
pub const FLAG_HEDGE: i64 = 1;
/// `flags` bit: the request carries the operation's idempotency key.
pub const FLAG_SEND_IDEMPOTENCY_KEY: i64 = 2;
/// `ending` bit: the ending returns the value held under `token`.
pub const ENDING_RETURNS: i64 = 256;

/// Declares a record's word positions and its table of fields, in order.
macro_rules! record {
    ($(#[$doc:meta])* $module:ident, $words:ident = $count:literal {
        $($(#[$field_doc:meta])* $name:ident = $index:literal, $text:literal;)*
    } $(renamed { $($(#[$old_doc:meta])* $old:ident = $new:ident;)* })?) => {
        $(#[$doc])*
        pub mod $module {
            $($(#[$field_doc])* pub const $name: usize = $index;)*
            $($($(#[$old_doc])* pub const $old: usize = $new;)*)?
            /// Every field by its name, in word order.
            pub const FIELDS: &[(&str, usize)] = &[$(($text, $index)),*];
        }
        /// How many words the record has.
        pub const $words: usize = $count;
    };
}

record! {
    /// The input record's word positions (host to driver).
    input, INPUT_WORDS = 8 {
        /// [`InputKind`](super::InputKind).
        INPUT_KIND = 0, "input_kind";
        /// The host's clock now.
        NOW_MS = 1, "now_ms";
        /// The attempt that ended.
        ATTEMPT = 2, "attempt";
        /// The host's token for the result, or [`NONE`](super::NONE).
        TOKEN = 3, "token";
        /// [`Held`](crate::Held) under the token.
        HELD = 4, "held";
        /// [`OutcomeKind`](super::OutcomeKind).
        OUTCOME_KIND = 5, "outcome_kind";
        /// The status, code or index the outcome kind needs.
        OUTCOME_CODE = 6, "outcome_code";
        /// The outcome's retry after: the server's requested wait, or a
        /// gRPC pushback.
        OUTCOME_RETRY_AFTER_MS = 7, "outcome_retry_after_ms";
    }
    renamed {
        /// The old name of [`OUTCOME_RETRY_AFTER_MS`] (issue 28: one name per concept).
        #[deprecated(note = "renamed OUTCOME_RETRY_AFTER_MS (the word `outcome_retry_after_ms`)")]
        OUTCOME_DELAY_MS = OUTCOME_RETRY_AFTER_MS;
    }
}

record! {
    /// The output record's word positions (driver to host).
    output, OUTPUT_WORDS = 15 {
        /// The [`Receipt`](crate::Receipt) of a `result` input.
        RECEIPT = 0, "receipt";
        /// [`ActionKind`](super::ActionKind).
        ACTION_KIND = 1, "action_kind";
        /// The attempt to start or abort.
        ATTEMPT = 2, "attempt";
        /// The effective timeout.
        TIMEOUT_MS = 3, "timeout_ms";
        /// When the attempt counts as timed out; a finish's returned value
        /// is readable until then ([`EndingResult::readable_until_ms`](crate::EndingResult::readable_until_ms)).
        ABORT_AT_MS = 4, "abort_at_ms";
        /// The request id's upper 32 bits.
        REQUEST_ID_HIGH = 5, "request_id_high";
        /// The request id's lower 32 bits.
        REQUEST_ID_LOW = 6, "request_id_low";
        /// Time left after the response reserve.
        REMAINING_MS = 7, "remaining_ms";
        /// [`FLAG_HEDGE`](super::FLAG_HEDGE) and [`FLAG_SEND_IDEMPOTENCY_KEY`](super::FLAG_SEND_IDEMPOTENCY_KEY).
        FLAGS = 8, "flags";
        /// The abort reason or give-up reason index.
        REASON = 9, "reason";
        /// When to poll again at the latest.
        UNTIL_MS = 10, "until_ms";
        /// The token to release, or the ending's.
        TOKEN = 11, "token";
        /// [`EndingKind`](super::EndingKind), plus [`ENDING_RETURNS`](super::ENDING_RETURNS).
        ENDING = 12, "ending";
        /// Attempts made.
        ATTEMPTS = 13, "attempts";
        /// The winner, the refused wait, or the restart's deadline.
        DETAIL = 14, "detail";
    }
}

/// Declares a kind table: a [`Named`] enum whose number on the wire is its
/// place in `ALL`.
macro_rules! kinds {
    ($(#[$doc:meta])* $kind:ident { $($(#[$variant_doc:meta])* $variant:ident = $name:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $kind {
            $($(#[$variant_doc])* $variant,)*
        }

        impl Named for $kind {
            const ALL: &'static [Self] = &[$($kind::$variant),*];
            fn name(self) -> &'static str {
                match self {
                    $($kind::$variant => $name,)*
                }
            }
        }

        impl $kind {
            /// Its number on the wire (its place in `ALL`).
            #[must_use]
            pub fn word(self) -> i64 {
                self as i64
            }
        }
    };
}

kinds! {
    /// What an input record asks.
    InputKind {
        /// Nothing happened: what now? ([`Driver::poll_action`]).
        Poll = "poll",
        /// An attempt ended ([`Driver::handle_result_with_token`]), then poll.
        Result = "result",
        /// The caller cancelled ([`Driver::handle_cancel`]), then poll.
        Cancel = "cancel",
        /// The timer the host armed for the last sleep ran out
        /// ([`Driver::handle_timer_end`]: a clock that did not move through
        /// it is refused), then poll. A driver's input only.
        TimerEnded = "timer_ended",
    }
}

kinds! {
    /// How an attempt ended, as an input record spells it.
    OutcomeKind {
        /// [`Outcome::Success`].
        Success = "success",
        /// [`Outcome::HttpStatus`], read from any whole number.
        HttpStatus = "http_status",
        /// [`Outcome::GrpcStatus`].
        GrpcStatus = "grpc_status",
        /// [`Outcome::Transport`].
        Transport = "transport",
        /// A [`Failure`] of the vocabulary, as [`Failure::outcome`] reads it.
        Failure = "failure",
        /// [`Outcome::Application`].
        Application = "application",
        /// [`Outcome::Cancelled`].
        Cancelled = "cancelled",
    }
}

kinds! {
    /// What an output record tells the host to do ([`Action`]).
    ActionKind {
        /// [`Action::StartAttempt`].
        StartAttempt = "start_attempt",
        /// [`Action::AbortAttempt`].
        AbortAttempt = "abort_attempt",
        /// [`Action::Sleep`].
        Sleep = "sleep",
        /// [`Action::Release`].
        Release = "release",
        /// [`Action::Finish`].
        Finish = "finish",
    }
}

kinds! {
    /// How an operation ended ([`Decision`]'s four endings).
    EndingKind {
        /// [`Decision::Succeeded`].
        Succeeded = "succeeded",
        /// [`Decision::GaveUp`].
        GaveUp = "gave_up",
        /// [`Decision::Reconcile`].
        Reconcile = "reconcile",
        /// [`Decision::Restart`].
        Restart = "restart",
    }
}

/// A table's member by its number on the wire.
fn by_index<T: Named>(word: i64) -> Option<T> {
    usize::try_from(word).ok().and_then(|index| T::ALL.get(index).copied())
}

/// A table member's number on the wire.
fn index_of<T: Named + PartialEq>(value: T) -> i64 {
    T::ALL.iter().position(|member| *member == value).map_or(NONE, |index| index as i64)
}

/// Refuses `word` as `field`: it must be `what`.
fn refuse(field: &'static str, what: &'static str, word: i64) -> Error {
    Error::InvalidArgument { field, rule: message!(WireWord, what, word) }
}

/// A word in `0..=MAX_WORD`, as `u64`.
fn whole(word: i64, field: &'static str) -> Result<u64, Error> {
    u64::try_from(word)
        .ok()
        .filter(|value| *value <= MAX_WORD as u64)
        .ok_or_else(|| refuse(field, "in 0..=2^53-1", word))
}

/// An optional word: [`NONE`], or a whole number.
fn optional(word: i64, field: &'static str) -> Result<Option<u64>, Error> {
    if word == NONE {
        Ok(None)
    } else {
        whole(word, field).map(Some).map_err(|_| refuse(field, "-1 or in 0..=2^53-1", word))
    }
}

/// A member of `T`'s table by its number.
fn member<T: Named>(word: i64, field: &'static str, what: &'static str) -> Result<T, Error> {
    by_index(word).ok_or_else(|| refuse(field, what, word))
}

/// Reads an outcome a caller built (an `Outcome` object handed to an
/// [`Operation`](crate::Operation) or to `classify`) from its three words:
/// as [`decode_outcome`], except that an `http_status` outside 100..=599 is
/// the caller's mistake, refused as the typed call refuses it
/// ([`Error::InvalidArgument`] naming `status`), never read as a malformed
/// response and never cut to 16 bits.
///
/// ```
/// use retryplan::wire::{decode_caller_outcome, OutcomeKind, NONE};
/// let refused = decode_caller_outcome(OutcomeKind::HttpStatus.word(), 65736, NONE).unwrap_err();
/// assert_eq!((refused.code(), refused.to_string().ends_with("got 65736")), ("invalid_argument", true));
/// assert!(decode_caller_outcome(OutcomeKind::HttpStatus.word(), 503, NONE).is_ok());
/// ```
///
/// # Errors
/// As [`decode_outcome`], and [`Error::InvalidArgument`] for a status
/// outside 100..=599.
pub fn decode_caller_outcome(kind: i64, code: i64, delay: i64) -> Result<Outcome, Error> {
    if kind == OutcomeKind::HttpStatus.word() && !(100..=599).contains(&code) {
        return Err(Error::InvalidArgument { field: "status", rule: message!(NotHttpStatus, code) });
    }
    decode_outcome(kind, code, delay)
}

/// Reads an outcome from its three words, `outcome_kind`, `outcome_code`
/// and `outcome_retry_after_ms`, exactly as [`Driver::exchange`] reads them in a
/// `result` record (see the [module documentation](self) for their meaning):
/// the one decoding of an outcome on the wire, for a host that hands an
/// outcome to anything else (an [`Operation`](crate::Operation)) in the
/// same words. An `http_status` code is read as a platform's status: any
/// whole number, outside 100..=599 (or an interim 1xx but 101) a malformed response.
///
/// ```
/// use retryplan::wire::{decode_outcome, OutcomeKind, NONE};
/// use retryplan::{Failure, Outcome};
/// let busy = decode_outcome(OutcomeKind::HttpStatus.word(), 503, 2000).unwrap();
/// assert_eq!(busy, Outcome::HttpStatus { status: 503, retry_after_ms: Some(2000), error_code: None });
/// assert_eq!(decode_outcome(OutcomeKind::HttpStatus.word(), 70000, NONE), Ok(Failure::MalformedResponse.outcome()));
/// assert_eq!(decode_outcome(9, 0, NONE).unwrap_err().code(), "invalid_argument");
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the word's field for a word outside its
/// range: an unknown kind, a code no member of its table has, a delay that
/// is neither [`NONE`] nor a whole number of milliseconds.
pub fn decode_outcome(kind: i64, code: i64, delay: i64) -> Result<Outcome, Error> {
    let kind: OutcomeKind = member(kind, "outcome_kind", "an outcome kind (0..=6)")?;
    Ok(match kind {
        OutcomeKind::Success => Outcome::Success,
        OutcomeKind::HttpStatus => {
            // Read as every helper reads a status: outside 100..=599 (any
            // whole number at all) it is the server's fault.
            match Outcome::from_http_response(code, |_| None, 0) {
                Outcome::HttpStatus { status, .. } => Outcome::HttpStatus {
                    status,
                    retry_after_ms: optional(delay, "outcome_retry_after_ms")?,
                    error_code: None,
                },
                malformed => malformed,
            }
        }
        OutcomeKind::GrpcStatus => {
            let code = u32::try_from(code)
                .ok()
                .and_then(GrpcCode::from_number)
                .ok_or_else(|| refuse("outcome_code", "a gRPC code (0..=16)", code))?;
            let pushback = match delay {
                PUSHBACK_DO_NOT_RETRY => Some(Pushback::DoNotRetry),
                other => optional(other, "outcome_retry_after_ms")?.map(Pushback::RetryAfterMs),
            };
            Outcome::GrpcStatus { code, pushback }
        }
        OutcomeKind::Transport => Outcome::Transport {
            failure: transport_failure(code)
                .ok_or_else(|| refuse("outcome_code", "a transport failure (0..=2)", code))?,
            retry_after_ms: optional(delay, "outcome_retry_after_ms")?,
        },
        OutcomeKind::Failure => {
            let failure = member::<Failure>(code, "outcome_code", "a failure (0..=12)")?;
            let retry_after_ms = optional(delay, "outcome_retry_after_ms")?;
            failure
                .outcome_after(retry_after_ms)
                .map_err(|_| refuse("outcome_retry_after_ms", "-1 for a cancel", delay))?
        }
        OutcomeKind::Application => {
            Outcome::Application { verdict: member::<Verdict>(code, "outcome_code", "a verdict (0..=3)")? }
        }
        OutcomeKind::Cancelled => Outcome::Cancelled,
    })
}

/// Writes an outcome as its three words, `[outcome_kind, outcome_code,
/// outcome_retry_after_ms]` (see the module documentation): the inverse of
/// [`decode_outcome`], for a host that reads outcomes (an ending's last
/// result, an event's) in words. An outcome is written as its own kind,
/// never as `failure` (the failure vocabulary's outcomes are transport
/// classes and statuses), and a status as it is (one outside 100..=599 reads back as a
/// malformed response). An `http_status`'s `error_code` is text and is not
/// carried: a host that shows it reads it from the typed outcome.
///
/// ```
/// use retryplan::wire::{decode_outcome, encode_outcome, OutcomeKind, PUSHBACK_DO_NOT_RETRY};
/// use retryplan::Outcome;
/// use retryplan::ground::codes::GrpcCode;
/// use retryplan::headers::retry_after::Pushback;
/// let declined = Outcome::GrpcStatus { code: GrpcCode::Unavailable, pushback: Some(Pushback::DoNotRetry) };
/// let words = encode_outcome(&declined);
/// assert_eq!(words, [OutcomeKind::GrpcStatus.word(), 14, PUSHBACK_DO_NOT_RETRY]);
/// assert_eq!(decode_outcome(words[0], words[1], words[2]), Ok(declined));
/// ```
#[must_use]
pub fn encode_outcome(outcome: &Outcome) -> [i64; 3] {
    let optional = |delay: Option<u64>| delay.map_or(NONE, word);
    match *outcome {
        Outcome::Success => [OutcomeKind::Success.word(), NONE, NONE],
        Outcome::HttpStatus { status, retry_after_ms, .. } => {
            [OutcomeKind::HttpStatus.word(), i64::from(status), optional(retry_after_ms)]
        }
        Outcome::GrpcStatus { code, pushback } => {
            let delay = match pushback {
                None => NONE,
                Some(Pushback::DoNotRetry) => PUSHBACK_DO_NOT_RETRY,
                Some(Pushback::RetryAfterMs(ms)) => word(ms),
            };
            [OutcomeKind::GrpcStatus.word(), i64::from(code.number()), delay]
        }
        Outcome::Transport { failure, retry_after_ms } => {
            [OutcomeKind::Transport.word(), index_of::<TransportFailure>(failure), optional(retry_after_ms)]
        }
        Outcome::Application { verdict } => [OutcomeKind::Application.word(), index_of::<Verdict>(verdict), NONE],
        Outcome::Cancelled => [OutcomeKind::Cancelled.word(), NONE, NONE],
    }
}

fn transport_failure(word: i64) -> Option<TransportFailure> {
    usize::try_from(word).ok().and_then(|index| TransportFailure::ALL.get(index).copied())
}

/// Writes `action` into an output record (see the module documentation for
/// the layout), its `receipt` word untouched and every word its kind does not
/// use [`NONE`]: the one encoding of a driver's action, which
/// [`Driver::exchange`] writes. A finish's output record holds its ending's
/// kind, attempts, detail, token and the time its returned value is readable
/// until (in `abort_at_ms`); its whole decision (the attempts to abort too)
/// goes into `decision` as a decision record ([`encode_decision`]), which
/// only a finish writes.
///
/// ```
/// use retryplan::wire::{decision, encode_action, output, DECISION_WORDS, NONE, OUTPUT_WORDS};
/// use retryplan::wire::{ActionKind, DecisionKind, EndingKind};
/// use retryplan::{Action, Decision, Ending};
/// use retryplan::outcomes::decision::AttemptSet;
/// let (mut out, mut record) = ([NONE; OUTPUT_WORDS], [NONE; DECISION_WORDS]);
/// encode_action(&Action::Sleep { until_ms: 140 }, &mut out, &mut record);
/// assert_eq!((out[output::ACTION_KIND], out[output::UNTIL_MS]), (ActionKind::Sleep.word(), 140));
/// assert_eq!(record, [NONE; DECISION_WORDS]);
/// let decision = Decision::Succeeded { attempts: 2, winner: 2, abort_attempts: AttemptSet::EMPTY };
/// encode_action(&Action::Finish(Ending { decision, last_result: None, result: None, malformed_status: None }), &mut out, &mut record);
/// assert_eq!((out[output::ENDING], out[output::DETAIL]), (EndingKind::Succeeded.word(), 2));
/// assert_eq!((record[decision::DECISION_KIND], record[decision::ABORTS_1]), (DecisionKind::Succeeded.word(), 0));
/// ```
pub fn encode_action(action: &Action, record: &mut [i64; OUTPUT_WORDS], decision: &mut [i64; DECISION_WORDS]) {
    let ending = match action {
        Action::Finish(ending) => {
            encode_decision(&ending.decision, decision);
            Some((&ending.decision, ending.result))
        }
        _ => None,
    };
    write_step(Step::of(action), ending, record);
}

/// Writes a step into an output record (its receipt word untouched); a
/// finish writes `ending`'s decision and what it does with the held result.
fn write_step(step: Step, ending: Option<(&Decision, Option<EndingResult>)>, record: &mut [i64; OUTPUT_WORDS]) {
    let receipt = record[output::RECEIPT];
    *record = [NONE; OUTPUT_WORDS];
    record[output::RECEIPT] = receipt;
    let kind = match step {
        Step::Start(plan) => {
            record[output::ATTEMPT] = i64::from(plan.attempt);
            record[output::TIMEOUT_MS] = word(plan.timeout_ms);
            record[output::ABORT_AT_MS] = word(plan.abort_at_ms);
            record[output::REQUEST_ID_HIGH] = (plan.request_id.0 >> 32) as i64;
            record[output::REQUEST_ID_LOW] = (plan.request_id.0 & 0xffff_ffff) as i64;
            record[output::REMAINING_MS] = word(plan.remaining_ms);
            record[output::FLAGS] =
                i64::from(plan.hedge) * FLAG_HEDGE + i64::from(plan.send_idempotency_key) * FLAG_SEND_IDEMPOTENCY_KEY;
            ActionKind::StartAttempt
        }
        Step::Abort { attempt, reason } => {
            record[output::ATTEMPT] = i64::from(attempt);
            record[output::REASON] = index_of::<AbortReason>(reason);
            ActionKind::AbortAttempt
        }
        Step::Sleep { until_ms } => {
            record[output::UNTIL_MS] = word(until_ms);
            ActionKind::Sleep
        }
        Step::Release { token } => {
            record[output::TOKEN] = word(token);
            ActionKind::Release
        }
        Step::Finish => {
            // A finish always carries an ending; were it ever not to, the
            // host would read an unknown ending kind and fail loudly.
            let Some((decision, result)) = ending else {
                record[output::ACTION_KIND] = ActionKind::Finish.word();
                return;
            };
            let (kind, attempts, detail) = match *decision {
                Decision::Succeeded { attempts, winner, .. } => (EndingKind::Succeeded, attempts, i64::from(winner)),
                Decision::GaveUp { reason, attempts, remaining_ms, refused_delay_ms, .. } => {
                    record[output::REASON] = index_of::<GiveUpReason>(reason);
                    record[output::REMAINING_MS] = word(remaining_ms);
                    (EndingKind::GaveUp, attempts, refused_delay_ms.map_or(NONE, word))
                }
                Decision::Reconcile { attempts, remaining_ms, .. } => {
                    record[output::REMAINING_MS] = word(remaining_ms);
                    (EndingKind::Reconcile, attempts, NONE)
                }
                Decision::Restart { attempts, deadline_ms, remaining_ms, .. } => {
                    record[output::REMAINING_MS] = word(remaining_ms);
                    (EndingKind::Restart, attempts, word(deadline_ms))
                }
                Decision::StartAttempt { .. } | Decision::Wait { .. } | Decision::AwaitOutcome { .. } => {
                    record[output::ACTION_KIND] = ActionKind::Finish.word();
                    return;
                }
            };
            let returns = result.is_some_and(|result| result.returned);
            record[output::TOKEN] = result.map_or(NONE, |result| word(result.token));
            record[output::ABORT_AT_MS] = result.and_then(|result| result.readable_until_ms).map_or(NONE, word);
            record[output::ENDING] = kind.word() + if returns { ENDING_RETURNS } else { 0 };
            record[output::ATTEMPTS] = i64::from(attempts);
            record[output::DETAIL] = detail;
            ActionKind::Finish
        }
    };
    record[output::ACTION_KIND] = kind.word();
}

/// A time or count as a word (every time the driver hands out is at most
/// 2^53 - 1; anything larger would be a bug, and is written as the largest word).
fn word(value: u64) -> i64 {
    i64::try_from(value.min(MAX_WORD as u64)).unwrap_or(MAX_WORD)
}

impl Driver {
    /// Carries out one encoded input record and writes the next action into
    /// `output` (see the [module documentation](self) for both layouts): a
    /// `poll` polls; a `result` hands an attempt's result in (with its
    /// token) and then polls; a `cancel` cancels and then polls; a
    /// `timer_ended` judges the clock and then polls. One call
    /// per step of a host's loop, whatever the language.
    ///
    /// ```
    /// use retryplan::wire::{self, input, output, ActionKind, InputKind, OutcomeKind, INPUT_WORDS, NONE, OUTPUT_WORDS};
    /// use retryplan::{Driver, DriverOptions, OperationOptions, Policy};
    /// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#).unwrap();
    /// let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
    /// let mut out = [NONE; OUTPUT_WORDS];
    /// driver.exchange(&[InputKind::Poll.word(), 0, NONE, NONE, NONE, NONE, NONE, NONE], &mut out).unwrap();
    /// assert_eq!((out[output::ACTION_KIND], out[output::ATTEMPT], out[output::ABORT_AT_MS]), (ActionKind::StartAttempt.word(), 1, 300));
    /// // Attempt 1 answers 503 at 40 ms (held as token 5): accepted, sleep until 140 ms.
    /// let result = [InputKind::Result.word(), 40, 1, 5, 0, OutcomeKind::HttpStatus.word(), 503, NONE];
    /// driver.exchange(&result, &mut out).unwrap();
    /// assert_eq!((out[output::RECEIPT], out[output::ACTION_KIND], out[output::UNTIL_MS]), (0, ActionKind::Sleep.word(), 140));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the word's field for a record that
    /// breaks the encoding's rules, and whatever the typed call refuses (a
    /// result for an attempt that is not running: [`Error::AttemptNotRunning`];
    /// the poll every record ends with: [`Driver::poll_action`]'s, which a
    /// working engine never returns). Nothing changes on a refused record,
    /// and `output` is left as it was whenever an error comes out.
    pub fn exchange(&mut self, words: &[i64], output: &mut [i64; OUTPUT_WORDS]) -> Result<(), Error> {
        let input = Input::read(words)?;
        let receipt = match input {
            Input::Poll { .. } => NONE,
            Input::Cancel { now_ms } => {
                self.handle_cancel(now_ms);
                NONE
            }
            Input::TimerEnded { now_ms } => {
                self.handle_timer_end(now_ms)?;
                NONE
            }
            Input::Result { now_ms, attempt, token, held, outcome, .. } => {
                let receipt = match token {
                    Some(token) => {
                        let held: Held = member(held, "held", "value 0 or error 1")?;
                        self.handle_result_with_token(now_ms, attempt, outcome, token, held)?
                    }
                    None => self.handle_result(now_ms, attempt, outcome)?,
                };
                index_of::<Receipt>(receipt)
            }
        };
        // The step, with a finish's ending read where it is (no action made for it).
        let step = self.poll_step(input.now_ms())?;
        output[output::RECEIPT] = receipt;
        write_step(step, self.finish(), output);
        Ok(())
    }
}

/// An input record, read (the one reading of it, for a driver and an operation alike).
enum Input {
    Poll {
        now_ms: u64,
    },
    Cancel {
        now_ms: u64,
    },
    TimerEnded {
        now_ms: u64,
    },
    /// `held` is still the raw word: only a result with a token reads it.
    /// `status_code` is the raw `outcome_code` of an `http_status` outcome.
    Result {
        now_ms: u64,
        attempt: u32,
        token: Option<u64>,
        held: i64,
        outcome: Outcome,
        status_code: Option<i64>,
    },
}

impl Input {
    fn read(words: &[i64]) -> Result<Input, Error> {
        let needed = |count: usize| {
            if words.len() < count {
                Err(Error::InvalidArgument {
                    field: "input",
                    rule: message!(WireRecordShort, count as u64, words.len() as u64),
                })
            } else {
                Ok(())
            }
        };
        needed(input::NOW_MS + 1)?;
        // The record padded to its full length (words past it are ignored).
        let mut record = [NONE; INPUT_WORDS];
        for (slot, word) in record.iter_mut().zip(words) {
            *slot = *word;
        }
        let kind: InputKind = member(record[input::INPUT_KIND], "input_kind", "an input kind (0..=3)")?;
        let now_ms = whole(record[input::NOW_MS], "now_ms")?;
        Ok(match kind {
            InputKind::Poll => Input::Poll { now_ms },
            InputKind::Cancel => Input::Cancel { now_ms },
            InputKind::TimerEnded => Input::TimerEnded { now_ms },
            InputKind::Result => {
                needed(INPUT_WORDS)?;
                let attempt = u32::try_from(record[input::ATTEMPT])
                    .ok()
                    .filter(|attempt| *attempt > 0)
                    .ok_or_else(|| refuse("attempt", "an attempt number (1 or more)", record[input::ATTEMPT]))?;
                let token = optional(record[input::TOKEN], "token")?;
                let (kind, code) = (record[input::OUTCOME_KIND], record[input::OUTCOME_CODE]);
                let outcome = decode_outcome(kind, code, record[input::OUTCOME_RETRY_AFTER_MS])?;
                let status_code = (kind == OutcomeKind::HttpStatus.word()).then_some(code);
                Input::Result { now_ms, attempt, token, held: record[input::HELD], outcome, status_code }
            }
        })
    }

    fn now_ms(&self) -> u64 {
        match *self {
            Input::Poll { now_ms }
            | Input::Cancel { now_ms }
            | Input::TimerEnded { now_ms }
            | Input::Result { now_ms, .. } => now_ms,
        }
    }
}

mod operation;
pub use operation::{decision, encode_decision, DecisionKind, DECISION_WORDS};

// An action's kind is the wire's vocabulary (its word on the wire, its name
// in JSON), so the mapping lives with the table rather than with the actions.
impl Action {
    /// What kind of action this is: its [`ActionKind`]'s
    /// [`name`](Named::name) (`start_attempt`, `abort_attempt`, `sleep`,
    /// `release`, `finish`) is the `type` of the action's JSON form, and its
    /// [`word`](ActionKind::word) the action's kind on the wire, so a binding
    /// names an action without a match of its own.
    ///
    /// ```
    /// use retryplan::config::value::Named;
    /// use retryplan::Action;
    /// assert_eq!(Action::Sleep { until_ms: 5 }.kind().name(), "sleep");
    /// ```
    #[must_use]
    pub fn kind(self) -> ActionKind {
        match self {
            Action::StartAttempt(_) => ActionKind::StartAttempt,
            Action::AbortAttempt { .. } => ActionKind::AbortAttempt,
            Action::Sleep { .. } => ActionKind::Sleep,
            Action::Release { .. } => ActionKind::Release,
            Action::Finish(_) => ActionKind::Finish,
        }
    }
}

#[cfg(test)]
mod step_tests;
#[cfg(test)]
mod tests;
