//! The JavaScript binding of `retryplan`, compiled to wasm with wasm-bindgen.
//!
//! It converts types and errors and nothing else: every decision, default and
//! rule is the core's. JS numbers (f64) carry times at the boundary (never
//! `bigint`); a time is floored, and a value that is not a finite number in
//! `0..=2^53-1` is a `RetryplanError` with code `invalid_argument`. Results are
//! plain objects built by the factories of `lib/convert.js`, keyed in
//! camelCase, with snake_case string values, as the `.d.ts` describes.
//!
//! Natively this crate is empty, so `cargo test --workspace` never calls a JS import.
#![cfg(target_arch = "wasm32")]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::sync::Arc;

use js_sys::Reflect;
use retryplan as rp;
use rp::value::Named;
use rp::{AttemptSet, Decision, Error, GrpcCode, Outcome, Pushback};
use wasm_bindgen::prelude::*;

mod data;
use data::Keys;

/// The global allocator: a small free list instead of dlmalloc (about 3 KB less
/// of the gzipped download). The engine allocates only when reading
/// configurations and building messages, never per decision.
#[cfg(target_feature = "atomics")]
compile_error!("the single-threaded allocator below is unsound with wasm threads (atomics)");

#[global_allocator]
// SAFETY: wasm32-unknown-unknown without the atomics feature has one thread, the
// only case `AssumeSingleThreaded` is sound for.
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str) -> JsValue;
    #[wasm_bindgen(js_name = addViolation)]
    fn add_violation(error: &JsValue, field: &str, message: &str);
    #[wasm_bindgen(js_name = setErrorField)]
    fn set_error_field(error: &JsValue, field: &str);

    #[wasm_bindgen(js_name = startAttempt)]
    fn js_start_attempt(
        attempt: u32,
        timeout_ms: f64,
        abort_at_ms: f64,
        id_high: u32,
        id_low: u32,
        remaining: f64,
        hedge: bool,
    ) -> JsValue;
    #[wasm_bindgen(js_name = wait)]
    fn js_wait(retry: u32, delay_ms: f64, until_ms: f64, server_delay_ms: Option<f64>, remaining: f64) -> JsValue;
    #[wasm_bindgen(js_name = awaitOutcome)]
    fn js_await_outcome(in_flight: u32, until_ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = succeeded)]
    fn js_succeeded(attempts: u32, winner: u32, abort: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = gaveUp)]
    fn js_gave_up(
        reason: &str,
        attempts: u32,
        remaining: f64,
        refused_delay_ms: Option<f64>,
        abort: JsValue,
    ) -> JsValue;
    #[wasm_bindgen(js_name = reconcile)]
    fn js_reconcile(attempts: u32, remaining: f64, abort: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = restart)]
    fn js_restart(attempts: u32, deadline_ms: f64, remaining: f64, abort: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = httpOutcome)]
    fn js_http_outcome(status: u16, retry_after_ms: Option<f64>) -> JsValue;
    /// The attempt numbers of a set given as four 32-bit words (bit 0 of word 0 = attempt 1).
    #[wasm_bindgen(js_name = attemptList)]
    fn js_attempt_list(w0: u32, w1: u32, w2: u32, w3: u32) -> JsValue;
}

/// The largest integer a JS number holds exactly, as the core's `MAX_MS`.
const MAX_SAFE: f64 = rp::policy::MAX_MS as f64;

/// A core error as a `RetryplanError` (a real `Error` subclass with `.code`).
fn js_error(error: Error) -> JsValue {
    let value = make_error(error.code(), &error.to_string());
    // Exhaustive on purpose: a new core error must be mapped here.
    match &error {
        Error::InvalidPolicy { violations } => {
            for violation in violations {
                add_violation(&value, &violation.field, &violation.message);
            }
        }
        Error::InvalidPolicyJson { field, .. } => set_error_field(&value, field),
        Error::InvalidArgument { name, .. } | Error::Unsupported { field: name, .. } => set_error_field(&value, name),
        Error::InvalidHeader(header) => set_error_field(&value, header.header()),
        Error::UnknownProfile { .. }
        | Error::OperationEnded
        | Error::AttemptNotRunning { .. }
        | Error::EntropyUnavailable { .. } => {}
    }
    value
}

fn invalid(name: &'static str, rule: String) -> JsValue {
    js_error(Error::InvalidArgument { name, rule })
}

/// A JS number as whole milliseconds: floored; NaN, infinities, negatives and
/// values above 2^53-1 are refused.
fn ms(name: &'static str, value: f64) -> Result<u64, JsValue> {
    if value.is_finite() && (0.0..=MAX_SAFE).contains(&value) {
        // In range and finite, so the conversion is exact after flooring.
        Ok(value.floor() as u64)
    } else {
        Err(invalid(name, format!("must be a finite number of milliseconds in 0..=2^53-1, got {}", describe(value))))
    }
}

/// A JS number that must be a whole number in `0..=max` (no flooring).
fn whole(name: &'static str, value: f64, max: f64) -> Result<u64, JsValue> {
    if value.is_finite() && value.fract() == 0.0 && (0.0..=max).contains(&value) {
        Ok(value as u64)
    } else {
        Err(invalid(name, format!("must be a whole number in 0..={}, got {}", max as u64, describe(value))))
    }
}

