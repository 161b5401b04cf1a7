//! The shared controls of a dependency (retry budget, circuit breaker, retry
//! slots) and the shared counters (`Stats`). All thread-safe.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use retryplan::value::Value;
use retryplan::ConfigKind;
use retryplan::{
    BreakerConfig, BreakerPermit, BudgetConfig, CircuitBreaker, Dependency, DependencyConfig, GiveUpReason, GrantCell,
    RetryBudget, RetryCharge, RetrySlot, RetrySlots, SharedStats,
};

use crate::args::{bytes_arg, class_arg, str_arg, u32_arg, Arg, NOW};
use crate::data::{from_py, repr_of, serialized};
use crate::decision::{IntoField, PyDecision};
use crate::fault::{invalid, Res};

/// A configuration from one dict or keyword arguments, as the core's data tree.
fn config_value(kind: ConfigKind, config: Arg, fields: Option<&Bound<'_, PyDict>>) -> Res<Value> {
    match (config, fields) {
        (Some(_), Some(fields)) if !fields.is_empty() => {
            Err(invalid("config", "pass either one dict or keyword arguments, not both".to_owned()))
        }
        (Some(config), _) => from_py(config, kind),
        (None, Some(fields)) => from_py(fields.as_any(), kind),
        (None, None) => Ok(Value::Object(Vec::new())),
    }
}

/// A dependency's configuration (one dict or keyword arguments, as `Dependency`
/// takes them), validated, as its compiled form: what `Dependency.from_compiled`
/// (in any language) builds the controls from.
#[pyfunction]
#[pyo3(signature = (config = None, **fields))]
pub(crate) fn compile_dependency<'py>(
    py: Python<'py>,
    config: Arg,
    fields: Option<&Bound<'_, PyDict>>,
) -> Res<Bound<'py, PyBytes>> {
    let config = DependencyConfig::from_value(&config_value(ConfigKind::Dependency, config, fields)?)?;
    Ok(PyBytes::new(py, &config.to_compiled()?))
}

/// The shared controls of one downstream dependency (retry budget, circuit
/// breaker, retry slots), shared by every Operation that names
/// it. Thread-safe.
#[pyclass(module = "retryplan", name = "Dependency", frozen)]
pub(crate) struct PyDependency {
    pub(crate) inner: Arc<Dependency>,
}

#[pymethods]
impl PyDependency {
    #[new]
    #[pyo3(signature = (config = None, **fields))]
    fn new(config: Arg, fields: Option<&Bound<'_, PyDict>>) -> Res<Self> {
        let config = DependencyConfig::from_value(&config_value(ConfigKind::Dependency, config, fields)?)?;
        Ok(PyDependency { inner: Dependency::new(&config)? })
    }

    /// A dependency from JSON text.
    #[staticmethod]
    fn from_json(text: &Bound<'_, PyAny>) -> Res<Self> {
        Ok(PyDependency { inner: Dependency::from_json(&str_arg("text", text)?)? })
    }

    /// New controls from a compiled form (`compile_dependency`, `retryplan
    /// compile --dependency`): bytes, bytearray or memoryview.
    #[staticmethod]
    fn from_compiled(form: &Bound<'_, PyAny>) -> Res<Self> {
        Ok(PyDependency { inner: Dependency::from_compiled(&bytes_arg("form", form)?)? })
    }

    /// The state of every control at `now`, as a JSON-shaped dict.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn snapshot<'py>(&self, py: Python<'py>, now: Arg, now_ms: Arg) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner.snapshot(NOW.read(now, now_ms)?))
    }

    /// The dependency's retry budget, or None.
    #[getter]
    fn budget(&self) -> Option<PyRetryBudget> {
        self.inner.budget().map(|_| PyRetryBudget { inner: Source::Dependency(Arc::clone(&self.inner)) })
    }

    /// The dependency's circuit breaker, or None.
    #[getter]
    fn breaker(&self) -> Option<PyCircuitBreaker> {
        self.inner.breaker().map(|_| PyCircuitBreaker { inner: Source::Dependency(Arc::clone(&self.inner)) })
    }

    /// The dependency's retry slots, or None.
    #[getter]
    fn retry_slots(&self) -> Option<PyRetrySlots> {
        self.inner.retry_slots().map(|_| PyRetrySlots { inner: Source::Dependency(Arc::clone(&self.inner)) })
    }
}

