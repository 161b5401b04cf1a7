//! `Driver`: the host loop, decided once in the core. Results go in as the
//! host observes them; one action comes out per poll (`AttemptPlan`: start
//! it, `AbortAttempt`, `Sleep`, `Ending`). Every helper adapts its runtime to it.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::types::{PyBool, PyDict, PyList, PyString};
use retryplan::config::value::Named;
use retryplan::wire;
use retryplan::{Action, AttemptResult, Concurrency, Driver, DriverOptions, Event, Held, OperationOptions, Receipt};

use crate::args::{by_name, class_arg, given, str_arg, u32_arg, u64_arg, NOW, NOW_UNIX};
use crate::controls::PyStats;
use crate::data::{repr_of, serialized};
use crate::decision::{decision_to_py, IntoField};
use crate::fault::{invalid, wrong_type, Res};
use crate::operation::options;
use crate::outcome::{PyOutcome, ResponseHead};
use crate::policy::PyPolicy;
use crate::propagation::{headers_to_py, protocol_arg, PyIncomingContext};

/// One thing the host must do now; one subclass per kind: `AttemptPlan`
/// (start this attempt), `AbortAttempt`, `Sleep`, `Ending`. Times are
/// absolute ms on the host's clock.
#[pyclass(module = "retryplan", name = "Action", frozen, subclass)]
pub(crate) struct PyAction {
    inner: Action,
}

#[pymethods]
impl PyAction {
    /// The snake_case kind: `start_attempt`, `abort_attempt`, `sleep`, `release` or `finish`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind().name()
    }

    /// The action in the vectors' JSON shape.
    fn to_dict<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner)
    }

    /// `Sleep(until_ms=...)`: its class and the fields of its JSON shape.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(repr_of(&slf.get_type().name()?.to_cow()?, &slf.get().inner))
    }
}

/// Start this attempt now, as planned; report how it ended with `Driver.handle_result`.
#[pyclass(module = "retryplan", frozen, extends = PyAction, get_all)]
pub(crate) struct AttemptPlan {
    /// Attempt number, 1 for the first.
    attempt: u32,
    /// The effective timeout: min(per-attempt timeout, time left), in ms.
    timeout_ms: u64,
    /// When the driver counts the attempt as timed out (now + timeout_ms).
    abort_at_ms: u64,
    /// Time left at the start, after the response reserve.
    remaining_ms: u64,
    /// True for a hedge: an extra attempt while another still runs.
    hedge: bool,
    /// True when the request carries the operation's idempotency key.
    send_idempotency_key: bool,
    /// A fresh id for this attempt's request (send it as `X-Request-Id`).
    request_id: String,
}

impl AttemptPlan {
    fn of(plan: retryplan::AttemptPlan) -> AttemptPlan {
        let retryplan::AttemptPlan { attempt, timeout_ms, abort_at_ms, remaining_ms, hedge, .. } = plan;
        let (send_idempotency_key, request_id) = (plan.send_idempotency_key, plan.request_id.to_string());
        AttemptPlan { attempt, timeout_ms, abort_at_ms, remaining_ms, hedge, send_idempotency_key, request_id }
    }
}

/// Abort this running attempt (its result, if it still delivers one, is discarded).
#[pyclass(module = "retryplan", frozen, extends = PyAction, get_all)]
pub(crate) struct AbortAttempt {
    /// The attempt to abort.
    attempt: u32,
    /// `timed_out`, `lost_race`, `cancelled` or `operation_ended`.
    reason: &'static str,
}

/// Sleep until `until_ms`, waking early for a result or the caller's cancel; then poll.
#[pyclass(module = "retryplan", frozen, extends = PyAction, get_all)]
pub(crate) struct Sleep {
    /// When to poll again at the latest.
    until_ms: u64,
}

/// Drop what the host holds under `token` now (only for results handed in with a token).
#[pyclass(module = "retryplan", frozen, extends = PyAction, get_all)]
pub(crate) struct Release {
    /// The host's token.
    token: u64,
}

/// The operation has ended: return or raise `decision`; every poll from now on returns it again.
#[pyclass(module = "retryplan", frozen, extends = PyAction)]
pub(crate) struct Ending {
    inner: retryplan::Ending,
}

#[pymethods]
impl Ending {
    /// The final decision: Succeeded, GaveUp, Reconcile or Restart.
    #[getter]
    fn decision(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        decision_to_py(py, self.inner.decision)
    }