/// A refused number in words, without float formatting (it costs ~12 KB of wasm).
fn describe(value: f64) -> String {
    if value.is_nan() {
        "NaN".to_owned()
    } else if value.is_infinite() {
        if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if value < 0.0 {
        "a negative number".to_owned()
    } else if value.fract() != 0.0 {
        "a fraction".to_owned()
    } else if value > MAX_SAFE {
        "a number above 2^53-1".to_owned()
    } else {
        (value as u64).to_string()
    }
}

fn attempt_number(value: f64) -> Result<u32, JsValue> {
    whole("attempt", value, f64::from(u32::MAX)).map(|attempt| attempt as u32)
}

/// A u64 from the core as a JS number (exact up to 2^53-1, the core's `MAX_MS`).
fn num(value: u64) -> f64 {
    value as f64
}

/// The property names and tags read on every call, as JS strings made once
/// (making a JS string from Rust costs more than a decision).
const KEY_NAMES: [&str; 7] = ["type", "status", "retryAfterMs", "http_status", "success", "seed", "errorCode"];

thread_local! {
    static KEYS: Vec<JsValue> = KEY_NAMES.iter().map(|name| JsValue::from_str(name)).collect();
}

/// Calls `use_key` with `name` as a JS string: cached for the names in `KEY_NAMES`.
fn with_key<T>(name: &'static str, use_key: impl FnOnce(&JsValue) -> T) -> T {
    match KEY_NAMES.iter().position(|known| core::ptr::eq(*known, name) || *known == name) {
        Some(index) => KEYS.with(|keys| match keys.get(index) {
            Some(key) => use_key(key),
            None => use_key(&JsValue::from_str(name)),
        }),
        None => use_key(&JsValue::from_str(name)),
    }
}

/// True when `value` is the JS string `name` (no copy into Rust).
fn is_str(value: &JsValue, name: &'static str) -> bool {
    with_key(name, |key| value == key)
}

fn get(object: &JsValue, key: &'static str) -> Result<JsValue, JsValue> {
    if !object.is_object() {
        return Err(invalid("options", format!("expected an object with `{key}`")));
    }
    with_key(key, |name| Reflect::get(object, name))
}

fn optional_number(object: &JsValue, key: &'static str) -> Result<Option<f64>, JsValue> {
    let value = get(object, key)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.as_f64().map(Some).ok_or_else(|| invalid(key, "must be a number".to_owned()))
}

fn string_field(object: &JsValue, key: &'static str) -> Result<String, JsValue> {
    get(object, key)?.as_string().ok_or_else(|| invalid(key, "must be a string".to_owned()))
}

/// A snake_case name read into a core enum by the core's own names.
fn named<T: Named>(key: &'static str, name: &str) -> Result<T, JsValue> {
    T::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = T::ALL.iter().map(|variant| variant.name()).collect();
        invalid(key, format!("unknown name \"{name}\" (one of {})", known.join(", ")))
    })
}

fn grpc_code(name: &str) -> Result<GrpcCode, JsValue> {
    GrpcCode::ALL.into_iter().find(|code| code.name() == name).ok_or_else(|| {
        invalid("code", format!("unknown gRPC code \"{name}\" (use the snake_case name, e.g. \"unavailable\")"))
    })
}

fn pushback(value: &JsValue) -> Result<Option<Pushback>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if value.as_string().as_deref() == Some("do_not_retry") {
        return Ok(Some(Pushback::DoNotRetry));
    }
    match optional_number(value, "retryAfterMs") {
        Ok(Some(delay)) => Ok(Some(Pushback::RetryAfterMs(ms("pushback.retryAfterMs", delay)?))),
        _ => Err(invalid("pushback", "must be \"do_not_retry\" or {retryAfterMs: number}".to_owned())),
    }
}

/// An `http_status` outcome from its `status` (absent is an error) and, read
/// only once the status is valid, its optional `retryAfterMs`.
fn http_status(
    status: Option<f64>,
    retry_after_ms: impl FnOnce() -> Result<Option<f64>, JsValue>,
) -> Result<Outcome, JsValue> {
    let status = status.ok_or_else(|| invalid("status", "is required".to_owned()))?;
    let status = whole("status", status, f64::from(u16::MAX))? as u16;
    let retry_after_ms = retry_after_ms()?.map(|v| ms("retryAfterMs", v)).transpose()?;
    Ok(Outcome::HttpStatus { status, retry_after_ms, error_code: None })
}

/// An `http_status` outcome object's optional `errorCode` (the service's
/// error code, AWS), checked by the core's `ErrorCode::new`.
fn with_error_code(outcome: Outcome, value: &JsValue) -> Result<Outcome, JsValue> {
    let code = get(value, "errorCode")?;
    if code.is_undefined() || code.is_null() {
        return Ok(outcome);
    }
    let code = code.as_string().ok_or_else(|| invalid("errorCode", "must be a string".to_owned()))?;
    Ok(outcome.with_error_code(Some(rp::aws::ErrorCode::new(&code).map_err(js_error)?)))
}

/// A decision or the error as one value, for the internal methods that
/// `lib/operation.js` calls: a `Result<JsValue, JsValue>` return goes through
/// wasm-bindgen's externref table (an allocation in wasm and a second call to
/// free it from JS), a plain `JsValue` does not. Decisions are plain objects,
/// errors `RetryplanError`s, so JS tells them apart and throws the error.
fn either(result: Result<JsValue, JsValue>) -> JsValue {
    result.unwrap_or_else(|error| error)
}

/// A JS outcome object (`{type: "http_status", status, retryAfterMs?}`, ...) as a core `Outcome`.
fn outcome(value: &JsValue) -> Result<Outcome, JsValue> {
    let kind = get(value, "type")?;
    // The common tags are compared as JS strings; the rest are read into Rust.
    if is_str(&kind, "http_status") {
        let outcome = http_status(optional_number(value, "status")?, || optional_number(value, "retryAfterMs"))?;
        return with_error_code(outcome, value);
    }
    if is_str(&kind, "success") {
        return Ok(Outcome::Success);
    }
    let kind = kind.as_string().ok_or_else(|| invalid("type", "must be a string".to_owned()))?;
    Ok(match kind.as_str() {
        "success" => Outcome::Success,
        "http_status" => with_error_code(
            http_status(optional_number(value, "status")?, || optional_number(value, "retryAfterMs"))?,
            value,
        )?,
        "grpc_status" => Outcome::GrpcStatus {
            code: grpc_code(&string_field(value, "code")?)?,
            pushback: pushback(&get(value, "pushback")?)?,
        },
        "transport" => Outcome::Transport { failure: named("failure", &string_field(value, "failure")?)? },
        "application" => Outcome::Application { verdict: named("verdict", &string_field(value, "verdict")?)? },
        "cancelled" => Outcome::Cancelled,
        other => {
            return Err(invalid(
                "outcome.type",
                format!(
                "unknown outcome type \"{other}\" (success, http_status, grpc_status, transport, application, cancelled)"
            ),
            ))
        }
    })
}

/// The outcome tags of `Operation#_onOutcomeParts`, as `lib/operation.js` numbers them.
const PARTS_SUCCESS: u32 = 0;
const PARTS_HTTP_STATUS: u32 = 1;
const PARTS_TRANSPORT: u32 = 2;

/// An outcome given as its fields, already read by `lib/operation.js` (numbers
/// and a string cross the boundary for less than reading the object from Rust
/// property by property). Validated exactly as `outcome` validates the object.
fn outcome_from_parts(
    tag: u32,
    status: Option<f64>,
    retry_after_ms: Option<f64>,
    failure: Option<String>,
) -> Result<Outcome, JsValue> {
    match tag {
        PARTS_SUCCESS => Ok(Outcome::Success),
        PARTS_HTTP_STATUS => http_status(status, || Ok(retry_after_ms)),
        PARTS_TRANSPORT => {
            let failure = failure.ok_or_else(|| invalid("failure", "must be a string".to_owned()))?;
            Ok(Outcome::Transport { failure: named("failure", &failure)? })
        }
        _ => Err(invalid("outcome.type", "unknown outcome tag".to_owned())),
    }
}

