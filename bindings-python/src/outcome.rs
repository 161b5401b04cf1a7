//! What an attempt ended with (`Outcome`, read from an HTTP response or a
//! failure name too) and what it means under a policy (`Classification`).
//! The header parsers that feed it are generated (`functions_generated.rs`).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use retryplan::config::value::Named;
use retryplan::dialects::aws::ErrorCode;
use retryplan::ground::codes::GrpcCode;
use retryplan::headers::retry_after::{Pushback, RetryAfterReading};
use retryplan::outcomes::http::GUIDANCE_HEADERS;
use retryplan::wire::{encode_outcome, OutcomeKind};
use retryplan::{Failure, Outcome};

use crate::args::{by_name, class_arg, ms_arg, str_arg, u16_arg, u32_arg, Arg, NOW_UNIX};
use crate::data::{repr_of, serialized, typed};
use crate::fault::{invalid, wrong_type, Fault, Res};
use crate::policy::PyPolicy;

/// What the caller saw when an attempt ended. Build it with the static
/// constructors (`Outcome.http_status(503)`, ...).
#[pyclass(module = "retryplan", name = "Outcome", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyOutcome {
    pub(crate) inner: Outcome,
}

fn outcome(inner: Outcome) -> PyOutcome {
    PyOutcome { inner }
}

/// What a gRPC server asked for in `grpc-retry-pushback-ms`.
#[pyclass(module = "retryplan", name = "Pushback", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyPushback {
    pub(crate) inner: Pushback,
}

#[pymethods]
impl PyOutcome {
    /// The attempt succeeded.
    #[staticmethod]
    fn success() -> PyOutcome {
        outcome(Outcome::Success)
    }

    /// An HTTP response arrived; `retry_after_ms` is Retry-After already in ms from now; `error_code` is the
    /// service's error code (AWS: `"SlowDown"`, 1 to 64 visible ASCII characters).
    #[staticmethod]
    #[pyo3(signature = (status, retry_after_ms = None, error_code = None))]
    fn http_status(status: &Bound<'_, PyAny>, retry_after_ms: Arg, error_code: Arg) -> Res<PyOutcome> {
        let status = u16_arg("status", status)?;
        let retry_after_ms = retry_after_ms.map(|ms| ms_arg("retry_after_ms", ms)).transpose()?;
        let error_code = error_code.map(|code| Ok::<_, Fault>(ErrorCode::new(&str_arg("error_code", code)?)?));
        Ok(outcome(Outcome::HttpStatus { status, retry_after_ms, error_code: error_code.transpose()? }))
    }

    /// A gRPC status arrived: `code` is a name (`"unavailable"`) or the wire number (14).
    #[staticmethod]
    #[pyo3(signature = (code, pushback = None))]
    fn grpc_status(code: &Bound<'_, PyAny>, pushback: Arg) -> Res<PyOutcome> {
        let code = if code.is_instance_of::<PyInt>() && !code.is_instance_of::<PyBool>() {
            let number = u32_arg("code", code)?;
            GrpcCode::from_number(number)
                .ok_or_else(|| invalid("code", format!("a gRPC code number must be in 0..=16, got {number}")))?
        } else if code.is_instance_of::<PyString>() {
            by_name("code", code)?
        } else {
            return Err(wrong_type("code", "a str (a gRPC code's name) or an int in 0..=16", code));
        };
        let pushback = pushback.map(|value| class_arg::<PyPushback>("pushback", value).map(|p| p.inner)).transpose()?;
        Ok(outcome(Outcome::GrpcStatus { code, pushback }))
    }

    /// The transport failed: `not_sent`, `connection_lost` or `timed_out`; `retry_after_ms` is a wait the server
    /// asked for with the failure (applied as a Retry-After is).
    #[staticmethod]
    #[pyo3(signature = (failure, retry_after_ms = None))]
    fn transport(failure: &Bound<'_, PyAny>, retry_after_ms: Arg) -> Res<PyOutcome> {
        let failure = by_name("failure", failure)?;
        let retry_after_ms = retry_after_ms.map(|ms| ms_arg("retry_after_ms", ms)).transpose()?;
        Ok(outcome(Outcome::Transport { failure, retry_after_ms }))
    }

