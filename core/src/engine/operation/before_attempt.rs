//! **Before every attempt** (the module doc's first rule): the remaining
//! budget against the minimum useful attempt, the attempt cap, the grants of
//! a shared dependency ([`grants`](super::grants)), then the attempt's
//! effective timeout.

use crate::ground::deadline::remaining_ms;
use crate::outcomes::decision::{Decision, GiveUpReason};
use crate::policy::AttemptTimeout;

use super::{Operation, Phase, Running, Start};

impl Operation {
    pub(super) fn start_or_give_up(&mut self, now: u64, start: Start) -> Decision {
        match self.try_start(now, start) {
            Ok(started) => started,
            Err(reason) => self.give_up(now, reason, None),
        }
    }

    /// Runs the pre-attempt checks and, when they pass, starts an attempt.
    pub(super) fn try_start(&mut self, now: u64, start: Start) -> Result<Decision, GiveUpReason> {
        let remaining = self.remaining_ms(now);
        let minimum = self.policy.minimum_useful_attempt_ms.max(1);
        if remaining < minimum {
            return Err(GiveUpReason::DeadlineInsufficient);
        }
        if self.attempts_started >= self.policy.max_attempts {
            return Err(GiveUpReason::AttemptsExhausted);
        }
        let Some(slot) = self.running.iter().position(|running| running.is_free()) else {
            return Err(GiveUpReason::NoRetrySlot);
        };
        let last_failure = self.last_failure;
        if let Some(controls) = self.controls.as_mut() {
            controls.acquire(slot, now, start, last_failure)?;
        }
        let timeout_ms = self.attempt_timeout_ms(remaining, minimum);
        // Cut by the caller: left less than half the time the policy alone gives it (half, as the hosts judge a
        // clock that barely moves: a hop's reserve or a caller's last few ms take far less).
        let policy_remaining = remaining_ms(self.policy_deadline_ms, now, self.policy.response_reserve_ms);
        let cut_by_caller = timeout_ms.saturating_mul(2) < self.attempt_timeout_ms(policy_remaining, minimum);
        self.attempts_started += 1;
        let attempt = self.attempts_started;
        let abort_at_ms = now.saturating_add(timeout_ms);
        if let Some(free) = self.running.get_mut(slot) {
            *free = Running { attempt, abort_at_ms, cut_by_caller };
        }
        self.running_set.insert(attempt);
        self.phase = Phase::Running;
        self.schedule_hedge(now, None);
        Ok(Decision::StartAttempt {
            attempt,
            timeout_ms,
            abort_at_ms,
            request_id: self.request_id(attempt),
            remaining_ms: remaining,
            hedge: start == Start::Hedge,
        })
    }

    /// The effective timeout of an attempt started with `remaining` ms left:
    /// the policy's attempt timeout, at most what remains.
    fn attempt_timeout_ms(&self, remaining: u64, minimum: u64) -> u64 {
        let per_attempt = match self.policy.attempt_timeout {
            AttemptTimeout::Fixed { ms } => ms,
            AttemptTimeout::FractionOfRemaining { permille } => {
                // `remaining` is at most 2^53 - 1 ms and `permille` at most 1000: the product fits in u64.
                let share = remaining.saturating_mul(u64::from(permille)) / 1000;
                share.max(minimum)
            }
        };
        per_attempt.min(remaining)
    }
}
