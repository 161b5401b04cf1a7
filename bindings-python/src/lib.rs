//! `retryplan._native`: the Python face of the retryplan engine.
//!
//! This crate converts types and errors and decides nothing; every number and
//! every decision comes from the `retryplan` crate. Conventions at the
//! boundary (see `README.md`):
//!
//! - a clock reading passed in (`now`, `deadline`, `now_unix`) is a float in
//!   seconds (`time.monotonic()`, `time.time()`); each has an exact
//!   integer-millisecond twin keyword (`now_ms`, `deadline_ms`, `now_unix_ms`);
//! - everything else is integer milliseconds named `_ms`, exactly as in core.
//!
//! Errors become the exceptions of `retryplan._errors` (built by its
//! `_from_native` factory) with core's stable `code`; no panic crosses.

use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use retryplan::policy::MAX_MS;
use std::sync::Arc;

use retryplan::aws::{self, ErrorCode};
use retryplan::grpc;
use retryplan::GrantCell;
use retryplan::{
    profiles, Admission, AttemptSet, BreakerConfig, BreakerPermit, BudgetConfig, CircuitBreaker, Class, Decision,
    Dependency, Error, GiveUpReason, GrpcCode, HeaderError, IdempotencyKey, Operation, OperationOptions, Outcome,
    Policy, PolicyConfig, Pushback, Redelivery, RequestId, RetryBudget, RetryCharge, Stats, Timeline,
};
use serde_json::Value;

// ---------------------------------------------------------------- errors

/// Why a call failed: core's error, a value of the wrong Python type, or a
/// Python exception raised while converting.
enum Failure {
    Core(Error),
    WrongType { name: &'static str, rule: String },
    Python(PyErr),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Core(error)
    }
}

impl From<HeaderError> for Failure {
    fn from(error: HeaderError) -> Self {
        Failure::Core(Error::from(error))
    }
}

impl From<PyErr> for Failure {
    fn from(error: PyErr) -> Self {
        Failure::Python(error)
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> Self {
        Python::attach(|py| match failure {
            Failure::Core(error) => core_error(py, &error).unwrap_or_else(|e| e),
            Failure::WrongType { name, rule } => {
                let message = format!("invalid argument `{name}`: {rule}");
                let details = [
                    ("name", Ok(PyString::new(py, name).into_any())),
                    ("rule", Ok(PyString::new(py, &rule).into_any())),
                    ("wrong_type", Ok(PyBool::new(py, true).to_owned().into_any())),
                ];
                exception(py, "invalid_argument", message, &details).unwrap_or_else(|e| e)
            }
            Failure::Python(error) => error,
        })
    }
}

type Res<T> = Result<T, Failure>;

fn invalid(name: &'static str, rule: String) -> Failure {
    Failure::Core(Error::InvalidArgument { name, rule })
}

fn wrong_type(name: &'static str, expected: &str, obj: &Bound<'_, PyAny>) -> Failure {
    let got = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned());
    Failure::WrongType { name, rule: format!("must be {expected}, got {got}") }
}

static FROM_NATIVE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Builds `retryplan._errors._from_native(code, message, details)` as a `PyErr`.
fn exception(
    py: Python<'_>,
    code: &str,
    message: String,
    details: &[(&str, PyResult<Bound<'_, PyAny>>)],
) -> PyResult<PyErr> {
    let factory = FROM_NATIVE
        .get_or_try_init(py, || py.import("retryplan._errors")?.getattr("_from_native").map(Bound::unbind))?
        .bind(py);
    let dict = PyDict::new(py);
    for (key, value) in details {
        match value {
            Ok(value) => dict.set_item(key, value)?,
            Err(error) => return Err(error.clone_ref(py)),
        }
    }
    Ok(PyErr::from_value(factory.call1((code, message, dict))?))
}

fn core_error(py: Python<'_>, error: &Error) -> PyResult<PyErr> {
    let text = |s: &str| Ok(PyString::new(py, s).into_any());
    let details: Vec<(&str, PyResult<Bound<'_, PyAny>>)> = match error {
        Error::InvalidPolicy { violations } => {
            let pairs: Vec<(String, String)> =
                violations.iter().map(|v| (v.field.clone(), v.message.clone())).collect();
            vec![("violations", pairs.into_bound_py_any(py))]
        }
        Error::InvalidPolicyJson { field, message } => vec![("field", text(field)), ("message", text(message))],
        Error::UnknownProfile { name, known: _ } => {
            vec![("name", text(name)), ("known", PyTuple::new(py, profiles::NAMES).map(Bound::into_any))]
        }
        Error::OperationEnded => vec![],
        Error::AttemptNotRunning { attempt, running } => vec![
            ("attempt", attempt.into_bound_py_any(py)),
            ("running", running.parse::<u32>().ok().into_bound_py_any(py)),
        ],
        Error::InvalidArgument { name, rule } => vec![("name", text(name)), ("rule", text(rule))],
        Error::Unsupported { field, rule } => vec![("field", text(field)), ("rule", text(rule))],
        Error::InvalidHeader(header) => {
            let mut details = vec![("header", text(header.header()))];
            match header {
                HeaderError::Empty { .. } => details.push(("kind", text("empty"))),
                HeaderError::Malformed { expected, value, .. } => {
                    details.extend([("kind", text("malformed")), ("expected", text(expected)), ("value", text(value))]);
                }
                HeaderError::OutOfRange { limit, value, .. } => {
                    details.extend([("kind", text("out_of_range")), ("limit", text(limit)), ("value", text(value))]);
                }
            }
            details
        }
        Error::EntropyUnavailable { message } => vec![("message", text(message))],
    };
    exception(py, error.code(), error.to_string(), &details)
}

// ---------------------------------------------------------------- arguments

fn u64_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u64> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(wrong_type(name, "an int", obj));
    }
    obj.extract::<u64>().map_err(|_| invalid(name, format!("must be an integer in 0..={}, got {obj}", u64::MAX)))
}

fn u32_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u32> {
    let value = u64_arg(name, obj)?;
    u32::try_from(value).map_err(|_| invalid(name, format!("must be an integer in 0..={}, got {value}", u32::MAX)))
}

fn u16_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u16> {
    let value = u64_arg(name, obj)?;
    u16::try_from(value).map_err(|_| invalid(name, format!("must be an integer in 0..={}, got {value}", u16::MAX)))
}

fn str_arg<'a>(name: &'static str, obj: &'a Bound<'_, PyAny>) -> Res<std::borrow::Cow<'a, str>> {
    let text = obj.cast::<PyString>().map_err(|_| wrong_type(name, "a str", obj))?;
    Ok(text.to_cow()?)
}

/// Float seconds to integer ms: the floor of `seconds * 1000`, where a float
/// that is the nearest one to a whole millisecond (e.g. `1.005`) counts as
/// exactly that millisecond, so `ms / 1000` always converts back to `ms`.
fn seconds_to_ms(name: &'static str, seconds: f64) -> Res<u64> {
    if seconds.is_nan() {
        return Err(invalid(name, "must be a number of seconds, got nan".to_owned()));
    }
    if !seconds.is_finite() {
        return Err(invalid(name, format!("must be finite, got {seconds}")));
    }
    if seconds < 0.0 {
        return Err(invalid(name, format!("must be >= 0, got {seconds}")));
    }
    let mut ms = (seconds * 1000.0).floor();
    if (ms + 1.0) / 1000.0 == seconds {
        ms += 1.0;
    }
    if ms > MAX_MS as f64 {
        return Err(invalid(name, format!("must be at most {MAX_MS} ms (2^53 - 1) as seconds, got {seconds}")));
    }
    Ok(ms as u64)
}

fn seconds_arg(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<u64> {
    if let Ok(float) = obj.cast::<PyFloat>() {
        return seconds_to_ms(name, float.value());
    }
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        return match obj.extract::<f64>() {
            Ok(seconds) => seconds_to_ms(name, seconds),
            Err(_) => Err(invalid(name, format!("must be at most {MAX_MS} ms (2^53 - 1) as seconds, got {obj}"))),
        };
    }
    Err(wrong_type(name, "a float (seconds)", obj))
}

/// Exactly one of a seconds argument and its `_ms` twin.
fn instant(
    (name, seconds): (&'static str, Option<&Bound<'_, PyAny>>),
    (ms_name, ms): (&'static str, Option<&Bound<'_, PyAny>>),
) -> Res<Option<u64>> {
    match (seconds, ms) {
        (Some(_), Some(_)) => {
            Err(invalid(name, format!("pass either {name} (seconds) or {ms_name} (int ms), not both")))
        }
        (Some(seconds), None) => seconds_arg(name, seconds).map(Some),
        (None, Some(ms)) => u64_arg(ms_name, ms).map(Some),
        (None, None) => Ok(None),
    }
}

