//! Plans over time: a policy's worst case (`explain`), its backoff ceilings,
//! and what a queue does with a message after a delivery (`redeliver`).

use pyo3::prelude::*;
use retryplan::{Redelivery, Timeline};

use crate::args::{class_arg, u32_arg, u64_arg, FIRST_SEEN, NOW};
use crate::data::{repr_of, serialized};
use crate::decision::decision_to_py;
use crate::errors::Res;
use crate::outcome::PyOutcome;
use crate::policy::PyPolicy;

/// A policy's worst-case timeline (what `explain` computes).
#[pyclass(module = "retryplan", name = "Timeline", frozen)]
pub(crate) struct PyTimeline {
    inner: Timeline,
    /// The deadline used, in ms from the start.
    #[pyo3(get)]
    deadline_ms: u64,
    /// When the first attempt starts, in ms from the operation's start.
    #[pyo3(get)]
    first_attempt_at_ms: u64,
    /// The response reserve kept at the end, in ms.
    #[pyo3(get)]
    response_reserve_ms: u64,
    /// `max_attempts`.
    #[pyo3(get)]
    configured_attempts: u32,
    /// Attempts that start in the worst case.
    #[pyo3(get)]
    attempts_that_fit: u32,
    /// All attempts at their fixed timeout plus the longest waits, ignoring the deadline.
    #[pyo3(get)]
    unbounded_worst_case_ms: Option<u64>,
}

#[pymethods]
impl PyTimeline {
    /// Attempts and waits in order, as JSON-shaped dicts (`type` is `attempt` or `wait`).
    #[getter]
    fn steps<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner.steps)
    }

    /// How the worst case ends (a Decision).
    #[getter]
    fn ending(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        decision_to_py(py, self.inner.ending)
    }

    /// Warnings as JSON-shaped dicts.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner.warnings)
    }

    /// The warnings in words.
    #[getter]
    fn warning_messages(&self) -> Vec<String> {
        self.inner.warnings.iter().map(ToString::to_string).collect()
    }

    /// The JSON form.
    fn to_dict<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyTimeline>().is_ok_and(|other| other.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        let Timeline { deadline_ms, attempts_that_fit, configured_attempts, .. } = self.inner;
        let warnings = self.inner.warnings.len();
        format!("<Timeline deadline_ms={deadline_ms} attempts_that_fit={attempts_that_fit}/{configured_attempts} warnings={warnings}>")
    }
}

/// The worst-case timeline of `policy` against `deadline_ms` (ms from the start; None: the budget alone),
/// with the first attempt starting `first_attempt_at_ms` after the operation (0: at once).
#[pyfunction]
#[pyo3(signature = (policy, deadline_ms = None, *, first_attempt_at_ms = None))]
pub(crate) fn explain(
    policy: &Bound<'_, PyAny>,
    deadline_ms: Option<&Bound<'_, PyAny>>,
    first_attempt_at_ms: Option<&Bound<'_, PyAny>>,
) -> Res<PyTimeline> {
    let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
    let deadline_ms = deadline_ms.map(|ms| u64_arg("deadline_ms", ms)).transpose()?;
    let first = first_attempt_at_ms.map(|ms| u64_arg("first_attempt_at_ms", ms)).transpose()?.unwrap_or_default();
    let inner = retryplan::explain(policy, deadline_ms, first);
    Ok(PyTimeline {
        deadline_ms: inner.deadline_ms,
        first_attempt_at_ms: inner.first_attempt_at_ms,
        response_reserve_ms: inner.response_reserve_ms,
        configured_attempts: inner.configured_attempts,
        attempts_that_fit: inner.attempts_that_fit,
        unbounded_worst_case_ms: inner.unbounded_worst_case_ms,
        inner,
    })
}

/// The backoff ceilings of the first `retries` retries, in ms.
#[pyfunction]
pub(crate) fn backoff_ceilings_ms(policy: &Bound<'_, PyAny>, retries: &Bound<'_, PyAny>) -> Res<Vec<u64>> {
    let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
    Ok(retryplan::backoff_ceilings_ms(policy, u32_arg("retries", retries)?)?)
}

/// What to do with a queued message after one delivery: `kind` is
/// `acknowledge`, `redeliver_after` (with `delay_ms`, `redeliver_at_ms`) or
/// `dead_letter` (with `reason`).
#[pyclass(module = "retryplan", name = "Redelivery", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyRedelivery {
    inner: Redelivery,
    /// `acknowledge`, `redeliver_after` or `dead_letter`.
    #[pyo3(get)]
    kind: &'static str,
    /// The delay before the next delivery, in ms (redeliver_after only).
    #[pyo3(get)]
    delay_ms: Option<u64>,
    /// When to deliver again, in ms (redeliver_after only).
    #[pyo3(get)]
    redeliver_at_ms: Option<u64>,
}

#[pymethods]
impl PyRedelivery {
    /// Why the message goes to the dead-letter queue (dead_letter only).
    #[getter]
    fn reason<'py>(&self, py: Python<'py>) -> Res<Option<Bound<'py, PyAny>>> {
        match self.inner {
            Redelivery::DeadLetter { reason } => serialized(py, &reason).map(Some),
            Redelivery::Acknowledge | Redelivery::RedeliverAfter { .. } => Ok(None),
        }
    }

    /// The JSON form.
    fn to_dict<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        repr_of(&format!("Redelivery[{}]", self.kind), &self.inner)
    }
}

/// What happens to a queued message after delivery number `attempts` (1 for
/// the first), first seen at `first_seen` and ending with `outcome` at `now`.
#[pyfunction]
#[pyo3(signature = (policy, attempts, outcome, first_seen = None, now = None, *, first_seen_ms = None, now_ms = None))]
pub(crate) fn redeliver(
    policy: &Bound<'_, PyAny>,
    attempts: &Bound<'_, PyAny>,
    outcome: &Bound<'_, PyAny>,
    first_seen: Option<&Bound<'_, PyAny>>,
    now: Option<&Bound<'_, PyAny>>,
    first_seen_ms: Option<&Bound<'_, PyAny>>,
    now_ms: Option<&Bound<'_, PyAny>>,
) -> Res<PyRedelivery> {
    let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
    let attempts = u32_arg("attempts", attempts)?;
    let outcome = &class_arg::<PyOutcome>("outcome", outcome)?.inner;
    let (first_seen, now) = (FIRST_SEEN.read(first_seen, first_seen_ms)?, NOW.read(now, now_ms)?);
    let inner = retryplan::redeliver(policy, attempts, first_seen, now, outcome)?;
    let (kind, delay_ms, redeliver_at_ms) = match inner {
        Redelivery::Acknowledge => ("acknowledge", None, None),
        Redelivery::RedeliverAfter { delay_ms, redeliver_at_ms } => {
            ("redeliver_after", Some(delay_ms), Some(redeliver_at_ms))
        }
        Redelivery::DeadLetter { .. } => ("dead_letter", None, None),
    };
    Ok(PyRedelivery { inner, kind, delay_ms, redeliver_at_ms })
}
