//! Retry slots: the cap on the retries and hedges to one dependency running at once.

use core::sync::atomic::{AtomicU32, Ordering};

use crate::config::error::Error;
use crate::config::grant::{foreign, issued_by, Grant};
use crate::ground::lock::{Shared, SharedWeak};

/// A fixed number of retry slots; a retry or hedge takes one when it is
/// dispatched and gives it back when its outcome is reported (or the
/// operation ends).
#[derive(Debug)]
pub struct RetrySlots {
    capacity: u32,
    /// Slots in use, shared with the slots out (their back-reference).
    in_use: Shared<AtomicU32>,
}

/// One slot of a [`RetrySlots`]: give it back once, to the slots that
/// granted it (the rules of every grant: [`crate::config::grant`]). Dropped, it is
/// given back.
#[derive(Debug)]
pub struct RetrySlot {
    /// The slots that granted it; empty once given back.
    owner: SharedWeak<AtomicU32>,
}

impl crate::config::grant::sealed::Sealed for RetrySlot {}

impl Grant for RetrySlot {
    const ARGUMENT: &'static str = "slot";
}

impl Drop for RetrySlot {
    fn drop(&mut self) {
        if let Some(in_use) = self.owner.upgrade() {
            give_back(&in_use);
        }
    }
}

/// One slot fewer in use (never below zero).
fn give_back(in_use: &AtomicU32) {
    let _ = in_use.fetch_update(Ordering::AcqRel, Ordering::Acquire, |current| current.checked_sub(1));
}

impl RetrySlots {
    /// `capacity` slots (0 refuses every retry and hedge).
    #[must_use]
    pub fn new(capacity: u32) -> RetrySlots {
        RetrySlots { capacity, in_use: Shared::new(AtomicU32::new(0)) }
    }

    /// Takes a slot; `None` when all are taken (refusal is a reason, not an error).
    #[must_use = "a slot dropped at once is released at once: keep it while the retry runs"]
    pub fn try_acquire(&self) -> Option<RetrySlot> {
        self.in_use
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |current| {
                (current < self.capacity).then_some(current + 1)
            })
            .ok()
            .map(|_| RetrySlot { owner: Shared::downgrade(&self.in_use) })
    }

    /// Gives a slot back.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`slot`) for a slot other retry slots
    /// granted (it goes back to its own).
    pub fn release(&self, mut slot: RetrySlot) -> Result<(), Error> {
        if !issued_by(&slot.owner, &self.in_use) {
            return Err(foreign::<RetrySlot>("set of retry slots"));
        }
        slot.owner = SharedWeak::new();
        give_back(&self.in_use);
        Ok(())
    }

    /// Slots in use now.
    #[must_use]
    pub fn in_use(&self) -> u32 {
        self.in_use.load(Ordering::Acquire)
    }

    /// How many slots there are.
    #[must_use]
    pub fn capacity(&self) -> u32 {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_given_back_once_and_only_to_its_own_slots() {
        let (a, b) = (RetrySlots::new(1), RetrySlots::new(1));
        let slot = a.try_acquire().unwrap();
        assert!(a.try_acquire().is_none());
        let held = b.try_acquire().unwrap();
        let error = b.release(slot).unwrap_err();
        assert_eq!(error.to_string(), "invalid argument `slot`: was issued by another set of retry slots");
        assert_eq!(b.in_use(), 1, "B still counts the slot it granted");
        assert_eq!(a.in_use(), 0, "the refused slot went back to A");
        b.release(held).unwrap();
        assert_eq!(b.in_use(), 0);
        drop(a.try_acquire());
        assert_eq!(a.in_use(), 0, "a dropped slot is given back");
    }

    #[test]
    #[allow(deprecated)]
    fn the_old_name_is_the_same_type() {
        let slots: crate::ConcurrencyLimit = RetrySlots::new(2);
        assert_eq!((slots.capacity(), slots.in_use()), (2, 0));
    }
}
