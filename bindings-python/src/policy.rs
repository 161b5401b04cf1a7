//! `Policy`: read from keyword arguments, a dict, JSON, a file or a profile
//! by the core's one reader.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use retryplan::config::error::ConfigKind;
use retryplan::config::value::Value;
use retryplan::{dialects::profiles, Policy, PolicyConfig};

use crate::args::{bytes_arg, json_arg, str_arg, Arg};
use crate::data::{from_py, serialized, to_py};
use crate::fault::Res;

/// A validated, immutable retry policy. Build it from keyword arguments,
/// a dict, JSON, a JSON/TOML file or a named profile; every field not given
/// takes the engine's default, and every broken rule is reported at once.
#[pyclass(module = "retryplan", name = "Policy", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyPolicy {
    /// Shared, as JS and Kotlin hold it: every driver made from this policy reads it without a copy.
    pub(crate) inner: Arc<Policy>,
}

impl From<Policy> for PyPolicy {
    fn from(policy: Policy) -> PyPolicy {
        PyPolicy { inner: Arc::new(policy) }
    }
}

fn from_value(value: &Value) -> Res<PyPolicy> {
    Ok(PyPolicy::from(Policy::new(&PolicyConfig::from_value(value)?)?))
}

#[pymethods]
impl PyPolicy {
    #[new]
    #[pyo3(signature = (**fields))]
    fn new(fields: Option<&Bound<'_, PyDict>>) -> Res<Self> {
        match fields {
            Some(fields) => from_value(&from_py(fields.as_any(), ConfigKind::Policy)?),
            None => Ok(PyPolicy::from(Policy::default())),
        }
    }

    /// A policy from a dict shaped like the JSON schema.
    #[staticmethod]
    fn from_dict(config: &Bound<'_, PyAny>) -> Res<Self> {
        // Anything but a dict is the reader's to refuse (invalid_config at the top level).
        from_value(&from_py(config, ConfigKind::Policy)?)
    }

    /// A policy from JSON text (`json`; the keyword `text` is its deprecated old name).
    #[staticmethod]
    #[pyo3(signature = (json = None, *, text = None), text_signature = "(json)")]
    fn from_json(json: Arg, text: Arg) -> Res<Self> {
        Ok(PyPolicy::from(Policy::from_json(&json_arg(json, text)?)?))
    }

    /// A policy from its compiled form (`Policy.to_compiled`, `retryplan compile`):
    /// bytes, bytearray or memoryview, read back without the configuration reader.
    #[staticmethod]
    fn from_compiled(form: &Bound<'_, PyAny>) -> Res<Self> {
        Ok(PyPolicy::from(Policy::from_compiled(&bytes_arg("form", form)?)?))
    }

    /// A policy from a `.json` or `.toml` file.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: &Bound<'_, PyAny>) -> Res<Self> {
        let config = py.import("retryplan._config")?.getattr("read_policy_file")?.call1((path,))?;
        match config.is_instance_of::<PyString>() {
            true => PyPolicy::from_json(Some(&config), None),
            false => PyPolicy::from_dict(&config),
        }
    }

    /// The built-in profile `name` (see `PROFILE_NAMES`).
    #[staticmethod]
    fn from_profile(name: &Bound<'_, PyAny>) -> Res<Self> {
        Ok(PyPolicy::from(Policy::new(&profiles::profile(&str_arg("name", name)?)?)?))
    }

    /// The configuration as a dict (normalised: sets sorted, ratios as decimals).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.to_config().to_value())
    }

    /// The configuration as pretty-printed JSON.
    fn to_json(&self) -> String {
        self.inner.to_config().to_json()
    }

    /// The policy's compiled form: versioned, checksummed bytes that
    /// `Policy.from_compiled` (in any language) reads back as this policy.
    fn to_compiled<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_compiled())
    }

    /// Attempts allowed in all, the first included.
    #[getter]
    fn max_attempts(&self) -> u32 {
        self.inner.max_attempts()
    }

    /// The operation's total timeout, in ms: every attempt and wait fit in it.
    #[getter]
    fn total_timeout_ms(&self) -> u64 {
        self.inner.total_timeout_ms()
    }

    /// Deprecated alias of `total_timeout_ms` for one release ("budget" names the retry budget only).
    #[getter]
    fn total_budget_ms(&self, py: Python<'_>) -> PyResult<u64> {
        let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
        PyErr::warn(py, &category, c"retryplan: Policy.total_budget_ms is renamed Policy.total_timeout_ms", 1)?;
        Ok(self.inner.total_timeout_ms())
    }

    /// Time kept back at the end of the total timeout, in ms.
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
    fn idempotency<'py>(&self, py: Python<'py>) -> Res<Bound<'py, PyAny>> {
        serialized(py, &self.inner.idempotency())
    }

    /// True when requests carry the idempotency key header (keyed and unsafe operations).
    #[getter]
    fn sends_idempotency_key(&self) -> bool {
        self.inner.sends_idempotency_key()
    }

    fn __repr__(&self) -> String {
        let compact = serde_json::to_string(&self.inner.to_config()).unwrap_or_default();
        format!("Policy.from_json('{compact}')")
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().getattr("from_json")?, (slf.get().to_json(),)))
    }
}

/// The configuration of a built-in profile, as a dict to adjust and pass to `Policy.from_dict`.
#[pyfunction]
pub(crate) fn profile<'py>(py: Python<'py>, name: &Bound<'_, PyAny>) -> Res<Bound<'py, PyAny>> {
    Ok(to_py(py, &profiles::profile(&str_arg("name", name)?)?.to_value())?)
}
