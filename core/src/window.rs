//! A sliding window of counters over the caller's clock, in ten slots.
//!
//! Used by the ratio retry budget (deposits and withdrawals) and the
//! failure-ratio circuit breaker (requests and failures). A slot covers
//! `ceil(window_ms / 10)` ms; a count leaves the window once its slot is ten
//! slots old. Time only moves forward: an earlier reading counts as the latest.

/// How many slots a window has.
const SLOTS: usize = 10;

/// Two counters per slot over a sliding window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SlidingWindow {
    slot_ms: u64,
    /// `(slot epoch, [first counter, second counter])` per slot.
    slots: [(u64, [u64; 2]); SLOTS],
    latest_epoch: u64,
}

impl SlidingWindow {
    /// A window of `window_ms` (>= 1).
    pub(crate) fn new(window_ms: u64) -> SlidingWindow {
        SlidingWindow { slot_ms: window_ms.div_ceil(SLOTS as u64).max(1), slots: [(0, [0, 0]); SLOTS], latest_epoch: 0 }
    }

    fn epoch(&mut self, now_ms: u64) -> u64 {
        self.latest_epoch = self.latest_epoch.max(now_ms / self.slot_ms);
        self.latest_epoch
    }

    fn live(&self, slot_epoch: u64, epoch: u64) -> bool {
        slot_epoch <= epoch && epoch - slot_epoch < SLOTS as u64
    }

    /// Adds `amount` to counter `which` (0 or 1) at `now_ms`.
    pub(crate) fn add(&mut self, now_ms: u64, which: usize, amount: u64) {
        let epoch = self.epoch(now_ms);
        let index = (epoch % SLOTS as u64) as usize;
        if let Some((slot_epoch, counts)) = self.slots.get_mut(index) {
            if *slot_epoch != epoch {
                *slot_epoch = epoch;
                *counts = [0, 0];
            }
            if let Some(count) = counts.get_mut(which) {
                *count = count.saturating_add(amount);
            }
        }
    }

    /// Both counters summed over the window ending at `now_ms`.
    pub(crate) fn totals(&mut self, now_ms: u64) -> [u64; 2] {
        let epoch = self.epoch(now_ms);
        self.totals_at(epoch)
    }

    /// Both counters over the window at `now_ms`, without recording the time.
    pub(crate) fn peek(&self, now_ms: u64) -> [u64; 2] {
        self.totals_at(self.latest_epoch.max(now_ms / self.slot_ms))
    }

    fn totals_at(&self, epoch: u64) -> [u64; 2] {
        self.slots.iter().filter(|(slot_epoch, _)| self.live(*slot_epoch, epoch)).fold(
            [0, 0],
            |[first, second], (_, [add_first, add_second])| {
                [first.saturating_add(*add_first), second.saturating_add(*add_second)]
            },
        )
    }

    /// Forgets every count.
    pub(crate) fn clear(&mut self) {
        self.slots = [(0, [0, 0]); SLOTS];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_leave_after_the_window() {
        let mut window = SlidingWindow::new(1_000);
        window.add(0, 0, 3);
        window.add(450, 1, 2);
        assert_eq!(window.totals(999), [3, 2]);
        assert_eq!(window.totals(1_000), [0, 2], "the slot of t=0 expired");
        assert_eq!(window.totals(1_399), [0, 2], "the slot 400..500 is nine slots old");
        assert_eq!(window.totals(1_400), [0, 0], "and leaves when it is ten slots old");
        window.add(100, 0, 1);
        assert_eq!(window.totals(1_400), [1, 0], "an earlier reading counts as the latest");
    }
}
