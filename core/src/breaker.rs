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
//! while half-open, or anything while open) changes nothing. What counts as a
//! failure is what the operation's policy classifies as retryable; any other
//! answer counts as a success (the dependency answered); a cancelled attempt
//! only gives its probe back.

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Violation};
use crate::lock::Lock;
use crate::message::{message, Message};
use crate::units::{permille_of, MAX_MS};
use crate::value::{tagged, Fields, Named, Value};
use crate::window::SlidingWindow;

/// When a closed breaker opens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TripConfig {
    /// After this many retryable failures in a row.
    Consecutive {
        /// Failures in a row that open the breaker, >= 1.
        failures: u32,
    },
    /// When failures reach this share of the results in the window.
    Ratio {
        /// Share of failures that opens it, in (0, 1], at most three decimals.
        failure_ratio: f64,
        /// Results needed in the window before the ratio counts, >= 1.
        minimum_throughput: u32,
        /// The sliding window, >= 1 ms.
        window_ms: u64,
    },
}

/// Circuit breaker configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BreakerConfig {
    /// When it opens.
    pub trip: TripConfig,
    /// How long it stays open before probing, in ms (>= 1).
    pub open_ms: u64,
    /// Probes allowed at a time while half-open, and successes needed to close (>= 1).
    pub half_open_probes: u32,
}

impl BreakerConfig {
    /// Reads a breaker object (every field required). Errors name the dotted path from `path`.
    ///
    /// # Errors
    /// [`Error::InvalidPolicyJson`].
    pub fn from_value(value: &Value, path: &str) -> Result<BreakerConfig, Error> {
        let fields = Fields::new(value, path, &["trip", "open_ms", "half_open_probes"])?;
        Ok(BreakerConfig {
            trip: fields.required_with("trip", read_trip)?,
            open_ms: fields.required("open_ms")?,
            half_open_probes: fields.required("half_open_probes")?,
        })
    }
}

fn read_trip(value: &Value, path: &str) -> Result<TripConfig, Error> {
    let (kind, fields) = tagged(value, path, |kind: TripKind| match kind {
        TripKind::Consecutive => &["kind", "failures"],
        TripKind::Ratio => &["kind", "failure_ratio", "minimum_throughput", "window_ms"],
    })?;
    Ok(match kind {
        TripKind::Consecutive => TripConfig::Consecutive { failures: fields.required("failures")? },
        TripKind::Ratio => TripConfig::Ratio {
            failure_ratio: fields.required("failure_ratio")?,
            minimum_throughput: fields.required("minimum_throughput")?,
            window_ms: fields.required("window_ms")?,
        },
    })
}

/// The names of [`TripConfig`]'s variants (its `kind` tag).
#[derive(Clone, Copy)]
enum TripKind {
    Consecutive,
    Ratio,
}

impl Named for TripKind {
    const ALL: &'static [Self] = &[TripKind::Consecutive, TripKind::Ratio];
    fn name(self) -> &'static str {
        match self {
            TripKind::Consecutive => "consecutive",
            TripKind::Ratio => "ratio",
        }
    }
}

/// Admission granted by [`CircuitBreaker::try_acquire`]; hand it back with the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BreakerPermit {
    /// True when the attempt is a half-open probe.
    pub probe: bool,
    generation: u64,
}

/// The breaker's state name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerState {
    /// Attempts pass.
    Closed,
    /// Attempts are refused.
    Open,
    /// A few probes pass.
    HalfOpen,
}

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
    /// Probes running.
    pub probes_in_flight: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    Closed,
    Open { until_ms: u64 },
    HalfOpen { in_flight: u32, successes: u32 },
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
}

/// A circuit breaker shared by every operation calling one dependency.
#[derive(Debug)]
pub struct CircuitBreaker {
    trip: Trip,
    open_ms: u64,
    half_open_probes: u32,
    state: Lock<State>,
}

const RESULTS: usize = 0;
const FAILURES: usize = 1;

