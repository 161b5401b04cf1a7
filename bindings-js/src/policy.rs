//! Policies, stats and freeing objects (`lib/policy.js`, `lib/stats.js`).

use alloc::sync::Arc;

use retryplan as rp;
use wasm_bindgen::prelude::*;

#[cfg(feature = "config")]
use crate::data::config_value;
#[cfg(feature = "config")]
use crate::js_error;
use crate::objects::{self, Object};
use crate::wire::numbers;
use crate::{compiled_error, either, num};

/// Frees the object `handle` names (a stale handle is ignored).
#[wasm_bindgen(js_name = _free)]
pub fn free(handle: u32) {
    objects::remove(handle);
}

/// A handle as the value of an internal function (a JS number).
pub(crate) fn handle_js(handle: Result<u32, JsValue>) -> JsValue {
    either(handle.map(JsValue::from))
}

/// A validated policy, kept.
#[cfg(feature = "config")]
pub(crate) fn keep_policy(policy: Result<rp::Policy, rp::Error>) -> Result<u32, JsValue> {
    objects::insert(Object::Policy(Arc::new(policy.map_err(js_error)?)))
}

/// Reads a policy object (camelCase keys, snake_case values; every field
/// optional) through the core's one configuration reader: its handle, or the
/// `RetryplanError`.
#[cfg(feature = "config")]
#[wasm_bindgen(js_name = _policyFromConfig)]
pub fn policy_from_config(config: &JsValue) -> JsValue {
    handle_js(config_value(config, rp::config::error::ConfigKind::Policy).and_then(|value| {
        keep_policy(rp::PolicyConfig::from_value(&value).and_then(|config| rp::Policy::new(&config)))
    }))
}

/// Reads a compiled policy (`rp` bytes, written by `Policy::to_compiled`)
/// without the configuration reader: its handle, or the `RetryplanError`
/// with the core's code (`not_a_compiled_form`, `compiled_form_version`,
/// `compiled_form_damaged`, `compiled_form_kind`).
#[wasm_bindgen(js_name = _policyFromCompiled)]
pub fn policy_from_compiled(form: &[u8]) -> JsValue {
    handle_js(
        rp::Policy::from_compiled(form)
            .map_err(compiled_error)
            .and_then(|policy| objects::insert(Object::Policy(Arc::new(policy)))),
    )
}

/// A built-in profile: its handle, or the `RetryplanError`.
#[cfg(feature = "config")]
#[wasm_bindgen(js_name = _policyProfile)]
pub fn policy_profile(name: &str) -> JsValue {
    handle_js(keep_policy(rp::dialects::profiles::profile(name).and_then(|config| rp::Policy::new(&config))))
}

/// `[maxAttempts, sendsIdempotencyKey as 0 or 1, totalTimeoutMs]` as
/// numbers (`crate::wire::numbers`), or the `RetryplanError`.
#[wasm_bindgen(js_name = _policyInfo)]
pub fn policy_info(handle: u32) -> JsValue {
    either(objects::policy(handle).map(|policy| {
        numbers(&[
            f64::from(policy.max_attempts()),
            f64::from(u8::from(policy.sends_idempotency_key())),
            num(policy.total_timeout_ms()),
        ])
    }))
}

/// Empty counters: their handle.
#[wasm_bindgen(js_name = _statsNew)]
pub fn stats_new() -> JsValue {
    handle_js(objects::insert(Object::Stats(Arc::default())))
}

/// Adds the counters of `other` to those of `handle` (saturating).
#[wasm_bindgen(js_name = _statsMerge)]
pub fn stats_merge(handle: u32, other: u32) -> JsValue {
    either(objects::stats(other).and_then(|other| {
        let counts = other.map(|other| other.snapshot()).unwrap_or_default();
        let stats = objects::stats(handle)?.ok_or_else(|| objects::freed("stats"))?;
        stats.merge(&counts);
        Ok(JsValue::UNDEFINED)
    }))
}

/// The counters of the core's `Stats` that `_statsCounts` sends before the give-ups.
const STATS_FIELDS: usize = 7;
/// The words `_statsCounts` sends: the fields, then one give-up count per reason.
const STATS_WORDS: usize = STATS_FIELDS + <rp::GiveUpReason as rp::config::value::Named>::ALL.len();

/// The counters, in the order of the core's `Stats` fields (the give-ups by
/// reason last, in `GiveUpReason::ALL` order), as numbers
/// (`crate::wire::numbers`) for `lib/stats.js` to name, or the `RetryplanError`.
#[wasm_bindgen(js_name = _statsCounts)]
pub fn stats_counts(handle: u32) -> JsValue {
    either(objects::stats(handle).and_then(|stats| {
        let stats = stats.ok_or_else(|| objects::freed("stats"))?.snapshot();
        let fields: [u64; STATS_FIELDS] = [
            stats.operations,
            stats.attempts,
            stats.retries,
            stats.hedges,
            stats.succeeded,
            stats.reconciles,
            stats.restarts,
        ];
        let gave_up = rp::GiveUpReason::ALL.iter().map(|reason| stats.gave_up.get(*reason));
        // Every count has its word: `numbers` refuses at compile time a record it cannot hold.
        let mut counts = [0.0; STATS_WORDS];
        for (slot, count) in counts.iter_mut().zip(fields.into_iter().chain(gave_up)) {
            *slot = num(count);
        }
        Ok(numbers(&counts))
    }))
}
