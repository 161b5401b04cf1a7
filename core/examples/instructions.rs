//! Instructions per decision, the engine against a hand-written retry loop,
//! counted by callgrind (which counts the same on a busy machine).
//!
//! ```sh
//! scripts/instructions.sh        # builds this in release and runs it under callgrind
//! ```
//!
//! Each workload runs `OPERATIONS` operations of five attempts that all fail
//! with a 503, from creation to the ending: ten decisions each (five starts,
//! four waits and the give-up). The hand loop makes the same decisions with
//! the same numbers (the default policy's 3 s attempt timeout and 100 ms minimum
//! useful attempt, exponential backoff from 100 ms capped at 2 s, full jitter
//! from SplitMix64, the deadline check before each wait) and nothing else: no
//! classification tables, no request ids, no key. Callgrind only counts inside
//! the `workload_*` functions (`--toggle-collect`), so start-up is not counted.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::hint::black_box;
use std::sync::Arc;

use retryplan::{Decision, IdempotencyKey, Operation, OperationOptions, Outcome, Policy};

/// Operations per workload.
const OPERATIONS: u64 = 1_000;
/// Decisions per operation: five starts, four waits, one give-up.
const DECISIONS: u64 = 10;

const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };

/// The policy every operation shares (an `Arc`: no copy per operation).
fn policy() -> Arc<Policy> {
    Arc::new(Policy::from_json(r#"{"max_attempts": 5, "total_timeout_ms": 60000}"#).expect("a valid policy"))
}

/// Drives one operation from creation to its ending, every attempt failing.
fn drive(mut operation: Operation) -> Decision {
    let mut decision = operation.poll(0);
    loop {
        decision = match decision {
            Ok(Decision::StartAttempt { attempt, abort_at_ms, .. }) => {
                operation.on_outcome(abort_at_ms, attempt, black_box(&UNAVAILABLE))
            }
            Ok(Decision::Wait { until_ms, .. }) => operation.poll(until_ms),
            Ok(ending) => return ending,
            Err(error) => panic!("the engine refused a valid event: {error}"),
        };
    }
}

#[inline(never)]
fn workload_engine_given_key(policy: &Arc<Policy>, key: &IdempotencyKey) -> u64 {
    let mut attempts = 0;
    for seed in 0..OPERATIONS {
        let options = OperationOptions::new(seed).with_idempotency_key(key.clone());
        if let Decision::GaveUp { attempts: made, .. } = drive(Operation::new(policy, 0, options)) {
            attempts += u64::from(made);
        }
    }
    attempts
}

#[inline(never)]
fn workload_engine_derived_key(policy: &Arc<Policy>) -> u64 {
    let mut attempts = 0;
    for seed in 0..OPERATIONS {
        if let Decision::GaveUp { attempts: made, .. } = drive(Operation::new(policy, 0, OperationOptions::new(seed))) {
            attempts += u64::from(made);
        }
    }
    attempts
}

/// SplitMix64, as the engine draws jitter.
struct SplitMix64(u64);

impl SplitMix64 {
    fn below_or_equal(&mut self, high: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % (high + 1)
    }
}

/// The numbers a hand-written loop is configured with (read through
/// `black_box`, as a real loop reads its configuration, so the compiler cannot
/// fold them into constants).
struct HandPolicy {
    max_attempts: u32,
    budget_ms: u64,
    attempt_timeout_ms: u64,
    base_ms: u64,
    cap_ms: u64,
    minimum_useful_ms: u64,
}

/// What a careful hand-written loop does: a deadline, an effective timeout per
/// attempt, a retryable-status check, capped exponential backoff with full
/// jitter, and "does the next attempt fit" before every wait.
#[inline(never)]
fn workload_hand_loop(policy: &HandPolicy) -> u64 {
    let mut attempts = 0;
    for seed in 0..OPERATIONS {
        let start_ms = black_box(0u64);
        let deadline_ms = start_ms.saturating_add(policy.budget_ms);
        let mut rng = SplitMix64(seed);
        let mut now_ms = start_ms;
        for attempt in 1..=policy.max_attempts {
            let remaining = deadline_ms.saturating_sub(now_ms);
            if remaining < policy.minimum_useful_ms.max(1) {
                break;
            }
            let timeout_ms = remaining.min(policy.attempt_timeout_ms);
            attempts += 1;
            // The attempt fails at its abort time: the clock is read then.
            now_ms = black_box(now_ms.saturating_add(timeout_ms));
            let status = black_box(503u16);
            let retryable = matches!(status, 408 | 429 | 500 | 502 | 503 | 504);
            if !retryable || attempt == policy.max_attempts {
                break;
            }
            let ceiling = policy.base_ms.checked_shl(attempt - 1).unwrap_or(u64::MAX).min(policy.cap_ms);
            let delay_ms = rng.below_or_equal(ceiling);
            if delay_ms.saturating_add(policy.minimum_useful_ms.max(1)) > deadline_ms.saturating_sub(now_ms) {
                break;
            }
            // The wait ends: the clock is read again.
            now_ms = black_box(now_ms.saturating_add(delay_ms));
        }
    }
    attempts
}

fn main() {
    let policy = policy();
    let key = IdempotencyKey::new("order-5001").expect("a valid key");
    let decisions = OPERATIONS * DECISIONS;
    let which = std::env::args().nth(1).unwrap_or_default();
    let attempts = match which.as_str() {
        "engine-given-key" => workload_engine_given_key(&policy, &key),
        "engine-derived-key" => workload_engine_derived_key(&policy),
        "hand-loop" => workload_hand_loop(black_box(&HandPolicy {
            max_attempts: 5,
            budget_ms: 60_000,
            attempt_timeout_ms: 3_000,
            base_ms: 100,
            cap_ms: 2_000,
            minimum_useful_ms: 100,
        })),
        _ => {
            eprintln!("usage: instructions engine-given-key | engine-derived-key | hand-loop");
            std::process::exit(2);
        }
    };
    println!("{which}: {OPERATIONS} operations, {decisions} decisions, {attempts} attempts");
}
