//! `Decision` and its seven subclasses, one per kind, fields exactly as in the engine (their lists are
//! generated from the core's `Decision`: `decision_classes.rs`).

use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyString, PyTuple};
use retryplan::config::error::ConfigKind;
use retryplan::config::value::Named;
use retryplan::outcomes::decision::{AttemptSet, RequestId};
use retryplan::{AbortReason, Decision, Error, GiveUpReason};

use crate::data::{from_py, repr_of, serialized};
use crate::fault::{invalid, wrong_type, Fault, Res};

/// What the caller must do now. One subclass per kind: `StartAttempt`,
/// `Wait`, `AwaitOutcome`, `Succeeded`, `GaveUp`, `Reconcile`, `Restart`;
/// fields exactly as in the engine (absolute times in ms on the caller's clock).
#[pyclass(module = "retryplan", name = "Decision", frozen, subclass, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyDecision {
    pub(crate) inner: Decision,
}

static REASONS: PyOnceLock<Vec<Py<PyAny>>> = PyOnceLock::new();

/// A field of a core value as Python sees it.
pub(crate) trait IntoField {
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

impl IntoField for AbortReason {
    /// Its snake_case name (`timed_out`, ...), interned.
    fn into_field(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(PyString::intern(py, self.name()).into_any().unbind())
    }
}

impl IntoField for GiveUpReason {
    /// The member of `retryplan.GiveUpReason`.
    fn into_field(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let members = REASONS.get_or_try_init(py, || -> PyResult<Vec<Py<PyAny>>> {
            let class = py.import("retryplan._enums")?.getattr("GiveUpReason")?;
            GiveUpReason::ALL.iter().map(|reason| class.call1((reason.name(),)).map(Bound::unbind)).collect()
        })?;
        let index = GiveUpReason::ALL.iter().position(|reason| *reason == self);
        let member = index.and_then(|index| members.get(index)).map(|member| member.clone_ref(py));
        member.ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err(format!("no GiveUpReason {}", self.name())))
    }
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
    fn to_dict<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner)
    }

    /// A decision from its JSON-shaped dict (for tests and replays). A bad dict is `InvalidArgumentError`
    /// naming the field and its rule, in the same words as every language.
    #[staticmethod]
    fn from_dict(py: Python<'_>, value: &Bound<'_, PyAny>) -> Res<Py<PyAny>> {
        if !value.is_instance_of::<PyDict>() {
            return Err(wrong_type("value", "a dict", value));
        }
        // A decision is not a configuration: what does not convert is an argument refused.
        let tree = match from_py(value, ConfigKind::Policy) {
            Err(Fault::Core(Error::InvalidConfig { field, message, .. })) => {
                return Err(invalid("value", format!("at `{field}`: {message}")))
            }
            tree => tree?,
        };
        Ok(decision_to_py(py, Decision::from_value(&tree)?)?)
    }

    /// The words of the typed ending a helper raises for this decision (GaveUp, Reconcile, Restart; None
    /// for any other): what happened and what to do, the same in every language. `operation` names the
    /// operation (a function, an HTTP request's method and URL), `idempotency_key` is the key its helper sent
    /// with it (None: none was sent, and a reconcile's words send the caller to other means).
    fn ending_message(&self, operation: &str, idempotency_key: Option<&str>) -> Option<String> {
        self.inner.ending_message(operation, idempotency_key).map(|message| message.to_string())
    }

    /// What the decision says, in words, for a log line: attempts count from 1, a wait is a duration and the
    /// attempt it comes before, no clock reading appears (the core's words, every language's).
    fn describe(&self) -> String {
        self.inner.describe().to_string()
    }

    /// Deprecated alias of `Wait.retry_after_ms` for one release (issue 28: one name per concept); None on
    /// any other kind.
    #[getter]
    fn server_delay_ms(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
        PyErr::warn(py, &category, c"retryplan: Wait.server_delay_ms is renamed Wait.retry_after_ms", 1)?;
        Ok(match self.inner {
            Decision::Wait { retry_after_ms, .. } => retry_after_ms,
            _ => None,
        })
    }

    /// Deprecated alias of `AwaitOutcome.running` for one release (issue 28: one name per concept); None on
    /// any other kind.
    #[getter]
    fn in_flight(&self, py: Python<'_>) -> PyResult<Option<u32>> {
        let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
        PyErr::warn(py, &category, c"retryplan: AwaitOutcome.in_flight is renamed AwaitOutcome.running", 1)?;
        Ok(match self.inner {
            Decision::AwaitOutcome { running, .. } => Some(running),
            _ => None,
        })
    }

    /// `Wait(retry=0, ...)`: its class and the fields of its JSON shape.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(repr_of(&slf.get_type().name()?.to_cow()?, &slf.get().inner))
    }
}

/// The subclasses, their fields' getters and registration, and the two matches over every kind, from the variants'
/// field lists that `decision_classes.rs` gives (generated by core/mirrors from `retryplan::Decision`).
macro_rules! decision_classes {
    ($($(#[doc = $doc:literal])* $class:ident { $($(#[doc = $field_doc:literal])* $field:ident,)* })*) => {$(
        $(#[doc = $doc])*
        #[pyclass(module = "retryplan", frozen, extends = PyDecision)]
        pub(crate) struct $class;

        #[pymethods]
        impl $class {
            #[classattr]
            fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
                Ok(PyTuple::new(py, [$(stringify!($field)),*])?.unbind())
            }
            $(
                $(#[doc = $field_doc])*
                #[getter]
                fn $field(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                    match slf.as_super().get().inner {
                        Decision::$class { $field, .. } => $field.into_field(slf.py()),
                        _ => Ok(slf.py().None()),
                    }
                }
            )*
        }
    )*

        /// Adds `Decision` and its subclasses to the module.
        pub(crate) fn add_decision_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
            m.add_class::<PyDecision>()?;
            $(m.add_class::<$class>()?;)*
            Ok(())
        }

        /// A decision as an instance of its subclass.
        pub(crate) fn decision_to_py(py: Python<'_>, inner: Decision) -> PyResult<Py<PyAny>> {
            let base = PyClassInitializer::from(PyDecision { inner });
            Ok(match inner {
                $(Decision::$class { .. } => Bound::new(py, base.add_subclass($class))?.into_any().unbind(),)*
            })
        }
    };
}

include!("decision_classes.rs");
