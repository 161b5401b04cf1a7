//! `Run`: one operation as every helper runs it, and the one sequential host
//! loop, here so that an attempt costs no Python-level bookkeeping.
//!
//! `Settings` (`settings.rs`) is what a helper was given; `Run` is one operation over a `Driver`, holding what each
//! result it handed in carried under a token until the driver says to drop it, return it or raise with it. `Run.call` is the sequential loop of `@retry` on a
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

use std::ops::ControlFlow;
use std::sync::atomic::Ordering;

use pyo3::exceptions::PyException;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::{PyTraverseError, PyVisit};
use retryplan::config::value::Named;
use retryplan::{Action, AttemptPlan, Ending, Held, Outcome, Receipt, Verdict};

use crate::args::NOW_UNIX;
use crate::driver::{action_to_py, plan_arg, PyDriver, PyServed, SERVING};
use crate::fault::{invalid, wrong_type, Fault};
use crate::outcome::{PyOutcome, ResponseHead};
use crate::settings::Settings;
use crate::sources::drawn;

/// What the host holds under one token: a value or an error an attempt ended with.
struct Kept {
    object: Py<PyAny>,
    held: Held,
}

/// One operation: its driver, and what the results it handed in carried, by token.
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
    /// False when the helper sends no idempotency key (`idempotency_key_header=None`): a reconcile's message then
    /// names no key (the core's words for it).
    #[pyo3(get, set)]
    key_sent: bool,
    /// What a returned value means: the helper's `outcome_of_result` (an Outcome); for an HTTP helper
    /// (`returns_responses`) the response as `(status, headers, now_unix)`, read by the core.
    #[pyo3(get, set)]
    read: Option<Py<PyAny>>,
    /// True for an HTTP helper: `read` gives the response's status and headers.
    responses: bool,
    /// The attempt running (sequential helpers).
    pub(crate) plan: Option<AttemptPlan>,
    /// What the host holds for each result it handed in with a token, until the driver says.
    kept: Vec<(u64, Kept)>,
    next_token: u64,
    /// The action that followed the last attempt of an attempt loop.
    pub(crate) pending: Option<(Action, u64)>,
    /// What `retryplan.otel` keeps of this operation (its open attempt spans) while OpenTelemetry listens.
    #[pyo3(get, set)]
    telemetry: Option<Py<PyAny>>,
    /// What the result being handed in carried (its value or error), while observers see the events it
    /// led to (`error.type` names a raised error's type); None otherwise.
    #[pyo3(get)]
    handed_in: Option<Py<PyAny>>,
    /// The request being served where the operation began (`retryplan.propagation`): the driver starts from
    /// its caller's context, and the ending is recorded in its answer.
    served: Option<Py<PyServed>>,
}

impl Run {
    /// A new operation of `settings` started at `now` (ms on the helper's clock).
    pub(crate) fn new(settings: &Bound<'_, Settings>, options: Option<&Bound<'_, PyDict>>, now: u64) -> PyResult<Run> {
        let (py, s) = (settings.py(), settings.get());
        let (log, observe, telemetry) = s.listeners(py)?;
        let served = match SERVING.load(Ordering::Relaxed) {
            // None outside a served request.
            true => s.shared.served.bind(py).call_method0(intern!(py, "get"))?.cast_into::<PyServed>().ok(),
            false => None,
        };
        let served = served.map(Bound::unbind);
        let mut responses = false;
        let driver = match options.filter(|options| !options.is_empty()) {
            None if s.plain && !observe && served.is_none() => {
                Py::new(py, PyDriver::with(s.policy.get(), now, s.concurrency, drawn()?)?)?
            }
            options => {
                let kwargs = PyDict::new(py);
                for (key, value) in options.iter().flat_map(|options| options.iter()) {
                    if !value.is_none() {
                        kwargs.set_item(key, value)?;
                    }
                }
                for key in ["policy", "seed", "stats", "dependency"] {
                    if !kwargs.contains(key)? {
                        kwargs.set_item(key, s.config.bind(py).getattr(key)?)?; // the helper's, unless given
                    }
                }
                if let (Some(served), false) = (&served, kwargs.contains("incoming")?) {
                    // Inside a served request: its caller's deadline, key and retrying layer, unless given.
                    kwargs.set_item("incoming", served.bind(py).borrow().incoming.clone_ref(py))?;
                }
                responses = kwargs.get_item("returns_responses")?.map_or(Ok(false), |value| value.is_truthy())?;
                kwargs.set_item("now_ms", now)?;
                kwargs.set_item("record_events", observe)?;
                kwargs.set_item("concurrency", s.concurrency.name())?;
                let driver = py.get_type::<PyDriver>().call((), Some(&kwargs))?;
                driver.cast_into::<PyDriver>()?.unbind()
            }
        };
        let (name, read) = (s.name.clone_ref(py), s.outcome_of_result.as_ref().map(|read| read.clone_ref(py)));
        Ok(Run {
            settings: settings.clone().unbind(),
            driver,
            log,
            observe,
            name,
            read,
            responses,
            plan: None,
            kept: Vec::new(),
            next_token: 0,
            pending: None,
            telemetry,
            handed_in: None,
            key_sent: true,
            served,
        })
    }
}

