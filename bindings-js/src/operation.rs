//! Operations (`lib/operation.js`): one logical operation, decision by
//! decision, and the options an operation (or a driver) starts from.

use alloc::string::String;

use retryplan as rp;
use wasm_bindgen::prelude::*;

use crate::args::outcome_of;
use crate::objects::{self, Object};
use crate::wire::{decision as decision_js, numbers};
use crate::{either, js_error, num};

/// The options every operation starts from, as `lib/operation.js` checked
/// them: the seed (`seeded`), the caller's key and deadline, the dependency's
/// handle (0 for none), and six words from `crypto.getRandomValues` that seed
/// the operation and make its key when it has no seed (drawn in batches by
/// `lib/entropy.js`: cheaper than a call per operation).
pub(crate) struct Options {
    pub(crate) seed: Option<f64>,
    pub(crate) key: Option<String>,
    pub(crate) deadline_ms: Option<f64>,
    pub(crate) dependency: u32,
    pub(crate) random: [u32; 6],
}

impl Options {
    /// Inlined into its one caller (`_driverNew`): the options are then built
    /// in place, not returned and moved (each move a `memory.copy`).
    #[inline]
    pub(crate) fn core(self) -> Result<rp::OperationOptions, JsValue> {
        let mut options = match self.seed {
            Some(seed) => rp::OperationOptions::new(seed as u64),
            None => {
                let [s0, s1, k0, k1, k2, k3] = self.random.map(u64::from);
                let key = u128::from(k0 << 32 | k1) << 64 | u128::from(k2 << 32 | k3);
                rp::OperationOptions::from_random(s0 << 32 | s1, key)
            }
        };
        if let Some(key) = self.key {
            // Refused under the option's JS name, as every other option is (the core names its own argument).
            let key = rp::IdempotencyKey::new(key).map_err(|error| match error {
                rp::Error::InvalidArgument { rule, .. } => {
                    js_error(rp::Error::InvalidArgument { field: "idempotencyKey", rule })
                }
                other => js_error(other),
            })?;
            options = options.with_idempotency_key(key);
        }
        if let Some(deadline) = self.deadline_ms {
            options = options.with_deadline_ms(deadline as u64);
        }
        #[cfg(feature = "controls")]
        if let Some(dependency) = objects::dependency(self.dependency)? {
            options = options.with_dependency(dependency);
        }
        // Without the controls (the lean browser runtime) no dependency exists:
        // any handle but 0 names none.
        #[cfg(not(feature = "controls"))]
        if self.dependency != 0 {
            return Err(objects::freed("dependency"));
        }
        Ok(options)
    }
}

/// Runs `use_operation` on the operation `handle` names.
fn with<T>(handle: u32, use_operation: impl FnOnce(&mut rp::Operation) -> Result<T, JsValue>) -> Result<T, JsValue> {
    objects::with(handle, "operation", |object| match object {
        Object::Operation(operation) => use_operation(operation),
        _ => Err(objects::freed("operation")),
    })
}

/// Runs `read` on the operation `handle` runs, a `Driver`'s (`of_driver`,
/// which a stale handle's error names) or an `Operation`, with whether it
/// has ended (a driver's once its finish is out).
fn read<T>(handle: u32, of_driver: bool, read: impl FnOnce(&rp::Operation, bool) -> T) -> Result<T, JsValue> {
    let name = if of_driver { "driver" } else { "operation" };
    objects::with(handle, name, |object| match object {
        Object::Operation(operation) if !of_driver => Ok(read(operation, operation.is_ended())),
        Object::Driver(driver) if of_driver => Ok(read(driver.operation(), driver.is_ended())),
        _ => Err(objects::freed(name)),
    })
}

/// What to do now (`poll`), or with `cancel` the caller giving up (`gave_up`
/// with reason `cancelled`): `undefined`, its decision record stored (spelt
/// by `lib/records.js`), or the `RetryplanError`.
#[wasm_bindgen(js_name = _operationPoll)]
pub fn operation_poll(handle: u32, now_ms: f64, cancel: bool) -> JsValue {
    let now = now_ms as u64;
    either(
        with(handle, |operation| if cancel { operation.cancel(now) } else { operation.poll(now) }.map_err(js_error))
            .map(|decision| decision_js(&decision)),
    )
}

/// How attempt `attempt` ended, in the core's wire words (`outcome_kind`,
/// `outcome_code`, `outcome_retry_after_ms`) and an `http_status`'s error code,
/// as `lib/outcomes.js` read the outcome object (see `args::outcome_of`):
/// the next decision stored (as `_operationPoll`), or the `RetryplanError`.
#[wasm_bindgen(js_name = _operationOutcome)]
pub fn operation_outcome(
    handle: u32,
    now_ms: f64,
    attempt: u32,
    kind: f64,
    code: f64,
    delay: f64,
    error_code: Option<String>,
) -> JsValue {
    let decided = outcome_of(kind, code, delay, error_code.as_deref()).and_then(|outcome| {
        with(handle, |operation| operation.on_outcome(now_ms as u64, attempt, &outcome).map_err(js_error))
    });
    either(decided.map(|decision| decision_js(&decision)))
}

/// Time left at `nowMs` after the response reserve.
#[wasm_bindgen(js_name = _operationRemaining)]
pub fn operation_remaining(handle: u32, now_ms: f64) -> Result<f64, JsValue> {
    with(handle, |operation| Ok(num(operation.remaining_ms(now_ms as u64))))
}

/// `[nextWakeupMs (-1 once ended), deadlineMs, attemptsStarted, startedAtMs,
/// isEnded as 0 or 1]` of an `Operation`, or with `of_driver` a `Driver`,
/// as numbers (`crate::wire::numbers`), or the `RetryplanError`.
#[wasm_bindgen(js_name = _operationState)]
pub fn operation_state(handle: u32, of_driver: bool) -> JsValue {
    either(read(handle, of_driver, |operation, ended| {
        numbers(&[
            operation.next_wakeup_ms().map_or(-1.0, num),
            num(operation.deadline_ms()),
            f64::from(operation.attempts_started()),
            num(operation.started_at_ms()),
            f64::from(u8::from(ended)),
        ])
    }))
}

/// The idempotency key (the same on every attempt) of an `Operation`, or
/// with `of_driver` a `Driver`, copied where `_wireMemory` says: its length in bytes, or -1
/// when refused (`_wireRefusal` has the error).
#[wasm_bindgen(js_name = _operationKey)]
pub fn operation_key(handle: u32, of_driver: bool) -> i32 {
    read(handle, of_driver, |operation, _| crate::wire::copy_key(operation.idempotency_key())).unwrap_or_else(|error| {
        crate::wire::refuse(error);
        -1
    })
}

/// The attempts running now as four 32-bit words (bit 0 of the first =
/// attempt 1, as a decision record's `aborts_*`), as numbers, or the `RetryplanError`.
#[wasm_bindgen(js_name = _operationRunning)]
pub fn operation_running(handle: u32) -> JsValue {
    either(with(handle, |operation| Ok(numbers(&operation.running_attempts().words().map(f64::from)))))
}

/// The request id attempt `attempt` gets, as its two 32-bit halves (JS
/// spells them as the core's 16 hex digits), as numbers, or the `RetryplanError`.
#[wasm_bindgen(js_name = _operationRequestId)]
pub fn operation_request_id(handle: u32, attempt: u32) -> JsValue {
    either(with(handle, |operation| {
        let id = operation.request_id(attempt).0;
        Ok(numbers(&[f64::from((id >> 32) as u32), f64::from(id as u32)]))
    }))
}
