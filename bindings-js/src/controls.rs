//! The shared controls of a dependency, and each control on its own
//! (`lib/controls.js`).

use alloc::sync::Arc;

use retryplan as rp;
use wasm_bindgen::prelude::*;

#[cfg(feature = "config")]
use crate::data::config_value;
use crate::objects::{self, Control, Object};
use crate::policy::handle_js;
use crate::{compiled_error, either, js_error};

/// The dependency `handle` names, or the "freed" error.
pub(crate) fn dependency(handle: u32) -> Result<Arc<rp::Dependency>, JsValue> {
    objects::dependency(handle)?.ok_or_else(|| objects::freed("dependency"))
}

/// Reads a dependency configuration object (camelCase keys): its handle, or the `RetryplanError`.
#[cfg(feature = "config")]
#[wasm_bindgen(js_name = _dependencyFromConfig)]
pub fn dependency_from_config(config: &JsValue) -> JsValue {
    handle_js(config_value(config, rp::config::error::ConfigKind::Dependency).and_then(|value| keep_dependency(&value)))
}

/// New shared controls from a compiled dependency (`rp` bytes, written by
/// `DependencyConfig::to_compiled`): its handle, or the `RetryplanError` with
/// the core's code, as `_policyFromCompiled`.
#[wasm_bindgen(js_name = _dependencyFromCompiled)]
pub fn dependency_from_compiled(form: &[u8]) -> JsValue {
    handle_js(
        rp::Dependency::from_compiled(form)
            .map_err(compiled_error)
            .and_then(|dependency| objects::insert(Object::Dependency(dependency))),
    )
}

/// A dependency read from the core's data tree, kept.
#[cfg(feature = "config")]
pub(crate) fn keep_dependency(value: &rp::config::value::Value) -> Result<u32, JsValue> {
    keep_dependency_config(&rp::DependencyConfig::from_value(value).map_err(js_error)?)
}

/// A dependency made from its configuration, kept: its handle.
#[cfg(feature = "config")]
pub(crate) fn keep_dependency_config(config: &rp::DependencyConfig) -> Result<u32, JsValue> {
    objects::insert(Object::Dependency(rp::Dependency::new(config).map_err(js_error)?))
}

/// Another handle on the same shared controls.
#[wasm_bindgen(js_name = _dependencyShare)]
pub fn dependency_share(handle: u32) -> JsValue {
    handle_js(dependency(handle).and_then(|dependency| objects::insert(Object::Dependency(dependency))))
}

/// A handle on the dependency's control named `which` as its configuration
/// names it (`budget`, `breaker` or `retry_slots`), 0 when it has none.
#[wasm_bindgen(js_name = _dependencyControl)]
pub fn dependency_control(handle: u32, which: &str) -> JsValue {
    handle_js(dependency(handle).and_then(|dependency| {
        let object = match which {
            "budget" if dependency.budget().is_some() => Object::Budget(Control::Shared(dependency)),
            "breaker" if dependency.breaker().is_some() => Object::Breaker(Control::Shared(dependency)),
            "retry_slots" if dependency.retry_slots().is_some() => Object::Slots(Control::Shared(dependency)),
            _ => return Ok(0),
        };
        objects::insert(object)
    }))
}

/// Runs `use_control` on the control `handle` names: `pick` finds it in the
/// object (`name`, its kind, for the error of a stale or foreign handle),
/// `shared` in a dependency.
fn control<C, T>(
    handle: u32,
    name: &'static str,
    pick: fn(&Object) -> Option<&Control<C>>,
    shared: fn(&rp::Dependency) -> Option<&C>,
    use_control: impl FnOnce(&C) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    objects::with(handle, name, |object| use_control(pick(object).ok_or_else(|| objects::freed(name))?.get(shared)?))
}

/// Runs `use_budget` on the budget `handle` names.
fn budget<T>(handle: u32, use_budget: impl FnOnce(&rp::RetryBudget) -> Result<T, JsValue>) -> Result<T, JsValue> {
    let pick: fn(&Object) -> Option<&Control<_>> =
        |object| if let Object::Budget(control) = object { Some(control) } else { None };
    control(handle, "budget", pick, rp::Dependency::budget, use_budget)
}

