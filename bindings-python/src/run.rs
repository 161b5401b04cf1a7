//! `Run`: one operation as every helper runs it, and the one sequential host
//! loop, here in Rust so that an attempt costs no Python-level bookkeeping.
//!
//! `Settings` is what a helper was given (built once by `retryplan._run.Config`);
//! `Run` is one operation over a `Driver` with the value or error of its
//! latest accepted result. `Run.call` is the sequential loop of `@retry` on a
//! plain function and of the sync HTTP helpers: it calls the attempt, maps
//! what it raised (the failure table's answer for its class, else the
//! `outcome_of_error` hook, else `not_retryable`), reads the clock (the
//! default `time.monotonic` without a Python call) and hands the result to
//! the driver, sleeping as the driver says. `Attempts` and `Attempt` drive the
//! same loop for `attempts()` and `async_attempts()`; the asyncio loop of the
//! concurrent helpers (`retryplan._async`) reports through `Run.report`.
//! Observing (the `on_decision` hook, the log) and the typed endings stay in
//! `retryplan._run`: they run only when someone listens, or at a failure.

use std::time::Instant;

use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};
use retryplan::{Action, AttemptPlan, Concurrency, Ending, Outcome, Receipt, Verdict};

use crate::args::{seconds_to_ms, NOW};
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
    /// `retryplan._run`: `observed(run)`, `failure(run, ending, value, error)`, `CURRENT`.
    helpers: Py<PyModule>,
    /// `sys.modules`, to see whether the application imported `logging`.
    modules: Py<PyDict>,
    /// One `time.monotonic()` reading and the instant it was taken: the same clock (CLOCK_MONOTONIC,
    /// mach_absolute_time, QueryPerformanceCounter), read from Rust from then on.
    monotonic: (Instant, f64),
}

