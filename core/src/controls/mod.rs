//! Floor 4, the shared controls: state many operations share against one
//! dependency (retry budgets, circuit breakers, retry slots, and the
//! dependency holding them). Below the policy: its compiled form carries a
//! dependency's controls, and no control reads a policy.

pub mod breaker;
pub mod budget;
pub mod dependency;
pub mod retry_slots;

use crate::config::error::Error;
use crate::config::value::{Bounded, Value};
use crate::ground::message::Rule;
use crate::ground::units::MAX_MS;

/// A control's duration (a breaker's `open_ms`, a window's `window_ms`):
/// 1 ms to `MAX_MS`, read and validated in the same words.
pub(crate) const DURATION_MS: Bounded = Bounded { min: 1, max: MAX_MS, rule: Rule::OutOfRange };

/// Reads a control's duration at `path`: what is no whole number of ms is
/// refused in [`DURATION_MS`]'s words (one reader for every such field).
pub(crate) fn read_duration_ms(value: &Value, path: &str) -> Result<u64, Error> {
    DURATION_MS.read_u64(value, path)
}

/// A control's count of at least one (a breaker's `trip.failures`,
/// `trip.minimum_throughput`, `half_open_probes`), read and validated in the
/// same words.
pub(crate) const AT_LEAST_ONE: Bounded = Bounded { min: 1, max: u32::MAX as u64, rule: Rule::AtLeastOne };