/// A control of its own, or one of a dependency's.
enum Source<T> {
    Own(Box<T>),
    Dependency(Arc<Dependency>),
}

impl<T> Source<T> {
    fn get<'a>(&'a self, name: &'static str, of: fn(&'a Dependency) -> Option<&'a T>) -> Res<&'a T> {
        match self {
            Source::Own(control) => Ok(control),
            Source::Dependency(dependency) => {
                of(dependency).ok_or_else(|| invalid(name, format!("the dependency has no {name}")))
            }
        }
    }
}

/// A retry budget (token bucket, ratio or quota), on its own or a Dependency's. Thread-safe.
#[pyclass(module = "retryplan", name = "RetryBudget", frozen)]
pub(crate) struct PyRetryBudget {
    inner: Source<RetryBudget>,
}

/// What a granted retry cost (`cost` units; 0 outside the quota model); hand it back once,
/// with the retry's success (refunded) or failure (spent). Only `try_retry` makes one.
#[pyclass(module = "retryplan", name = "RetryCharge", frozen)]
pub(crate) struct PyRetryCharge {
    cost: u32,
    cell: GrantCell<RetryCharge>,
}

impl PyRetryCharge {
    fn new(charge: RetryCharge) -> Self {
        PyRetryCharge { cost: charge.cost(), cell: GrantCell::new(charge) }
    }
}

#[pymethods]
impl PyRetryCharge {
    /// Units charged.
    #[getter]
    fn cost(&self) -> u32 {
        self.cost
    }

    fn __repr__(&self) -> String {
        format!("RetryCharge(cost={})", self.cost)
    }
}

/// The core charge kept in a `RetryCharge` argument (taken: a second use is refused).
fn charge_arg(charge: Arg) -> Res<Option<RetryCharge>> {
    Ok(charge
        .map(|charge| class_arg::<PyRetryCharge>("charge", charge).map(|c| c.cell.take()))
        .transpose()?
        .transpose()?)
}

impl PyRetryBudget {
    fn budget(&self) -> Res<&RetryBudget> {
        self.inner.get("budget", Dependency::budget)
    }
}

#[pymethods]
impl PyRetryBudget {
    #[new]
    #[pyo3(signature = (config = None, **fields))]
    fn new(config: Arg, fields: Option<&Bound<'_, PyDict>>) -> Res<Self> {
        let config = BudgetConfig::from_value(&config_value(ConfigKind::Budget, config, fields)?)?;
        Ok(PyRetryBudget { inner: Source::Own(Box::new(RetryBudget::new(&config)?)) })
    }

    /// Counts an original request (ratio model).
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn on_request(&self, now: Arg, now_ms: Arg) -> Res<()> {
        self.budget()?.on_request(NOW.read(now, now_ms)?);
        Ok(())
    }

    /// Asks for a retry: a RetryCharge when granted, None when refused.
    #[pyo3(signature = (now = None, after_timeout = false, *, now_ms = None))]
    fn try_retry(&self, now: Arg, after_timeout: bool, now_ms: Arg) -> Res<Option<PyRetryCharge>> {
        Ok(self.budget()?.try_retry(NOW.read(now, now_ms)?, after_timeout).map(PyRetryCharge::new))
    }

    /// Reports a success (with the charge of the retry that succeeded, if any).
    #[pyo3(signature = (now = None, charge = None, *, now_ms = None))]
    fn on_success(&self, now: Arg, charge: Arg, now_ms: Arg) -> Res<()> {
        Ok(self.budget()?.on_success(NOW.read(now, now_ms)?, charge_arg(charge)?)?)
    }

    /// Reports a failure (with the charge of the retry that failed, if any: it stays spent).
    #[pyo3(signature = (now = None, charge = None, *, now_ms = None))]
    fn on_failure(&self, now: Arg, charge: Arg, now_ms: Arg) -> Res<()> {
        Ok(self.budget()?.on_failure(NOW.read(now, now_ms)?, charge_arg(charge)?)?)
    }

    /// Settles a charge whose retry ended with neither a success nor a retryable failure: it stays spent.
    fn spend(&self, charge: &Bound<'_, PyAny>) -> Res<()> {
        let budget = self.budget()?;
        let charge = charge_arg(Some(charge))?.ok_or_else(|| invalid("charge", "is required".to_owned()))?;
        Ok(budget.spend(charge)?)
    }

    /// Charges granted and not yet settled.
    #[getter]
    fn charges_outstanding(&self) -> Res<usize> {
        Ok(self.budget()?.charges_outstanding())
    }