/// Reads a budget configuration object (reading errors name the budget and
/// the path from it, `kind`, as the core reads one): its handle, or the `RetryplanError`.
#[cfg(feature = "config")]
#[wasm_bindgen(js_name = _budgetNew)]
pub fn budget_new(config: &JsValue) -> JsValue {
    handle_js(config_value(config, rp::config::error::ConfigKind::Budget).and_then(|value| {
        let budget =
            rp::controls::budget::BudgetConfig::from_value(&value).and_then(|config| rp::RetryBudget::new(&config));
        objects::insert(Object::Budget(Control::Own(budget.map_err(js_error)?)))
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
        charge.map_or(Ok(0), |charge| {
            objects::insert(Object::Charge(charge.cost(), rp::config::grant::GrantCell::new(charge)))
        })
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
fn take<T: rp::config::grant::Grant>(
    handle: u32,
    cell: impl FnOnce(&Object) -> Option<&rp::config::grant::GrantCell<T>>,
) -> Result<T, JsValue> {
    objects::with(handle, T::ARGUMENT, |object| {
        cell(object).ok_or_else(|| objects::freed(T::ARGUMENT))?.take().map_err(js_error)
    })
}

/// The charge `handle` names, taken; none for handle 0 (a first attempt).
fn take_charge(handle: u32) -> Result<Option<rp::controls::budget::RetryCharge>, JsValue> {
    if handle == 0 {
        return Ok(None);
    }
    take(handle, |object| match object {
        Object::Charge(_, cell) => Some(cell),
        _ => None,
    })
    .map(Some)
}

/// Settles a charge with the attempt's result: a success (`succeeded`
/// true), a retryable failure (false), or a spend (absent); `charge` is the
/// handle of what `tryRetry` granted for the attempt (refunded on a success,
/// spent otherwise), 0 for a first attempt (never for a spend). The budget is
/// checked before the charge is taken: a charge handed to a freed budget
/// stays unsettled, for a live handle to settle.
#[wasm_bindgen(js_name = _budgetSettle)]
pub fn budget_settle(handle: u32, now_ms: f64, charge: u32, succeeded: Option<bool>) -> JsValue {
    either(budget(handle, |_| Ok(())).and_then(|()| take_charge(charge)).and_then(|charge| {
        budget(handle, |budget| {
            let settled = match (succeeded, charge) {
                (Some(true), charge) => budget.on_success(now_ms as u64, charge),
                (Some(false), charge) => budget.on_failure(now_ms as u64, charge),
                (None, Some(charge)) => budget.spend(charge),
                (None, None) => return Err(crate::invalid("charge", "required")),
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
    let pick: fn(&Object) -> Option<&Control<_>> =
        |object| if let Object::Breaker(control) = object { Some(control) } else { None };
    control(handle, "breaker", pick, rp::Dependency::breaker, use_breaker)
}

/// Reads a breaker configuration object (reading errors name the breaker and
/// the path from it, `trip.kind`): its handle, or the `RetryplanError`.
#[cfg(feature = "config")]
#[wasm_bindgen(js_name = _breakerNew)]
pub fn breaker_new(config: &JsValue) -> JsValue {
    handle_js(config_value(config, rp::config::error::ConfigKind::Breaker).and_then(|value| {
        let breaker = rp::controls::breaker::BreakerConfig::from_value(&value)
            .and_then(|config| rp::CircuitBreaker::new(&config));
        objects::insert(Object::Breaker(Control::Own(breaker.map_err(js_error)?)))
    }))
}

/// Asks to send an attempt at `nowMs`: a permit's handle (0 when refused), or the `RetryplanError`.
#[wasm_bindgen(js_name = _breakerTryAcquire)]
pub fn breaker_try_acquire(handle: u32, now_ms: f64) -> JsValue {
    let granted = breaker(handle, |breaker| Ok(breaker.try_acquire(now_ms as u64)));
    handle_js(granted.and_then(|permit| {
        permit.map_or(Ok(0), |permit| {
            objects::insert(Object::Permit(permit.is_probe(), rp::config::grant::GrantCell::new(permit)))
        })
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

/// Hands a permit back (once) with the attempt's result: a success
/// (`succeeded` true), a retryable failure (false), or none (absent: a
/// release). The breaker is checked before the permit is taken (a permit
/// handed to a freed breaker stays unsettled).
#[wasm_bindgen(js_name = _breakerSettle)]
pub fn breaker_settle(handle: u32, now_ms: f64, permit_handle: u32, succeeded: Option<bool>) -> JsValue {
    let permit = breaker(handle, |_| Ok(())).and_then(|()| {
        take(permit_handle, |object| match object {
            Object::Permit(_, cell) => Some(cell),
            _ => None,
        })
    });
    either(permit.and_then(|permit| {
        breaker(handle, |breaker| {
            let settled = match succeeded {
                Some(true) => breaker.on_success(now_ms as u64, permit),
                Some(false) => breaker.on_failure(now_ms as u64, permit),
                None => breaker.release(permit),
            };
            settled.map(|()| JsValue::UNDEFINED).map_err(js_error)
        })
    }))
}

/// Runs `use_slots` on the retry slots `handle` names.
fn slots<T>(handle: u32, use_slots: impl FnOnce(&rp::RetrySlots) -> Result<T, JsValue>) -> Result<T, JsValue> {
    let pick: fn(&Object) -> Option<&Control<_>> =
        |object| if let Object::Slots(control) = object { Some(control) } else { None };
    control(handle, "retrySlots", pick, rp::Dependency::retry_slots, use_slots)
}

/// `capacity` retry slots: their handle.
#[wasm_bindgen(js_name = _slotsNew)]
pub fn slots_new(capacity: u32) -> JsValue {
    handle_js(objects::insert(Object::Slots(Control::Own(rp::RetrySlots::new(capacity)))))
}

/// Takes a slot (`slot` absent): the handle of its `RetrySlot`, 0 when all
/// are taken; or gives back the slot `slot` names (once, to the slots that
/// granted it: they are checked before the slot is taken): 0.
#[wasm_bindgen(js_name = _slotsTake)]
pub fn slots_take(handle: u32, slot: Option<u32>) -> Result<u32, JsValue> {
    let Some(slot) = slot else {
        return slots(handle, |slots| Ok(slots.try_acquire()))?
            .map_or(Ok(0), |slot| objects::insert(Object::Slot(rp::config::grant::GrantCell::new(slot))));
    };
    slots(handle, |_| Ok(()))?;
    let slot = take(slot, |object| match object {
        Object::Slot(cell) => Some(cell),
        _ => None,
    })?;
    slots(handle, |slots| slots.release(slot).map(|()| 0).map_err(js_error))
}

/// `[inUse, capacity]` as numbers (`crate::wire::numbers`), or the `RetryplanError`.
#[wasm_bindgen(js_name = _slotsState)]
pub fn slots_state(handle: u32) -> JsValue {
    either(slots(handle, |slots| Ok(crate::wire::numbers(&[f64::from(slots.in_use()), f64::from(slots.capacity())]))))
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
