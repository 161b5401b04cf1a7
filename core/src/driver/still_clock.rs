//! The still-clock rule (rule 8 of the driver's module documentation): a
//! timer the host armed for a wait ran out, but the host's clock barely moved
//! through it. A wait is the driver's `Sleep` until one time: a host woken
//! early (a result) that is told to sleep until the same time again goes on
//! with the same wait, and every timer it armed for it counts.

use crate::config::error::Error;
use crate::ground::message::message;

/// The shortest timer whose end with the clock nearly still is refused at
/// once (ms).
const JUDGED_TIMER_MS: u64 = 50;

/// How far past a wait its timers may run before a clock that has not moved
/// through it is refused (ms): far more than a busy machine delays a timer.
const GRACE_MS: u64 = 250;

/// One wait of the host loop, across the timers armed for it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Wait {
    /// When the wait ends (the `Sleep`'s `until_ms`); 0 before any sleep.
    until_ms: u64,
    /// The clock when the wait began (the poll that first said to sleep
    /// until then).
    began_ms: u64,
    /// The clock at the latest poll that said to sleep until then: when the
    /// host armed its latest timer.
    armed_ms: u64,
    /// How long the timers armed for this wait have run, together.
    timed_ms: u64,
    /// For a host that reads its timers' own clock (a blocking sleep's):
    /// that clock at the wait's first timer end, and `timed_ms` then.
    timers_clock: Option<(u64, u64)>,
}

impl Wait {
    /// A poll at `now_ms` said to sleep until `until_ms`: the host arms a
    /// timer for the rest of the wait.
    pub(super) fn slept(&mut self, now_ms: u64, until_ms: u64) {
        if until_ms != self.until_ms {
            *self = Wait { until_ms, began_ms: now_ms, armed_ms: now_ms, timed_ms: 0, timers_clock: None };
        } else {
            self.armed_ms = now_ms;
        }
    }

    /// The host's timer for this wait ran out with its clock at `now_ms`:
    /// refused (naming `clock`) when the clock did not move through it, as
    /// the driver's rule 8 says; otherwise the timer is counted. A timer ran
    /// its whole length (the rest of the wait when it was armed), unless the
    /// host reads the real clock (`timers_clock_ms`: a blocking sleep that may
    /// return early): from the wait's second sleep on, the sleeps have then
    /// run as long as that clock moved.
    #[inline(never)] // two callers (the typed call, the wire's): one copy in a wasm
    pub(super) fn timer_ended(&mut self, now_ms: u64, timers_clock_ms: Option<u64>) -> Result<(), Error> {
        if self.until_ms == 0 {
            return Ok(()); // no sleep was asked for: nothing to judge
        }
        let timer_ms = self.until_ms.saturating_sub(self.armed_ms);
        let (timed_ms, timers_clock) = match (timers_clock_ms, self.timers_clock) {
            (Some(reading), Some((first, timed_then))) => {
                (timed_then.saturating_add(reading.saturating_sub(first)), self.timers_clock)
            }
            (Some(reading), None) => {
                let timed_ms = self.timed_ms.saturating_add(timer_ms);
                (timed_ms, Some((reading, timed_ms)))
            }
            (None, _) => (self.timed_ms.saturating_add(timer_ms), self.timers_clock),
        };
        let length_ms = self.until_ms.saturating_sub(self.began_ms);
        let moved_ms = now_ms.saturating_sub(self.began_ms);
        let still = if timer_ms >= JUDGED_TIMER_MS {
            now_ms.saturating_sub(self.armed_ms).saturating_mul(2) < timer_ms
        } else {
            timed_ms >= length_ms.saturating_add(GRACE_MS)
        };
        if still && moved_ms.saturating_mul(2) < length_ms {
            return Err(Error::InvalidArgument { field: "clock", rule: message!(StillClock, moved_ms, length_ms) });
        }
        (self.timed_ms, self.timers_clock) = (timed_ms, timers_clock);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::wire::{input, InputKind, NONE, OUTPUT_WORDS};
    use crate::{Action, Driver, DriverOptions, Error, OperationOptions, Outcome, Policy};

    const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };

