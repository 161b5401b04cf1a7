//! The worst-case timeline of a policy: what `retryplan explain` prints.
//!
//! The timeline runs the real [`Operation`] (so it can never disagree with it)
//! from time 0, with every attempt failing retryably at its timeout and every
//! jitter draw at the top of its range, polling it at every wakeup as a host
//! does: a hedged policy's hedges start when the engine starts them, beside
//! the attempts still running, so attempt windows may overlap. It shows each
//! attempt's window and effective timeout, each wait's range, how many
//! configured attempts can actually run before the deadline, and plain
//! warnings.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::config::error::Error;
use crate::engine::backoff::{delay_range_ms, policy_ceiling_ms};
use crate::engine::operation::{Operation, OperationOptions};
use crate::ground::units::MAX_MS;
use crate::outcomes::classify::{Outcome, Verdict};
use crate::outcomes::decision::Decision;
use crate::policy::{AttemptTimeout, Policy};

/// One step of the worst case, in ms from the operation's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TimelineStep {
    /// An attempt runs to its timeout.
    Attempt {
        /// Attempt number, 1 for the first.
        attempt: u32,
        /// When it starts.
        start_ms: u64,
        /// Its effective timeout.
        timeout_ms: u64,
        /// When it is aborted.
        end_ms: u64,
    },
    /// A backoff wait at its longest.
    Wait {
        /// Retry number it precedes (0 = first retry).
        retry: u32,
        /// When it starts.
        start_ms: u64,
        /// The ceiling before jitter.
        ceiling_ms: u64,
        /// Shortest delay jitter can draw.
        min_delay_ms: u64,
        /// Longest delay jitter can draw.
        max_delay_ms: u64,
        /// When it ends at its longest.
        end_ms: u64,
    },
}

/// Something in a policy that a person should look at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Warning {
    /// Fewer attempts fit in the deadline than `max_attempts` allows.
    AttemptsDoNotFit {
        /// `max_attempts`.
        configured: u32,
        /// Attempts that can run in the worst case.
        fit: u32,
        /// The deadline, from the start.
        deadline_ms: u64,
    },
    /// All attempts at their full timeout plus the longest waits (after the
    /// time spent before the first attempt) end after the deadline.
    WorstCaseExceedsDeadline {
        /// When the unbounded worst case ends, from the operation's start.
        worst_case_ms: u64,
        /// The deadline, from the start.
        deadline_ms: u64,
    },
    /// Server guidance up to the cap can never be honored: the cap is at
    /// least the whole deadline.
    GuidanceCapExceedsDeadline {
        /// `server_guidance.cap_ms`.
        cap_ms: u64,
        /// The deadline, from the start.
        deadline_ms: u64,
    },
}

impl core::fmt::Display for Warning {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Warning::AttemptsDoNotFit { configured, fit, deadline_ms } => {
                let fit = if fit == 1 { "1 attempt fits".to_owned() } else { format!("{fit} attempts fit") };
                write!(f, "max_attempts is {configured} but only {fit} in {deadline_ms} ms")
            }
            Warning::WorstCaseExceedsDeadline { worst_case_ms, deadline_ms } => {
                write!(f, "worst case {worst_case_ms} ms exceeds the {deadline_ms} ms deadline")
            }
            Warning::GuidanceCapExceedsDeadline { cap_ms, deadline_ms } => write!(
                f,
                "server_guidance.cap_ms ({cap_ms} ms) is not shorter than the whole {deadline_ms} ms deadline"
            ),
        }
    }
}

/// A policy's worst-case timeline against a deadline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    /// The deadline used, from the start: `min(total_timeout_ms, deadline)`.
    pub deadline_ms: u64,
    /// When the first attempt starts, from the operation's start.
    pub first_attempt_at_ms: u64,
    /// The response reserve kept at the end.
    pub response_reserve_ms: u64,
    /// `max_attempts`.
    pub configured_attempts: u32,
    /// Attempts that start in the worst case.
    pub attempts_that_fit: u32,
    /// Attempts and waits in order.
    pub steps: Vec<TimelineStep>,
    /// How the worst case ends (a give-up).
    pub ending: Decision,
    /// Every configured attempt at its full fixed timeout plus every longest
    /// wait, ignoring the deadline; `None` for a fraction-of-remaining timeout.
    /// At most [`MAX_MS`] (the sum saturates there, as every time the engine
    /// returns: a JavaScript number holds it exactly).
    pub unbounded_worst_case_ms: Option<u64>,
    /// Plain warnings.
    pub warnings: Vec<Warning>,
}

