//! Plans over time: a policy's worst case (`explain`), its backoff ceilings,
//! and what a queue does with a message after a delivery (`redeliver`).

use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::args::{class_arg, ms_arg, u32_arg, FIRST_SEEN, NOW};
use crate::data::typed;
use crate::fault::Res;
use crate::outcome::PyOutcome;
use crate::policy::PyPolicy;

/// The worst-case timeline of `policy` against `deadline_ms` (ms from the start; None: the total timeout alone),
/// with the first attempt starting `first_attempt_at_ms` after the operation (0: at once).
#[pyfunction]
#[pyo3(signature = (policy, deadline_ms = None, *, first_attempt_at_ms = None))]
pub(crate) fn explain<'py>(
    policy: &Bound<'py, PyAny>,
    deadline_ms: Option<&Bound<'_, PyAny>>,
    first_attempt_at_ms: Option<&Bound<'_, PyAny>>,
) -> Res<Bound<'py, PyAny>> {
    let py = policy.py();
    let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
    let deadline_ms = deadline_ms.map(|ms| ms_arg("deadline_ms", ms)).transpose()?;
    let first = first_attempt_at_ms.map(|ms| ms_arg("first_attempt_at_ms", ms)).transpose()?.unwrap_or_default();
    let timeline = retryplan::explain(policy, deadline_ms, first)?;
    let messages: Vec<String> = timeline.warnings.iter().map(ToString::to_string).collect();
    let messages = PyList::new(py, messages)?.into_any();
    typed(py, "Timeline", &timeline, Some(messages))
}

/// The backoff ceilings of the first `retries` retries, in ms.
#[pyfunction]
pub(crate) fn backoff_ceilings_ms(policy: &Bound<'_, PyAny>, retries: &Bound<'_, PyAny>) -> Res<Vec<u64>> {
    let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
    Ok(retryplan::engine::backoff::backoff_ceilings_ms(policy, u32_arg("retries", retries)?)?)
}

/// What happens to a queued message after delivery number `attempts` (1 for
/// the first), first seen at `first_seen` and ending with `outcome` at `now`.
#[pyfunction]
#[pyo3(signature = (policy, attempts, outcome, first_seen = None, now = None, *, first_seen_ms = None, now_ms = None))]
pub(crate) fn redeliver<'py>(
    policy: &Bound<'py, PyAny>,
    attempts: &Bound<'_, PyAny>,
    outcome: &Bound<'_, PyAny>,
    first_seen: Option<&Bound<'_, PyAny>>,
    now: Option<&Bound<'_, PyAny>>,
    first_seen_ms: Option<&Bound<'_, PyAny>>,
    now_ms: Option<&Bound<'_, PyAny>>,
) -> Res<Bound<'py, PyAny>> {
    let py = policy.py();
    let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
    let attempts = u32_arg("attempts", attempts)?;
    let outcome = &class_arg::<PyOutcome>("outcome", outcome)?.inner;
    let (first_seen, now) = (FIRST_SEEN.read(first_seen, first_seen_ms)?, NOW.read(now, now_ms)?);
    typed(
        py,
        "Redelivery",
        &retryplan::engine::redelivery::redeliver(policy, attempts, first_seen, now, outcome)?,
        None,
    )
}