    /// True when the operation succeeded.
    #[getter]
    fn succeeded(&self) -> bool {
        matches!(self.inner.decision, retryplan::Decision::Succeeded { .. })
    }

    /// The last attempt result taken into account (the winner's for a success), or None.
    #[getter]
    fn last_result(&self, py: Python<'_>) -> PyResult<Option<Py<PyAttemptResult>>> {
        result_to_py(py, self.inner.last_result)
    }

    /// The one held result this ending concerns (return it, or raise with it as the cause), or None:
    /// raise the ending alone.
    #[getter]
    fn result(&self) -> Option<EndingResult> {
        self.inner.result.map(|result| EndingResult { token: result.token, returned: result.returned })
    }

    /// The typed ending's whole message, the core's (`Ending::message`): its words, and the hint
    /// naming `outcome_of_error=` after an error nothing classified; None for a success.
    fn message(&self, operation: &str, idempotency_key: &str) -> Option<String> {
        self.inner.message(operation, idempotency_key, "outcome_of_error=").map(|message| message.to_string())
    }
}

/// What an ending does with the result the host holds under `token`.
#[pyclass(module = "retryplan", frozen, get_all)]
pub(crate) struct EndingResult {
    /// The host's token for it.
    token: u64,
    /// True: return the value held under `token`. False: raise the typed ending, with what the token
    /// holds as its cause.
    returned: bool,
}

/// An attempt and how it ended.
#[pyclass(module = "retryplan", name = "AttemptResult", frozen, get_all)]
pub(crate) struct PyAttemptResult {
    /// The attempt number.
    attempt: u32,
    /// How it ended.
    outcome: Py<PyOutcome>,
}

/// The receipt's name: `"accepted"`, or `"discarded"` (dispose of what the result carried now).
fn receipt_to_py(py: Python<'_>, receipt: Receipt) -> Bound<'_, PyString> {
    PyString::intern(py, receipt.name())
}

/// A concurrency by name (None: `concurrent`); an unknown name is refused.
pub(crate) fn concurrency_arg(obj: Option<&Bound<'_, PyAny>>) -> Res<Concurrency> {
    obj.filter(|obj| !obj.is_none()).map_or(Ok(Concurrency::Concurrent), |obj| by_name("concurrency", obj))
}

fn result_to_py(py: Python<'_>, result: Option<AttemptResult>) -> PyResult<Option<Py<PyAttemptResult>>> {
    let to_py = |AttemptResult { attempt, outcome }| {
        Py::new(py, PyAttemptResult { attempt, outcome: Py::new(py, PyOutcome { inner: outcome })? })
    };
    result.map(to_py).transpose()
}

/// An action as an instance of its subclass.
pub(crate) fn action_to_py(py: Python<'_>, inner: Action) -> PyResult<Py<PyAny>> {
    let base = PyClassInitializer::from(PyAction { inner });
    Ok(match inner {
        Action::StartAttempt(plan) => Bound::new(py, base.add_subclass(AttemptPlan::of(plan)))?.into_any(),
        Action::AbortAttempt { attempt, reason } => {
            Bound::new(py, base.add_subclass(AbortAttempt { attempt, reason: reason.name() }))?.into_any()
        }
        Action::Sleep { until_ms } => Bound::new(py, base.add_subclass(Sleep { until_ms }))?.into_any(),
        Action::Release { token } => Bound::new(py, base.add_subclass(Release { token }))?.into_any(),
        Action::Finish(inner) => Bound::new(py, base.add_subclass(Ending { inner }))?.into_any(),
    }
    .unbind())
}

/// A decision the driver made, for observers (the helpers' `on_decision` hook, logs, metrics).
#[pyclass(module = "retryplan", name = "Event", frozen)]
pub(crate) struct PyEvent {
    /// When it was made (the host's clock, ms).
    #[pyo3(get)]
    at_ms: u64,
    /// The decision.
    #[pyo3(get)]
    decision: Py<PyAny>,
    /// The result that led to it, when one did.
    #[pyo3(get)]
    after: Option<Py<PyAttemptResult>>,
    pub(crate) inner: Event,
}

#[pymethods]
impl PyEvent {
    /// The event in the vectors' JSON shape.
    fn to_dict<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        repr_of("Event", &self.inner)
    }
}

/// The action a Python `Action` carries, if `obj` is one.
pub(crate) fn action_arg(obj: &Bound<'_, PyAny>) -> Option<Action> {
    obj.cast::<PyAction>().ok().map(|action| action.get().inner)
}