    /// A failure of the shared vocabulary by name (`dns_lookup_failed`, `connection_lost`, ...; see `FAILURES`),
    /// with the wait the server asked for along with it, if any (`retry_after_ms`; none for `cancelled`).
    #[staticmethod]
    #[pyo3(signature = (name, retry_after_ms = None))]
    fn failure(name: &Bound<'_, PyAny>, retry_after_ms: Arg) -> Res<PyOutcome> {
        let retry_after_ms = retry_after_ms.map(|ms| ms_arg("retry_after_ms", ms)).transpose()?;
        Ok(outcome(by_name::<Failure>("failure", name)?.outcome_after(retry_after_ms)?))
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

    /// An HTTP outcome from the status and the raw guidance headers
    /// (`retry-after-ms` when readable, else `Retry-After`; `now_unix` reads an HTTP-date).
    #[staticmethod]
    #[pyo3(signature = (status, retry_after = None, retry_after_ms = None, *, now_unix = None, now_unix_ms = None))]
    fn from_http(
        status: &Bound<'_, PyAny>,
        retry_after: Arg,
        retry_after_ms: Arg,
        now_unix: Arg,
        now_unix_ms: Arg,
    ) -> Res<PyOutcome> {
        let status = u16_arg("status", status)?;
        let retry_after = retry_after.map(|value| str_arg("retry_after", value)).transpose()?;
        let retry_after_ms = retry_after_ms.map(|value| str_arg("retry_after_ms", value)).transpose()?;
        let now = NOW_UNIX.read(now_unix, now_unix_ms)?;
        Ok(outcome(Outcome::from_http(status, retry_after.as_deref(), retry_after_ms.as_deref(), now)))
    }

    /// A response's outcome from its status and headers (a dict, read whatever the letter case of its
    /// keys, or a mapping whose `get` finds the lower-case names of `GUIDANCE_HEADERS`), read the engine's one way; a status outside 100..=599, or an
    /// interim 1xx but 101, is `malformed_response`, the server's fault; the rate-limit headers are not read on a
    /// cached response (an `Age` above 0). `Retry-After` is read as `reading` says
    /// (`"strict"`, the default, or `"lenient"`); given a `policy`, the response is read as its HTTP helpers read
    /// it (`Outcome::read_http_response`: the guidance headers its `server_guidance.headers` names, `Retry-After` as
    /// its `server_guidance.retry_after_reading` says), and a `reading` beside it is refused.
    #[staticmethod]
    #[pyo3(signature = (status, headers, *, now_unix = None, now_unix_ms = None, reading = None, policy = None))]
    fn from_http_response(
        status: &Bound<'_, PyAny>,
        headers: &Bound<'_, PyAny>,
        now_unix: Arg,
        now_unix_ms: Arg,
        reading: Arg,
        policy: Arg,
    ) -> Res<PyOutcome> {
        let reading = reading.map(|reading| by_name::<RetryAfterReading>("reading", reading)).transpose()?;
        let policy = policy.map(|policy| class_arg::<PyPolicy>("policy", policy)).transpose()?;
        let now = NOW_UNIX.read(now_unix, now_unix_ms)?;
        let head = ResponseHead::read(status, headers)?;
        let lookup = |name: &str| head.headers.get(name);
        let policy = policy.map(|policy| &*policy.inner);
        Ok(outcome(Outcome::read_http_response(head.status, lookup, now, reading, policy)?))
    }

    /// The outcome's kind, as in JSON's `type`: the core's name of it (`wire::OutcomeKind`).
    #[getter]
    fn kind(&self) -> &'static str {
        let word = encode_outcome(&self.inner)[0];
        usize::try_from(word).ok().and_then(|at| OutcomeKind::ALL.get(at)).map_or("", |kind| kind.name())
    }

    /// The outcome in the JSON schema's shape.
    fn to_dict<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner)
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
        Ok(PyPushback { inner: Pushback::RetryAfterMs(ms_arg("ms", ms)?) })
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
    fn to_json_value<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        match self.inner {
            Pushback::RetryAfterMs(ms) => format!("Pushback.retry_after({ms})"),
            Pushback::DoNotRetry => "Pushback.do_not_retry()".to_owned(),
        }
    }
}

