//! Shared controls, one per downstream dependency: retry budget, circuit
//! breaker, retry slots (`RetrySlots`), the
//! grants each hands out (`RetryCharge`, `BreakerPermit`, `RetrySlot`: single
//! use, owned by the control that issued them, as in the core), and the
//! `Dependency` that bundles the three for operations. All are
//! thread-safe in the core; these objects only convert. Configurations are
//! read by the core's reader, as policies are (see `policy.rs`): a negative
//! `openMs` is `invalid_config` at `breaker.open_ms`, as in JSON.

use std::sync::Arc;

use retryplan as rp;

use crate::config::{BreakerConfig, BudgetConfig, DependencyConfig};
use crate::policy::record_in;
use crate::records::{BreakerSnapshot, BudgetSnapshot, DependencySnapshot};
use crate::{count_out, ms_in, u32_in, Result};

/// What a granted retry cost; hand it back once, with `onSuccess` (refunded)
/// or `onFailure` (spent). Only `tryRetry` makes one; a second use throws.
#[derive(Debug, uniffi::Object)]
pub struct RetryCharge {
    cost: u32,
    cell: rp::GrantCell<rp::RetryCharge>,
}

#[uniffi::export]
impl RetryCharge {
    /// Units charged (quota model; 0 for the others).
    pub fn cost(&self) -> i32 {
        count_out(self.cost)
    }
}

/// The core charge kept in a `RetryCharge` argument (taken: a second use is refused).
fn charge_in(charge: Option<Arc<RetryCharge>>) -> Result<Option<rp::RetryCharge>> {
    Ok(charge.map(|charge| charge.cell.take()).transpose()?)
}

/// A control of its own, or one of a dependency's (`Dependency.budget()`, ...).
#[derive(Debug)]
enum Source<T> {
    Own(T),
    Dependency(Arc<rp::Dependency>, fn(&rp::Dependency) -> Option<&T>),
}

impl<T> Source<T> {
    /// The control, or `invalid_argument` naming it when the dependency has
    /// none (never: a handle is only made for a control that exists).
    fn get(&self, name: &'static str) -> Result<&T> {
        match self {
            Source::Own(control) => Ok(control),
            Source::Dependency(dependency, of) => {
                of(dependency).ok_or_else(|| crate::invalid(name, format!("the dependency has no {name}")))
            }
        }
    }
}

/// A retry budget shared by many operations and threads, on its own or a
/// dependency's (`Dependency.budget()`).
#[derive(Debug, uniffi::Object)]
pub struct RetryBudget(Source<rp::RetryBudget>);

impl RetryBudget {
    fn budget(&self) -> Result<&rp::RetryBudget> {
        self.0.get("budget")
    }
}

#[uniffi::export]
impl RetryBudget {
    /// Validates the configuration.
    #[uniffi::constructor]
    pub fn new(config: BudgetConfig) -> Result<Arc<RetryBudget>> {
        let config = rp::BudgetConfig::from_value(&record_in(&config)?)?;
        Ok(Arc::new(RetryBudget(Source::Own(rp::RetryBudget::new(&config)?))))
    }

    /// Takes `amount` units from a quota, as the AWS SDKs' raw `acquire`
    /// (for a host that mirrors botocore's own bookkeeping; a retry loop uses
    /// `tryRetry` and its charge): true when taken, false when fewer are
    /// left (nothing is taken).
    pub fn acquire(&self, amount: i32) -> Result<bool> {
        Ok(self.budget()?.acquire(u32_in("amount", amount)?)?)
    }

    /// Gives `amount` units back to a quota, never above its capacity (the
    /// AWS SDKs' raw `release`, as `acquire`).
    pub fn release(&self, amount: i32) -> Result<()> {
        Ok(self.budget()?.release(u32_in("amount", amount)?)?)
    }

    /// A first attempt was made.
    pub fn on_request(&self, now_ms: i64) -> Result<()> {
        self.budget()?.on_request(ms_in("now_ms", now_ms)?);
        Ok(())
    }

    /// May a retry go now? Null when the budget refuses.
    pub fn try_retry(&self, now_ms: i64, after_timeout: bool) -> Result<Option<Arc<RetryCharge>>> {
        let charge = self.budget()?.try_retry(ms_in("now_ms", now_ms)?, after_timeout);
        Ok(charge.map(|charge| Arc::new(RetryCharge { cost: charge.cost(), cell: rp::GrantCell::new(charge) })))
    }

    /// An attempt succeeded (with the charge of the retry that made it, if any).
    pub fn on_success(&self, now_ms: i64, charge: Option<Arc<RetryCharge>>) -> Result<()> {
        let now_ms = ms_in("now_ms", now_ms)?;
        Ok(self.budget()?.on_success(now_ms, charge_in(charge)?)?)
    }