fn required(name: &'static str, ms_name: &'static str, value: Option<u64>) -> Res<u64> {
    value
        .ok_or_else(|| invalid(name, format!("is required: {name} as float seconds, or {ms_name} as int milliseconds")))
}

fn by_name<T: serde::de::DeserializeOwned>(name: &'static str, obj: &Bound<'_, PyAny>) -> Res<T> {
    let text = str_arg(name, obj)?;
    serde_json::from_value(Value::String(text.into_owned())).map_err(|error| invalid(name, error.to_string()))
}

// ---------------------------------------------------------------- JSON bridge

fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            (None, None) => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, value_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn to_py<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(value).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    value_to_py(py, &value)
}

static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A Python value as JSON text (`json.dumps`); unserialisable values are a policy reading error.
fn dumps(py: Python<'_>, obj: &Bound<'_, PyAny>) -> Res<String> {
    let dumps = DUMPS.get_or_try_init(py, || py.import("json")?.getattr("dumps").map(Bound::unbind))?.bind(py);
    match dumps.call1((obj,)) {
        Ok(text) => Ok(text.extract::<String>()?),
        Err(error) => Err(Failure::Core(Error::InvalidPolicyJson { field: String::new(), message: error.to_string() })),
    }
}

/// `Name(field=value, ...)` from the serde form, without its `type` tag.
fn repr_of<T: serde::Serialize>(class: &str, value: &T) -> String {
    let fields = match serde_json::to_value(value) {
        Ok(Value::Object(map)) => {
            map.iter().filter(|(k, _)| *k != "type").map(|(k, v)| format!("{k}={}", py_literal(v))).collect()
        }
        _ => Vec::new(),
    };
    format!("{class}({})", fields.join(", "))
}

fn py_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

// ---------------------------------------------------------------- policy

/// A validated, immutable retry policy. Build it from keyword arguments,
/// a dict, JSON, a JSON/TOML file or a named profile; every field not given
/// takes the engine's default, and every broken rule is reported at once.
#[pyclass(module = "retryplan", name = "Policy", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct PyPolicy {
    inner: Policy,
}

fn policy_arg<'a>(obj: &'a Bound<'_, PyAny>) -> Res<&'a PyPolicy> {
    Ok(obj.cast::<PyPolicy>().map_err(|_| wrong_type("policy", "a retryplan.Policy", obj))?.get())
}

#[pymethods]
impl PyPolicy {
    #[new]
    #[pyo3(signature = (**fields))]
    fn new(py: Python<'_>, fields: Option<&Bound<'_, PyDict>>) -> Res<Self> {
        let text = match fields {
            Some(fields) => dumps(py, fields.as_any())?,
            None => "{}".to_owned(),
        };
        Ok(PyPolicy { inner: Policy::from_json(&text)? })
    }

    /// A policy from a dict shaped like the JSON schema.
    #[staticmethod]
    fn from_dict(py: Python<'_>, config: &Bound<'_, PyAny>) -> Res<Self> {
        // Anything but a dict is the engine's to reject (invalid_policy_json at the top level).
        Ok(PyPolicy { inner: Policy::from_json(&dumps(py, config)?)? })
    }

    /// A policy from JSON text.
    #[staticmethod]
    fn from_json(text: &Bound<'_, PyAny>) -> Res<Self> {
        Ok(PyPolicy { inner: Policy::from_json(&str_arg("text", text)?)? })
    }

    /// A policy from a `.json` or `.toml` file.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: &Bound<'_, PyAny>) -> Res<Self> {
        let read = py.import("retryplan._config")?.getattr("read_policy_file")?;
        let config = read.call1((path,))?;
        if config.is_instance_of::<PyString>() {
            return PyPolicy::from_json(&config);
        }
        PyPolicy::from_dict(py, &config)
    }

    /// The built-in profile `name` (see `PROFILE_NAMES`).
    #[staticmethod]
    fn from_profile(name: &Bound<'_, PyAny>) -> Res<Self> {
        Ok(PyPolicy { inner: Policy::new(&profiles::profile(&str_arg("name", name)?)?)? })
    }

    /// The configuration as a dict (normalised: sets sorted, ratios as decimals).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.to_config())
    }

    /// The configuration as pretty-printed JSON.
    fn to_json(&self) -> String {
        self.inner.to_config().to_json()
    }

    /// Attempts allowed in all, the first included.
    #[getter]
    fn max_attempts(&self) -> u32 {
        self.inner.max_attempts()
    }

    /// The operation's whole time budget, in ms.
    #[getter]
    fn total_budget_ms(&self) -> u64 {
        self.inner.total_budget_ms()
    }

    /// Time kept back at the end of the budget, in ms.
    #[getter]
    fn response_reserve_ms(&self) -> u64 {
        self.inner.response_reserve_ms()
    }

    /// Least time worth starting an attempt with, in ms.
    #[getter]
    fn minimum_useful_attempt_ms(&self) -> u64 {
        self.inner.minimum_useful_attempt_ms()
    }

    /// `safe`, `idempotent`, `keyed` or `unsafe`.
    #[getter]
    fn idempotency<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.idempotency())
    }

    /// True when requests carry the idempotency key header (keyed and unsafe operations).
    #[getter]
    fn sends_idempotency_key(&self) -> bool {
        self.inner.sends_idempotency_key()
    }

    fn __repr__(&self) -> String {
        let config: PolicyConfig = self.inner.to_config();
        let compact = serde_json::to_string(&config).unwrap_or_default();
        format!("Policy.from_json('{compact}')")
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().getattr("from_json")?, (slf.get().to_json(),)))
    }
}

/// The configuration of a built-in profile, as a dict to adjust and pass to `Policy.from_dict`.
#[pyfunction]
fn profile<'py>(py: Python<'py>, name: &Bound<'_, PyAny>) -> Res<Bound<'py, PyAny>> {
    Ok(to_py(py, &profiles::profile(&str_arg("name", name)?)?)?)
}

// ---------------------------------------------------------------- outcome

/// What the caller saw when an attempt ended. Build it with the static
/// constructors (`Outcome.http_status(503)`, ...).
#[pyclass(module = "retryplan", name = "Outcome", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct PyOutcome {
    inner: Outcome,
}

fn outcome(inner: Outcome) -> PyOutcome {
    PyOutcome { inner }
}

/// What a gRPC server asked for in `grpc-retry-pushback-ms`.
#[pyclass(module = "retryplan", name = "Pushback", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct PyPushback {
    inner: Pushback,
}

#[pymethods]
impl PyOutcome {
    /// The attempt succeeded.
    #[staticmethod]
    fn success() -> PyOutcome {
        outcome(Outcome::Success)
    }

    /// An HTTP response arrived; `retry_after_ms` is Retry-After already in ms
    /// from now; `error_code` is the service's error code (AWS: `"SlowDown"`,
    /// 1 to 64 visible ASCII characters).
    #[staticmethod]
    #[pyo3(signature = (status, retry_after_ms = None, error_code = None))]
    fn http_status(
        status: &Bound<'_, PyAny>,
        retry_after_ms: Option<&Bound<'_, PyAny>>,
        error_code: Option<&Bound<'_, PyAny>>,
    ) -> Res<PyOutcome> {
        let status = u16_arg("status", status)?;
        let retry_after_ms = retry_after_ms.map(|ms| u64_arg("retry_after_ms", ms)).transpose()?;
        let error_code =
            error_code.map(|code| Ok::<_, Failure>(ErrorCode::new(&str_arg("error_code", code)?)?)).transpose()?;
        Ok(outcome(Outcome::HttpStatus { status, retry_after_ms, error_code }))
    }

    /// A gRPC status arrived: `code` is a name (`"unavailable"`) or the wire number (14).
    #[staticmethod]
    #[pyo3(signature = (code, pushback = None))]
    fn grpc_status(code: &Bound<'_, PyAny>, pushback: Option<&Bound<'_, PyAny>>) -> Res<PyOutcome> {
        let code = if code.is_instance_of::<PyInt>() && !code.is_instance_of::<PyBool>() {
            let number = u32_arg("code", code)?;
            GrpcCode::from_number(number)
                .ok_or_else(|| invalid("code", format!("a gRPC code number must be in 0..=16, got {number}")))?
        } else {
            by_name("code", code)?
        };
        let pushback = match pushback {
            Some(value) => Some(
                value
                    .cast::<PyPushback>()
                    .map_err(|_| wrong_type("pushback", "a retryplan.Pushback", value))?
                    .get()
                    .inner,
            ),
            None => None,
        };
        Ok(outcome(Outcome::GrpcStatus { code, pushback }))
    }

