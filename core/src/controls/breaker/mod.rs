//! Circuit breaker: stop sending to a dependency that keeps failing, then
//! probe it carefully.
//!
//! States and transitions, all driven by the events and times the caller
//! passes in (no timers):
//!
//! - **closed**: attempts pass. It opens when `trip` says so: `consecutive`
//!   retryable failures in a row, or a failure `ratio` over a sliding window
//!   once at least `minimum_throughput` results were seen in it.
//! - **open** until `open_ms` after it opened: every attempt is refused
//!   (reason `circuit_open`).
//! - **half-open** from then on: at most `half_open_probes` attempts at a time
//!   pass as probes. That many successful probes close it; one failed probe
//!   opens it again for another `open_ms`.
//!
//! A result from an attempt admitted before the last transition (not a probe
//! while half-open, or anything while open) changes nothing.
//!
//! Times follow the rule of every control's clock ([`crate::ground::clock`]) with the
//! longer of `open_ms` and the ratio trip's window as the horizon: a reading
//! earlier than the latest by at most that counts as the latest; one earlier
//! by more restarts the breaker's clock there, keeping its state (an open
//! breaker stays open for the time it had left, the window keeps its counts).
//! One far-future reading therefore never leaves a breaker open for good. What counts as a
//! failure is what the operation's policy classifies as retryable; any other
//! answer counts as a success (the dependency answered); a cancelled attempt
//! only gives its probe back, and so does an attempt that timed out at its
//! abort time because a caller's deadline (an operation's `deadline_ms`, a
//! propagated one) left it less than half the time the policy gives: that
//! timeout is the caller's, and one client's short deadlines must not open a
//! breaker every caller shares.

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::config::error::{ConfigKind, Error, Violation};
use crate::config::grant::{foreign, issued_by, Grant};
use crate::config::value::join;
use crate::config::value::DURATION_MS;
use crate::controls::AT_LEAST_ONE;
use crate::ground::clock::{ControlClock, Reading};
use crate::ground::lock::{Lock, Shared, SharedWeak};
use crate::ground::units::permille_of;
use crate::ground::window::SlidingWindow;

mod config;

pub use config::{BreakerConfig, TripConfig};

/// Admission granted by [`CircuitBreaker::try_acquire`]; hand it back once,
/// with the result or as a release, to the breaker that granted it (the
/// rules of every grant: [`crate::config::grant`]). Dropped unsettled, it is released.
#[derive(Debug)]
pub struct BreakerPermit {
    probe: bool,
    generation: u64,
    /// The breaker that granted it; empty once settled.
    owner: SharedWeak<Lock<State>>,
}

impl crate::config::grant::sealed::Sealed for BreakerPermit {}

impl Grant for BreakerPermit {
    const ARGUMENT: &'static str = "permit";
}

impl BreakerPermit {
    /// True when the attempt is a half-open probe.
    #[must_use]
    pub fn is_probe(&self) -> bool {
        self.probe
    }
}

impl Drop for BreakerPermit {
    fn drop(&mut self) {
        if let Some(state) = self.owner.upgrade() {
            state.lock().release(self.generation, self.probe);
        }
    }
}

/// The breaker's state name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BreakerState {
    /// Attempts pass.
    Closed,
    /// Attempts are refused.
    Open,
    /// A few probes pass.
    HalfOpen,
}

impl crate::ground::named::Named for BreakerState {
    const ALL: &'static [Self] = &[BreakerState::Closed, BreakerState::Open, BreakerState::HalfOpen];
    fn name(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half_open",
        }
    }
}

crate::ground::named::named_serde!(BreakerState);

