//! The shared controls of a dependency, and each control on its own
//! (`lib/controls.js`).

use alloc::sync::Arc;

use retryplan as rp;
use wasm_bindgen::prelude::*;

use crate::decisions::config_value;
use crate::objects::{self, Control, Object};
use crate::policy::handle_js;
use crate::{either, js_error};

// The codes `lib/controls.js` passes, from `lib/tags.js` (test/tags.test.mjs
// checks that both say the same).
/// A dependency's controls: the budget, the breaker, the cap (also the bit of each in `_dependencyControls`).
const CONTROL_BUDGET: u32 = 0;
const CONTROL_BREAKER: u32 = 1;
const CONTROL_SLOTS: u32 = 2;
/// How a grant is settled: with a success, a failure, or without a result.
const SETTLE_SUCCESS: u32 = 0;
const SETTLE_FAILURE: u32 = 1;
#[allow(dead_code)] // the last arm of the breaker's match (`_`): named for test/tags.test.mjs
const SETTLE_RELEASE: u32 = 2;
#[allow(dead_code)] // the last arm of the budget's match (`_`): named for test/tags.test.mjs
const SETTLE_SPEND: u32 = 3;
/// The calls of `_slotsCall`.
const SLOTS_RELEASE: u32 = 0;
const SLOTS_ACQUIRE: u32 = 1;
const SLOTS_IN_USE: u32 = 2;
#[allow(dead_code)] // the last arm of its match (`_`): named for test/tags.test.mjs
const SLOTS_CAPACITY: u32 = 3;

/// The dependency `handle` names, or the "freed" error.
pub(crate) fn dependency(handle: u32) -> Result<Arc<rp::Dependency>, JsValue> {
    objects::dependency(handle)?.ok_or_else(|| objects::freed("dependency"))
}

/// Reads a dependency configuration object (camelCase keys): its handle, or the `RetryplanError`.
#[wasm_bindgen(js_name = _dependencyFromConfig)]
pub fn dependency_from_config(config: &JsValue) -> JsValue {
    handle_js(config_value(config, rp::ConfigKind::Dependency).and_then(|value| keep_dependency(&value)))
}

/// A dependency read from the core's data tree, kept.
pub(crate) fn keep_dependency(value: &rp::value::Value) -> Result<u32, JsValue> {
    let dependency =
        rp::DependencyConfig::from_value(value).and_then(|config| rp::Dependency::new(&config)).map_err(js_error)?;
    objects::insert(Object::Dependency(dependency))
}

/// Another handle on the same shared controls.
#[wasm_bindgen(js_name = _dependencyShare)]
pub fn dependency_share(handle: u32) -> JsValue {
    handle_js(dependency(handle).and_then(|dependency| objects::insert(Object::Dependency(dependency))))
}

/// Which controls the dependency has: bit `CONTROL_*` set for each.
#[wasm_bindgen(js_name = _dependencyControls)]
pub fn dependency_controls(handle: u32) -> Result<u32, JsValue> {
    let dependency = dependency(handle)?;
    Ok(u32::from(dependency.budget().is_some()) << CONTROL_BUDGET
        | u32::from(dependency.breaker().is_some()) << CONTROL_BREAKER
        | u32::from(dependency.retry_slots().is_some()) << CONTROL_SLOTS)
}

/// A handle on control `which` of the dependency (`CONTROL_*`).
#[wasm_bindgen(js_name = _dependencyControl)]
pub fn dependency_control(handle: u32, which: u32) -> JsValue {
    handle_js(dependency(handle).and_then(|dependency| {
        objects::insert(match which {
            CONTROL_BUDGET => Object::Budget(Control::Shared(dependency)),
            CONTROL_BREAKER => Object::Breaker(Control::Shared(dependency)),
            _ => Object::Slots(Control::Shared(dependency)),
        })
    }))
}

/// Runs `use_budget` on the budget `handle` names.
fn budget<T>(handle: u32, use_budget: impl FnOnce(&rp::RetryBudget) -> Result<T, JsValue>) -> Result<T, JsValue> {
    objects::with(handle, "budget", |object| match object {
        Object::Budget(control) => use_budget(control.get(rp::Dependency::budget)?),
        _ => Err(objects::freed("budget")),
    })
}

/// Reads a budget configuration object (reading errors name the budget and
/// the path from it, `kind`, as the core reads one):
/// its handle, or the `RetryplanError`.
#[wasm_bindgen(js_name = _budgetNew)]
pub fn budget_new(config: &JsValue) -> JsValue {
    handle_js(config_value(config, rp::ConfigKind::Budget).and_then(|value| {
        let config = rp::BudgetConfig::from_value(&value).map_err(js_error)?;
        let budget = rp::RetryBudget::new(&config).map_err(js_error)?;
        objects::insert(Object::Budget(Control::Own(budget)))
    }))
}