static SHARED: PyOnceLock<Shared> = PyOnceLock::new();
static LOGGER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn shared(py: Python<'_>) -> PyResult<&'static Shared> {
    SHARED.get_or_try_init(py, || {
        let failures = py.import("retryplan._failures")?;
        let time = py.import("time")?.getattr("monotonic")?;
        let reading = time.call0()?.extract::<f64>()?;
        Ok(Shared {
            known: failures.getattr("_BY_TYPE")?.cast_into::<PyDict>()?.unbind(),
            table: failures.getattr("outcome_of")?.unbind(),
            invalid_request: failures.getattr("INVALID_REQUEST")?.unbind(),
            helpers: py.import("retryplan._run")?.unbind(),
            modules: py.import("sys")?.getattr("modules")?.cast_into::<PyDict>()?.unbind(),
            monotonic: (Instant::now(), reading),
        })
    })
}

/// What a helper was given, checked once (`retryplan._run.Config` builds it).
#[pyclass(module = "retryplan", frozen)]
pub(crate) struct Settings {
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

#[pymethods]
impl Settings {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
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
        let monotonic = clock.py().import("time")?.getattr("monotonic")?;
        let clock = (!clock.is(&monotonic)).then(|| clock.clone().unbind());
        let policy = policy.clone().unbind();
        Ok(Settings {
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
        let current = shared(py)?.helpers.bind(py).getattr(intern!(py, "CURRENT"))?;
        let token = current.call_method1(intern!(py, "set"), (&run,))?;
        let ending = run_sequential(&run, attempt, args, kwargs, sleep);
        current.call_method1(intern!(py, "reset"), (token,))?;
        end(&run, ending?)
    }
}

/// One operation: its driver, and the value or error of its latest accepted result.
#[pyclass(module = "retryplan")]
pub(crate) struct Run {
    settings: Py<Settings>,
    driver: Py<PyDriver>,
    /// The logger, when it logs endings (INFO).
    log: Option<Py<PyAny>>,
    /// Someone sees every decision (`on_decision`, or the log at DEBUG): events are recorded.
    observe: bool,
    /// Nothing to dispose of, nobody to tell: a result and the next action in one step.
    fast: bool,
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
        let py = settings.py();
        let s = settings.get();
        let (log, observe) = listeners(py, s)?;
        let now = clock_ms(py, s)?;
        let options = options.filter(|options| !options.is_empty());
        let driver = match options {
            None if s.plain && !observe => Py::new(py, PyDriver::plain(&s.policy.get().inner, now, s.concurrency)?)?,
            _ => {
                let kwargs = PyDict::new(py);
                if let Some(options) = options {
                    for (key, value) in options.iter() {
                        if !value.is_none() {
                            kwargs.set_item(key, value)?;
                        }
                    }
                }
                let policy = match kwargs.get_item("policy")? {
                    Some(policy) => {
                        kwargs.del_item("policy")?;
                        policy
                    }
                    None => s.policy.bind(py).clone().into_any(),
                };
                let config = s.config.bind(py);
                for key in ["seed", "stats", "dependency"] {
                    let value = config.getattr(key)?;
                    if !value.is_none() && !kwargs.contains(key)? {
                        kwargs.set_item(key, value)?;
                    }
                }
                kwargs.set_item("now_ms", now)?;
                kwargs.set_item("record_events", observe)?;
                let args = (policy, py.None(), concurrency_name(py, s.concurrency));
                py.get_type::<PyDriver>().call(args, Some(&kwargs))?.cast_into::<PyDriver>()?.unbind()
            }
        };
        Ok(Run {
            settings: settings.clone().unbind(),
            driver,
            log,
            observe,
            fast: s.dispose.is_none() && !observe,
            name: s.name.clone_ref(py),
            read: s.outcome_of_result.as_ref().map(|read| read.clone_ref(py)),
            plan: None,
            settled: None,
            value: None,
            error: None,
            outcome: None,
            pending: None,
        })
    }
}

fn concurrency_name(py: Python<'_>, concurrency: Concurrency) -> Bound<'_, PyAny> {
    let name = match concurrency {
        Concurrency::Concurrent => "concurrent",
        Concurrency::Sequential => "sequential",
        Concurrency::SequentialWithoutHedging => "sequential_without_hedging",
    };
    PyString::new(py, name).into_any()
}

/// The logger (when it logs at INFO) and whether every decision is observed: `on_decision`, or the log at DEBUG.
/// Without a logger of its own, a helper logs to `retryplan` once the application has imported logging.
fn listeners(py: Python<'_>, s: &Settings) -> PyResult<(Option<Py<PyAny>>, bool)> {
    let logger = match &s.logger {
        Some(logger) => Some(logger.bind(py).clone()),
        None => match shared(py)?.modules.bind(py).get_item("logging")? {
            None => None,
            Some(logging) => Some(
                LOGGER
                    .get_or_try_init(py, || logging.call_method1("getLogger", ("retryplan",)).map(Bound::unbind))?
                    .bind(py)
                    .clone(),
            ),
        },
    };
    let enabled = |logger: &Bound<'_, PyAny>, level: u32| -> PyResult<bool> {
        logger.call_method1(intern!(py, "isEnabledFor"), (level,))?.is_truthy()
    };
    let log = match logger {
        Some(logger) if enabled(&logger, 20)? => Some(logger),
        _ => None,
    };
    let debug = match &log {
        Some(logger) => enabled(logger, 10)?,
        None => false,
    };
    Ok((log.map(Bound::unbind), s.on_decision || debug))
}

fn monotonic(py: Python<'_>) -> PyResult<f64> {
    let (instant, reading) = shared(py)?.monotonic;
    Ok(reading + instant.elapsed().as_secs_f64())
}

/// The helper's clock in ms: `time.monotonic` read natively, or the helper's own clock (float seconds).
fn clock_ms(py: Python<'_>, s: &Settings) -> PyResult<u64> {
    Ok(match &s.clock {
        None => seconds_to_ms("now", monotonic(py)?)?,
        Some(clock) => NOW.read(Some(&clock.bind(py).call0()?), None)?,
    })
}

fn run_clock_ms(run: &Bound<'_, Run>) -> PyResult<u64> {
    let settings = run.borrow().settings.clone_ref(run.py());
    clock_ms(run.py(), settings.get())
}

/// The next action from the driver (observed when someone listens).
fn poll(run: &Bound<'_, Run>) -> PyResult<Action> {
    let now = run_clock_ms(run)?;
    let (driver, observe) = {
        let run = run.borrow();
        (run.driver.clone_ref(run.py()), run.observe)
    };
    let action = driver.bind(run.py()).borrow_mut().inner.poll_action(now);
    if observe {
        observed(run)?;
    }
    Ok(action)
}

fn observed(run: &Bound<'_, Run>) -> PyResult<()> {
    shared(run.py())?.helpers.bind(run.py()).call_method1(intern!(run.py(), "observed"), (run,))?;
    Ok(())
}

fn cancel(run: &Bound<'_, Run>) -> PyResult<()> {
    let now = run_clock_ms(run)?;
    let (driver, observe) = {
        let run = run.borrow();
        (run.driver.clone_ref(run.py()), run.observe)
    };
    driver.bind(run.py()).borrow_mut().inner.handle_cancel(now);
    if observe {
        observed(run)?;
    }
    Ok(())
}

/// Hands in how `plan`'s attempt ended; true when accepted. A value no longer needed is disposed of.
fn report(
    run: &Bound<'_, Run>,
    plan: AttemptPlan,
    outcome: Outcome,
    value: Option<Py<PyAny>>,
    error: Option<Py<PyAny>>,
    now: u64,
) -> PyResult<bool> {
    let py = run.py();
    let (driver, observe, settings) = {
        let run = run.borrow();
        (run.driver.clone_ref(py), run.observe, run.settings.clone_ref(py))
    };
    let receipt = driver.bind(py).borrow_mut().inner.handle_result(now, plan.attempt, outcome);
    let accepted = receipt.map_err(core_error)? == Receipt::Accepted;
    if observe {
        observed(run)?;
    }
    let dispose = settings.get().dispose.as_ref().map(|dispose| dispose.bind(py));
    if accepted {
        let replaced = {
            let mut run = run.borrow_mut();
            let replaced = run.value.take();
            (run.settled, run.value, run.error, run.outcome) = (Some(plan), value, error, Some(outcome));
            replaced
        };
        if let (Some(dispose), Some(replaced)) = (dispose, replaced) {
            if !replaced.is_none(py) {
                dispose.call1((replaced,))?;
            }
        }
    } else if let (Some(dispose), Some(value)) = (dispose, value) {
        if !value.is_none(py) {
            dispose.call1((value,))?;
        }
    }
    Ok(accepted)
}

/// Hands in how `plan`'s attempt ended and returns the next action (the sequential helpers).
fn reported(
    run: &Bound<'_, Run>,
    plan: AttemptPlan,
    outcome: Outcome,
    value: Option<Py<PyAny>>,
    error: Option<Py<PyAny>>,
    now: u64,
) -> PyResult<Action> {
    let py = run.py();
    if !run.borrow().fast {
        report(run, plan, outcome, value, error, now)?;
        return poll(run);
    }
    let driver = {
        // A late result is dropped by the driver; `failure` tells whether this one decided.
        let mut run = run.borrow_mut();
        (run.settled, run.value, run.error, run.outcome) = (Some(plan), value, error, Some(outcome));
        run.driver.clone_ref(py)
    };
    let mut driver = driver.bind(py).borrow_mut();
    driver.inner.handle_result(now, plan.attempt, outcome).map_err(core_error)?;
    Ok(driver.inner.poll_action(now))
}

/// What an attempt's error means: the failure table, else the hook, else `not_retryable`. An invalid
/// request (a bad URL or header) ends the operation and is raised again unchanged.
fn outcome_of(run: &Bound<'_, Run>, error: &Bound<'_, PyAny>) -> PyResult<Outcome> {
    let py = run.py();
    let shared = shared(py)?;
    let mut meaning = shared.known.bind(py).get_item(error.get_type())?;
    if let Some(known) = &meaning {
        if let Ok(outcome) = known.cast::<PyOutcome>() {
            return Ok(outcome.get().inner);
        }
        if !known.is_none() {
            meaning = None; // a resolver (it reads the error) or the invalid-request mark: ask the table
        }
    }
    let meaning = match meaning {
        Some(meaning) => meaning,
        None => shared.table.bind(py).call1((error,))?,
    };
    if let Ok(outcome) = meaning.cast::<PyOutcome>() {
        return Ok(outcome.get().inner);
    }
    if meaning.is(shared.invalid_request.bind(py)) {
        cancel(run)?;
        return Err(PyErr::from_value(error.clone()));
    }
    let settings = run.borrow().settings.clone_ref(py);
    match &settings.get().outcome_of_error {
        Some(hook) => outcome_arg(&hook.bind(py).call1((error,))?, not_retryable()),
        None => Ok(not_retryable()),
    }
}

fn not_retryable() -> Outcome {
    Outcome::Application { verdict: Verdict::NotRetryable }
}

/// What a hook returned: an Outcome, or None for `default`.
fn outcome_arg(obj: &Bound<'_, PyAny>, default: Outcome) -> PyResult<Outcome> {
    if obj.is_none() {
        return Ok(default);
    }
    match obj.cast::<PyOutcome>() {
        Ok(outcome) => Ok(outcome.get().inner),
        Err(_) => Err(PyErr::from(wrong_type("outcome", "a retryplan.Outcome", obj))),
    }
}

/// What a returned value means: success, unless the run's `read` says otherwise.
fn outcome_of_value(run: &Bound<'_, Run>, value: &Bound<'_, PyAny>) -> PyResult<Outcome> {
    let read = run.borrow().read.as_ref().map(|read| read.clone_ref(run.py()));
    match read {
        None => Ok(Outcome::Success),
        Some(read) => {
            let outcome = read.bind(run.py()).call1((value,))?;
            match outcome.cast::<PyOutcome>() {
                Ok(outcome) => Ok(outcome.get().inner),
                Err(_) => Err(PyErr::from(wrong_type("outcome", "a retryplan.Outcome", &outcome))),
            }
        }
    }
}

/// One move of the sequential loop from `action` (else a new poll): an attempt to run, the ending, or the
/// seconds to sleep before the next poll.
enum Step {
    Act(Action),
    Sleep(f64),
}

fn step(run: &Bound<'_, Run>, mut action: Option<Action>) -> PyResult<Step> {
    loop {
        let next = match action.take() {
            Some(action) => action,
            None => poll(run)?,
        };
        match next {
            Action::StartAttempt(_) | Action::Finish(_) => return Ok(Step::Act(next)),
            Action::Sleep { until_ms } => {
                let settings = run.borrow().settings.clone_ref(run.py());
                let now = match &settings.get().clock {
                    None => monotonic(run.py())?,
                    Some(clock) => clock.bind(run.py()).call0()?.extract::<f64>()?,
                };
                return Ok(Step::Sleep(until_ms as f64 / 1000.0 - now));
            }
            // One attempt at a time: an aborted one has returned already (late, and discarded).
            Action::AbortAttempt { .. } => {}
        }
    }
}

/// The next attempt to run, sleeping (cancellably) as the driver says; or the ending.
fn next_plan(run: &Bound<'_, Run>, sleep: &Bound<'_, PyAny>, action: Option<Action>) -> PyResult<Action> {
    let mut next = step(run, action)?;
    loop {
        match next {
            Step::Act(action) => return Ok(action),
            Step::Sleep(seconds) => {
                if seconds > 0.0 {
                    if let Err(error) = sleep.call1((seconds,)) {
                        cancel(run)?;
                        return Err(error);
                    }
                }
                next = step(run, None)?;
            }
        }
    }
}

/// Runs the operation one blocking attempt at a time; returns the ending.
fn run_sequential(
    run: &Bound<'_, Run>,
    attempt: &Bound<'_, PyAny>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
    sleep: &Bound<'_, PyAny>,
) -> PyResult<Ending> {
    let py = run.py();
    let mut action = poll(run)?;
    loop {
        if !matches!(action, Action::StartAttempt(_)) {
            action = next_plan(run, sleep, Some(action))?;
        }
        let plan = match action {
            Action::StartAttempt(plan) => plan,
            Action::Finish(ending) => return Ok(ending),
            _ => continue,
        };
        {
            let mut run = run.borrow_mut();
            run.plan = Some(plan);
            if run.fast {
                (run.value, run.error) = (None, None); // only the latest result is ever kept alive
            }
        }
        let (now, outcome, value, error) = match attempt.call(args, kwargs) {
            Ok(value) => {
                let now = run_clock_ms(run)?;
                (now, outcome_of_value(run, &value)?, Some(value.unbind()), None)
            }
            Err(error) if error.is_instance_of::<PyException>(py) => {
                let now = run_clock_ms(run)?;
                let error = error.into_value(py).into_bound(py).into_any();
                (now, outcome_of(run, &error)?, None, Some(error.unbind()))
            }
            Err(interrupted) => {
                cancel(run)?; // KeyboardInterrupt, SystemExit: the caller gave up
                return Err(interrupted);
            }
        };
        action = reported(run, plan, outcome, value, error, now)?;
    }
}

/// The winner's value, or raises the typed ending (GaveUpError, ReconcileRequired, RestartRequired).
fn end(run: &Bound<'_, Run>, ending: Ending) -> PyResult<Py<PyAny>> {
    let py = run.py();
    let (value, error) = {
        let mut run = run.borrow_mut();
        (run.value.take(), run.error.take()) // handed over once: nothing stays alive through this run
    };
    if matches!(ending.decision, retryplan::Decision::Succeeded { .. }) {
        return Ok(value.unwrap_or_else(|| py.None()));
    }
    Err(failure(run, ending, value, error)?)
}

/// The typed ending; `value` and `error` count only when they came from the deciding attempt.
fn failure(
    run: &Bound<'_, Run>,
    ending: Ending,
    value: Option<Py<PyAny>>,
    error: Option<Py<PyAny>>,
) -> PyResult<PyErr> {
    let py = run.py();
    let deciding = {
        let run = run.borrow();
        let settled = run.settled.zip(run.outcome).map(|(plan, outcome)| (plan.attempt, outcome));
        ending.last_result.map(|last| (last.attempt, last.outcome)) == settled && settled.is_some()
    };
    let (value, error) = if deciding { (value, error) } else { (None, None) };
    let ending = action_to_py(py, Action::Finish(ending))?;
    let exception = shared(py)?.helpers.bind(py).call_method1(intern!(py, "failure"), (run, ending, value, error))?;
    Ok(PyErr::from_value(exception))
}

fn current_plan(run: &Bound<'_, Run>, plan: Option<AttemptPlan>) -> PyResult<Option<Py<PyAny>>> {
    plan.map(|plan| action_to_py(run.py(), Action::StartAttempt(plan))).transpose()
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

    /// The core's driver of this operation.
    #[getter]
    fn driver(&self, py: Python<'_>) -> Py<PyDriver> {
        self.driver.clone_ref(py)
    }

    /// True when every decision is observed (on_decision, or the log at DEBUG).
    #[getter]
    fn observe(&self) -> bool {
        self.observe
    }

    /// The helper's `Config` (its hooks).
    #[getter]
    fn config(&self, py: Python<'_>) -> Py<PyAny> {
        self.settings.get().config.clone_ref(py)
    }

    /// The logger, when it logs (INFO), else None.
    #[getter]
    fn log(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.log.as_ref().map(|log| log.clone_ref(py))
    }

    /// The attempt running (sequential helpers), or None.
    #[getter]
    fn plan(slf: &Bound<'_, Self>) -> PyResult<Option<Py<PyAny>>> {
        let plan = slf.borrow().plan;
        current_plan(slf, plan)
    }

    /// The attempt of the latest result (accepted, unless late), or None.
    #[getter]
    fn settled(slf: &Bound<'_, Self>) -> PyResult<Option<Py<PyAny>>> {
        let plan = slf.borrow().settled;
        current_plan(slf, plan)
    }

    /// The helper's clock, in float seconds.
    fn clock(&self, py: Python<'_>) -> PyResult<f64> {
        match &self.settings.get().clock {
            None => monotonic(py),
            Some(clock) => clock.bind(py).call0()?.extract(),
        }
    }

    /// Disposes of a value no longer needed (a response: closed), when the helper disposes of values.
    fn dispose(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Some(dispose) = &self.settings.get().dispose {
            dispose.bind(py).call1((value,))?;
        }
        Ok(())
    }

    /// The next action (observed when someone listens).
    fn poll(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let action = poll(slf)?;
        action_to_py(slf.py(), action)
    }

    /// Hands in how `plan`'s attempt ended; True when accepted (a value no longer needed is disposed of).
    #[pyo3(signature = (plan, outcome, value = None, error = None))]
    fn report(
        slf: &Bound<'_, Self>,
        plan: &Bound<'_, PyAny>,
        outcome: &Bound<'_, PyAny>,
        value: Option<Py<PyAny>>,
        error: Option<Py<PyAny>>,
    ) -> PyResult<bool> {
        let (plan, outcome) = (plan_arg(plan)?, outcome_arg(outcome, Outcome::Success)?);
        let now = run_clock_ms(slf)?;
        report(slf, plan, outcome, value, error, now)
    }

    /// What an attempt's error means (the failure table, the hook, `not_retryable`); an invalid request
    /// ends the operation and is raised again.
    fn outcome_of(slf: &Bound<'_, Self>, error: &Bound<'_, PyAny>) -> PyResult<PyOutcome> {
        Ok(PyOutcome { inner: outcome_of(slf, error)? })
    }

    /// What a returned value means: success, unless the helper's `outcome_of_result` says otherwise.
    fn outcome_of_value(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<PyOutcome> {
        Ok(PyOutcome { inner: outcome_of_value(slf, value)? })
    }

    /// The caller gave up on the operation (a cancelled task, a KeyboardInterrupt): it ends `cancelled`.
    fn cancel(slf: &Bound<'_, Self>) -> PyResult<()> {
        cancel(slf)
    }

    /// Runs the operation one blocking attempt at a time (`attempt(*args, **kwargs)`); returns the Ending.
    #[pyo3(signature = (attempt, args, kwargs, sleep))]
    fn call(
        slf: &Bound<'_, Self>,
        attempt: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        sleep: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let ending = run_sequential(slf, attempt, args, kwargs, sleep)?;
        action_to_py(slf.py(), Action::Finish(ending))
    }

    /// The winner's value, or raises the typed ending.
    fn end(slf: &Bound<'_, Self>, ending: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        end(slf, ending_arg(ending)?)
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
        let error = failure(slf, ending_arg(ending)?, value, error)?;
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
#[pyclass(module = "retryplan")]
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

    fn reporting(&mut self) -> PyResult<()> {
        if !self.in_loop {
            return Err(PyRuntimeError::new_err("under @retry an attempt reports itself: return a value or raise"));
        }
        if self.reported {
            return Err(PyRuntimeError::new_err(format!("attempt {} was already reported", self.inner.attempt)));
        }
        self.reported = true;
        Ok(())
    }
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
        let driver = self.run.borrow(py).driver.clone_ref(py);
        let key = driver.borrow(py).inner.idempotency_key().as_str().to_owned();
        key
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
        let (plan, run) = {
            let mut attempt = slf.borrow_mut();
            attempt.reporting()?;
            (attempt.inner, attempt.run.clone_ref(slf.py()))
        };
        let run = run.bind(slf.py());
        let now = run_clock_ms(run)?;
        let accepted = report(run, plan, outcome, result, exception, now)?;
        let pending = poll(run)?;
        run.borrow_mut().pending = Some(pending);
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
        let py = slf.py();
        let (plan, run) = {
            let mut attempt = slf.borrow_mut();
            if attempt.reported {
                return Ok(false);
            }
            attempt.reporting()?;
            (attempt.inner, attempt.run.clone_ref(py))
        };
        let run = run.bind(py);
        if exc.is_none() {
            let now = run_clock_ms(run)?;
            let pending = reported(run, plan, Outcome::Success, None, None, now)?;
            run.borrow_mut().pending = Some(pending);
            return Ok(false);
        }
        if !exc.is_instance_of::<PyException>() {
            cancel(run)?; // KeyboardInterrupt, a cancelled task: the caller gave up
            return Ok(false);
        }
        let now = run_clock_ms(run)?;
        let outcome = outcome_of(run, exc)?;
        let pending = reported(run, plan, outcome, None, Some(exc.clone().unbind()), now)?;
        run.borrow_mut().pending = Some(pending);
        Ok(true) // the loop goes on: another attempt, or the typed ending
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
#[pyclass(module = "retryplan")]
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
        match action {
            Action::StartAttempt(plan) => {
                let attempt = Py::new(py, Attempt::of(run, plan, true))?;
                self.attempt = Some(attempt.clone_ref(py));
                Ok(Some(attempt))
            }
            Action::Finish(ending) => {
                self.attempt = None;
                end(run, ending)?;
                Ok(None)
            }
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
        let driver = self.driver(py);
        let key = driver.borrow(py).inner.idempotency_key().as_str().to_owned();
        key
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
        let pending = self.resume(py)?;
        let action = match pending {
            Some(action @ Action::StartAttempt(_)) => action,
            other => next_plan(self.run.bind(py), self.sleep.bind(py), other)?,
        };
        self.next(py, action)
    }

    /// One move of the loop for a host that sleeps itself (asyncio): the next Attempt, the seconds to
    /// sleep before calling again with `resume=False`, or None after a success (raises any other ending).
    fn step(&mut self, py: Python<'_>, resume: bool) -> PyResult<Py<PyAny>> {
        let pending = if resume { self.resume(py)? } else { None };
        match step(self.run.bind(py), pending)? {
            Step::Sleep(seconds) => Ok(seconds.into_pyobject(py)?.into_any().unbind()),
            Step::Act(action) => Ok(self.next(py, action)?.map_or_else(|| py.None(), Py::into_any)),
        }
    }
}

fn core_error(error: retryplan::Error) -> PyErr {
    PyErr::from(Fault::from(error))
}