    /// Takes `amount` units from a quota (AWS `acquire`): True when taken, False when fewer are left.
    fn acquire(&self, amount: &Bound<'_, PyAny>) -> Res<bool> {
        Ok(self.budget()?.acquire(u32_arg("amount", amount)?)?)
    }

    /// Gives `amount` units back to a quota, never above its capacity.
    fn release(&self, amount: &Bound<'_, PyAny>) -> Res<()> {
        Ok(self.budget()?.release(u32_arg("amount", amount)?)?)
    }

    /// The budget's state at `now`, as a JSON-shaped dict.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn snapshot<'py>(&self, py: Python<'py>, now: Arg, now_ms: Arg) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.budget()?.snapshot(NOW.read(now, now_ms)?))
    }
}

/// A circuit breaker (consecutive failures or failure ratio), on its own or a Dependency's. Thread-safe.
#[pyclass(module = "retryplan", name = "CircuitBreaker", frozen)]
pub(crate) struct PyCircuitBreaker {
    inner: Source<CircuitBreaker>,
}

/// Permission to send one request through a breaker (`probe`: a half-open trial); report it exactly once.
#[pyclass(module = "retryplan", name = "BreakerPermit", frozen)]
pub(crate) struct PyBreakerPermit {
    probe: bool,
    cell: GrantCell<BreakerPermit>,
}

impl PyBreakerPermit {
    fn new(permit: BreakerPermit) -> Self {
        PyBreakerPermit { probe: permit.is_probe(), cell: GrantCell::new(permit) }
    }
}

#[pymethods]
impl PyBreakerPermit {
    /// True for a half-open probe.
    #[getter]
    fn probe(&self) -> bool {
        self.probe
    }

    fn __repr__(&self) -> String {
        format!("BreakerPermit(probe={})", if self.probe { "True" } else { "False" })
    }
}

/// The core permit kept in a `BreakerPermit` argument (taken: a second use is refused).
fn permit_arg(permit: Arg) -> Res<BreakerPermit> {
    let permit = permit.ok_or_else(|| invalid("permit", "is required".to_owned()))?;
    Ok(class_arg::<PyBreakerPermit>("permit", permit)?.cell.take()?)
}

impl PyCircuitBreaker {
    fn breaker(&self) -> Res<&CircuitBreaker> {
        self.inner.get("breaker", Dependency::breaker)
    }
}

#[pymethods]
impl PyCircuitBreaker {
    #[new]
    #[pyo3(signature = (config = None, **fields))]
    fn new(config: Arg, fields: Option<&Bound<'_, PyDict>>) -> Res<Self> {
        let config = BreakerConfig::from_value(&config_value(ConfigKind::Breaker, config, fields)?)?;
        Ok(PyCircuitBreaker { inner: Source::Own(Box::new(CircuitBreaker::new(&config)?)) })
    }

    /// Asks to send a request: a BreakerPermit, or None while open.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn try_acquire(&self, now: Arg, now_ms: Arg) -> Res<Option<PyBreakerPermit>> {
        Ok(self.breaker()?.try_acquire(NOW.read(now, now_ms)?).map(PyBreakerPermit::new))
    }

    /// Reports the permitted request succeeded.
    #[pyo3(signature = (now = None, permit = None, *, now_ms = None))]
    fn on_success(&self, now: Arg, permit: Arg, now_ms: Arg) -> Res<()> {
        Ok(self.breaker()?.on_success(NOW.read(now, now_ms)?, permit_arg(permit)?)?)
    }

    /// Reports the permitted request failed.
    #[pyo3(signature = (now = None, permit = None, *, now_ms = None))]
    fn on_failure(&self, now: Arg, permit: Arg, now_ms: Arg) -> Res<()> {
        Ok(self.breaker()?.on_failure(NOW.read(now, now_ms)?, permit_arg(permit)?)?)
    }

    /// Returns a permit whose request was never sent (or whose result does not count).
    fn release(&self, permit: &Bound<'_, PyAny>) -> Res<()> {
        Ok(self.breaker()?.release(permit_arg(Some(permit))?)?)
    }

    /// Permits granted and not yet settled.
    #[getter]
    fn permits_outstanding(&self) -> Res<usize> {
        Ok(self.breaker()?.permits_outstanding())
    }

    /// The breaker's state at `now`, as a JSON-shaped dict.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn snapshot<'py>(&self, py: Python<'py>, now: Arg, now_ms: Arg) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.breaker()?.snapshot(NOW.read(now, now_ms)?))
    }
}