/// Counts an original request (a first attempt) dispatched at `nowMs`.
#[wasm_bindgen(js_name = _budgetOnRequest)]
pub fn budget_on_request(handle: u32, now_ms: f64) -> JsValue {
    either(budget(handle, |budget| {
        budget.on_request(now_ms as u64);
        Ok(JsValue::UNDEFINED)
    }))
}

/// Asks to dispatch a retry: the handle of its charge (a `RetryCharge`), 0
/// when refused, or the `RetryplanError`.
#[wasm_bindgen(js_name = _budgetTryRetry)]
pub fn budget_try_retry(handle: u32, now_ms: f64, after_timeout: bool) -> JsValue {
    let granted = budget(handle, |budget| Ok(budget.try_retry(now_ms as u64, after_timeout)));
    handle_js(granted.and_then(|charge| {
        charge.map_or(Ok(0), |charge| objects::insert(Object::Charge(charge.cost(), rp::GrantCell::new(charge))))
    }))
}

/// The units a charge cost (quota model; 0 for the others).
#[wasm_bindgen(js_name = _chargeCost)]
pub fn charge_cost(handle: u32) -> Result<u32, JsValue> {
    objects::with(handle, "charge", |object| match object {
        Object::Charge(cost, _) => Ok(*cost),
        _ => Err(objects::freed("charge")),
    })
}

/// The grant `handle` names (a `kind` object), taken: a second take is the
/// core's `invalid_argument` naming the grant, a freed or foreign handle
/// `invalid_argument` too.
fn take<T: rp::grant::Grant>(
    handle: u32,
    cell: impl FnOnce(&Object) -> Option<&rp::GrantCell<T>>,
) -> Result<T, JsValue> {
    objects::with(handle, T::ARGUMENT, |object| {
        cell(object).ok_or_else(|| objects::freed(T::ARGUMENT))?.take().map_err(js_error)
    })
}

/// The charge `handle` names, taken; none for handle 0 (a first attempt).
fn take_charge(handle: u32) -> Result<Option<rp::RetryCharge>, JsValue> {
    if handle == 0 {
        return Ok(None);
    }
    take(handle, |object| match object {
        Object::Charge(_, cell) => Some(cell),
        _ => None,
    })
    .map(Some)
}

/// Records a success (`SETTLE_SUCCESS`), a retryable failure
/// (`SETTLE_FAILURE`) or a spend (`SETTLE_SPEND`); `charge` is the handle of
/// what `tryRetry` granted for the attempt (refunded on a success, spent
/// otherwise), 0 for a first attempt (never for a spend). The budget is
/// checked before the charge is taken: a charge handed to a freed budget
/// stays unsettled, for a live handle to settle.
#[wasm_bindgen(js_name = _budgetSettle)]
pub fn budget_settle(handle: u32, now_ms: f64, charge: u32, how: u32) -> JsValue {
    either(budget(handle, |_| Ok(())).and_then(|()| take_charge(charge)).and_then(|charge| {
        budget(handle, |budget| {
            let settled = match (how, charge) {
                (SETTLE_SUCCESS, charge) => budget.on_success(now_ms as u64, charge),
                (SETTLE_FAILURE, charge) => budget.on_failure(now_ms as u64, charge),
                (_, Some(charge)) => budget.spend(charge),
                (_, None) => return Err(crate::invalid("charge", "required")),
            };
            settled.map(|()| JsValue::UNDEFINED).map_err(js_error)
        })
    }))
}

/// Takes `amount` units from a quota: true when taken, or the `RetryplanError`.
#[wasm_bindgen(js_name = _budgetAcquire)]
pub fn budget_acquire(handle: u32, amount: u32) -> JsValue {
    either(budget(handle, |budget| budget.acquire(amount).map(JsValue::from_bool).map_err(js_error)))
}

/// Gives `amount` units back to a quota.
#[wasm_bindgen(js_name = _budgetRelease)]
pub fn budget_release(handle: u32, amount: u32) -> JsValue {
    either(budget(handle, |budget| budget.release(amount).map(|()| JsValue::UNDEFINED).map_err(js_error)))
}

/// Runs `use_breaker` on the breaker `handle` names.
fn breaker<T>(handle: u32, use_breaker: impl FnOnce(&rp::CircuitBreaker) -> Result<T, JsValue>) -> Result<T, JsValue> {
    objects::with(handle, "breaker", |object| match object {
        Object::Breaker(control) => use_breaker(control.get(rp::Dependency::breaker)?),
        _ => Err(objects::freed("breaker")),
    })
}