    /// An attempt failed (with the charge of the retry that made it, if any: it stays spent).
    pub fn on_failure(&self, now_ms: i64, charge: Option<Arc<RetryCharge>>) -> Result<()> {
        let now_ms = ms_in("now_ms", now_ms)?;
        Ok(self.budget()?.on_failure(now_ms, charge_in(charge)?)?)
    }

    /// Settles a charge whose retry ended with neither a success nor a
    /// retryable failure (cancelled, aborted): its cost stays spent.
    pub fn spend(&self, charge: Arc<RetryCharge>) -> Result<()> {
        let budget = self.budget()?;
        Ok(budget.spend(charge.cell.take()?)?)
    }

    /// Charges granted and not yet settled.
    pub fn charges_outstanding(&self) -> Result<i64> {
        Ok(i64::try_from(self.budget()?.charges_outstanding()).unwrap_or(i64::MAX))
    }

    /// The state at `now_ms`.
    pub fn snapshot(&self, now_ms: i64) -> Result<BudgetSnapshot> {
        Ok(self.budget()?.snapshot(ms_in("now_ms", now_ms)?).into())
    }
}

/// Admission granted by `CircuitBreaker.tryAcquire`; hand it back once, with
/// the result or as a release (a second use throws).
#[derive(Debug, uniffi::Object)]
pub struct BreakerPermit {
    probe: bool,
    cell: rp::GrantCell<rp::BreakerPermit>,
}

#[uniffi::export]
impl BreakerPermit {
    /// True when this admission is a half-open probe.
    pub fn probe(&self) -> bool {
        self.probe
    }
}

/// A circuit breaker shared by many operations and threads, on its own or a
/// dependency's (`Dependency.breaker()`).
#[derive(Debug, uniffi::Object)]
pub struct CircuitBreaker(Source<rp::CircuitBreaker>);

impl CircuitBreaker {
    fn breaker(&self) -> Result<&rp::CircuitBreaker> {
        self.0.get("breaker")
    }
}

#[uniffi::export]
impl CircuitBreaker {
    /// Validates the configuration.
    #[uniffi::constructor]
    pub fn new(config: BreakerConfig) -> Result<Arc<CircuitBreaker>> {
        let config = rp::BreakerConfig::from_value(&record_in(&config)?)?;
        Ok(Arc::new(CircuitBreaker(Source::Own(rp::CircuitBreaker::new(&config)?))))
    }

    /// May an attempt go now? Null when the breaker refuses.
    pub fn try_acquire(&self, now_ms: i64) -> Result<Option<Arc<BreakerPermit>>> {
        Ok(self
            .breaker()?
            .try_acquire(ms_in("now_ms", now_ms)?)
            .map(|permit| Arc::new(BreakerPermit { probe: permit.is_probe(), cell: rp::GrantCell::new(permit) })))
    }

    /// The attempt admitted by `permit` succeeded.
    pub fn on_success(&self, now_ms: i64, permit: Arc<BreakerPermit>) -> Result<()> {
        let (now_ms, breaker) = (ms_in("now_ms", now_ms)?, self.breaker()?);
        Ok(breaker.on_success(now_ms, permit.cell.take()?)?)
    }

    /// The attempt admitted by `permit` failed.
    pub fn on_failure(&self, now_ms: i64, permit: Arc<BreakerPermit>) -> Result<()> {
        let (now_ms, breaker) = (ms_in("now_ms", now_ms)?, self.breaker()?);
        Ok(breaker.on_failure(now_ms, permit.cell.take()?)?)
    }

    /// The attempt admitted by `permit` ended without a result (cancelled).
    pub fn release(&self, permit: Arc<BreakerPermit>) -> Result<()> {
        let breaker = self.breaker()?;
        Ok(breaker.release(permit.cell.take()?)?)
    }

    /// Permits granted and not yet settled.
    pub fn permits_outstanding(&self) -> Result<i64> {
        Ok(i64::try_from(self.breaker()?.permits_outstanding()).unwrap_or(i64::MAX))
    }

    /// The state at `now_ms`.
    pub fn snapshot(&self, now_ms: i64) -> Result<BreakerSnapshot> {
        Ok(self.breaker()?.snapshot(ms_in("now_ms", now_ms)?).into())
    }
}

/// One slot of a `RetrySlots`; give it back once, with `release`, to
/// the slots that granted it (a second use throws). Only `tryAcquire` makes one.
#[derive(Debug, uniffi::Object)]
pub struct RetrySlot {
    cell: rp::GrantCell<rp::RetrySlot>,
}