/// The plan an `AttemptPlan` carries.
pub(crate) fn plan_arg(obj: &Bound<'_, PyAny>) -> Res<retryplan::AttemptPlan> {
    match action_arg(obj) {
        Some(Action::StartAttempt(plan)) => Ok(plan),
        _ => Err(wrong_type("plan", "a retryplan.AttemptPlan", obj)),
    }
}

/// The host loop of one operation: results in, one action out per poll.
#[pyclass(module = "retryplan", name = "Driver")]
pub(crate) struct PyDriver {
    /// Boxed: a driver is a few KB, moved once instead of at every step of making its Python object.
    pub(crate) inner: Box<Driver>,
}

impl PyDriver {
    /// A driver of `policy` alone with these options (the helpers' common case).
    pub(crate) fn with(
        policy: &PyPolicy,
        now_ms: u64,
        concurrency: Concurrency,
        options: OperationOptions,
    ) -> Res<PyDriver> {
        let driver_options = DriverOptions { concurrency, ..DriverOptions::default() };
        Ok(PyDriver { inner: Box::new(Driver::new(&policy.inner, now_ms, options, driver_options)?) })
    }

    /// Hands in attempt `attempt`'s result, held by the host under `token` (as `held`) when given.
    pub(crate) fn hand_in(
        &mut self,
        now: u64,
        attempt: u32,
        outcome: retryplan::Outcome,
        token: Option<(u64, Held)>,
    ) -> Res<Receipt> {
        Ok(match token {
            Some((token, held)) => self.inner.handle_result_with_token(now, attempt, outcome, token, held)?,
            None => self.inner.handle_result(now, attempt, outcome)?,
        })
    }

    /// Hands in the response attempt `attempt` received, read by the core (held under `token` when given).
    pub(crate) fn hand_in_response(
        &mut self,
        now: u64,
        attempt: u32,
        head: &ResponseHead,
        now_unix_ms: u64,
        token: Option<u64>,
    ) -> Res<Receipt> {
        let header = |name: &'static str| head.headers.get(name);
        Ok(self.inner.handle_response(now, attempt, token, head.status, header, now_unix_ms)?)
    }
}

