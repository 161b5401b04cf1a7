//! A sliding window of counters over a control's clock, in ten slots.
//!
//! Used by the ratio retry budget (deposits and withdrawals) and the
//! failure-ratio circuit breaker (requests and failures). A slot covers
//! `ceil(window_ms / 10)` ms; a count leaves the window once its slot is ten
//! slots old.
//!
//! The window takes its times as the owning control's [`Reading`]s (see
//! [`crate::ground::clock`] for the rule): a reading that counts as the latest adds to
//! the latest slot, and when the control's clock restarts the window keeps its
//! counts at the ages they had, so the slots are kept by age (a ring whose
//! head is the latest slot), not by absolute time.

use crate::ground::clock::Reading;

/// How many slots a window has.
const SLOTS: usize = 10;

/// Two counters per slot over a sliding window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SlidingWindow {
    slot_ms: u64,
    /// `[first counter, second counter]` per slot; `slots[head]` is the
    /// latest slot, the one before it (cyclically) one slot older, and so on.
    slots: [[u64; 2]; SLOTS],
    head: usize,
    /// The slot number (`time / slot_ms`) of the latest slot.
    latest_slot: u64,
}

impl SlidingWindow {
    /// A window of `window_ms` (>= 1).
    pub(crate) fn new(window_ms: u64) -> SlidingWindow {
        SlidingWindow {
            slot_ms: window_ms.div_ceil(SLOTS as u64).max(1),
            slots: [[0, 0]; SLOTS],
            head: 0,
            latest_slot: 0,
        }
    }

    /// How many slots the window moves forward at `reading` (0 when the
    /// reading is the latest slot, or the clock restarted).
    fn steps(&self, reading: Reading) -> u64 {
        if reading.restarted_back_ms > 0 {
            0
        } else {
            (reading.now_ms / self.slot_ms).saturating_sub(self.latest_slot)
        }
    }

    /// Moves the window to `reading`: slots older than the window are emptied.
    fn advance(&mut self, reading: Reading) {
        let steps = self.steps(reading);
        for _ in 0..steps.min(SLOTS as u64) {
            self.head = (self.head + 1) % SLOTS;
            if let Some(slot) = self.slots.get_mut(self.head) {
                *slot = [0, 0];
            }
        }
        self.latest_slot = reading.now_ms / self.slot_ms;
    }

    /// Adds `amount` to counter `which` (0 or 1) at `reading`.
    pub(crate) fn add(&mut self, reading: Reading, which: usize, amount: u64) {
        self.advance(reading);
        if let Some(count) = self.slots.get_mut(self.head).and_then(|slot| slot.get_mut(which)) {
            *count = count.saturating_add(amount);
        }
    }

    /// Both counters summed over the window at `reading`.
    pub(crate) fn totals(&mut self, reading: Reading) -> [u64; 2] {
        self.advance(reading);
        self.peek(reading)
    }

    /// Both counters over the window at `reading`, without moving it.
    pub(crate) fn peek(&self, reading: Reading) -> [u64; 2] {
        let steps = self.steps(reading);
        (0..SLOTS)
            .filter(|age| (*age as u64).saturating_add(steps) < SLOTS as u64)
            .filter_map(|age| self.slots.get((self.head + SLOTS - age) % SLOTS))
            .fold([0, 0], |[first, second], [add_first, add_second]| {
                [first.saturating_add(*add_first), second.saturating_add(*add_second)]
            })
    }

    /// Forgets every count.
    pub(crate) fn clear(&mut self) {
        self.slots = [[0, 0]; SLOTS];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::clock::ControlClock;

    #[test]
    fn counts_leave_after_the_window() {
        let mut clock = ControlClock::new(1_000);
        let mut window = SlidingWindow::new(1_000);
        window.add(clock.read(0), 0, 3);
        window.add(clock.read(450), 1, 2);
        assert_eq!(window.totals(clock.read(999)), [3, 2]);
        assert_eq!(window.totals(clock.read(1_000)), [0, 2], "the slot of t=0 expired");
        assert_eq!(window.totals(clock.read(1_399)), [0, 2], "the slot 400..500 is nine slots old");
        assert_eq!(window.peek(clock.peek(1_400)), [0, 0], "and leaves when it is ten slots old");
        assert_eq!(window.totals(clock.read(1_400)), [0, 0]);
        window.add(clock.read(400), 0, 1);
        assert_eq!(window.totals(clock.read(1_400)), [1, 0], "a reading 1000 ms earlier counts as the latest");
    }

    #[test]
    fn a_restarted_clock_keeps_the_counts_at_their_ages() {
        let mut clock = ControlClock::new(1_000);
        let mut window = SlidingWindow::new(1_000);
        window.add(clock.read(u64::MAX - 250), 0, 4);
        window.add(clock.read(u64::MAX), 1, 1);
        assert_eq!(window.totals(clock.read(5_000)), [4, 1], "the clock restarts at 5000: nothing elapsed");
        window.add(clock.read(5_100), 0, 1);
        assert_eq!(window.totals(clock.read(5_699)), [5, 1], "the count 300 ms older than 5000 is nine slots old");
        assert_eq!(window.totals(clock.read(5_700)), [1, 1], "and ten slots old at 5700");
        assert_eq!(window.totals(clock.read(5_999)), [1, 1]);
        assert_eq!(window.totals(clock.read(6_000)), [1, 0], "the count stamped at the restart leaves at 6000");
        assert_eq!(window.totals(clock.read(6_099)), [1, 0]);
        assert_eq!(window.totals(clock.read(6_100)), [0, 0]);
    }
}