/// A core decision as a plain JS object (one factory call, no serde on this path).
fn decision(decision: Decision) -> JsValue {
    match decision {
        Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge } => {
            // The id's two 32-bit halves: JS spells them as the core's 16 hex digits
            // (cheaper than decoding a string; the vectors pin the spelling).
            let (high, low) = ((request_id.0 >> 32) as u32, request_id.0 as u32);
            js_start_attempt(attempt, num(timeout_ms), num(abort_at_ms), high, low, num(remaining_budget_ms), hedge)
        }
        Decision::Wait { retry, delay_ms, until_ms, server_delay_ms, remaining_budget_ms } => {
            js_wait(retry, num(delay_ms), num(until_ms), server_delay_ms.map(num), num(remaining_budget_ms))
        }
        Decision::AwaitOutcome { in_flight, until_ms } => js_await_outcome(in_flight, num(until_ms)),
        Decision::Succeeded { attempts, winner, abort_attempts } => {
            js_succeeded(attempts, winner, attempt_list(abort_attempts))
        }
        Decision::GaveUp { reason, attempts, remaining_budget_ms, refused_delay_ms, abort_attempts } => js_gave_up(
            reason.name(),
            attempts,
            num(remaining_budget_ms),
            refused_delay_ms.map(num),
            attempt_list(abort_attempts),
        ),
        Decision::Reconcile { attempts, remaining_budget_ms, abort_attempts } => {
            js_reconcile(attempts, num(remaining_budget_ms), attempt_list(abort_attempts))
        }
        Decision::Restart { attempts, deadline_ms, remaining_budget_ms, abort_attempts } => {
            js_restart(attempts, num(deadline_ms), num(remaining_budget_ms), attempt_list(abort_attempts))
        }
    }
}

/// An attempt set as a fresh JS array of numbers, ascending (empty when none).
fn attempt_list(set: AttemptSet) -> JsValue {
    let mut words = [0u32; 4];
    if !set.is_empty() {
        for attempt in set.iter() {
            let bit = attempt - 1; // 0..=127: the set holds 1..=128 only
            if let Some(word) = words.get_mut((bit / 32) as usize) {
                *word |= 1 << (bit % 32);
            }
        }
    }
    let [w0, w1, w2, w3] = words;
    js_attempt_list(w0, w1, w2, w3)
}

/// A JS array of attempt numbers (1..=128) as an `AttemptSet`; absent means empty.
fn attempt_set(value: &JsValue, key: &'static str) -> Result<AttemptSet, JsValue> {
    let mut set = AttemptSet::EMPTY;
    if value.is_undefined() || value.is_null() {
        return Ok(set);
    }
    if !js_sys::Array::is_array(value) {
        return Err(invalid(key, "must be an array of attempt numbers".to_owned()));
    }
    for item in js_sys::Array::from(value).iter() {
        let attempt = item.as_f64().ok_or_else(|| invalid(key, "must hold numbers".to_owned()))?;
        set.insert(whole(key, attempt, 128.0).and_then(|attempt| {
            if attempt == 0 {
                Err(invalid(key, "attempt numbers are 1..=128".to_owned()))
            } else {
                Ok(attempt as u32)
            }
        })?);
    }
    Ok(set)
}

/// A decision object (as returned by an operation) back to the core's `Decision`.
fn decision_from_js(value: &JsValue) -> Result<Decision, JsValue> {
    let number = |key: &'static str| -> Result<u64, JsValue> {
        let found = optional_number(value, key)?.ok_or_else(|| invalid(key, "is required".to_owned()))?;
        whole(key, found, MAX_SAFE)
    };
    let count = |key: &'static str| -> Result<u32, JsValue> {
        u32::try_from(number(key)?).map_err(|_| invalid(key, "must fit in 32 bits".to_owned()))
    };
    let optional = |key: &'static str| -> Result<Option<u64>, JsValue> {
        optional_number(value, key)?.map(|found| whole(key, found, MAX_SAFE)).transpose()
    };
    let abort_attempts = || attempt_set(&get(value, "abortAttempts")?, "abortAttempts");
    let kind = string_field(value, "type")?;
    Ok(match kind.as_str() {
        "start_attempt" => {
            let request_id = string_field(value, "requestId")?;
            let request_id = u64::from_str_radix(&request_id, 16)
                .ok()
                .filter(|_| request_id.len() == 16)
                .ok_or_else(|| invalid("requestId", "must be 16 hex digits".to_owned()))?;
            Decision::StartAttempt {
                attempt: count("attempt")?,
                timeout_ms: number("timeoutMs")?,
                abort_at_ms: number("abortAtMs")?,
                request_id: rp::RequestId(request_id),
                remaining_budget_ms: number("remainingBudgetMs")?,
                hedge: get(value, "hedge")?
                    .as_bool()
                    .ok_or_else(|| invalid("hedge", "must be a boolean".to_owned()))?,
            }
        }
        "wait" => Decision::Wait {
            retry: count("retry")?,
            delay_ms: number("delayMs")?,
            until_ms: number("untilMs")?,
            server_delay_ms: optional("serverDelayMs")?,
            remaining_budget_ms: number("remainingBudgetMs")?,
        },
        "await_outcome" => Decision::AwaitOutcome { in_flight: count("inFlight")?, until_ms: number("untilMs")? },
        "succeeded" => Decision::Succeeded {
            attempts: count("attempts")?,
            winner: count("winner")?,
            abort_attempts: abort_attempts()?,
        },
        "gave_up" => Decision::GaveUp {
            reason: named("reason", &string_field(value, "reason")?)?,
            attempts: count("attempts")?,
            remaining_budget_ms: number("remainingBudgetMs")?,
            refused_delay_ms: optional("refusedDelayMs")?,
            abort_attempts: abort_attempts()?,
        },
        "reconcile" => Decision::Reconcile {
            attempts: count("attempts")?,
            remaining_budget_ms: number("remainingBudgetMs")?,
            abort_attempts: abort_attempts()?,
        },
        "restart" => Decision::Restart {
            attempts: count("attempts")?,
            deadline_ms: number("deadlineMs")?,
            remaining_budget_ms: number("remainingBudgetMs")?,
            abort_attempts: abort_attempts()?,
        },
        other => return Err(invalid("decision.type", format!("unknown decision type \"{other}\""))),
    })
}

