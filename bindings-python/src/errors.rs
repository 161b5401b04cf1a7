//! Errors to Python exceptions: one map from each core error to its class in
//! `retryplan._errors`, the error's fields becoming the exception's typed
//! attributes. No panic crosses; a Python exception raised while converting
//! passes through unchanged.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use retryplan::{Error, HeaderError};

/// Why a call failed: the core's error, an argument of the wrong Python type,
/// or a Python exception raised while converting.
pub(crate) enum Fault {
    Core(Error),
    WrongType { name: &'static str, rule: String },
    Python(PyErr),
}

/// What every binding function returns.
pub(crate) type Res<T> = Result<T, Fault>;

impl From<Error> for Fault {
    fn from(error: Error) -> Self {
        Fault::Core(error)
    }
}

impl From<HeaderError> for Fault {
    fn from(error: HeaderError) -> Self {
        Fault::Core(Error::from(error))
    }
}

impl From<PyErr> for Fault {
    fn from(error: PyErr) -> Self {
        Fault::Python(error)
    }
}

/// `invalid_argument` naming `name`.
pub(crate) fn invalid(name: &'static str, rule: String) -> Fault {
    Fault::Core(Error::InvalidArgument { name, rule: rule.into() })
}

/// `invalid_argument` (also a `TypeError`) for `obj`, which is not `expected`.
pub(crate) fn wrong_type(name: &'static str, expected: &str, obj: &Bound<'_, PyAny>) -> Fault {
    let got = obj.get_type().name().map(|name| name.to_string()).unwrap_or_else(|_| "?".to_owned());
    Fault::WrongType { name, rule: format!("must be {expected}, got {got}") }
}

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

impl From<Fault> for PyErr {
    fn from(fault: Fault) -> Self {
        Python::attach(|py| match fault {
            Fault::Python(error) => error,
            fault => exception(py, fault).unwrap_or_else(|error| error),
        })
    }
}

/// The exception for a fault: `retryplan._errors.<Class>(message, **fields)`.
fn exception(py: Python<'_>, fault: Fault) -> PyResult<PyErr> {
    let fields = PyDict::new(py);
    let set = |key: &str, value: &str| fields.set_item(key, value);
    let (class, message, blame) = match fault {
        Fault::Python(error) => return Ok(error),
        Fault::WrongType { name, rule } => {
            set("name", name)?;
            set("rule", &rule)?;
            ("ArgumentTypeError", format!("invalid argument `{name}`: {rule}"), None)
        }
        Fault::Core(error) => {
            let class = match &error {
                Error::ConfigViolations { config, violations } => {
                    set("config", config.name())?;
                    let pairs: Vec<(&str, String)> =
                        violations.iter().map(|v| (&*v.field, v.message.to_string())).collect();
                    fields.set_item("violations", pairs)?;
                    "ConfigViolationsError"
                }
                Error::InvalidConfig { config, field, message } => {
                    set("config", config.name())?;
                    set("field", field)?;
                    set("detail", &message.to_string())?;
                    "InvalidConfigError"
                }
                Error::UnknownProfile { name, known } => {
                    set("name", name)?;
                    fields.set_item("known", known)?;
                    "UnknownProfileError"
                }
                Error::OperationEnded => "OperationEndedError",
                Error::AttemptNotRunning { attempt, running } => {
                    fields.set_item("attempt", attempt)?;
                    fields.set_item("running", running)?;
                    "AttemptNotRunningError"
                }
                Error::InvalidArgument { name, rule } => {
                    set("name", name)?;
                    set("rule", &rule.to_string())?;
                    "InvalidArgumentError"
                }
                Error::Unsupported { field, rule } => {
                    set("field", field)?;
                    set("rule", &rule.to_string())?;
                    "UnsupportedError"
                }
                Error::InvalidHeader(header) => {
                    set("header", header.header())?;
                    let (kind, value, expected, limit) = match header {
                        HeaderError::Empty { .. } => ("empty", None, None, None),
                        HeaderError::Malformed { expected, value, .. } => {
                            ("malformed", Some(value), Some(*expected), None)
                        }
                        HeaderError::OutOfRange { limit, value, .. } => {
                            ("out_of_range", Some(value), None, Some(*limit))
                        }
                    };
                    set("kind", kind)?;
                    fields.set_item("value", value)?;
                    fields.set_item("expected", expected)?;
                    fields.set_item("limit", limit)?;
                    "InvalidHeaderError"
                }
                Error::EntropyUnavailable { message } => {
                    set("detail", &message.to_string())?;
                    "EntropyUnavailableError"
                }
            };
            (class, error.to_string(), Some(error.blame()))
        }
    };
    let module = ERRORS.get_or_try_init(py, || py.import("retryplan._errors").map(Bound::unbind))?;
    let exception = module.bind(py).getattr(class)?.call((message,), Some(&fields))?;
    if let Some(blame) = blame {
        // The core's blame on the instance (the class states the same as its default).
        exception.setattr("blame", blame.name())?;
    }
    Ok(PyErr::from_value(exception))
}
