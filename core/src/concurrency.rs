//! A cap on the retries and hedges in flight to one dependency at once.

use core::sync::atomic::{AtomicU32, Ordering};

/// Counts in-flight retries and hedges; acquired when one is dispatched,
/// released when its outcome is reported (or the operation ends).
#[derive(Debug)]
pub struct ConcurrencyLimit {
    max_in_flight: u32,
    in_flight: AtomicU32,
}

impl ConcurrencyLimit {
    /// A cap of `max_in_flight` (0 refuses every retry and hedge).
    #[must_use]
    pub fn new(max_in_flight: u32) -> ConcurrencyLimit {
        ConcurrencyLimit { max_in_flight, in_flight: AtomicU32::new(0) }
    }

    /// Takes a slot; false when all are taken (refusal is a reason, not an error).
    pub fn try_acquire(&self) -> bool {
        self.in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |current| {
                (current < self.max_in_flight).then_some(current + 1)
            })
            .is_ok()
    }

    /// Gives a slot back (never below zero).
    pub fn release(&self) {
        let _ = self.in_flight.fetch_update(Ordering::AcqRel, Ordering::Acquire, |current| current.checked_sub(1));
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
