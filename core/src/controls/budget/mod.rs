//! Retry budgets: bound the extra load retries add across many operations.
//!
//! One [`RetryBudget`] per downstream dependency, shared by every operation
//! and thread that calls it (it is `Send + Sync`). Three models, one interface,
//! chosen by [`BudgetConfig`]:
//!
//! - **token bucket** with gRPC retry-throttling semantics: starts full at
//!   `max_tokens`; a retryable failure costs 1 token, a success returns
//!   `token_ratio`; retries (and hedges) are allowed only while
//!   `tokens > max_tokens / 2`. Kept in thousandths of a token, so a ratio with
//!   three decimals is exact.
//! - **ratio**: every original request deposits `retry_ratio` of a retry, every
//!   retry withdraws one, and `min_retries_per_second` are always allowed, over a
//!   sliding `window_ms`. Integer thousandths again, so 5 % of 100 requests is
//!   exactly 5 retries (no over-allocation of fractional percentages).
//! - **quota** like the AWS SDKs' standard mode: `capacity` units; a retry costs
//!   `retry_cost` (`timeout_retry_cost` after a timeout, `throttling_retry_cost`
//!   after a throttling error); a successful retry refunds what it cost, a
//!   successful first attempt adds `success_increment`.
//!
//! The retry is charged when it is about to be dispatched (after the wait), by
//! [`Operation`](crate::Operation); a waiter that is cancelled spends nothing.
//! The operation also asks, taking nothing, when the failure arrives: a retry
//! the budget refuses then gives up at once instead of waiting first (gRFC
//! A6's throttle and the AWS SDKs' quota decide at that point).
//!
//! Only the ratio budget keeps time. It follows the rule of every control's
//! clock ([`crate::ground::clock`]) with its window as the horizon: a reading earlier
//! than the latest by at most `window_ms` counts as the latest; one earlier by
//! more restarts the budget's clock there, keeping the counts at their ages.
//! One far-future reading therefore never stops the window from expiring.
//! The token bucket and the quota ignore the times they are given.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::config::error::{ConfigKind, Error, Violation};
use crate::config::grant::{foreign, issued_by, Grant};
use crate::config::value::join;
use crate::config::value::DURATION_MS;
use crate::ground::clock::ControlClock;
use crate::ground::lock::{Lock, Shared, SharedWeak};
use crate::ground::message::{message, Message};
use crate::ground::units::permille_of;
use crate::ground::window::SlidingWindow;

mod config;

pub use config::BudgetConfig;
use config::MAX_TOKENS;

/// Why a retry is asked for, as a quota prices it: the class of the failure
/// being retried.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RetryCause {
    /// Any retryable failure that is neither of the others.
    #[default]
    Transient,
    /// The failure was a timeout (`transport: timed_out`).
    Timeout,
    /// The failure was a throttling error (classified `throttling: true`).
    Throttling,
}

/// What a granted retry cost: hand it back once, to the budget that granted
/// it, with the retry's success (refunded) or failure (spent) — the rules of
/// every grant: [`crate::config::grant`]. Dropped unsettled, it is spent.
#[derive(Debug)]
pub struct RetryCharge {
    cost: u32,
    /// The budget that granted it.
    owner: SharedWeak<Lock<State>>,
}

impl crate::config::grant::sealed::Sealed for RetryCharge {}

impl Grant for RetryCharge {
    const ARGUMENT: &'static str = "charge";
}

impl RetryCharge {
    /// Units charged (quota model; 0 for the others).
    #[must_use]
    pub fn cost(&self) -> u32 {
        self.cost
    }
}