/// The worst-case timeline of `policy` against `deadline_ms` (from the
/// operation's start; `None` uses the policy's total timeout alone), when the
/// first attempt starts `first_attempt_at_ms` after the operation did (time
/// already spent queueing or connecting: 0 if none).
///
/// ```
/// use retryplan::{explain, Policy};
/// let policy = Policy::from_json(r#"{
///     "max_attempts": 3, "total_timeout_ms": 2000, "attempt_timeout": {"fixed_ms": 1000},
///     "response_reserve_ms": 0, "minimum_useful_attempt_ms": 100,
///     "backoff": {"base_ms": 100, "cap_ms": 2000}, "jitter": {"kind": "none"}
/// }"#).unwrap();
/// let timeline = explain(&policy, None, 0).unwrap();
/// assert_eq!(timeline.unbounded_worst_case_ms, Some(3300));
/// assert_eq!(timeline.attempts_that_fit, 2);
/// assert_eq!(timeline.warnings[0].to_string(), "max_attempts is 3 but only 2 attempts fit in 2000 ms");
///
/// // A time no clock reads is refused, named, never read as another.
/// let error = explain(&policy, None, 1 << 53).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "invalid argument `first_attempt_at_ms`: must be a whole number of milliseconds in 0..=2^53 - 1 (9007199254740991), got 9007199254740992"
/// );
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `deadline_ms` or `first_attempt_at_ms`
/// when it is past [`MAX_MS`] (2^53 - 1); any error the engine returns while
/// the worst case is walked (none for times in range), never a made-up ending.
pub fn explain(policy: &Policy, deadline_ms: Option<u64>, first_attempt_at_ms: u64) -> Result<Timeline, Error> {
    if let Some(deadline_ms) = deadline_ms.filter(|deadline_ms| *deadline_ms > MAX_MS) {
        return Err(Error::ms_above_max("deadline_ms", deadline_ms));
    }
    if first_attempt_at_ms > MAX_MS {
        return Err(Error::ms_above_max("first_attempt_at_ms", first_attempt_at_ms));
    }
    let walk = walk(policy, deadline_ms, first_attempt_at_ms)?;
    let unbounded_worst_case_ms = unbounded_worst_case_ms(policy)?;
    let deadline_ms = walk.deadline_ms;
    let attempts_that_fit = walk.attempts_started;
    let mut warnings = Vec::new();
    if attempts_that_fit < policy.max_attempts {
        warnings.push(Warning::AttemptsDoNotFit {
            configured: policy.max_attempts,
            fit: attempts_that_fit,
            deadline_ms,
        });
    }
    let worst_case_end_ms = unbounded_worst_case_ms.map(|worst| worst.saturating_add(first_attempt_at_ms).min(MAX_MS));
    if let Some(worst_case_ms) = worst_case_end_ms.filter(|worst| *worst > deadline_ms) {
        warnings.push(Warning::WorstCaseExceedsDeadline { worst_case_ms, deadline_ms });
    }
    let guidance = policy.server_guidance;
    if guidance.honor && guidance.cap_ms >= deadline_ms {
        warnings.push(Warning::GuidanceCapExceedsDeadline { cap_ms: guidance.cap_ms, deadline_ms });
    }
    Ok(Timeline {
        deadline_ms,
        first_attempt_at_ms,
        response_reserve_ms: policy.response_reserve_ms,
        configured_attempts: policy.max_attempts,
        attempts_that_fit,
        steps: walk.steps,
        ending: walk.ending,
        unbounded_worst_case_ms,
        warnings,
    })
}

/// [`explain`] under its old name, from when `explain` read a time past
/// [`MAX_MS`] as [`MAX_MS`] instead of refusing it.
///
/// # Errors
/// As [`explain`].
#[deprecated(note = "`explain` now refuses a time past MAX_MS itself, returning this Result: call `explain`")]
pub fn try_explain(policy: &Policy, deadline_ms: Option<u64>, first_attempt_at_ms: u64) -> Result<Timeline, Error> {
    explain(policy, deadline_ms, first_attempt_at_ms)
}

/// What one walk of the worst case found.
struct Walk {
    steps: Vec<TimelineStep>,
    ending: Decision,
    /// When the ending came, from the operation's start.
    ended_at_ms: u64,
    attempts_started: u32,
    deadline_ms: u64,
}