    /// The transport failed: `not_sent`, `connection_lost` or `timed_out`.
    #[staticmethod]
    fn transport(failure: &Bound<'_, PyAny>) -> Res<PyOutcome> {
        Ok(outcome(Outcome::Transport { failure: by_name("failure", failure)? }))
    }

    /// The application's own verdict: `retryable`, `not_retryable` or `conflict`.
    #[staticmethod]
    fn application(verdict: &Bound<'_, PyAny>) -> Res<PyOutcome> {
        Ok(outcome(Outcome::Application { verdict: by_name("verdict", verdict)? }))
    }

    /// The caller abandoned the attempt and the operation.
    #[staticmethod]
    fn cancelled() -> PyOutcome {
        outcome(Outcome::Cancelled)
    }

    /// An HTTP outcome from the status and the raw guidance headers, read the
    /// engine's one way: `retry-after-ms` when readable, else `Retry-After`
    /// (delta-seconds or an HTTP-date against the wall clock `now_unix`,
    /// float seconds from `time.time()`); an unreadable value is no guidance.
    #[staticmethod]
    #[pyo3(signature = (status, retry_after = None, retry_after_ms = None, *, now_unix = None, now_unix_ms = None))]
    fn from_http(
        status: &Bound<'_, PyAny>,
        retry_after: Option<&Bound<'_, PyAny>>,
        retry_after_ms: Option<&Bound<'_, PyAny>>,
        now_unix: Option<&Bound<'_, PyAny>>,
        now_unix_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<PyOutcome> {
        let status = u16_arg("status", status)?;
        let retry_after = retry_after.map(|value| str_arg("retry_after", value)).transpose()?;
        let retry_after_ms = retry_after_ms.map(|value| str_arg("retry_after_ms", value)).transpose()?;
        let now = required("now_unix", "now_unix_ms", instant(("now_unix", now_unix), ("now_unix_ms", now_unix_ms))?)?;
        Ok(outcome(Outcome::from_http(status, retry_after.as_deref(), retry_after_ms.as_deref(), now)))
    }

    /// The outcome's kind, as in JSON's `type`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner {
            Outcome::Success => "success",
            Outcome::HttpStatus { .. } => "http_status",
            Outcome::GrpcStatus { .. } => "grpc_status",
            Outcome::Transport { .. } => "transport",
            Outcome::Application { .. } => "application",
            Outcome::Cancelled => "cancelled",
        }
    }

    /// The outcome in the JSON schema's shape.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        repr_of(&format!("Outcome.{}", self.kind()), &self.inner)
    }
}

#[pymethods]
impl PyPushback {
    /// Retry, but not before `ms` milliseconds.
    #[staticmethod]
    fn retry_after(ms: &Bound<'_, PyAny>) -> Res<PyPushback> {
        Ok(PyPushback { inner: Pushback::RetryAfterMs(u64_arg("ms", ms)?) })
    }

    /// The server asked not to retry.
    #[staticmethod]
    fn do_not_retry() -> PyPushback {
        PyPushback { inner: Pushback::DoNotRetry }
    }

    /// The requested delay in ms, or None for "do not retry".
    #[getter]
    fn retry_after_ms(&self) -> Option<u64> {
        match self.inner {
            Pushback::RetryAfterMs(ms) => Some(ms),
            Pushback::DoNotRetry => None,
        }
    }

    /// True when the server asked not to retry.
    #[getter]
    fn is_do_not_retry(&self) -> bool {
        self.inner == Pushback::DoNotRetry
    }

    /// The JSON form: `{"retry_after_ms": n}` or `"do_not_retry"`.
    fn to_json_value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        match self.inner {
            Pushback::RetryAfterMs(ms) => format!("Pushback.retry_after({ms})"),
            Pushback::DoNotRetry => "Pushback.do_not_retry()".to_owned(),
        }
    }
}

// ---------------------------------------------------------------- decisions

/// What the caller must do now. One subclass per kind: `StartAttempt`,
/// `Wait`, `AwaitOutcome`, `Succeeded`, `GaveUp`, `Reconcile`, `Restart`;
/// fields exactly as in the engine (absolute times in ms on the caller's clock).
#[pyclass(module = "retryplan", name = "Decision", frozen, subclass, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct PyDecision {
    inner: Decision,
}

static REASONS: PyOnceLock<Vec<Py<PyAny>>> = PyOnceLock::new();

trait IntoField {
    fn into_field(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

macro_rules! plain_field {
    ($($ty:ty),*) => {$(
        impl IntoField for $ty {
            fn into_field(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                Ok(self.into_pyobject(py)?.into_any().unbind())
            }
        }
    )*};
}
plain_field!(u32, u64, Option<u64>);

impl IntoField for bool {
    fn into_field(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(PyBool::new(py, self).to_owned().into_any().unbind())
    }
}

impl IntoField for AttemptSet {
    fn into_field(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(PyTuple::new(py, self.iter().collect::<Vec<u32>>())?.into_any().unbind())
    }
}

impl IntoField for RequestId {
    fn into_field(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(PyString::new(py, &self.to_string()).into_any().unbind())
    }
}

impl IntoField for GiveUpReason {
    fn into_field(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let members = REASONS.get_or_try_init(py, || -> PyResult<Vec<Py<PyAny>>> {
            let class = py.import("retryplan._enums")?.getattr("GiveUpReason")?;
            GiveUpReason::ALL.iter().map(|reason| class.call1((reason.name(),)).map(Bound::unbind)).collect()
        })?;
        let index = GiveUpReason::ALL.iter().position(|reason| *reason == self);
        index.and_then(|index| members.get(index)).map(|member| member.clone_ref(py)).ok_or_else(|| {
            pyo3::exceptions::PyRuntimeError::new_err(format!("GiveUpReason has no member {}", self.name()))
        })
    }
}

fn class_name(decision: &Decision) -> &'static str {
    match decision {
        Decision::StartAttempt { .. } => "StartAttempt",
        Decision::Wait { .. } => "Wait",
        Decision::AwaitOutcome { .. } => "AwaitOutcome",
        Decision::Succeeded { .. } => "Succeeded",
        Decision::GaveUp { .. } => "GaveUp",
        Decision::Reconcile { .. } => "Reconcile",
        Decision::Restart { .. } => "Restart",
    }
}

fn decision_to_py(py: Python<'_>, inner: Decision) -> PyResult<Py<PyAny>> {
    let base = PyClassInitializer::from(PyDecision { inner });
    Ok(match inner {
        Decision::StartAttempt { .. } => Bound::new(py, base.add_subclass(StartAttempt))?.into_any().unbind(),
        Decision::Wait { .. } => Bound::new(py, base.add_subclass(Wait))?.into_any().unbind(),
        Decision::AwaitOutcome { .. } => Bound::new(py, base.add_subclass(AwaitOutcome))?.into_any().unbind(),
        Decision::Succeeded { .. } => Bound::new(py, base.add_subclass(Succeeded))?.into_any().unbind(),
        Decision::GaveUp { .. } => Bound::new(py, base.add_subclass(GaveUp))?.into_any().unbind(),
        Decision::Reconcile { .. } => Bound::new(py, base.add_subclass(Reconcile))?.into_any().unbind(),
        Decision::Restart { .. } => Bound::new(py, base.add_subclass(Restart))?.into_any().unbind(),
    })
}

#[pymethods]
impl PyDecision {
    /// The snake_case kind, as in JSON's `type` (`start_attempt`, `wait`, ...).
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    /// True for the four endings: Succeeded, GaveUp, Reconcile, Restart.
    #[getter]
    fn is_final(&self) -> bool {
        self.inner.is_final()
    }

    /// The decision in the JSON schema's shape (absent optional fields omitted).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    /// A decision from its JSON-shaped dict (for tests and replays).
    #[staticmethod]
    fn from_dict(py: Python<'_>, value: &Bound<'_, PyAny>) -> Res<Py<PyAny>> {
        if !value.is_instance_of::<PyDict>() {
            return Err(wrong_type("value", "a dict", value));
        }
        let decision: Decision =
            serde_json::from_str(&dumps(py, value)?).map_err(|error| invalid("value", error.to_string()))?;
        Ok(decision_to_py(py, decision)?)
    }

