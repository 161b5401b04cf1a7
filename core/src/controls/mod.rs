//! Floor 4, the shared controls: state many operations share against one
//! dependency (retry budgets, circuit breakers, retry slots, and the
//! dependency holding them). Below the policy: its compiled form carries a
//! dependency's controls, and no control reads a policy.

pub mod breaker;
pub mod budget;
pub mod dependency;
pub mod retry_slots;

use crate::config::value::Bounded;
use crate::ground::message::Rule;

/// A control's count of at least one (a breaker's `trip.failures`,
/// `trip.minimum_throughput`, `half_open_probes`), read and validated in the
/// same words.
pub(crate) const AT_LEAST_ONE: Bounded = Bounded { min: 1, max: u32::MAX as u64, rule: Rule::AtLeastOne };
