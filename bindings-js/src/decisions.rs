//! Core values as plain JS objects and back: decisions (through the factories
//! of `lib/convert.js`, one call each, no serde on the hot path), attempt
//! sets, anything serializable (through the core's data tree), and
//! configurations read from JS objects or JSON text.

use js_sys::Array;
use retryplan as rp;
use rp::{AttemptSet, Decision, Error};
use wasm_bindgen::JsValue;

use crate::args::{checked_string, get, named, optional_number, string_field, whole_number};
use crate::data::{self, Keys, Source};
use crate::{
    invalid, js_attempt_list, js_await_outcome, js_error, js_gave_up, js_reconcile, js_restart, js_start_attempt,
    js_succeeded, js_wait, num, parse_json, MAX_SAFE, START_DECISION,
};

/// A core decision as a plain JS object (one factory call, no serde on this path).
pub(crate) fn decision(decision: Decision) -> JsValue {
    match decision {
        Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_budget_ms, hedge } => {
            // The id's two 32-bit halves: JS spells them as the core's 16 hex digits
            // (cheaper than decoding a string; the vectors pin the spelling).
            let (high, low) = ((request_id.0 >> 32) as u32, request_id.0 as u32);
            let remaining = num(remaining_budget_ms);
            js_start_attempt(
                START_DECISION,
                attempt,
                num(timeout_ms),
                num(abort_at_ms),
                high,
                low,
                remaining,
                hedge,
                false,
            )
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

/// A JS array of attempt numbers (1..=128) as an `AttemptSet`; absent means empty.
fn attempt_set(value: &JsValue, key: &'static str) -> Result<AttemptSet, JsValue> {
    let mut set = AttemptSet::EMPTY;
    if value.is_undefined() || value.is_null() {
        return Ok(set);
    }
    if !Array::is_array(value) {
        return Err(invalid(key, "must be an array of attempt numbers".to_owned()));
    }
    let items = Array::from(value);
    if items.length() > 128 {
        return Err(invalid(key, "holds at most 128 attempt numbers".to_owned()));
    }
    for item in items.iter() {
        let attempt = item.as_f64().ok_or_else(|| invalid(key, "must hold numbers".to_owned()))?;
        let attempt = whole_number(key, attempt, 128.0)?;
        if attempt == 0 {
            return Err(invalid(key, "attempt numbers are 1..=128".to_owned()));
        }
        set.insert(attempt as u32);
    }
    Ok(set)
}

/// A decision object (as returned by an operation) back to the core's `Decision`.
pub(crate) fn decision_from_js(value: &JsValue) -> Result<Decision, JsValue> {
    let number = |key: &'static str| -> Result<u64, JsValue> {
        let found = optional_number(value, key)?.ok_or_else(|| invalid(key, "is required".to_owned()))?;
        whole_number(key, found, MAX_SAFE)
    };
    let count = |key: &'static str| -> Result<u32, JsValue> {
        u32::try_from(number(key)?).map_err(|_| invalid(key, "must fit in 32 bits".to_owned()))
    };
    let optional = |key: &'static str| -> Result<Option<u64>, JsValue> {
        optional_number(value, key)?.map(|found| whole_number(key, found, MAX_SAFE)).transpose()
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
pub(crate) fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    rp::value::Value::from_serialize(value).map(|tree| data::to_js(&tree, Keys::Camel)).map_err(js_error)
}

/// A configuration argument (a plain object, camelCase keys) as the core's data
/// tree; anything else is refused by the core's reader, as in JSON.
pub(crate) fn config_value(config: &JsValue) -> Result<rp::value::Value, JsValue> {
    data::from_js(config, Source::Camel).map_err(js_error)
}

/// JSON text in the shared snake_case schema as the core's data tree. The
/// host parses it (`parseJson` in `lib/convert.js`, over `JSON.parse`),
/// keeping a key the text repeats so that the core's reader refuses it, as it
/// does in every other language; a syntax error is `invalid_policy_json` at
/// the top level.
pub(crate) fn json_value(json: &JsValue) -> Result<rp::value::Value, JsValue> {
    let parsed = parse_json(checked_string("json", json)?).map_err(|syntax| {
        let message = js_sys::Reflect::get(&syntax, &JsValue::from_str("message"))
            .ok()
            .and_then(|message| message.as_string())
            .unwrap_or_else(|| "not JSON".to_owned());
        js_error(Error::InvalidPolicyJson { field: String::new(), message })
    })?;
    data::from_js(&parsed, Source::Json).map_err(js_error)
}
