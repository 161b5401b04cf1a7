//! The JavaScript binding of `retryplan`, compiled to wasm with wasm-bindgen.
//!
//! It converts types and errors and nothing else: every decision, default and
//! rule is the core's. JS numbers (f64) carry times at the boundary (never
//! `bigint`); a time is floored, and a value that is not a finite number in
//! `0..=2^53-1` (or not a number at all: nothing is coerced) is a
//! `RetryplanError` with code `invalid_argument`. Results are plain objects
//! built by the factories of `lib/convert.js`, keyed in camelCase, with
//! snake_case string values, as the `.d.ts` describes.
//!
//! The methods whose names start with `_` are internal fast paths for
//! `lib/*.js` (numbers in, one value out); they are not part of the API.
//!
//! Natively this crate is empty, so `cargo test --workspace` never calls a JS import.
#![cfg(target_arch = "wasm32")]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, Ordering};

use js_sys::JsString;
use retryplan as rp;
use rp::Error;
use wasm_bindgen::prelude::*;

mod args;
mod controls;
mod data;
mod decisions;
mod dialects;
mod driver;
mod http_dialect;
mod operation;
mod outcomes;

use args::{attempt_number, ms, number, optional_ms, outcome, text, whole};
pub use controls::{BreakerPermit, CircuitBreaker, ConcurrencyLimit, Dependency, RetryBudget};
use data::Keys;
use decisions::{config_value, decision_from_js, json_value, to_js};
pub use dialects::ServiceConfig;
pub use operation::Operation;

/// The global allocator: a small free list instead of dlmalloc (about 3 KB less
/// of the gzipped download), which records running out of memory (see
/// [`trapped`]). The engine allocates only when reading configurations and
/// building messages, never per decision.
#[cfg(target_feature = "atomics")]
compile_error!("the single-threaded allocator below is unsound with wasm threads (atomics)");

struct Allocator(lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator>);

/// Set when the module traps: out of memory, or a panic (a bug). Either
/// aborts the call in the middle, leaving the object it ran on borrowed for
/// good and whatever it held (a retry slot, a breaker probe) unreleased.
static TRAPPED: AtomicBool = AtomicBool::new(false);

// SAFETY: every call is forwarded unchanged to the inner allocator; the only
// addition is a flag store when it returns null.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = self.0.alloc(layout);
        if pointer.is_null() {
            TRAPPED.store(true, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        self.0.dealloc(pointer, layout);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = self.0.realloc(pointer, layout, new_size);
        if moved.is_null() {
            TRAPPED.store(true, Ordering::Relaxed);
        }
        moved
    }
}

#[global_allocator]
// SAFETY: wasm32-unknown-unknown without the atomics feature has one thread, the
// only case `AssumeSingleThreaded` is sound for.
static ALLOCATOR: Allocator =
    Allocator(unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) });

/// Marks the module as trapped when anything panics (a panic aborts, which traps).
#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|_| TRAPPED.store(true, Ordering::Relaxed)));
}

/// True once the module has trapped (a `WebAssembly.RuntimeError` was thrown:
/// out of memory, or a bug): its objects may be left unusable and what they
/// held unreleased, so load the module again. Inputs are bounded so that no
/// argument can make it run out of memory.
#[wasm_bindgen(js_name = wasmTrapped)]
pub fn trapped() -> bool {
    TRAPPED.load(Ordering::Relaxed)
}