/// A serializable value of the core as a plain JS object with camelCase keys
/// (through the core's data tree: no JSON on the way).
fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    rp::value::Value::from_serialize(value).map(|tree| data::to_js(&tree, Keys::Camel)).map_err(js_error)
}

/// A configuration argument (a plain object, camelCase keys) as the core's data
/// tree; anything else is refused by the core's reader, as in JSON.
fn config_value(config: &JsValue) -> Result<rp::value::Value, JsValue> {
    data::from_js(config, Keys::Camel).map_err(js_error)
}

/// JSON text in the shared snake_case schema as the core's data tree, parsed by
/// the host's `JSON.parse` (a syntax error is `invalid_policy_json` at the top level).
fn json_value(json: &str) -> Result<rp::value::Value, JsValue> {
    let parsed = js_sys::JSON::parse(json).map_err(|syntax| {
        let message = js_sys::Reflect::get(&syntax, &JsValue::from_str("message"))
            .ok()
            .and_then(|message| message.as_string())
            .unwrap_or_else(|| "not JSON".to_owned());
        js_error(Error::InvalidPolicyJson { field: String::new(), message })
    })?;
    data::from_js(&parsed, Keys::Snake).map_err(js_error)
}

/// A validated, immutable policy.
#[wasm_bindgen]
pub struct Policy(rp::Policy);

#[wasm_bindgen]
impl Policy {
    /// Validates a policy object (camelCase keys, snake_case values; every field optional).
    /// It is read by the core's one configuration reader, so errors and field
    /// paths are those of `fromJson` and of every other language.
    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(config: &JsValue) -> Result<Policy, JsValue> {
        Policy::read(&config_value(config)?)
    }

    /// Reads and validates policy JSON text (the snake_case schema shared by every language).
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(json: &str) -> Result<Policy, JsValue> {
        Policy::read(&json_value(json)?)
    }

    fn read(value: &rp::value::Value) -> Result<Policy, JsValue> {
        rp::PolicyConfig::from_value(value).and_then(|config| rp::Policy::new(&config)).map(Policy).map_err(js_error)
    }

    /// A built-in profile (`read`, `checkout`, `write_keyed`, `write_strict`, `background`).
    pub fn profile(name: &str) -> Result<Policy, JsValue> {
        rp::profiles::profile(name).and_then(|config| rp::Policy::new(&config)).map(Policy).map_err(js_error)
    }

    /// The normalised configuration, as a camelCase object.
    #[wasm_bindgen(js_name = toConfig)]
    pub fn to_config(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.to_config())
    }

    /// The normalised configuration as JSON text in the shared snake_case schema.
    #[wasm_bindgen(js_name = toJson)]
    pub fn to_json(&self) -> String {
        let config = data::to_js(&self.0.to_config().to_value(), Keys::Snake);
        js_sys::JSON::stringify_with_replacer_and_space(&config, &JsValue::NULL, &JsValue::from_f64(2.0))
            .ok()
            .and_then(|text| text.as_string())
            .unwrap_or_default()
    }

    /// Attempts allowed in all, the first included.
    #[wasm_bindgen(getter, js_name = maxAttempts)]
    pub fn max_attempts(&self) -> u32 {
        self.0.max_attempts()
    }

    /// True when requests carry the idempotency key header (keyed and unsafe
    /// operations), as the core's HTTP conventions say.
    #[wasm_bindgen(getter, js_name = sendsIdempotencyKey)]
    pub fn sends_idempotency_key(&self) -> bool {
        self.0.sends_idempotency_key()
    }

    /// The operation's time budget in ms.
    #[wasm_bindgen(getter, js_name = totalBudgetMs)]
    pub fn total_budget_ms(&self) -> f64 {
        num(self.0.total_budget_ms())
    }

    /// The backoff ceilings of the first `retries` retries.
    #[wasm_bindgen(js_name = backoffCeilingsMs)]
    pub fn backoff_ceilings_ms(&self, retries: f64) -> Result<js_sys::Array, JsValue> {
        let retries = whole("retries", retries, f64::from(u32::MAX))? as u32;
        Ok(rp::backoff_ceilings_ms(&self.0, retries)
            .map_err(js_error)?
            .into_iter()
            .map(|ms| JsValue::from_f64(num(ms)))
            .collect())
    }

    /// What an outcome means under this policy: `{class, ambiguous?}`.
    pub fn classify(&self, outcome_value: &JsValue) -> Result<JsValue, JsValue> {
        let class = rp::classify(&self.0, &outcome(outcome_value)?).map_err(js_error)?;
        to_js(&class)
    }

    /// The worst-case timeline against `deadlineMs` (from the start; `undefined`
    /// for the total budget alone), the first attempt `firstAttemptAtMs` after the start.
    pub fn explain(&self, deadline_ms: Option<f64>, first_attempt_at_ms: Option<f64>) -> Result<JsValue, JsValue> {
        let deadline_ms = deadline_ms.map(|value| ms("deadlineMs", value)).transpose()?;
        let first = ms("firstAttemptAtMs", first_attempt_at_ms.unwrap_or(0.0))?;
        to_js(&rp::explain(&self.0, deadline_ms, first))
    }
}

/// One logical operation: one idempotency key, many attempts.
#[wasm_bindgen]
pub struct Operation(rp::Operation);

#[wasm_bindgen]
impl Operation {
    /// Starts an operation at `nowMs`. `options`: `{seed?, idempotencyKey?, deadlineMs?}`;
    /// without a seed, the seed and key come from `crypto.getRandomValues`.
    /// `dependency` is a handle this call consumes: `lib/operation.js` passes a
    /// clone of `options.dependency` (wasm-bindgen takes no optional references).
    #[wasm_bindgen(constructor)]
    pub fn new(
        policy: &Policy,
        now_ms: f64,
        options: &JsValue,
        dependency: Option<Dependency>,
    ) -> Result<Operation, JsValue> {
        let now = ms("nowMs", now_ms)?;
        let given = !options.is_undefined() && !options.is_null();
        let seed = if given { optional_number(options, "seed")? } else { None };
        let mut core_options = match seed {
            Some(seed) => rp::OperationOptions::new(whole("seed", seed, MAX_SAFE)?),
            None => rp::OperationOptions::from_entropy().map_err(js_error)?,
        };
        if given {
            let key = get(options, "idempotencyKey")?;
            if !key.is_undefined() && !key.is_null() {
                let key = key.as_string().ok_or_else(|| invalid("idempotencyKey", "must be a string".to_owned()))?;
                core_options.idempotency_key = Some(rp::IdempotencyKey::new(key).map_err(js_error)?);
            }
            if let Some(deadline) = optional_number(options, "deadlineMs")? {
                core_options.deadline_ms = Some(ms("deadlineMs", deadline)?);
            }
        }
        core_options.dependency = dependency.map(|dependency| dependency.0);
        Ok(Operation(rp::Operation::new(&policy.0, now, core_options)))
    }

