//! What an attempt takes from a shared [`Dependency`](crate::Dependency) and
//! how it settles it: a breaker permit, an in-flight slot and a budget token
//! before an attempt (the **Before every attempt** rule), fed the attempt's
//! result after it (step 0 of **After an attempt**), or given back unused.

use crate::classify::{Class, Outcome};
use crate::decision::GiveUpReason;
use crate::error::Error;
use crate::retry_after::Pushback;

use super::{Operation, Running, Start};

/// A grant the operation settles is always one it took from its own
/// dependency, so settling it cannot fail; a failure would be a bug here.
fn settled(result: Result<(), Error>) {
    debug_assert!(result.is_ok(), "an operation settled a grant of another control: {result:?}");
}

impl Operation {
    /// Takes what an attempt needs from the dependency: a breaker permit, and
    /// for a retry or hedge an in-flight slot and then a budget token. On
    /// refusal everything taken is given back.
    pub(super) fn acquire(&self, now: u64, start: Start) -> Result<Running, GiveUpReason> {
        let mut held = Running { attempt: 0, abort_at_ms: 0, breaker: None, retry_slot: None, charge: None };
        let Some(dependency) = self.dependency.as_deref() else {
            return Ok(held);
        };
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
                    return Err(GiveUpReason::ConcurrencyLimited);
                }
            }
        }
        if let Some(budget) = dependency.budget() {
            match budget.try_retry_for(now, self.last_failure) {
                Some(charge) => held.charge = Some(charge),
                None => {
                    self.release(held);
                    return Err(GiveUpReason::BudgetExhausted);
                }
            }
        }
        Ok(held)
    }

    /// Gives back what an attempt holds without a result (a charge stays spent).
    pub(super) fn release(&self, held: Running) {
        let Some(dependency) = self.dependency.as_deref() else { return };
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

    /// Feeds a finished attempt's result to the dependency's controls.
    pub(super) fn settle(&self, now: u64, finished: Running, class: Class, outcome: &Outcome) {
        let Some(dependency) = self.dependency.as_deref() else { return };
        let Running { breaker: permit, retry_slot, charge, .. } = finished;
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
                if let (true, true, Some(budget)) = (declined, self.policy.server_guidance.honor, budget) {
                    // gRFC A6 "Throttling": a "do not retry" pushback counts as a failure, whatever the code.
                    settled(budget.on_failure(now, None));
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
