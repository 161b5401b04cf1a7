//! `telemetry_signals(event)`: what the core's telemetry mapping
//! (`retryplan::telemetry::signals`) makes of a recorded event, for
//! `retryplan._otel` to hand to OpenTelemetry. Nothing is decided here.

use pyo3::prelude::*;
use pyo3::types::PyList;
use retryplan::telemetry::{signals, ErrorType, Signal};

use crate::driver::PyEvent;
use crate::fault::{wrong_type, Res};

/// `error.type` as Python reads it: a string, or True for "the type of what the attempt raised".
fn error_type<'py>(py: Python<'py>, error_type: Option<ErrorType>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match error_type {
        None => py.None().into_bound(py),
        Some(ErrorType::Status(status)) => pyo3::types::PyString::new(py, &status.to_string()).into_any(),
        Some(ErrorType::Named(name)) => pyo3::types::PyString::new(py, name).into_any(),
        Some(ErrorType::Raised) => pyo3::types::PyBool::new(py, true).to_owned().into_any(),
    })
}

/// The signals of `event`, in order, as the tuples `_native.pyi` lists, each its kind's name first
/// (`_telemetry_names.SIGNAL_*`).
#[pyfunction]
pub(crate) fn telemetry_signals<'py>(event: &Bound<'py, PyAny>) -> Res<Bound<'py, PyList>> {
    let py = event.py();
    let event = event.cast::<PyEvent>().map_err(|_| wrong_type("event", "a retryplan.Event", event))?;
    let list = PyList::empty(py);
    for signal in signals(&event.get().inner) {
        let kind = retryplan::config::value::Named::name(signal.kind());
        let item = match signal {
            Signal::AttemptStarted { attempt, resend_count, hedge } => {
                (kind, attempt, resend_count, hedge).into_pyobject(py)?
            }
            Signal::AttemptEnded { attempt, status_code, error_type: ended } => {
                (kind, attempt, status_code, error_type(py, ended)?).into_pyobject(py)?
            }
            Signal::GaveUp { on_attempt, reason, attempts } => {
                (kind, on_attempt, reason.name(), attempts).into_pyobject(py)?
            }
            Signal::Count { metric, value } => (kind, metric.otel_name(), value).into_pyobject(py)?,
        };
        list.append(item)?;
    }
    Ok(list)
}
