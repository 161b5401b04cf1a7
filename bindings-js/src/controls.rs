//! The shared controls of a dependency, and each control on its own.

use alloc::sync::Arc;

use retryplan as rp;
use wasm_bindgen::prelude::*;

use crate::args::{ms, optional_flag, optional_number, whole, whole_number};
use crate::decisions::config_value;
#[cfg(feature = "tools")]
use crate::tools::{json_value, to_js};
use crate::{invalid, js_charge, js_error};

/// The shared controls of one downstream dependency: an optional retry budget,
/// circuit breaker and cap on in-flight retries and hedges. Give it to every
/// operation that calls the dependency (`new Operation(policy, now, {dependency})`).
#[wasm_bindgen]
pub struct Dependency(pub(crate) Arc<rp::Dependency>);

#[wasm_bindgen]
impl Dependency {
    /// Validates a configuration object (camelCase keys); errors and field paths match `fromJson`.
    #[wasm_bindgen(js_name = fromConfig)]
    pub fn from_config(config: &JsValue) -> Result<Dependency, JsValue> {
        Dependency::read(&config_value(config)?)
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
        self.0.retry_slots().map(|_| ConcurrencyLimit(Control::Shared(Arc::clone(&self.0))))
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
            Control::Shared(dependency) => pick(dependency).ok_or_else(|| invalid("control", "control")),
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
    pub fn on_request(&self, now_ms: &JsValue) -> Result<(), JsValue> {
        self.budget()?.on_request(ms("nowMs", now_ms)?);
        Ok(())
    }

    /// Asks to dispatch a retry (or hedge) now: `{cost}` when granted, `undefined` when refused.
    /// `afterTimeout`: the failure being retried was a timeout (a quota charges more).
    #[wasm_bindgen(js_name = tryRetry)]
    pub fn try_retry(&self, now_ms: &JsValue, after_timeout: &JsValue) -> Result<JsValue, JsValue> {
        let now = ms("nowMs", now_ms)?;
        let after_timeout = optional_flag("afterTimeout", after_timeout)?.unwrap_or(false);
        let charge = self.budget()?.try_retry(now, after_timeout);
        Ok(charge.map_or(JsValue::UNDEFINED, |charge| js_charge(charge.cost)))
    }

    /// Records a success; `charge` is what `tryRetry` granted for this attempt
    /// (`{cost}` or its cost as a number), absent for a first attempt.
    #[wasm_bindgen(js_name = onSuccess)]
    pub fn on_success(&self, now_ms: &JsValue, charge: &JsValue) -> Result<(), JsValue> {
        let now = ms("nowMs", now_ms)?;
        let cost = if charge.is_undefined() || charge.is_null() {
            None
        } else if let Some(cost) = charge.as_f64() {
            Some(cost)
        } else {
            Some(optional_number(charge, "cost")?.ok_or_else(|| invalid("cost", "required"))?)
        };
        let charge = cost.map(|cost| {
            whole_number("charge", cost, f64::from(u32::MAX)).map(|cost| rp::RetryCharge { cost: cost as u32 })
        });
        self.budget()?.on_success(now, charge.transpose()?);
        Ok(())
    }

    /// Records a retryable failure.
    #[wasm_bindgen(js_name = onFailure)]
    pub fn on_failure(&self, now_ms: &JsValue) -> Result<(), JsValue> {
        self.budget()?.on_failure(ms("nowMs", now_ms)?);
        Ok(())
    }

    /// Takes `amount` units from a quota (AWS `acquire`): true when taken,
    /// false when fewer are left (nothing is taken).
    pub fn acquire(&self, amount: &JsValue) -> Result<bool, JsValue> {
        let amount = whole("amount", amount, f64::from(u32::MAX))? as u32;
        self.budget()?.acquire(amount).map_err(js_error)
    }

    /// Gives `amount` units back to a quota, never above its capacity.
    pub fn release(&self, amount: &JsValue) -> Result<(), JsValue> {
        let amount = whole("amount", amount, f64::from(u32::MAX))? as u32;
        self.budget()?.release(amount).map_err(js_error)
    }
}

/// Admission granted by `CircuitBreaker#tryAcquire`; hand it back with the result.
#[wasm_bindgen]
pub struct BreakerPermit(rp::BreakerPermit);

#[wasm_bindgen]
impl BreakerPermit {
    /// True when the attempt is a half-open probe.
    #[wasm_bindgen(getter)]
    pub fn probe(&self) -> bool {
        self.0.probe
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
    pub fn try_acquire(&self, now_ms: &JsValue) -> Result<Option<BreakerPermit>, JsValue> {
        Ok(self.breaker()?.try_acquire(ms("nowMs", now_ms)?).map(BreakerPermit))
    }

    /// Records that the dependency answered (anything but a retryable failure).
    #[wasm_bindgen(js_name = onSuccess)]
    pub fn on_success(&self, now_ms: &JsValue, permit: &BreakerPermit) -> Result<(), JsValue> {
        self.breaker()?.on_success(ms("nowMs", now_ms)?, permit.0);
        Ok(())
    }

    /// Records a retryable failure.
    #[wasm_bindgen(js_name = onFailure)]
    pub fn on_failure(&self, now_ms: &JsValue, permit: &BreakerPermit) -> Result<(), JsValue> {
        self.breaker()?.on_failure(ms("nowMs", now_ms)?, permit.0);
        Ok(())
    }

    /// Gives a permit back without a result (the attempt was cancelled).
    pub fn release(&self, permit: &BreakerPermit) -> Result<(), JsValue> {
        self.breaker()?.release(permit.0);
        Ok(())
    }
}

/// A cap on the retries and hedges in flight to one dependency at once.
#[wasm_bindgen]
pub struct ConcurrencyLimit(Control<rp::ConcurrencyLimit>);

#[wasm_bindgen]
impl ConcurrencyLimit {
    /// A cap of `maxInFlight` (0 refuses every retry and hedge).
    #[wasm_bindgen(constructor)]
    pub fn new(max_in_flight: &JsValue) -> Result<ConcurrencyLimit, JsValue> {
        let max = whole("maxInFlight", max_in_flight, f64::from(u32::MAX))? as u32;
        Ok(ConcurrencyLimit(Control::Own(rp::ConcurrencyLimit::new(max))))
    }

