//! **Hedging** (the module doc's second rule): while attempts run, when the
//! next hedge is due, what the caller awaits, and when hedging stops.

use crate::outcomes::decision::{Decision, GiveUpReason};

use super::{Operation, Start};

impl Operation {
    /// The running attempt that reached its abort time first (at or before
    /// `now_ms`; the lower number on a tie), if any.
    pub(crate) fn earliest_overdue(&self, now_ms: u64) -> Option<u32> {
        self.running
            .iter()
            .filter(|running| !running.is_free() && running.abort_at_ms <= now_ms)
            .min_by_key(|running| (running.abort_at_ms, running.attempt))
            .map(|running| running.attempt)
    }

    pub(super) fn running_until(&self) -> u64 {
        let earliest_abort =
            self.running.iter().filter(|running| !running.is_free()).map(|running| running.abort_at_ms).min();
        match (earliest_abort, self.hedge_at_ms) {
            (Some(abort), Some(hedge)) => abort.min(hedge),
            (Some(abort), None) => abort,
            (None, hedge) => hedge.unwrap_or(self.last_now_ms),
        }
    }

    pub(super) fn await_outcome(&self) -> Decision {
        Decision::AwaitOutcome { running: self.running_attempts().len(), until_ms: self.running_until() }
    }

    pub(super) fn poll_running(&mut self, now: u64) -> Decision {
        match self.hedge_at_ms {
            Some(hedge_at) if now >= hedge_at => match self.try_start(now, Start::Hedge) {
                Ok(started) => started,
                Err(_) => {
                    // A refused hedge stops hedging; the running attempts go on.
                    self.stop_hedging();
                    self.await_outcome()
                }
            },
            _ => self.await_outcome(),
        }
    }

    /// Plans the next hedge, if the policy hedges, hedging was not stopped,
    /// and there is room: `delay_ms` after `now` (`hedging.delay_ms` when `None`).
    pub(super) fn schedule_hedge(&mut self, now: u64, delay_ms: Option<u64>) {
        self.hedge_at_ms = self.policy.hedging.filter(|_| !self.hedging_stopped).and_then(|hedging| {
            let room = self.running_attempts().len() < 1 + hedging.max_hedged_attempts;
            let delay_ms = delay_ms.unwrap_or(hedging.delay_ms);
            (room && self.attempts_started < self.policy.max_attempts).then(|| now.saturating_add(delay_ms))
        });
    }

    /// The server refused further attempts while others still run: no hedge
    /// starts, and when the last running attempt fails the operation gives up.
    pub(super) fn refuse_further_attempts(&mut self, reason: GiveUpReason) {
        self.refused_by_server = Some(reason);
        self.stop_hedging();
    }

    pub(super) fn stop_hedging(&mut self) {
        self.hedging_stopped = true;
        self.hedge_at_ms = None;
    }
}
