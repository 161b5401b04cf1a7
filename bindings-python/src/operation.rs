//! `Operation` (one decision per event), the options every operation and
//! driver starts with, and the deadline arithmetic servers use (`admit`).

use std::sync::Arc;

use pyo3::prelude::*;
use retryplan as rp;
use retryplan::{IdempotencyKey, OperationOptions};

use crate::args::{class_arg, given, ms_arg, str_arg, u32_arg, u64_arg, Arg, DEADLINE, NOW};
use crate::controls::PyDependency;
use crate::data::typed;
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

// `Operation`'s class is generated (`engine_generated.rs`, from the definition in
// core/mirrors/src/methods.rs); it calls `options` above and `repr` below.
include!("engine_generated.rs");

impl PyOperation {
    /// `<Operation idempotency_key='...' attempts_started=0 deadline_ms=... ended=False>`.
    fn repr(&self) -> String {
        let ended = if self.inner.is_ended() { "True" } else { "False" };
        let (key, started, deadline) =
            (self.inner.idempotency_key(), self.inner.attempts_started(), self.inner.deadline_ms());
        format!("<Operation idempotency_key='{key}' attempts_started={started} deadline_ms={deadline} ended={ended}>")
    }
}

/// Time left at `now` before `deadline`, minus `reserve_ms`, in ms (saturating at 0).
#[pyfunction]
#[pyo3(signature = (deadline = None, now = None, *, reserve_ms, deadline_ms = None, now_ms = None))]
pub(crate) fn remaining_ms(
    deadline: Arg,
    now: Arg,
    reserve_ms: &Bound<'_, PyAny>,
    deadline_ms: Arg,
    now_ms: Arg,
) -> Res<u64> {
    let (deadline, now) = (DEADLINE.read(deadline, deadline_ms)?, NOW.read(now, now_ms)?);
    Ok(retryplan::ground::deadline::remaining_ms(deadline, now, ms_arg("reserve_ms", reserve_ms)?))
}

/// Server-side admission: reject when what remains (after the reserve) is below the minimum useful time.
#[pyfunction]
#[pyo3(signature = (deadline = None, now = None, *, reserve_ms, minimum_useful_ms, deadline_ms = None, now_ms = None))]
pub(crate) fn admit<'py>(
    py: Python<'py>,
    deadline: Arg,
    now: Arg,
    reserve_ms: &Bound<'_, PyAny>,
    minimum_useful_ms: &Bound<'_, PyAny>,
    deadline_ms: Arg,
    now_ms: Arg,
) -> Res<Bound<'py, PyAny>> {
    let (deadline, now) = (DEADLINE.read(deadline, deadline_ms)?, NOW.read(now, now_ms)?);
    let minimum = ms_arg("minimum_useful_ms", minimum_useful_ms)?;
    let admission = retryplan::ground::deadline::admit(deadline, now, ms_arg("reserve_ms", reserve_ms)?, minimum);
    typed(py, "Admission", &admission, None)
}