/// Runs the real [`Operation`] from time 0 as a host would (as the
/// [`Driver`](crate::Driver) does): at each wakeup every running attempt
/// whose abort time has come fails retryably, earliest first, then the
/// operation is polled; a hedge starts when the engine says so, beside the
/// attempts still running, so attempt windows may overlap.
fn walk(policy: &Policy, deadline_ms: Option<u64>, first_attempt_at_ms: u64) -> Result<Walk, Error> {
    let options = OperationOptions::new(0);
    let options = match deadline_ms {
        Some(deadline_ms) => options.with_deadline_ms(deadline_ms),
        None => options,
    };
    let mut operation = Operation::new(policy, 0, options).with_highest_draws();
    let failure = Outcome::Application { verdict: Verdict::Retryable };
    let mut steps = Vec::new();
    let mut previous_delay_ms = policy.backoff.base_ms;
    // The wait already drawn (a wait is answered again by every poll until it ends).
    let mut wait_shown: Option<u32> = None;
    let mut now = first_attempt_at_ms;
    let ending = 'walk: loop {
        let mut decisions = Vec::new();
        while let Some(attempt) = operation.earliest_overdue(now) {
            decisions.push(operation.on_outcome(now, attempt, &failure)?);
            if decisions.last().is_some_and(Decision::is_final) {
                break;
            }
        }
        if !decisions.last().is_some_and(Decision::is_final) {
            decisions.push(operation.poll(now)?);
        }
        // Reported outcomes or a start move the walk on even at the same time.
        let mut moved = decisions.len() > 1;
        let mut next: Option<u64> = None;
        for decision in decisions {
            match decision {
                Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, .. } => {
                    steps.push(TimelineStep::Attempt { attempt, start_ms: now, timeout_ms, end_ms: abort_at_ms });
                    // Poll again at once: the engine answers when to come back.
                    moved = true;
                    next = Some(now);
                }
                Decision::Wait { retry, until_ms, .. } => {
                    if wait_shown != Some(retry) {
                        wait_shown = Some(retry);
                        let (min_delay_ms, max_delay_ms) = delay_range_ms(policy, retry, previous_delay_ms);
                        previous_delay_ms = max_delay_ms;
                        let ceiling_ms = policy_ceiling_ms(policy, retry, false);
                        steps.push(TimelineStep::Wait {
                            retry,
                            start_ms: now,
                            ceiling_ms,
                            min_delay_ms,
                            max_delay_ms,
                            end_ms: until_ms,
                        });
                    }
                    next = Some(next.map_or(until_ms, |next| next.min(until_ms)));
                }
                Decision::AwaitOutcome { until_ms, .. } => {
                    next = Some(next.map_or(until_ms, |next| next.min(until_ms)));
                }
                ending => break 'walk ending,
            }
        }
        let next = next.unwrap_or(now).max(now);
        // A wait or an await names a later time, or an attempt overdue at
        // this one; one that names neither would answer the same forever.
        // The engine never does (a test walks every conformance policy); a
        // host given nothing to wait for cancels, and so does the walk.
        if next == now && !moved && operation.earliest_overdue(now).is_none() {
            break operation.cancel(now)?;
        }
        now = next;
    };
    Ok(Walk {
        steps,
        ending,
        ended_at_ms: now,
        attempts_started: operation.attempts_started(),
        deadline_ms: operation.deadline_ms(),
    })
}
/// Every attempt at its fixed timeout plus every longest wait; for a hedged
/// policy, when the engine's own worst case ends with the deadline lifted
/// (hedges run beside the attempts they hedge, so their windows overlap and
/// do not add up).
fn unbounded_worst_case_ms(policy: &Policy) -> Result<Option<u64>, Error> {
    let AttemptTimeout::Fixed { ms } = policy.attempt_timeout else {
        return Ok(None);
    };
    if policy.hedging.is_some() {
        let mut lifted = *policy;
        lifted.total_timeout_ms = MAX_MS;
        lifted.response_reserve_ms = 0;
        return Ok(Some(walk(&lifted, None, 0)?.ended_at_ms));
    }
    let mut total = ms.saturating_mul(u64::from(policy.max_attempts));
    let mut previous_delay_ms = policy.backoff.base_ms;
    for retry in 0..policy.max_attempts.saturating_sub(1) {
        let (_, longest) = delay_range_ms(policy, retry, previous_delay_ms);
        previous_delay_ms = longest;
        total = total.saturating_add(longest);
    }
    Ok(Some(total.min(MAX_MS)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unbounded_worst_case_is_a_time_at_most_max_ms() {
        let json = alloc::format!(
            r#"{{"max_attempts": 128, "total_timeout_ms": {MAX_MS}, "attempt_timeout": {{"fixed_ms": {MAX_MS}}}}}"#
        );
        let timeline = explain(&Policy::from_json(&json).unwrap(), None, 0).unwrap();
        assert_eq!(timeline.unbounded_worst_case_ms, Some(MAX_MS));
    }
    use crate::config::value::Value;
    use crate::outcomes::classify::Class;
    use crate::outcomes::decision::GiveUpReason;

    #[test]
    fn trees_match_serde_json_for_the_crates_types() {
        let policy = Policy::default();
        let timeline = explain(&policy, Some(1_500), 0).unwrap();
        let tree = Value::from_serialize(&timeline).unwrap();
        let json: serde_json::Value = serde_json::to_value(&timeline).unwrap();
        let round: serde_json::Value = serde_json::to_value(&tree).unwrap();
        assert_eq!(round, json);
        let snapshot = Class::Retryable { ambiguous: true, throttling: false };
        assert_eq!(
            serde_json::to_value(Value::from_serialize(&snapshot).unwrap()).unwrap(),
            serde_json::to_value(snapshot).unwrap()
        );
    }

    #[test]
    fn warnings_count_in_words() {
        let one = Warning::AttemptsDoNotFit { configured: 3, fit: 1, deadline_ms: 300 };
        assert_eq!(one.to_string(), "max_attempts is 3 but only 1 attempt fits in 300 ms");
        let two = Warning::AttemptsDoNotFit { configured: 3, fit: 2, deadline_ms: 800 };
        assert_eq!(two.to_string(), "max_attempts is 3 but only 2 attempts fit in 800 ms");
    }

    fn hedged() -> Policy {
        Policy::from_json(
            r#"{"max_attempts": 3, "total_timeout_ms": 1000, "attempt_timeout": {"fixed_ms": 500},
                "idempotency": "idempotent", "hedging": {"delay_ms": 100, "max_hedged_attempts": 2},
                "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10}"#,
        )
        .unwrap()
    }

    #[test]
    fn hedges_start_when_the_engine_starts_them_and_their_windows_overlap() {
        let timeline = explain(&hedged(), None, 0).unwrap();
        let windows: Vec<(u32, u64, u64)> = timeline
            .steps
            .iter()
            .map(|step| match *step {
                TimelineStep::Attempt { attempt, start_ms, end_ms, .. } => (attempt, start_ms, end_ms),
                TimelineStep::Wait { .. } => panic!("no wait between hedges: {step:?}"),
            })
            .collect();
        assert_eq!(windows, [(1, 0, 500), (2, 100, 600), (3, 200, 700)]);
        assert_eq!(timeline.attempts_that_fit, 3);
        assert!(matches!(
            timeline.ending,
            Decision::GaveUp { reason: GiveUpReason::AttemptsExhausted, attempts: 3, .. }
        ));
        // The worst case is the engine's: the last hedge fails at 700 ms.
        assert_eq!(timeline.unbounded_worst_case_ms, Some(700));
        // The only warning is about the default guidance cap, not about time.
        assert_eq!(timeline.warnings, [Warning::GuidanceCapExceedsDeadline { cap_ms: 60_000, deadline_ms: 1000 }]);
    }

    #[test]
    fn a_hedge_that_does_not_fit_is_counted_as_the_engine_counts_it() {
        // Against 150 ms the first hedge starts at 100 ms; the second would
        // start at 200 ms, past the deadline.
        let timeline = explain(&hedged(), Some(150), 0).unwrap();
        assert_eq!(timeline.attempts_that_fit, 2);
        assert_eq!(timeline.warnings[0], Warning::AttemptsDoNotFit { configured: 3, fit: 2, deadline_ms: 150 });
    }

    #[test]
    fn a_time_past_max_ms_is_refused_never_answered_with_a_made_up_ending() {
        let policy = Policy::default();
        let error = explain(&policy, None, MAX_MS + 1).unwrap_err();
        assert!(matches!(error, Error::InvalidArgument { field: "first_attempt_at_ms", .. }), "{error}");
        let error = explain(&policy, Some(u64::MAX), 0).unwrap_err();
        assert!(matches!(error, Error::InvalidArgument { field: "deadline_ms", .. }), "{error}");
        // MAX_MS itself is a time: the engine's own answer there is to give up before any attempt.
        let timeline = explain(&policy, Some(MAX_MS), MAX_MS).unwrap();
        assert_eq!(timeline.attempts_that_fit, 0);
        assert!(matches!(
            timeline.ending,
            Decision::GaveUp { reason: GiveUpReason::DeadlineInsufficient, attempts: 0, .. }
        ));
        #[allow(deprecated)]
        let old_name = try_explain(&policy, Some(MAX_MS), MAX_MS);
        assert_eq!(old_name.unwrap(), timeline);
    }
}