/// The budget's state, for metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BudgetSnapshot {
    /// Token bucket state.
    TokenBucket {
        /// Tokens now, in thousandths.
        tokens_milli: u64,
        /// Bucket size, in thousandths.
        max_tokens_milli: u64,
        /// Whether a retry would be allowed now.
        retries_allowed: bool,
    },
    /// Ratio budget state over the current window.
    Ratio {
        /// Original requests counted in the window.
        requests: u64,
        /// Retries granted in the window.
        retries: u64,
        /// Retries still available now, in thousandths.
        balance_milli: u64,
    },
    /// Quota state.
    Quota {
        /// Units available.
        available: u32,
        /// Units when full.
        capacity: u32,
    },
}

// One state lives per dependency behind a lock: the ratio window's size is irrelevant.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    TokenBucket {
        tokens_milli: u64,
        max_milli: u64,
        ratio_milli: u64,
    },
    Ratio {
        window: SlidingWindow,
        clock: ControlClock,
        deposit_milli: u64,
        reserve_milli: u64,
    },
    Quota {
        available: u32,
        capacity: u32,
        retry_cost: u32,
        timeout_retry_cost: u32,
        throttling_retry_cost: u32,
        success_increment: u32,
    },
}

/// Counter indexes in the ratio window.
const REQUESTS: usize = 0;
const RETRIES: usize = 1;

/// A retry budget shared by every operation calling one dependency.
#[derive(Debug)]
pub struct RetryBudget {
    /// Shared with the charges out (their back-reference), so a charge knows its budget.
    state: Shared<Lock<State>>,
}

impl RetryBudget {
    /// Validates a configuration; every broken rule names its field from the
    /// budget itself (`max_tokens`, ...).
    ///
    /// # Errors
    /// [`Error::ConfigViolations`] naming a budget, with every violation.
    pub fn new(config: &BudgetConfig) -> Result<RetryBudget, Error> {
        RetryBudget::checked(config, "")
            .map_err(|violations| Error::ConfigViolations { config: ConfigKind::Budget, violations })
    }

    /// [`RetryBudget::new`] for a budget at `path` inside another
    /// configuration (a dependency's `budget`), whose caller names it: every
    /// violation, its field from that configuration (`budget.max_tokens`).
    pub(crate) fn checked(config: &BudgetConfig, path: &str) -> Result<RetryBudget, Vec<Violation>> {
        let mut violations = Vec::new();
        let at = |field: &str| join(path, field);
        let mut fail = |field: String, message: Message| violations.push(Violation { field, message });
        let state = match *config {
            BudgetConfig::TokenBucket { max_tokens, token_ratio } => {
                if let Some(violation) = MAX_TOKENS.check(&at("max_tokens"), max_tokens.into()) {
                    fail(violation.field, violation.message);
                }
                let ratio_milli = match permille_of(token_ratio, 0.0, f64::from(max_tokens.max(1)), true) {
                    Ok(value) => u64::from(value),
                    Err(rule) => {
                        let field = at("token_ratio");
                        fail(field.clone(), rule.message(&field, token_ratio));
                        0
                    }
                };
                let max_milli = u64::from(max_tokens) * 1000;
                State::TokenBucket { tokens_milli: max_milli, max_milli, ratio_milli }
            }
            BudgetConfig::Ratio { retry_ratio, min_retries_per_second, window_ms } => {
                let deposit_milli = match permille_of(retry_ratio, 0.0, 1.0, false) {
                    Ok(value) => u64::from(value),
                    Err(rule) => {
                        let field = at("retry_ratio");
                        fail(field.clone(), rule.message(&field, retry_ratio));
                        0
                    }
                };
                if let Some(violation) = DURATION_MS.check(&at("window_ms"), window_ms) {
                    fail(violation.field, violation.message);
                }
                // Retries per second x seconds in the window, in thousandths of a retry.
                let reserve_milli = u64::from(min_retries_per_second).saturating_mul(window_ms);
                State::Ratio {
                    window: SlidingWindow::new(window_ms),
                    clock: ControlClock::new(window_ms),
                    deposit_milli,
                    reserve_milli,
                }
            }
            BudgetConfig::Quota {
                capacity,
                retry_cost,
                timeout_retry_cost,
                success_increment,
                throttling_retry_cost,
            } => {
                // No rule ties the costs to the capacity: botocore's `RetryQuota` and
                // smithy-rs's `TokenBucket` accept any capacity (0 refuses every
                // retry that costs anything) and any cost (one above the capacity
                // is never paid), and smithy-rs tests a capacity of 5 with its
                // default costs (5, and 10 after a timeout).
                State::Quota {
                    available: capacity,
                    capacity,
                    retry_cost,
                    timeout_retry_cost,
                    throttling_retry_cost: throttling_retry_cost.unwrap_or(retry_cost),
                    success_increment,
                }
            }
        };
        if !violations.is_empty() {
            return Err(violations);
        }
        Ok(RetryBudget { state: Shared::new(Lock::new(state)) })
    }

