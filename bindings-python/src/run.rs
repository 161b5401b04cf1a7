//! `Run`: one operation as every helper runs it, and the one sequential host
//! loop, here so that an attempt costs no Python-level bookkeeping.
//!
//! `Settings` is what a helper was given (built once by `retryplan._run.Config`);
//! `Run` is one operation over a `Driver` with the value or error of its
//! latest accepted result. `Run.call` is the sequential loop of `@retry` on a
//! plain function and of the sync HTTP helpers: it calls the attempt, maps
//! what it raised (the failure table's answer for its class, else the
//! `outcome_of_error` hook, else `not_retryable`), reads the clock (the
//! default `time.monotonic` without a Python call) and hands the result to
//! the driver, sleeping as the driver says. `Attempts` and `Attempt` step the
//! same loop for `attempts()` and `async_attempts()`; the asyncio loop of the
//! concurrent helpers (`retryplan._async`) reports through `Run.report`.
//! Observing (the `on_decision` hook, the log) and the typed endings stay in
//! `retryplan._run`: they run only when someone listens, or at a failure.

use std::sync::Mutex;
use std::time::Instant;

use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use retryplan::{Action, AttemptPlan, Concurrency, Ending, Error, OperationOptions, Outcome, Receipt, Verdict};

use crate::args::NOW;
use crate::driver::{action_to_py, plan_arg, PyDriver};
use crate::errors::{wrong_type, Fault, Res};
use crate::outcome::PyOutcome;
use crate::policy::PyPolicy;

/// The Python objects the loop consults, found once.
struct Shared {
    /// `retryplan._failures._BY_TYPE`: the failure table's answer per exception class.
    known: Py<PyDict>,
    /// `retryplan._failures.outcome_of`, for a class not seen yet or an answer that reads the error.
    table: Py<PyAny>,
    /// `retryplan._failures.INVALID_REQUEST`.
    invalid_request: Py<PyAny>,
    /// `retryplan._run`: `observed(run)`, `failure(run, ending, value, error)`.
    helpers: Py<PyModule>,
    /// `retryplan._run.CURRENT`: the run or attempt running in this context.
    current: Py<PyAny>,
    /// `sys.modules`, to see whether the application imported `logging`.
    modules: Py<PyDict>,
    /// An instant and `time.monotonic()` then, in ns: the same clock (CLOCK_MONOTONIC,
    /// mach_absolute_time, QueryPerformanceCounter), read from Rust from then on.
    monotonic: (Instant, u64),
}

