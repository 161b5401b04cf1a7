//! Core values as plain JS objects: decisions (through the factories of
//! `lib/convert.js`, one call each, no serde), attempt sets, and
//! configurations read from JS objects.

use retryplan as rp;
use rp::{AttemptSet, Decision};
use wasm_bindgen::JsValue;

use crate::data::{self, Source};
use crate::{
    js_attempt_list, js_await_outcome, js_gave_up, js_reconcile, js_restart, js_start_attempt, js_succeeded, js_wait,
    num,
};

/// A core decision as a plain JS object (one factory call, no serde on this path).
pub(crate) fn decision(decision: Decision) -> JsValue {
    match decision {
        Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge } => {
            // The id's two 32-bit halves: JS spells them as the core's 16 hex digits
            // (cheaper than decoding a string; the vectors pin the spelling).
            let (high, low) = ((request_id.0 >> 32) as u32, request_id.0 as u32);
            let remaining = num(remaining_budget_ms);
            js_start_attempt(attempt, num(timeout_ms), num(abort_at_ms), high, low, remaining, hedge, None)
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
pub(crate) fn attempt_list(set: AttemptSet) -> JsValue {
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

/// A configuration argument (a plain object, camelCase keys) as the core's data
/// tree; anything else is refused by the core's reader, as in JSON, naming `kind`.
pub(crate) fn config_value(config: &JsValue, kind: rp::ConfigKind) -> Result<rp::value::Value, JsValue> {
    data::from_js(config, Source::Camel, kind)
}