impl CircuitBreaker {
    /// Validates a configuration; every broken rule names its field.
    ///
    /// # Errors
    /// [`Error::InvalidPolicy`] with every violation.
    pub fn new(config: &BreakerConfig) -> Result<CircuitBreaker, Error> {
        let mut violations = Vec::new();
        let mut fail = |field: &str, message: Message| violations.push(Violation::new(field, message));
        let (trip, window_ms) = match config.trip {
            TripConfig::Consecutive { failures } => {
                if failures == 0 {
                    fail("breaker.trip.failures", message!(ZeroNotAllowed, "breaker.trip.failures"));
                }
                (Trip::Consecutive { failures }, 1)
            }
            TripConfig::Ratio { failure_ratio, minimum_throughput, window_ms } => {
                let ratio_permille = permille_of(failure_ratio, 0.0, 1.0, true).unwrap_or_else(|rule| {
                    fail("breaker.trip.failure_ratio", rule.message("breaker.trip.failure_ratio", failure_ratio));
                    1000
                });
                if minimum_throughput == 0 {
                    fail(
                        "breaker.trip.minimum_throughput",
                        message!(ZeroNotAllowed, "breaker.trip.minimum_throughput"),
                    );
                }
                if window_ms == 0 || window_ms > MAX_MS {
                    fail("breaker.trip.window_ms", message!(OutOfRange, "breaker.trip.window_ms", window_ms, MAX_MS));
                }
                (
                    Trip::Ratio {
                        ratio_permille: u64::from(ratio_permille),
                        minimum_throughput: u64::from(minimum_throughput),
                    },
                    window_ms,
                )
            }
        };
        if config.open_ms == 0 || config.open_ms > MAX_MS {
            fail("breaker.open_ms", message!(OutOfRange, "breaker.open_ms", config.open_ms, MAX_MS));
        }
        if config.half_open_probes == 0 {
            fail("breaker.half_open_probes", message!(ZeroNotAllowed, "breaker.half_open_probes"));
        }
        if !violations.is_empty() {
            return Err(Error::InvalidPolicy { violations });
        }
        Ok(CircuitBreaker {
            trip,
            open_ms: config.open_ms,
            half_open_probes: config.half_open_probes,
            state: Lock::new(State {
                phase: Phase::Closed,
                generation: 0,
                consecutive_failures: 0,
                window: SlidingWindow::new(window_ms.max(1)),
            }),
        })
    }

    fn state(&self) -> impl core::ops::DerefMut<Target = State> + '_ {
        self.state.lock()
    }

    /// Asks to send an attempt at `now_ms`. `None` means refused (open, or
    /// half-open with every probe taken).
    pub fn try_acquire(&self, now_ms: u64) -> Option<BreakerPermit> {
        let mut state = self.state();
        if let Phase::Open { until_ms } = state.phase {
            if now_ms < until_ms {
                return None;
            }
            state.phase = Phase::HalfOpen { in_flight: 0, successes: 0 };
            state.generation += 1;
        }
        let generation = state.generation;
        match &mut state.phase {
            Phase::Closed => Some(BreakerPermit { probe: false, generation }),
            Phase::HalfOpen { in_flight, .. } if *in_flight < self.half_open_probes => {
                *in_flight += 1;
                Some(BreakerPermit { probe: true, generation })
            }
            Phase::HalfOpen { .. } | Phase::Open { .. } => None,
        }
    }

    /// Records that the dependency answered (anything but a retryable failure).
    pub fn on_success(&self, now_ms: u64, permit: BreakerPermit) {
        let mut state = self.state();
        if permit.generation != state.generation {
            return;
        }
        let probes = self.half_open_probes;
        match &mut state.phase {
            Phase::Closed => match self.trip {
                Trip::Consecutive { .. } => state.consecutive_failures = 0,
                Trip::Ratio { .. } => state.window.add(now_ms, RESULTS, 1),
            },
            Phase::HalfOpen { in_flight, successes } if permit.probe => {
                *in_flight = in_flight.saturating_sub(1);
                *successes += 1;
                if *successes >= probes {
                    self.close(&mut state);
                }
            }
            Phase::HalfOpen { .. } | Phase::Open { .. } => {}
        }
    }

    /// Records a retryable failure.
    pub fn on_failure(&self, now_ms: u64, permit: BreakerPermit) {
        let mut state = self.state();
        if permit.generation != state.generation {
            return;
        }
        match state.phase {
            Phase::Closed => {
                let trips = match self.trip {
                    Trip::Consecutive { failures } => {
                        state.consecutive_failures = state.consecutive_failures.saturating_add(1);
                        state.consecutive_failures >= failures
                    }
                    Trip::Ratio { ratio_permille, minimum_throughput } => {
                        state.window.add(now_ms, RESULTS, 1);
                        state.window.add(now_ms, FAILURES, 1);
                        let [results, failures] = state.window.totals(now_ms);
                        results >= minimum_throughput
                            && failures.saturating_mul(1000) >= ratio_permille.saturating_mul(results)
                    }
                };
                if trips {
                    self.open(&mut state, now_ms);
                }
            }
            Phase::HalfOpen { .. } if permit.probe => self.open(&mut state, now_ms),
            Phase::HalfOpen { .. } | Phase::Open { .. } => {}
        }
    }

    /// Gives a permit back without a result (the attempt was cancelled).
    pub fn release(&self, permit: BreakerPermit) {
        let mut state = self.state();
        if permit.generation != state.generation || !permit.probe {
            return;
        }
        if let Phase::HalfOpen { in_flight, .. } = &mut state.phase {
            *in_flight = in_flight.saturating_sub(1);
        }
    }

    fn open(&self, state: &mut State, now_ms: u64) {
        state.phase = Phase::Open { until_ms: now_ms.saturating_add(self.open_ms) };
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
        let [window_results, window_failures] = state.window.peek(now_ms);
        let (phase, open_until_ms, probes_in_flight) = match state.phase {
            Phase::Closed => (BreakerState::Closed, 0, 0),
            Phase::Open { until_ms } if now_ms < until_ms => (BreakerState::Open, until_ms, 0),
            Phase::Open { .. } => (BreakerState::HalfOpen, 0, 0),
            Phase::HalfOpen { in_flight, .. } => (BreakerState::HalfOpen, 0, in_flight),
        };
        BreakerSnapshot {
            state: phase,
            consecutive_failures: state.consecutive_failures,
            window_results,
            window_failures,
            open_until_ms,
            probes_in_flight,
        }
    }
}