static SHARED: PyOnceLock<Shared> = PyOnceLock::new();
static LOGGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn shared(py: Python<'_>) -> PyResult<&'static Shared> {
    SHARED.get_or_try_init(py, || {
        let (failures, helpers) = (py.import("retryplan._failures")?, py.import("retryplan._run")?);
        let reading = py.import("time")?.getattr("monotonic")?.call0()?.extract::<f64>()?;
        Ok(Shared {
            known: failures.getattr("_BY_TYPE")?.cast_into::<PyDict>()?.unbind(),
            table: failures.getattr("outcome_of")?.unbind(),
            invalid_request: failures.getattr("INVALID_REQUEST")?.unbind(),
            current: helpers.getattr("CURRENT")?.unbind(),
            helpers: helpers.unbind(),
            modules: py.import("sys")?.getattr("modules")?.cast_into::<PyDict>()?.unbind(),
            monotonic: (Instant::now(), (reading * 1e9) as u64),
        })
    })
}

/// OS randomness for 16 operations at a time: one `getrandom` call instead of 16 (each a system
/// call of ~1 us on a VM). Every operation still gets its own 24 bytes from the OS; a forked child
/// forgets the parent's (`Settings.forget_entropy`, registered with `os.register_at_fork`).
struct Entropy {
    bytes: [u8; 24 * 16],
    used: usize,
}

static ENTROPY: Mutex<Entropy> = Mutex::new(Entropy { bytes: [0; 24 * 16], used: 24 * 16 });

/// A seed and a key for one operation, from the pool.
fn drawn() -> Res<OperationOptions> {
    let mut pool = ENTROPY.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if pool.used >= pool.bytes.len() {
        let unavailable = |error: getrandom::Error| Error::EntropyUnavailable { message: error.to_string() };
        getrandom::fill(&mut pool.bytes).map_err(unavailable)?;
        pool.used = 0;
    }
    let mut draw = [0u8; 24];
    if let Some(bytes) = pool.bytes.get(pool.used..pool.used + 24) {
        draw.copy_from_slice(bytes);
    }
    pool.used += 24;
    let (seed, key) = draw.split_at(8);
    let seed = u64::from_le_bytes(seed.try_into().unwrap_or_default());
    Ok(OperationOptions::from_random(seed, u128::from_le_bytes(key.try_into().unwrap_or_default())))
}

/// What a helper was given, checked once (`retryplan._run.Config` builds it).
#[pyclass(module = "retryplan", frozen)]
pub(crate) struct Settings {
    shared: &'static Shared,
    config: Py<PyAny>,
    policy: Py<PyPolicy>,
    concurrency: Concurrency,
    /// A driver from the policy alone (no seed, stats or dependency).
    plain: bool,
    outcome_of_error: Option<Py<PyAny>>,
    outcome_of_result: Option<Py<PyAny>>,
    on_decision: bool,
    logger: Option<Py<PyAny>>,
    /// None: `time.monotonic`, read natively.
    clock: Option<Py<PyAny>>,
    dispose: Option<Py<PyAny>>,
    name: Py<PyAny>,
}

impl Settings {
    /// The helper's clock in ms: `time.monotonic` read natively, or the helper's own (float seconds).
    fn now_ms(&self, py: Python<'_>) -> PyResult<u64> {
        match &self.clock {
            None => Ok(self.monotonic_ns() / 1_000_000),
            Some(clock) => Ok(NOW.read(Some(&clock.bind(py).call0()?), None)?),
        }
    }

    /// The helper's clock in float seconds.
    fn now(&self, py: Python<'_>) -> PyResult<f64> {
        match &self.clock {
            None => Ok(self.monotonic_ns() as f64 / 1e9),
            Some(clock) => clock.bind(py).call0()?.extract(),
        }
    }

    fn monotonic_ns(&self) -> u64 {
        let (instant, reading) = self.shared.monotonic;
        reading.saturating_add(u64::try_from(instant.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// The logger (when it logs at INFO) and whether every decision is observed: `on_decision`, or
    /// the log at DEBUG. Without a logger of its own, a helper logs to `retryplan` once the
    /// application has imported logging.
    fn listeners(&self, py: Python<'_>) -> PyResult<(Option<Py<PyAny>>, bool)> {
        let logger = match (&self.logger, self.shared.modules.bind(py).get_item("logging")?) {
            (Some(logger), _) => logger.bind(py).clone(),
            (None, Some(logging)) => {
                let retryplan = || logging.call_method1("getLogger", ("retryplan",)).map(Bound::unbind);
                LOGGER.get_or_try_init(py, retryplan)?.bind(py).clone()
            }
            (None, None) => return Ok((None, self.on_decision)),
        };
        let enabled = |level: u32| logger.call_method1(intern!(py, "isEnabledFor"), (level,))?.is_truthy();
        if !enabled(20)? {
            return Ok((None, self.on_decision));
        }
        let debug = enabled(10)?;
        Ok((Some(logger.unbind()), self.on_decision || debug))
    }
}

#[pymethods]
impl Settings {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        config: Py<PyAny>,
        policy: &Bound<'_, PyAny>,
        concurrency: &str,
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
        let concurrency = match concurrency {
            "sequential" => Concurrency::Sequential,
            "sequential_without_hedging" => Concurrency::SequentialWithoutHedging,
            _ => Concurrency::Concurrent,
        };
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

    /// One operation, each attempt `attempt(*args, **kwargs)`: its value, or raises the typed ending
    /// (the hot path of `@retry` on a plain function; `current_attempt()` works inside).
    fn call(
        slf: &Bound<'_, Self>,
        attempt: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        sleep: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let run = Bound::new(py, Run::new(slf, None)?)?;
        let current = slf.get().shared.current.bind(py);
        let token = current.call_method1(intern!(py, "set"), (&run,))?;
        let ending = Ctx::of(&run).run_sequential(attempt, args, kwargs, sleep);
        current.call_method1(intern!(py, "reset"), (token,))?;
        Ctx::of(&run).end(ending?)
    }

    /// Forgets the OS randomness drawn ahead (a forked child must not reuse its parent's).
    #[staticmethod]
    fn forget_entropy() {
        let mut pool = ENTROPY.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        pool.used = pool.bytes.len();
    }
}

/// One operation: its driver, and the value or error of its latest accepted result.
#[pyclass(module = "retryplan")]
pub(crate) struct Run {
    settings: Py<Settings>,
    /// The core's driver of this operation.
    #[pyo3(get)]
    driver: Py<PyDriver>,
    /// The logger, when it logs endings (INFO), else None.
    #[pyo3(get)]
    log: Option<Py<PyAny>>,
    /// True when every decision is observed (`on_decision`, or the log at DEBUG): events are recorded.
    #[pyo3(get)]
    observe: bool,
    /// The operation's name in logs and messages.
    #[pyo3(get, set)]
    name: Py<PyAny>,
    /// What a returned value means (the helper's `outcome_of_result`; an HTTP helper's reading).
    #[pyo3(get, set)]
    read: Option<Py<PyAny>>,
    /// The attempt running (sequential helpers).
    plan: Option<AttemptPlan>,
    /// The latest result: its attempt, value, error and outcome.
    settled: Option<AttemptPlan>,
    value: Option<Py<PyAny>>,
    error: Option<Py<PyAny>>,
    outcome: Option<Outcome>,
    /// The action that followed the last attempt of an attempt loop.
    pending: Option<Action>,
}

impl Run {
    fn new(settings: &Bound<'_, Settings>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Run> {
        let (py, s) = (settings.py(), settings.get());
        let (log, observe) = s.listeners(py)?;
        let now = s.now_ms(py)?;
        let driver = match options.filter(|options| !options.is_empty()) {
            None if s.plain && !observe => Py::new(py, PyDriver::with(s.policy.get(), now, s.concurrency, drawn()?)?)?,
            options => {
                let kwargs = PyDict::new(py);
                for (key, value) in options.iter().flat_map(|options| options.iter()) {
                    if !value.is_none() {
                        kwargs.set_item(key, value)?;
                    }
                }
                let policy = kwargs.get_item("policy")?.unwrap_or_else(|| s.policy.bind(py).clone().into_any());
                kwargs.del_item("policy").ok();
                for key in ["seed", "stats", "dependency"] {
                    let value = s.config.bind(py).getattr(key)?;
                    if !value.is_none() && !kwargs.contains(key)? {
                        kwargs.set_item(key, value)?;
                    }
                }
                kwargs.set_item("now_ms", now)?;
                kwargs.set_item("record_events", observe)?;
                let concurrency = match s.concurrency {
                    Concurrency::Concurrent => "concurrent",
                    Concurrency::Sequential => "sequential",
                    Concurrency::SequentialWithoutHedging => "sequential_without_hedging",
                };
                let driver = py.get_type::<PyDriver>().call((policy, py.None(), concurrency), Some(&kwargs))?;
                driver.cast_into::<PyDriver>()?.unbind()
            }
        };
        let (name, read) = (s.name.clone_ref(py), s.outcome_of_result.as_ref().map(|read| read.clone_ref(py)));
        let settings = settings.clone().unbind();
        let (plan, settled, value, error, outcome, pending) = (None, None, None, None, None, None);
        Ok(Run { settings, driver, log, observe, name, read, plan, settled, value, error, outcome, pending })
    }
}

/// A run with what its loop reads at every step, taken once.
struct Ctx<'a, 'py> {
    run: &'a Bound<'py, Run>,
    py: Python<'py>,
    settings: Bound<'py, Settings>,
    driver: Bound<'py, PyDriver>,
    observe: bool,
}

fn core_error(error: Error) -> PyErr {
    PyErr::from(Fault::from(error))
}

fn not_retryable() -> Outcome {
    Outcome::Application { verdict: Verdict::NotRetryable }
}

/// What a hook returned: an Outcome, or None for `default`.
fn outcome_arg(obj: &Bound<'_, PyAny>, default: Outcome) -> PyResult<Outcome> {
    match obj.cast::<PyOutcome>() {
        Ok(outcome) => Ok(outcome.get().inner),
        Err(_) if obj.is_none() => Ok(default),
        Err(_) => Err(PyErr::from(wrong_type("outcome", "a retryplan.Outcome", obj))),
    }
}

/// One move of the sequential loop: an action to carry out (a start, the ending), or seconds to sleep.
enum Step {
    Act(Action),
    Sleep(f64),
}

impl<'a, 'py> Ctx<'a, 'py> {
    fn of(run: &'a Bound<'py, Run>) -> Ctx<'a, 'py> {
        let py = run.py();
        let this = run.borrow();
        let (settings, driver) = (this.settings.bind(py).clone(), this.driver.bind(py).clone());
        Ctx { run, py, settings, driver, observe: this.observe }
    }

    fn s(&self) -> &Settings {
        self.settings.get()
    }

    /// Nothing to dispose of, nobody to tell: a result and the next action in one step.
    fn fast(&self) -> bool {
        self.s().dispose.is_none() && !self.observe
    }

    fn observed(&self) -> PyResult<()> {
        if self.observe {
            self.s().shared.helpers.bind(self.py).call_method1(intern!(self.py, "observed"), (self.run,))?;
        }
        Ok(())
    }

    /// The next action from the driver.
    fn poll(&self) -> PyResult<Action> {
        let now = self.s().now_ms(self.py)?;
        let action = self.driver.borrow_mut().inner.poll_action(now);
        self.observed()?;
        Ok(action)
    }

    fn cancel(&self) -> PyResult<()> {
        let now = self.s().now_ms(self.py)?;
        self.driver.borrow_mut().inner.handle_cancel(now);
        self.observed()
    }

    fn dispose(&self, value: Option<Py<PyAny>>) -> PyResult<()> {
        match (&self.s().dispose, value) {
            (Some(dispose), Some(value)) if !value.is_none(self.py) => dispose.bind(self.py).call1((value,)).map(drop),
            _ => Ok(()),
        }
    }

    /// Hands in how `plan`'s attempt ended; true when accepted. A value no longer needed is disposed of.
    fn report(
        &self,
        plan: AttemptPlan,
        outcome: Outcome,
        value: Option<Py<PyAny>>,
        error: Option<Py<PyAny>>,
    ) -> PyResult<bool> {
        let now = self.s().now_ms(self.py)?;
        self.report_at(now, plan, outcome, value, error)
    }

    fn report_at(
        &self,
        now: u64,
        plan: AttemptPlan,
        outcome: Outcome,
        value: Option<Py<PyAny>>,
        error: Option<Py<PyAny>>,
    ) -> PyResult<bool> {
        let receipt = self.driver.borrow_mut().inner.handle_result(now, plan.attempt, outcome).map_err(core_error)?;
        self.observed()?;
        if receipt == Receipt::Discarded {
            self.dispose(value)?;
            return Ok(false);
        }
        let replaced = {
            let mut run = self.run.borrow_mut();
            let replaced = run.value.take();
            (run.settled, run.value, run.error, run.outcome) = (Some(plan), value, error, Some(outcome));
            replaced
        };
        self.dispose(replaced)?;
        Ok(true)
    }

    /// Hands in how `plan`'s attempt ended at `now` and returns the next action (the sequential helpers).
    fn reported(
        &self,
        now: u64,
        plan: AttemptPlan,
        outcome: Outcome,
        value: Option<Py<PyAny>>,
        error: Option<Py<PyAny>>,
    ) -> PyResult<Action> {
        if !self.fast() {
            self.report_at(now, plan, outcome, value, error)?;
            return self.poll();
        }
        // A late result is dropped by the driver; `failure` tells whether this one decided.
        let mut run = self.run.borrow_mut();
        (run.settled, run.value, run.error, run.outcome) = (Some(plan), value, error, Some(outcome));
        drop(run);
        let mut driver = self.driver.borrow_mut();
        driver.inner.handle_result(now, plan.attempt, outcome).map_err(core_error)?;
        Ok(driver.inner.poll_action(now))
    }

    /// What an attempt's error means: the failure table, else the hook, else `not_retryable`. An invalid
    /// request (a bad URL or header) ends the operation and is raised again unchanged.
    fn outcome_of(&self, error: &Bound<'py, PyAny>) -> PyResult<Outcome> {
        let (py, shared) = (self.py, self.s().shared);
        let meaning = match shared.known.bind(py).get_item(error.get_type())? {
            Some(known) if known.is_none() || known.is_instance_of::<PyOutcome>() => known,
            _ => shared.table.bind(py).call1((error,))?, // a class not seen yet, or an answer that reads the error
        };
        if let Ok(outcome) = meaning.cast::<PyOutcome>() {
            return Ok(outcome.get().inner);
        }
        if meaning.is(shared.invalid_request.bind(py)) {
            self.cancel()?;
            return Err(PyErr::from_value(error.clone()));
        }
        match &self.s().outcome_of_error {
            Some(hook) => outcome_arg(&hook.bind(py).call1((error,))?, not_retryable()),
            None => Ok(not_retryable()),
        }
    }

    /// What a returned value means: success, unless the run's `read` says otherwise.
    fn outcome_of_value(&self, value: &Bound<'py, PyAny>) -> PyResult<Outcome> {
        let read = self.run.borrow().read.as_ref().map(|read| read.clone_ref(self.py));
        match read {
            None => Ok(Outcome::Success),
            Some(read) => outcome_arg(&read.bind(self.py).call1((value,))?, Outcome::Success),
        }
    }

    /// One move from `action` (else a new poll): an attempt to run, the ending, or the seconds to sleep.
    fn step(&self, mut action: Option<Action>) -> PyResult<Step> {
        loop {
            match action.take().map_or_else(|| self.poll(), Ok)? {
                Action::Sleep { until_ms } => {
                    return Ok(Step::Sleep(until_ms as f64 / 1000.0 - self.s().now(self.py)?))
                }
                // One attempt at a time: an aborted one has returned already (late, and discarded).
                Action::AbortAttempt { .. } => {}
                next => return Ok(Step::Act(next)),
            }
        }
    }

    /// The next attempt to run, sleeping (cancellably) as the driver says; or the ending.
    fn next_plan(&self, sleep: &Bound<'py, PyAny>, action: Option<Action>) -> PyResult<Action> {
        let mut next = self.step(action)?;
        loop {
            match next {
                Step::Act(action) => return Ok(action),
                Step::Sleep(seconds) if seconds > 0.0 => {
                    if let Err(error) = sleep.call1((seconds,)) {
                        self.cancel()?;
                        return Err(error);
                    }
                }
                Step::Sleep(_) => {}
            }
            next = self.step(None)?;
        }
    }

    /// `plan` starts: the attempt running. With nothing to dispose of and nobody observing, the latest
    /// result is dropped now: a newer attempt's result or timeout decides from here on.
    fn start(&self, plan: AttemptPlan, fast: bool) {
        let mut run = self.run.borrow_mut();
        run.plan = Some(plan);
        if fast {
            (run.value, run.error) = (None, None);
        }
    }

    /// Runs the operation one blocking attempt at a time; returns the ending.
    fn run_sequential(
        &self,
        attempt: &Bound<'py, PyAny>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
        sleep: &Bound<'py, PyAny>,
    ) -> PyResult<Ending> {
        let (py, fast) = (self.py, self.fast());
        let mut action = self.poll()?;
        loop {
            if !matches!(action, Action::StartAttempt(_)) {
                action = self.next_plan(sleep, Some(action))?;
            }
            let plan = match action {
                Action::StartAttempt(plan) => plan,
                Action::Finish(ending) => return Ok(ending),
                _ => continue,
            };
            self.start(plan, fast);
            let (now, outcome, value, error) = match attempt.call(args, kwargs) {
                Ok(value) => (self.s().now_ms(py)?, self.outcome_of_value(&value)?, Some(value.unbind()), None),
                Err(error) if error.is_instance_of::<PyException>(py) => {
                    let now = self.s().now_ms(py)?;
                    let error = error.into_value(py).into_bound(py).into_any();
                    (now, self.outcome_of(&error)?, None, Some(error.unbind()))
                }
                Err(interrupted) => {
                    self.cancel()?; // KeyboardInterrupt, SystemExit: the caller gave up
                    return Err(interrupted);
                }
            };
            action = self.reported(now, plan, outcome, value, error)?;
        }
    }

    /// The winner's value, or raises the typed ending (GaveUpError, ReconcileRequired, RestartRequired).
    fn end(&self, ending: Ending) -> PyResult<Py<PyAny>> {
        let (value, error) = {
            let mut run = self.run.borrow_mut();
            (run.value.take(), run.error.take()) // handed over once: nothing stays alive through this run
        };
        if matches!(ending.decision, retryplan::Decision::Succeeded { .. }) {
            return Ok(value.unwrap_or_else(|| self.py.None()));
        }
        Err(self.failure(ending, value, error)?)
    }

    /// The typed ending; `value` and `error` count only when they came from the deciding attempt.
    fn failure(&self, ending: Ending, value: Option<Py<PyAny>>, error: Option<Py<PyAny>>) -> PyResult<PyErr> {
        let deciding = {
            let run = self.run.borrow();
            let settled = run.settled.zip(run.outcome).map(|(plan, outcome)| (plan.attempt, outcome));
            settled.is_some() && ending.last_result.map(|last| (last.attempt, last.outcome)) == settled
        };
        let (value, error) = if deciding { (value, error) } else { (None, None) };
        let (py, ending) = (self.py, action_to_py(self.py, Action::Finish(ending))?);
        let helpers = self.s().shared.helpers.bind(py);
        Ok(PyErr::from_value(helpers.call_method1(intern!(py, "failure"), (self.run, ending, value, error))?))
    }
}

fn plan_to_py(py: Python<'_>, plan: Option<AttemptPlan>) -> PyResult<Option<Py<PyAny>>> {
    plan.map(|plan| action_to_py(py, Action::StartAttempt(plan))).transpose()
}

#[pymethods]
impl Run {
    /// A new operation of `settings` (`options`: `idempotency_key`, `deadline`, `method`, `idempotent`,
    /// `policy`, ...; None values are left out).
    #[new]
    #[pyo3(signature = (settings, options = None))]
    fn py_new(settings: &Bound<'_, Settings>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Run> {
        Run::new(settings, options)
    }

    /// The helper's `Config` (its hooks).
    #[getter]
    fn config(&self, py: Python<'_>) -> Py<PyAny> {
        self.settings.get().config.clone_ref(py)
    }

    /// The attempt running (sequential helpers), or None.
    #[getter]
    fn plan(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        plan_to_py(py, self.plan)
    }

    /// The attempt of the latest result (accepted, unless late), or None.
    #[getter]
    fn settled(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        plan_to_py(py, self.settled)
    }

    /// The helper's clock, in float seconds.
    fn clock(&self, py: Python<'_>) -> PyResult<f64> {
        self.settings.get().now(py)
    }

    /// Disposes of a value no longer needed (a response: closed), when the helper disposes of values.
    fn dispose(slf: &Bound<'_, Self>, value: Py<PyAny>) -> PyResult<()> {
        Ctx::of(slf).dispose(Some(value))
    }

    /// The next action (observed when someone listens).
    fn poll(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        action_to_py(slf.py(), Ctx::of(slf).poll()?)
    }

    /// Hands in how `plan`'s attempt ended: it raised `error` (the failure table, the hook, `not_retryable`;
    /// an invalid request ends the operation and is raised again), else returned `value` (read as the
    /// helper says). True when accepted; a value no longer needed is disposed of.
    #[pyo3(signature = (plan, value, error = None))]
    fn settle(
        slf: &Bound<'_, Self>,
        plan: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        error: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let (ctx, plan) = (Ctx::of(slf), plan_arg(plan)?);
        match error {
            Some(error) => ctx.report(plan, ctx.outcome_of(error)?, None, Some(error.clone().unbind())),
            None => ctx.report(plan, ctx.outcome_of_value(value)?, Some(value.clone().unbind()), None),
        }
    }

    /// The caller gave up on the operation (a cancelled task, a KeyboardInterrupt): it ends `cancelled`.
    fn cancel(slf: &Bound<'_, Self>) -> PyResult<()> {
        Ctx::of(slf).cancel()
    }

    /// Runs the operation one blocking attempt at a time (`attempt(*args, **kwargs)`); returns the Ending.
    fn call(
        slf: &Bound<'_, Self>,
        attempt: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        sleep: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let ending = Ctx::of(slf).run_sequential(attempt, args, kwargs, sleep)?;
        action_to_py(slf.py(), Action::Finish(ending))
    }

    /// The winner's value, or raises the typed ending.
    fn end(slf: &Bound<'_, Self>, ending: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Ctx::of(slf).end(ending_arg(ending)?)
    }

    /// The value and error of the latest accepted result, handed over once.
    fn deciding(&mut self, py: Python<'_>) -> (Py<PyAny>, Py<PyAny>) {
        let none = || py.None();
        (self.value.take().unwrap_or_else(none), self.error.take().unwrap_or_else(none))
    }

    /// The typed ending; `value` and `error` count only when they came from the deciding attempt.
    #[pyo3(signature = (ending, value = None, error = None))]
    fn failure(
        slf: &Bound<'_, Self>,
        ending: &Bound<'_, PyAny>,
        value: Option<Py<PyAny>>,
        error: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let error = Ctx::of(slf).failure(ending_arg(ending)?, value, error)?;
        Ok(error.into_value(slf.py()).into_any())
    }

    /// The attempt running now, for `current_attempt()` (None between attempts).
    fn current(slf: &Bound<'_, Self>) -> PyResult<Option<Py<Attempt>>> {
        let plan = slf.borrow().plan;
        plan.map(|plan| Py::new(slf.py(), Attempt::of(slf, plan, false))).transpose()
    }
}

fn ending_arg(ending: &Bound<'_, PyAny>) -> PyResult<Ending> {
    match crate::driver::action_arg(ending) {
        Some(Action::Finish(ending)) => Ok(ending),
        _ => Err(PyErr::from(wrong_type("ending", "a retryplan.Ending", ending))),
    }
}

/// One attempt the driver started: its number, timeout and ids.
///
/// As a context manager (`with attempt:` in `attempts()`, `async with` in `async_attempts()`): leaving
/// the block reports success unless `report` was called; an exception is reported through the failure
/// table and the `outcome_of_error` hook and suppressed (the loop then retries, or raises the typed
/// ending); an invalid request, a `KeyboardInterrupt` or a cancellation ends the operation and propagates.
#[pyclass(module = "retryplan", subclass)]
pub(crate) struct Attempt {
    inner: AttemptPlan,
    run: Py<Run>,
    /// An attempt loop's attempt (it reports itself); false under `@retry` (the call reports).
    in_loop: bool,
    reported: bool,
    /// The timer of `async with attempt:` (`retryplan._async`).
    #[pyo3(get, set)]
    timer: Option<Py<PyAny>>,
}

impl Attempt {
    fn of(run: &Bound<'_, Run>, inner: AttemptPlan, in_loop: bool) -> Attempt {
        Attempt { inner, run: run.clone().unbind(), in_loop, reported: false, timer: None }
    }

    /// Marks the attempt reported, or says why it cannot report.
    fn reporting<'py>(slf: &Bound<'py, Self>) -> PyResult<(AttemptPlan, Bound<'py, Run>)> {
        let mut attempt = slf.borrow_mut();
        if !attempt.in_loop {
            return Err(PyRuntimeError::new_err("under @retry an attempt reports itself: return a value or raise"));
        }
        if attempt.reported {
            return Err(PyRuntimeError::new_err(format!("attempt {} was already reported", attempt.inner.attempt)));
        }
        attempt.reported = true;
        Ok((attempt.inner, attempt.run.bind(slf.py()).clone()))
    }
}

fn idempotency_key(py: Python<'_>, run: &Py<Run>) -> String {
    let driver = run.borrow(py).driver.clone_ref(py);
    let key = driver.borrow(py).inner.idempotency_key().as_str().to_owned();
    key
}

#[pymethods]
impl Attempt {
    /// An attempt of `run` (the tasks of the concurrent helpers: for `current_attempt()`).
    #[new]
    fn new(plan: &Bound<'_, PyAny>, run: &Bound<'_, Run>) -> PyResult<Attempt> {
        Ok(Attempt::of(run, plan_arg(plan)?, false))
    }

    /// The attempt number, 1 for the first.
    #[getter]
    fn number(&self) -> u32 {
        self.inner.attempt
    }

    /// The effective timeout in seconds (`plan.timeout_ms / 1000`).
    #[getter]
    fn timeout(&self) -> f64 {
        self.inner.timeout_ms as f64 / 1000.0
    }

    /// When the driver counts this attempt as timed out, on the helper's clock (seconds).
    #[getter]
    fn abort_at(&self) -> f64 {
        self.inner.abort_at_ms as f64 / 1000.0
    }

    /// Seconds left before this attempt times out (never negative).
    fn remaining(&self, py: Python<'_>) -> PyResult<f64> {
        Ok((self.abort_at() - self.run.borrow(py).clock(py)?).max(0.0))
    }

    /// A fresh id for this attempt's request (send it as `X-Request-Id`).
    #[getter]
    fn request_id(&self) -> String {
        self.inner.request_id.to_string()
    }

    /// The operation's stable idempotency key (the same on every attempt).
    #[getter]
    fn idempotency_key(&self, py: Python<'_>) -> String {
        idempotency_key(py, &self.run)
    }

    /// True when this attempt's request should carry the idempotency key.
    #[getter]
    fn send_idempotency_key(&self) -> bool {
        self.inner.send_idempotency_key
    }

    /// The driver's plan of this attempt.
    #[getter]
    fn plan(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        action_to_py(py, Action::StartAttempt(self.inner))
    }

    /// Reports this attempt's outcome; True when the driver accepted it (False: it was late).
    #[pyo3(signature = (outcome, *, result = None, exception = None))]
    fn report(
        slf: &Bound<'_, Self>,
        outcome: &Bound<'_, PyAny>,
        result: Option<Py<PyAny>>,
        exception: Option<Py<PyAny>>,
    ) -> PyResult<bool> {
        let outcome = outcome_arg(outcome, Outcome::Success)?;
        let (plan, run) = Attempt::reporting(slf)?;
        let ctx = Ctx::of(&run);
        let accepted = ctx.report(plan, outcome, result, exception)?;
        run.borrow_mut().pending = Some(ctx.poll()?);
        Ok(accepted)
    }

    /// True once the attempt reported its outcome (a block left, `report`, or cut at its abort time).
    #[getter]
    fn reported(&self) -> bool {
        self.reported
    }

    /// Marks the attempt reported: cut at its abort time, the driver counts it timed out itself.
    fn cut(&mut self) {
        self.reported = true;
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        slf: &Bound<'_, Self>,
        _exc_type: &Bound<'_, PyAny>,
        exc: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        if slf.borrow().reported {
            return Ok(false);
        }
        let (plan, run) = Attempt::reporting(slf)?;
        let ctx = Ctx::of(&run);
        if !exc.is_none() && !exc.is_instance_of::<PyException>() {
            ctx.cancel()?; // KeyboardInterrupt, a cancelled task: the caller gave up
            return Ok(false);
        }
        let now = ctx.s().now_ms(slf.py())?;
        let pending = match exc.is_none() {
            true => ctx.reported(now, plan, Outcome::Success, None, None)?,
            false => ctx.reported(now, plan, ctx.outcome_of(exc)?, None, Some(exc.clone().unbind()))?,
        };
        run.borrow_mut().pending = Some(pending);
        Ok(!exc.is_none()) // an error is suppressed: the loop goes on (another attempt, or the typed ending)
    }

    fn __aenter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("retryplan._async")?.call_method1("enter", (slf,))
    }

    fn __aexit__<'py>(
        slf: &Bound<'py, Self>,
        exc_type: &Bound<'py, PyAny>,
        exc: &Bound<'py, PyAny>,
        traceback: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("retryplan._async")?.call_method1("leave", (slf, exc_type, exc, traceback))
    }

    fn __repr__(&self) -> String {
        let (number, timeout, id) = (self.inner.attempt, self.timeout(), self.inner.request_id);
        format!("<Attempt {number} timeout={timeout:?}s request_id={id}>")
    }
}

/// The attempt loop: `for attempt in attempts(policy): with attempt: ...` (and, stepped from asyncio,
/// `async_attempts()`). Each iteration is one attempt the driver started; between attempts the loop sleeps
/// as the driver says. The loop ends after a success and raises the typed ending otherwise.
#[pyclass(module = "retryplan", subclass)]
pub(crate) struct Attempts {
    run: Py<Run>,
    sleep: Py<PyAny>,
    attempt: Option<Py<Attempt>>,
}

impl Attempts {
    /// The action after the last attempt's result, once the attempt has reported (else misuse).
    fn resume(&mut self, py: Python<'_>) -> PyResult<Option<Action>> {
        if let Some(attempt) = &self.attempt {
            let attempt = attempt.borrow(py);
            if !attempt.reported {
                let number = attempt.inner.attempt;
                let message =
                    format!("attempt {number} ended without an outcome: use `with attempt:` or attempt.report(...)");
                return Err(PyRuntimeError::new_err(message));
            }
        }
        Ok(self.run.borrow_mut(py).pending.take())
    }

    /// The attempt for a planned step, or None at a successful ending (any other ending is raised).
    fn next(&mut self, py: Python<'_>, action: Action) -> PyResult<Option<Py<Attempt>>> {
        let run = self.run.bind(py);
        self.attempt = None;
        match action {
            Action::StartAttempt(plan) => {
                let ctx = Ctx::of(run);
                ctx.start(plan, ctx.fast());
                let attempt = Py::new(py, Attempt::of(run, plan, true))?;
                self.attempt = Some(attempt.clone_ref(py));
                Ok(Some(attempt))
            }
            Action::Finish(ending) => Ctx::of(run).end(ending).map(|_| None),
            _ => Err(PyRuntimeError::new_err("the driver planned neither an attempt nor the end")),
        }
    }
}

#[pymethods]
impl Attempts {
    #[new]
    fn new(run: Py<Run>, sleep: Py<PyAny>) -> Attempts {
        Attempts { run, sleep, attempt: None }
    }

    /// The core's driver of this operation (its idempotency key, deadline, attempts started).
    #[getter]
    fn driver(&self, py: Python<'_>) -> Py<PyDriver> {
        self.run.borrow(py).driver.clone_ref(py)
    }

    /// The operation's stable idempotency key.
    #[getter]
    fn idempotency_key(&self, py: Python<'_>) -> String {
        idempotency_key(py, &self.run)
    }

    /// The operation.
    #[getter]
    fn run(&self, py: Python<'_>) -> Py<Run> {
        self.run.clone_ref(py)
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<Attempt>>> {
        let action = match self.resume(py)? {
            Some(action @ Action::StartAttempt(_)) => action,
            other => Ctx::of(self.run.bind(py)).next_plan(self.sleep.bind(py), other)?,
        };
        self.next(py, action)
    }

    /// One move of the loop for a host that sleeps itself (asyncio): the next Attempt, the seconds to
    /// sleep before calling again with `resume=False`, or None after a success (raises any other ending).
    fn step(&mut self, py: Python<'_>, resume: bool) -> PyResult<Py<PyAny>> {
        let pending = if resume { self.resume(py)? } else { None };
        match Ctx::of(self.run.bind(py)).step(pending)? {
            Step::Sleep(seconds) => Ok(seconds.into_pyobject(py)?.into_any().unbind()),
            Step::Act(action) => Ok(self.next(py, action)?.map_or_else(|| py.None(), Py::into_any)),
        }
    }
}