    fn __repr__(&self) -> String {
        repr_of(class_name(&self.inner), &self.inner)
    }
}

macro_rules! decision_class {
    ($(#[doc = $doc:literal])* $class:ident { $($field:ident),* }) => {
        $(#[doc = $doc])*
        #[pyclass(module = "retryplan", frozen, extends = PyDecision)]
        struct $class;

        #[pymethods]
        impl $class {
            #[classattr]
            fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
                Ok(PyTuple::new(py, [$(stringify!($field)),*])?.unbind())
            }
            $(
                #[getter]
                fn $field(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                    match slf.as_super().get().inner {
                        Decision::$class { $field, .. } => $field.into_field(slf.py()),
                        _ => Ok(slf.py().None()),
                    }
                }
            )*
        }
    };
}

decision_class!(
    /// Start attempt `attempt` now; abort it at `abort_at_ms` (after `timeout_ms`), then report its outcome.
    StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge }
);
decision_class!(
    /// Sleep until `until_ms` (cancellably), then poll.
    Wait { retry, delay_ms, until_ms, server_delay_ms, remaining_budget_ms }
);
decision_class!(
    /// An attempt is running: report its outcome; poll again at `until_ms` at the latest.
    AwaitOutcome { in_flight, until_ms }
);
decision_class!(
    /// The operation succeeded (attempt `winner` won); abort `abort_attempts`. It has ended.
    Succeeded { attempts, winner, abort_attempts }
);
decision_class!(
    /// The operation gave up; `reason` (a GiveUpReason) says why. It has ended.
    GaveUp { reason, attempts, remaining_budget_ms, refused_delay_ms, abort_attempts }
);
decision_class!(
    /// An unsafe write may have been processed: query its outcome by the idempotency key; do not repeat it. It has ended.
    Reconcile { attempts, remaining_budget_ms, abort_attempts }
);
decision_class!(
    /// A conflict: re-read, recompute and start a new operation with `deadline_ms` as its deadline. It has ended.
    Restart { attempts, deadline_ms, remaining_budget_ms, abort_attempts }
);

// ---------------------------------------------------------------- operation

/// The state machine of one logical operation: events in, one Decision out per call.
#[pyclass(module = "retryplan", name = "Operation")]
struct PyOperation {
    inner: Operation,
}

#[pymethods]
impl PyOperation {
    #[new]
    #[pyo3(signature = (policy, now = None, *, now_ms = None, seed = None, idempotency_key = None, deadline = None, deadline_ms = None, dependency = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        policy: &Bound<'_, PyAny>,
        now: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        idempotency_key: Option<&Bound<'_, PyAny>>,
        deadline: Option<&Bound<'_, PyAny>>,
        deadline_ms: Option<&Bound<'_, PyAny>>,
        dependency: Option<&Bound<'_, PyAny>>,
    ) -> Res<Self> {
        let policy = policy_arg(policy)?;
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        let mut options = match seed {
            Some(seed) => OperationOptions::new(u64_arg("seed", seed)?),
            None => OperationOptions::from_entropy()?,
        };
        if let Some(key) = idempotency_key {
            options = options.with_idempotency_key(IdempotencyKey::new(str_arg("idempotency_key", key)?)?);
        }
        options.deadline_ms = instant(("deadline", deadline), ("deadline_ms", deadline_ms))?;
        if let Some(dependency) = dependency {
            let shared = dependency
                .cast::<PyDependency>()
                .map_err(|_| wrong_type("dependency", "a retryplan.Dependency", dependency))?;
            options.dependency = Some(Arc::clone(&shared.get().inner));
        }
        Ok(PyOperation { inner: Operation::new(&policy.inner, now, options) })
    }

    /// The current decision: start an attempt, keep waiting, or await the running attempt.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn poll(
        &mut self,
        py: Python<'_>,
        now: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Py<PyAny>> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        Ok(decision_to_py(py, self.inner.poll(now)?)?)
    }

    /// Reports how attempt `attempt` ended and returns the next decision.
    #[pyo3(signature = (now = None, attempt = None, outcome = None, *, now_ms = None))]
    fn on_outcome(
        &mut self,
        py: Python<'_>,
        now: Option<&Bound<'_, PyAny>>,
        attempt: Option<&Bound<'_, PyAny>>,
        outcome: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Py<PyAny>> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        let attempt = attempt.ok_or_else(|| invalid("attempt", "is required".to_owned()))?;
        let attempt = u32_arg("attempt", attempt)?;
        let outcome = outcome.ok_or_else(|| invalid("outcome", "is required".to_owned()))?;
        let outcome = &outcome
            .cast::<PyOutcome>()
            .map_err(|_| wrong_type("outcome", "a retryplan.Outcome", outcome))?
            .get()
            .inner;
        Ok(decision_to_py(py, self.inner.on_outcome(now, attempt, outcome)?)?)
    }

    /// The caller abandons the operation: gives up with reason `cancelled`.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn cancel(
        &mut self,
        py: Python<'_>,
        now: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Py<PyAny>> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        Ok(decision_to_py(py, self.inner.cancel(now)?)?)
    }

    /// When to poll next, in ms on the caller's clock; None once ended.
    fn next_wakeup_ms(&self) -> Option<u64> {
        self.inner.next_wakeup_ms()
    }

    /// Budget left at `now` after the response reserve, in ms (saturating at 0).
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn remaining_budget_ms(&self, now: Option<&Bound<'_, PyAny>>, now_ms: Option<&Bound<'_, PyAny>>) -> Res<u64> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        Ok(self.inner.remaining_budget_ms(now))
    }

    /// The request id attempt `attempt` gets (16 hex digits).
    fn request_id(&self, attempt: &Bound<'_, PyAny>) -> Res<String> {
        Ok(self.inner.request_id(u32_arg("attempt", attempt)?).to_string())
    }

    /// The stable idempotency key of every attempt (the operation id).
    #[getter]
    fn idempotency_key(&self) -> &str {
        self.inner.idempotency_key().as_str()
    }

    /// The deadline in ms: min(start + total_budget_ms, the caller's deadline).
    #[getter]
    fn deadline_ms(&self) -> u64 {
        self.inner.deadline_ms()
    }

    /// When the operation started, in ms.
    #[getter]
    fn started_at_ms(&self) -> u64 {
        self.inner.started_at_ms()
    }

    /// Attempts started so far.
    #[getter]
    fn attempts_started(&self) -> u32 {
        self.inner.attempts_started()
    }

    /// The attempts running now (hedging can run several), ascending.
    #[getter]
    fn running_attempts(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.inner.running_attempts().into_field(py)
    }

    /// True once an ending was returned.
    #[getter]
    fn is_ended(&self) -> bool {
        self.inner.is_ended()
    }

    /// The policy this operation runs.
    #[getter]
    fn policy(&self) -> PyPolicy {
        PyPolicy { inner: *self.inner.policy() }
    }

    fn __repr__(&self) -> String {
        format!(
            "<Operation idempotency_key='{}' attempts_started={} deadline_ms={} ended={}>",
            self.inner.idempotency_key(),
            self.inner.attempts_started(),
            self.inner.deadline_ms(),
            if self.inner.is_ended() { "True" } else { "False" }
        )
    }
}

// ---------------------------------------------------------------- results of free functions

/// What an outcome means under a policy: `kind` is `success`, `retryable`,
/// `not_retryable`, `conflict` or `cancelled`; `ambiguous` is True when a
/// retryable request may have been processed.
#[pyclass(module = "retryplan", name = "Classification", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct PyClassification {
    inner: Class,
}

#[pymethods]
impl PyClassification {
    /// `success`, `retryable`, `not_retryable`, `conflict` or `cancelled`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner {
            Class::Success => "success",
            Class::Retryable { .. } => "retryable",
            Class::NotRetryable => "not_retryable",
            Class::Conflict => "conflict",
            Class::Cancelled => "cancelled",
        }
    }

    /// True when a retryable request may have been processed.
    #[getter]
    fn ambiguous(&self) -> bool {
        matches!(self.inner, Class::Retryable { ambiguous: true, .. })
    }

    /// True when the server throttled the request (an AWS throttling error code).
    #[getter]
    fn throttling(&self) -> bool {
        matches!(self.inner, Class::Retryable { throttling: true, .. })
    }

    /// The JSON form, e.g. `{"class": "retryable", "ambiguous": True}`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        format!("Classification(kind='{}', ambiguous={})", self.kind(), if self.ambiguous() { "True" } else { "False" })
    }
}

