//! The dialects of other retry designs read by the core: gRPC service configs
//! (gRFC A6) and urllib3's `Retry` (its attributes, read by `retryplan.compat`);
//! the AWS SDKs' standard mode (error codes, the retry quota) is the functions
//! table's (`functions_generated.rs`).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use retryplan::config::error::ConfigKind;
use retryplan::dialects::grpc;
use retryplan::dialects::urllib3;
use retryplan::{Dependency, Policy};

use crate::args::{ms_arg, str_arg, u32_arg, Arg};
use crate::controls::PyDependency;
use crate::data::from_py;
use crate::fault::Res;
use crate::policy::PyPolicy;

/// The policy a urllib3 `Retry` maps to: `retry` is a dict of its attributes
/// by name (an absent one has urllib3's default), `total_timeout_ms` the
/// deadline of the whole call (24 hours when None). The core reads and maps
/// them; `retryplan.compat.from_urllib3` is the API.
#[pyfunction]
#[pyo3(signature = (retry, total_timeout_ms = None))]
pub(crate) fn policy_from_urllib3(retry: &Bound<'_, PyAny>, total_timeout_ms: Arg) -> Res<PyPolicy> {
    let total_timeout_ms = total_timeout_ms.map(|ms| ms_arg("total_timeout_ms", ms)).transpose()?;
    let retry = urllib3::Urllib3Retry::from_value(&from_py(retry, ConfigKind::Urllib3Retry)?)?;
    Ok(PyPolicy::from(Policy::new(&urllib3::policy_from_urllib3(&retry, total_timeout_ms)?)?))
}

/// A gRPC service config, read as gRFC A6 says: one validated policy per
/// method selector, the channel's retry throttling, and warnings for what
/// was capped or truncated.
#[pyclass(module = "retryplan", name = "ServiceConfig", frozen)]
pub(crate) struct PyServiceConfig {
    inner: grpc::ServiceConfig,
}

#[pymethods]
impl PyServiceConfig {
    /// Reads a service config from a dict (or JSON text); `max_attempts_cap`
    /// is the client-side cap on maxAttempts (default 5; below 2: 5, as grpc-go reads it).
    #[new]
    #[pyo3(signature = (config, *, max_attempts_cap = None))]
    fn new(config: &Bound<'_, PyAny>, max_attempts_cap: Arg) -> Res<Self> {
        let max_attempts_cap = match max_attempts_cap {
            Some(cap) => u32_arg("max_attempts_cap", cap)?,
            None => grpc::DEFAULT_MAX_ATTEMPTS_CAP,
        };
        let options = grpc::ServiceConfigOptions { max_attempts_cap };
        let inner = match config.is_instance_of::<PyString>() {
            true => grpc::ServiceConfig::from_json(&str_arg("config", config)?, options)?,
            false => grpc::ServiceConfig::from_value(&from_py(config, ConfigKind::ServiceConfig)?, options)?,
        };
        Ok(PyServiceConfig { inner })
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
        let warning = |warning: &grpc::ConfigWarning| {
            let dict = PyDict::new(py);
            dict.set_item("field", &warning.field)?;
            dict.set_item("message", warning.message.to_string())?;
            Ok(dict)
        };
        self.inner.warnings.iter().map(warning).collect()
    }

    /// A new Dependency holding the retry throttling (token bucket), or None;
    /// create one per server name and share it.
    fn throttling_dependency(&self) -> Res<Option<PyDependency>> {
        let dependency = self.inner.throttling.as_ref().map(Dependency::new).transpose()?;
        Ok(dependency.map(|inner| PyDependency { inner }))
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
        Ok(found.map(|policy| PyPolicy::from(*policy)))
    }
}

fn method_dict<'py>(py: Python<'py>, profile: &grpc::MethodProfile) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("name", &profile.name)?;
    dict.set_item("service", &profile.service)?;
    dict.set_item("method", &profile.method)?;
    dict.set_item("policy", PyPolicy::from(profile.policy))?;
    Ok(dict)
}
