//! `Attempt` and `Attempts`: the attempt loops (`attempts()`, stepped from
//! asyncio by `async_attempts()`) over the one sequential loop of `Run`, and
//! the attempt `current_attempt()` returns under every helper.

use std::ops::ControlFlow;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};
use retryplan::{Action, AttemptPlan, Ending, Held, Outcome};

use crate::driver::{action_to_py, plan_arg, PyDriver};
use crate::fault::Res;
use crate::propagation::{headers_to_py, protocol_arg};
use crate::run::{outcome_arg, Ctx, Ended, Meaning, Run, Step};
use crate::sources::shared;

/// One attempt the driver started: its number, timeout and ids.
///
/// As a context manager (`with attempt:` in `attempts()`, `async with` in `async_attempts()`): leaving
/// the block reports success unless `report` was called; an exception is reported through the failure
/// table and the `outcome_of_error` hook and suppressed (the loop then retries, or raises the typed
/// ending); an invalid request, misuse of retryplan (a `CallerError` or `ConfigurationError`, such as a
/// `report` refused), a `KeyboardInterrupt` or a cancellation ends the operation and propagates unchanged.
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
    /// Inside `with attempt:`, the token that resets `current_attempt()` to what it was before the block.
    entered: Option<Py<PyAny>>,
}

impl Attempt {
    pub(crate) fn of(run: &Bound<'_, Run>, inner: AttemptPlan, in_loop: bool) -> Attempt {
        Attempt { inner, run: run.clone().unbind(), in_loop, reported: false, timer: None, entered: None }
    }

    /// Marks the attempt reported, or says why it cannot report.
    fn reporting<'py>(slf: &Bound<'py, Self>) -> PyResult<(AttemptPlan, Bound<'py, Run>)> {
        let mut attempt = slf.borrow_mut();
        let (py, number) = (slf.py(), attempt.inner.attempt);
        if !attempt.in_loop {
            let message = format!("attempt {number}: under @retry an attempt reports itself: return a value or raise");
            return Err(misuse(py, "AttemptMisuseError", message, number));
        }
        if attempt.reported {
            return Err(misuse(py, "AttemptNotRunningError", format!("attempt {number} was already reported"), number));
        }
        attempt.reported = true;
        Ok((attempt.inner, attempt.run.bind(slf.py()).clone()))
    }
}

/// Misuse of an attempt: `retryplan._errors.<class>(message, attempt=number)`, a `CallerError` and a
/// `RuntimeError` (`AttemptNotRunningError`'s `running` is empty: one attempt at a time, none runs after it).
fn misuse(py: Python<'_>, class: &str, message: String, number: u32) -> PyErr {
    let raised = || -> PyResult<PyErr> {
        let fields = pyo3::types::PyDict::new(py);
        fields.set_item("attempt", number)?;
        let class = py.import("retryplan._errors")?.getattr(class)?;
        Ok(PyErr::from_value(class.call((message,), Some(&fields))?))
    };
    raised().unwrap_or_else(|error| error)
}

fn idempotency_key(py: Python<'_>, run: &Py<Run>) -> String {
    run.borrow(py).driver.borrow(py).inner.idempotency_key().as_str().to_owned()
}

