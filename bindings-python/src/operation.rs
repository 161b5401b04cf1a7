//! `Operation` (one decision per event) and the options every operation and
//! driver starts with. The deadline arithmetic servers use (`remaining_ms`,
//! `admit`) is generated (`functions_generated.rs`).

use std::sync::Arc;

use pyo3::prelude::*;
use retryplan as rp;
use retryplan::{IdempotencyKey, OperationOptions};

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

// `Operation`'s class is generated (`engine_generated.rs`, from the definition in
// core/mirrors/src/methods/table.rs); it calls `options` above and `repr` below.
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
