//! Criterion benchmarks for the shared controls: one budget acquire/release
//! and one breaker event, uncontended and with a second thread hammering the
//! same object.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use criterion::{criterion_group, criterion_main, Criterion};
use retryplan::controls::breaker::{BreakerConfig, TripConfig};
use retryplan::controls::budget::BudgetConfig;
use retryplan::{CircuitBreaker, RetryBudget};

fn budget() -> Arc<RetryBudget> {
    Arc::new(RetryBudget::new(&BudgetConfig::TokenBucket { max_tokens: 1000, token_ratio: 1.0 }).expect("valid"))
}

fn breaker() -> Arc<CircuitBreaker> {
    Arc::new(
        CircuitBreaker::new(&BreakerConfig {
            trip: TripConfig::Ratio { failure_ratio: 0.5, minimum_throughput: 20, window_ms: 10_000 },
            open_ms: 5_000,
            half_open_probes: 1,
        })
        .expect("valid"),
    )
}

/// Runs `work` on a second thread until the returned guard is dropped.
struct Contender(Arc<AtomicBool>, Option<thread::JoinHandle<()>>);

impl Contender {
    fn start(work: impl Fn() + Send + 'static) -> Contender {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        Contender(
            stop,
            Some(thread::spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    work();
                }
            })),
        )
    }
}

impl Drop for Contender {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        if let Some(handle) = self.1.take() {
            let _ = handle.join();
        }
    }
}

fn benches(c: &mut Criterion) {
    let shared = budget();
    let retry = |budget: &RetryBudget| {
        let charge = budget.try_retry(black_box(0), false);
        let _ = black_box(budget.on_success(0, charge));
    };
    c.bench_function("budget: try_retry + on_success, uncontended", |b| b.iter(|| retry(&shared)));
    {
        let other = shared.clone();
        let _contender = Contender::start(move || retry(&other));
        c.bench_function("budget: try_retry + on_success, 2 threads", |b| b.iter(|| retry(&shared)));
    }

    let shared = breaker();
    let event = |breaker: &CircuitBreaker| {
        if let Some(permit) = breaker.try_acquire(black_box(0)) {
            let _ = black_box(breaker.on_success(0, permit));
        }
    };
    c.bench_function("breaker: try_acquire + on_success, uncontended", |b| b.iter(|| event(&shared)));
    {
        let other = shared.clone();
        let _contender = Contender::start(move || event(&other));
        c.bench_function("breaker: try_acquire + on_success, 2 threads", |b| b.iter(|| event(&shared)));
    }
}

criterion_group!(controls, benches);
criterion_main!(controls);
