//! Aggregate counters over many operations' decisions, for metrics.

use serde::{Deserialize, Serialize};

use crate::ground::lock::Lock;
use crate::outcomes::decision::{Decision, GiveUpReason};

/// Give-ups counted by reason; one field per [`GiveUpReason`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct GiveUpCounts {
    pub attempts_exhausted: u64,
    pub deadline_insufficient: u64,
    pub retry_after_exceeds_deadline: u64,
    pub retry_after_above_cap: u64,
    pub server_declined_retry: u64,
    pub not_retryable: u64,
    pub cancelled: u64,
    pub budget_exhausted: u64,
    pub circuit_open: u64,
    pub no_retry_slot: u64,
    pub body_not_replayable: u64,
}

impl GiveUpCounts {
    /// The count for one reason.
    #[must_use]
    pub fn get(&self, reason: GiveUpReason) -> u64 {
        let mut counts = *self;
        *counts.slot_mut(reason)
    }

    /// Counts one give-up.
    pub fn add(&mut self, reason: GiveUpReason) {
        let slot = self.slot_mut(reason);
        *slot = slot.saturating_add(1);
    }

    /// Adds another set of counts.
    pub fn merge(&mut self, other: &GiveUpCounts) {
        for reason in GiveUpReason::ALL {
            let slot = self.slot_mut(reason);
            *slot = slot.saturating_add(other.get(reason));
        }
    }

    fn slot_mut(&mut self, reason: GiveUpReason) -> &mut u64 {
        match reason {
            GiveUpReason::AttemptsExhausted => &mut self.attempts_exhausted,
            GiveUpReason::DeadlineInsufficient => &mut self.deadline_insufficient,
            GiveUpReason::RetryAfterExceedsDeadline => &mut self.retry_after_exceeds_deadline,
            GiveUpReason::RetryAfterAboveCap => &mut self.retry_after_above_cap,
            GiveUpReason::ServerDeclinedRetry => &mut self.server_declined_retry,
            GiveUpReason::NotRetryable => &mut self.not_retryable,
            GiveUpReason::Cancelled => &mut self.cancelled,
            GiveUpReason::BudgetExhausted => &mut self.budget_exhausted,
            GiveUpReason::CircuitOpen => &mut self.circuit_open,
            GiveUpReason::NoRetrySlot => &mut self.no_retry_slot,
            GiveUpReason::BodyNotReplayable => &mut self.body_not_replayable,
        }
    }

    /// All give-ups.
    #[must_use]
    pub fn total(&self) -> u64 {
        GiveUpReason::ALL.iter().map(|reason| self.get(*reason)).fold(0, u64::saturating_add)
    }
}

/// Counters fed with every decision an operation returns (each attempt start
/// and each ending is returned exactly once, so nothing is double counted).
///
/// ```
/// use retryplan::{Decision, GiveUpReason};
/// use retryplan::engine::stats::Stats;
/// let mut stats = Stats::default();
/// stats.record(&Decision::GaveUp {
///     reason: GiveUpReason::NotRetryable, attempts: 1, remaining_ms: 0, refused_delay_ms: None, abort_attempts: Default::default(),
/// });
/// assert_eq!(stats.gave_up.not_retryable, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Stats {
    /// Logical operations that started a first attempt.
    pub operations: u64,
    /// Attempts started, first attempts included.
    pub attempts: u64,
    /// Attempts after the first that followed a failure.
    pub retries: u64,
    /// Hedges: attempts started while another was still running.
    pub hedges: u64,
    /// Operations that succeeded.
    pub succeeded: u64,
    /// Operations that ended in reconciliation.
    pub reconciles: u64,
    /// Operations that ended in a restart of the unit.
    pub restarts: u64,
    /// Operations that gave up, by reason.
    pub gave_up: GiveUpCounts,
}

impl Stats {
    /// Counts one decision. `Wait` and `AwaitOutcome` count nothing.
    pub fn record(&mut self, decision: &Decision) {
        match decision {
            Decision::StartAttempt { attempt, hedge, .. } => {
                self.attempts = self.attempts.saturating_add(1);
                let counter = match (*attempt, *hedge) {
                    (1, _) => &mut self.operations,
                    (_, true) => &mut self.hedges,
                    (_, false) => &mut self.retries,
                };
                *counter = counter.saturating_add(1);
            }
            Decision::Wait { .. } | Decision::AwaitOutcome { .. } => {}
            Decision::Succeeded { .. } => self.succeeded = self.succeeded.saturating_add(1),
            Decision::Reconcile { .. } => self.reconciles = self.reconciles.saturating_add(1),
            Decision::Restart { .. } => self.restarts = self.restarts.saturating_add(1),
            Decision::GaveUp { reason, .. } => self.gave_up.add(*reason),
        }
    }

    /// Adds another set of counters (e.g. from another thread).
    pub fn merge(&mut self, other: &Stats) {
        self.operations = self.operations.saturating_add(other.operations);
        self.attempts = self.attempts.saturating_add(other.attempts);
        self.retries = self.retries.saturating_add(other.retries);
        self.hedges = self.hedges.saturating_add(other.hedges);
        self.succeeded = self.succeeded.saturating_add(other.succeeded);
        self.reconciles = self.reconciles.saturating_add(other.reconciles);
        self.restarts = self.restarts.saturating_add(other.restarts);
        self.gave_up.merge(&other.gave_up);
    }
}

/// [`Stats`] shared by many operations and threads, counted inside the engine
/// as decisions are made (the [`Driver`](crate::Driver) records every
/// decision it takes from its operation), read as a consistent snapshot.
///
/// ```
/// use std::sync::Arc;
/// use retryplan::{Driver, DriverOptions, OperationOptions, Policy};
/// use retryplan::engine::stats::SharedStats;
/// let stats = Arc::new(SharedStats::default());
/// let options = DriverOptions { stats: Some(stats.clone()), ..DriverOptions::default() };
/// let mut driver = Driver::new(&Policy::default(), 0, OperationOptions::new(1), options).unwrap();
/// let _start = driver.poll_action(0).unwrap();
/// assert_eq!(stats.snapshot().operations, 1);
/// ```
#[derive(Debug, Default)]
pub struct SharedStats {
    counts: Lock<Stats>,
}

impl SharedStats {
    /// Counts one decision (see [`Stats::record`]).
    pub fn record(&self, decision: &Decision) {
        self.counts().record(decision);
    }

    /// The counts so far.
    #[must_use]
    pub fn snapshot(&self) -> Stats {
        *self.counts()
    }

    /// Adds counts made elsewhere (e.g. by another process, or before a restart).
    pub fn merge(&self, other: &Stats) {
        self.counts().merge(other);
    }

    fn counts(&self) -> impl core::ops::DerefMut<Target = Stats> + '_ {
        self.counts.lock()
    }
}
