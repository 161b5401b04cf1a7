//! Core values as plain JS objects: decisions (through the factories of
//! `lib/convert.js`, one call each, no serde), attempt sets, and
//! configurations read from JS objects.

use retryplan as rp;
use rp::value::Named;
use rp::{AttemptSet, Decision, GiveUpReason};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::data::{self, Source};
use crate::{
    js_attempt_list, js_await_outcome, js_gave_up, js_reconcile, js_restart, js_start_attempt, js_succeeded, js_wait,
    message_js, num,
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

/// The words of a typed ending, the core's `Decision::ending_message`, as
/// message data for `lib/messages.js` to compose: `type` and `reason` are the
/// ending decision's names as `lib/convert.js` gave them, `attempts` its
/// count, `operation` how the helper names the operation, `key` its
/// idempotency key. Undefined for a decision that is not a typed ending.
#[wasm_bindgen(js_name = _endingMessage)]
pub fn ending_message(kind: &str, reason: &str, attempts: u32, operation: &str, key: &str) -> JsValue {
    let abort_attempts = AttemptSet::EMPTY;
    let decision = match kind {
        "gave_up" => match GiveUpReason::from_name(reason) {
            Some(reason) => {
                Decision::GaveUp { reason, attempts, remaining_budget_ms: 0, refused_delay_ms: None, abort_attempts }
            }
            None => return JsValue::UNDEFINED,
        },
        "reconcile" => Decision::Reconcile { attempts, remaining_budget_ms: 0, abort_attempts },
        "restart" => Decision::Restart { attempts, deadline_ms: 0, remaining_budget_ms: 0, abort_attempts },
        _ => return JsValue::UNDEFINED,
    };
    decision.ending_message(operation, key).map_or(JsValue::UNDEFINED, |message| message_js(&message))
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