/// Retry slots: how many retries and hedges may run at once, on their own or
/// a dependency's (`Dependency.retrySlots()`).
#[derive(Debug, uniffi::Object)]
pub struct RetrySlots(Source<rp::RetrySlots>);

impl RetrySlots {
    fn slots(&self) -> Result<&rp::RetrySlots> {
        self.0.get("retry_slots")
    }
}

#[uniffi::export]
impl RetrySlots {
    /// `capacity` slots (0 refuses every retry and hedge).
    #[uniffi::constructor]
    pub fn new(capacity: i32) -> Result<Arc<RetrySlots>> {
        Ok(Arc::new(RetrySlots(Source::Own(rp::RetrySlots::new(u32_in("capacity", capacity)?)))))
    }

    /// Takes a slot; null when all are taken.
    pub fn try_acquire(&self) -> Result<Option<Arc<RetrySlot>>> {
        Ok(self.slots()?.try_acquire().map(|slot| Arc::new(RetrySlot { cell: rp::GrantCell::new(slot) })))
    }

    /// Gives a slot back.
    pub fn release(&self, slot: Arc<RetrySlot>) -> Result<()> {
        let slots = self.slots()?;
        Ok(slots.release(slot.cell.take()?)?)
    }

    /// Slots in use now.
    pub fn in_use(&self) -> Result<i32> {
        Ok(count_out(self.slots()?.in_use()))
    }

    /// How many slots there are.
    pub fn capacity(&self) -> Result<i32> {
        Ok(count_out(self.slots()?.capacity()))
    }
}

/// A dependency's configuration, validated, as its compiled form: what
/// `Dependency.fromCompiled` (in any language) builds the controls from.
#[uniffi::export]
pub fn compile_dependency(config: DependencyConfig) -> Result<Vec<u8>> {
    Ok(rp::DependencyConfig::from_value(&record_in(&config)?)?.to_compiled()?)
}

/// One downstream dependency's shared controls; pass it in `OperationOptions`
/// to every operation that calls that dependency, from any thread.
#[derive(Debug, uniffi::Object)]
pub struct Dependency(pub(crate) Arc<rp::Dependency>);

#[uniffi::export]
impl Dependency {
    /// Validates the configuration (every violation is reported).
    #[uniffi::constructor]
    pub fn new(config: DependencyConfig) -> Result<Arc<Dependency>> {
        let config = rp::DependencyConfig::from_value(&record_in(&config)?)?;
        Ok(Arc::new(Dependency(rp::Dependency::new(&config)?)))
    }

    /// Reads and validates the configuration from JSON.
    #[uniffi::constructor]
    pub fn from_json(json: String) -> Result<Arc<Dependency>> {
        Ok(Arc::new(Dependency(rp::Dependency::from_json(&json)?)))
    }

    /// New controls (full budget, closed breaker) from a compiled form
    /// (`compileDependency`, `retryplan compile --dependency`, or any language's).
    #[uniffi::constructor]
    pub fn from_compiled(form: Vec<u8>) -> Result<Arc<Dependency>> {
        Ok(Arc::new(Dependency(rp::Dependency::from_compiled(&form)?)))
    }

    /// The state at `now_ms`.
    pub fn snapshot(&self, now_ms: i64) -> Result<DependencySnapshot> {
        Ok(self.0.snapshot(ms_in("now_ms", now_ms)?).into())
    }

    /// The retry budget, if configured: the one every operation naming this
    /// dependency shares.
    pub fn budget(&self) -> Option<Arc<RetryBudget>> {
        let of: fn(&rp::Dependency) -> Option<&rp::RetryBudget> = rp::Dependency::budget;
        of(&self.0).map(|_| Arc::new(RetryBudget(Source::Dependency(Arc::clone(&self.0), of))))
    }

    /// The circuit breaker, if configured.
    pub fn breaker(&self) -> Option<Arc<CircuitBreaker>> {
        let of: fn(&rp::Dependency) -> Option<&rp::CircuitBreaker> = rp::Dependency::breaker;
        of(&self.0).map(|_| Arc::new(CircuitBreaker(Source::Dependency(Arc::clone(&self.0), of))))
    }

    /// The retry slots, if configured.
    pub fn retry_slots(&self) -> Option<Arc<RetrySlots>> {
        let of: fn(&rp::Dependency) -> Option<&rp::RetrySlots> = rp::Dependency::retry_slots;
        of(&self.0).map(|_| Arc::new(RetrySlots(Source::Dependency(Arc::clone(&self.0), of))))
    }
}
