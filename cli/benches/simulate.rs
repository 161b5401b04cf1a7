//! Simulated attempts per second (release build): `cargo bench -p retryplan-cli`.
//!
//! Two runs of the issue's size, 10,000 operations/s for 60 s (600,000
//! logical operations): a sustained 503 outage without a budget (three
//! attempts per operation, every one decided by `retryplan::Operation`), and
//! the embedded checkout example's as-written variant. Criterion reports the
//! throughput in simulated attempts (elements) per second.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retryplan_cli::file::{load, Selection};
use retryplan_cli::sim::{Setup, Simulation};

const OUTAGE: &str = r#"{
  "policy": {"max_attempts": 3, "total_timeout_ms": 800, "attempt_timeout": {"fixed_ms": 200},
             "response_reserve_ms": 50, "minimum_useful_attempt_ms": 100,
             "backoff": {"kind": "exponential", "base_ms": 50, "multiplier": 2.0, "cap_ms": 400},
             "jitter": {"kind": "full"}, "idempotency": "keyed"},
  "scenario": {"duration_ms": 60000, "arrivals_per_second": 10000, "clients": 20,
               "capacity": {"workers": 400, "queue_limit": 2048},
               "service_time": {"kind": "exponential", "mean_ms": 20}, "network_ms": 2,
               "phases": [{"kind": "outage", "from_ms": 0, "to_ms": 60000, "failure": "unavailable"}]}
}"#;

const CHECKOUT: &str = include_str!("../../examples/checkout.json");

fn bench(c: &mut Criterion, name: &str, text: &str) {
    let plan = load(text, &Selection::default()).expect("valid plan");
    let scenario = plan.scenario.clone().expect("a scenario");
    let setup = Setup { policy: plan.policy, dependency: plan.dependency_config, layers: 1, propagated: false };
    let attempts = |seed| {
        let run = Simulation::new(&scenario, &setup, seed).run(&mut |_| {}).expect("no engine error");
        run.buckets.iter().map(|bucket| bucket.attempts).sum::<u64>()
    };
    let per_run = attempts(1);
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.throughput(Throughput::Elements(per_run));
    group.bench_function(name, |b| b.iter(|| attempts(1)));
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench(c, "sustained_outage_600k_operations", OUTAGE);
    bench(c, "checkout_example_as_written", CHECKOUT);
}

criterion_group!(simulate, benches);
criterion_main!(simulate);
