//! `Settings`: what a helper was given, checked once (`retryplan._run.Config`
//! builds it), and the clock and listeners every run of that helper shares.
//! One operation of it is a `Run` (`run.rs`), which also runs the sequential
//! loop of `@retry` on a plain function (`Run.sequential`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use pyo3::{PyTraverseError, PyVisit};
use retryplan::Concurrency;

use crate::args::CLOCK;
use crate::driver::concurrency_arg;
use crate::fault::{wrong_type, Res};
use crate::policy::PyPolicy;
use crate::sources::{shared, Shared};

static LOGGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
/// `logging.Logger`, once the application has imported logging.
static LOGGER_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// What `logging.Logger.isEnabledFor(level)` answers from what it keeps, read without calling it (a Python call
/// on every operation): False when the logger is disabled, else its cached answer for `level`; None when it has
/// none yet (then the method computes and caches it). Every Python from 3.7 keeps that cache (`_cache`, cleared
/// by `setLevel` and `logging.disable`).
fn cached_is_enabled_for(logger: &Bound<'_, PyAny>, level: u32) -> PyResult<Option<bool>> {
    let py = logger.py();
    if logger.getattr(intern!(py, "disabled"))?.is_truthy()? {
        return Ok(Some(false));
    }
    let Ok(cache) = logger.getattr(intern!(py, "_cache"))?.cast_into::<PyDict>() else { return Ok(None) };
    cache.get_item(level)?.map(|enabled| enabled.is_truthy()).transpose()
}

/// True while `retryplan.testing.fake_time()` is active: the helpers without a clock of their own read
/// `FAKE_CLOCK` instead of `time.monotonic`. The default clock's one extra cost is this load.
static FAKING: AtomicBool = AtomicBool::new(false);
/// The clock of the active `fake_time()` (float seconds), while `FAKING`.
static FAKE_CLOCK: Mutex<Option<Py<PyAny>>> = Mutex::new(None);

/// The active fake clock, if any (None also when it was just taken away: then the real clock is read).
fn fake_clock(py: Python<'_>) -> Option<Py<PyAny>> {
    let clock = FAKE_CLOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    clock.as_ref().map(|clock| clock.clone_ref(py))
}

/// A run's listeners: the logger of endings, whether every decision is observed, its telemetry.
pub(crate) type Listeners = (Option<Py<PyAny>>, bool, Option<Py<PyAny>>);

/// What a helper was given, checked once (`retryplan._run.Config` builds it).
#[pyclass(module = "retryplan", frozen)]
pub(crate) struct Settings {
    pub(crate) shared: &'static Shared,
    pub(crate) config: Py<PyAny>,
    pub(crate) policy: Py<PyPolicy>,
    pub(crate) concurrency: Concurrency,
    /// A driver from the policy alone (no seed, stats or dependency).
    pub(crate) plain: bool,
    pub(crate) outcome_of_error: Option<Py<PyAny>>,
    pub(crate) outcome_of_result: Option<Py<PyAny>>,
    pub(crate) on_decision: bool,
    pub(crate) logger: Option<Py<PyAny>>,
    /// None: `time.monotonic`, read natively.
    pub(crate) clock: Option<Py<PyAny>>,
    pub(crate) dispose: Option<Py<PyAny>>,
    pub(crate) name: Py<PyAny>,
}

impl Settings {
    /// The helper's clock in ms: `time.monotonic` read natively, or the helper's own (float seconds); the fake
    /// clock of `retryplan.testing.fake_time()` instead of `time.monotonic` while it is active.
    pub(crate) fn now_ms(&self, py: Python<'_>) -> PyResult<u64> {
        match (&self.clock, FAKING.load(Ordering::Relaxed)) {
            (None, false) => Ok(self.monotonic_ns() / 1_000_000),
            (Some(clock), _) => Ok(CLOCK.read(Some(&clock.bind(py).call0()?), None)?),
            (None, true) => match fake_clock(py) {
                Some(fake) => Ok(CLOCK.read(Some(&fake.bind(py).call0()?), None)?),
                None => Ok(self.monotonic_ns() / 1_000_000),
            },
        }
    }

    /// The helper's clock in float seconds (the fake one while `fake_time()` is active, as `now_ms`).
    pub(crate) fn now(&self, py: Python<'_>) -> PyResult<f64> {
        match (&self.clock, FAKING.load(Ordering::Relaxed)) {
            (None, false) => Ok(self.monotonic_ns() as f64 / 1e9),
            (Some(clock), _) => clock.bind(py).call0()?.extract(),
            (None, true) => match fake_clock(py) {
                Some(fake) => fake.bind(py).call0()?.extract(),
                None => Ok(self.monotonic_ns() as f64 / 1e9),
            },
        }
    }