impl Run {
    /// The helper's clock in ms.
    pub(crate) fn clock_ms(&self, py: Python<'_>) -> PyResult<u64> {
        self.settings.get().now_ms(py)
    }

    /// What the host holds under `token`, no longer held (a handful at most: a search beats a map).
    fn take_kept(&mut self, token: u64) -> Option<Kept> {
        let index = self.kept.iter().position(|(kept, _)| *kept == token)?;
        Some(self.kept.swap_remove(index).1)
    }
}

/// What an attempt ended with, as the core is handed it: an outcome, or a response the core reads.
pub(crate) enum Meaning {
    Outcome(Outcome),
    Response(ResponseHead, u64),
}

/// How an attempt ended: what it means to the core, and what it carried (a value or an error, as held).
pub(crate) struct Ended(pub(crate) Meaning, pub(crate) Option<Py<PyAny>>, pub(crate) Held);

/// A run with what its loop reads at every step, taken once.
pub(crate) struct Ctx<'a, 'py> {
    run: &'a Bound<'py, Run>,
    py: Python<'py>,
    settings: Bound<'py, Settings>,
    driver: Bound<'py, PyDriver>,
    observe: bool,
}

/// What an error nothing classified means: the core's one default (`Verdict::UNKNOWN_ERROR`).
fn unknown_error() -> Outcome {
    Outcome::Application { verdict: Verdict::UNKNOWN_ERROR }
}

/// What a hook returned: an Outcome, or None for `default`.
pub(crate) fn outcome_arg(obj: &Bound<'_, PyAny>, default: Outcome) -> PyResult<Outcome> {
    match obj.cast::<PyOutcome>() {
        Ok(outcome) => Ok(outcome.get().inner),
        Err(_) if obj.is_none() => Ok(default),
        Err(_) => Err(PyErr::from(wrong_type("outcome", "a retryplan.Outcome", obj))),
    }
}

/// The core's refusal of a clock that did not move through a wait (`InvalidArgumentError` naming `clock`), with
/// Python's two ways out.
pub(crate) fn still_clock(refused: retryplan::Error) -> PyErr {
    match refused {
        retryplan::Error::InvalidArgument { field: "clock", rule } => PyErr::from(invalid(
            "clock",
            format!(
                "{rule} (give `clock=` one this sleep moves, or in tests use retryplan.testing.fake_time(), which \
                 fakes both)"
            ),
        )),
        other => PyErr::from(Fault::from(other)),
    }
}

/// One move of a sequential loop: the next attempt to run (`Continue`) or the ending (`Break`), or seconds to sleep.
pub(crate) enum Step {
    Next(ControlFlow<Ending, AttemptPlan>),
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

    fn observed(&self) -> PyResult<()> {
        if self.observe {
            self.s().shared.helpers.bind(self.py).call_method1(intern!(self.py, "observed"), (self.run,))?;
        }
        Ok(())
    }

    /// The next action from the driver at `now`; what it says to release is dropped (a response: closed) here.
    fn poll_at(&self, now: u64) -> PyResult<Action> {
        loop {
            let action = self.driver.borrow_mut().inner.poll_action(now);
            self.observed()?;
            match action.map_err(Fault::from)? {
                Action::Release { token } => self.release(token)?,
                action => return Ok(action),
            }
        }
    }

