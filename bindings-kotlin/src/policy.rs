//! Policies: the validated `Policy` object, the configuration records'
//! way to and from the core (generated records, `config.rs`, read and written
//! by the core's one reader and writer), and the pieces computed from a policy
//! (classification, ceilings, the worst-case timeline: `policy_generated.rs`,
//! from the methods definition). Defaults and rules all come from the core.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use retryplan as rp;
use retryplan::config::value::Value;
use retryplan::Class;

use crate::config::PolicyConfig;
use crate::live::Registry;
use crate::records::{Outcome, Redelivery, Timeline};
use crate::{long_out, ms_in, opt_ms_in, u32_in, Result, RetryplanError};

/// The core's configuration as the generated record: through the core's
/// writer and serde, in the JSON shape both spell (`config.rs`).
pub(crate) fn record_out<C: Serialize, R: DeserializeOwned>(config: &C) -> Result<R> {
    serde_json::from_value(serde_json::to_value(config).map_err(json_error)?).map_err(json_error)
}

/// A record as the data tree a JSON text or a JS object becomes, for the
/// core's one reader: a bad value gets the same error code and field path in
/// every language (a negative `backoff.baseMs` is `invalid_config` at
/// `backoff.base_ms`, as in JSON).
pub(crate) fn record_in<R: Serialize>(record: &R) -> Result<Value> {
    Ok(Value::from_serialize(record)?)
}

/// The core wrote a configuration its own record's shape cannot hold: a
/// record out of step with the core (regenerate: `cargo run -p retryplan-mirrors`).
fn json_error(error: serde_json::Error) -> RetryplanError {
    crate::invalid("config", format!("the configuration record does not match the core's: {error}"))
}

/// The core's default configuration (every field; the core owns the defaults).
#[uniffi::export]
pub fn default_policy_config() -> Result<PolicyConfig> {
    record_out(&rp::PolicyConfig::default())
}

/// The configuration of a built-in profile (`read`, `checkout`, `write_keyed`, ...).
#[uniffi::export]
pub fn profile_config(name: String) -> Result<PolicyConfig> {
    record_out(&rp::dialects::profiles::profile(&name)?)
}

/// The built-in profile names.
#[uniffi::export]
pub fn profile_names() -> Vec<String> {
    rp::dialects::profiles::NAMES.iter().map(|name| (*name).to_owned()).collect()
}

/// Reads a configuration from JSON without validating its rules.
#[uniffi::export]
pub fn policy_config_from_json(json: String) -> Result<PolicyConfig> {
    record_out(&rp::PolicyConfig::from_json(&json)?)
}

/// Live policies, by handle (`wire.rs` makes operations and drivers from them).
pub(crate) static POLICIES: Registry<Policy> = Registry::new();

/// A validated, immutable policy. Share one across threads freely.
#[derive(Debug, uniffi::Object)]
pub struct Policy(pub(crate) rp::Policy);

impl Policy {
    /// A new policy object, in the table of live policies (`src/wire.rs` makes operations from it).
    pub(crate) fn shared(policy: rp::Policy) -> Arc<Policy> {
        let policy = Arc::new(Policy(policy));
        POLICIES.register(&policy);
        policy
    }
}

impl Drop for Policy {
    fn drop(&mut self) {
        POLICIES.unregister(self);
    }
}

#[uniffi::export]
impl Policy {
    /// Validates a configuration; every violation is reported, nothing is clamped.
    #[uniffi::constructor]
    pub fn new(config: PolicyConfig) -> Result<Arc<Policy>> {
        Ok(Policy::shared(rp::Policy::new(&rp::PolicyConfig::from_value(&record_in(&config)?)?)?))
    }

    /// Reads and validates a policy from JSON text (snake_case fields).
    #[uniffi::constructor]
    pub fn from_json(json: String) -> Result<Arc<Policy>> {
        Ok(Policy::shared(rp::Policy::from_json(&json)?))
    }

    /// A policy from its compiled form (`toCompiled`, `retryplan compile`, or
    /// any language's), read back without the configuration reader.
    #[uniffi::constructor]
    pub fn from_compiled(form: Vec<u8>) -> Result<Arc<Policy>> {
        Ok(Policy::shared(rp::Policy::from_compiled(&form)?))
    }

    /// A built-in profile, validated.
    #[uniffi::constructor]
    pub fn profile(name: String) -> Result<Arc<Policy>> {
        Ok(Policy::shared(rp::Policy::new(&rp::dialects::profiles::profile(&name)?)?))
    }

    /// Deprecated, removed in the next release: `httpRequest(method,
    /// idempotent)`, the one entry point for a host, answers this and reads
    /// the request's own `Idempotency-Key` too. Kotlin marks it `@Deprecated`
    /// (build.sh); uniffi gives Swift no deprecation attribute, so this note is
    /// Swift's notice. Whether an HTTP request with `method` may be repeated
    /// under this policy (RFC 9110, or the policy's `retry_methods`), unless
    /// the caller says so for this request (`idempotent`).
    #[uniffi::method(default(idempotent = None))]
    pub fn repeatability_for_http(
        &self,
        method: String,
        idempotent: Option<bool>,
    ) -> Result<rp::outcomes::http::Repeatability> {
        Ok(self.0.http_request(&method, idempotent, None)?.repeatability)
    }

    /// The one rule for an HTTP request (the core's `Policy::http_request`):
    /// the caller's word (`idempotent`), else the request's own
    /// `Idempotency-Key` value (`requestIdempotencyKey`: keyed by that exact
    /// key), else `retry_methods` or RFC 9110. Pass it in `OperationOptions.httpRequest`.
    #[uniffi::method(default(idempotent = None, request_idempotency_key = None))]
    pub fn http_request(
        &self,
        method: String,
        idempotent: Option<bool>,
        request_idempotency_key: Option<String>,
    ) -> Result<Arc<HttpRequest>> {
        let request = self.0.http_request(&method, idempotent, request_idempotency_key.as_deref())?;
        Ok(Arc::new(HttpRequest(request)))
    }

    /// True when the policy hedges: starts extra attempts while one still runs.
    pub fn has_hedging(&self) -> bool {
        self.0.hedging().is_some()
    }

    /// The configuration this policy was validated from (normalised).
    pub fn to_config(&self) -> Result<PolicyConfig> {
        record_out(&self.0.to_config())
    }
}

// What the policy sends, its forms and what the core computes from it (classification, ceilings, redelivery, the
// timeline), from the methods definition; the constructors above are Kotlin's own readers, and the methods above
// convert to Kotlin's own types (the configuration record, `HttpRequest`).
include!("policy_generated.rs");

/// An HTTP request as the core reads it before its first attempt (the
/// core's `Policy::http_request`): how it may be repeated, and the key the
/// request carries in its own `Idempotency-Key` header, exactly as written.
#[derive(Debug, uniffi::Object)]
pub struct HttpRequest(pub(crate) rp::outcomes::http::HttpRequest);

#[uniffi::export]
impl HttpRequest {
    /// How the request may be repeated (`KEYED` when it carries its own key).
    pub fn repeatability(&self) -> rp::outcomes::http::Repeatability {
        self.0.repeatability
    }

    /// The key of the request's own `Idempotency-Key` header, or null.
    pub fn idempotency_key(&self) -> Option<String> {
        self.0.idempotency_key.as_ref().map(|key| key.as_str().to_owned())
    }
}
