//! Shared controls, one per downstream dependency: retry budget, circuit
//! breaker, and the `Dependency` that bundles them for operations. All are
//! thread-safe in the core; these objects only convert. Configurations are
//! read by the core's reader, as policies are (see `policy.rs`): a negative
//! `openMs` is `invalid_policy_json` at `breaker.open_ms`, as in JSON.

use std::sync::Arc;

use serde::Serialize;

use retryplan as rp;
use retryplan::value::Value;
use retryplan::BreakerState;

use crate::{count_out, long_out, ms_in, u32_in, Result};

/// How a retry budget is kept (gRPC token bucket, ratio over a window, AWS-style quota).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, uniffi::Enum)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BudgetConfig {
    TokenBucket {
        max_tokens: i32,
        token_ratio: f64,
    },
    Ratio {
        retry_ratio: f64,
        min_retries_per_second: i32,
        window_ms: i64,
    },
    Quota {
        capacity: i32,
        retry_cost: i32,
        timeout_retry_cost: i32,
        success_increment: i32,
        /// What a retry after a throttling error costs; null: `retry_cost`.
        #[uniffi(default)]
        throttling_retry_cost: Option<i32>,
    },
}

/// A budget's state, for metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum BudgetSnapshot {
    TokenBucket { tokens_milli: i64, max_tokens_milli: i64, retries_allowed: bool },
    Ratio { requests: i64, retries: i64, balance_milli: i64 },
    Quota { available: i32, capacity: i32 },
}

impl From<rp::BudgetSnapshot> for BudgetSnapshot {
    fn from(snapshot: rp::BudgetSnapshot) -> Self {
        match snapshot {
            rp::BudgetSnapshot::TokenBucket { tokens_milli, max_tokens_milli, retries_allowed } => {
                BudgetSnapshot::TokenBucket {
                    tokens_milli: long_out(tokens_milli),
                    max_tokens_milli: long_out(max_tokens_milli),
                    retries_allowed,
                }
            }
            rp::BudgetSnapshot::Ratio { requests, retries, balance_milli } => BudgetSnapshot::Ratio {
                requests: long_out(requests),
                retries: long_out(retries),
                balance_milli: long_out(balance_milli),
            },
            rp::BudgetSnapshot::Quota { available, capacity } => {
                BudgetSnapshot::Quota { available: count_out(available), capacity: count_out(capacity) }
            }
        }
    }
}

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

/// A retry budget shared by many operations and threads.
#[derive(Debug, uniffi::Object)]
pub struct RetryBudget(rp::RetryBudget);

#[uniffi::export]
impl RetryBudget {
    /// Validates the configuration.
    #[uniffi::constructor]
    pub fn new(config: BudgetConfig) -> Result<Arc<RetryBudget>> {
        let config = rp::BudgetConfig::from_value(&Value::from_serialize(&config)?, "budget")?;
        Ok(Arc::new(RetryBudget(rp::RetryBudget::new(&config)?)))
    }

    /// Takes `amount` units from a quota (AWS `acquire`): true when taken,
    /// false when fewer are left (nothing is taken).
    pub fn acquire(&self, amount: i32) -> Result<bool> {
        Ok(self.0.acquire(u32_in("amount", amount)?)?)
    }

    /// Gives `amount` units back to a quota, never above its capacity.
    pub fn release(&self, amount: i32) -> Result<()> {
        Ok(self.0.release(u32_in("amount", amount)?)?)
    }

    /// A first attempt was made.
    pub fn on_request(&self, now_ms: i64) -> Result<()> {
        self.0.on_request(ms_in("now_ms", now_ms)?);
        Ok(())
    }

    /// May a retry go now? Null when the budget refuses.
    pub fn try_retry(&self, now_ms: i64, after_timeout: bool) -> Result<Option<Arc<RetryCharge>>> {
        let charge = self.0.try_retry(ms_in("now_ms", now_ms)?, after_timeout);
        Ok(charge.map(|charge| Arc::new(RetryCharge { cost: charge.cost(), cell: rp::GrantCell::new(charge) })))
    }

    /// An attempt succeeded (with the charge of the retry that made it, if any).
    pub fn on_success(&self, now_ms: i64, charge: Option<Arc<RetryCharge>>) -> Result<()> {
        let now_ms = ms_in("now_ms", now_ms)?;
        Ok(self.0.on_success(now_ms, charge_in(charge)?)?)
    }

    /// An attempt failed (with the charge of the retry that made it, if any: it stays spent).
    pub fn on_failure(&self, now_ms: i64, charge: Option<Arc<RetryCharge>>) -> Result<()> {
        let now_ms = ms_in("now_ms", now_ms)?;
        Ok(self.0.on_failure(now_ms, charge_in(charge)?)?)
    }

    /// The state at `now_ms`.
    pub fn snapshot(&self, now_ms: i64) -> Result<BudgetSnapshot> {
        Ok(self.0.snapshot(ms_in("now_ms", now_ms)?).into())
    }
}