/// A server's verdict on a request with a propagated deadline: `admitted`,
/// the time left, and (when rejected) the least time the work needs.
#[pyclass(module = "retryplan", name = "Admission", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct PyAdmission {
    inner: Admission,
}

#[pymethods]
impl PyAdmission {
    /// `admit` or `reject`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner {
            Admission::Admit { .. } => "admit",
            Admission::Reject { .. } => "reject",
        }
    }

    /// True when the request should be served.
    #[getter]
    fn admitted(&self) -> bool {
        matches!(self.inner, Admission::Admit { .. })
    }

    /// Time left for the work, in ms.
    #[getter]
    fn remaining_ms(&self) -> u64 {
        match self.inner {
            Admission::Admit { remaining_ms } | Admission::Reject { remaining_ms, .. } => remaining_ms,
        }
    }

    /// The least time the work needs (rejections only), in ms.
    #[getter]
    fn minimum_useful_ms(&self) -> Option<u64> {
        match self.inner {
            Admission::Admit { .. } => None,
            Admission::Reject { minimum_useful_ms, .. } => Some(minimum_useful_ms),
        }
    }

    /// The JSON form.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        repr_of(&format!("Admission[{}]", self.kind()), &self.inner)
    }
}

/// A policy's worst-case timeline (what `explain` computes).
#[pyclass(module = "retryplan", name = "Timeline", frozen, eq)]
#[derive(PartialEq, Eq)]
struct PyTimeline {
    inner: Timeline,
}

#[pymethods]
impl PyTimeline {
    /// The deadline used, in ms from the start.
    #[getter]
    fn deadline_ms(&self) -> u64 {
        self.inner.deadline_ms
    }

    /// When the first attempt starts, in ms from the operation's start.
    #[getter]
    fn first_attempt_at_ms(&self) -> u64 {
        self.inner.first_attempt_at_ms
    }

    /// The response reserve kept at the end, in ms.
    #[getter]
    fn response_reserve_ms(&self) -> u64 {
        self.inner.response_reserve_ms
    }

    /// `max_attempts`.
    #[getter]
    fn configured_attempts(&self) -> u32 {
        self.inner.configured_attempts
    }

    /// Attempts that start in the worst case.
    #[getter]
    fn attempts_that_fit(&self) -> u32 {
        self.inner.attempts_that_fit
    }

    /// Attempts and waits in order, as JSON-shaped dicts (`type` is `attempt` or `wait`).
    #[getter]
    fn steps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.steps)
    }

    /// How the worst case ends (a Decision).
    #[getter]
    fn ending(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        decision_to_py(py, self.inner.ending)
    }

    /// All attempts at their fixed timeout plus the longest waits, ignoring the deadline.
    #[getter]
    fn unbounded_worst_case_ms(&self) -> Option<u64> {
        self.inner.unbounded_worst_case_ms
    }

    /// Warnings as JSON-shaped dicts.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.warnings)
    }

    /// The warnings in words.
    #[getter]
    fn warning_messages(&self) -> Vec<String> {
        self.inner.warnings.iter().map(ToString::to_string).collect()
    }

    /// The JSON form.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "<Timeline deadline_ms={} attempts_that_fit={}/{} warnings={}>",
            self.inner.deadline_ms,
            self.inner.attempts_that_fit,
            self.inner.configured_attempts,
            self.inner.warnings.len()
        )
    }
}

/// Counters fed with decisions, for metrics: operations, attempts, retries,
/// endings and give-ups by reason.
#[pyclass(module = "retryplan", name = "Stats")]
#[derive(Default)]
struct PyStats {
    inner: Stats,
}

fn decision_arg<'a>(obj: &'a Bound<'_, PyAny>) -> Res<&'a Decision> {
    Ok(&obj.cast::<PyDecision>().map_err(|_| wrong_type("decision", "a retryplan.Decision", obj))?.get().inner)
}

#[pymethods]
impl PyStats {
    #[new]
    fn new() -> Self {
        PyStats::default()
    }

    /// Counts one decision (Wait and AwaitOutcome count nothing).
    fn record(&mut self, decision: &Bound<'_, PyAny>) -> Res<()> {
        self.inner.record(decision_arg(decision)?);
        Ok(())
    }

    /// Adds another Stats' counters.
    fn merge(&mut self, other: PyRef<'_, PyStats>) {
        let other = other.inner;
        self.inner.merge(&other);
    }

    /// Operations that started a first attempt.
    #[getter]
    fn operations(&self) -> u64 {
        self.inner.operations
    }

    /// Attempts started, first attempts included.
    #[getter]
    fn attempts(&self) -> u64 {
        self.inner.attempts
    }

    /// Attempts after the first.
    #[getter]
    fn retries(&self) -> u64 {
        self.inner.retries
    }

    /// Hedged attempts started.
    #[getter]
    fn hedges(&self) -> u64 {
        self.inner.hedges
    }

    /// Operations that succeeded.
    #[getter]
    fn succeeded(&self) -> u64 {
        self.inner.succeeded
    }

    /// Operations that ended in reconciliation.
    #[getter]
    fn reconciles(&self) -> u64 {
        self.inner.reconciles
    }

    /// Operations that ended in a restart of the unit.
    #[getter]
    fn restarts(&self) -> u64 {
        self.inner.restarts
    }

    /// Give-ups by reason: a dict from GiveUpReason to count.
    #[getter]
    fn gave_up<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for reason in GiveUpReason::ALL {
            dict.set_item(reason.into_field(py)?, self.inner.gave_up.get(reason))?;
        }
        Ok(dict)
    }

    /// All give-ups.
    #[getter]
    fn gave_up_total(&self) -> u64 {
        self.inner.gave_up.total()
    }

    /// The JSON form.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        repr_of("Stats", &self.inner)
    }
}

// ---------------------------------------------------------------- shared controls

/// A config from keyword arguments or one dict, through the engine's JSON reader.
fn config_json(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, fields: Option<&Bound<'_, PyDict>>) -> Res<String> {
    match (config, fields) {
        (Some(_), Some(fields)) if !fields.is_empty() => {
            Err(invalid("config", "pass either one dict or keyword arguments, not both".to_owned()))
        }
        // Anything but a dict is the engine's to reject (invalid_policy_json at the top level).
        (Some(config), _) => dumps(py, config),
        (None, Some(fields)) => dumps(py, fields.as_any()),
        (None, None) => Ok("{}".to_owned()),
    }
}

/// A control's configuration read by the core's reader (field paths from the control's own object).
fn read_config<T>(text: &str, read: fn(&retryplan::value::Value, &str) -> Result<T, Error>) -> Res<T> {
    Ok(read(&retryplan::value::Value::from_json(text)?, "")?)
}

/// The shared controls of one downstream dependency (retry budget, circuit
/// breaker, cap on in-flight retries), shared by every Operation that names
/// it. Thread-safe.
#[pyclass(module = "retryplan", name = "Dependency", frozen)]
struct PyDependency {
    inner: Arc<Dependency>,
}

#[pymethods]
impl PyDependency {
    #[new]
    #[pyo3(signature = (config = None, **fields))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, fields: Option<&Bound<'_, PyDict>>) -> Res<Self> {
        Ok(PyDependency { inner: Dependency::from_json(&config_json(py, config, fields)?)? })
    }

    /// A dependency from JSON text.
    #[staticmethod]
    fn from_json(text: &Bound<'_, PyAny>) -> Res<Self> {
        Ok(PyDependency { inner: Dependency::from_json(&str_arg("text", text)?)? })
    }

    /// The state of every control at `now`, as a JSON-shaped dict.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn snapshot<'py>(
        &self,
        py: Python<'py>,
        now: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Bound<'py, PyAny>> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        Ok(to_py(py, &self.inner.snapshot(now))?)
    }

    /// The dependency's retry budget, or None.
    #[getter]
    fn budget(&self) -> Option<PyRetryBudget> {
        self.inner.budget().map(|_| PyRetryBudget { inner: BudgetSource::Dependency(Arc::clone(&self.inner)) })
    }

    /// The dependency's circuit breaker, or None.
    #[getter]
    fn breaker(&self) -> Option<PyCircuitBreaker> {
        self.inner.breaker().map(|_| PyCircuitBreaker { inner: BreakerSource::Dependency(Arc::clone(&self.inner)) })
    }
}

