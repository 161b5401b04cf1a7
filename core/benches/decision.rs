//! Criterion benchmarks: one decision step, and a whole five-attempt operation.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use retryplan::{Decision, IdempotencyKey, Operation, OperationOptions, Outcome, Policy};

fn policy() -> Policy {
    Policy::from_json(r#"{"max_attempts": 5, "total_timeout_ms": 60000}"#).expect("valid")
}

const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };

fn benches(c: &mut Criterion) {
    let policy = policy();
    let key = IdempotencyKey::new("order-5001").expect("valid key");

    let fresh = || Operation::new(&policy, 0, OperationOptions::new(7).with_idempotency_key(key.clone()));
    // An operation with attempt 1 running; the step is: outcome in, next decision out.
    let running = || {
        let mut operation = fresh();
        let _ = operation.poll(0);
        operation
    };
    c.bench_function("decision_step: failed attempt -> wait", |b| {
        b.iter_batched_ref(
            running,
            |operation| black_box(operation.on_outcome(3_000, 1, black_box(&UNAVAILABLE))),
            BatchSize::SmallInput,
        )
    });

    // An operation waiting after attempt 1 failed; the step is: wait over, next attempt out.
    let waiting = || {
        let mut operation = running();
        let _ = operation.on_outcome(3_000, 1, &UNAVAILABLE);
        operation
    };
    c.bench_function("decision_step: wait over -> start attempt", |b| {
        b.iter_batched_ref(waiting, |operation| black_box(operation.poll(3_200)), BatchSize::SmallInput)
    });

    c.bench_function("operation: five failed attempts, new to gave_up", |b| {
        b.iter(|| {
            let mut operation =
                Operation::new(black_box(&policy), 0, OperationOptions::new(7).with_idempotency_key(key.clone()));
            let mut decision = operation.poll(0);
            loop {
                decision = match decision {
                    Ok(Decision::StartAttempt { attempt, abort_at_ms, .. }) => {
                        operation.on_outcome(abort_at_ms, attempt, &UNAVAILABLE)
                    }
                    Ok(Decision::Wait { until_ms, .. }) => operation.poll(until_ms),
                    other => break black_box(other),
                };
            }
        })
    });
}

criterion_group!(decision, benches);
criterion_main!(decision);
