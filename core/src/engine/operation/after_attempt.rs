//! **After an attempt**, steps 1 to 7 of the module doc in order (step 0,
//! the dependency's controls, is [`grants`](super::grants)): the ending, the
//! reconcile, the attempt and kind limits, server guidance, the backoff draw,
//! "does the next attempt fit", and the wait.

use crate::controls::budget::RetryCause;
use crate::engine::backoff::draw_delay_ms;
use crate::engine::backoff::polly;
use crate::engine::guidance::RetryAfterWait;
use crate::outcomes::classify::{Class, Outcome, TransportFailure, Verdict};
use crate::outcomes::decision::{Decision, GiveUpReason};
use crate::policy::retry_limits::FailureKind;
use crate::policy::{GuidanceMode, Idempotency, Jitter};

use super::{Operation, Phase, Start};

impl Operation {
    /// What a retryable class means for this request: with a method the
    /// policy does not retry, only a request that never left (or an
    /// application verdict) is tried again; an ambiguous failure of an unsafe
    /// request still answers reconcile.
    pub(super) fn restricted(&self, class: Class, outcome: &Outcome) -> Class {
        match class {
            Class::Retryable { ambiguous, .. } if self.method_not_retried && !retried_for_unlisted_method(outcome) => {
                if ambiguous && self.idempotency == Idempotency::Unsafe {
                    class
                } else {
                    Class::NotRetryable
                }
            }
            other => other,
        }
    }

    /// Counts a retryable failure by kind; true when its kind's retry limit is used up.
    pub(super) fn kind_limit_reached(&mut self, outcome: &Outcome) -> bool {
        failure_kind(outcome).is_some_and(|kind| {
            let failures = self.kind_failures.count(kind);
            self.policy.retry_limits.exhausted(kind, failures)
        })
    }

    pub(super) fn after_attempt(&mut self, now: u64, attempt: u32, class: Class, outcome: &Outcome) -> Decision {
        let attempts = self.attempts_started;
        let (ambiguous, throttling) = match class {
            Class::Success => {
                let abort_attempts = self.abort_running();
                return self.end(Decision::Succeeded { attempts, winner: attempt, abort_attempts });
            }
            Class::Cancelled => return self.give_up(now, GiveUpReason::Cancelled, None),
            Class::NotRetryable => return self.give_up(now, GiveUpReason::NotRetryable, None),
            Class::Conflict => {
                let remaining_ms = self.remaining_ms(now);
                let abort_attempts = self.abort_running();
                return self.end(Decision::Restart {
                    attempts,
                    deadline_ms: self.deadline_ms,
                    remaining_ms,
                    abort_attempts,
                });
            }
            Class::Retryable { ambiguous, throttling } => (ambiguous, throttling),
        };
        if ambiguous && self.idempotency == Idempotency::Unsafe {
            let remaining_ms = self.remaining_ms(now);
            let abort_attempts = self.abort_running();
            return self.end(Decision::Reconcile { attempts, remaining_ms, abort_attempts });
        }
        if self.one_shot_body {
            return self.give_up(now, GiveUpReason::BodyNotReplayable, None);
        }
        self.last_failure = if throttling {
            RetryCause::Throttling
        } else if matches!(outcome, Outcome::Transport { failure: TransportFailure::TimedOut, .. }) {
            RetryCause::Timeout
        } else {
            RetryCause::Transient
        };
        let kind_limit_reached = self.kind_limit_reached(outcome);
        if kind_limit_reached && !self.running_attempts().is_empty() {
            self.refuse_further_attempts(GiveUpReason::AttemptsExhausted);
            return self.poll_running(now);
        }
        if !self.running_attempts().is_empty() {
            // Another attempt is still running: this failure is not fatal. The
            // next hedge may start at once, or after the server's requested wait;
            // if the server refused further attempts, none starts again.
            match self.policy.server_guidance.apply(outcome) {
                RetryAfterWait::None => self.schedule_hedge(now, Some(0)),
                RetryAfterWait::AtLeastMs(ms) => self.schedule_hedge(now, Some(ms)),
                RetryAfterWait::DoNotRetry => self.refuse_further_attempts(GiveUpReason::ServerDeclinedRetry),
                RetryAfterWait::AboveCap { .. } => self.refuse_further_attempts(GiveUpReason::RetryAfterAboveCap),
            }
            return self.poll_running(now);
        }
        self.hedge_at_ms = None;
        if let Some(reason) = self.refused_by_server {
            return self.give_up(now, reason, None);
        }
        if attempts >= self.policy.max_attempts || kind_limit_reached || self.retries_delegated {
            return self.give_up(now, GiveUpReason::AttemptsExhausted, None);
        }

        let retry_after_ms = match self.policy.server_guidance.apply(outcome) {
            RetryAfterWait::None => None,
            RetryAfterWait::AtLeastMs(ms) => Some(ms),
            RetryAfterWait::DoNotRetry => return self.give_up(now, GiveUpReason::ServerDeclinedRetry, None),
            RetryAfterWait::AboveCap { requested_ms } => {
                return self.give_up(now, GiveUpReason::RetryAfterAboveCap, Some(requested_ms))
            }
        };

        let retry = attempts - 1;
        let mut retry_after_ms = retry_after_ms;
        let delay_ms = match (self.policy.server_guidance.mode, retry_after_ms) {
            (GuidanceMode::A6, Some(server_ms)) => {
                self.backoff_retry = 0;
                server_ms
            }
            (GuidanceMode::Replace, Some(server_ms)) => {
                self.backoff_retry = self.backoff_retry.saturating_add(1);
                server_ms
            }
            (mode, _) => {
                let backoff_retry = if mode == GuidanceMode::A6 { self.backoff_retry } else { retry };
                let backoff_ms = self.backoff_ms(backoff_retry, throttling);
                self.previous_delay_ms = backoff_ms;
                self.backoff_retry = self.backoff_retry.saturating_add(1);
                retry_after_ms = retry_after_ms
                    .map(|server_ms| self.policy.server_guidance.bound_above_backoff(server_ms, backoff_ms));
                backoff_ms.max(retry_after_ms.unwrap_or(0))
            }
        };

        let remaining = self.remaining_ms(now);
        let minimum = self.policy.minimum_useful_attempt_ms.max(1);
        if let Some(server_ms) = retry_after_ms {
            if server_ms.saturating_add(minimum) > remaining {
                return self.give_up(now, GiveUpReason::RetryAfterExceedsDeadline, Some(server_ms));
            }
        }
        if delay_ms.saturating_add(minimum) > remaining {
            return self.give_up(now, GiveUpReason::DeadlineInsufficient, Some(delay_ms));
        }
        if delay_ms == 0 {
            return self.start_or_give_up(now, Start::Retry);
        }
        // A retry the budget refuses now gives up now, not after the wait (the
        // budget is still asked again, and charged, when the retry starts).
        if self.controls.as_ref().is_some_and(|controls| controls.budget_refuses_retry(now, self.last_failure)) {
            return self.give_up(now, GiveUpReason::BudgetExhausted, None);
        }
        let until_ms = now.saturating_add(delay_ms);
        self.phase = Phase::Waiting { until_ms, retry_after_ms };
        Decision::Wait { retry, delay_ms, until_ms, retry_after_ms, remaining_ms: remaining }
    }

