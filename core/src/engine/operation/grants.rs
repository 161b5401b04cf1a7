//! What an attempt takes from a shared [`Dependency`](crate::Dependency) and
//! how it settles it: a breaker permit, a retry slot and a budget token
//! before an attempt (the **Before every attempt** rule), fed the attempt's
//! result after it (step 0 of **After an attempt**), or given back unused.

use alloc::sync::Arc;

use crate::config::error::Error;
use crate::controls::breaker::BreakerPermit;
use crate::controls::budget::{RetryCause, RetryCharge};
use crate::controls::dependency::Dependency;
use crate::controls::retry_slots::RetrySlot;
use crate::headers::retry_after::Pushback;
use crate::outcomes::classify::{Class, Outcome};
use crate::outcomes::decision::GiveUpReason;

use super::{Start, MAX_RUNNING};

/// A grant the operation settles is always one it took from its own
/// dependency, so settling it cannot fail; a failure would be a bug here.
fn settled(result: Result<(), Error>) {
    debug_assert!(result.is_ok(), "an operation settled a grant of another control: {result:?}");
}

/// What a running attempt holds from the shared controls: grants it settles
/// exactly once (with its result, or given back when it is aborted).
#[derive(Debug, Default)]
struct Held {
    breaker: Option<BreakerPermit>,
    retry_slot: Option<RetrySlot>,
    charge: Option<RetryCharge>,
}

/// An operation's shared [`Dependency`] and what each running attempt holds
/// from it, by the attempt's slot in the operation's running attempts.
/// Dropped with attempts still running (the operation was dropped), it gives
/// back what they hold.
#[derive(Debug)]
pub(super) struct Controls {
    dependency: Arc<Dependency>,
    held: [Held; MAX_RUNNING],
}

impl Controls {
    pub(super) fn new(dependency: Arc<Dependency>) -> Controls {
        Controls { dependency, held: Default::default() }
    }

    /// Takes what the attempt in `slot` needs from the dependency: a breaker
    /// permit, and for a retry or hedge a retry slot and then a budget
    /// token (priced by `last_failure`). On refusal everything taken is given
    /// back and the slot holds nothing.
    pub(super) fn acquire(
        &mut self,
        slot: usize,
        now: u64,
        start: Start,
        last_failure: RetryCause,
    ) -> Result<(), GiveUpReason> {
        let held = self.take_for(now, start, last_failure)?;
        if let Some(free) = self.held.get_mut(slot) {
            *free = held;
        }
        Ok(())
    }

    fn take_for(&self, now: u64, start: Start, last_failure: RetryCause) -> Result<Held, GiveUpReason> {
        let mut held = Held::default();
        let dependency = &*self.dependency;
        if let Some(breaker) = dependency.breaker() {
            held.breaker = Some(breaker.try_acquire(now).ok_or(GiveUpReason::CircuitOpen)?);
        }
        if start == Start::First {
            if let Some(budget) = dependency.budget() {
                budget.on_request(now);
            }
            return Ok(held);
        }
        if let Some(slots) = dependency.retry_slots() {
            match slots.try_acquire() {
                Some(slot) => held.retry_slot = Some(slot),
                None => {
                    self.release(held);
                    return Err(GiveUpReason::NoRetrySlot);
                }
            }
        }
        if let Some(budget) = dependency.budget() {
            match budget.try_retry_for(now, last_failure) {
                Some(charge) => held.charge = Some(charge),
                None => {
                    self.release(held);
                    return Err(GiveUpReason::BudgetExhausted);
                }
            }
        }
        Ok(held)
    }

    /// Whether the dependency's budget refuses a retry at `now` for a failure
    /// of class `last_failure`, taking nothing (asked when the failure
    /// arrives: a refused retry gives up then, not after its wait).
    pub(super) fn budget_refuses_retry(&self, now: u64, last_failure: RetryCause) -> bool {
        self.dependency.budget().is_some_and(|budget| !budget.allows_retry(now, last_failure))
    }

    /// Gives back what every running attempt holds, without a result.
    pub(super) fn release_all(&mut self) {
        for index in 0..MAX_RUNNING {
            if let Some(held) = self.held.get_mut(index).map(core::mem::take) {
                self.release(held);
            }
        }
    }

    /// Gives back what an attempt holds without a result (a charge stays spent).
    fn release(&self, held: Held) {
        let dependency = &*self.dependency;
        if let (Some(breaker), Some(permit)) = (dependency.breaker(), held.breaker) {
            settled(breaker.release(permit));
        }
        if let (Some(slots), Some(slot)) = (dependency.retry_slots(), held.retry_slot) {
            settled(slots.release(slot));
        }
        if let (Some(budget), Some(charge)) = (dependency.budget(), held.charge) {
            settled(budget.spend(charge));
        }
    }

    /// Feeds the result of the attempt that ran in `slot` to the dependency's
    /// controls (`honor_guidance`: the policy honors server guidance).
    pub(super) fn settle(&mut self, slot: usize, now: u64, class: Class, outcome: &Outcome, honor_guidance: bool) {
        let Some(finished) = self.held.get_mut(slot).map(core::mem::take) else { return };
        let dependency = &*self.dependency;
        let Held { breaker: permit, retry_slot, charge } = finished;
        if let (Some(slots), Some(slot)) = (dependency.retry_slots(), retry_slot) {
            settled(slots.release(slot));
        }
        let breaker = dependency.breaker().zip(permit);
        let budget = dependency.budget();
        match class {
            Class::Cancelled => {
                if let Some((breaker, permit)) = breaker {
                    settled(breaker.release(permit));
                }
                if let (Some(budget), Some(charge)) = (budget, charge) {
                    settled(budget.spend(charge));
                }
            }
            Class::Retryable { .. } => {
                if let Some((breaker, permit)) = breaker {
                    settled(breaker.on_failure(now, permit));
                }
                if let Some(budget) = budget {
                    settled(budget.on_failure(now, charge));
                }
            }
            Class::Success | Class::NotRetryable | Class::Conflict => {
                if let Some((breaker, permit)) = breaker {
                    settled(breaker.on_success(now, permit));
                }
                let declined = matches!(outcome, Outcome::GrpcStatus { pushback: Some(Pushback::DoNotRetry), .. });
                if let (true, true, Some(budget)) = (declined, honor_guidance, budget) {
                    // gRFC A6 "Throttling": a "do not retry" pushback counts as a failure, whatever the code.
                    budget.record_failure(now);
                }
                match (budget, class) {
                    (Some(budget), Class::Success) => settled(budget.on_success(now, charge)),
                    (Some(budget), _) => {
                        if let Some(charge) = charge {
                            settled(budget.spend(charge));
                        }
                    }
                    (None, _) => {}
                }
            }
        }
    }
}

impl Drop for Controls {
    fn drop(&mut self) {
        self.release_all();
    }
}
