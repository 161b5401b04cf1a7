//! The gRPC and AWS dialects: gRPC service configs, `grpc-timeout` in
//! nanoseconds, AWS error codes and the AWS standard mode's dependency.

use js_sys::Reflect;
use retryplan as rp;
use wasm_bindgen::prelude::*;

use alloc::borrow::ToOwned;
use alloc::string::String;

use crate::args::{optional_text, text, whole};
use crate::data::{self, Source};
use crate::tools::json_value;
use crate::{invalid_with, js_error, message_js, Dependency, Error, Policy};

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    /// `{field, message}`, the message composed from its data.
    #[wasm_bindgen(js_name = warning)]
    fn js_warning(field: &str, message: JsValue) -> JsValue;
}

/// Encodes a budget of `timeoutNs` nanoseconds (a bigint) as a `grpc-timeout`
/// value, in the unit a peer would choose (never rounded up).
#[wasm_bindgen(js_name = encodeGrpcTimeoutNs)]
pub fn encode_grpc_timeout_ns(timeout_ns: &JsValue) -> Result<String, JsValue> {
    let nanoseconds = u64::try_from(timeout_ns.clone())
        .map_err(|_| invalid_with("timeoutNs", "nanoseconds", timeout_ns, &JsValue::UNDEFINED))?;
    Ok(rp::encode_grpc_timeout_ns(nanoseconds))
}

/// Reads a `grpc-timeout` value as exact nanoseconds (a bigint, saturating at 2^63-1).
#[wasm_bindgen(js_name = parseGrpcTimeoutNs)]
pub fn parse_grpc_timeout_ns(value: &JsValue) -> Result<u64, JsValue> {
    rp::parse_grpc_timeout_ns(&text("value", value)?).map_err(|error| js_error(Error::from(error)))
}

/// The AWS error code of a response: the `x-amzn-errortype` header, else a
/// JSON body's `__type`/`code`, else an XML body's `<Code>`; `undefined` when none.
#[wasm_bindgen(js_name = awsErrorCodeFromResponse)]
pub fn aws_error_code_from_response(errortype_header: &JsValue, body: &JsValue) -> Result<Option<String>, JsValue> {
    let header = optional_text("errortypeHeader", errortype_header)?;
    let body = optional_text("body", body)?;
    Ok(rp::aws::error_code_from_response(header.as_deref(), body.as_deref()).map(|code| code.as_str().to_owned()))
}

/// The AWS SDK standard mode's dependency: the 500-unit retry quota.
#[wasm_bindgen(js_name = awsStandardDependency)]
pub fn aws_standard_dependency() -> Result<Dependency, JsValue> {
    rp::Dependency::new(&rp::aws::standard_dependency()).map(Dependency).map_err(js_error)
}

/// A gRPC service config read as gRFC A6 says: one validated policy per method
/// selector, the channel's retry throttling, and warnings for what was capped
/// or truncated.
#[wasm_bindgen]
pub struct ServiceConfig(rp::grpc::ServiceConfig);

#[wasm_bindgen]
impl ServiceConfig {
    /// Reads a service config object (its keys as gRPC writes them:
    /// `methodConfig`, `retryPolicy`, ...); `maxAttemptsCap` is the client-side
    /// cap on maxAttempts (default 5).
    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(config: &JsValue, max_attempts_cap: &JsValue) -> Result<ServiceConfig, JsValue> {
        ServiceConfig::read(&data::from_js(config, Source::AsWritten)?, max_attempts_cap)
    }

    /// Reads a service config from JSON text.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(json: &JsValue, max_attempts_cap: &JsValue) -> Result<ServiceConfig, JsValue> {
        ServiceConfig::read(&json_value(json)?, max_attempts_cap)
    }

    fn read(value: &rp::value::Value, max_attempts_cap: &JsValue) -> Result<ServiceConfig, JsValue> {
        let max_attempts_cap = if max_attempts_cap.is_undefined() || max_attempts_cap.is_null() {
            rp::grpc::DEFAULT_MAX_ATTEMPTS_CAP
        } else {
            whole("maxAttemptsCap", max_attempts_cap, f64::from(u32::MAX))? as u32
        };
        let options = rp::grpc::ServiceConfigOptions { max_attempts_cap };
        rp::grpc::ServiceConfig::from_value(value, options).map(ServiceConfig).map_err(js_error)
    }

    /// One object per selector: `{name, service, method, policy}`.
    #[wasm_bindgen(getter)]
    pub fn methods(&self) -> js_sys::Array {
        self.0.methods.iter().map(method_object).collect()
    }

    /// What was capped or truncated: `[{field, message}]`.
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> js_sys::Array {
        self.0.warnings.iter().map(|warning| js_warning(&warning.field, message_js(&warning.message))).collect()
    }

    /// A new Dependency holding the retry throttling (token bucket), or
    /// `undefined`; create one per server name and share it.
    #[wasm_bindgen(js_name = throttlingDependency)]
    pub fn throttling_dependency(&self) -> Result<Option<Dependency>, JsValue> {
        self.0
            .throttling
            .as_ref()
            .map(|config| rp::Dependency::new(config).map(Dependency).map_err(js_error))
            .transpose()
    }

    /// The most specific selector's object for `service`/`method`, or `undefined`.
    #[wasm_bindgen(js_name = methodFor)]
    pub fn method_for(&self, service: &JsValue, method: &JsValue) -> Result<JsValue, JsValue> {
        let (service, method) = (text("service", service)?, text("method", method)?);
        Ok(self.0.method_for(&service, &method).map_or(JsValue::UNDEFINED, method_object))
    }

    /// The most specific selector's policy for `service`/`method`, or `undefined`.
    #[wasm_bindgen(js_name = profileFor)]
    pub fn profile_for(&self, service: &JsValue, method: &JsValue) -> Result<Option<Policy>, JsValue> {
        let (service, method) = (text("service", service)?, text("method", method)?);
        Ok(self.0.profile_for(&service, &method).map(|policy| Policy(alloc::sync::Arc::new(*policy))))
    }
}

/// A selector's `{name, service, method, policy}` object.
fn method_object(profile: &rp::grpc::MethodProfile) -> JsValue {
    let object = js_sys::Object::new();
    let set = |key: &str, value: JsValue| {
        // Setting a property of a fresh plain object cannot fail.
        let _ = Reflect::set(&object, &JsValue::from_str(key), &value);
    };
    set("name", JsValue::from_str(&profile.name));
    set("service", JsValue::from_str(&profile.service));
    set("method", JsValue::from_str(&profile.method));
    set("policy", JsValue::from(Policy(alloc::sync::Arc::new(profile.policy))));
    object.into()
}