    /// The operation ends `cancelled` (the caller gave up, or the helper failed): nothing the host holds is
    /// returned now, so every value it holds is disposed of (an error `on_discard` raises then is dropped: it
    /// must not hide the error being raised).
    pub(crate) fn cancel(&self) -> PyResult<()> {
        let now = self.s().now_ms(self.py)?;
        self.driver.borrow_mut().inner.handle_cancel(now);
        let kept = std::mem::take(&mut self.run.borrow_mut().kept);
        for Kept { object, held } in kept.into_iter().map(|(_, kept)| kept) {
            if held == Held::Value {
                let _ = self.dispose(Some(object));
            }
        }
        self.observed()
    }

    pub(crate) fn dispose(&self, value: Option<Py<PyAny>>) -> PyResult<()> {
        match (&self.s().dispose, value) {
            (Some(dispose), Some(value)) if !value.is_none(self.py) => dispose.bind(self.py).call1((value,)).map(drop),
            _ => Ok(()),
        }
    }

    /// Drops what the host holds under `token` (a value: disposed of).
    fn release(&self, token: u64) -> PyResult<()> {
        let kept = self.run.borrow_mut().take_kept(token);
        match kept {
            Some(Kept { object, held: Held::Value, .. }) => self.dispose(Some(object)),
            _ => Ok(()),
        }
    }

    /// Hands in how `plan`'s attempt ended at `now`; true when accepted. What it carried is kept under a
    /// token until the driver says what becomes of it.
    pub(crate) fn report(&self, now: u64, plan: AttemptPlan, ended: Ended) -> PyResult<bool> {
        let Ended(meaning, object, held) = ended;
        let object = object.filter(|object| !object.is_none(self.py));
        if self.observe {
            self.run.borrow_mut().handed_in = object.as_ref().map(|object| object.clone_ref(self.py));
        }
        let token = object.map(|object| {
            let mut run = self.run.borrow_mut();
            let token = run.next_token;
            run.next_token += 1;
            run.kept.push((token, Kept { object, held }));
            token
        });
        let handed = {
            let mut driver = self.driver.borrow_mut();
            match &meaning {
                Meaning::Outcome(outcome) => {
                    driver.hand_in(now, plan.attempt, *outcome, token.map(|token| (token, held)))
                }
                // Python's helpers follow redirects hop by hop: each response is its own attempt's.
                Meaning::Response(head, now_unix) => {
                    driver.hand_in_response(now, plan.attempt, head, *now_unix, token, false)
                }
            }
        };
        let receipt = match handed {
            Ok(receipt) => receipt,
            Err(fault) => {
                let refused = PyErr::from(fault);
                let mut run = self.run.borrow_mut();
                run.handed_in = None;
                // Refused: nothing changed, it stays the caller's; an error the attempt raised is the refusal's cause.
                if let Some(Kept { object, held: Held::Error }) = token.and_then(|token| run.take_kept(token)) {
                    refused.set_cause(self.py, Some(PyErr::from_value(object.into_bound(self.py))));
                }
                return Err(refused);
            }
        };
        let observed = self.observed();
        if self.observe {
            self.run.borrow_mut().handed_in = None;
        }
        observed?;
        if let (Receipt::Discarded, Some(token)) = (receipt, token) {
            self.release(token)?;
        }
        Ok(receipt == Receipt::Accepted)
    }

    /// Hands in how `plan`'s attempt ended: whether accepted, and the next action with the clock reading
    /// it was polled at (one reading for both).
    pub(crate) fn reported(&self, plan: AttemptPlan, ended: Ended) -> PyResult<(bool, (Action, u64))> {
        let now = self.s().now_ms(self.py)?;
        let accepted = self.report(now, plan, ended)?;
        Ok((accepted, (self.poll_at(now)?, now)))
    }

    /// `reported`, for an attempt loop: the next action is kept for its next step.
    pub(crate) fn reported_in_loop(&self, plan: AttemptPlan, ended: Ended) -> PyResult<bool> {
        let (accepted, pending) = self.reported(plan, ended)?;
        self.run.borrow_mut().pending = Some(pending);
        Ok(accepted)
    }

    /// What an attempt's error means: the failure table, else the hook, else the core's verdict for an
    /// unknown error (`ambiguous`). An invalid request (a bad URL or header) or misuse of retryplan ends the
    /// operation and is raised again unchanged (`is_raised_again`).
    pub(crate) fn outcome_of(&self, error: &Bound<'py, PyAny>) -> PyResult<Meaning> {
        let meaning = self.in_table(error)?;
        if let Ok(outcome) = meaning.cast::<PyOutcome>() {
            return Ok(Meaning::Outcome(outcome.get().inner));
        }
        if meaning.is(self.s().shared.invalid_request.bind(self.py)) {
            return Err(self.raised_again(error));
        }
        Ok(Meaning::Outcome(match &self.s().outcome_of_error {
            Some(hook) => outcome_arg(&hook.bind(self.py).call1((error,))?, unknown_error())?,
            None => unknown_error(),
        }))
    }