enum BudgetSource {
    Own(Box<RetryBudget>),
    Dependency(Arc<Dependency>),
}

/// A retry budget (token bucket, ratio or quota), on its own or a Dependency's. Thread-safe.
#[pyclass(module = "retryplan", name = "RetryBudget", frozen)]
struct PyRetryBudget {
    inner: BudgetSource,
}

impl PyRetryBudget {
    fn budget(&self) -> Res<&RetryBudget> {
        match &self.inner {
            BudgetSource::Own(budget) => Ok(budget),
            BudgetSource::Dependency(dependency) => {
                dependency.budget().ok_or_else(|| invalid("budget", "the dependency has no budget".to_owned()))
            }
        }
    }
}

/// What a granted retry cost (`cost` units; 0 outside the quota model); hand it back once,
/// with the retry's success (refunded) or failure (spent). Only `try_retry` makes one.
#[pyclass(module = "retryplan", name = "RetryCharge", frozen)]
struct PyRetryCharge {
    cost: u32,
    cell: GrantCell<RetryCharge>,
}

impl PyRetryCharge {
    fn new(charge: RetryCharge) -> Self {
        PyRetryCharge { cost: charge.cost(), cell: GrantCell::new(charge) }
    }
}

#[pymethods]
impl PyRetryCharge {
    /// Units charged.
    #[getter]
    fn cost(&self) -> u32 {
        self.cost
    }

    fn __repr__(&self) -> String {
        format!("RetryCharge(cost={})", self.cost)
    }
}

/// The core charge kept in a `RetryCharge` argument (taken: a second use is refused).
fn charge_arg(charge: Option<&Bound<'_, PyAny>>) -> Res<Option<RetryCharge>> {
    match charge {
        Some(charge) => Ok(Some(
            charge
                .cast::<PyRetryCharge>()
                .map_err(|_| wrong_type("charge", "a retryplan.RetryCharge", charge))?
                .get()
                .cell
                .take()?,
        )),
        None => Ok(None),
    }
}

#[pymethods]
impl PyRetryBudget {
    #[new]
    #[pyo3(signature = (config = None, **fields))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, fields: Option<&Bound<'_, PyDict>>) -> Res<Self> {
        let config = read_config(&config_json(py, config, fields)?, BudgetConfig::from_value)?;
        Ok(PyRetryBudget { inner: BudgetSource::Own(Box::new(RetryBudget::new(&config)?)) })
    }

    /// Counts an original request (ratio model).
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn on_request(&self, now: Option<&Bound<'_, PyAny>>, now_ms: Option<&Bound<'_, PyAny>>) -> Res<()> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        self.budget()?.on_request(now);
        Ok(())
    }

    /// Asks for a retry: a RetryCharge when granted, None when refused.
    #[pyo3(signature = (now = None, after_timeout = false, *, now_ms = None))]
    fn try_retry(
        &self,
        now: Option<&Bound<'_, PyAny>>,
        after_timeout: bool,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Option<PyRetryCharge>> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        Ok(self.budget()?.try_retry(now, after_timeout).map(PyRetryCharge::new))
    }

    /// Reports a success (with the charge of the retry that succeeded, if any).
    #[pyo3(signature = (now = None, charge = None, *, now_ms = None))]
    fn on_success(
        &self,
        now: Option<&Bound<'_, PyAny>>,
        charge: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<()> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        let budget = self.budget()?;
        Ok(budget.on_success(now, charge_arg(charge)?)?)
    }

    /// Reports a failure (with the charge of the retry that failed, if any: it stays spent).
    #[pyo3(signature = (now = None, charge = None, *, now_ms = None))]
    fn on_failure(
        &self,
        now: Option<&Bound<'_, PyAny>>,
        charge: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<()> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        let budget = self.budget()?;
        Ok(budget.on_failure(now, charge_arg(charge)?)?)
    }

    /// Takes `amount` units from a quota (AWS `acquire`): True when taken,
    /// False when fewer are left (nothing taken).
    fn acquire(&self, amount: &Bound<'_, PyAny>) -> Res<bool> {
        Ok(self.budget()?.acquire(u32_arg("amount", amount)?)?)
    }

    /// Gives `amount` units back to a quota, never above its capacity.
    fn release(&self, amount: &Bound<'_, PyAny>) -> Res<()> {
        Ok(self.budget()?.release(u32_arg("amount", amount)?)?)
    }

    /// The budget's state at `now`, as a JSON-shaped dict.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn snapshot<'py>(
        &self,
        py: Python<'py>,
        now: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Bound<'py, PyAny>> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        Ok(to_py(py, &self.budget()?.snapshot(now))?)
    }
}

enum BreakerSource {
    Own(Box<CircuitBreaker>),
    Dependency(Arc<Dependency>),
}

/// A circuit breaker (consecutive failures or failure ratio), on its own or a Dependency's. Thread-safe.
#[pyclass(module = "retryplan", name = "CircuitBreaker", frozen)]
struct PyCircuitBreaker {
    inner: BreakerSource,
}

/// Permission to send one request through a breaker (`probe`: a half-open trial); report it exactly once.
#[pyclass(module = "retryplan", name = "BreakerPermit", frozen)]
struct PyBreakerPermit {
    probe: bool,
    cell: GrantCell<BreakerPermit>,
}

impl PyBreakerPermit {
    fn new(permit: BreakerPermit) -> Self {
        PyBreakerPermit { probe: permit.is_probe(), cell: GrantCell::new(permit) }
    }
}

#[pymethods]
impl PyBreakerPermit {
    /// True for a half-open probe.
    #[getter]
    fn probe(&self) -> bool {
        self.probe
    }

    fn __repr__(&self) -> String {
        format!("BreakerPermit(probe={})", if self.probe { "True" } else { "False" })
    }
}

/// The core permit kept in a `BreakerPermit` argument (taken: a second use is refused).
fn permit_arg(obj: &Bound<'_, PyAny>) -> Res<BreakerPermit> {
    Ok(obj
        .cast::<PyBreakerPermit>()
        .map_err(|_| wrong_type("permit", "a retryplan.BreakerPermit", obj))?
        .get()
        .cell
        .take()?)
}

impl PyCircuitBreaker {
    fn breaker(&self) -> Res<&CircuitBreaker> {
        match &self.inner {
            BreakerSource::Own(breaker) => Ok(breaker),
            BreakerSource::Dependency(dependency) => {
                dependency.breaker().ok_or_else(|| invalid("breaker", "the dependency has no breaker".to_owned()))
            }
        }
    }
}

#[pymethods]
impl PyCircuitBreaker {
    #[new]
    #[pyo3(signature = (config = None, **fields))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyAny>>, fields: Option<&Bound<'_, PyDict>>) -> Res<Self> {
        let config = read_config(&config_json(py, config, fields)?, BreakerConfig::from_value)?;
        Ok(PyCircuitBreaker { inner: BreakerSource::Own(Box::new(CircuitBreaker::new(&config)?)) })
    }

    /// Asks to send a request: a BreakerPermit, or None while open.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn try_acquire(
        &self,
        now: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Option<PyBreakerPermit>> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        Ok(self.breaker()?.try_acquire(now).map(PyBreakerPermit::new))
    }

    /// Reports the permitted request succeeded.
    #[pyo3(signature = (now = None, permit = None, *, now_ms = None))]
    fn on_success(
        &self,
        now: Option<&Bound<'_, PyAny>>,
        permit: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<()> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        let permit = permit.ok_or_else(|| invalid("permit", "is required".to_owned()))?;
        let breaker = self.breaker()?;
        Ok(breaker.on_success(now, permit_arg(permit)?)?)
    }

    /// Reports the permitted request failed.
    #[pyo3(signature = (now = None, permit = None, *, now_ms = None))]
    fn on_failure(
        &self,
        now: Option<&Bound<'_, PyAny>>,
        permit: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<()> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        let permit = permit.ok_or_else(|| invalid("permit", "is required".to_owned()))?;
        let breaker = self.breaker()?;
        Ok(breaker.on_failure(now, permit_arg(permit)?)?)
    }

    /// Returns a permit whose request was never sent (or whose result does not count).
    fn release(&self, permit: &Bound<'_, PyAny>) -> Res<()> {
        let breaker = self.breaker()?;
        Ok(breaker.release(permit_arg(permit)?)?)
    }

    /// The breaker's state at `now`, as a JSON-shaped dict.
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn snapshot<'py>(
        &self,
        py: Python<'py>,
        now: Option<&Bound<'_, PyAny>>,
        now_ms: Option<&Bound<'_, PyAny>>,
    ) -> Res<Bound<'py, PyAny>> {
        let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
        Ok(to_py(py, &self.breaker()?.snapshot(now))?)
    }
}