    fn state(&self) -> impl core::ops::DerefMut<Target = State> + '_ {
        self.state.lock()
    }

    /// The cost of a charge this budget granted (settled from now on); a
    /// charge of another budget is refused.
    fn settle(&self, charge: Option<RetryCharge>) -> Result<Option<u32>, Error> {
        match charge {
            None => Ok(None),
            Some(charge) if issued_by(&charge.owner, &self.state) => Ok(Some(charge.cost)),
            Some(_) => Err(foreign::<RetryCharge>("retry budget")),
        }
    }

    /// Charges granted and not yet settled (successes, failures and drops settle them).
    #[must_use]
    pub fn charges_outstanding(&self) -> usize {
        Shared::weak_count(&self.state)
    }

    /// Counts an original request (a first attempt) dispatched at `now_ms`.
    pub fn on_request(&self, now_ms: u64) {
        if let State::Ratio { window, clock, .. } = &mut *self.state() {
            window.add(clock.read(now_ms), REQUESTS, 1);
        }
    }

    /// Asks to dispatch a retry (or a hedge) now. `after_timeout` says the
    /// failure being retried was a timeout (the quota charges more): the
    /// same as [`RetryBudget::try_retry_for`] with [`RetryCause::Timeout`]
    /// or [`RetryCause::Transient`]. `None` means refused: nothing was charged.
    #[must_use = "a granted retry is charged: dropped unsettled, the charge is spent; settle it with the retry's result"]
    pub fn try_retry(&self, now_ms: u64, after_timeout: bool) -> Option<RetryCharge> {
        let cause = if after_timeout { RetryCause::Timeout } else { RetryCause::Transient };
        self.try_retry_for(now_ms, cause)
    }

    /// Asks to dispatch a retry (or a hedge) now, for a failure of class
    /// `cause`: a quota charges `retry_cost`, `timeout_retry_cost` or
    /// `throttling_retry_cost`; the other models ignore the cause. `None`
    /// means refused: nothing was charged.
    ///
    /// ```
    /// use retryplan::{controls::budget::RetryCause, RetryBudget};
    /// use retryplan::controls::budget::BudgetConfig;
    /// let config = BudgetConfig::Quota {
    ///     capacity: 500, retry_cost: 14, timeout_retry_cost: 14, success_increment: 1, throttling_retry_cost: Some(5),
    /// };
    /// let quota = RetryBudget::new(&config).unwrap();
    /// assert_eq!(quota.try_retry_for(0, RetryCause::Throttling).map(|charge| charge.cost()), Some(5));
    /// assert_eq!(quota.try_retry_for(0, RetryCause::Transient).map(|charge| charge.cost()), Some(14));
    /// ```
    #[must_use = "a granted retry is charged: dropped unsettled, the charge is spent; settle it with the retry's result"]
    pub fn try_retry_for(&self, now_ms: u64, cause: RetryCause) -> Option<RetryCharge> {
        let cost = self.admit(now_ms, cause, true)?;
        Some(RetryCharge { cost, owner: Shared::downgrade(&self.state) })
    }

    /// Whether [`RetryBudget::try_retry_for`] would grant a retry at
    /// `now_ms` for a failure of class `cause`, taking nothing. An operation
    /// asks when the failure arrives, so that a retry the budget refuses
    /// gives up then, not after its wait: gRFC A6's throttle and the AWS
    /// SDKs' quota decide when the failure arrives.
    pub(crate) fn allows_retry(&self, now_ms: u64, cause: RetryCause) -> bool {
        self.admit(now_ms, cause, false).is_some()
    }

    /// The cost of a retry for `cause` at `now_ms`, or `None` when the
    /// budget refuses it; with `take`, the retry is counted (and a quota's
    /// units taken).
    fn admit(&self, now_ms: u64, cause: RetryCause, take: bool) -> Option<u32> {
        match &mut *self.state() {
            State::TokenBucket { tokens_milli, max_milli, .. } => (*tokens_milli * 2 > *max_milli).then_some(0),
            State::Ratio { window, clock, deposit_milli, reserve_milli } => {
                let reading = clock.read(now_ms);
                let [requests, retries] = window.totals(reading);
                let earned = requests.saturating_mul(*deposit_milli).saturating_add(*reserve_milli);
                let spent = retries.saturating_mul(1000);
                if earned.saturating_sub(spent) < 1000 {
                    return None;
                }
                if take {
                    window.add(reading, RETRIES, 1);
                }
                Some(0)
            }
            State::Quota { available, retry_cost, timeout_retry_cost, throttling_retry_cost, .. } => {
                let cost = match cause {
                    RetryCause::Transient => *retry_cost,
                    RetryCause::Timeout => *timeout_retry_cost,
                    RetryCause::Throttling => *throttling_retry_cost,
                };
                if *available < cost {
                    return None;
                }
                if take {
                    *available -= cost;
                }
                Some(cost)
            }
        }
    }

    /// Takes `cost` units from a quota, as the AWS SDKs' `acquire`: true when
    /// they were there (and are now taken), false when fewer are left
    /// (nothing is taken).
    ///
    /// ```
    /// use retryplan::RetryBudget;
    /// use retryplan::controls::budget::BudgetConfig;
    /// let config = BudgetConfig::Quota {
    ///     capacity: 50, retry_cost: 5, timeout_retry_cost: 10, success_increment: 1, throttling_retry_cost: None,
    /// };
    /// let quota = RetryBudget::new(&config).unwrap();
    /// assert_eq!(quota.acquire(49), Ok(true));
    /// assert_eq!(quota.acquire(10), Ok(false));
    /// quota.release(100).unwrap();
    /// assert_eq!(quota.acquire(50), Ok(true));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a budget that is not a quota.
    pub fn acquire(&self, cost: u32) -> Result<bool, Error> {
        match &mut *self.state() {
            State::Quota { available, .. } => {
                let granted = *available >= cost;
                if granted {
                    *available -= cost;
                }
                Ok(granted)
            }
            _ => Err(not_a_quota("acquire")),
        }
    }

    /// Gives `amount` units back to a quota, never above its capacity.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a budget that is not a quota.
    pub fn release(&self, amount: u32) -> Result<(), Error> {
        match &mut *self.state() {
            State::Quota { available, capacity, .. } => {
                *available = available.saturating_add(amount).min(*capacity);
                Ok(())
            }
            _ => Err(not_a_quota("release")),
        }
    }

    /// Records a success; `charge` is what the attempt's retry cost, if it
    /// was a retry (the quota refunds it).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`charge`) for a charge another budget granted; nothing changes.
    pub fn on_success(&self, now_ms: u64, charge: Option<RetryCharge>) -> Result<(), Error> {
        let charged = self.settle(charge)?;
        self.succeeded(now_ms, charged);
        Ok(())
    }

    /// Records the success of an attempt that was not a granted retry (a
    /// first attempt): [`RetryBudget::on_success`] without a charge, which
    /// cannot fail. A quota adds `success_increment`.
    pub fn record_success(&self, now_ms: u64) {
        self.succeeded(now_ms, None);
    }

    /// Records a retryable failure of an attempt that was not a granted
    /// retry: [`RetryBudget::on_failure`] without a charge, which cannot fail.
    pub fn record_failure(&self, _now_ms: u64) {
        if let State::TokenBucket { tokens_milli, .. } = &mut *self.state() {
            *tokens_milli = tokens_milli.saturating_sub(1000);
        }
    }

    /// A success, `charged` the cost of its retry (refunded by a quota).
    fn succeeded(&self, _now_ms: u64, charged: Option<u32>) {
        match &mut *self.state() {
            State::TokenBucket { tokens_milli, max_milli, ratio_milli } => {
                *tokens_milli = tokens_milli.saturating_add(*ratio_milli).min(*max_milli);
            }
            State::Ratio { .. } => {}
            State::Quota { available, capacity, success_increment, .. } => {
                let refund = charged.unwrap_or(*success_increment);
                *available = available.saturating_add(refund).min(*capacity);
            }
        }
    }

    /// Records a retryable failure; `charge` is what the attempt's retry
    /// cost, if it was a retry (it stays spent).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`charge`) for a charge another budget granted; nothing changes.
    pub fn on_failure(&self, now_ms: u64, charge: Option<RetryCharge>) -> Result<(), Error> {
        self.settle(charge)?;
        self.record_failure(now_ms);
        Ok(())
    }

    /// Settles a charge whose retry ended with neither a success nor a
    /// retryable failure (cancelled, aborted, another answer): its cost
    /// stays spent and nothing else is recorded.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (`charge`) for a charge another budget granted.
    pub fn spend(&self, charge: RetryCharge) -> Result<(), Error> {
        self.settle(Some(charge)).map(|_| ())
    }

    /// The state at `now_ms`, for metrics.
    #[must_use]
    pub fn snapshot(&self, now_ms: u64) -> BudgetSnapshot {
        match &*self.state() {
            State::TokenBucket { tokens_milli, max_milli, .. } => BudgetSnapshot::TokenBucket {
                tokens_milli: *tokens_milli,
                max_tokens_milli: *max_milli,
                retries_allowed: *tokens_milli * 2 > *max_milli,
            },
            State::Ratio { window, clock, deposit_milli, reserve_milli } => {
                let [requests, retries] = window.peek(clock.peek(now_ms));
                let earned = requests.saturating_mul(*deposit_milli).saturating_add(*reserve_milli);
                BudgetSnapshot::Ratio {
                    requests,
                    retries,
                    balance_milli: earned.saturating_sub(retries.saturating_mul(1000)),
                }
            }
            State::Quota { available, capacity, .. } => {
                BudgetSnapshot::Quota { available: *available, capacity: *capacity }
            }
        }
    }
}