/// When a breaker opens: after consecutive failures, or a failure ratio over a window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, uniffi::Enum)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TripConfig {
    Consecutive { failures: i32 },
    Ratio { failure_ratio: f64, minimum_throughput: i32, window_ms: i64 },
}

/// A circuit breaker's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, uniffi::Record)]
pub struct BreakerConfig {
    pub trip: TripConfig,
    pub open_ms: i64,
    pub half_open_probes: i32,
}

/// A breaker's state, for metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Record)]
pub struct BreakerSnapshot {
    pub state: BreakerState,
    pub consecutive_failures: i32,
    pub window_results: i64,
    pub window_failures: i64,
    pub open_until_ms: i64,
    pub probes_in_flight: i32,
}

impl From<rp::BreakerSnapshot> for BreakerSnapshot {
    fn from(s: rp::BreakerSnapshot) -> Self {
        BreakerSnapshot {
            state: s.state,
            consecutive_failures: count_out(s.consecutive_failures),
            window_results: long_out(s.window_results),
            window_failures: long_out(s.window_failures),
            open_until_ms: long_out(s.open_until_ms),
            probes_in_flight: count_out(s.probes_in_flight),
        }
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

/// A circuit breaker shared by many operations and threads.
#[derive(Debug, uniffi::Object)]
pub struct CircuitBreaker(rp::CircuitBreaker);

#[uniffi::export]
impl CircuitBreaker {
    /// Validates the configuration.
    #[uniffi::constructor]
    pub fn new(config: BreakerConfig) -> Result<Arc<CircuitBreaker>> {
        let config = rp::BreakerConfig::from_value(&Value::from_serialize(&config)?, "breaker")?;
        Ok(Arc::new(CircuitBreaker(rp::CircuitBreaker::new(&config)?)))
    }

    /// May an attempt go now? Null when the breaker refuses.
    pub fn try_acquire(&self, now_ms: i64) -> Result<Option<Arc<BreakerPermit>>> {
        Ok(self
            .0
            .try_acquire(ms_in("now_ms", now_ms)?)
            .map(|permit| Arc::new(BreakerPermit { probe: permit.is_probe(), cell: rp::GrantCell::new(permit) })))
    }

    /// The attempt admitted by `permit` succeeded.
    pub fn on_success(&self, now_ms: i64, permit: Arc<BreakerPermit>) -> Result<()> {
        let now_ms = ms_in("now_ms", now_ms)?;
        Ok(self.0.on_success(now_ms, permit.cell.take()?)?)
    }

    /// The attempt admitted by `permit` failed.
    pub fn on_failure(&self, now_ms: i64, permit: Arc<BreakerPermit>) -> Result<()> {
        let now_ms = ms_in("now_ms", now_ms)?;
        Ok(self.0.on_failure(now_ms, permit.cell.take()?)?)
    }

    /// The attempt admitted by `permit` ended without a result (cancelled).
    pub fn release(&self, permit: Arc<BreakerPermit>) -> Result<()> {
        Ok(self.0.release(permit.cell.take()?)?)
    }

    /// The state at `now_ms`.
    pub fn snapshot(&self, now_ms: i64) -> Result<BreakerSnapshot> {
        Ok(self.0.snapshot(ms_in("now_ms", now_ms)?).into())
    }
}

/// The controls of one downstream dependency; every part is optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, uniffi::Record)]
pub struct DependencyConfig {
    #[uniffi(default)]
    pub budget: Option<BudgetConfig>,
    #[uniffi(default)]
    pub breaker: Option<BreakerConfig>,
    #[uniffi(default)]
    pub max_concurrent_retries: Option<i32>,
}

/// The state of a dependency's controls, for metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Record)]
pub struct DependencySnapshot {
    pub budget: Option<BudgetSnapshot>,
    pub breaker: Option<BreakerSnapshot>,
    pub retries_in_flight: Option<i32>,
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
        let config = rp::DependencyConfig::from_value(&Value::from_serialize(&config)?)?;
        Ok(Arc::new(Dependency(rp::Dependency::new(&config)?)))
    }

    /// Reads and validates the configuration from JSON.
    #[uniffi::constructor]
    pub fn from_json(json: String) -> Result<Arc<Dependency>> {
        Ok(Arc::new(Dependency(rp::Dependency::from_json(&json)?)))
    }

    /// The state at `now_ms`.
    pub fn snapshot(&self, now_ms: i64) -> Result<DependencySnapshot> {
        let s = self.0.snapshot(ms_in("now_ms", now_ms)?);
        Ok(DependencySnapshot {
            budget: s.budget.map(Into::into),
            breaker: s.breaker.map(Into::into),
            retries_in_flight: s.retries_in_flight.map(count_out),
        })
    }

    /// Reports a failure to the budget (a call made outside an operation);
    /// false when this dependency has no budget.
    pub fn budget_on_failure(&self, now_ms: i64) -> Result<bool> {
        let now_ms = ms_in("now_ms", now_ms)?;
        match self.0.budget() {
            Some(budget) => budget.on_failure(now_ms, None).map(|()| true).map_err(Into::into),
            None => Ok(false),
        }
    }
}