/// What to do with a queued message after one delivery: `kind` is
/// `acknowledge`, `redeliver_after` (with `delay_ms`, `redeliver_at_ms`) or
/// `dead_letter` (with `reason`).
#[pyclass(module = "retryplan", name = "Redelivery", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct PyRedelivery {
    inner: Redelivery,
}

#[pymethods]
impl PyRedelivery {
    /// `acknowledge`, `redeliver_after` or `dead_letter`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner {
            Redelivery::Acknowledge => "acknowledge",
            Redelivery::RedeliverAfter { .. } => "redeliver_after",
            Redelivery::DeadLetter { .. } => "dead_letter",
        }
    }

    /// The delay before the next delivery, in ms (redeliver_after only).
    #[getter]
    fn delay_ms(&self) -> Option<u64> {
        match self.inner {
            Redelivery::RedeliverAfter { delay_ms, .. } => Some(delay_ms),
            Redelivery::Acknowledge | Redelivery::DeadLetter { .. } => None,
        }
    }

    /// When to deliver again, in ms (redeliver_after only).
    #[getter]
    fn redeliver_at_ms(&self) -> Option<u64> {
        match self.inner {
            Redelivery::RedeliverAfter { redeliver_at_ms, .. } => Some(redeliver_at_ms),
            Redelivery::Acknowledge | Redelivery::DeadLetter { .. } => None,
        }
    }

    /// Why the message goes to the dead-letter queue (dead_letter only).
    #[getter]
    fn reason<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner {
            Redelivery::DeadLetter { reason } => to_py(py, &reason).map(Some),
            Redelivery::Acknowledge | Redelivery::RedeliverAfter { .. } => Ok(None),
        }
    }

    /// The JSON form.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        repr_of(&format!("Redelivery[{}]", self.kind()), &self.inner)
    }
}

// ---------------------------------------------------------------- free functions

/// Classifies an outcome under a policy.
#[pyfunction]
fn classify(policy: &Bound<'_, PyAny>, outcome: &Bound<'_, PyAny>) -> Res<PyClassification> {
    let policy = policy_arg(policy)?;
    let outcome =
        &outcome.cast::<PyOutcome>().map_err(|_| wrong_type("outcome", "a retryplan.Outcome", outcome))?.get().inner;
    Ok(PyClassification { inner: retryplan::classify(&policy.inner, outcome)? })
}

/// The worst-case timeline of `policy` against `deadline_ms` (ms from the start; None: the budget alone),
/// with the first attempt starting `first_attempt_at_ms` after the operation (0: at once).
#[pyfunction]
#[pyo3(signature = (policy, deadline_ms = None, *, first_attempt_at_ms = None))]
fn explain(
    policy: &Bound<'_, PyAny>,
    deadline_ms: Option<&Bound<'_, PyAny>>,
    first_attempt_at_ms: Option<&Bound<'_, PyAny>>,
) -> Res<PyTimeline> {
    let policy = policy_arg(policy)?;
    let deadline_ms = deadline_ms.map(|ms| u64_arg("deadline_ms", ms)).transpose()?;
    let first = first_attempt_at_ms.map(|ms| u64_arg("first_attempt_at_ms", ms)).transpose()?.unwrap_or_default();
    Ok(PyTimeline { inner: retryplan::explain(&policy.inner, deadline_ms, first) })
}

/// The backoff ceilings of the first `retries` retries, in ms.
#[pyfunction]
fn backoff_ceilings_ms(policy: &Bound<'_, PyAny>, retries: &Bound<'_, PyAny>) -> Res<Vec<u64>> {
    Ok(retryplan::backoff_ceilings_ms(&policy_arg(policy)?.inner, u32_arg("retries", retries)?)?)
}

/// The delay in ms a Retry-After value asks for (delta-seconds or an HTTP-date
/// read against the wall clock `now_unix`, float seconds from `time.time()`).
#[pyfunction]
#[pyo3(signature = (value, now_unix = None, *, now_unix_ms = None))]
fn parse_retry_after(
    value: &Bound<'_, PyAny>,
    now_unix: Option<&Bound<'_, PyAny>>,
    now_unix_ms: Option<&Bound<'_, PyAny>>,
) -> Res<u64> {
    let value = str_arg("value", value)?;
    let now = required("now_unix", "now_unix_ms", instant(("now_unix", now_unix), ("now_unix_ms", now_unix_ms))?)?;
    Ok(retryplan::parse_retry_after(&value, now)?)
}

/// A `retry-after-ms` / `x-ms-retry-after-ms` value in ms.
#[pyfunction]
fn parse_retry_after_ms_header(value: &Bound<'_, PyAny>) -> Res<u64> {
    Ok(retryplan::parse_retry_after_ms_header(&str_arg("value", value)?)?)
}

/// A `grpc-retry-pushback-ms` value (never fails: gRPC gives every value a meaning).
#[pyfunction]
fn parse_grpc_pushback(value: &Bound<'_, PyAny>) -> Res<PyPushback> {
    Ok(PyPushback { inner: retryplan::parse_grpc_pushback(&str_arg("value", value)?) })
}

/// Encodes a budget in ms as a `grpc-timeout` value (never rounds up).
#[pyfunction]
fn encode_grpc_timeout(timeout_ms: &Bound<'_, PyAny>) -> Res<String> {
    Ok(retryplan::encode_grpc_timeout(u64_arg("timeout_ms", timeout_ms)?))
}

/// Reads a `grpc-timeout` value as ms (rounding down).
#[pyfunction]
fn parse_grpc_timeout(value: &Bound<'_, PyAny>) -> Res<u64> {
    Ok(retryplan::parse_grpc_timeout(&str_arg("value", value)?)?)
}

/// Encodes a budget in nanoseconds as a `grpc-timeout` value, in the unit a
/// peer would choose (never rounds up).
#[pyfunction]
fn encode_grpc_timeout_ns(timeout_ns: &Bound<'_, PyAny>) -> Res<String> {
    Ok(retryplan::encode_grpc_timeout_ns(u64_arg("timeout_ns", timeout_ns)?))
}

/// Reads a `grpc-timeout` value as exact nanoseconds (saturating at 2**63 - 1).
#[pyfunction]
fn parse_grpc_timeout_ns(value: &Bound<'_, PyAny>) -> Res<u64> {
    Ok(retryplan::parse_grpc_timeout_ns(&str_arg("value", value)?)?)
}

/// The AWS error code of a response: the `x-amzn-errortype` header, else a
/// JSON body's `__type`/`code`, else an XML body's `<Code>`; None when none.
#[pyfunction]
#[pyo3(signature = (errortype_header = None, body = None))]
fn aws_error_code_from_response(
    errortype_header: Option<&Bound<'_, PyAny>>,
    body: Option<&Bound<'_, PyAny>>,
) -> Res<Option<String>> {
    let header = errortype_header.map(|value| str_arg("errortype_header", value)).transpose()?;
    let body = body.map(|value| str_arg("body", value)).transpose()?;
    Ok(aws::error_code_from_response(header.as_deref(), body.as_deref()).map(|code| code.as_str().to_owned()))
}

/// The AWS SDK standard mode's dependency: the 500-unit retry quota.
#[pyfunction]
fn aws_standard_dependency() -> Res<PyDependency> {
    Ok(PyDependency { inner: Dependency::new(&aws::standard_dependency())? })
}

/// A gRPC service config, read as gRFC A6 says: one validated policy per
/// method selector, the channel's retry throttling, and warnings for what
/// was capped or truncated.
#[pyclass(module = "retryplan", name = "ServiceConfig", frozen)]
struct PyServiceConfig {
    inner: grpc::ServiceConfig,
}

#[pymethods]
impl PyServiceConfig {
    /// Reads a service config from a dict (or JSON text); `max_attempts_cap`
    /// is the client-side cap on maxAttempts (default 5).
    #[new]
    #[pyo3(signature = (config, *, max_attempts_cap = None))]
    fn new(py: Python<'_>, config: &Bound<'_, PyAny>, max_attempts_cap: Option<&Bound<'_, PyAny>>) -> Res<Self> {
        let text = if config.is_instance_of::<PyString>() {
            str_arg("config", config)?.into_owned()
        } else {
            dumps(py, config)?
        };
        let max_attempts_cap = match max_attempts_cap {
            Some(cap) => u32_arg("max_attempts_cap", cap)?,
            None => grpc::DEFAULT_MAX_ATTEMPTS_CAP,
        };
        let options = grpc::ServiceConfigOptions { max_attempts_cap };
        Ok(PyServiceConfig { inner: grpc::ServiceConfig::from_json(&text, options)? })
    }

