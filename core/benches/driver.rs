//! Criterion benchmarks of a driver's lifecycle, which every binding's happy
//! path pays: make a driver, poll its first attempt, hand in the success,
//! poll the finish, drop it; and the same with the first attempt failing
//! once (a retry). And the spelling of a drawn idempotency key, which a
//! helper reads once per operation (every attempt's context carries it).

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use retryplan::wire::{self, input, InputKind, OutcomeKind, INPUT_WORDS, NONE, OUTPUT_WORDS};
use retryplan::{Action, Dependency, Driver, DriverOptions, IdempotencyKey, OperationOptions, Outcome, Policy};

const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };

fn benches(c: &mut Criterion) {
    let policy = Arc::new(
        Policy::from_json(r#"{"max_attempts": 5, "total_timeout_ms": 60000, "attempt_timeout": {"fixed_ms": 1000}}"#)
            .expect("valid"),
    );
    let new = |seed: u64| {
        Driver::new(black_box(&policy), 0, OperationOptions::new(seed), DriverOptions::default()).expect("valid")
    };

    c.bench_function("driver: new + drop", |b| b.iter(|| drop(black_box(new(7)))));

    c.bench_function("driver: new, first poll, success, finish, drop", |b| {
        b.iter(|| {
            let mut driver = new(7);
            let Action::StartAttempt(plan) = driver.poll_action(black_box(0)).unwrap() else { unreachable!() };
            let _ = black_box(driver.handle_result(black_box(10), plan.attempt, Outcome::Success));
            black_box(driver.poll_action(black_box(10)).unwrap())
        })
    });

    c.bench_function("driver: new, 503, retry, success, finish, drop", |b| {
        b.iter(|| {
            let mut driver = new(7);
            let Action::StartAttempt(plan) = driver.poll_action(black_box(0)).unwrap() else { unreachable!() };
            let _ = black_box(driver.handle_result(black_box(10), plan.attempt, UNAVAILABLE));
            let Action::Sleep { until_ms } = driver.poll_action(black_box(10)).unwrap() else { unreachable!() };
            let Action::StartAttempt(plan) = driver.poll_action(until_ms).unwrap() else { unreachable!() };
            let _ = black_box(driver.handle_result(until_ms + 10, plan.attempt, Outcome::Success));
            black_box(driver.poll_action(until_ms + 10).unwrap())
        })
    });

    // As the bindings run it: seed and key bits drawn from the OS (here fixed), the key read once
    // (every helper hands it to its attempts), each step an exchange of wire records.
    let from_random = |seed: u64| OperationOptions::from_random(seed, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    c.bench_function("driver: from_random, new, first poll, success, finish, drop", |b| {
        b.iter(|| {
            let mut driver =
                Driver::new(black_box(&policy), 0, from_random(black_box(7)), DriverOptions::default()).expect("valid");
            let Action::StartAttempt(plan) = driver.poll_action(black_box(0)).unwrap() else { unreachable!() };
            let _ = black_box(driver.handle_result(black_box(10), plan.attempt, Outcome::Success));
            black_box(driver.poll_action(black_box(10)).unwrap())
        })
    });

    c.bench_function("wire: from_random, new, poll, key read, success, drop", |b| {
        let mut result = [NONE; INPUT_WORDS];
        result[input::INPUT_KIND] = InputKind::Result.word();
        result[input::NOW_MS] = 10;
        result[input::ATTEMPT] = 1;
        result[input::OUTCOME_KIND] = OutcomeKind::Success.word();
        b.iter(|| {
            let mut out = [NONE; OUTPUT_WORDS];
            let mut driver =
                Driver::new(black_box(&policy), 0, from_random(black_box(7)), DriverOptions::default()).expect("valid");
            driver.exchange(black_box(&[InputKind::Poll.word(), 0]), &mut out).unwrap();
            let mut key = [0u8; 64];
            driver.idempotency_key().read_text(|text| {
                for (slot, byte) in key.iter_mut().zip(text.bytes()) {
                    *slot = byte;
                }
            });
            black_box(&key);
            driver.exchange(black_box(&result), &mut out).unwrap();
            black_box(out[wire::output::ENDING])
        })
    });

    // An operation of a shared dependency (its breaker, budget and retry slots): what each attempt
    // takes and settles, beside the happy path without one.
    let dependency = Dependency::from_json(
        r#"{"budget": {"kind": "quota", "capacity": 100, "retry_cost": 5, "timeout_retry_cost": 10, "success_increment": 1},
            "breaker": {"trip": {"kind": "consecutive", "failures": 100}, "open_ms": 1000, "half_open_probes": 1},
            "retry_slots": 5}"#,
    )
    .expect("valid");
    c.bench_function("driver: with a dependency, new, first poll, success, finish, drop", |b| {
        b.iter(|| {
            let options = OperationOptions::new(black_box(7)).with_dependency(Arc::clone(&dependency));
            let mut driver = Driver::new(black_box(&policy), 0, options, DriverOptions::default()).expect("valid");
            let Action::StartAttempt(plan) = driver.poll_action(black_box(0)).unwrap() else { unreachable!() };
            let _ = black_box(driver.handle_result(black_box(10), plan.attempt, Outcome::Success));
            black_box(driver.poll_action(black_box(10)).unwrap())
        })
    });

    c.bench_function("idempotency key: a drawn key's text read once", |b| {
        let key = IdempotencyKey::from_bits(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        b.iter(|| black_box(&key).read_text(|text| black_box(text.len())))
    });
}

criterion_group!(driver, benches);
criterion_main!(driver);
