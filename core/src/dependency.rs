//! The shared controls of one downstream dependency, in one object.
//!
//! A [`Dependency`] bundles an optional retry budget, circuit breaker and cap
//! on in-flight retries and hedges. Create one per dependency, wrap it in an
//! [`Arc`], and give it to every operation that calls that dependency
//! ([`OperationOptions::with_dependency`](crate::OperationOptions::with_dependency)):
//! the operation consults and feeds it at the right moments, so callers never
//! have to.

use alloc::sync::Arc;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::breaker::{BreakerConfig, BreakerSnapshot, CircuitBreaker};
use crate::budget::{BudgetConfig, BudgetSnapshot, RetryBudget};
use crate::concurrency::ConcurrencyLimit;
use crate::error::{ConfigKind, Error};
use crate::value::{Fields, Value};

/// Which controls a dependency has (JSON, snake_case; every field optional).
///
/// ```
/// let config = retryplan::DependencyConfig::from_json(r#"{
///     "budget": {"kind": "ratio", "retry_ratio": 0.05, "min_retries_per_second": 10, "window_ms": 10000},
///     "breaker": {"trip": {"kind": "consecutive", "failures": 5}, "open_ms": 5000, "half_open_probes": 1},
///     "max_concurrent_retries": 20
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
    /// The most retries and hedges in flight at once, if capped.
    pub max_concurrent_retries: Option<u32>,
}

impl DependencyConfig {
    /// Reads a configuration from a [`Value`] (every field optional; unknown
    /// fields refused); errors name the dotted field path.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a dependency (its budget's and
    /// breaker's fields too: `budget.kind`).
    pub fn from_value(value: &Value) -> Result<DependencyConfig, Error> {
        // Each field's error is named as it happens: naming the whole
        // configuration's result would copy it (code in the wasm build).
        let named = ConfigKind::Dependency;
        let fields = named.reading(Fields::new(value, "", &["budget", "breaker", "max_concurrent_retries"]))?;
        Ok(DependencyConfig {
            budget: named.reading(fields.optional("budget", BudgetConfig::read))?,
            breaker: named.reading(fields.optional("breaker", BreakerConfig::read))?,
            max_concurrent_retries: named
                .reading(fields.optional("max_concurrent_retries", crate::value::FromValue::from_value))?,
        })
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
    /// Retries and hedges in flight, if capped.
    pub retries_in_flight: Option<u32>,
}

/// The value, or `None` after collecting its violations.
fn keep<T>(result: Result<T, Error>, violations: &mut Vec<crate::error::Violation>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(Error::InvalidPolicy { violations: more }) => {
            violations.extend(more);
            None
        }
        Err(other) => {
            violations.push(crate::error::Violation::new("", other.message()));
            None
        }
    }
}

/// The shared controls of one dependency. `Send + Sync`; share it with [`Arc`].
#[derive(Debug)]
pub struct Dependency {
    budget: Option<RetryBudget>,
    breaker: Option<CircuitBreaker>,
    retry_slots: Option<ConcurrencyLimit>,
}

impl Dependency {
    /// Validates a configuration; violations from every control are reported together.
    ///
    /// # Errors
    /// [`Error::InvalidPolicy`] with every violation.
    pub fn new(config: &DependencyConfig) -> Result<Arc<Dependency>, Error> {
        let mut violations = Vec::new();
        let budget = config.budget.and_then(|budget| keep(RetryBudget::new(&budget), &mut violations));
        let breaker = config.breaker.and_then(|breaker| keep(CircuitBreaker::new(&breaker), &mut violations));
        if !violations.is_empty() {
            return Err(Error::InvalidPolicy { violations });
        }
        // Without `std` the controls are for one thread (`RefCell`): an `Arc`
        // of them is `!Send`, as intended there.
        #[cfg_attr(not(feature = "std"), allow(clippy::arc_with_non_send_sync))]
        Ok(Arc::new(Dependency {
            budget,
            breaker,
            retry_slots: config.max_concurrent_retries.map(ConcurrencyLimit::new),
        }))
    }

    #[cfg(feature = "json")]
    /// Reads and validates a configuration from JSON.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] or [`Error::InvalidPolicy`].
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

    /// The cap on in-flight retries and hedges, if configured.
    #[must_use]
    pub fn retry_slots(&self) -> Option<&ConcurrencyLimit> {
        self.retry_slots.as_ref()
    }

    /// Every control's state at `now_ms`.
    #[must_use]
    pub fn snapshot(&self, now_ms: u64) -> DependencySnapshot {
        DependencySnapshot {
            budget: self.budget.as_ref().map(|budget| budget.snapshot(now_ms)),
            breaker: self.breaker.as_ref().map(|breaker| breaker.snapshot(now_ms)),
            retries_in_flight: self.retry_slots.as_ref().map(ConcurrencyLimit::in_flight),
        }
    }
}

crate::value::deserialize_through_value!(DependencyConfig, |value, _| DependencyConfig::from_value(value));
