//! `Run`: one operation as every helper runs it, and the one sequential host
//! loop, here so that an attempt costs no Python-level bookkeeping.
//!
//! `Settings` (`settings.rs`) is what a helper was given; `Run` is one operation over a `Driver` with the value or error of its
//! latest accepted result. `Run.call` is the sequential loop of `@retry` on a
//! plain function and of the sync HTTP helpers: it calls the attempt, maps
//! what it raised (the failure table's answer for its class, else the
//! `outcome_of_error` hook, else `not_retryable`), reads the clock (the
//! default `time.monotonic` without a Python call) and hands the result to
//! the driver, sleeping as the driver says. `Attempts` and `Attempt`
//! (`attempts.rs`) step the same loop for `attempts()` and `async_attempts()`;
//! the asyncio loop of the concurrent helpers (`retryplan._async`) hands its
//! finished attempts to `Run.settle`.
//! Observing (the `on_decision` hook, the log) and the typed endings stay in
//! `retryplan._run`: they run only when someone listens, or at a failure.

use pyo3::exceptions::PyException;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use retryplan::{Action, AttemptPlan, Concurrency, Ending, Error, Outcome, Receipt, Verdict};

use crate::attempts::Attempt;
use crate::driver::{action_to_py, plan_arg, PyDriver};
use crate::errors::{wrong_type, Fault};
use crate::outcome::PyOutcome;
use crate::settings::Settings;
use crate::sources::drawn;

/// One operation: its driver, and the value or error of its latest accepted result.
#[pyclass(module = "retryplan")]
pub(crate) struct Run {
    settings: Py<Settings>,
    /// The core's driver of this operation.
    #[pyo3(get)]
    pub(crate) driver: Py<PyDriver>,
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
    pub(crate) plan: Option<AttemptPlan>,
    /// The latest result: its attempt, value, error and outcome.
    settled: Option<AttemptPlan>,
    value: Option<Py<PyAny>>,
    error: Option<Py<PyAny>>,
    outcome: Option<Outcome>,
    /// The action that followed the last attempt of an attempt loop.
    pub(crate) pending: Option<Action>,
}

impl Run {
    pub(crate) fn new(settings: &Bound<'_, Settings>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Run> {
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
pub(crate) struct Ctx<'a, 'py> {
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
pub(crate) fn outcome_arg(obj: &Bound<'_, PyAny>, default: Outcome) -> PyResult<Outcome> {
    match obj.cast::<PyOutcome>() {
        Ok(outcome) => Ok(outcome.get().inner),
        Err(_) if obj.is_none() => Ok(default),
        Err(_) => Err(PyErr::from(wrong_type("outcome", "a retryplan.Outcome", obj))),
    }
}

/// One move of the sequential loop: an action to carry out (a start, the ending), or seconds to sleep.
pub(crate) enum Step {
    Act(Action),
    Sleep(f64),
}

impl<'a, 'py> Ctx<'a, 'py> {
    pub(crate) fn of(run: &'a Bound<'py, Run>) -> Ctx<'a, 'py> {
        let py = run.py();
        let this = run.borrow();
        let (settings, driver) = (this.settings.bind(py).clone(), this.driver.bind(py).clone());
        Ctx { run, py, settings, driver, observe: this.observe }
    }

    pub(crate) fn s(&self) -> &Settings {
        self.settings.get()
    }

    /// Nothing to dispose of, nobody to tell: a result and the next action in one step.
    pub(crate) fn fast(&self) -> bool {
        self.s().dispose.is_none() && !self.observe
    }

    fn observed(&self) -> PyResult<()> {
        if self.observe {
            self.s().shared.helpers.bind(self.py).call_method1(intern!(self.py, "observed"), (self.run,))?;
        }
        Ok(())
    }

    /// The next action from the driver.
    pub(crate) fn poll(&self) -> PyResult<Action> {
        let now = self.s().now_ms(self.py)?;
        let action = self.driver.borrow_mut().inner.poll_action(now);
        self.observed()?;
        Ok(action)
    }

    pub(crate) fn cancel(&self) -> PyResult<()> {
        let now = self.s().now_ms(self.py)?;
        self.driver.borrow_mut().inner.handle_cancel(now);
        self.observed()
    }

    pub(crate) fn dispose(&self, value: Option<Py<PyAny>>) -> PyResult<()> {
        match (&self.s().dispose, value) {
            (Some(dispose), Some(value)) if !value.is_none(self.py) => dispose.bind(self.py).call1((value,)).map(drop),
            _ => Ok(()),
        }
    }

    /// Hands in how `plan`'s attempt ended; true when accepted. A value no longer needed is disposed of.
    pub(crate) fn report(
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
    pub(crate) fn reported(
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
    pub(crate) fn outcome_of(&self, error: &Bound<'py, PyAny>) -> PyResult<Outcome> {
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
    pub(crate) fn step(&self, mut action: Option<Action>) -> PyResult<Step> {
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
    pub(crate) fn next_plan(&self, sleep: &Bound<'py, PyAny>, action: Option<Action>) -> PyResult<Action> {
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
    pub(crate) fn start(&self, plan: AttemptPlan, fast: bool) {
        let mut run = self.run.borrow_mut();
        run.plan = Some(plan);
        if fast {
            (run.value, run.error) = (None, None);
        }
    }

    /// Runs the operation one blocking attempt at a time; returns the ending.
    pub(crate) fn run_sequential(
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
    pub(crate) fn end(&self, ending: Ending) -> PyResult<Py<PyAny>> {
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

pub(crate) fn plan_to_py(py: Python<'_>, plan: Option<AttemptPlan>) -> PyResult<Option<Py<PyAny>>> {
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
    pub(crate) fn clock(&self, py: Python<'_>) -> PyResult<f64> {
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
