//! A fixed-capacity FIFO of actions waiting to be handed to the host.

use super::action::Action;
use crate::operation::MAX_IN_FLIGHT;

/// Room for every running attempt's abort plus a start per slot: each start
/// adds a running attempt and each abort removes one, so no call can queue more.
const CAPACITY: usize = 2 * MAX_IN_FLIGHT + 1;

/// Actions decided but not yet returned, oldest first. Never allocates.
#[derive(Debug)]
pub(super) struct ActionQueue {
    slots: [Option<Action>; CAPACITY],
    head: usize,
    len: usize,
}

impl ActionQueue {
    pub(super) const fn new() -> ActionQueue {
        ActionQueue { slots: [None; CAPACITY], head: 0, len: 0 }
    }

    /// Adds an action at the back. Returns false (and drops nothing queued)
    /// when full, which the capacity argument above rules out.
    pub(super) fn push(&mut self, action: Action) -> bool {
        if self.len == CAPACITY {
            return false;
        }
        if let Some(slot) = self.slots.get_mut((self.head + self.len) % CAPACITY) {
            *slot = Some(action);
            self.len += 1;
        }
        true
    }

    /// Takes the oldest action.
    pub(super) fn pop(&mut self) -> Option<Action> {
        if self.len == 0 {
            return None;
        }
        let action = self.slots.get_mut(self.head).and_then(Option::take);
        self.head = (self.head + 1) % CAPACITY;
        self.len -= 1;
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_in_first_out_across_the_wrap() {
        let mut queue = ActionQueue::new();
        let sleep = |until_ms| Action::Sleep { until_ms };
        for round in 0..3u64 {
            for index in 0..CAPACITY as u64 {
                assert!(queue.push(sleep(round * 100 + index)));
            }
            assert!(!queue.push(sleep(999)), "full");
            for index in 0..CAPACITY as u64 {
                assert_eq!(queue.pop(), Some(sleep(round * 100 + index)));
            }
            assert_eq!(queue.pop(), None);
            assert!(queue.push(sleep(7)));
            assert_eq!(queue.pop(), Some(sleep(7)));
        }
    }
}