#[pymethods]
impl Attempt {
    /// What it holds, for the cycle collector (its `Run`, which may hold the error whose frame holds it).
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.run)?;
        visit.call(self.timer.as_ref())?;
        visit.call(self.entered.as_ref())
    }

    /// The attempt `run` is running now, for `current_attempt()` (None between attempts).
    #[staticmethod]
    fn running_in(run: &Bound<'_, Run>) -> PyResult<Option<Py<Attempt>>> {
        let plan = run.borrow().plan;
        plan.map(|plan| Py::new(run.py(), Attempt::of(run, plan, false))).transpose()
    }

    /// An attempt of `run` (the tasks of the concurrent helpers: for `current_attempt()`).
    #[new]
    fn new(plan: &Bound<'_, PyAny>, run: &Bound<'_, Run>) -> PyResult<Attempt> {
        Ok(Attempt::of(run, plan_arg(plan)?, false))
    }

    /// The attempt number, 1 for the first (`attempt`, as every binding names it).
    #[getter]
    fn attempt(&self) -> u32 {
        self.inner.attempt
    }

    /// Deprecated alias of `attempt` for one release (issue 25: one name in every language).
    #[getter]
    fn number(&self, py: Python<'_>) -> PyResult<u32> {
        let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
        PyErr::warn(py, &category, c"retryplan: Attempt.number is renamed Attempt.attempt", 1)?;
        Ok(self.inner.attempt)
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

    /// Seconds left before this attempt times out, now on the helper's clock (never negative).
    fn time_left(&self, py: Python<'_>) -> PyResult<f64> {
        Ok((self.abort_at() - self.run.borrow(py).clock(py)?).max(0.0))
    }

    /// Deprecated alias of `time_left` for one release: `remaining_ms`, in every language, is the operation's time
    /// left at the attempt's start.
    fn remaining(&self, py: Python<'_>) -> PyResult<f64> {
        let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
        PyErr::warn(py, &category, c"retryplan: Attempt.remaining() is renamed Attempt.time_left()", 1)?;
        self.time_left(py)
    }

    /// The operation's time left at this attempt's start, after the response reserve, in ms (`remaining_ms`, as
    /// every binding names it): propagate it downstream as a deadline.
    #[getter]
    fn remaining_ms(&self) -> u64 {
        self.inner.remaining_ms
    }

    /// True when this attempt is a hedge, started while an earlier one still runs (`hedge`, as JS's and Kotlin's
    /// attempts name it).
    #[getter]
    fn hedge(&self) -> bool {
        self.inner.hedge
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

    /// This attempt's request headers for a next hop speaking `protocol` (`"http"` (default) or
    /// `"grpc"`), as the core computes them now on the helper's clock (`Driver.outgoing_headers`): the
    /// attempt's remaining time, its number, the key, whether a layer above retries.
    #[pyo3(signature = (protocol = None))]
    fn outgoing_headers<'py>(
        &self,
        py: Python<'py>,
        protocol: Option<&Bound<'_, PyAny>>,
    ) -> Res<Bound<'py, pyo3::types::PyDict>> {
        let protocol = protocol_arg(protocol)?;
        let run = self.run.borrow(py);
        let now = run.clock_ms(py)?;
        let headers = run.driver.borrow(py).inner.outgoing_headers(self.inner.attempt, now, protocol)?;
        Ok(headers_to_py(py, &headers)?)
    }

    /// The driver's plan of this attempt.
    #[getter]
    fn plan(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        action_to_py(py, Action::StartAttempt(self.inner))
    }

    /// Reports this attempt's outcome (None, the default: a success), with what it returned (`result`) or
    /// raised (`exception`); True when the driver accepted it (False: it was late).
    #[pyo3(signature = (outcome = None, *, result = None, exception = None))]
    fn report(
        slf: &Bound<'_, Self>,
        outcome: Option<&Bound<'_, PyAny>>,
        result: Option<Py<PyAny>>,
        exception: Option<Py<PyAny>>,
    ) -> PyResult<bool> {
        let outcome = match outcome {
            Some(outcome) => outcome_arg(outcome, Outcome::Success)?,
            None => Outcome::Success,
        };
        let outcome = Meaning::Outcome(outcome);
        let (plan, run) = Attempt::reporting(slf)?;
        let (object, held) = match exception {
            Some(exception) => (Some(exception), Held::Error),
            None => (result, Held::Value),
        };
        Ctx::of(&run).reported_in_loop(plan, Ended(outcome, object, held))
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

    /// `with attempt:`: `current_attempt()` inside the block is this attempt.
    fn __enter__(slf: &Bound<'_, Self>) -> PyResult<Py<Self>> {
        let token = shared(slf.py())?.enter.bind(slf.py()).call1((slf,))?;
        slf.borrow_mut().entered = Some(token.unbind());
        Ok(slf.clone().unbind())
    }

    fn __exit__(
        slf: &Bound<'_, Self>,
        _exc_type: &Bound<'_, PyAny>,
        exc: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let entered = slf.borrow_mut().entered.take();
        if let Some(token) = entered {
            shared(slf.py())?.leave.bind(slf.py()).call1((token,))?; // current_attempt() as before the block
        }
        if slf.borrow().reported {
            // Misuse after the report (a second `report`) ends the operation too, and is raised as it is.
            let run = slf.borrow().run.clone_ref(slf.py()).into_bound(slf.py());
            let ctx = Ctx::of(&run);
            if !exc.is_none() && ctx.is_raised_again(exc)? {
                return Err(ctx.raised_again(exc));
            }
            return Ok(false);
        }
        let (plan, run) = Attempt::reporting(slf)?;
        let ctx = Ctx::of(&run);
        if !exc.is_none() && !exc.is_instance_of::<PyException>() {
            let _ = ctx.cancel(); // KeyboardInterrupt, a cancelled task: the caller gave up (raised as it is)
            return Ok(false);
        }
        ctx.reported_in_loop(plan, ctx.ended(None, Some(exc).filter(|exc| !exc.is_none()))?)?;
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
    fn resume(&mut self, py: Python<'_>) -> PyResult<Option<(Action, u64)>> {
        if let Some(attempt) = &self.attempt {
            let attempt = attempt.borrow(py);
            if !attempt.reported {
                let number = attempt.inner.attempt;
                let message =
                    format!("attempt {number} ended without an outcome: use `with attempt:` or attempt.report(...)");
                return Err(misuse(py, "AttemptMisuseError", message, number));
            }
        }
        Ok(self.run.borrow_mut(py).pending.take())
    }

    /// The attempt for a planned step (started), or None at a successful ending (any other ending is raised).
    fn next(&mut self, py: Python<'_>, next: ControlFlow<Ending, AttemptPlan>) -> PyResult<Option<Py<Attempt>>> {
        let run = self.run.bind(py);
        self.attempt = None;
        match next {
            ControlFlow::Continue(plan) => {
                let attempt = Py::new(py, Attempt::of(run, plan, true))?;
                self.attempt = Some(attempt.clone_ref(py));
                Ok(Some(attempt))
            }
            ControlFlow::Break(ending) => Ctx::of(run).end(ending).map(|_| None),
        }
    }
}

impl Drop for Attempts {
    /// A loop dropped before its operation ended abandons it (`Ctx::abandon`); after the end, nothing is left.
    fn drop(&mut self) {
        Python::attach(|py| {
            let run = self.run.bind(py);
            if run.try_borrow_mut().is_ok() {
                Ctx::of(run).abandon();
            }
        });
    }
}

#[pymethods]
impl Attempts {
    /// What it holds, for the cycle collector.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.run)?;
        visit.call(&self.sleep)?;
        visit.call(self.attempt.as_ref())
    }

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
        let pending = self.resume(py)?;
        let next = Ctx::of(self.run.bind(py)).next_plan(self.sleep.bind(py), pending)?;
        self.next(py, next)
    }

    /// One move of the loop for a host that sleeps itself (asyncio): the next Attempt, the seconds to
    /// sleep before calling again with `resume=False`, or None after a success (raises any other ending).
    /// `timer_ended`: the event loop's timer for the last sleep ran out (the driver judges the clock first).
    #[pyo3(signature = (resume, timer_ended = false))]
    fn step(&mut self, py: Python<'_>, resume: bool, timer_ended: bool) -> PyResult<Py<PyAny>> {
        let pending = if resume { self.resume(py)? } else { None };
        let run = self.run.clone_ref(py);
        let ctx = Ctx::of(run.bind(py));
        let pending = if !resume && timer_ended { Some(ctx.timer_ended()?) } else { pending };
        let next = match ctx.step(pending)? {
            Step::Sleep(seconds) => return Ok(seconds.into_pyobject(py)?.into_any().unbind()),
            Step::Next(next) => next,
        };
        Ok(self.next(py, next)?.map_or_else(|| py.None(), Py::into_any))
    }
}
