//! What a run reads from outside the engine, each found once: the Python
//! helpers it calls back, `sys.modules`, the monotonic clock (read natively)
//! and the operating system's randomness (drawn ahead for several operations).

use std::sync::Mutex;
use std::time::Instant;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use retryplan::engine::operation::EntropyPool;
use retryplan::OperationOptions;

use crate::fault::Res;

/// The Python objects the loop consults, found once.
pub(crate) struct Shared {
    /// `retryplan._failures._BY_TYPE`: the failure table's answer per exception class.
    pub(crate) known: Py<PyDict>,
    /// `retryplan._failures.outcome_of(error, policy)`, for a class not seen yet or an answer that reads the error
    /// (a response it carries, read as the operation's policy reads responses).
    pub(crate) table: Py<PyAny>,
    /// `retryplan._failures.INVALID_REQUEST`.
    pub(crate) invalid_request: Py<PyAny>,
    /// `retryplan._run`: `observed(run)`, `failure(run, ending, value, error)`.
    pub(crate) helpers: Py<PyModule>,
    /// `retryplan._run.CURRENT.set` and `.reset`, bound once: the run or attempt running in this context
    /// (a method looked up per call would be a new bound method each time).
    pub(crate) enter: Py<PyAny>,
    pub(crate) leave: Py<PyAny>,
    /// `retryplan._run.SERVED`: the request being served in this context, whose caller's deadline, key
    /// and retrying layer every helper's operation starts from, and whose answer its ending decides.
    pub(crate) served: Py<PyAny>,
    /// The type of a coroutine (`retryplan._helpers._COROUTINE`), and `_refuse_coroutine(returned, fn)`, which
    /// closes one a plain function returned under `@retry` and raises why: the sync loop would take it for a value.
    pub(crate) coroutine: Py<PyAny>,
    pub(crate) refuse_coroutine: Py<PyAny>,
    /// `sys.modules`, to see whether the application imported `logging`.
    pub(crate) modules: Py<PyDict>,
    /// An instant and `time.monotonic()` then, in ns: the same clock (CLOCK_MONOTONIC,
    /// mach_absolute_time, QueryPerformanceCounter), read from Rust from then on.
    pub(crate) monotonic: (Instant, u64),
}

static SHARED: PyOnceLock<Shared> = PyOnceLock::new();

pub(crate) fn shared(py: Python<'_>) -> PyResult<&'static Shared> {
    SHARED.get_or_try_init(py, || {
        let (failures, helpers) = (py.import("retryplan._failures")?, py.import("retryplan._run")?);
        let decorators = py.import("retryplan._helpers")?;
        let reading = py.import("time")?.getattr("monotonic")?.call0()?.extract::<f64>()?;
        Ok(Shared {
            known: failures.getattr("_BY_TYPE")?.cast_into::<PyDict>()?.unbind(),
            table: failures.getattr("outcome_of")?.unbind(),
            invalid_request: failures.getattr("INVALID_REQUEST")?.unbind(),
            enter: helpers.getattr("CURRENT")?.getattr("set")?.unbind(),
            leave: helpers.getattr("CURRENT")?.getattr("reset")?.unbind(),
            served: helpers.getattr("SERVED")?.unbind(),
            coroutine: decorators.getattr("_COROUTINE")?.unbind(),
            refuse_coroutine: decorators.getattr("_refuse_coroutine")?.unbind(),
            helpers: helpers.unbind(),
            modules: py.import("sys")?.getattr("modules")?.cast_into::<PyDict>()?.unbind(),
            monotonic: (Instant::now(), (reading * 1e9) as u64),
        })
    })
}

/// The OS randomness drawn ahead for the next operations (the core's pool: one `getrandom` call for 16 operations,
/// each still with its own bits); a forked child forgets the parent's (`Settings.forget_entropy`, registered with
/// `os.register_at_fork`).
static ENTROPY: Mutex<EntropyPool> = Mutex::new(EntropyPool::new());

/// A seed and a key for one operation, from the pool.
pub(crate) fn drawn() -> Res<OperationOptions> {
    Ok(ENTROPY.lock().unwrap_or_else(std::sync::PoisonError::into_inner).draw()?)
}

/// Forgets the OS randomness drawn ahead (a forked child must not reuse its parent's).
pub(crate) fn forget_entropy() {
    ENTROPY.lock().unwrap_or_else(std::sync::PoisonError::into_inner).forget();
}