/// Reads a breaker configuration object (reading errors name the breaker and
/// the path from it, `trip.kind`, as the core reads one):
/// its handle, or the `RetryplanError`.
#[wasm_bindgen(js_name = _breakerNew)]
pub fn breaker_new(config: &JsValue) -> JsValue {
    handle_js(config_value(config, rp::ConfigKind::Breaker).and_then(|value| {
        let config = rp::BreakerConfig::from_value(&value).map_err(js_error)?;
        let breaker = rp::CircuitBreaker::new(&config).map_err(js_error)?;
        objects::insert(Object::Breaker(Control::Own(breaker)))
    }))
}

/// Asks to send an attempt at `nowMs`: a permit's handle (0 when refused), or the `RetryplanError`.
#[wasm_bindgen(js_name = _breakerTryAcquire)]
pub fn breaker_try_acquire(handle: u32, now_ms: f64) -> JsValue {
    let granted = breaker(handle, |breaker| Ok(breaker.try_acquire(now_ms as u64)));
    handle_js(granted.and_then(|permit| {
        permit.map_or(Ok(0), |permit| objects::insert(Object::Permit(permit.is_probe(), rp::GrantCell::new(permit))))
    }))
}

/// True when the permit is a half-open probe.
#[wasm_bindgen(js_name = _permitProbe)]
pub fn permit_probe(handle: u32) -> Result<bool, JsValue> {
    objects::with(handle, "permit", |object| match object {
        Object::Permit(probe, _) => Ok(*probe),
        _ => Err(objects::freed("permit")),
    })
}

/// Hands a permit back (once), as `how` says (`SETTLE_*`). The breaker is
/// checked before the permit is taken (a permit handed to a freed breaker
/// stays unsettled).
#[wasm_bindgen(js_name = _breakerSettle)]
pub fn breaker_settle(handle: u32, now_ms: f64, permit_handle: u32, how: u32) -> JsValue {
    let permit = breaker(handle, |_| Ok(())).and_then(|()| {
        take(permit_handle, |object| match object {
            Object::Permit(_, cell) => Some(cell),
            _ => None,
        })
    });
    either(permit.and_then(|permit| {
        breaker(handle, |breaker| {
            let settled = match how {
                SETTLE_SUCCESS => breaker.on_success(now_ms as u64, permit),
                SETTLE_FAILURE => breaker.on_failure(now_ms as u64, permit),
                _ => breaker.release(permit),
            };
            settled.map(|()| JsValue::UNDEFINED).map_err(js_error)
        })
    }))
}

/// Runs `use_slots` on the retry slots `handle` names.
fn slots<T>(handle: u32, use_slots: impl FnOnce(&rp::RetrySlots) -> Result<T, JsValue>) -> Result<T, JsValue> {
    objects::with(handle, "retrySlots", |object| match object {
        Object::Slots(control) => use_slots(control.get(rp::Dependency::retry_slots)?),
        _ => Err(objects::freed("retrySlots")),
    })
}

/// `capacity` retry slots: their handle.
#[wasm_bindgen(js_name = _slotsNew)]
pub fn slots_new(capacity: u32) -> JsValue {
    handle_js(objects::insert(Object::Slots(Control::Own(rp::RetrySlots::new(capacity)))))
}

/// Takes a slot (`SLOTS_ACQUIRE`): the handle of its `RetrySlot`, 0 when all
/// are taken; gives back the slot `slot` names (`SLOTS_RELEASE`, once, to
/// the slots that granted it: they are checked before the slot is taken);
/// or reads `inUse` or `capacity`.
#[wasm_bindgen(js_name = _slotsCall)]
pub fn slots_call(handle: u32, call: u32, slot: u32) -> Result<u32, JsValue> {
    match call {
        SLOTS_RELEASE => {
            slots(handle, |_| Ok(()))?;
            let slot = take(slot, |object| match object {
                Object::Slot(cell) => Some(cell),
                _ => None,
            })?;
            slots(handle, |slots| slots.release(slot).map(|()| 0).map_err(js_error))
        }
        SLOTS_ACQUIRE => slots(handle, |slots| Ok(slots.try_acquire()))?
            .map_or(Ok(0), |slot| objects::insert(Object::Slot(rp::GrantCell::new(slot)))),
        SLOTS_IN_USE => slots(handle, |slots| Ok(slots.in_use())),
        _ => slots(handle, |slots| Ok(slots.capacity())),
    }
}

/// The grants of a budget (charges) or a breaker (permits) still out.
#[wasm_bindgen(js_name = _grantsOutstanding)]
pub fn grants_outstanding(handle: u32) -> Result<u32, JsValue> {
    objects::with(handle, "control", |object| {
        let count = match object {
            Object::Budget(control) => control.get(rp::Dependency::budget)?.charges_outstanding(),
            Object::Breaker(control) => control.get(rp::Dependency::breaker)?.permits_outstanding(),
            _ => return Err(objects::freed("control")),
        };
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    })
}
