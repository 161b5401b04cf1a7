//! The clock of a shared control: how a circuit breaker or a ratio budget
//! reads the times its callers pass in. A leaf: it depends on nothing else in
//! the crate.
//!
//! A control is fed readings by many operations and threads, so its readings
//! arrive slightly out of order, and now and then one is simply wrong (a
//! wall-clock value handed to a monotonic-clock dependency, `u64::MAX`, a
//! clock that restarted). The rule, the same for every control with a clock:
//!
//! - A reading at or after the latest one moves the control's time forward.
//! - A reading earlier than the latest by at most the control's **horizon**
//!   counts as the latest: no time elapsed. Threads that race to report
//!   cannot drift the clock backwards or forwards.
//! - A reading earlier than the latest by **more than the horizon** means the
//!   latest was wrong or the clock restarted: the control takes the new
//!   reading as its time from then on, and keeps its state as it stood, with
//!   every time it holds moved back by the same amount (a breaker open for
//!   another 3 s is still open for another 3 s on the new clock).
//!
//! The horizon is the longest span the control's state depends on: the window
//! of a ratio budget; the longer of the open period and the window of a
//! circuit breaker. Past it, the control's decisions no longer depend on how
//! far apart two readings are, so the rule changes no decision made on a
//! sane clock, and a single bad reading costs at most one horizon: what it
//! stamped (an open period, counts) lasts at most one horizon past the next
//! sane reading, and what it expired early had at most one horizon left. It
//! never leaves a breaker open for 55 years or a window that never expires.
//! A reading honestly taken but reported more than a horizon late (a thread
//! stalled longer than the window) is indistinguishable from a restarted
//! clock and costs the same: state that ends up to one horizon early.
//!
//! Refusing implausible readings with an error was the alternative: it needs
//! a bound on how far time may jump (a dependency idle for a day jumps a day),
//! turns a bad clock into errors on the normal path of every operation, and
//! cannot recover when the first reading is the wrong one. This rule needs
//! no bound and heals with the next sane reading.

/// A control's view of the caller's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ControlClock {
    latest_ms: u64,
    horizon_ms: u64,
}

/// A reading as the control takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reading {
    /// The control's time now.
    pub(crate) now_ms: u64,
    /// How far the clock moved back when it restarted (0 when it did not):
    /// every time the control holds moves back by this much.
    pub(crate) restarted_back_ms: u64,
}

impl ControlClock {
    /// A clock whose horizon is `horizon_ms`, starting at 0.
    pub(crate) fn new(horizon_ms: u64) -> ControlClock {
        ControlClock { latest_ms: 0, horizon_ms }
    }

    /// Takes a reading and records it.
    pub(crate) fn read(&mut self, now_ms: u64) -> Reading {
        let reading = self.peek(now_ms);
        self.latest_ms = reading.now_ms;
        reading
    }

    /// The reading `now_ms` would give, without recording it.
    pub(crate) fn peek(&self, now_ms: u64) -> Reading {
        let behind = self.latest_ms.saturating_sub(now_ms);
        if behind > self.horizon_ms {
            Reading { now_ms, restarted_back_ms: behind }
        } else {
            Reading { now_ms: now_ms.max(self.latest_ms), restarted_back_ms: 0 }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_within_and_beyond_the_horizon() {
        let mut clock = ControlClock::new(1_000);
        assert_eq!(clock.read(5_000), Reading { now_ms: 5_000, restarted_back_ms: 0 });
        assert_eq!(clock.read(4_000), Reading { now_ms: 5_000, restarted_back_ms: 0 }, "1000 behind: the latest");
        assert_eq!(clock.peek(3_999), Reading { now_ms: 3_999, restarted_back_ms: 1_001 }, "peek records nothing");
        assert_eq!(clock.read(5_001), Reading { now_ms: 5_001, restarted_back_ms: 0 });
        assert_eq!(clock.read(u64::MAX), Reading { now_ms: u64::MAX, restarted_back_ms: 0 });
        assert_eq!(clock.read(7), Reading { now_ms: 7, restarted_back_ms: u64::MAX - 7 }, "the clock restarts");
        assert_eq!(clock.read(8), Reading { now_ms: 8, restarted_back_ms: 0 });
    }
}
