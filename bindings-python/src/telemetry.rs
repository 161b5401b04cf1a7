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

/// The signals of `event`, in order, as tuples:
/// `("start", attempt, resend_count | None, hedge)`,
/// `("end", attempt, status_code | None, error_type)` (a str, True: the raised exception's type, or None),
/// `("give_up", on_attempt | None, reason, attempts)`,
/// `("count", instrument name, attribute value | None)`.
#[pyfunction]
pub(crate) fn telemetry_signals<'py>(event: &Bound<'py, PyAny>) -> Res<Bound<'py, PyList>> {
    let py = event.py();
    let event = event.cast::<PyEvent>().map_err(|_| wrong_type("event", "a retryplan.Event", event))?;
    let list = PyList::empty(py);
    for signal in signals(&event.get().inner) {
        let item = match signal {
            Signal::AttemptStarted { attempt, resend_count, hedge } => {
                ("start", attempt, resend_count, hedge).into_pyobject(py)?
            }
            Signal::AttemptEnded { attempt, status_code, error_type: kind } => {
                ("end", attempt, status_code, error_type(py, kind)?).into_pyobject(py)?
            }
            Signal::GaveUp { on_attempt, reason, attempts } => {
                ("give_up", on_attempt, reason.name(), attempts).into_pyobject(py)?
            }
            Signal::Count { metric, value } => ("count", metric.otel_name(), value).into_pyobject(py)?,
        };
        list.append(item)?;
    }
    Ok(list)
}
