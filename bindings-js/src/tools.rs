//! The tools (`retryplan/tools`, the `tools` feature): what developer
//! consoles, playgrounds and Node services use and a checkout page does not
//! (JSON text, `toConfig`/`toJson`, `explain`, `classify`, snapshots,
//! redelivery, the gRPC dialect, admission). Built into their own wasm file,
//! so the default entry does not download them. The core's free functions
//! among them are generated (`functions_generated.rs`), and so are the
//! policy's methods that call a core function, the controls' snapshots and
//! `Dependency.fromJson` (`tools_generated.rs`, from the methods definition).

use alloc::string::String;

use retryplan as rp;
use rp::Decision;
use wasm_bindgen::prelude::*;

use crate::args::{checked_string, optional_ms};
use crate::data::{self, Keys, Source};
use crate::objects;
use crate::policy::{handle_js, keep_policy};
use crate::{either, js_error, num};

include!("tools_generated.rs");

#[wasm_bindgen(raw_module = "../lib/json.js")]
extern "C" {
    /// JSON text as plain data, objects as `{entries}` (see `data::Source::Json`).
    #[wasm_bindgen(js_name = parseJson, catch)]
    fn parse_json(text: &js_sys::JsString) -> Result<JsValue, JsValue>;
}

/// Reads and validates policy JSON text (the snake_case schema shared by
/// every language): its handle, or the `RetryplanError`.
#[wasm_bindgen(js_name = _policyFromJson)]
pub fn policy_from_json(json: &JsValue) -> JsValue {
    handle_js(json_value(json, rp::config::error::ConfigKind::Policy).and_then(|value| {
        keep_policy(rp::PolicyConfig::from_value(&value).and_then(|config| rp::Policy::new(&config)))
    }))
}

/// The policy a urllib3 `Retry` maps to, from its attributes as JSON text
/// keyed by urllib3's names (the core's `dialects::urllib3`, which decides the
/// mapping and its refusals): its handle, or the `RetryplanError`.
#[wasm_bindgen(js_name = _policyFromUrllib3)]
pub fn policy_from_urllib3(json: &JsValue, total_timeout_ms: &JsValue) -> JsValue {
    handle_js(optional_ms("totalTimeoutMs", total_timeout_ms).and_then(|total_timeout_ms| {
        let attributes = json_value(json, rp::config::error::ConfigKind::Urllib3Retry)?;
        keep_policy(
            rp::dialects::urllib3::policy_from_urllib3_attributes(attributes, total_timeout_ms)
                .and_then(|config| rp::Policy::new(&config)),
        )
    }))
}

/// The normalised configuration, as a camelCase object.
#[wasm_bindgen(js_name = _policyToConfig)]
pub fn policy_to_config(handle: u32) -> Result<JsValue, JsValue> {
    to_js(&objects::policy(handle)?.to_config())
}

/// The normalised configuration as JSON text in the shared snake_case schema.
#[wasm_bindgen(js_name = _policyToJson)]
pub fn policy_to_json(handle: u32) -> Result<String, JsValue> {
    let config = data::to_js(&objects::policy(handle)?.to_config().to_value(), Keys::Snake);
    Ok(js_sys::JSON::stringify_with_replacer_and_space(&config, &JsValue::NULL, &JsValue::from_f64(2.0))
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_default())
}

/// The policy's compiled form (`Policy::to_compiled`) as a `Uint8Array`.
#[wasm_bindgen(js_name = _policyToCompiled)]
pub fn policy_to_compiled(handle: u32) -> JsValue {
    either(objects::policy(handle).map(|policy| js_sys::Uint8Array::from(&policy.to_compiled()[..]).into()))
}

/// A dependency configuration (an object with camelCase keys, or JSON text
/// when `json`) validated and compiled (`DependencyConfig::to_compiled`): a
/// `Uint8Array`, or the `RetryplanError` that reading it gives.
#[wasm_bindgen(js_name = _dependencyCompile)]
pub fn dependency_compile(config: &JsValue, json: bool) -> JsValue {
    let kind = rp::config::error::ConfigKind::Dependency;
    let value = if json { json_value(config, kind) } else { data::config_value(config, kind) };
    either(value.and_then(|value| {
        let form =
            rp::DependencyConfig::from_value(&value).and_then(|config| config.to_compiled()).map_err(js_error)?;
        Ok(js_sys::Uint8Array::from(&form[..]).into())
    }))
}

/// Counts one decision object as returned by an operation, read by the
/// core's one reader of a decision (`Decision::from_value`): its camelCase
/// keys are the core's snake_case names, which its errors name.
#[wasm_bindgen(js_name = _statsRecord)]
pub fn stats_record(handle: u32, decision_value: &JsValue) -> Result<(), JsValue> {
    let value = data::from_js(decision_value, Source::Camel, None)?;
    let decision = Decision::from_value(&value).map_err(js_error)?;
    objects::stats(handle)?.ok_or_else(|| objects::freed("stats"))?.record(&decision);
    Ok(())
}

/// A serializable value of the core as a plain JS object with camelCase keys
/// (through the core's data tree: no JSON on the way).
pub(crate) fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    rp::config::value::Value::from_serialize(value).map(|tree| data::to_js(&tree, Keys::Camel)).map_err(js_error)
}

/// JSON text in the shared snake_case schema as the core's data tree. The
/// host parses it (`parseJson` in `lib/json.js`, over `JSON.parse`),
/// keeping a key the text repeats so that the core's reader refuses it, as it
/// does in every other language; a syntax error is `invalid_config` naming
/// `config` at the top level.
pub(crate) fn json_value(
    json: &JsValue,
    config: rp::config::error::ConfigKind,
) -> Result<rp::config::value::Value, JsValue> {
    let parsed = parse_json(checked_string("json", json)?).map_err(|syntax| {
        let message = js_sys::Reflect::get(&syntax, &JsValue::from_str("message")).unwrap_or_default();
        data::reading_error(Some(config), "", "json", &message)
    })?;
    data::from_js(&parsed, Source::Json, Some(config))
}