    fn limit(&self) -> Result<&rp::ConcurrencyLimit, JsValue> {
        self.0.get(rp::Dependency::retry_slots)
    }

    /// Takes a slot; false when all are taken.
    #[wasm_bindgen(js_name = tryAcquire)]
    pub fn try_acquire(&self) -> Result<bool, JsValue> {
        Ok(self.limit()?.try_acquire())
    }

    /// Gives a slot back (never below zero).
    pub fn release(&self) -> Result<(), JsValue> {
        self.limit()?.release();
        Ok(())
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

/// The tools' part of the controls: JSON text and snapshots.
#[cfg(feature = "tools")]
#[wasm_bindgen]
impl Dependency {
    /// Reads and validates dependency JSON text (the shared snake_case schema).
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(json: &JsValue) -> Result<Dependency, JsValue> {
        Dependency::read(&json_value(json)?)
    }

    /// Every control's state at `nowMs`: `{budget, breaker, retriesInFlight}`, each `null` when absent.
    pub fn snapshot(&self, now_ms: &JsValue) -> Result<JsValue, JsValue> {
        to_js(&self.0.snapshot(ms("nowMs", now_ms)?))
    }
}

#[cfg(feature = "tools")]
#[wasm_bindgen]
impl RetryBudget {
    /// The state at `nowMs`, for metrics.
    pub fn snapshot(&self, now_ms: &JsValue) -> Result<JsValue, JsValue> {
        to_js(&self.budget()?.snapshot(ms("nowMs", now_ms)?))
    }
}

#[cfg(feature = "tools")]
#[wasm_bindgen]
impl CircuitBreaker {
    /// The state at `nowMs`, for metrics.
    pub fn snapshot(&self, now_ms: &JsValue) -> Result<JsValue, JsValue> {
        to_js(&self.breaker()?.snapshot(ms("nowMs", now_ms)?))
    }
}