    /// What the failure table says of `error`: an Outcome, `INVALID_REQUEST`, or None (not recognised).
    fn in_table(&self, error: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let (py, shared) = (self.py, self.s().shared);
        match shared.known.bind(py).get_item(error.get_type())? {
            Some(known) if known.is_none() || known.is_instance_of::<PyOutcome>() => Ok(known),
            // A class not seen yet, or an answer that reads the error: a response it carries is read as the
            // operation's policy reads responses.
            _ => shared.table.bind(py).call1((error, self.s().policy.bind(py))),
        }
    }

    /// True when `error`, leaving an attempt, is raised again unchanged and ends the operation: an invalid
    /// request (a bad URL or header), or misuse of retryplan itself (a `CallerError` or `ConfigurationError`).
    pub(crate) fn is_raised_again(&self, error: &Bound<'py, PyAny>) -> PyResult<bool> {
        Ok(self.in_table(error)?.is(self.s().shared.invalid_request.bind(self.py)))
    }

    /// Ends the operation (`cancelled`) for `error`, raised again unchanged whatever an observer raises.
    pub(crate) fn raised_again(&self, error: &Bound<'py, PyAny>) -> PyErr {
        let _ = self.cancel();
        PyErr::from_value(error.clone())
    }

    /// What a returned value means: success, unless the run's `read` says otherwise; an HTTP helper's
    /// response is read by the core from `read(response)`: `(status, headers, now_unix)`.
    fn outcome_of_value(&self, value: &Bound<'py, PyAny>) -> PyResult<Meaning> {
        let (read, responses) = {
            let run = self.run.borrow();
            (run.read.as_ref().map(|read| read.clone_ref(self.py)), run.responses)
        };
        let Some(read) = read else { return Ok(Meaning::Outcome(Outcome::Success)) };
        let answer = read.bind(self.py).call1((value,))?;
        if !responses {
            return Ok(Meaning::Outcome(outcome_arg(&answer, Outcome::Success)?));
        }
        let (status, headers, now_unix) = answer.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
        let head = ResponseHead::read(&status, &headers)?;
        Ok(Meaning::Response(head, NOW_UNIX.read(Some(&now_unix), None)?))
    }

