//! Shared controls under contention: several threads hammering one budget,
//! one breaker and one set of retry slots keep exact accounting.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

use retryplan::controls::breaker::{BreakerConfig, BreakerState, TripConfig};
use retryplan::controls::budget::{BudgetConfig, BudgetSnapshot};
use retryplan::{CircuitBreaker, RetryBudget, RetrySlots};

const THREADS: usize = 4;

fn hammer(work: impl Fn(usize) + Send + Sync + 'static) {
    let work = Arc::new(work);
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|thread_index| {
            let (work, barrier) = (work.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                work(thread_index);
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("no thread panics");
    }
}

#[test]
fn a_ratio_budget_grants_exactly_its_allowance_across_threads() {
    let budget = Arc::new(
        RetryBudget::new(&BudgetConfig::Ratio { retry_ratio: 0.05, min_retries_per_second: 0, window_ms: 60_000 })
            .unwrap(),
    );
    let granted = Arc::new(AtomicU64::new(0));
    let (shared, count) = (budget.clone(), granted.clone());
    hammer(move |_| {
        for _ in 0..25_000 {
            shared.on_request(0);
            if shared.try_retry(0, false).is_some() {
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    // 100,000 requests at 5 % allow exactly 5,000 retries, however they interleave.
    assert_eq!(granted.load(Ordering::Relaxed), 5_000);
    assert_eq!(budget.snapshot(0), BudgetSnapshot::Ratio { requests: 100_000, retries: 5_000, balance_milli: 0 });
}

#[test]
fn a_quota_loses_and_mints_no_units_across_threads() {
    let budget = Arc::new(
        RetryBudget::new(&BudgetConfig::Quota {
            capacity: 1_000_000,
            retry_cost: 5,
            timeout_retry_cost: 10,
            success_increment: 0,
            throttling_retry_cost: None,
        })
        .unwrap(),
    );
    let net_charged = Arc::new(AtomicU64::new(0));
    let (shared, net) = (budget.clone(), net_charged.clone());
    hammer(move |thread_index| {
        let mut mine = 0;
        for round in 0..20_000 {
            let charge = shared.try_retry(0, (round + thread_index) % 2 == 0).expect("capacity suffices");
            let cost = u64::from(charge.cost());
            mine += cost;
            if round % 4 == 0 {
                shared.on_success(0, Some(charge)).unwrap();
                mine -= cost;
            } else {
                shared.on_failure(0, Some(charge)).unwrap();
            }
        }
        net.fetch_add(mine, Ordering::Relaxed);
    });
    let net = u32::try_from(net_charged.load(Ordering::Relaxed)).unwrap();
    assert!(net > 0);
    assert_eq!(budget.snapshot(0), BudgetSnapshot::Quota { available: 1_000_000 - net, capacity: 1_000_000 });
}

#[test]
fn a_token_bucket_counts_every_event_across_threads() {
    let budget = Arc::new(RetryBudget::new(&BudgetConfig::TokenBucket { max_tokens: 1000, token_ratio: 0.5 }).unwrap());
    let shared = budget.clone();
    hammer(move |_| {
        for _ in 0..100 {
            shared.on_failure(0, None).unwrap();
        }
        for _ in 0..100 {
            shared.on_success(0, None).unwrap();
        }
    });
    // 400 failures cost 400 tokens; 400 successes return 200: never above the cap on the way.
    assert!(matches!(budget.snapshot(0), BudgetSnapshot::TokenBucket { tokens_milli: 800_000, .. }));
}

#[test]
fn a_breaker_and_retry_slots_stay_consistent_across_threads() {
    let breaker = Arc::new(
        CircuitBreaker::new(&BreakerConfig {
            trip: TripConfig::Consecutive { failures: u32::MAX },
            open_ms: 1_000,
            half_open_probes: 1,
        })
        .unwrap(),
    );
    let slots = Arc::new(RetrySlots::new(3));
    let peak = Arc::new(AtomicU64::new(0));
    let (shared_breaker, shared_slots, shared_peak) = (breaker.clone(), slots.clone(), peak.clone());
    hammer(move |_| {
        for round in 0..10_000 {
            if let Some(slot) = shared_slots.try_acquire() {
                shared_peak.fetch_max(u64::from(shared_slots.in_use()), Ordering::Relaxed);
                shared_slots.release(slot).unwrap();
            }
            let permit = shared_breaker.try_acquire(0).expect("closed");
            if round % 2 == 0 {
                shared_breaker.on_failure(0, permit).unwrap();
            } else {
                shared_breaker.on_success(0, permit).unwrap();
            }
        }
    });
    assert!(peak.load(Ordering::Relaxed) <= 3);
    assert_eq!(slots.in_use(), 0, "every slot was given back");
    assert_eq!(breaker.snapshot(0).state, BreakerState::Closed);
}
