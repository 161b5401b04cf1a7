//! `IncomingContext`: what the request being served says about its caller
//! (`retryplan::propagation`), read by the core from the request's headers.
//! A host reads it once per request, starts its drivers with it
//! (`Driver(..., incoming=...)`), and writes the headers the driver computes
//! (`Driver.outgoing_headers`, `Driver.answer_headers`): it computes none of them.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use retryplan::propagation::{HeaderList, IncomingContext, Protocol, REQUEST_HEADERS};

use crate::args::{by_name, class_arg, Arg, NOW};
use crate::fault::Res;
use crate::outcome::Headers;
use crate::policy::PyPolicy;

/// The context of the request being served, read by `IncomingContext.read`: the caller's remaining
/// deadline, its attempts, its idempotency key and whether it retries. Opaque to the host: hand it to a
/// `Driver` (`incoming=`) or to the helpers (through `retryplan.propagation`'s ambient context).
#[pyclass(module = "retryplan", name = "IncomingContext", frozen)]
pub(crate) struct PyIncomingContext {
    pub(crate) inner: IncomingContext,
}

/// A protocol by name (None: `http`); an unknown name is refused naming `protocol`.
pub(crate) fn protocol_arg(obj: Arg) -> Res<Protocol> {
    obj.filter(|obj| !obj.is_none()).map_or(Ok(Protocol::Http), |obj| by_name("protocol", obj))
}

/// Headers to write, as a dict by lower-case name, in the core's order.
pub(crate) fn headers_to_py<'py>(py: Python<'py>, headers: &HeaderList) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, value) in headers.iter() {
        dict.set_item(name, value)?;
    }
    Ok(dict)
}

#[pymethods]
impl PyIncomingContext {
    /// Reads the request's `headers` (a dict in any letter case, or a mapping whose `get` finds lower-case names; a header sent as
    /// several lines joined by `", "`) at `now` on the helpers' monotonic clock, as `policy`'s
    /// `propagation.read_headers` says. A malformed value raises `InvalidRequestHeaderError` (a
    /// `CallerError`: the caller sent it) naming the header and its rule (`InvalidArgumentError` naming `Idempotency-Key` for a key that is not one): a server
    /// answers such a request 400.
    #[staticmethod]
    #[pyo3(signature = (policy, headers, now = None, *, now_ms = None))]
    fn read(policy: &Bound<'_, PyAny>, headers: &Bound<'_, PyAny>, now: Arg, now_ms: Arg) -> Res<Self> {
        let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
        let now = NOW.read(now, now_ms)?;
        let headers = Headers::read(headers, REQUEST_HEADERS)?;
        Ok(PyIncomingContext { inner: IncomingContext::read(policy, now, |name| headers.get(name))? })
    }

    /// The context of a request with none of the headers, received at `now`.
    #[staticmethod]
    #[pyo3(signature = (now = None, *, now_ms = None))]
    fn none(now: Arg, now_ms: Arg) -> Res<Self> {
        Ok(PyIncomingContext { inner: IncomingContext::none(NOW.read(now, now_ms)?) })
    }

    /// When the request was read (ms on the helpers' monotonic clock).
    #[getter]
    fn received_at_ms(&self) -> u64 {
        self.inner.received_at_ms
    }

    /// The caller's remaining time when it sent the request, in ns (the tightest header), or None.
    #[getter]
    fn caller_remaining_ns(&self) -> Option<u64> {
        self.inner.caller_remaining_ns
    }

    /// The header that gave `caller_remaining_ns`, or None.
    #[getter]
    fn deadline_header(&self) -> Option<&'static str> {
        self.inner.deadline_header
    }

    /// Attempts the caller made before this one (0 for its first).
    #[getter]
    fn previous_attempts(&self) -> u32 {
        self.inner.previous_attempts
    }

    /// The caller's idempotency key, sent on every hop unchanged, or None.
    #[getter]
    fn idempotency_key(&self) -> Option<&str> {
        self.inner.idempotency_key.as_ref().map(|key| key.as_str())
    }

    /// True when a layer above retries this request.
    #[getter]
    fn caller_retries(&self) -> bool {
        self.inner.caller_retries
    }

    /// The deadline (ms, the helpers' clock) of an operation serving this request under `policy`:
    /// reception + the caller's remaining - `propagation.reserve_ms`; None without a deadline.
    fn deadline_ms(&self, policy: &Bound<'_, PyAny>) -> Res<Option<u64>> {
        let policy = &class_arg::<PyPolicy>("policy", policy)?.inner;
        Ok(self.inner.deadline_ms(policy.propagation().reserve_ms))
    }

    /// The context as a dict (`caller_remaining_ns` an int or None).
    fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(slf.py());
        let names = ["received_at_ms", "caller_remaining_ns", "deadline_header", "previous_attempts"];
        for name in names.into_iter().chain(["idempotency_key", "caller_retries"]) {
            dict.set_item(name, slf.getattr(name)?)?;
        }
        Ok(dict)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!("IncomingContext({})", Self::to_dict(slf)?.repr()?))
    }
}
