//! `Operation`: one logical operation, decision by decision, and the options
//! an operation (or a driver) starts from.

use alloc::string::String;

use retryplan as rp;
use wasm_bindgen::prelude::*;

use crate::args::{attempt_number, get, ms, ms_number, number, optional_number, outcome, outcome_from_parts, text};
use crate::decisions::{attempt_list, decision};
use crate::{either, js_error, num, Dependency, Policy, MAX_SAFE};

/// The options every operation starts from: `options` is `{seed?,
/// idempotencyKey?, deadlineMs?}` (absent for `undefined` or `null`), `dependency` a handle the
/// caller consumes, `random` six words from `crypto.getRandomValues` that
/// seed the operation and make its key when `options` has no seed (drawn in
/// batches by `lib/entropy.js`: cheaper than a call per operation).
pub(crate) fn operation_options(
    options: Option<&JsValue>,
    dependency: Option<Dependency>,
    random: [u32; 6],
) -> Result<rp::OperationOptions, JsValue> {
    let seed = match options {
        Some(options) => optional_number(options, "seed")?,
        None => None,
    };
    let mut core_options = match seed {
        Some(seed) => rp::OperationOptions::new(crate::args::whole_number("seed", seed, MAX_SAFE)?),
        None => {
            let [s0, s1, k0, k1, k2, k3] = random.map(u64::from);
            let key = u128::from(k0 << 32 | k1) << 64 | u128::from(k2 << 32 | k3);
            rp::OperationOptions::from_random(s0 << 32 | s1, key)
        }
    };
    if let Some(options) = options {
        let key = get(options, "idempotencyKey")?;
        if !key.is_undefined() && !key.is_null() {
            core_options.idempotency_key =
                Some(rp::IdempotencyKey::new(text("idempotencyKey", &key)?).map_err(js_error)?);
        }
        if let Some(deadline) = optional_number(options, "deadlineMs")? {
            core_options.deadline_ms = Some(ms_number("deadlineMs", deadline)?);
        }
    }
    core_options.dependency = dependency.map(|dependency| dependency.0);
    Ok(core_options)
}

/// One logical operation: one idempotency key, many attempts.
#[wasm_bindgen]
pub struct Operation(rp::Operation);

#[wasm_bindgen]
impl Operation {
    /// Starts an operation at `nowMs` (see `operation_options`). Called by
    /// `lib/operation.js`, which passes a clone of `options.dependency`
    /// (wasm-bindgen takes no optional references) and the random words.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)] // the random words cross as numbers: no array to copy
    pub fn new(
        policy: &Policy,
        now_ms: &JsValue,
        options: Option<JsValue>,
        dependency: Option<Dependency>,
        r0: u32,
        r1: u32,
        r2: u32,
        r3: u32,
        r4: u32,
        r5: u32,
    ) -> Result<Operation, JsValue> {
        let now = ms("nowMs", now_ms)?;
        let options = operation_options(options.as_ref(), dependency, [r0, r1, r2, r3, r4, r5])?;
        Ok(Operation(rp::Operation::new(&policy.0, now, options)))
    }

    /// What to do now: start an attempt, keep waiting, or await the running attempt.
    pub fn poll(&mut self, now_ms: &JsValue) -> Result<JsValue, JsValue> {
        self.poll_at(number("nowMs", now_ms)?)
    }

    fn poll_at(&mut self, now_ms: f64) -> Result<JsValue, JsValue> {
        let now = ms_number("nowMs", now_ms)?;
        self.0.poll(now).map(decision).map_err(js_error)
    }

    /// Reports how attempt `attempt` ended; returns the next decision.
    #[wasm_bindgen(js_name = onOutcome)]
    pub fn on_outcome(
        &mut self,
        now_ms: &JsValue,
        attempt: &JsValue,
        outcome_value: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = ms("nowMs", now_ms)?;
        let attempt = attempt_number(number("attempt", attempt)?)?;
        let outcome = outcome(outcome_value)?;
        self.0.on_outcome(now, attempt, &outcome).map(decision).map_err(js_error)
    }

    /// `onOutcome` for an outcome whose parts `lib/outcomes.js` has read
    /// (see `outcome_from_parts`). Internal: the JS `onOutcome` calls it and
    /// falls back to the object path for everything else. Returns the
    /// decision, or the `RetryplanError` for JS to throw (see `either`).
    #[wasm_bindgen(js_name = _onOutcomeParts)]
    pub fn on_outcome_parts(&mut self, now_ms: f64, attempt: f64, tag: u32, a: f64, b: Option<f64>) -> JsValue {
        either((|| {
            let now = ms_number("nowMs", now_ms)?;
            let attempt = attempt_number(attempt)?;
            let outcome = outcome_from_parts(tag, a, b)?;
            self.0.on_outcome(now, attempt, &outcome).map(decision).map_err(js_error)
        })())
    }

    /// `poll` for `lib/operation.js`: the decision, or the `RetryplanError` for JS to throw.
    #[wasm_bindgen(js_name = _poll)]
    pub fn poll_either(&mut self, now_ms: f64) -> JsValue {
        either(self.poll_at(now_ms))
    }

    /// The caller gives up: the decision is `gave_up` with reason `cancelled`.
    pub fn cancel(&mut self, now_ms: &JsValue) -> Result<JsValue, JsValue> {
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
    pub fn remaining_budget_ms(&self, now_ms: &JsValue) -> Result<f64, JsValue> {
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
        String::from(self.0.idempotency_key().as_str())
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
    pub fn request_id(&self, attempt: &JsValue) -> Result<String, JsValue> {
        Ok(hex16(self.0.request_id(attempt_number(number("attempt", attempt)?)?).0))
    }

    /// True once an ending was returned.
    #[wasm_bindgen(getter, js_name = isEnded)]
    pub fn is_ended(&self) -> bool {
        self.0.is_ended()
    }
}

/// A request id as the core's `Display` spells it: 16 lowercase hex digits
/// (without the formatter: the wasm carries no formatting code).
fn hex16(id: u64) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    (0..16)
        .rev()
        .map(|nibble| char::from(DIGITS.get(((id >> (nibble * 4)) & 0xF) as usize).copied().unwrap_or(b'0')))
        .collect()
}
