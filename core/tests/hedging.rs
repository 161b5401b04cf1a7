//! Hedging and shared controls inside the operation state machine.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use retryplan::ground::codes::TransportFailure;
use retryplan::outcomes::decision::AttemptSet;
use retryplan::policy::{HedgingConfig, JitterConfig};
use retryplan::{
    Decision, Dependency, GiveUpReason, Idempotency, Operation, OperationOptions, Outcome, Policy, PolicyConfig,
};

fn hedged(max_attempts: u32, delay_ms: u64, max_hedged_attempts: u32) -> Policy {
    Policy::new(&PolicyConfig {
        max_attempts,
        total_timeout_ms: 5_000,
        jitter: JitterConfig::None,
        hedging: Some(HedgingConfig { delay_ms, max_hedged_attempts }),
        ..PolicyConfig::default()
    })
    .unwrap()
}

fn started(decision: Decision) -> (u32, bool) {
    match decision {
        Decision::StartAttempt { attempt, hedge, .. } => (attempt, hedge),
        other => panic!("expected a start, got {other:?}"),
    }
}

const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };

#[test]
fn a_hedge_that_wins_aborts_the_first_attempt() {
    let mut op = Operation::new(&hedged(3, 100, 1), 0, OperationOptions::new(1));
    assert_eq!(started(op.poll(0).unwrap()), (1, false));
    assert_eq!(op.poll(50).unwrap(), Decision::AwaitOutcome { running: 1, until_ms: 100 });
    assert_eq!(started(op.poll(100).unwrap()), (2, true));
    assert_eq!(op.poll(150).unwrap(), Decision::AwaitOutcome { running: 2, until_ms: 3_000 }, "no room for a third");
    let mut abort = AttemptSet::EMPTY;
    abort.insert(1);
    assert_eq!(
        op.on_outcome(180, 2, &Outcome::Success).unwrap(),
        Decision::Succeeded { attempts: 2, winner: 2, abort_attempts: abort }
    );
}

#[test]
fn a_non_fatal_failure_lets_the_other_attempt_run_and_hedges_again() {
    let mut op = Operation::new(&hedged(4, 100, 1), 0, OperationOptions::new(1));
    started(op.poll(0).unwrap());
    started(op.poll(100).unwrap());
    // Attempt 1 fails retryably while 2 runs: the next hedge starts at once.
    assert_eq!(started(op.on_outcome(120, 1, &UNAVAILABLE).unwrap()), (3, true));
    // A fatal answer ends everything and lists the attempts to abort.
    let not_found = Outcome::HttpStatus { status: 404, retry_after_ms: None, error_code: None };
    let Decision::GaveUp { reason, abort_attempts, .. } = op.on_outcome(130, 3, &not_found).unwrap() else {
        panic!("gives up")
    };
    assert_eq!(reason, GiveUpReason::NotRetryable);
    assert_eq!(abort_attempts.iter().collect::<Vec<_>>(), [2]);
}

#[test]
fn hedges_never_exceed_max_attempts_or_the_in_flight_cap() {
    let mut op = Operation::new(&hedged(3, 0, 4), 0, OperationOptions::new(1));
    assert_eq!(started(op.poll(0).unwrap()), (1, false));
    assert_eq!(started(op.poll(0).unwrap()), (2, true));
    assert_eq!(started(op.poll(0).unwrap()), (3, true));
    assert!(matches!(op.poll(0).unwrap(), Decision::AwaitOutcome { running: 3, .. }), "max_attempts 3 reached");
}

#[test]
fn hedging_an_unsafe_write_is_an_invalid_policy() {
    let config = PolicyConfig {
        idempotency: Idempotency::Unsafe,
        hedging: Some(HedgingConfig { delay_ms: 100, max_hedged_attempts: 1 }),
        ..PolicyConfig::default()
    };
    let error = Policy::new(&config).unwrap_err();
    assert!(error.to_string().contains("hedging needs an operation that may be repeated"), "{error}");
}