    /// What to do now: start an attempt, keep waiting, or await the running attempt.
    pub fn poll(&mut self, now_ms: f64) -> Result<JsValue, JsValue> {
        let now = ms("nowMs", now_ms)?;
        self.0.poll(now).map(decision).map_err(js_error)
    }

    /// Reports how attempt `attempt` ended; returns the next decision.
    #[wasm_bindgen(js_name = onOutcome)]
    pub fn on_outcome(&mut self, now_ms: f64, attempt: f64, outcome_value: &JsValue) -> Result<JsValue, JsValue> {
        let now = ms("nowMs", now_ms)?;
        let attempt = attempt_number(attempt)?;
        let outcome = outcome(outcome_value)?;
        self.0.on_outcome(now, attempt, &outcome).map(decision).map_err(js_error)
    }

    /// `onOutcome` for a `success`, `http_status` or `transport` outcome whose
    /// fields `lib/operation.js` has read (`tag`: 0, 1, 2 as `outcome_from_parts`
    /// numbers them). Internal: the JS `onOutcome` calls it and falls back to
    /// the object path for everything else.
    /// Returns the decision, or the `RetryplanError` for JS to throw (see `either`).
    #[wasm_bindgen(js_name = _onOutcomeParts)]
    pub fn on_outcome_parts(
        &mut self,
        now_ms: f64,
        attempt: f64,
        tag: u32,
        status: Option<f64>,
        retry_after_ms: Option<f64>,
        failure: Option<String>,
    ) -> JsValue {
        either((|| {
            let now = ms("nowMs", now_ms)?;
            let attempt = attempt_number(attempt)?;
            let outcome = outcome_from_parts(tag, status, retry_after_ms, failure)?;
            self.0.on_outcome(now, attempt, &outcome).map(decision).map_err(js_error)
        })())
    }

    /// `poll` for `lib/operation.js`: the decision, or the `RetryplanError` for JS to throw.
    #[wasm_bindgen(js_name = _poll)]
    pub fn poll_either(&mut self, now_ms: f64) -> JsValue {
        either(self.poll(now_ms))
    }

    /// The caller gives up: the decision is `gave_up` with reason `cancelled`.
    pub fn cancel(&mut self, now_ms: f64) -> Result<JsValue, JsValue> {
        let now = ms("nowMs", now_ms)?;
        self.0.cancel(now).map(decision).map_err(js_error)
    }

    /// When to poll next, or `undefined` once ended.
    #[wasm_bindgen(js_name = nextWakeupMs)]
    pub fn next_wakeup_ms(&self) -> Option<f64> {
        self.0.next_wakeup_ms().map(num)
    }

    /// Budget left at `nowMs` after the response reserve.
    #[wasm_bindgen(js_name = remainingBudgetMs)]
    pub fn remaining_budget_ms(&self, now_ms: f64) -> Result<f64, JsValue> {
        Ok(num(self.0.remaining_budget_ms(ms("nowMs", now_ms)?)))
    }

    /// The operation's deadline: `min(start + totalBudgetMs, deadlineMs)`.
    #[wasm_bindgen(getter, js_name = deadlineMs)]
    pub fn deadline_ms(&self) -> f64 {
        num(self.0.deadline_ms())
    }

    /// The stable idempotency key of every attempt.
    #[wasm_bindgen(getter, js_name = idempotencyKey)]
    pub fn idempotency_key(&self) -> String {
        self.0.idempotency_key().to_string()
    }

    /// Attempts started so far (hedges included).
    #[wasm_bindgen(getter, js_name = attemptsStarted)]
    pub fn attempts_started(&self) -> u32 {
        self.0.attempts_started()
    }

    /// The attempts running now, ascending (a new array per read).
    #[wasm_bindgen(getter, js_name = runningAttempts)]
    pub fn running_attempts(&self) -> JsValue {
        attempt_list(self.0.running_attempts())
    }

    /// When the operation started.
    #[wasm_bindgen(getter, js_name = startedAtMs)]
    pub fn started_at_ms(&self) -> f64 {
        num(self.0.started_at_ms())
    }

    /// The request id attempt `attempt` gets (16 lowercase hex digits).
    #[wasm_bindgen(js_name = requestId)]
    pub fn request_id(&self, attempt: f64) -> Result<String, JsValue> {
        Ok(self.0.request_id(attempt_number(attempt)?).to_string())
    }

    /// True once an ending was returned.
    #[wasm_bindgen(getter, js_name = isEnded)]
    pub fn is_ended(&self) -> bool {
        self.0.is_ended()
    }
}

/// Counters over many operations' decisions, for metrics.
#[wasm_bindgen]
#[derive(Default)]
pub struct Stats(rp::Stats);

#[wasm_bindgen]
impl Stats {
    /// Empty counters.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Stats {
        Stats::default()
    }

    /// Counts one decision object as returned by an operation.
    pub fn record(&mut self, decision_value: &JsValue) -> Result<(), JsValue> {
        self.0.record(&decision_from_js(decision_value)?);
        Ok(())
    }

    /// Adds another set of counters to these (saturating).
    pub fn merge(&mut self, other: &Stats) {
        self.0.merge(&other.0);
    }

    /// The counters as a plain object.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0)
    }
}

/// Reads a Retry-After value (delta-seconds or any HTTP-date) as ms from `nowUnixMs`.
#[wasm_bindgen(js_name = parseRetryAfter)]
pub fn parse_retry_after(value: &str, now_unix_ms: f64) -> Result<f64, JsValue> {
    let now = ms("nowUnixMs", now_unix_ms)?;
    rp::parse_retry_after(value, now).map(num).map_err(|error| js_error(error.into()))
}

/// Reads a `retry-after-ms` header value.
#[wasm_bindgen(js_name = parseRetryAfterMsHeader)]
pub fn parse_retry_after_ms_header(value: &str) -> Result<f64, JsValue> {
    rp::parse_retry_after_ms_header(value).map(num).map_err(|error| js_error(error.into()))
}

/// Reads a `grpc-retry-pushback-ms` trailer: `{retryAfterMs}` or `"do_not_retry"`.
#[wasm_bindgen(js_name = parseGrpcPushback)]
pub fn parse_grpc_pushback(value: &str) -> Result<JsValue, JsValue> {
    to_js(&rp::parse_grpc_pushback(value))
}

