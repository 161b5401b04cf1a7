//! `Operation` (one decision per event) and the options every operation and
//! driver starts with. The deadline arithmetic servers use (`remaining_ms`,
//! `admit`) is generated (`functions_generated.rs`).

use std::sync::Arc;

use pyo3::prelude::*;
use retryplan::{IdempotencyKey, Operation, OperationOptions};

use crate::args::{class_arg, given, str_arg, u32_arg, u64_arg, Arg, DEADLINE, NOW};
use crate::controls::PyDependency;
use crate::decision::{decision_to_py, IntoField};
use crate::fault::Res;
use crate::outcome::PyOutcome;
use crate::policy::PyPolicy;

/// The options of a new operation: a seed (else seed and key from the OS), a key, a deadline, a dependency.
pub(crate) fn options(
    seed: Arg,
    idempotency_key: Arg,
    (deadline, deadline_ms): (Arg, Arg),
    dependency: Arg,
) -> Res<OperationOptions> {
    let mut options = match seed {
        Some(seed) => OperationOptions::new(u64_arg("seed", seed)?),
        None => OperationOptions::from_entropy()?,
    };
    if let Some(key) = idempotency_key {
        options = options.with_idempotency_key(IdempotencyKey::new(str_arg("idempotency_key", key)?)?);
    }
    if let Some(deadline_ms) = DEADLINE.optional(deadline, deadline_ms)? {
        options = options.with_deadline_ms(deadline_ms);
    }
    if let Some(dependency) = dependency {
        options = options.with_dependency(Arc::clone(&class_arg::<PyDependency>("dependency", dependency)?.inner));
    }
    Ok(options)
}

/// The state machine of one logical operation: events in, one Decision out per call.
#[pyclass(module = "retryplan", name = "Operation")]
pub(crate) struct PyOperation {
    inner: Operation,
}

#[pymethods]
impl PyOperation {
    #[new]
    #[pyo3(signature = (policy, now = None, *, now_ms = None, seed = None, idempotency_key = None, deadline = None, deadline_ms = None, dependency = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        policy: &Bound<'_, PyAny>,
        now: Arg,
        now_ms: Arg,
        seed: Arg,
        idempotency_key: Arg,
        deadline: Arg,
        deadline_ms: Arg,
        dependency: Arg,
    ) -> Res<Self> {
        let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
        let now = NOW.read(now, now_ms)?;
        let options = options(seed, idempotency_key, (deadline, deadline_ms), dependency)?;
        Ok(PyOperation { inner: Operation::new(policy, now, options) })
    }

    /// The current decision: start an attempt, keep waiting, or await the running attempt.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn poll(&mut self, py: Python<'_>, now: Arg, now_ms: Arg) -> Res<Py<PyAny>> {
        Ok(decision_to_py(py, self.inner.poll(NOW.read(now, now_ms)?)?)?)
    }

    /// Reports how attempt `attempt` ended and returns the next decision.
    #[pyo3(signature = (now = None, attempt = None, outcome = None, *, now_ms = None))]
    fn on_outcome(&mut self, py: Python<'_>, now: Arg, attempt: Arg, outcome: Arg, now_ms: Arg) -> Res<Py<PyAny>> {
        let now = NOW.read(now, now_ms)?;
        let attempt = u32_arg("attempt", given("attempt", attempt)?)?;
        let outcome = &class_arg::<PyOutcome>("outcome", given("outcome", outcome)?)?.inner;
        Ok(decision_to_py(py, self.inner.on_outcome(now, attempt, outcome)?)?)
    }

    /// The caller abandons the operation: gives up with reason `cancelled`.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn cancel(&mut self, py: Python<'_>, now: Arg, now_ms: Arg) -> Res<Py<PyAny>> {
        Ok(decision_to_py(py, self.inner.cancel(NOW.read(now, now_ms)?)?)?)
    }

    /// When to poll next, in ms on the caller's clock; None once ended.
    fn next_wakeup_ms(&self) -> Option<u64> {
        self.inner.next_wakeup_ms()
    }

    /// Time left at `now` before the deadline, after the response reserve, in ms (saturating at 0).
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn remaining_ms(&self, now: Arg, now_ms: Arg) -> Res<u64> {
        Ok(self.inner.remaining_ms(NOW.read(now, now_ms)?))
    }

    /// Deprecated alias of `remaining_ms` for one release ("budget" names the retry budget only).
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn remaining_budget_ms(&self, py: Python<'_>, now: Arg, now_ms: Arg) -> Res<u64> {
        let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
        PyErr::warn(py, &category, c"retryplan: Operation.remaining_budget_ms is renamed Operation.remaining_ms", 1)?;
        self.remaining_ms(now, now_ms)
    }

    /// The request id attempt `attempt` gets (16 hex digits).
    fn request_id(&self, attempt: &Bound<'_, PyAny>) -> Res<String> {
        Ok(self.inner.request_id(u32_arg("attempt", attempt)?).to_string())
    }

    /// The stable idempotency key of every attempt (the operation id).
    #[getter]
    fn idempotency_key(&self) -> &str {
        self.inner.idempotency_key().as_str()
    }

    /// The deadline in ms: min(start + total_timeout_ms, the caller's deadline).
    #[getter]
    fn deadline_ms(&self) -> u64 {
        self.inner.deadline_ms()
    }

    /// When the operation started, in ms.
    #[getter]
    fn started_at_ms(&self) -> u64 {
        self.inner.started_at_ms()
    }

    /// Attempts started so far.
    #[getter]
    fn attempts_started(&self) -> u32 {
        self.inner.attempts_started()
    }

    /// The attempts running now (hedging can run several), ascending.
    #[getter]
    fn running_attempts(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.inner.running_attempts().into_field(py)
    }

    /// True once an ending was returned.
    #[getter]
    fn is_ended(&self) -> bool {
        self.inner.is_ended()
    }

    /// The policy this operation runs.
    #[getter]
    fn policy(&self) -> PyPolicy {
        PyPolicy { inner: *self.inner.policy() }
    }

    fn __repr__(&self) -> String {
        let ended = if self.inner.is_ended() { "True" } else { "False" };
        let (key, started, deadline) =
            (self.inner.idempotency_key(), self.inner.attempts_started(), self.inner.deadline_ms());
        format!("<Operation idempotency_key='{key}' attempts_started={started} deadline_ms={deadline} ended={ended}>")
    }
}