#[test]
fn a_hedge_refused_by_the_budget_does_not_end_the_operation() {
    let dependency =
        Dependency::from_json(r#"{"budget": {"kind": "token_bucket", "max_tokens": 2, "token_ratio": 0.1}}"#).unwrap();
    // Drain the bucket to the threshold: 2 tokens -> 1 (1 > 1 is false).
    dependency.budget().unwrap().on_failure(0, None).unwrap();
    let options = OperationOptions::new(1).with_dependency(dependency.clone());
    let mut op = Operation::new(&hedged(3, 100, 1), 0, options);
    started(op.poll(0).unwrap());
    assert_eq!(op.poll(100).unwrap(), Decision::AwaitOutcome { running: 1, until_ms: 3_000 });
    assert_eq!(op.poll(200).unwrap(), Decision::AwaitOutcome { running: 1, until_ms: 3_000 }, "hedging stopped");
    assert!(matches!(op.on_outcome(300, 1, &Outcome::Success).unwrap(), Decision::Succeeded { winner: 1, .. }));
}

#[test]
fn the_budget_token_is_taken_after_the_wait_and_a_refused_retry_gives_up_when_the_failure_arrives() {
    let dependency = Dependency::from_json(
        r#"{"budget": {"kind": "quota", "capacity": 10, "retry_cost": 5, "timeout_retry_cost": 10, "success_increment": 1}}"#,
    )
    .unwrap();
    let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
    let mut op = Operation::new(&policy, 0, OperationOptions::new(1).with_dependency(dependency.clone()));
    started(op.poll(0).unwrap());
    assert!(matches!(op.on_outcome(10, 1, &UNAVAILABLE).unwrap(), Decision::Wait { until_ms: 110, .. }));
    let available = |dependency: &Dependency| match dependency.budget().unwrap().snapshot(0) {
        retryplan::controls::budget::BudgetSnapshot::Quota { available, .. } => available,
        other => panic!("{other:?}"),
    };
    assert_eq!(available(&dependency), 10, "nothing is charged while waiting");
    assert!(matches!(op.cancel(50).unwrap(), Decision::GaveUp { reason: GiveUpReason::Cancelled, .. }));
    assert_eq!(available(&dependency), 10, "the cancelled waiter spent nothing");

    let mut op = Operation::new(&policy, 0, OperationOptions::new(1).with_dependency(dependency.clone()));
    started(op.poll(0).unwrap());
    let timed_out = Outcome::Transport { failure: TransportFailure::TimedOut, retry_after_ms: None };
    op.on_outcome(10, 1, &timed_out).unwrap();
    assert_eq!(started(op.poll(110).unwrap()), (2, false));
    assert_eq!(available(&dependency), 0, "a retry after a timeout costs 10");
    // The quota (0) cannot pay the next retry: refused when the failure arrives, with no wait first.
    assert!(matches!(
        op.on_outcome(120, 2, &timed_out).unwrap(),
        Decision::GaveUp { reason: GiveUpReason::BudgetExhausted, attempts: 2, .. }
    ));
}

#[test]
fn an_open_breaker_refuses_and_no_retry_slot_refuses_retries() {
    let dependency = Dependency::from_json(
        r#"{"breaker": {"trip": {"kind": "consecutive", "failures": 1}, "open_ms": 1000, "half_open_probes": 1},
            "retry_slots": 0}"#,
    )
    .unwrap();
    let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
    let mut op = Operation::new(&policy, 0, OperationOptions::new(1).with_dependency(dependency.clone()));
    started(op.poll(0).unwrap());
    op.on_outcome(10, 1, &UNAVAILABLE).unwrap();
    assert!(matches!(op.poll(110).unwrap(), Decision::GaveUp { reason: GiveUpReason::CircuitOpen, .. }));

    let mut other = Operation::new(&policy, 1_010, OperationOptions::new(2).with_dependency(dependency.clone()));
    assert_eq!(started(other.poll(1_010).unwrap()), (1, false), "half-open: one probe passes");
    other.on_outcome(1_020, 1, &UNAVAILABLE).unwrap();
    // The probe failed: open again until 2020.
    assert!(matches!(other.poll(1_120).unwrap(), Decision::GaveUp { reason: GiveUpReason::CircuitOpen, .. }));

    let mut late = Operation::new(&policy, 2_020, OperationOptions::new(3).with_dependency(dependency.clone()));
    started(late.poll(2_020).unwrap());
    assert!(matches!(late.on_outcome(2_030, 1, &Outcome::Success).unwrap(), Decision::Succeeded { .. }));
    assert_eq!(
        dependency.breaker().unwrap().snapshot(2_030).state,
        retryplan::controls::breaker::BreakerState::Closed,
        "the probe closed it"
    );
}

#[test]
fn dropping_an_operation_gives_back_its_slots() {
    let dependency = Dependency::from_json(r#"{"retry_slots": 1}"#).unwrap();
    let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
    {
        let mut op = Operation::new(&policy, 0, OperationOptions::new(1).with_dependency(dependency.clone()));
        started(op.poll(0).unwrap());
        op.on_outcome(10, 1, &UNAVAILABLE).unwrap();
        started(op.poll(110).unwrap());
        assert_eq!(dependency.retry_slots().unwrap().in_use(), 1);
    }
    assert_eq!(dependency.retry_slots().unwrap().in_use(), 0);
}