crate::value::deserialize_through_value!(BreakerConfig, BreakerConfig::from_value);
crate::value::deserialize_through_value!(TripConfig, read_trip);

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
            breaker.on_failure(now, permit);
        }
        assert_eq!(breaker.snapshot(10).state, BreakerState::Open);
        assert!(breaker.try_acquire(1_001).is_none(), "open until 1002");
        let probe = breaker.try_acquire(1_002).unwrap();
        assert!(probe.probe);
        assert!(breaker.try_acquire(1_002).is_none(), "one probe at a time");
        breaker.on_success(1_010, probe);
        assert_eq!(breaker.snapshot(1_010).state, BreakerState::Closed);
    }

    #[test]
    fn failed_probe_reopens_and_stale_results_change_nothing() {
        let breaker = consecutive(1, 2);
        let early = breaker.try_acquire(0).unwrap();
        let tripping = breaker.try_acquire(0).unwrap();
        breaker.on_failure(5, tripping);
        breaker.on_failure(6, early);
        assert_eq!(breaker.snapshot(6).open_until_ms, 1_005, "the stale failure did not extend the open time");
        let first = breaker.try_acquire(1_005).unwrap();
        let second = breaker.try_acquire(1_005).unwrap();
        breaker.release(second);
        breaker.on_failure(1_006, first);
        assert_eq!(
            breaker.snapshot(1_006),
            BreakerSnapshot {
                state: BreakerState::Open,
                consecutive_failures: 0,
                window_results: 0,
                window_failures: 0,
                open_until_ms: 2_006,
                probes_in_flight: 0
            }
        );
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
                breaker.on_failure(now, permit)
            } else {
                breaker.on_success(now, permit)
            }
        }
        assert_eq!(breaker.snapshot(3).state, BreakerState::Closed, "3 results < minimum throughput 4");
        let permit = breaker.try_acquire(3).unwrap();
        breaker.on_success(3, permit);
        let permit = breaker.try_acquire(4).unwrap();
        breaker.on_failure(4, permit);
        assert_eq!(breaker.snapshot(4).state, BreakerState::Open, "4 failures of 5 >= 50 %");
    }
}
