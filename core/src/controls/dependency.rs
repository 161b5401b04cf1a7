//! The shared controls of one downstream dependency, in one object.
//!
//! A [`Dependency`] bundles an optional retry budget, circuit breaker and
//! retry slots (the cap on the retries and hedges running at once). Create
//! one per dependency, wrap it in an [`Arc`], and give it to every operation
//! that calls that dependency
//! ([`OperationOptions::with_dependency`](crate::OperationOptions::with_dependency)):
//! the operation consults and feeds it at the right moments, so callers never
//! have to.

use alloc::sync::Arc;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::config::error::{ConfigKind, Error, Violation};
use crate::config::value::{read_error, Fields, FromValue, Value};
use crate::controls::breaker::{BreakerConfig, BreakerSnapshot, CircuitBreaker};
use crate::controls::budget::{BudgetConfig, BudgetSnapshot, RetryBudget};
use crate::controls::retry_slots::RetrySlots;
use crate::ground::message::message;

/// Which controls a dependency has (JSON, snake_case; every field optional).
///
/// ```
/// let config = retryplan::DependencyConfig::from_json(r#"{
///     "budget": {"kind": "ratio", "retry_ratio": 0.05, "min_retries_per_second": 10, "window_ms": 10000},
///     "breaker": {"trip": {"kind": "consecutive", "failures": 5}, "open_ms": 5000, "half_open_probes": 1},
///     "retry_slots": 20
/// }"#).unwrap();
/// let dependency = retryplan::Dependency::new(&config).unwrap();
/// assert!(dependency.budget().is_some());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DependencyConfig {
    /// The retry budget, if any.
    pub budget: Option<BudgetConfig>,
    /// The circuit breaker, if any.
    pub breaker: Option<BreakerConfig>,
    /// How many retries and hedges may run at once, if capped: the count of
    /// [`RetrySlots`] (read from `max_concurrent_retries`, its old name, too).
    pub retry_slots: Option<u32>,
}

/// The old name of `retry_slots`, read for one release.
const RETRY_SLOTS_OLD_NAME: &str = "max_concurrent_retries";

impl DependencyConfig {
    /// Reads a configuration from a [`Value`] (every field optional; unknown
    /// fields refused); errors name the dotted field path. `retry_slots` may
    /// be given under its old name, `max_concurrent_retries`, but not under
    /// both.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a dependency (its budget's and
    /// breaker's fields too: `budget.kind`).
    pub fn from_value(value: &Value) -> Result<DependencyConfig, Error> {
        ConfigKind::Dependency.reading(DependencyConfig::read(value))
    }

    fn read(value: &Value) -> Result<DependencyConfig, Error> {
        let fields = Fields::new(value, "", &["budget", "breaker", "retry_slots", RETRY_SLOTS_OLD_NAME])?;
        let budget = fields.optional("budget", BudgetConfig::read)?;
        let breaker = fields.optional("breaker", BreakerConfig::read)?;
        let retry_slots = fields.optional("retry_slots", FromValue::from_value)?;
        let old_name = fields.optional(RETRY_SLOTS_OLD_NAME, FromValue::from_value)?;
        if retry_slots.is_some() && old_name.is_some() {
            let message = message!(BothOldAndNewName, "retry_slots", RETRY_SLOTS_OLD_NAME);
            return Err(read_error(&fields.path(RETRY_SLOTS_OLD_NAME), message));
        }
        Ok(DependencyConfig { budget, breaker, retry_slots: retry_slots.or(old_name) })
    }
}

#[cfg(feature = "json")]
impl DependencyConfig {
    /// Reads a configuration from JSON text (see [`DependencyConfig::from_value`]).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a dependency.
    pub fn from_json(json: &str) -> Result<DependencyConfig, Error> {
        DependencyConfig::from_value(&ConfigKind::Dependency.reading(Value::from_json(json))?)
    }
}

