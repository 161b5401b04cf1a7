//! Criterion benchmarks: one decision step, and a whole five-attempt operation.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use retryplan::{Decision, IdempotencyKey, Operation, OperationOptions, Outcome, Policy};

fn policy() -> Policy {
    Policy::from_json(r#"{"max_attempts": 5, "total_budget_ms": 60000}"#).expect("valid")
}

const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None };

fn benches(c: &mut Criterion) {
    let policy = policy();
    let key = IdempotencyKey::new("order-5001").expect("valid key");

    // An operation with attempt 1 running; the step is: outcome in, next decision out.
    let mut running = Operation::new(&policy, 0, OperationOptions::new(7).with_idempotency_key(key.clone()));
    let Ok(Decision::StartAttempt { attempt, abort_at_ms, .. }) = running.poll(0) else { panic!("starts") };
    c.bench_function("decision_step: failed attempt -> wait", |b| {
        b.iter_batched_ref(
            || running.clone(),
            |operation| black_box(operation.on_outcome(abort_at_ms, attempt, black_box(&UNAVAILABLE))),
            BatchSize::SmallInput,
        )
    });

    let mut waiting = running.clone();
    let Ok(Decision::Wait { until_ms, .. }) = waiting.on_outcome(abort_at_ms, attempt, &UNAVAILABLE) else {
        panic!("waits")
    };
    c.bench_function("decision_step: wait over -> start attempt", |b| {
        b.iter_batched_ref(|| waiting.clone(), |operation| black_box(operation.poll(until_ms)), BatchSize::SmallInput)
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