    /// A driver sleeping from `at_ms` until `at_ms + wait_ms` after its first attempt's 503.
    fn sleeping(wait_ms: u64, at_ms: u64) -> Driver {
        let json = format!(
            r#"{{"jitter": {{"kind": "none"}}, "total_timeout_ms": 600000,
                "backoff": {{"kind": "constant", "base_ms": {wait_ms}, "multiplier": 1.0, "cap_ms": {wait_ms}}}}}"#
        );
        let policy = Policy::from_json(&json).unwrap();
        let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
        assert!(matches!(driver.poll_action(0).unwrap(), Action::StartAttempt(_)));
        driver.handle_result(at_ms, 1, UNAVAILABLE).unwrap();
        assert_eq!(driver.poll_action(at_ms).unwrap(), Action::Sleep { until_ms: at_ms + wait_ms });
        driver
    }

    fn refused(result: Result<(), Error>) -> String {
        match result {
            Err(Error::InvalidArgument { field: "clock", rule }) => rule.to_string(),
            other => panic!("expected the clock refused, got {other:?}"),
        }
    }

    #[test]
    fn a_timer_of_50_ms_or_more_that_ends_with_the_clock_still_is_refused_at_once() {
        let mut driver = sleeping(2000, 10);
        let rule = refused(driver.handle_timer_end(10));
        assert_eq!(
            rule,
            "the clock moved 0 ms during a wait of 2000 ms: a fake sleep or timer needs a clock that moves with it"
        );
        // Half of the timer moved: a real clock (a timer may end a little early on a coarse clock).
        let mut driver = sleeping(50, 10);
        assert_eq!(driver.handle_timer_end(35), Ok(()));
        assert_eq!(driver.poll_action(35).unwrap(), Action::Sleep { until_ms: 60 });
        let mut driver = sleeping(50, 10);
        assert!(driver.handle_timer_end(34).is_err());
    }

    #[test]
    fn short_timers_are_judged_together_once_they_have_run_the_wait_and_250_ms_more() {
        let mut driver = sleeping(10, 0);
        // Each timer is the rest of the wait: 10 ms while the clock stands at 0.
        for timer in 1..=25 {
            assert_eq!(driver.handle_timer_end(0), Ok(()), "timer {timer}: 10 ms each, {} ms run", timer * 10);
            assert_eq!(driver.poll_action(0).unwrap(), Action::Sleep { until_ms: 10 });
        }
        assert!(refused(driver.handle_timer_end(0)).starts_with("the clock moved 0 ms during a wait of 10 ms"));
        // Refused, nothing changed: refused again.
        assert!(driver.handle_timer_end(0).is_err());
        // A clock that moves a little at a time (a coarse one) is never refused.
        let mut driver = sleeping(10, 0);
        for now_ms in 0..=10 {
            assert_eq!(driver.handle_timer_end(now_ms), Ok(()));
            let _ = driver.poll_action(now_ms).unwrap();
        }
    }

    #[test]
    fn a_host_woken_early_goes_on_with_the_same_wait() {
        let mut driver = sleeping(2000, 0);
        // Woken at 1500 (the clock moved three quarters of the wait), told to sleep until 2000 again: its next
        // 500 ms timer ends with the clock still, but the wait's clock moved more than half of it.
        assert_eq!(driver.poll_action(1500).unwrap(), Action::Sleep { until_ms: 2000 });
        assert_eq!(driver.handle_timer_end(1500), Ok(()));
        // A new wait starts afresh.
        let mut driver = sleeping(2000, 0);
        assert_eq!(driver.handle_timer_end(2000), Ok(()));
        assert!(matches!(driver.poll_action(2000).unwrap(), Action::StartAttempt(_)));
        driver.handle_result(2010, 2, UNAVAILABLE).unwrap();
        assert_eq!(driver.poll_action(2010).unwrap(), Action::Sleep { until_ms: 4010 });
        assert!(driver.handle_timer_end(2010).is_err());
    }

    #[test]
    fn a_blocking_sleep_that_returns_at_once_is_timed_by_the_real_clock() {
        // A no-op sleep beside a clock that follows real time: thousands of sleeps in one real millisecond of a
        // 10 ms wait are not 10 ms each; the wait goes on until the clock reaches its end.
        let mut driver = sleeping(10, 0);
        for sleep in 0..5000 {
            assert_eq!(driver.handle_sleep_end(0, 7), Ok(()), "sleep {sleep}");
            assert_eq!(driver.poll_action(0).unwrap(), Action::Sleep { until_ms: 10 });
        }
        assert_eq!(driver.handle_sleep_end(10, 17), Ok(()));
        assert!(matches!(driver.poll_action(10).unwrap(), Action::StartAttempt(_)));
        // Beside a clock that stands still: refused once the real clock has run the wait and 250 ms more
        // (the first sleep counted as its 10 ms).
        let mut driver = sleeping(10, 0);
        assert_eq!(driver.handle_sleep_end(0, 1000), Ok(()));
        assert_eq!(driver.handle_sleep_end(0, 1249), Ok(()));
        assert!(refused(driver.handle_sleep_end(0, 1250)).starts_with("the clock moved 0 ms during a wait of 10 ms"));
        // A sleep of 50 ms or more that returns with the clock still is refused at once, as a timer is.
        let mut driver = sleeping(100, 0);
        assert!(driver.handle_sleep_end(0, 0).is_err());
    }

    #[test]
    fn nothing_is_judged_before_any_sleep() {
        let policy = Policy::from_json("{}").unwrap();
        let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
        assert_eq!(driver.handle_timer_end(0), Ok(()));
    }

    #[test]
    fn on_the_wire_a_timer_end_is_judged_then_polled_and_an_operation_refuses_it() {
        let mut driver = sleeping(100, 0);
        let mut out = [NONE; OUTPUT_WORDS];
        let refused = driver.exchange(&[InputKind::TimerEnded.word(), 0], &mut out);
        assert!(matches!(refused, Err(Error::InvalidArgument { field: "clock", .. })));
        assert_eq!(out, [NONE; OUTPUT_WORDS], "the output is left as it was");
        driver.exchange(&[InputKind::TimerEnded.word(), 100], &mut out).unwrap();
        assert_eq!(out[crate::driver::wire::output::ACTION_KIND], crate::driver::wire::ActionKind::StartAttempt.word());
        let policy = Policy::from_json("{}").unwrap();
        let mut operation = crate::Operation::new(&policy, 0, OperationOptions::new(7));
        let mut record = [NONE; crate::driver::wire::DECISION_WORDS];
        let mut words = [NONE; input::NOW_MS + 1];
        words[input::INPUT_KIND] = InputKind::TimerEnded.word();
        words[input::NOW_MS] = 0;
        assert!(matches!(
            operation.exchange(&words, &mut record),
            Err(Error::InvalidArgument { field: "input_kind", .. })
        ));
    }
}