/// The error for `acquire` / `release` on a budget without units.
fn not_a_quota(call: &'static str) -> Error {
    Error::InvalidArgument { field: "budget", rule: message!(NotAQuota, call) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::message::Rule;

    fn ratio(retry_ratio: f64, min_retries_per_second: u32) -> RetryBudget {
        RetryBudget::new(&BudgetConfig::Ratio { retry_ratio, min_retries_per_second, window_ms: 1_000 }).unwrap()
    }

    #[test]
    fn five_per_hundred_at_ten_thousand_per_second_allows_five_hundred() {
        let budget = ratio(0.05, 0);
        for _ in 0..10_000 {
            budget.on_request(0);
        }
        let granted = (0..10_000).filter(|_| budget.try_retry(0, false).is_some()).count();
        assert_eq!(granted, 500);
        // Ten clients each believing they own the whole allowance send ten times as much.
        let clients: Vec<RetryBudget> = (0..10).map(|_| ratio(0.05, 0)).collect();
        let total: usize = clients
            .iter()
            .map(|client| {
                (0..10_000).for_each(|_| client.on_request(0));
                (0..10_000).filter(|_| client.try_retry(0, false).is_some()).count()
            })
            .sum();
        assert_eq!(total, 5_000);
    }

    #[test]
    fn fractional_ratio_is_exact() {
        let budget = ratio(0.333, 0);
        (0..1_000).for_each(|_| budget.on_request(10));
        assert_eq!((0..1_000).filter(|_| budget.try_retry(10, false).is_some()).count(), 333);
        let budget = ratio(0.0, 3);
        assert_eq!((0..10).filter(|_| budget.try_retry(0, false).is_some()).count(), 3, "the per-second minimum");
    }

    #[test]
    fn one_far_future_reading_does_not_stop_the_window() {
        for bad in [u64::MAX, 1_700_000_000_000] {
            let budget = ratio(0.0, 2);
            assert!(budget.try_retry(0, false).is_some());
            assert!(budget.try_retry(bad, false).is_some());
            assert!(budget.try_retry(100, false).is_some(), "{bad}: the clock restarts at 100 with one retry counted");
            assert!(budget.try_retry(1_099, false).is_none(), "two in the window until 1100");
            assert!(budget.try_retry(1_100, false).is_some(), "{bad}: the window moves on after the restart");
        }
    }

    #[test]
    fn token_bucket_follows_grpc_arithmetic() {
        let budget = RetryBudget::new(&BudgetConfig::TokenBucket { max_tokens: 10, token_ratio: 0.1 }).unwrap();
        for _ in 0..4 {
            budget.record_failure(0);
        }
        assert!(budget.try_retry(0, false).is_some(), "6 tokens > 5");
        budget.record_failure(0);
        assert!(budget.try_retry(0, false).is_none(), "5 tokens is not > 5");
        budget.record_success(0);
        assert_eq!(
            budget.snapshot(0),
            BudgetSnapshot::TokenBucket { tokens_milli: 5_100, max_tokens_milli: 10_000, retries_allowed: true }
        );
        (0..20).for_each(|_| budget.record_failure(0));
        assert!(matches!(budget.snapshot(0), BudgetSnapshot::TokenBucket { tokens_milli: 0, .. }));
        (0..200).for_each(|_| budget.record_success(0));
        assert!(matches!(budget.snapshot(0), BudgetSnapshot::TokenBucket { tokens_milli: 10_000, .. }));
    }

    #[test]
    fn quota_charges_more_after_timeouts_and_refunds_successful_retries() {
        let config = BudgetConfig::Quota {
            capacity: 20,
            retry_cost: 5,
            timeout_retry_cost: 10,
            success_increment: 1,
            throttling_retry_cost: None,
        };
        let budget = RetryBudget::new(&config).unwrap();
        let charge = budget.try_retry(0, true).unwrap();
        assert_eq!(charge.cost(), 10);
        assert!(budget.try_retry(0, false).is_some());
        assert!(budget.try_retry(0, false).is_some());
        assert!(budget.try_retry(0, false).is_none(), "0 left");
        budget.on_success(0, Some(charge)).unwrap();
        budget.record_success(0);
        assert_eq!(budget.snapshot(0), BudgetSnapshot::Quota { available: 11, capacity: 20 });
        assert_eq!(
            budget.try_retry_for(0, RetryCause::Throttling).map(|charge| charge.cost()),
            Some(5),
            "as retry_cost"
        );
    }

    #[test]
    fn quota_prices_throttling_retries_apart() {
        let config = BudgetConfig::Quota {
            capacity: 500,
            retry_cost: 14,
            timeout_retry_cost: 14,
            success_increment: 1,
            throttling_retry_cost: Some(5),
        };
        let budget = RetryBudget::new(&config).unwrap();
        let costs: Vec<u32> = [RetryCause::Throttling, RetryCause::Transient, RetryCause::Timeout]
            .into_iter()
            .filter_map(|cause| budget.try_retry_for(0, cause).map(|charge| charge.cost))
            .collect();
        assert_eq!(costs, [5, 14, 14]);
        assert_eq!(budget.snapshot(0), BudgetSnapshot::Quota { available: 467, capacity: 500 });
        let too_dear = BudgetConfig::Quota {
            capacity: 4,
            retry_cost: 1,
            timeout_retry_cost: 1,
            success_increment: 1,
            throttling_retry_cost: Some(5),
        };
        let quota = RetryBudget::new(&too_dear).unwrap();
        assert!(quota.try_retry_for(0, RetryCause::Throttling).is_none(), "5 units are never there");
        assert_eq!(quota.try_retry_for(0, RetryCause::Transient).map(|charge| charge.cost()), Some(1));
    }

    #[test]
    fn a_charge_refunds_once_and_only_to_its_budget() {
        let config = BudgetConfig::Quota {
            capacity: 20,
            retry_cost: 5,
            timeout_retry_cost: 10,
            success_increment: 1,
            throttling_retry_cost: None,
        };
        let (a, b) = (RetryBudget::new(&config).unwrap(), RetryBudget::new(&config).unwrap());
        let charge = a.try_retry(0, false).unwrap();
        b.try_retry(0, true).unwrap();
        assert_eq!(a.charges_outstanding(), 1);
        let error = b.on_success(0, Some(charge)).unwrap_err();
        assert_eq!(error.to_string(), "invalid argument `charge`: was issued by another retry budget");
        assert_eq!(b.snapshot(0), BudgetSnapshot::Quota { available: 10, capacity: 20 }, "B refunded nothing");
        assert_eq!(a.charges_outstanding(), 0, "the refused charge is spent");
        let charge = a.try_retry(0, false).unwrap();
        a.on_failure(0, Some(charge)).unwrap();
        assert_eq!(a.snapshot(0), BudgetSnapshot::Quota { available: 10, capacity: 20 }, "failures spend");
    }

    #[test]
    fn invalid_configs_name_their_fields() {
        let error = RetryBudget::new(&BudgetConfig::TokenBucket { max_tokens: 0, token_ratio: 0.0001 }).unwrap_err();
        let Error::ConfigViolations { config: ConfigKind::Budget, violations } = error else { panic!() };
        let fields: Vec<_> = violations.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(fields, ["max_tokens", "token_ratio"]);
    }

    #[test]
    fn max_tokens_beyond_any_count_is_refused_with_the_bucket_s_rule_at_its_field() {
        // Validation's words for 1001; the reader's for what no u32 holds, in a budget and in a dependency.
        let error = RetryBudget::new(&BudgetConfig::TokenBucket { max_tokens: 1001, token_ratio: 1.0 }).unwrap_err();
        let Error::ConfigViolations { violations, .. } = error else { panic!() };
        assert_eq!(violations[0].message.to_string(), "max_tokens (1001) must be a whole number in 1..=1000");
        for (written, shown) in [("4294967296", "4294967296"), ("-1", "-1"), ("\"5\"", "the string \"5\"")] {
            let bucket = format!(r#"{{"kind": "token_bucket", "max_tokens": {written}, "token_ratio": 1}}"#);
            let value = crate::config::value::Value::from_json(&bucket).unwrap();
            for (config, path, error) in [
                (ConfigKind::Budget, "max_tokens", BudgetConfig::from_value(&value).unwrap_err()),
                (
                    ConfigKind::Dependency,
                    "budget.max_tokens",
                    crate::DependencyConfig::from_json(&format!(r#"{{"budget": {bucket}}}"#)).unwrap_err(),
                ),
            ] {
                let Error::InvalidConfig { config: kind, field, message } = &error else { panic!("{error}") };
                assert_eq!((*kind, &**field, message.rule()), (config, path, Rule::OutOfRange), "{error}");
                assert_eq!(message.to_string(), format!("{path} ({shown}) must be a whole number in 1..=1000"));
            }
        }
    }
}