/// Encodes a timeout as a `grpc-timeout` header value (never rounding up).
#[wasm_bindgen(js_name = encodeGrpcTimeout)]
pub fn encode_grpc_timeout(timeout_ms: f64) -> Result<String, JsValue> {
    Ok(rp::encode_grpc_timeout(ms("timeoutMs", timeout_ms)?))
}

/// Reads a `grpc-timeout` header value as ms.
#[wasm_bindgen(js_name = parseGrpcTimeout)]
pub fn parse_grpc_timeout(value: &str) -> Result<f64, JsValue> {
    rp::parse_grpc_timeout(value).map(num).map_err(|error| js_error(error.into()))
}

/// Budget left at `nowMs` before `deadlineMs`, minus `reserveMs` (0 at the least).
#[wasm_bindgen(js_name = remainingBudgetMs)]
pub fn remaining_budget_ms(deadline_ms: f64, now_ms: f64, reserve_ms: f64) -> Result<f64, JsValue> {
    Ok(num(rp::remaining_budget_ms(ms("deadlineMs", deadline_ms)?, ms("nowMs", now_ms)?, ms("reserveMs", reserve_ms)?)))
}

/// Server-side admission: `{type: "admit", remainingMs}` or `{type: "reject", ...}`.
#[wasm_bindgen]
pub fn admit(deadline_ms: f64, now_ms: f64, reserve_ms: f64, minimum_useful_ms: f64) -> Result<JsValue, JsValue> {
    let admission = rp::admit(
        ms("deadlineMs", deadline_ms)?,
        ms("nowMs", now_ms)?,
        ms("reserveMs", reserve_ms)?,
        ms("minimumUsefulMs", minimum_useful_ms)?,
    );
    to_js(&admission)
}

/// Encodes a budget of `timeoutNs` nanoseconds (a bigint) as a `grpc-timeout`
/// value, in the unit a peer would choose (never rounded up).
#[wasm_bindgen(js_name = encodeGrpcTimeoutNs)]
pub fn encode_grpc_timeout_ns(timeout_ns: u64) -> String {
    rp::encode_grpc_timeout_ns(timeout_ns)
}

/// Reads a `grpc-timeout` value as exact nanoseconds (a bigint, saturating at 2^63-1).
#[wasm_bindgen(js_name = parseGrpcTimeoutNs)]
pub fn parse_grpc_timeout_ns(value: &str) -> Result<u64, JsValue> {
    rp::parse_grpc_timeout_ns(value).map_err(|error| js_error(Error::from(error)))
}

