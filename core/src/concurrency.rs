//! A cap on the retries and hedges in flight to one dependency at once.

use core::sync::atomic::{AtomicU32, Ordering};

use crate::error::Error;
use crate::grant::{foreign, issued_by, Grant};
use crate::lock::{Shared, SharedWeak};

/// Counts in-flight retries and hedges; a slot is taken when one is
/// dispatched and given back when its outcome is reported (or the operation
/// ends).
#[derive(Debug)]
pub struct ConcurrencyLimit {
    max_in_flight: u32,
    /// Shared with the slots out (their back-reference).
    in_flight: Shared<AtomicU32>,
}

/// One slot of a [`ConcurrencyLimit`]: give it back once, to the limit that
/// granted it (the rules of every grant: [`crate::grant`]). Dropped, it is
/// given back.
#[derive(Debug)]
pub struct RetrySlot {
    /// The limit that granted it; empty once given back.
    owner: SharedWeak<AtomicU32>,
}

impl crate::grant::sealed::Sealed for RetrySlot {}

impl Grant for RetrySlot {
    const ARGUMENT: &'static str = "slot";
}

impl Drop for RetrySlot {
    fn drop(&mut self) {
        if let Some(in_flight) = self.owner.upgrade() {
            give_back(&in_flight);
        }
    }
}

/// One slot fewer in flight (never below zero).
fn give_back(in_flight: &AtomicU32) {
    let _ = in_flight.fetch_update(Ordering::AcqRel, Ordering::Acquire, |current| current.checked_sub(1));
}

impl ConcurrencyLimit {
    /// A cap of `max_in_flight` (0 refuses every retry and hedge).
    #[must_use]
    pub fn new(max_in_flight: u32) -> ConcurrencyLimit {
        ConcurrencyLimit { max_in_flight, in_flight: Shared::new(AtomicU32::new(0)) }
    }

    /// Takes a slot; `None` when all are taken (refusal is a reason, not an error).
    pub fn try_acquire(&self) -> Option<RetrySlot> {
        self.in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |current| {
                (current < self.max_in_flight).then_some(current + 1)
            })
            .ok()
            .map(|_| RetrySlot { owner: Shared::downgrade(&self.in_flight) })
    }

    /// Gives a slot back.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`slot`) for a slot another limit granted
    /// (it goes back to its own limit).
    pub fn release(&self, mut slot: RetrySlot) -> Result<(), Error> {
        if !issued_by(&slot.owner, &self.in_flight) {
            return Err(foreign::<RetrySlot>("concurrency limit"));
        }
        slot.owner = SharedWeak::new();
        give_back(&self.in_flight);
        Ok(())
    }

    /// Slots taken now.
    #[must_use]
    pub fn in_flight(&self) -> u32 {
        self.in_flight.load(Ordering::Acquire)
    }

    /// The cap.
    #[must_use]
    pub fn max_in_flight(&self) -> u32 {
        self.max_in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_given_back_once_and_only_to_its_limit() {
        let (a, b) = (ConcurrencyLimit::new(1), ConcurrencyLimit::new(1));
        let slot = a.try_acquire().unwrap();
        assert!(a.try_acquire().is_none());
        let held = b.try_acquire().unwrap();
        let error = b.release(slot).unwrap_err();
        assert_eq!(error.to_string(), "invalid argument `slot`: was issued by another concurrency limit");
        assert_eq!(b.in_flight(), 1, "B still counts the slot it granted");
        assert_eq!(a.in_flight(), 0, "the refused slot went back to A");
        b.release(held).unwrap();
        assert_eq!(b.in_flight(), 0);
        drop(a.try_acquire());
        assert_eq!(a.in_flight(), 0, "a dropped slot is given back");
    }
}
