//! A bounded FIFO of the actions waiting to be handed to the host.

use alloc::collections::VecDeque;

use super::Step;
use crate::engine::operation::MAX_RUNNING;
use crate::outcomes::action::{AbortReason, AttemptPlan};

/// Room for every running attempt's abort plus a start per slot: each start
/// adds a running attempt and each abort removes one, so no call can queue more.
const CAPACITY: usize = 2 * MAX_RUNNING + 1;

/// What can wait in the queue: starts and aborts (an ending is never queued,
/// it is the driver's state). A third of an [`Action`]'s size, which holds an
/// ending's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Queued {
    Start(AttemptPlan),
    Abort { attempt: u32, reason: AbortReason },
}

/// Actions decided but not yet returned, oldest first. Empty, it holds no
/// room (a driver is made on every binding's happy path, which queues
/// nothing: a first attempt and its success or retry come straight from the
/// operation); the first action queued (a timeout, a hedge, an ending that
/// aborts) allocates room for all `CAPACITY` at once.
#[derive(Debug)]
pub(super) struct ActionQueue {
    slots: VecDeque<Queued>,
}

impl ActionQueue {
    pub(super) const fn new() -> ActionQueue {
        ActionQueue { slots: VecDeque::new() }
    }

    /// Queues the start of `plan`. Returns false (and drops nothing queued)
    /// when full, which the capacity argument above rules out.
    pub(super) fn push_start(&mut self, plan: AttemptPlan) -> bool {
        self.push(Queued::Start(plan))
    }

    /// Queues the abort of `attempt` (same contract as [`push_start`](Self::push_start)).
    pub(super) fn push_abort(&mut self, attempt: u32, reason: AbortReason) -> bool {
        self.push(Queued::Abort { attempt, reason })
    }

    fn push(&mut self, queued: Queued) -> bool {
        if self.slots.len() == CAPACITY {
            return false;
        }
        if self.slots.capacity() == 0 {
            self.slots.reserve_exact(CAPACITY);
        }
        self.slots.push_back(queued);
        true
    }

    /// Takes the oldest action.
    pub(super) fn pop(&mut self) -> Option<Step> {
        self.slots.pop_front().map(|queued| match queued {
            Queued::Start(plan) => Step::Start(plan),
            Queued::Abort { attempt, reason } => Step::Abort { attempt, reason },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_in_first_out_across_the_wrap() {
        let mut queue = ActionQueue::new();
        let abort = |attempt| Step::Abort { attempt, reason: AbortReason::TimedOut };
        for round in 0..3u32 {
            for index in 0..CAPACITY as u32 {
                assert!(queue.push_abort(round * 100 + index, AbortReason::TimedOut));
            }
            assert!(!queue.push_abort(999, AbortReason::TimedOut), "full");
            for index in 0..CAPACITY as u32 {
                assert_eq!(queue.pop(), Some(abort(round * 100 + index)));
            }
            assert_eq!(queue.pop(), None);
            assert!(queue.push_abort(7, AbortReason::LostRace));
            assert_eq!(queue.pop(), Some(Step::Abort { attempt: 7, reason: AbortReason::LostRace }));
        }
    }

    #[test]
    fn a_slot_is_a_third_of_an_action() {
        assert!(3 * core::mem::size_of::<Option<Queued>>() <= core::mem::size_of::<crate::Action>());
    }

    #[test]
    fn an_empty_queue_holds_no_room_and_the_first_push_makes_room_for_all() {
        let mut queue = ActionQueue::new();
        assert_eq!(queue.slots.capacity(), 0);
        assert!(queue.push_abort(1, AbortReason::TimedOut));
        assert!(queue.slots.capacity() >= CAPACITY);
    }
}