/// The AWS error code of a response: the `x-amzn-errortype` header, else a
/// JSON body's `__type`/`code`, else an XML body's `<Code>`; `undefined` when none.
#[wasm_bindgen(js_name = awsErrorCodeFromResponse)]
pub fn aws_error_code_from_response(errortype_header: Option<String>, body: Option<String>) -> Option<String> {
    rp::aws::error_code_from_response(errortype_header.as_deref(), body.as_deref()).map(|code| code.as_str().to_owned())
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
    pub fn from_config(config: &JsValue, max_attempts_cap: Option<f64>) -> Result<ServiceConfig, JsValue> {
        ServiceConfig::read(&data::from_js(config, Keys::Snake).map_err(js_error)?, max_attempts_cap)
    }

    /// Reads a service config from JSON text.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(json: &str, max_attempts_cap: Option<f64>) -> Result<ServiceConfig, JsValue> {
        ServiceConfig::read(&json_value(json)?, max_attempts_cap)
    }

    fn read(value: &rp::value::Value, max_attempts_cap: Option<f64>) -> Result<ServiceConfig, JsValue> {
        let max_attempts_cap = match max_attempts_cap {
            Some(cap) => whole("maxAttemptsCap", cap, f64::from(u32::MAX))? as u32,
            None => rp::grpc::DEFAULT_MAX_ATTEMPTS_CAP,
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
    pub fn warnings(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.warnings)
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
    pub fn method_for(&self, service: &str, method: &str) -> JsValue {
        self.0.method_for(service, method).map_or(JsValue::UNDEFINED, method_object)
    }

    /// The most specific selector's policy for `service`/`method`, or `undefined`.
    #[wasm_bindgen(js_name = profileFor)]
    pub fn profile_for(&self, service: &str, method: &str) -> Option<Policy> {
        self.0.profile_for(service, method).map(|policy| Policy(*policy))
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
    set("policy", JsValue::from(Policy(profile.policy)));
    object.into()
}

/// The built-in profile names.
#[wasm_bindgen(js_name = profileNames)]
pub fn profile_names() -> js_sys::Array {
    rp::profiles::NAMES.iter().map(|name| JsValue::from_str(name)).collect()
}

/// An HTTP response as an outcome: `status`, and the raw `Retry-After` and
/// `retry-after-ms` header values (`null`/`undefined` when absent), read by the
/// core against `nowUnixMs` (`Date.now()`): a readable `retry-after-ms` wins,
/// an unreadable value is no guidance, and values saturate at 2^53-1 ms.
#[wasm_bindgen(js_name = outcomeFromHttp)]
pub fn outcome_from_http(
    status: f64,
    retry_after: Option<String>,
    retry_after_ms: Option<String>,
    now_unix_ms: f64,
) -> Result<JsValue, JsValue> {
    let status = whole("status", status, f64::from(u16::MAX))? as u16;
    let now_unix = ms("nowUnixMs", now_unix_ms)?;
    let outcome = Outcome::from_http(status, retry_after.as_deref(), retry_after_ms.as_deref(), now_unix);
    Ok(match outcome {
        Outcome::HttpStatus { status, retry_after_ms, error_code: None } => {
            js_http_outcome(status, retry_after_ms.map(num))
        }
        other => to_js(&other)?,
    })
}

/// What to do with a queue message after delivery number `attempts` (1 for
/// the first) that ended with `outcome`; the message was first seen at `firstSeenMs`.
#[wasm_bindgen]
pub fn redeliver(
    policy: &Policy,
    attempts: f64,
    first_seen_ms: f64,
    now_ms: f64,
    outcome_value: &JsValue,
) -> Result<JsValue, JsValue> {
    let attempts = attempt_number(attempts)?;
    let first_seen = ms("firstSeenMs", first_seen_ms)?;
    let now = ms("nowMs", now_ms)?;
    let redelivery = rp::redeliver(&policy.0, attempts, first_seen, now, &outcome(outcome_value)?).map_err(js_error)?;
    to_js(&redelivery)
}

/// The shared controls of one downstream dependency: an optional retry budget,
/// circuit breaker and cap on in-flight retries and hedges. Give it to every
/// operation that calls the dependency (`new Operation(policy, now, {dependency})`).
#[wasm_bindgen]
pub struct Dependency(Arc<rp::Dependency>);

#[wasm_bindgen]
impl Dependency {
    /// Validates a configuration object (camelCase keys); errors and field paths match `fromJson`.
    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(config: &JsValue) -> Result<Dependency, JsValue> {
        Dependency::read(&config_value(config)?)
    }

    /// Reads and validates dependency JSON text (the shared snake_case schema).
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(json: &str) -> Result<Dependency, JsValue> {
        Dependency::read(&json_value(json)?)
    }

    fn read(value: &rp::value::Value) -> Result<Dependency, JsValue> {
        rp::DependencyConfig::from_value(value)
            .and_then(|config| rp::Dependency::new(&config))
            .map(Dependency)
            .map_err(js_error)
    }

    /// Another handle on the same shared controls (free each handle on its own).
    #[wasm_bindgen(js_name = clone)]
    pub fn share(&self) -> Dependency {
        Dependency(Arc::clone(&self.0))
    }

    /// Every control's state at `nowMs`: `{budget, breaker, retriesInFlight}`, each `null` when absent.
    pub fn snapshot(&self, now_ms: f64) -> Result<JsValue, JsValue> {
        to_js(&self.0.snapshot(ms("nowMs", now_ms)?))
    }

    /// The retry budget (a handle on the shared one), or `undefined`.
    #[wasm_bindgen(getter)]
    pub fn budget(&self) -> Option<RetryBudget> {
        self.0.budget().map(|_| RetryBudget(Control::Shared(Arc::clone(&self.0))))
    }

    /// The circuit breaker (a handle on the shared one), or `undefined`.
    #[wasm_bindgen(getter)]
    pub fn breaker(&self) -> Option<CircuitBreaker> {
        self.0.breaker().map(|_| CircuitBreaker(Control::Shared(Arc::clone(&self.0))))
    }

    /// The cap on in-flight retries and hedges (a handle on the shared one), or `undefined`.
    #[wasm_bindgen(getter, js_name = retrySlots)]
    pub fn retry_slots(&self) -> Option<ConcurrencyLimit> {
        self.0.retry_slots().map(|_| ConcurrencyLimit(Control::Shared(Arc::clone(&self.0)), Default::default()))
    }
}

/// A control owned by its handle, or one of a dependency's.
enum Control<T> {
    Own(T),
    Shared(Arc<rp::Dependency>),
}

impl<T> Control<T> {
    fn get<'a>(&'a self, pick: impl FnOnce(&'a rp::Dependency) -> Option<&'a T>) -> Result<&'a T, JsValue> {
        match self {
            Control::Own(control) => Ok(control),
            // A shared handle is made only when the dependency has the control.
            Control::Shared(dependency) => {
                pick(dependency).ok_or_else(|| invalid("control", "the dependency has no such control".to_owned()))
            }
        }
    }
}

/// A retry budget shared by every operation calling one dependency.
#[wasm_bindgen]
pub struct RetryBudget(Control<rp::RetryBudget>);

#[wasm_bindgen]
impl RetryBudget {
    /// Validates a budget configuration (camelCase keys: `{kind: "token_bucket", maxTokens, tokenRatio}`, ...).
    /// Field paths in errors start with `budget.`, as in a dependency configuration.
    #[wasm_bindgen(constructor)]
    pub fn new(config: &JsValue) -> Result<RetryBudget, JsValue> {
        let config = rp::BudgetConfig::from_value(&config_value(config)?, "budget").map_err(js_error)?;
        rp::RetryBudget::new(&config).map(|budget| RetryBudget(Control::Own(budget))).map_err(js_error)
    }

    fn budget(&self) -> Result<&rp::RetryBudget, JsValue> {
        self.0.get(rp::Dependency::budget)
    }

    /// Counts an original request (a first attempt) dispatched at `nowMs`.
    #[wasm_bindgen(js_name = onRequest)]
    pub fn on_request(&self, now_ms: f64) -> Result<(), JsValue> {
        self.budget()?.on_request(ms("nowMs", now_ms)?);
        Ok(())
    }

    /// Asks to dispatch a retry (or hedge) now: a `RetryCharge` when granted, `undefined` when refused.
    /// `afterTimeout`: the failure being retried was a timeout (a quota charges more).
    #[wasm_bindgen(js_name = tryRetry)]
    pub fn try_retry(&self, now_ms: f64, after_timeout: Option<bool>) -> Result<Option<RetryCharge>, JsValue> {
        let charge = self.budget()?.try_retry(ms("nowMs", now_ms)?, after_timeout.unwrap_or(false));
        Ok(charge.map(|charge| RetryCharge { cost: charge.cost(), cell: rp::GrantCell::new(charge) }))
    }

    /// Records a success of a first attempt. `lib/api.js` makes this
    /// `onSuccess(nowMs, charge?)`: with a charge, it calls `__onSuccessCharged`.
    #[wasm_bindgen(js_name = onSuccess)]
    pub fn on_success(&self, now_ms: f64) -> Result<(), JsValue> {
        self.budget()?.on_success(ms("nowMs", now_ms)?, None).map_err(js_error)
    }

    /// Records a retry's success: its `charge` is refunded (once).
    #[wasm_bindgen(js_name = __onSuccessCharged, skip_typescript)]
    pub fn on_success_charged(&self, now_ms: f64, charge: &RetryCharge) -> Result<(), JsValue> {
        let now = ms("nowMs", now_ms)?;
        self.budget()?.on_success(now, Some(charge.take()?)).map_err(js_error)
    }

    /// Records a retryable failure of a first attempt (or another caller's).
    /// `lib/api.js` makes this `onFailure(nowMs, charge?)`, as `onSuccess`.
    #[wasm_bindgen(js_name = onFailure)]
    pub fn on_failure(&self, now_ms: f64) -> Result<(), JsValue> {
        self.budget()?.on_failure(ms("nowMs", now_ms)?, None).map_err(js_error)
    }

    /// Records a retry's retryable failure: its `charge` stays spent.
    #[wasm_bindgen(js_name = __onFailureCharged, skip_typescript)]
    pub fn on_failure_charged(&self, now_ms: f64, charge: &RetryCharge) -> Result<(), JsValue> {
        let now = ms("nowMs", now_ms)?;
        self.budget()?.on_failure(now, Some(charge.take()?)).map_err(js_error)
    }

    /// Takes `amount` units from a quota (AWS `acquire`): true when taken,
    /// false when fewer are left (nothing is taken).
    pub fn acquire(&self, amount: f64) -> Result<bool, JsValue> {
        let amount = whole("amount", amount, f64::from(u32::MAX))? as u32;
        self.budget()?.acquire(amount).map_err(js_error)
    }

    /// Gives `amount` units back to a quota, never above its capacity.
    pub fn release(&self, amount: f64) -> Result<(), JsValue> {
        let amount = whole("amount", amount, f64::from(u32::MAX))? as u32;
        self.budget()?.release(amount).map_err(js_error)
    }

    /// The state at `nowMs`, for metrics.
    pub fn snapshot(&self, now_ms: f64) -> Result<JsValue, JsValue> {
        to_js(&self.budget()?.snapshot(ms("nowMs", now_ms)?))
    }
}

/// What `RetryBudget#tryRetry` charged; hand it back once, with the retry's
/// success (refunded) or failure (spent).
#[wasm_bindgen]
pub struct RetryCharge {
    cost: u32,
    cell: rp::GrantCell<rp::RetryCharge>,
}

#[wasm_bindgen]
impl RetryCharge {
    /// Units charged (quota model; 0 for the others).
    #[wasm_bindgen(getter)]
    pub fn cost(&self) -> u32 {
        self.cost
    }
    fn take(&self) -> Result<rp::RetryCharge, JsValue> {
        self.cell.take().map_err(js_error)
    }
}

/// Admission granted by `CircuitBreaker#tryAcquire`; hand it back once, with the result or as a release.
#[wasm_bindgen]
pub struct BreakerPermit {
    probe: bool,
    cell: rp::GrantCell<rp::BreakerPermit>,
}

#[wasm_bindgen]
impl BreakerPermit {
    /// True when the attempt is a half-open probe.
    #[wasm_bindgen(getter)]
    pub fn probe(&self) -> bool {
        self.probe
    }

    fn take(&self) -> Result<rp::BreakerPermit, JsValue> {
        self.cell.take().map_err(js_error)
    }
}

/// A circuit breaker shared by every operation calling one dependency.
#[wasm_bindgen]
pub struct CircuitBreaker(Control<rp::CircuitBreaker>);

#[wasm_bindgen]
impl CircuitBreaker {
    /// Validates a breaker configuration (camelCase keys:
    /// `{trip: {kind: "consecutive", failures}, openMs, halfOpenProbes}`).
    /// Field paths in errors start with `breaker.`, as in a dependency configuration.
    #[wasm_bindgen(constructor)]
    pub fn new(config: &JsValue) -> Result<CircuitBreaker, JsValue> {
        let config = rp::BreakerConfig::from_value(&config_value(config)?, "breaker").map_err(js_error)?;
        rp::CircuitBreaker::new(&config).map(|breaker| CircuitBreaker(Control::Own(breaker))).map_err(js_error)
    }

    fn breaker(&self) -> Result<&rp::CircuitBreaker, JsValue> {
        self.0.get(rp::Dependency::breaker)
    }

    /// Asks to send an attempt at `nowMs`: a permit, or `undefined` when refused.
    #[wasm_bindgen(js_name = tryAcquire)]
    pub fn try_acquire(&self, now_ms: f64) -> Result<Option<BreakerPermit>, JsValue> {
        let permit = self.breaker()?.try_acquire(ms("nowMs", now_ms)?);
        Ok(permit.map(|permit| BreakerPermit { probe: permit.is_probe(), cell: rp::GrantCell::new(permit) }))
    }

    /// Records that the dependency answered (anything but a retryable failure).
    #[wasm_bindgen(js_name = onSuccess)]
    pub fn on_success(&self, now_ms: f64, permit: &BreakerPermit) -> Result<(), JsValue> {
        let now = ms("nowMs", now_ms)?;
        self.breaker()?.on_success(now, permit.take()?).map_err(js_error)
    }

    /// Records a retryable failure.
    #[wasm_bindgen(js_name = onFailure)]
    pub fn on_failure(&self, now_ms: f64, permit: &BreakerPermit) -> Result<(), JsValue> {
        let now = ms("nowMs", now_ms)?;
        self.breaker()?.on_failure(now, permit.take()?).map_err(js_error)
    }

    /// Gives a permit back without a result (the attempt was cancelled).
    pub fn release(&self, permit: &BreakerPermit) -> Result<(), JsValue> {
        self.breaker()?.release(permit.take()?).map_err(js_error)
    }

    /// The state at `nowMs`, for metrics.
    pub fn snapshot(&self, now_ms: f64) -> Result<JsValue, JsValue> {
        to_js(&self.breaker()?.snapshot(ms("nowMs", now_ms)?))
    }
}

/// A cap on the retries and hedges in flight to one dependency at once.
/// A handle gives back only the slots it took itself (never an operation's).
#[wasm_bindgen]
pub struct ConcurrencyLimit(Control<rp::ConcurrencyLimit>, std::cell::RefCell<Vec<rp::RetrySlot>>);

#[wasm_bindgen]
impl ConcurrencyLimit {
    /// A cap of `maxInFlight` (0 refuses every retry and hedge).
    #[wasm_bindgen(constructor)]
    pub fn new(max_in_flight: f64) -> Result<ConcurrencyLimit, JsValue> {
        let max = whole("maxInFlight", max_in_flight, f64::from(u32::MAX))? as u32;
        Ok(ConcurrencyLimit(Control::Own(rp::ConcurrencyLimit::new(max)), Default::default()))
    }

    fn limit(&self) -> Result<&rp::ConcurrencyLimit, JsValue> {
        self.0.get(rp::Dependency::retry_slots)
    }

    /// Takes a slot (kept by this handle); false when all are taken.
    #[wasm_bindgen(js_name = tryAcquire)]
    pub fn try_acquire(&self) -> Result<bool, JsValue> {
        let slot = self.limit()?.try_acquire();
        let taken = slot.is_some();
        self.1.borrow_mut().extend(slot);
        Ok(taken)
    }

    /// Gives back a slot this handle took; `invalid_argument` when it holds none.
    pub fn release(&self) -> Result<(), JsValue> {
        let limit = self.limit()?;
        let slot = self.1.borrow_mut().pop().ok_or_else(|| {
            invalid("slot", "this handle holds no slot: it gives back only the slots its tryAcquire took".to_owned())
        })?;
        limit.release(slot).map_err(js_error)
    }

    /// Slots taken now.
    #[wasm_bindgen(getter, js_name = inFlight)]
    pub fn in_flight(&self) -> Result<u32, JsValue> {
        Ok(self.limit()?.in_flight())
    }

    /// The cap.
    #[wasm_bindgen(getter, js_name = maxInFlight)]
    pub fn max_in_flight(&self) -> Result<u32, JsValue> {
        Ok(self.limit()?.max_in_flight())
    }
}