#[pymethods]
impl PyDriver {
    #[new]
    #[pyo3(signature = (policy, now = None, concurrency = None, *, now_ms = None, seed = None, idempotency_key = None, deadline = None, deadline_ms = None, dependency = None, method = None, idempotent = None, request_idempotency_key = None, stats = None, record_events = false, returns_responses = false, one_shot_body = false, incoming = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        policy: &Bound<'_, PyAny>,
        now: Option<&Bound<'_, PyAny>>,
        concurrency: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        idempotency_key: Option<&Bound<'_, PyAny>>,
        deadline: Option<&Bound<'_, PyAny>>,
        deadline_ms: Option<&Bound<'_, PyAny>>,
        dependency: Option<&Bound<'_, PyAny>>,
        method: Option<&Bound<'_, PyAny>>,
        idempotent: Option<&Bound<'_, PyAny>>,
        request_idempotency_key: Option<&Bound<'_, PyAny>>,
        stats: Option<&Bound<'_, PyAny>>,
        record_events: bool,
        returns_responses: bool,
        one_shot_body: bool,
        incoming: Option<&Bound<'_, PyAny>>,
    ) -> Res<Self> {
        let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
        let now = NOW.read(now, now_ms)?;
        let mut options = options(seed, idempotency_key, (deadline, deadline_ms), dependency)?;
        let flag = |flag: &Bound<'_, PyAny>| match flag.cast::<PyBool>() {
            Ok(flag) => Ok(flag.is_true()),
            Err(_) => Err(wrong_type("idempotent", "a bool or None", flag)),
        };
        let idempotent = idempotent.map(flag).transpose()?;
        let request_key = request_idempotency_key
            .filter(|key| !key.is_none())
            .map(|key| str_arg("request_idempotency_key", key))
            .transpose()?;
        match method {
            Some(method) => {
                let request = policy.http_request(&str_arg("method", method)?, idempotent, request_key.as_deref())?;
                options = options.with_http_request(request);
            }
            None if idempotent.is_some() => return Err(invalid("idempotent", "needs the request's method".to_owned())),
            None if request_key.is_some() => {
                return Err(invalid("request_idempotency_key", "needs the request's method".to_owned()))
            }
            None => {}
        }
        if one_shot_body {
            options = options.with_one_shot_body();
        }
        let concurrency = concurrency_arg(concurrency)?;
        let stats = stats.map(|stats| class_arg::<PyStats>("stats", stats).map(|stats| Arc::clone(&stats.inner)));
        let driver_options = DriverOptions { concurrency, stats: stats.transpose()?, record_events, returns_responses };
        let incoming = incoming.filter(|incoming| !incoming.is_none());
        let driver = match incoming {
            Some(incoming) => {
                let incoming = &class_arg::<PyIncomingContext>("incoming", incoming)?.inner;
                Driver::with_incoming(policy, now, options, driver_options, incoming)?
            }
            None => Driver::new(policy, now, options, driver_options)?,
        };
        Ok(PyDriver { inner: Box::new(driver) })
    }

    /// What to do now: an `AttemptPlan` to start, an `AbortAttempt`, a `Sleep` or the `Ending`.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn poll_action(
        &mut self,
        py: Python<'_>,
        now: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Py<PyAny>> {
        Ok(action_to_py(py, self.inner.poll_action(NOW.read(now, now_ms)?)?)?)
    }

    /// Hands in how attempt `attempt` ended: `"accepted"`, or `"discarded"` (dispose of what it carried).
    /// With a `token` (the host's int handle to what it holds, `held` `"value"` (default) or `"error"`) the
    /// driver says later what becomes of it: a `Release` action, or the `Ending.result`.
    #[pyo3(signature = (now = None, attempt = None, outcome = None, token = None, held = None, *, now_ms = None))]
    #[allow(clippy::too_many_arguments)]
    fn handle_result<'py>(
        &mut self,
        py: Python<'py>,
        now: Option<&Bound<'_, PyAny>>,
        attempt: Option<&Bound<'_, PyAny>>,
        outcome: Option<&Bound<'_, PyAny>>,
        token: Option<&Bound<'_, PyAny>>,
        held: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Bound<'py, PyString>> {
        let now = NOW.read(now, now_ms)?;
        let attempt = u32_arg("attempt", given("attempt", attempt)?)?;
        let outcome = class_arg::<PyOutcome>("outcome", given("outcome", outcome)?)?.inner;
        let held = held.map(|held| by_name::<Held>("held", held)).transpose()?;
        let token = match (token.map(|token| u64_arg("token", token)).transpose()?, held) {
            (Some(token), held) => Some((token, held.unwrap_or_default())),
            (None, Some(_)) => return Err(invalid("held", "needs a token".to_owned())),
            (None, None) => None,
        };
        Ok(receipt_to_py(py, self.hand_in(now, attempt, outcome, token)?))
    }

    /// Hands in the HTTP response attempt `attempt` received: `status` exactly as the platform gave it (any
    /// int; outside 100..=599 the core reads it as `malformed_response`), `headers` a mapping whose `get`
    /// finds lower-case names, Retry-After read as the policy says against the wall clock `now_unix`. Held
    /// as a value under `token` when given. `"accepted"` or `"discarded"`.
    #[pyo3(signature = (now = None, attempt = None, status = None, headers = None, now_unix = None, token = None, *, now_ms = None, now_unix_ms = None))]
    #[allow(clippy::too_many_arguments)]
    fn handle_response<'py>(
        &mut self,
        py: Python<'py>,
        now: Option<&Bound<'_, PyAny>>,
        attempt: Option<&Bound<'_, PyAny>>,
        status: Option<&Bound<'_, PyAny>>,
        headers: Option<&Bound<'_, PyAny>>,
        now_unix: Option<&Bound<'_, PyAny>>,
        token: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
        now_unix_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Bound<'py, PyString>> {
        let now = NOW.read(now, now_ms)?;
        let attempt = u32_arg("attempt", given("attempt", attempt)?)?;
        let head = ResponseHead::read(given("status", status)?, given("headers", headers)?)?;
        let now_unix = NOW_UNIX.read(now_unix, now_unix_ms)?;
        let token = token.map(|token| u64_arg("token", token)).transpose()?;
        Ok(receipt_to_py(py, self.hand_in_response(now, attempt, &head, now_unix, token)?))
    }

    /// One wire exchange (`retryplan::wire`): an input record (a sequence of ints: poll, result or
    /// cancel) in, the output record (a list of ints: the receipt and the next action) out; words and
    /// kinds by the positions and names of `wire_tables()`. A record that breaks the encoding's rules is
    /// refused with InvalidArgumentError naming the word; nothing changes then.
    fn exchange<'py>(&mut self, py: Python<'py>, words: &Bound<'py, PyAny>) -> Res<Bound<'py, PyList>> {
        let words: Vec<i64> = words.extract().map_err(|_| wrong_type("words", "a sequence of ints", words))?;
        let mut output = [wire::NONE; wire::OUTPUT_WORDS];
        self.inner.exchange(&words, &mut output)?;
        Ok(PyList::new(py, output)?)
    }

    /// The request headers of running attempt `attempt` sent at `now` to a next hop speaking
    /// `protocol` (`"http"` (default) or `"grpc"`), as a dict by lower-case name: the attempt's
    /// remaining time, its number, the key, whether a layer above retries. The core computes them.
    #[pyo3(signature = (attempt, now = None, protocol = None, *, now_ms = None))]
    fn outgoing_headers<'py>(
        &self,
        py: Python<'py>,
        attempt: &Bound<'_, PyAny>,
        now: Option<&Bound<'_, PyAny>>,
        protocol: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Bound<'py, PyDict>> {
        let (attempt, now) = (u32_arg("attempt", attempt)?, NOW.read(now, now_ms)?);
        let headers = self.inner.outgoing_headers(attempt, now, protocol_arg(protocol)?)?;
        Ok(headers_to_py(py, &headers)?)
    }

    /// The headers of the answer this layer gives its own caller once the operation has ended, for
    /// `protocol` (`"http"` (default) or `"grpc"`): "do not retry" after overload or an exhausted
    /// budget, else none (and none before the end).
    #[pyo3(signature = (protocol = None))]
    fn answer_headers<'py>(&self, py: Python<'py>, protocol: Option<&Bound<'_, PyAny>>) -> Res<Bound<'py, PyDict>> {
        Ok(headers_to_py(py, &self.inner.answer_headers(protocol_arg(protocol)?))?)
    }

    /// The caller abandons the operation: it gives up (`cancelled`), running attempts are aborted.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn handle_cancel(&mut self, now: Option<&Bound<'_, PyAny>>, now_ms: Option<&Bound<'_, PyAny>>) -> Res<()> {
        self.inner.handle_cancel(NOW.read(now, now_ms)?);
        Ok(())
    }

    /// The oldest recorded Event not yet read (only with `record_events=True`), or None.
    fn poll_event(&mut self, py: Python<'_>) -> PyResult<Option<PyEvent>> {
        let Some(inner) = self.inner.poll_event() else { return Ok(None) };
        let (decision, after) = (decision_to_py(py, inner.decision)?, result_to_py(py, inner.after)?);
        Ok(Some(PyEvent { at_ms: inner.at_ms, decision, after, inner }))
    }

    /// The operation's idempotency key (the same on every attempt).
    #[getter]
    fn idempotency_key(&self) -> &str {
        self.inner.idempotency_key().as_str()
    }

    /// The deadline in ms: min(start + total_timeout_ms, the caller's deadline).
    #[getter]
    fn deadline_ms(&self) -> u64 {
        self.inner.operation().deadline_ms()
    }

    /// Attempts started so far.
    #[getter]
    fn attempts_started(&self) -> u32 {
        self.inner.operation().attempts_started()
    }

    /// The attempts running now, ascending.
    #[getter]
    fn running_attempts(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.inner.operation().running_attempts().into_field(py)
    }

    /// True once the operation has ended.
    #[getter]
    fn is_ended(&self) -> bool {
        self.inner.is_ended()
    }
}

/// The request being served (`retryplan.propagation`'s ambient context): its `incoming` context, and its
/// answer, which the endings of the operations made inside it decide (the core's `propagation::Answer`: the
/// last give-up decides).
#[pyclass(module = "retryplan.propagation", name = "Served")]
pub(crate) struct PyServed {
    /// The context the core read from the request.
    #[pyo3(get)]
    incoming: Py<PyIncomingContext>,
    answer: retryplan::propagation::Answer,
}

#[pymethods]
impl PyServed {
    #[new]
    fn new(incoming: Py<PyIncomingContext>) -> Self {
        PyServed { incoming, answer: retryplan::propagation::Answer::new() }
    }

    /// An outgoing helper's operation ended with `ending`: called by the helpers.
    fn ended(&mut self, ending: PyRef<'_, Ending>) {
        self.answer.record(&ending.inner);
    }

    /// The answer's headers, for an HTTP caller (none until a helper gives up for overload or a budget).
    #[getter]
    fn answer<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        headers_to_py(py, &self.answer.headers(retryplan::propagation::Protocol::Http))
    }
}