/// The state of every control, for metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DependencySnapshot {
    /// The budget's state, if it has one.
    pub budget: Option<BudgetSnapshot>,
    /// The breaker's state, if it has one.
    pub breaker: Option<BreakerSnapshot>,
    /// Retry slots in use, if there are retry slots.
    pub retry_slots_in_use: Option<u32>,
}

/// The value, or `None` after collecting its violations.
fn keep<T>(result: Result<T, Vec<Violation>>, violations: &mut Vec<Violation>) -> Option<T> {
    result.map_err(|more| violations.extend(more)).ok()
}

/// The shared controls of one dependency. `Send + Sync`; share it with [`Arc`].
#[derive(Debug)]
pub struct Dependency {
    budget: Option<RetryBudget>,
    breaker: Option<CircuitBreaker>,
    retry_slots: Option<RetrySlots>,
}

impl Dependency {
    /// Validates a configuration; violations from every control are reported together.
    ///
    /// # Errors
    /// [`Error::ConfigViolations`] naming a dependency, with every violation
    /// (`budget.max_tokens`, `breaker.open_ms`, ...).
    pub fn new(config: &DependencyConfig) -> Result<Arc<Dependency>, Error> {
        let mut violations = Vec::new();
        let budget = config.budget.and_then(|budget| keep(RetryBudget::checked(&budget, "budget"), &mut violations));
        let breaker =
            config.breaker.and_then(|breaker| keep(CircuitBreaker::checked(&breaker, "breaker"), &mut violations));
        if !violations.is_empty() {
            return Err(Error::ConfigViolations { config: ConfigKind::Dependency, violations });
        }
        // Without `std` the controls are for one thread (`RefCell`): an `Arc`
        // of them is `!Send`, as intended there.
        #[cfg_attr(not(feature = "std"), allow(clippy::arc_with_non_send_sync))]
        Ok(Arc::new(Dependency { budget, breaker, retry_slots: config.retry_slots.map(RetrySlots::new) }))
    }

    #[cfg(feature = "json")]
    /// Reads and validates a configuration from JSON.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] or [`Error::ConfigViolations`], each naming a dependency.
    pub fn from_json(json: &str) -> Result<Arc<Dependency>, Error> {
        Dependency::new(&DependencyConfig::from_json(json)?)
    }

    /// The retry budget, if configured.
    #[must_use]
    pub fn budget(&self) -> Option<&RetryBudget> {
        self.budget.as_ref()
    }

    /// The circuit breaker, if configured.
    #[must_use]
    pub fn breaker(&self) -> Option<&CircuitBreaker> {
        self.breaker.as_ref()
    }

    /// The retry slots, if configured.
    #[must_use]
    pub fn retry_slots(&self) -> Option<&RetrySlots> {
        self.retry_slots.as_ref()
    }

    /// Every control's state at `now_ms`.
    #[must_use]
    pub fn snapshot(&self, now_ms: u64) -> DependencySnapshot {
        DependencySnapshot {
            budget: self.budget.as_ref().map(|budget| budget.snapshot(now_ms)),
            breaker: self.breaker.as_ref().map(|breaker| breaker.snapshot(now_ms)),
            retry_slots_in_use: self.retry_slots.as_ref().map(RetrySlots::in_use),
        }
    }
}

crate::config::value::deserialize_through_value!(DependencyConfig, |value, _| DependencyConfig::from_value(value));

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;

    #[test]
    fn retry_slots_are_read_under_their_old_name_but_not_under_both() {
        let new = DependencyConfig::from_json(r#"{"retry_slots": 3}"#).unwrap();
        assert_eq!(DependencyConfig::from_json(r#"{"max_concurrent_retries": 3}"#).unwrap(), new);
        let with_null = r#"{"retry_slots": 3, "max_concurrent_retries": null}"#;
        assert_eq!(DependencyConfig::from_json(with_null).unwrap(), new, "null is absent, as for every field");
        let error = DependencyConfig::from_json(r#"{"retry_slots": 3, "max_concurrent_retries": 3}"#).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid dependency configuration at `max_concurrent_retries`: both `retry_slots` and its old name \
             `max_concurrent_retries` are given; keep `retry_slots` only"
        );
    }
}
