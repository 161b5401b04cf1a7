//! Why a binding call failed (`Fault`), what every binding function returns
//! (`Res`), and the two faults the binding itself finds in an argument. The
//! conversion of a fault to a Python exception is `errors`.

use pyo3::prelude::*;
use retryplan::headers::retry_after::HeaderError;
use retryplan::{CompiledFormError, Error};

/// Why a call failed: the core's error, an argument of the wrong Python type,
/// or a Python exception raised while converting.
pub(crate) enum Fault {
    Core(Error),
    Compiled(CompiledFormError),
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

impl From<CompiledFormError> for Fault {
    fn from(error: CompiledFormError) -> Self {
        Fault::Compiled(error)
    }
}

impl From<PyErr> for Fault {
    fn from(error: PyErr) -> Self {
        Fault::Python(error)
    }
}

/// `invalid_argument` naming `name`.
pub(crate) fn invalid(name: &'static str, rule: String) -> Fault {
    Fault::Core(Error::InvalidArgument { field: name, rule: rule.into() })
}

/// `invalid_argument` (also a `TypeError`) for `obj`, which is not `expected`.
pub(crate) fn wrong_type(name: &'static str, expected: &str, obj: &Bound<'_, PyAny>) -> Fault {
    let got = obj.get_type().name().map(|name| name.to_string()).unwrap_or_else(|_| "?".to_owned());
    Fault::WrongType { name, rule: format!("must be {expected}, got {got}") }
}