/// Classifies an outcome under a policy.
#[pyfunction]
pub(crate) fn classify<'py>(policy: &Bound<'py, PyAny>, outcome: &Bound<'_, PyAny>) -> Res<Bound<'py, PyAny>> {
    let inner = &class_arg::<PyPolicy>("policy", policy)?.inner;
    let class = retryplan::outcomes::classify::classify(inner, &class_arg::<PyOutcome>("outcome", outcome)?.inner)?;
    typed(policy.py(), "Classification", &class, None)
}

/// A response as the platform gave it: its status, any whole number (no
/// validation, no clamp: the core reads one outside 100..=599 as
/// `malformed_response`), and the raw values of the guidance headers.
pub(crate) struct ResponseHead {
    pub(crate) status: i64,
    pub(crate) headers: Headers,
}

/// Raw header values by lower-case name, read from a mapping (boxed text: a response held in
/// `run::Meaning` stays small).
pub(crate) struct Headers(Vec<(&'static str, Box<str>)>);

impl Headers {
    /// The values of `names` (lower case) present in `headers`. A `dict` is read case-insensitively,
    /// as header names are (RFC 9110 §5.1): keys that differ only in letter case are the field lines
    /// of one header, joined by `", "` in the dict's order, as the core reads repeated lines. Any
    /// other mapping (httpx's, requests', urllib3's headers: case-insensitive already) is asked
    /// through its `get` for the lower-case names.
    pub(crate) fn read(headers: &Bound<'_, PyAny>, names: impl IntoIterator<Item = &'static str>) -> Res<Headers> {
        if let Ok(dict) = headers.cast::<PyDict>() {
            return Headers::read_dict(dict, names);
        }
        let get =
            headers.getattr(intern!(headers.py(), "get")).map_err(|_| wrong_type("headers", "a mapping", headers))?;
        let mut values = Vec::new();
        for name in names {
            let value = get.call1((name,))?;
            if !value.is_none() {
                values.push((name, str_arg("headers", &value)?.into()));
            }
        }
        Ok(Headers(values))
    }

    /// A `dict`'s values of `names`, its keys matched whatever their letter case (a key that is not
    /// a str, or not one of `names`, is not a guidance header: left alone, as `get` would).
    fn read_dict(dict: &Bound<'_, PyDict>, names: impl IntoIterator<Item = &'static str>) -> Res<Headers> {
        let names: Vec<&'static str> = names.into_iter().collect();
        let mut values: Vec<(&'static str, String)> = Vec::new();
        for (key, value) in dict.iter() {
            let Ok(key) = key.cast::<PyString>() else { continue };
            let Ok(key) = key.to_cow() else { continue };
            let Some(&name) = names.iter().find(|name| name.eq_ignore_ascii_case(&key)) else { continue };
            if value.is_none() {
                continue;
            }
            let value = str_arg("headers", &value)?;
            match values.iter_mut().find(|(known, _)| *known == name) {
                Some((_, joined)) => {
                    joined.push_str(", ");
                    joined.push_str(&value);
                }
                None => values.push((name, value.into_owned())),
            }
        }
        Ok(Headers(values.into_iter().map(|(name, value)| (name, value.into_boxed_str())).collect()))
    }

    /// The core's header lookup: a header's raw value by its lower-case name.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(known, _)| *known == name).map(|(_, value)| &**value)
    }
}

impl ResponseHead {
    /// `status` (an int) and `headers` (a dict in any letter case, or a mapping whose `get` finds the lower-case names of the guidance
    /// headers and of the next hop's `retryplan-retryable`, its "do not retry", read by the driver).
    pub(crate) fn read(status: &Bound<'_, PyAny>, headers: &Bound<'_, PyAny>) -> Res<ResponseHead> {
        if status.is_instance_of::<PyBool>() || !status.is_instance_of::<PyInt>() {
            return Err(wrong_type("status", "an int", status));
        }
        // Beyond i64 only: the nearest word, as far outside 100..=599 as the platform's number.
        let beyond = if status.lt(0)? { i64::MIN } else { i64::MAX };
        let status = status.extract::<i64>().unwrap_or(beyond);
        let names = GUIDANCE_HEADERS.into_iter().chain([retryplan::propagation::RETRYPLAN_RETRYABLE]);
        Ok(ResponseHead { status, headers: Headers::read(headers, names)? })
    }
}
