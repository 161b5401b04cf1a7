//! Errors to Python exceptions, one conversion for every core error: its class
//! in `retryplan._errors` by its code, its fields (`Error::fields`) the
//! exception's typed attributes. A refused compiled form (`CompiledFormError`,
//! the core's other error type) takes the same way by its code, with no
//! fields (the core gives none; its message says them). No panic crosses; a
//! Python exception raised while converting passes through unchanged.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;

use crate::data::to_py;
use crate::fault::Fault;

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

impl From<Fault> for PyErr {
    fn from(fault: Fault) -> Self {
        Python::attach(|py| match fault {
            Fault::Python(error) => error,
            fault => exception(py, fault).unwrap_or_else(|error| error),
        })
    }
}

/// The exception for a fault: `retryplan._errors.<Class>(message, **fields)`, a core error's class
/// found by its code (`BY_CODE`, generated beside the classes) and its fields the core's (`Error::fields`).
fn exception(py: Python<'_>, fault: Fault) -> PyResult<PyErr> {
    let module = ERRORS.get_or_try_init(py, || py.import("retryplan._errors").map(Bound::unbind))?.bind(py);
    let fields = PyDict::new(py);
    let (class, message, blame) = match fault {
        Fault::Python(error) => return Ok(error),
        Fault::WrongType { name, rule } => {
            fields.set_item("field", name)?;
            fields.set_item("rule", &rule)?;
            (module.getattr("ArgumentTypeError")?, format!("invalid argument `{name}`: {rule}"), None)
        }
        Fault::Core(error) => {
            for (name, value) in error.fields() {
                // The exception's `message` is its text: a field of that name is `detail` (core/mirrors).
                fields.set_item(if name == "message" { "detail" } else { name }, to_py(py, &value)?)?;
            }
            (module.getattr("BY_CODE")?.get_item(error.code())?, error.to_string(), Some(error.blame()))
        }
        Fault::Compiled(error) => {
            (module.getattr("BY_CODE")?.get_item(error.code())?, error.to_string(), Some(error.blame()))
        }
    };
    let exception = class.call((message,), Some(&fields))?;
    if let Some(blame) = blame {
        // The core's blame on the instance (the class states the same as its default).
        exception.setattr("blame", blame.name())?;
    }
    Ok(PyErr::from_value(exception))
}