/// Retry slots: how many retries and hedges may run at once (a Dependency's `retry_slots`, or its own). Thread-safe.
#[pyclass(module = "retryplan", name = "RetrySlots", frozen)]
pub(crate) struct PyRetrySlots {
    inner: Source<RetrySlots>,
}

/// One slot of a RetrySlots; give it back once, with `release`. Only `try_acquire` makes one.
#[pyclass(module = "retryplan", name = "RetrySlot", frozen)]
pub(crate) struct PyRetrySlot {
    cell: GrantCell<RetrySlot>,
}

#[pymethods]
impl PyRetrySlot {
    fn __repr__(&self) -> String {
        format!("RetrySlot(settled={})", if self.cell.is_settled() { "True" } else { "False" })
    }
}

impl PyRetrySlots {
    fn slots(&self) -> Res<&RetrySlots> {
        self.inner.get("retry_slots", Dependency::retry_slots)
    }
}

#[pymethods]
impl PyRetrySlots {
    #[new]
    fn new(capacity: &Bound<'_, PyAny>) -> Res<Self> {
        Ok(PyRetrySlots { inner: Source::Own(Box::new(RetrySlots::new(u32_arg("capacity", capacity)?))) })
    }

    /// Takes a slot: a RetrySlot, or None when all are taken.
    fn try_acquire(&self) -> Res<Option<PyRetrySlot>> {
        Ok(self.slots()?.try_acquire().map(|slot| PyRetrySlot { cell: GrantCell::new(slot) }))
    }

    /// Gives a slot back (once, to the slots that granted it).
    fn release(&self, slot: &Bound<'_, PyAny>) -> Res<()> {
        Ok(self.slots()?.release(class_arg::<PyRetrySlot>("slot", slot)?.cell.take()?)?)
    }

    /// Slots in use now.
    #[getter]
    fn in_use(&self) -> Res<u32> {
        Ok(self.slots()?.in_use())
    }

    /// How many slots there are.
    #[getter]
    fn capacity(&self) -> Res<u32> {
        Ok(self.slots()?.capacity())
    }
}

/// Counters of operations, attempts, retries, endings and give-ups by reason,
/// counted inside the engine as helpers' drivers decide (pass it as `stats=`),
/// or fed decisions by hand with `record`. Thread-safe.
#[pyclass(module = "retryplan", name = "Stats", frozen)]
#[derive(Default)]
pub(crate) struct PyStats {
    pub(crate) inner: Arc<SharedStats>,
}

/// `Stats`' methods, a getter per counter of the list `stats_counters.rs` gives (generated by core/mirrors
/// from `retryplan::Stats`).
macro_rules! stats_methods {
    ($($(#[doc = $doc:literal])* $counter:ident,)*) => {
        #[pymethods]
        impl PyStats {
            #[new]
            fn new() -> Self {
                PyStats::default()
            }

            /// Counts one decision (Wait and AwaitOutcome count nothing).
            fn record(&self, decision: &Bound<'_, PyAny>) -> Res<()> {
                self.inner.record(&class_arg::<PyDecision>("decision", decision)?.inner);
                Ok(())
            }

            /// Adds another Stats' counters.
            fn merge(&self, other: &Bound<'_, PyAny>) -> Res<()> {
                self.inner.merge(&class_arg::<PyStats>("other", other)?.inner.snapshot());
                Ok(())
            }

            $($(#[doc = $doc])* #[getter] fn $counter(&self) -> u64 { self.inner.snapshot().$counter })*

            /// Give-ups by reason: a dict from GiveUpReason to count.
            #[getter]
            fn gave_up<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
                let (dict, counts) = (PyDict::new(py), self.inner.snapshot().gave_up);
                for reason in GiveUpReason::ALL {
                    dict.set_item(reason.into_field(py)?, counts.get(reason))?;
                }
                Ok(dict)
            }

            /// All give-ups.
            #[getter]
            fn gave_up_total(&self) -> u64 {
                self.inner.snapshot().gave_up.total()
            }

            /// The JSON form.
            fn to_dict<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
                serialized(py, &self.inner.snapshot())
            }

            fn __repr__(&self) -> String {
                repr_of("Stats", &self.inner.snapshot())
            }
        }
    };
}

include!("stats_counters.rs");
