//! Every ending: the decision is returned once, and whatever the running
//! attempts hold from the dependency is given back (when an operation is
//! dropped while attempts run, [`Controls`](super::grants::Controls) gives it
//! back as it drops).

use crate::outcomes::decision::{AttemptSet, Decision, GiveUpReason};

use super::{Operation, Phase, Running, MAX_RUNNING};

impl Operation {
    /// Gives back what the running attempts hold and lists them for the caller to abort.
    pub(super) fn abort_running(&mut self) -> AttemptSet {
        let aborted = core::mem::take(&mut self.running_set);
        self.running = [Running::FREE; MAX_RUNNING];
        if let Some(controls) = self.controls.as_mut() {
            controls.release_all();
        }
        aborted
    }

    pub(super) fn give_up(&mut self, now: u64, reason: GiveUpReason, refused_delay_ms: Option<u64>) -> Decision {
        let remaining_ms = self.remaining_ms(now);
        let abort_attempts = self.abort_running();
        let decision = Decision::GaveUp {
            reason,
            attempts: self.attempts_started,
            remaining_ms,
            refused_delay_ms,
            abort_attempts,
        };
        self.end(decision)
    }

    pub(super) fn end(&mut self, decision: Decision) -> Decision {
        self.phase = Phase::Ended;
        self.hedge_at_ms = None;
        decision
    }
}