    /// The backoff before retry `retry` (0 for the first), from
    /// `backoff.throttling_base_ms` instead of `base_ms` after a throttling
    /// error: nothing for an immediate first retry, Polly's arithmetic for
    /// jitter `polly`, else one draw in the jitter range.
    pub(super) fn backoff_ms(&mut self, retry: u32, after_throttling: bool) -> u64 {
        let backoff = &self.policy.backoff;
        match self.policy.jitter {
            _ if backoff.immediate_first_retry && retry == 0 => 0,
            Jitter::Polly { use_jitter } => {
                let draws = &mut self.draws;
                polly::delay_ms(
                    backoff.kind,
                    use_jitter,
                    retry,
                    backoff.base_for_ms(after_throttling),
                    backoff.cap_ms,
                    &mut self.polly_state,
                    || draws.unit_interval(),
                )
            }
            _ => draw_delay_ms(&self.policy, retry, self.previous_delay_ms, after_throttling, &mut self.draws),
        }
    }
}

/// The kind of a failed outcome for `retry_limits` (`None` for success and
/// cancellation): a request that never left is `connect`, a failure after
/// sending `read`, a status or code `status`, an application verdict `other`.
fn failure_kind(outcome: &Outcome) -> Option<FailureKind> {
    match *outcome {
        Outcome::Transport { failure: TransportFailure::NotSent, .. } => Some(FailureKind::Connect),
        Outcome::Transport { .. } => Some(FailureKind::Read),
        Outcome::HttpStatus { .. } | Outcome::GrpcStatus { .. } => Some(FailureKind::Status),
        Outcome::Application { .. } => Some(FailureKind::Other),
        Outcome::Success | Outcome::Cancelled => None,
    }
}

/// True when an outcome may be retried for a request whose method the
/// policy's `retry_methods` does not list: only a request that never left, or
/// an application verdict `retryable`.
fn retried_for_unlisted_method(outcome: &Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Transport { failure: TransportFailure::NotSent, .. }
            | Outcome::Application { verdict: Verdict::Retryable }
    )
}