    /// One dict per selector: `name` (`/service/method`, `/service/` or ``),
    /// `service`, `method` and its `policy`.
    #[getter]
    fn methods<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.inner.methods.iter().map(|profile| method_dict(py, profile)).collect()
    }

    /// What was capped or truncated: dicts with `field` and `message`.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.inner
            .warnings
            .iter()
            .map(|warning| {
                let dict = PyDict::new(py);
                dict.set_item("field", &warning.field)?;
                dict.set_item("message", &warning.message)?;
                Ok(dict)
            })
            .collect()
    }

    /// A new Dependency holding the retry throttling (token bucket), or None;
    /// create one per server name and share it.
    fn throttling_dependency(&self) -> Res<Option<PyDependency>> {
        Ok(match &self.inner.throttling {
            Some(config) => Some(PyDependency { inner: Dependency::new(config)? }),
            None => None,
        })
    }

    /// The most specific selector's dict for `service`/`method`, or None.
    fn method_for<'py>(
        &self,
        py: Python<'py>,
        service: &Bound<'_, PyAny>,
        method: &Bound<'_, PyAny>,
    ) -> Res<Option<Bound<'py, PyDict>>> {
        let found = self.inner.method_for(&str_arg("service", service)?, &str_arg("method", method)?);
        Ok(found.map(|profile| method_dict(py, profile)).transpose()?)
    }

    /// The most specific selector's policy for `service`/`method`, or None.
    fn profile_for(&self, service: &Bound<'_, PyAny>, method: &Bound<'_, PyAny>) -> Res<Option<PyPolicy>> {
        let found = self.inner.profile_for(&str_arg("service", service)?, &str_arg("method", method)?);
        Ok(found.map(|policy| PyPolicy { inner: *policy }))
    }
}

fn method_dict<'py>(py: Python<'py>, profile: &grpc::MethodProfile) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("name", &profile.name)?;
    dict.set_item("service", &profile.service)?;
    dict.set_item("method", &profile.method)?;
    dict.set_item("policy", PyPolicy { inner: profile.policy })?;
    Ok(dict)
}

/// Budget left at `now` before `deadline`, minus `reserve_ms`, in ms (saturating at 0).
#[pyfunction]
#[pyo3(signature = (deadline = None, now = None, *, reserve_ms, deadline_ms = None, now_ms = None))]
fn remaining_budget_ms(
    deadline: Option<&Bound<'_, PyAny>>,
    now: Option<&Bound<'_, PyAny>>,
    reserve_ms: &Bound<'_, PyAny>,
    deadline_ms: Option<&Bound<'_, PyAny>>,
    now_ms: Option<&Bound<'_, PyAny>>,
) -> Res<u64> {
    let deadline = required("deadline", "deadline_ms", instant(("deadline", deadline), ("deadline_ms", deadline_ms))?)?;
    let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
    Ok(retryplan::remaining_budget_ms(deadline, now, u64_arg("reserve_ms", reserve_ms)?))
}

/// Server-side admission: reject when what remains (after the reserve) is below the minimum useful time.
#[pyfunction]
#[pyo3(signature = (deadline = None, now = None, *, reserve_ms, minimum_useful_ms, deadline_ms = None, now_ms = None))]
fn admit(
    deadline: Option<&Bound<'_, PyAny>>,
    now: Option<&Bound<'_, PyAny>>,
    reserve_ms: &Bound<'_, PyAny>,
    minimum_useful_ms: &Bound<'_, PyAny>,
    deadline_ms: Option<&Bound<'_, PyAny>>,
    now_ms: Option<&Bound<'_, PyAny>>,
) -> Res<PyAdmission> {
    let deadline = required("deadline", "deadline_ms", instant(("deadline", deadline), ("deadline_ms", deadline_ms))?)?;
    let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
    let reserve = u64_arg("reserve_ms", reserve_ms)?;
    let minimum = u64_arg("minimum_useful_ms", minimum_useful_ms)?;
    Ok(PyAdmission { inner: retryplan::admit(deadline, now, reserve, minimum) })
}

/// What happens to a queued message after delivery number `attempts` (1 for
/// the first), first seen at `first_seen` and ending with `outcome` at `now`.
#[pyfunction]
#[pyo3(signature = (policy, attempts, outcome, first_seen = None, now = None, *, first_seen_ms = None, now_ms = None))]
fn redeliver(
    policy: &Bound<'_, PyAny>,
    attempts: &Bound<'_, PyAny>,
    outcome: &Bound<'_, PyAny>,
    first_seen: Option<&Bound<'_, PyAny>>,
    now: Option<&Bound<'_, PyAny>>,
    first_seen_ms: Option<&Bound<'_, PyAny>>,
    now_ms: Option<&Bound<'_, PyAny>>,
) -> Res<PyRedelivery> {
    let policy = policy_arg(policy)?;
    let attempts = u32_arg("attempts", attempts)?;
    let outcome =
        &outcome.cast::<PyOutcome>().map_err(|_| wrong_type("outcome", "a retryplan.Outcome", outcome))?.get().inner;
    let first_seen = required(
        "first_seen",
        "first_seen_ms",
        instant(("first_seen", first_seen), ("first_seen_ms", first_seen_ms))?,
    )?;
    let now = required("now", "now_ms", instant(("now", now), ("now_ms", now_ms))?)?;
    Ok(PyRedelivery { inner: retryplan::redeliver(&policy.inner, attempts, first_seen, now, outcome)? })
}

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyPolicy>()?;
    m.add_class::<PyOutcome>()?;
    m.add_class::<PyPushback>()?;
    m.add_class::<PyDecision>()?;
    m.add_class::<StartAttempt>()?;
    m.add_class::<Wait>()?;
    m.add_class::<AwaitOutcome>()?;
    m.add_class::<Succeeded>()?;
    m.add_class::<GaveUp>()?;
    m.add_class::<Reconcile>()?;
    m.add_class::<Restart>()?;
    m.add_class::<PyOperation>()?;
    m.add_class::<PyClassification>()?;
    m.add_class::<PyAdmission>()?;
    m.add_class::<PyTimeline>()?;
    m.add_class::<PyStats>()?;
    m.add_class::<PyDependency>()?;
    m.add_class::<PyRetryBudget>()?;
    m.add_class::<PyRetryCharge>()?;
    m.add_class::<PyCircuitBreaker>()?;
    m.add_class::<PyBreakerPermit>()?;
    m.add_class::<PyRedelivery>()?;
    m.add_class::<PyServiceConfig>()?;
    for function in [
        wrap_pyfunction!(profile, m)?,
        wrap_pyfunction!(classify, m)?,
        wrap_pyfunction!(explain, m)?,
        wrap_pyfunction!(backoff_ceilings_ms, m)?,
        wrap_pyfunction!(parse_retry_after, m)?,
        wrap_pyfunction!(parse_retry_after_ms_header, m)?,
        wrap_pyfunction!(parse_grpc_pushback, m)?,
        wrap_pyfunction!(encode_grpc_timeout, m)?,
        wrap_pyfunction!(parse_grpc_timeout, m)?,
        wrap_pyfunction!(encode_grpc_timeout_ns, m)?,
        wrap_pyfunction!(parse_grpc_timeout_ns, m)?,
        wrap_pyfunction!(aws_error_code_from_response, m)?,
        wrap_pyfunction!(aws_standard_dependency, m)?,
        wrap_pyfunction!(remaining_budget_ms, m)?,
        wrap_pyfunction!(admit, m)?,
        wrap_pyfunction!(redeliver, m)?,
    ] {
        m.add_function(function)?;
    }
    m.add("PROFILE_NAMES", PyTuple::new(py, profiles::NAMES)?)?;
    m.add("GIVE_UP_REASONS", PyTuple::new(py, GiveUpReason::ALL.map(GiveUpReason::name))?)?;
    m.add("GRPC_CODES", PyTuple::new(py, GrpcCode::ALL.map(GrpcCode::name))?)?;
    m.add("MAX_MS", MAX_MS)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