/// The breaker's state, for metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BreakerSnapshot {
    /// The state at the time asked.
    pub state: BreakerState,
    /// Retryable failures in a row (consecutive mode; always 0 in ratio mode).
    pub consecutive_failures: u32,
    /// Results in the window (ratio mode; always 0 in consecutive mode).
    pub window_results: u64,
    /// Failures in the window (ratio mode; always 0 in consecutive mode).
    pub window_failures: u64,
    /// When an open breaker starts probing (0 when not open).
    pub open_until_ms: u64,
    /// Half-open probes started and not finished (running).
    // Read under its old name too, for one release (issue 28).
    #[serde(alias = "probes_in_flight")]
    pub probes_running: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    Closed,
    /// Open since `since_ms` (kept rather than the end, so an opening stamped
    /// near `u64::MAX` keeps its whole `open_ms` when the clock restarts).
    Open {
        since_ms: u64,
    },
    HalfOpen {
        running: u32,
        successes: u32,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Trip {
    Consecutive { failures: u32 },
    Ratio { ratio_permille: u64, minimum_throughput: u64 },
}

#[derive(Debug)]
struct State {
    phase: Phase,
    generation: u64,
    consecutive_failures: u32,
    /// Counter 0: results, counter 1: failures.
    window: SlidingWindow,
    clock: ControlClock,
}

impl State {
    /// Gives back a permit of `generation` without a result.
    fn release(&mut self, generation: u64, probe: bool) {
        if generation != self.generation || !probe {
            return;
        }
        if let Phase::HalfOpen { running, .. } = &mut self.phase {
            *running = running.saturating_sub(1);
        }
    }

    /// Takes a reading; when the clock restarts, the open period moves back with it.
    fn read(&mut self, now_ms: u64) -> Reading {
        let reading = self.clock.read(now_ms);
        if let Phase::Open { since_ms } = &mut self.phase {
            *since_ms = since_ms.saturating_sub(reading.restarted_back_ms);
        }
        reading
    }
}

/// A circuit breaker shared by every operation calling one dependency.
#[derive(Debug)]
pub struct CircuitBreaker {
    trip: Trip,
    open_ms: u64,
    half_open_probes: u32,
    /// Shared with the permits out (their back-reference), so a permit knows
    /// its breaker and a dropped one is given back.
    state: Shared<Lock<State>>,
}

const RESULTS: usize = 0;
const FAILURES: usize = 1;

impl CircuitBreaker {
    /// Validates a configuration; every broken rule names its field from the
    /// breaker itself (`open_ms`, `trip.failures`, ...).
    ///
    /// # Errors
    /// [`Error::ConfigViolations`] naming a breaker, with every violation.
    pub fn new(config: &BreakerConfig) -> Result<CircuitBreaker, Error> {
        CircuitBreaker::checked(config, "")
            .map_err(|violations| Error::ConfigViolations { config: ConfigKind::Breaker, violations })
    }

    /// [`CircuitBreaker::new`] for a breaker at `path` inside another
    /// configuration (a dependency's `breaker`), whose caller names it: every
    /// violation, its field from that configuration (`breaker.open_ms`).
    pub(crate) fn checked(config: &BreakerConfig, path: &str) -> Result<CircuitBreaker, Vec<Violation>> {
        let mut violations = Vec::new();
        let at = |field: &str| join(path, field);
        let (trip, window_ms) = match config.trip {
            TripConfig::Consecutive { failures } => {
                violations.extend(AT_LEAST_ONE.check(&at("trip.failures"), failures.into()));
                (Trip::Consecutive { failures }, 1)
            }
            TripConfig::Ratio { failure_ratio, minimum_throughput, window_ms } => {
                let ratio_permille = permille_of(failure_ratio, 0.0, 1.0, true).unwrap_or_else(|rule| {
                    let field = at("trip.failure_ratio");
                    violations.push(Violation { message: rule.message(&field, failure_ratio), field });
                    1000
                });
                violations.extend(AT_LEAST_ONE.check(&at("trip.minimum_throughput"), minimum_throughput.into()));
                violations.extend(DURATION_MS.check(&at("trip.window_ms"), window_ms));
                (
                    Trip::Ratio {
                        ratio_permille: u64::from(ratio_permille),
                        minimum_throughput: u64::from(minimum_throughput),
                    },
                    window_ms,
                )
            }
        };
        violations.extend(DURATION_MS.check(&at("open_ms"), config.open_ms));
        violations.extend(AT_LEAST_ONE.check(&at("half_open_probes"), config.half_open_probes.into()));
        if !violations.is_empty() {
            return Err(violations);
        }
        Ok(CircuitBreaker {
            trip,
            open_ms: config.open_ms,
            half_open_probes: config.half_open_probes,
            state: Shared::new(Lock::new(State {
                phase: Phase::Closed,
                generation: 0,
                consecutive_failures: 0,
                window: SlidingWindow::new(window_ms.max(1)),
                clock: ControlClock::new(config.open_ms.max(window_ms)),
            })),
        })
    }

    fn state(&self) -> impl core::ops::DerefMut<Target = State> + '_ {
        self.state.lock()
    }

    /// The generation and probe flag of a permit this breaker granted, which
    /// is settled from now on; a permit of another breaker is refused (and,
    /// dropped, goes back to its own breaker, before this one's lock is taken).
    fn settle(&self, mut permit: BreakerPermit) -> Result<(u64, bool), Error> {
        if !issued_by(&permit.owner, &self.state) {
            return Err(foreign::<BreakerPermit>("circuit breaker"));
        }
        permit.owner = SharedWeak::new();
        Ok((permit.generation, permit.probe))
    }

    /// Permits granted and not yet settled (results, releases and drops settle them).
    #[must_use]
    pub fn permits_outstanding(&self) -> usize {
        Shared::weak_count(&self.state)
    }

    /// Asks to send an attempt at `now_ms`. `None` means refused (open, or
    /// half-open with every probe taken).
    #[must_use = "a permit dropped at once is released unsettled: keep it and report the attempt's result with it"]
    pub fn try_acquire(&self, now_ms: u64) -> Option<BreakerPermit> {
        let mut state = self.state();
        let now_ms = state.read(now_ms).now_ms;
        if let Phase::Open { since_ms } = state.phase {
            if now_ms.saturating_sub(since_ms) < self.open_ms {
                return None;
            }
            state.phase = Phase::HalfOpen { running: 0, successes: 0 };
            state.generation += 1;
        }
        let generation = state.generation;
        let probe = match &mut state.phase {
            Phase::Closed => false,
            Phase::HalfOpen { running, .. } if *running < self.half_open_probes => {
                *running += 1;
                true
            }
            Phase::HalfOpen { .. } | Phase::Open { .. } => return None,
        };
        Some(BreakerPermit { probe, generation, owner: Shared::downgrade(&self.state) })
    }

    /// Records that the dependency answered (anything but a retryable failure).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`permit`) for a permit another breaker granted; nothing changes.
    pub fn on_success(&self, now_ms: u64, permit: BreakerPermit) -> Result<(), Error> {
        let (generation, probe) = self.settle(permit)?;
        let mut state = self.state();
        let reading = state.read(now_ms);
        if generation != state.generation {
            return Ok(());
        }
        let probes = self.half_open_probes;
        match &mut state.phase {
            Phase::Closed => match self.trip {
                Trip::Consecutive { .. } => state.consecutive_failures = 0,
                Trip::Ratio { .. } => state.window.add(reading, RESULTS, 1),
            },
            Phase::HalfOpen { running, successes } if probe => {
                *running = running.saturating_sub(1);
                *successes += 1;
                if *successes >= probes {
                    self.close(&mut state);
                }
            }
            Phase::HalfOpen { .. } | Phase::Open { .. } => {}
        }
        Ok(())
    }

    /// Records a retryable failure.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`permit`) for a permit another breaker granted; nothing changes.
    pub fn on_failure(&self, now_ms: u64, permit: BreakerPermit) -> Result<(), Error> {
        let (generation, probe) = self.settle(permit)?;
        let mut state = self.state();
        let reading = state.read(now_ms);
        let now_ms = reading.now_ms;
        if generation != state.generation {
            return Ok(());
        }
        match state.phase {
            Phase::Closed => {
                let trips = match self.trip {
                    Trip::Consecutive { failures } => {
                        state.consecutive_failures = state.consecutive_failures.saturating_add(1);
                        state.consecutive_failures >= failures
                    }
                    Trip::Ratio { ratio_permille, minimum_throughput } => {
                        state.window.add(reading, RESULTS, 1);
                        state.window.add(reading, FAILURES, 1);
                        let [results, failures] = state.window.totals(reading);
                        results >= minimum_throughput
                            && failures.saturating_mul(1000) >= ratio_permille.saturating_mul(results)
                    }
                };
                if trips {
                    self.open(&mut state, now_ms);
                }
            }
            Phase::HalfOpen { .. } if probe => self.open(&mut state, now_ms),
            Phase::HalfOpen { .. } | Phase::Open { .. } => {}
        }
        Ok(())
    }

    /// Gives a permit back without a result (the attempt was cancelled).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`permit`) for a permit another breaker granted; nothing changes.
    pub fn release(&self, permit: BreakerPermit) -> Result<(), Error> {
        let (generation, probe) = self.settle(permit)?;
        self.state().release(generation, probe);
        Ok(())
    }

    fn open(&self, state: &mut State, now_ms: u64) {
        state.phase = Phase::Open { since_ms: now_ms };
        state.generation += 1;
        state.consecutive_failures = 0;
        state.window.clear();
    }

    fn close(&self, state: &mut State) {
        state.phase = Phase::Closed;
        state.generation += 1;
        state.consecutive_failures = 0;
        state.window.clear();
    }

    /// The state at `now_ms`, for metrics (an open breaker whose time is up
    /// shows as half-open).
    #[must_use]
    pub fn snapshot(&self, now_ms: u64) -> BreakerSnapshot {
        let state = self.state();
        let reading = state.clock.peek(now_ms);
        let now_ms = reading.now_ms;
        let [window_results, window_failures] = state.window.peek(reading);
        let (phase, open_until_ms, probes_running) = match state.phase {
            Phase::Closed => (BreakerState::Closed, 0, 0),
            Phase::Open { since_ms } => {
                let since_ms = since_ms.saturating_sub(reading.restarted_back_ms);
                if now_ms.saturating_sub(since_ms) < self.open_ms {
                    (BreakerState::Open, since_ms.saturating_add(self.open_ms), 0)
                } else {
                    (BreakerState::HalfOpen, 0, 0)
                }
            }
            Phase::HalfOpen { running, .. } => (BreakerState::HalfOpen, 0, running),
        };
        BreakerSnapshot {
            state: phase,
            consecutive_failures: state.consecutive_failures,
            window_results,
            window_failures,
            open_until_ms,
            probes_running,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consecutive(failures: u32, probes: u32) -> CircuitBreaker {
        CircuitBreaker::new(&BreakerConfig {
            trip: TripConfig::Consecutive { failures },
            open_ms: 1_000,
            half_open_probes: probes,
        })
        .unwrap()
    }

    #[test]
    fn opens_after_consecutive_failures_and_probes_after_open_ms() {
        let breaker = consecutive(3, 1);
        for now in 0..3 {
            let permit = breaker.try_acquire(now).unwrap();
            breaker.on_failure(now, permit).unwrap();
        }
        assert_eq!(breaker.snapshot(10).state, BreakerState::Open);
        assert!(breaker.try_acquire(1_001).is_none(), "open until 1002");
        let probe = breaker.try_acquire(1_002).unwrap();
        assert!(probe.is_probe());
        assert!(breaker.try_acquire(1_002).is_none(), "one probe at a time");
        breaker.on_success(1_010, probe).unwrap();
        assert_eq!(breaker.snapshot(1_010).state, BreakerState::Closed);
    }

    #[test]
    fn failed_probe_reopens_and_stale_results_change_nothing() {
        let breaker = consecutive(1, 2);
        let early = breaker.try_acquire(0).unwrap();
        let tripping = breaker.try_acquire(0).unwrap();
        breaker.on_failure(5, tripping).unwrap();
        breaker.on_failure(6, early).unwrap();
        assert_eq!(breaker.snapshot(6).open_until_ms, 1_005, "the stale failure did not extend the open time");
        let first = breaker.try_acquire(1_005).unwrap();
        let second = breaker.try_acquire(1_005).unwrap();
        breaker.release(second).unwrap();
        breaker.on_failure(1_006, first).unwrap();
        assert_eq!(
            breaker.snapshot(1_006),
            BreakerSnapshot {
                state: BreakerState::Open,
                consecutive_failures: 0,
                window_results: 0,
                window_failures: 0,
                open_until_ms: 2_006,
                probes_running: 0
            }
        );
    }

    #[test]
    fn a_snapshot_is_read_under_the_old_name_of_probes_running_for_one_release() {
        let fields =
            r#""state":"half_open","consecutive_failures":0,"window_results":0,"window_failures":0,"open_until_ms":0"#;
        let old: BreakerSnapshot =
            serde_json::from_str(&alloc::format!("{{{fields},\"probes_in_flight\":2}}")).unwrap();
        assert_eq!(old.probes_running, 2);
        let written = serde_json::to_string(&old).unwrap();
        assert!(written.ends_with(r#""probes_running":2}"#), "{written}");
    }

    #[test]
    fn a_permit_is_owned_by_its_breaker_and_given_back_when_dropped() {
        let (a, b) = (consecutive(1, 1), consecutive(1, 1));
        let tripping = a.try_acquire(0).unwrap();
        a.on_failure(0, tripping).unwrap();
        let probe = a.try_acquire(1_000).unwrap();
        assert_eq!(a.permits_outstanding(), 1);
        let error = b.on_failure(1_001, probe).unwrap_err();
        assert_eq!(error.to_string(), "invalid argument `permit`: was issued by another circuit breaker");
        assert_eq!(b.snapshot(1_001).state, BreakerState::Closed, "breaker B is unchanged");
        assert_eq!(a.permits_outstanding(), 0, "the refused permit went back to A");
        assert_eq!(a.snapshot(1_001).probes_running, 0, "as a release: its probe is free again");
        let probe = a.try_acquire(1_002).unwrap();
        assert!(a.try_acquire(1_002).is_none(), "one probe at a time");
        drop(probe);
        assert!(a.try_acquire(1_003).is_some(), "a dropped probe is given back");
    }

    #[test]
    fn one_far_future_reading_does_not_keep_it_open() {
        for bad in [u64::MAX, 1_700_000_000_000] {
            let breaker = consecutive(1, 1);
            let permit = breaker.try_acquire(100).unwrap();
            breaker.on_failure(bad, permit).unwrap();
            assert_eq!(breaker.snapshot(bad).state, BreakerState::Open);
            assert!(breaker.try_acquire(200).is_none(), "the clock restarts at 200: open for 1000 ms more");
            assert_eq!(breaker.snapshot(200).open_until_ms, 1_200);
            assert!(breaker.try_acquire(1_199).is_none());
            let probe = breaker.try_acquire(1_200).unwrap();
            assert!(probe.is_probe(), "{bad}: probing 1000 ms after the restart, not in 55 years");
            breaker.on_success(1_250, probe).unwrap();
            assert_eq!(breaker.snapshot(1_250).state, BreakerState::Closed);
        }
    }

    #[test]
    fn readings_behind_the_latest_within_the_horizon_count_as_the_latest() {
        let breaker = consecutive(1, 1);
        let permit = breaker.try_acquire(5_000).unwrap();
        breaker.on_failure(5_000, permit).unwrap();
        assert!(breaker.try_acquire(6_000).is_some(), "open_ms is over at 6000");
        let breaker = consecutive(1, 1);
        let permit = breaker.try_acquire(5_000).unwrap();
        breaker.on_failure(5_000, permit).unwrap();
        assert!(breaker.try_acquire(4_000).is_none(), "1000 ms behind is no time elapsed");
        assert_eq!(breaker.snapshot(4_000).open_until_ms, 6_000, "not moved");
        assert!(breaker.try_acquire(3_999).is_none(), "1001 ms behind restarts the clock: open 1000 ms from 3999");
        assert_eq!(breaker.snapshot(3_999).open_until_ms, 4_999);
    }

    #[test]
    fn ratio_trip_waits_for_minimum_throughput() {
        let config = BreakerConfig {
            trip: TripConfig::Ratio { failure_ratio: 0.5, minimum_throughput: 4, window_ms: 10_000 },
            open_ms: 500,
            half_open_probes: 1,
        };
        let breaker = CircuitBreaker::new(&config).unwrap();
        for (now, fails) in [(0, true), (1, true), (2, true)] {
            let permit = breaker.try_acquire(now).unwrap();
            if fails {
                breaker.on_failure(now, permit).unwrap()
            } else {
                breaker.on_success(now, permit).unwrap()
            }
        }
        assert_eq!(breaker.snapshot(3).state, BreakerState::Closed, "3 results < minimum throughput 4");
        let permit = breaker.try_acquire(3).unwrap();
        breaker.on_success(3, permit).unwrap();
        let permit = breaker.try_acquire(4).unwrap();
        breaker.on_failure(4, permit).unwrap();
        assert_eq!(breaker.snapshot(4).state, BreakerState::Open, "4 failures of 5 >= 50 %");
    }
}
