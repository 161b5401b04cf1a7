//! The dialects users arrive with: a gRPC service config (gRFC A6) and
//! urllib3's `Retry`. Conversion only; every rule is the core's
//! (`retryplan::dialects`). The AWS standard mode's dependencies and
//! `grpc-timeout` in nanoseconds are the functions table's (`functions.rs`).

use std::sync::Arc;

use retryplan as rp;

use crate::controls::Dependency;
use crate::policy::Policy;
use crate::records::ConfigWarning;
use crate::{ms_in, u32_in, Result};

/// The policy a urllib3 `Retry` maps to (Python's `requests`/urllib3 retry
/// settings), from its attributes as JSON text keyed by urllib3's names; a
/// number of seconds may be `"inf"`, `"-inf"` or `"nan"`. `totalTimeoutMs`
/// is the whole call's deadline (24 hours when null: urllib3 has none). The
/// mapping and its refusals are the core's (`retryplan::dialects::urllib3`).
#[uniffi::export]
pub fn policy_from_urllib3(json: String, total_timeout_ms: Option<i64>) -> Result<Arc<Policy>> {
    let total_timeout_ms = total_timeout_ms.map(|ms| ms_in("total_timeout_ms", ms)).transpose()?;
    let config = rp::dialects::urllib3::policy_from_urllib3_json(&json, total_timeout_ms)?;
    Ok(Policy::shared(rp::Policy::new(&config)?))
}

/// One method selector of a service config and its policy.
#[derive(Clone, Debug, uniffi::Record)]
pub struct MethodProfile {
    /// `/service/method`, `/service/` (a service's default) or `` (the default config).
    pub name: String,
    pub service: String,
    pub method: String,
    pub policy: Arc<Policy>,
}

fn profile(method: &rp::dialects::grpc::MethodProfile) -> MethodProfile {
    MethodProfile {
        name: method.name.clone(),
        service: method.service.clone(),
        method: method.method.clone(),
        policy: Policy::shared(method.policy),
    }
}

/// A gRPC service config read as gRFC A6 says: one validated policy per
/// method selector, the channel's retry throttling, and warnings for what was
/// capped or truncated.
#[derive(Debug, uniffi::Object)]
pub struct ServiceConfig(rp::dialects::grpc::ServiceConfig);

#[uniffi::export]
impl ServiceConfig {
    /// Reads a service config from JSON; `max_attempts_cap` is the
    /// client-side cap on maxAttempts (null, or below 2: 5, as grpc-go reads it).
    #[uniffi::constructor(default(max_attempts_cap = None))]
    pub fn from_json(json: String, max_attempts_cap: Option<i32>) -> Result<Arc<ServiceConfig>> {
        let max_attempts_cap = match max_attempts_cap {
            Some(cap) => u32_in("max_attempts_cap", cap)?,
            None => rp::dialects::grpc::DEFAULT_MAX_ATTEMPTS_CAP,
        };
        let options = rp::dialects::grpc::ServiceConfigOptions { max_attempts_cap };
        Ok(Arc::new(ServiceConfig(rp::dialects::grpc::ServiceConfig::from_json(&json, options)?)))
    }

    /// One profile per selector, in the order the config names them.
    pub fn methods(&self) -> Vec<MethodProfile> {
        self.0.methods.iter().map(profile).collect()
    }

    /// What was capped or truncated rather than refused.
    pub fn warnings(&self) -> Vec<ConfigWarning> {
        self.0.warnings.iter().cloned().map(Into::into).collect()
    }

    /// A new Dependency holding the retry throttling (token bucket), or null;
    /// create one per server name and share it.
    pub fn throttling_dependency(&self) -> Result<Option<Arc<Dependency>>> {
        Ok(match &self.0.throttling {
            Some(config) => Some(Arc::new(Dependency(rp::Dependency::new(config)?))),
            None => None,
        })
    }

    /// The most specific selector for `service`/`method`, or null.
    pub fn method_for(&self, service: String, method: String) -> Option<MethodProfile> {
        self.0.method_for(&service, &method).map(profile)
    }

    /// The most specific selector's policy for `service`/`method`, or null.
    pub fn profile_for(&self, service: String, method: String) -> Option<Arc<Policy>> {
        self.0.profile_for(&service, &method).map(|policy| Policy::shared(*policy))
    }
}
