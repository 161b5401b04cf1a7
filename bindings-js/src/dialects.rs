//! The gRPC and AWS dialects: gRPC service configs and the AWS standard
//! mode's dependencies (their free functions, `grpc-timeout` in nanoseconds
//! and AWS error codes, are generated: `functions_generated.rs`).

use retryplan as rp;
use wasm_bindgen::prelude::*;

use crate::args::{text, whole};
use crate::controls::keep_dependency_config;
use crate::data::{self, Source};
use crate::objects::{self, Object};
use crate::policy::handle_js;
use crate::tools::json_value;
use crate::{js_error, message_js};

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    /// `{field, message}`, the message composed from its data.
    #[wasm_bindgen(js_name = warning)]
    fn js_warning(field: &str, message: JsValue) -> JsValue;
}

/// The AWS SDK standard mode's dependency: the 500-unit retry quota, or
/// with `of2026` the 2026 one (500 units, a retry costs 14, or 5 after a
/// throttling error). Its handle.
#[wasm_bindgen(js_name = _awsStandardDependency)]
pub fn aws_standard_dependency(of2026: bool) -> JsValue {
    let config =
        if of2026 { rp::dialects::aws::standard_2026_dependency() } else { rp::dialects::aws::standard_dependency() };
    handle_js(keep_dependency_config(&config))
}

/// Runs `use_config` on the service config `handle` names.
fn with<T>(
    handle: u32,
    use_config: impl FnOnce(&rp::dialects::grpc::ServiceConfig) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    objects::with(handle, "serviceConfig", |object| match object {
        Object::ServiceConfig(config) => use_config(config),
        _ => Err(objects::freed("serviceConfig")),
    })
}

/// Reads a service config object (its keys as gRPC writes them:
/// `methodConfig`, `retryPolicy`, ...), or with `json` JSON text;
/// `maxAttemptsCap` is the client-side cap on maxAttempts (default 5). Its
/// handle, or the `RetryplanError`.
#[wasm_bindgen(js_name = _serviceConfigRead)]
pub fn service_config_read(config: &JsValue, json: bool, max_attempts_cap: &JsValue) -> JsValue {
    let read = || {
        let value = if json {
            json_value(config, rp::config::error::ConfigKind::ServiceConfig)?
        } else {
            data::from_js(config, Source::AsWritten, Some(rp::config::error::ConfigKind::ServiceConfig))?
        };
        let max_attempts_cap = if max_attempts_cap.is_undefined() || max_attempts_cap.is_null() {
            rp::dialects::grpc::DEFAULT_MAX_ATTEMPTS_CAP
        } else {
            whole("maxAttemptsCap", max_attempts_cap, f64::from(u32::MAX))? as u32
        };
        let options = rp::dialects::grpc::ServiceConfigOptions { max_attempts_cap };
        let config = rp::dialects::grpc::ServiceConfig::from_value(&value, options).map_err(js_error)?;
        objects::insert(Object::ServiceConfig(config))
    };
    handle_js(read())
}

/// One `[name, service, method, policy handle]` per selector.
#[wasm_bindgen(js_name = _serviceConfigMethods)]
pub fn service_config_methods(handle: u32) -> Result<js_sys::Array, JsValue> {
    let profiles = with(handle, |config| Ok(config.methods.clone()))?;
    profiles.iter().map(method_js).collect()
}

/// What was capped or truncated: `[{field, message}]`.
#[wasm_bindgen(js_name = _serviceConfigWarnings)]
pub fn service_config_warnings(handle: u32) -> Result<js_sys::Array, JsValue> {
    with(handle, |config| {
        Ok(config.warnings.iter().map(|warning| js_warning(&warning.field, message_js(&warning.message))).collect())
    })
}

/// A new dependency holding the retry throttling (token bucket): its handle, or 0 without one.
#[wasm_bindgen(js_name = _serviceConfigThrottling)]
pub fn service_config_throttling(handle: u32) -> JsValue {
    handle_js(with(handle, |config| Ok(config.throttling)).and_then(|throttling| match throttling {
        Some(config) => keep_dependency_config(&config),
        None => Ok(0),
    }))
}

/// The most specific selector for `service`/`method` as `[name, service,
/// method, policy handle]`, or `undefined`.
#[wasm_bindgen(js_name = _serviceConfigMethodFor)]
pub fn service_config_method_for(handle: u32, service: &JsValue, method: &JsValue) -> Result<JsValue, JsValue> {
    let (service, method) = (text("service", service)?, text("method", method)?);
    match with(handle, |config| Ok(config.method_for(&service, &method).cloned()))? {
        Some(profile) => method_js(&profile),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// `[name, service, method, policy handle]` (the policy kept as its own object).
fn method_js(profile: &rp::dialects::grpc::MethodProfile) -> Result<JsValue, JsValue> {
    let policy = objects::insert(Object::Policy(alloc::sync::Arc::new(profile.policy)))?;
    let entry: js_sys::Array = [
        JsValue::from_str(&profile.name),
        JsValue::from_str(&profile.service),
        JsValue::from_str(&profile.method),
        JsValue::from(policy),
    ]
    .into_iter()
    .collect();
    Ok(entry.into())
}