    /// `ended`, for a result the driver has not taken: when judging it fails (a hook that raises, or answers
    /// what is not an Outcome), a returned value is disposed of (it never reaches the caller) and the error
    /// raised.
    pub(crate) fn judged(
        &self,
        value: Option<&Bound<'py, PyAny>>,
        error: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Ended> {
        self.ended(value, error).inspect_err(|_| {
            if error.is_none() {
                let _ = self.dispose(value.map(|value| value.clone().unbind()));
            }
        })
    }

    /// How an attempt that returned `value` or raised `error` ended, and what it carried.
    pub(crate) fn ended(
        &self,
        value: Option<&Bound<'py, PyAny>>,
        error: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Ended> {
        Ok(match (error, value) {
            (Some(error), _) => Ended(self.outcome_of(error)?, Some(error.clone().unbind()), Held::Error),
            (None, Some(value)) => Ended(self.outcome_of_value(value)?, Some(value.clone().unbind()), Held::Value),
            (None, None) => Ended(Meaning::Outcome(Outcome::Success), None, Held::Value),
        })
    }

    /// One move from `action` polled at `now` (else a new poll): an attempt to run (started: the attempt
    /// running), the ending, or the seconds to sleep. A wait already over is polled again at once, at the
    /// same reading of the clock.
    pub(crate) fn step(&self, polled: Option<(Action, u64)>) -> PyResult<Step> {
        let (mut action, mut now) = match polled {
            Some(polled) => polled,
            None => self.poll_now()?,
        };
        loop {
            match action {
                Action::StartAttempt(plan) => return Ok(Step::Next(ControlFlow::Continue(self.start(plan)))),
                Action::Finish(ending) => return Ok(Step::Next(ControlFlow::Break(ending))),
                Action::Sleep { until_ms } if until_ms > now => {
                    let seconds = until_ms as f64 / 1000.0 - self.s().now(self.py)?;
                    if seconds > 0.0 {
                        return Ok(Step::Sleep(seconds));
                    }
                    (action, now) = self.poll_now()?;
                }
                // One attempt at a time: an aborted one has returned already (late, and discarded); `poll`
                // has dropped what a release names.
                Action::Sleep { .. } | Action::AbortAttempt { .. } | Action::Release { .. } => {
                    action = self.poll_at(now)?
                }
            }
        }
    }

    /// An attempt loop left before its operation ended (`break`, `return` or an error outside `with attempt:`
    /// after a failed attempt): the operation is cancelled, as when its caller gives up, so its grants go back and
    /// its observers see it end; either way what it kept is dropped at once (a failed attempt's error holds the
    /// frame that holds the loop's attempt, which holds this run), not at the collector's next pass. An error an
    /// observer raises here reaches nobody: it is reported as unraisable.
    pub(crate) fn abandon(&self) {
        let ended = self.run.borrow().driver.try_borrow(self.py).map_or(true, |driver| driver.inner.is_ended());
        if !ended {
            if let Err(error) = self.cancel() {
                error.write_unraisable(self.py, Some(self.run.as_any()));
            }
        }
        self.run.borrow_mut().kept.clear();
    }

    /// `plan` starts: the attempt running.
    fn start(&self, plan: AttemptPlan) -> AttemptPlan {
        self.run.borrow_mut().plan = Some(plan);
        plan
    }

    fn poll_now(&self) -> PyResult<(Action, u64)> {
        let now = self.s().now_ms(self.py)?;
        Ok((self.poll_at(now)?, now))
    }

    /// The next attempt to run (started), sleeping (cancellably) as the driver says; or the ending.
    #[inline(always)]
    pub(crate) fn next_plan(
        &self,
        sleep: &Bound<'py, PyAny>,
        polled: Option<(Action, u64)>,
    ) -> PyResult<ControlFlow<Ending, AttemptPlan>> {
        let mut polled = match polled {
            // The common moves, taken here: an Action is large, and each hand-on through `step` copies it
            // (through it, `@retry` and `attempts()` are 3-8% slower per attempt: sessions 9 and 14).
            Some((Action::StartAttempt(plan), _)) => return Ok(ControlFlow::Continue(self.start(plan))),
            Some((Action::Finish(ending), _)) => return Ok(ControlFlow::Break(ending)),
            polled => polled,
        };
        loop {
            match self.step(polled.take())? {
                Step::Next(next) => return Ok(next),
                Step::Sleep(seconds) => {
                    if let Err(error) = sleep.call1((seconds,)) {
                        let _ = self.cancel(); // the sleep's error is raised, whatever an observer raises
                        return Err(error);
                    }
                    polled = Some(self.timer_ended()?);
                }
            }
        }
    }

    /// The sleep (the caller's, which may return early) or the event loop's timer (which may fire early: asyncio's
    /// timers on Windows, up to a clock tick) for the driver's last `Sleep` ran out: the driver judges whether the
    /// helper's clock moved through the wait, timing the sleeps by the real clock (a fake sleep that does not move
    /// the clock, or a clock that stands still, is refused: the wait would never end), then the next action at
    /// the same reading of the clock.
    pub(crate) fn timer_ended(&self) -> PyResult<(Action, u64)> {
        let now = self.s().now_ms(self.py)?;
        let real_ms = self.s().shared.monotonic.0.elapsed().as_millis() as u64;
        let judged = self.driver.borrow_mut().inner.handle_sleep_end(now, real_ms);
        if let Err(refused) = judged {
            let _ = self.cancel();
            return Err(still_clock(refused));
        }
        Ok((self.poll_at(now)?, now))
    }

    /// Runs the operation one blocking attempt at a time; returns the ending.
    pub(crate) fn run_sequential(
        &self,
        attempt: &Bound<'py, PyAny>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
        sleep: &Bound<'py, PyAny>,
        started: Option<u64>,
    ) -> PyResult<Ending> {
        let py = self.py;
        let at = match started {
            Some(now) => now, // the first poll at the reading the driver was made at
            None => self.s().now_ms(py)?,
        };
        let mut polled = Some((self.poll_at(at)?, at));
        loop {
            let plan = match self.next_plan(sleep, polled.take())? {
                ControlFlow::Continue(plan) => plan,
                ControlFlow::Break(ending) => return Ok(ending),
            };
            let ended = match attempt.call(args, kwargs) {
                // A plain function that returned a coroutine: nothing in it ran, and nothing it raises would be
                // retried; refused (closed) before the driver counts it a success.
                Ok(value) if value.get_type().is(self.s().shared.coroutine.bind(py)) => {
                    // `_refuse_coroutine` raises the refusal; the error is what it raised.
                    Err(self.s().shared.refuse_coroutine.bind(py).call1((value, attempt)).err().unwrap_or_else(|| {
                        pyo3::exceptions::PyTypeError::new_err("a plain function returned a coroutine")
                    }))
                }
                Ok(value) => self.judged(Some(&value), None),
                Err(error) if error.is_instance_of::<PyException>(py) => {
                    self.judged(None, Some(error.into_value(py).bind(py).as_any()))
                }
                Err(interrupted) => Err(interrupted), // KeyboardInterrupt, SystemExit: the caller gave up
            };
            // A hook that raised, an outcome the core refused, or the caller giving up: the operation ends.
            match ended.and_then(|ended| self.reported(plan, ended)) {
                Ok((_, next)) => polled = Some(next),
                Err(error) => {
                    let _ = self.cancel(); // an observer that raises again must not hide this error
                    return Err(error);
                }
            }
        }
    }

    /// The value the ending returns and until when it is readable (ms; None: the caller's, a success's);
    /// or raises the typed ending (GaveUpError, ReconcileRequiredError, RestartRequiredError), as the driver says.
    /// The driver has released every other result the host held (its releases come before its ending).
    pub(crate) fn end_with_window(&self, ending: Ending) -> PyResult<(Py<PyAny>, Option<u64>)> {
        if let Some(served) = &self.run.borrow().served {
            served.bind(self.py).borrow_mut().record(&ending); // the answer the served request gives its caller
        }
        let held = ending.result.and_then(|result| Some((result, self.run.borrow_mut().take_kept(result.token)?)));
        let (value, error) = match held {
            // A success after an error the hook called one returns no value (None), as JS and Kotlin do.
            Some((result, Kept { held: Held::Error, .. })) if result.returned => return Ok((self.py.None(), None)),
            Some((result, kept)) if result.returned => return Ok((kept.object, result.readable_until_ms)),
            // Not returned: raised with it, an error as the cause, a function's value as `last_value` (the
            // driver has the response of an HTTP helper closed instead).
            Some((_, Kept { object, held: Held::Error })) => (None, Some(object)),
            Some((_, Kept { object, held: Held::Value })) => (Some(object), None),
            None if matches!(ending.decision, retryplan::Decision::Succeeded { .. }) => {
                return Ok((self.py.None(), None))
            }
            None => (None, None),
        };
        Err(self.failure(ending, value, error)?)
    }

    /// The winner's value, or raises the typed ending.
    pub(crate) fn end(&self, ending: Ending) -> PyResult<Py<PyAny>> {
        self.end_with_window(ending).map(|(value, _)| value)
    }

    /// The typed ending, carrying the ending's held result: the value it returned or the error it raised.
    fn failure(&self, ending: Ending, value: Option<Py<PyAny>>, error: Option<Py<PyAny>>) -> PyResult<PyErr> {
        let (py, ending) = (self.py, action_to_py(self.py, Action::Finish(ending))?);
        let helpers = self.s().shared.helpers.bind(py);
        Ok(PyErr::from_value(helpers.call_method1(intern!(py, "failure"), (self.run, ending, value, error))?))
    }
}

#[pymethods]
impl Run {
    /// What it holds, for the cycle collector: a failed attempt's error kept under its token holds its
    /// traceback, whose frame holds the `Attempt`, which holds this `Run`: an attempt loop left early
    /// (`break` after a failure) was such a cycle, never collected, its driver never dropped.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.settings)?;
        visit.call(&self.driver)?;
        visit.call(&self.name)?;
        for held in [&self.log, &self.read, &self.telemetry, &self.handed_in] {
            visit.call(held.as_ref())?;
        }
        visit.call(self.served.as_ref())?;
        for (_, kept) in &self.kept {
            visit.call(&kept.object)?;
        }
        Ok(())
    }

    /// Breaks a cycle the collector found: drops the results kept (their errors hold frames) and the observers'
    /// state.
    fn __clear__(&mut self) {
        self.kept.clear();
        self.handed_in = None;
        self.telemetry = None;
        self.read = None;
    }

    /// A new operation of `settings` (`options`: `idempotency_key`, `deadline`, `method`, `idempotent`,
    /// `policy`, ...; None values are left out).
    #[new]
    #[pyo3(signature = (settings, options = None))]
    fn py_new(settings: &Bound<'_, Settings>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Run> {
        Run::new(settings, options, settings.get().now_ms(settings.py())?)
    }

    /// One operation of `settings`, each attempt `attempt(*args, **kwargs)`: its value, or raises the typed ending
    /// (the hot path of `@retry` on a plain function; `current_attempt()` works inside).
    #[staticmethod]
    fn sequential(
        settings: &Bound<'_, Settings>,
        attempt: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
        sleep: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let py = settings.py();
        let now = settings.get().now_ms(py)?;
        let run = Bound::new(py, Run::new(settings, None, now)?)?;
        let shared = settings.get().shared;
        let token = shared.enter.bind(py).call1((&run,))?;
        let ctx = Ctx::of(&run);
        let ending = ctx.run_sequential(attempt, args, kwargs, sleep, Some(now));
        shared.leave.bind(py).call1((token,))?;
        ctx.end(ending?)
    }

    /// The helper's `Config` (its hooks).
    #[getter]
    fn config(&self, py: Python<'_>) -> Py<PyAny> {
        self.settings.get().config.clone_ref(py)
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
        let ctx = Ctx::of(slf);
        action_to_py(slf.py(), ctx.poll_at(ctx.s().now_ms(slf.py())?)?)
    }

    /// Hands in how `plan`'s attempt ended: it raised `error` (the failure table, the hook, `not_retryable`;
    /// an invalid request ends the operation and is raised again), else returned `value` (read as the
    /// helper says). True when accepted; what it carried is kept until the driver says.
    #[pyo3(signature = (plan, value, error = None))]
    fn settle(
        slf: &Bound<'_, Self>,
        plan: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        error: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let (ctx, plan) = (Ctx::of(slf), plan_arg(plan)?);
        let ended = ctx.judged(Some(value), error)?;
        ctx.report(ctx.s().now_ms(slf.py())?, plan, ended)
    }

    /// The caller gave up on the operation (a cancelled task, a KeyboardInterrupt): it ends `cancelled`.
    fn cancel(slf: &Bound<'_, Self>) -> PyResult<()> {
        Ctx::of(slf).cancel()
    }

    /// Runs the operation one blocking attempt at a time (`attempt(*args)`: the sync HTTP helpers); returns the
    /// Ending.
    fn call(
        slf: &Bound<'_, Self>,
        attempt: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        sleep: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let ending = Ctx::of(slf).run_sequential(attempt, args, None, sleep, None)?;
        action_to_py(slf.py(), Action::Finish(ending))
    }

    /// The event loop's timer for the last `Sleep` ran out (it was not woken): the driver judges whether the clock
    /// moved through the wait (refused, `InvalidArgumentError` naming `clock`, when it did not), then the next
    /// action (observed when someone listens).
    fn timer_ended(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        action_to_py(slf.py(), Ctx::of(slf).timer_ended()?.0)
    }

    /// The winner's value, or raises the typed ending.
    fn end(slf: &Bound<'_, Self>, ending: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Ctx::of(slf).end(ending_arg(ending)?)
    }

    /// What an HTTP helper's ending returns: the response and the seconds left to read its body in (None:
    /// a success, whose body is the caller's); or raises the typed ending, as the driver says.
    fn finish(slf: &Bound<'_, Self>, ending: &Bound<'_, PyAny>) -> PyResult<(Py<PyAny>, Option<f64>)> {
        let ctx = Ctx::of(slf);
        let (value, abort_at_ms) = ctx.end_with_window(ending_arg(ending)?)?;
        let now = ctx.s().now(slf.py())?;
        Ok((value, abort_at_ms.map(|abort_at_ms| (abort_at_ms as f64 / 1000.0 - now).max(0.0))))
    }
}

fn ending_arg(ending: &Bound<'_, PyAny>) -> PyResult<Ending> {
    match crate::driver::action_arg(ending) {
        Some(Action::Finish(ending)) => Ok(ending),
        _ => Err(PyErr::from(wrong_type("ending", "a retryplan.Ending", ending))),
    }
}