    fn monotonic_ns(&self) -> u64 {
        let (instant, reading) = self.shared.monotonic;
        reading.saturating_add(u64::try_from(instant.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// The logger (when it logs at INFO), whether every decision is observed (`on_decision`, the log
    /// at DEBUG, or OpenTelemetry listening), and the operation's telemetry when OpenTelemetry listens.
    /// Without a logger of its own, a helper logs to `retryplan` once the application has imported logging.
    /// Asked at every operation: the module names are interned (a str made per call is hashed per call).
    pub(crate) fn listeners(&self, py: Python<'_>) -> PyResult<Listeners> {
        let telemetry = self.telemetry(py)?;
        let hooked = self.on_decision || telemetry.is_some();
        let logging = self.shared.modules.bind(py).get_item(intern!(py, "logging"))?;
        let logger = match (&self.logger, &logging) {
            (Some(logger), _) => logger.bind(py).clone(),
            (None, Some(logging)) => {
                let retryplan = || logging.call_method1("getLogger", ("retryplan",)).map(Bound::unbind);
                LOGGER.get_or_try_init(py, retryplan)?.bind(py).clone()
            }
            (None, None) => return Ok((None, hooked, telemetry)),
        };
        // A logging.Logger itself (not a subclass, which may answer otherwise) is asked without a Python call.
        let plain = match &logging {
            Some(logging) => {
                let class = LOGGER_CLASS.get_or_try_init(py, || logging.getattr("Logger").map(Bound::unbind))?;
                logger.get_type().is(class.bind(py))
            }
            None => false,
        };
        let enabled = |level: u32| match plain.then(|| cached_is_enabled_for(&logger, level)).transpose()?.flatten() {
            Some(enabled) => Ok(enabled),
            None => logger.call_method1(intern!(py, "isEnabledFor"), (level,))?.is_truthy(),
        };
        if !enabled(20)? {
            return Ok((None, hooked, telemetry));
        }
        let debug = enabled(10)?;
        Ok((Some(logger.unbind()), hooked || debug, telemetry))
    }

    /// A new operation's telemetry when OpenTelemetry listens (`retryplan._run.telemetry`); asked only
    /// once the application has imported `opentelemetry` (else nobody can be listening, and nothing is
    /// imported).
    fn telemetry(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if !self.shared.modules.bind(py).contains(intern!(py, "opentelemetry"))? {
            return Ok(None);
        }
        let telemetry = self.shared.helpers.bind(py).call_method1(intern!(py, "telemetry"), (&self.name,))?;
        Ok((!telemetry.is_none()).then(|| telemetry.unbind()))
    }
}

#[pymethods]
impl Settings {
    /// What it holds, for the cycle collector: `config` (the `Config` that holds this `Settings`) and the
    /// helper's hooks, which may hold anything. Without it a helper's settings and all it was given lived for
    /// the life of the process (the `Config` <-> `Settings` cycle was invisible to the collector).
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.config)?;
        visit.call(&self.policy)?;
        visit.call(&self.name)?;
        for held in [&self.outcome_of_error, &self.outcome_of_result, &self.logger, &self.clock, &self.dispose] {
            visit.call(held.as_ref())?;
        }
        Ok(())
    }

    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        config: Py<PyAny>,
        policy: &Bound<'_, PyAny>,
        concurrency: &Bound<'_, PyAny>,
        plain: bool,
        outcome_of_error: Option<Py<PyAny>>,
        outcome_of_result: Option<Py<PyAny>>,
        on_decision: bool,
        logger: Option<Py<PyAny>>,
        clock: &Bound<'_, PyAny>,
        dispose: Option<Py<PyAny>>,
        name: Py<PyAny>,
    ) -> Res<Self> {
        let policy = policy.cast::<PyPolicy>().map_err(|_| wrong_type("policy", "a retryplan.Policy", policy))?;
        let concurrency = concurrency_arg(Some(concurrency))?;
        let monotonic = py.import("time")?.getattr("monotonic")?;
        let clock = (!clock.is(&monotonic)).then(|| clock.clone().unbind());
        let (shared, policy) = (shared(py)?, policy.clone().unbind());
        Ok(Settings {
            shared,
            config,
            policy,
            concurrency,
            plain,
            outcome_of_error,
            outcome_of_result,
            on_decision,
            logger,
            clock,
            dispose,
            name,
        })
    }

    /// Makes `clock` (float seconds) the clock of every helper without a clock of its own, until it is set to
    /// None (`retryplan.testing.fake_time()`: the fake's clock while it is active, then the one it replaced).
    #[staticmethod]
    fn fake_clock(clock: Option<Py<PyAny>>) {
        let faking = clock.is_some();
        let mut held = FAKE_CLOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let replaced = std::mem::replace(&mut *held, clock);
        FAKING.store(faking, Ordering::Relaxed);
        drop(held);
        drop(replaced); // after the lock: dropping a Python object may run its finaliser
    }

    /// Forgets the OS randomness drawn ahead (a forked child must not reuse its parent's).
    #[staticmethod]
    fn forget_entropy() {
        crate::sources::forget_entropy();
    }
}
