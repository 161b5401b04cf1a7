//! The worst-case timeline of a policy: what `retryplan explain` prints.
//!
//! The timeline runs the real [`Operation`] (so it can never disagree with it)
//! from time 0, with every attempt failing retryably at its timeout and every
//! jitter draw at the top of its range. It shows each attempt's window and
//! effective timeout, each wait's range, how many configured attempts can
//! actually run before the deadline, and plain warnings.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::engine::backoff::{delay_range_ms, policy_ceiling_ms};
use crate::engine::operation::{Operation, OperationOptions};
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
/// let timeline = explain(&policy, None, 0);
/// assert_eq!(timeline.unbounded_worst_case_ms, Some(3300));
/// assert_eq!(timeline.attempts_that_fit, 2);
/// assert_eq!(timeline.warnings[0].to_string(), "max_attempts is 3 but only 2 attempts fit in 2000 ms");
/// ```
#[must_use]
pub fn explain(policy: &Policy, deadline_ms: Option<u64>, first_attempt_at_ms: u64) -> Timeline {
    let options = OperationOptions::new(0);
    let options = match deadline_ms {
        Some(deadline_ms) => options.with_deadline_ms(deadline_ms),
        None => options,
    };
    let mut operation = Operation::new(policy, 0, options).with_highest_draws();
    let failure = Outcome::Application { verdict: Verdict::Retryable };
    let mut steps = Vec::new();
    let mut now = first_attempt_at_ms;
    let mut previous_delay_ms = policy.backoff.base_ms;
    let mut decision = operation.poll(now);
    let ending = loop {
        match decision {
            Ok(Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, .. }) => {
                steps.push(TimelineStep::Attempt { attempt, start_ms: now, timeout_ms, end_ms: abort_at_ms });
                now = abort_at_ms;
                decision = operation.on_outcome(now, attempt, &failure);
            }
            Ok(Decision::Wait { retry, until_ms, .. }) => {
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
                now = until_ms;
                decision = operation.poll(now);
            }
            Ok(other) => break other,
            // The loop only feeds the running attempt and polls before an
            // ending, so the engine returns no error here.
            Err(_) => {
                break Decision::Succeeded {
                    attempts: operation.attempts_started(),
                    winner: 0,
                    abort_attempts: crate::outcomes::decision::AttemptSet::EMPTY,
                }
            }
        }
    };
    let unbounded_worst_case_ms = unbounded_worst_case_ms(policy);
    let deadline_ms = operation.deadline_ms();
    let attempts_that_fit = operation.attempts_started();
    let mut warnings = Vec::new();
    if attempts_that_fit < policy.max_attempts {
        warnings.push(Warning::AttemptsDoNotFit {
            configured: policy.max_attempts,
            fit: attempts_that_fit,
            deadline_ms,
        });
    }
    let worst_case_end_ms = unbounded_worst_case_ms.map(|worst| worst.saturating_add(first_attempt_at_ms));
    if let Some(worst_case_ms) = worst_case_end_ms.filter(|worst| *worst > deadline_ms) {
        warnings.push(Warning::WorstCaseExceedsDeadline { worst_case_ms, deadline_ms });
    }
    let guidance = policy.server_guidance;
    if guidance.honor && guidance.cap_ms >= deadline_ms {
        warnings.push(Warning::GuidanceCapExceedsDeadline { cap_ms: guidance.cap_ms, deadline_ms });
    }
    Timeline {
        deadline_ms,
        first_attempt_at_ms,
        response_reserve_ms: policy.response_reserve_ms,
        configured_attempts: policy.max_attempts,
        attempts_that_fit,
        steps,
        ending,
        unbounded_worst_case_ms,
        warnings,
    }
}

/// Every attempt at its fixed timeout plus every longest wait.
fn unbounded_worst_case_ms(policy: &Policy) -> Option<u64> {
    let AttemptTimeout::Fixed { ms } = policy.attempt_timeout else {
        return None;
    };
    let mut total = ms.saturating_mul(u64::from(policy.max_attempts));
    let mut previous_delay_ms = policy.backoff.base_ms;
    for retry in 0..policy.max_attempts.saturating_sub(1) {
        let (_, longest) = delay_range_ms(policy, retry, previous_delay_ms);
        previous_delay_ms = longest;
        total = total.saturating_add(longest);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::value::Value;
    use crate::outcomes::classify::Class;

    #[test]
    fn trees_match_serde_json_for_the_crates_types() {
        let policy = Policy::default();
        let timeline = explain(&policy, Some(1_500), 0);
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
}