#[wasm_bindgen(raw_module = "../lib/convert.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str) -> JsValue;
    #[wasm_bindgen(js_name = addViolation)]
    fn add_violation(error: &JsValue, field: &str, message: &str);
    #[wasm_bindgen(js_name = setErrorField)]
    fn set_error_field(error: &JsValue, field: &str);
    /// False when the string holds a lone surrogate.
    #[wasm_bindgen(js_name = isWellFormed)]
    fn is_well_formed(text: &JsString) -> bool;
    /// JSON text as plain data, objects as `{entries}` (see `data::Source::Json`).
    #[wasm_bindgen(js_name = parseJson, catch)]
    fn parse_json(text: &JsString) -> Result<JsValue, JsValue>;

    /// A started attempt as `form` says (`START_*`): a decision, a driver's
    /// action (with `sendIdempotencyKey`) or the helpers' `Attempt`.
    #[wasm_bindgen(js_name = startAttempt)]
    #[allow(clippy::too_many_arguments)]
    fn js_start_attempt(
        form: u32,
        attempt: u32,
        timeout_ms: f64,
        abort_at_ms: f64,
        id_high: u32,
        id_low: u32,
        remaining: f64,
        hedge: bool,
        send_idempotency_key: bool,
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

/// The forms of `startAttempt`, as `lib/convert.js` numbers them.
const START_DECISION: u32 = 0;
const START_ACTION: u32 = 1;
const START_HELPER: u32 = 2;

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

/// A u64 from the core as a JS number (exact up to 2^53-1, the core's `MAX_MS`).
fn num(value: u64) -> f64 {
    value as f64
}

/// A value or the error as one value, for the internal methods that
/// `lib/*.js` calls: a `Result<JsValue, JsValue>` return goes through
/// wasm-bindgen's externref table (an allocation in wasm and a second call to
/// free it from JS), a plain `JsValue` does not. Values are plain objects or
/// strings, errors `RetryplanError`s, so JS tells them apart and throws the error.
fn either(result: Result<JsValue, JsValue>) -> JsValue {
    result.unwrap_or_else(|error| error)
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
    pub fn from_json(json: &JsValue) -> Result<Policy, JsValue> {
        Policy::read(&json_value(json)?)
    }

    fn read(value: &rp::value::Value) -> Result<Policy, JsValue> {
        rp::PolicyConfig::from_value(value).and_then(|config| rp::Policy::new(&config)).map(Policy).map_err(js_error)
    }

    /// A built-in profile (`read`, `checkout`, `write_keyed`, `write_strict`, `background`).
    pub fn profile(name: &JsValue) -> Result<Policy, JsValue> {
        let name = text("name", name)?;
        rp::profiles::profile(&name).and_then(|config| rp::Policy::new(&config)).map(Policy).map_err(js_error)
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
    pub fn backoff_ceilings_ms(&self, retries: &JsValue) -> Result<js_sys::Array, JsValue> {
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
    pub fn explain(&self, deadline_ms: &JsValue, first_attempt_at_ms: &JsValue) -> Result<JsValue, JsValue> {
        let deadline_ms = optional_ms("deadlineMs", deadline_ms)?;
        let first = optional_ms("firstAttemptAtMs", first_attempt_at_ms)?.unwrap_or(0);
        to_js(&rp::explain(&self.0, deadline_ms, first))
    }
}

/// Counters over many operations' decisions, for metrics, shared: a driver
/// given this object (`{stats}`) counts each decision as the core makes it.
#[wasm_bindgen]
#[derive(Default)]
pub struct Stats(std::sync::Arc<rp::SharedStats>);

#[wasm_bindgen]
impl Stats {
    /// Empty counters.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Stats {
        Stats::default()
    }

    /// Counts one decision object as returned by an operation.
    pub fn record(&self, decision_value: &JsValue) -> Result<(), JsValue> {
        self.0.record(&decision_from_js(decision_value)?);
        Ok(())
    }

    /// Adds another set of counters to these (saturating).
    pub fn merge(&self, other: &Stats) {
        self.0.merge(&other.0.snapshot());
    }

    /// The counters as a plain object.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.snapshot())
    }

    /// Another handle on the same counters, for a driver to consume
    /// (wasm-bindgen takes no optional references). Internal.
    #[wasm_bindgen(js_name = _share)]
    pub fn share(&self) -> Stats {
        Stats(std::sync::Arc::clone(&self.0))
    }
}

/// A header error as a `RetryplanError`.
fn header_error(error: rp::HeaderError) -> JsValue {
    js_error(error.into())
}

/// Reads a Retry-After value (delta-seconds or any HTTP-date) as ms from
/// `nowUnixMs`, as `reading` says (`"strict"`, the default, or `"lenient"`).
#[wasm_bindgen(js_name = parseRetryAfter)]
pub fn parse_retry_after(value: &JsValue, now_unix_ms: &JsValue, reading: &JsValue) -> Result<f64, JsValue> {
    let value = text("value", value)?;
    let now = ms("nowUnixMs", now_unix_ms)?;
    rp::parse_retry_after_with(&value, now, http_dialect::reading(reading)?).map(num).map_err(header_error)
}

/// Reads a `retry-after-ms` header value.
#[wasm_bindgen(js_name = parseRetryAfterMsHeader)]
pub fn parse_retry_after_ms_header(value: &JsValue) -> Result<f64, JsValue> {
    rp::parse_retry_after_ms_header(&text("value", value)?).map(num).map_err(header_error)
}

/// Reads a `grpc-retry-pushback-ms` trailer: `{retryAfterMs}` or `"do_not_retry"`.
#[wasm_bindgen(js_name = parseGrpcPushback)]
pub fn parse_grpc_pushback(value: &JsValue) -> Result<JsValue, JsValue> {
    to_js(&rp::parse_grpc_pushback(&text("value", value)?))
}

/// Encodes a timeout as a `grpc-timeout` header value (never rounding up).
#[wasm_bindgen(js_name = encodeGrpcTimeout)]
pub fn encode_grpc_timeout(timeout_ms: &JsValue) -> Result<String, JsValue> {
    Ok(rp::encode_grpc_timeout(ms("timeoutMs", timeout_ms)?))
}

/// Reads a `grpc-timeout` header value as ms.
#[wasm_bindgen(js_name = parseGrpcTimeout)]
pub fn parse_grpc_timeout(value: &JsValue) -> Result<f64, JsValue> {
    rp::parse_grpc_timeout(&text("value", value)?).map(num).map_err(header_error)
}

/// Budget left at `nowMs` before `deadlineMs`, minus `reserveMs` (0 at the least).
#[wasm_bindgen(js_name = remainingBudgetMs)]
pub fn remaining_budget_ms(deadline_ms: &JsValue, now_ms: &JsValue, reserve_ms: &JsValue) -> Result<f64, JsValue> {
    Ok(num(rp::remaining_budget_ms(ms("deadlineMs", deadline_ms)?, ms("nowMs", now_ms)?, ms("reserveMs", reserve_ms)?)))
}

/// Server-side admission: `{type: "admit", remainingMs}` or `{type: "reject", ...}`.
#[wasm_bindgen]
pub fn admit(
    deadline_ms: &JsValue,
    now_ms: &JsValue,
    reserve_ms: &JsValue,
    minimum_useful_ms: &JsValue,
) -> Result<JsValue, JsValue> {
    let admission = rp::admit(
        ms("deadlineMs", deadline_ms)?,
        ms("nowMs", now_ms)?,
        ms("reserveMs", reserve_ms)?,
        ms("minimumUsefulMs", minimum_useful_ms)?,
    );
    to_js(&admission)
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
    status: &JsValue,
    retry_after: &JsValue,
    retry_after_ms: &JsValue,
    now_unix_ms: &JsValue,
) -> Result<JsValue, JsValue> {
    let status = whole("status", status, f64::from(u16::MAX))? as u16;
    let retry_after = args::optional_text("retryAfter", retry_after)?;
    let retry_after_ms = args::optional_text("retryAfterMs", retry_after_ms)?;
    let now_unix = ms("nowUnixMs", now_unix_ms)?;
    let outcome = rp::Outcome::from_http(status, retry_after.as_deref(), retry_after_ms.as_deref(), now_unix);
    outcomes::outcome_js(&outcome)
}

/// What to do with a queue message after delivery number `attempts` (1 for
/// the first) that ended with `outcome`; the message was first seen at `firstSeenMs`.
#[wasm_bindgen]
pub fn redeliver(
    policy: &Policy,
    attempts: &JsValue,
    first_seen_ms: &JsValue,
    now_ms: &JsValue,
    outcome_value: &JsValue,
) -> Result<JsValue, JsValue> {
    let attempts = attempt_number(number("attempts", attempts)?)?;
    let first_seen = ms("firstSeenMs", first_seen_ms)?;
    let now = ms("nowMs", now_ms)?;
    let redelivery = rp::redeliver(&policy.0, attempts, first_seen, now, &outcome(outcome_value)?).map_err(js_error)?;
    to_js(&redelivery)
}
