//! The event queue: events in (virtual ms, insertion order).
//!
//! A binary heap keyed by `(time, sequence)` gives exactly this order, and is
//! what the queue falls back to for events far in the future. Most events are
//! due within a few seconds, so the near future is a timing wheel: one FIFO
//! list per millisecond over the next [`HORIZON_MS`] ms. Events of one
//! millisecond come out in the order they were pushed, which is the heap's
//! `(time, sequence)` order: a far event moves from the heap into the wheel
//! as soon as its millisecond enters the horizon, before any event for that
//! millisecond can be pushed into the wheel directly.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// How far ahead (ms) the wheel reaches; a power of two.
pub const HORIZON_MS: u64 = 4096;

struct Far<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Far<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl<E> Eq for Far<E> {}
impl<E> PartialOrd for Far<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Far<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // A max-heap: the earliest (time, seq) compares greatest.
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// Events ordered by (time, insertion order).
pub struct EventQueue<E: Copy> {
    wheel: Vec<Vec<E>>,
    /// The millisecond being drained, and how far into its list.
    now: u64,
    head: usize,
    in_wheel: usize,
    far: BinaryHeap<Far<E>>,
    seq: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time 0.
    #[must_use]
    pub fn new() -> EventQueue<E> {
        EventQueue {
            wheel: (0..HORIZON_MS).map(|_| Vec::new()).collect(),
            now: 0,
            head: 0,
            in_wheel: 0,
            far: BinaryHeap::new(),
            seq: 0,
        }
    }

    fn slot(time: u64) -> usize {
        (time & (HORIZON_MS - 1)) as usize
    }

    /// Adds an event due at `time`; one due before the current millisecond is due now.
    pub fn push(&mut self, time: u64, event: E) {
        let time = time.max(self.now);
        if time - self.now < HORIZON_MS {
            self.wheel[Self::slot(time)].push(event);
            self.in_wheel += 1;
        } else {
            self.seq += 1;
            self.far.push(Far { time, seq: self.seq, event });
        }
    }

    /// The next event and its time, or `None` when the queue is empty.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        loop {
            let list = &mut self.wheel[Self::slot(self.now)];
            if let Some(event) = list.get(self.head) {
                self.head += 1;
                self.in_wheel -= 1;
                return Some((self.now, *event));
            }
            list.clear();
            self.head = 0;
            if self.in_wheel == 0 {
                // Jump over empty milliseconds to the next far event.
                self.now = self.far.peek()?.time;
            } else {
                self.now += 1;
            }
            // The horizon now reaches now + HORIZON_MS - 1: bring in what it covers.
            while self.far.peek().is_some_and(|far| far.time < self.now + HORIZON_MS) {
                if let Some(far) = self.far.pop() {
                    self.wheel[Self::slot(far.time)].push(far.event);
                    self.in_wheel += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct At(u64, u32);

    #[test]
    fn same_order_as_a_heap_of_time_and_sequence() {
        let mut queue = EventQueue::new();
        let mut reference = Vec::new();
        let mut rng = crate::rng::SplitMix64::new(3, 4);
        let mut seq = 0;
        let mut now = 0;
        let mut out = Vec::new();
        for round in 0..20_000u32 {
            let ahead = if rng.below(10) == 0 { rng.below(3 * HORIZON_MS) } else { rng.below(50) };
            let event = At(now + ahead, round);
            queue.push(event.0, event);
            seq += 1;
            reference.push((event.0, seq, event));
            if rng.below(2) == 0 {
                if let Some((time, event)) = queue.pop() {
                    assert_eq!(time, event.0);
                    now = time;
                    out.push(event);
                }
            }
        }
        while let Some((_, event)) = queue.pop() {
            out.push(event);
        }
        // The reference: a stable sort by time of everything pushed, restricted
        // to the pops that happened after each push (events are never due in
        // the past here), equals a global stable sort by (time, seq).
        let mut times: Vec<u64> = out.iter().map(|event| event.0).collect();
        let sorted = {
            let mut sorted = times.clone();
            sorted.sort_unstable();
            sorted
        };
        assert_eq!(times.len(), reference.len());
        assert_eq!(times, sorted, "events come out in time order");
        // Within one millisecond, insertion order.
        times.dedup();
        for time in times {
            let popped: Vec<u32> = out.iter().filter(|event| event.0 == time).map(|event| event.1).collect();
            let pushed: Vec<u32> =
                reference.iter().filter(|(at, _, _)| *at == time).map(|(_, _, event)| event.1).collect();
            assert_eq!(popped, pushed, "FIFO within {time} ms");
        }
    }
}
