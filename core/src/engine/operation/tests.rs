use super::*;

use crate::controls::dependency::Dependency;
use crate::outcomes::classify::TransportFailure;
use crate::policy::{AttemptTimeoutConfig, BackoffConfig, JitterConfig, PolicyConfig};

fn checkout() -> Policy {
    Policy::new(&PolicyConfig {
        max_attempts: 3,
        total_timeout_ms: 800,
        attempt_timeout: AttemptTimeoutConfig::FixedMs(200),
        response_reserve_ms: 50,
        minimum_useful_attempt_ms: 200,
        backoff: BackoffConfig { base_ms: 50, cap_ms: 400, ..BackoffConfig::default() },
        jitter: JitterConfig::None,
        ..PolicyConfig::default()
    })
    .expect("valid")
}

const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };

#[test]
fn the_800_ms_checkout_gives_up_before_a_third_attempt_that_needs_850_ms() {
    let mut op = Operation::new(&checkout(), 0, OperationOptions::new(1));
    assert!(matches!(op.poll(50), Ok(Decision::StartAttempt { attempt: 1, timeout_ms: 200, abort_at_ms: 250, .. })));
    assert!(matches!(op.on_outcome(250, 1, &UNAVAILABLE), Ok(Decision::Wait { delay_ms: 50, until_ms: 300, .. })));
    assert!(matches!(op.poll(300), Ok(Decision::StartAttempt { attempt: 2, timeout_ms: 200, abort_at_ms: 500, .. })));
    assert_eq!(
        op.on_outcome(500, 2, &UNAVAILABLE),
        Ok(Decision::GaveUp {
            reason: GiveUpReason::DeadlineInsufficient,
            attempts: 2,
            remaining_ms: 250,
            refused_delay_ms: Some(100),
            abort_attempts: AttemptSet::EMPTY
        })
    );
    assert_eq!(op.poll(600), Err(Error::OperationEnded));
}

#[test]
fn misuse_is_an_error_and_changes_nothing() {
    let mut op = Operation::new(&checkout(), 0, OperationOptions::new(1));
    assert_eq!(op.on_outcome(0, 1, &UNAVAILABLE).unwrap_err().code(), "attempt_not_running");
    let _ = op.poll(0);
    assert_eq!(op.on_outcome(0, 2, &UNAVAILABLE).unwrap_err().code(), "attempt_not_running");
    let bad = Outcome::HttpStatus { status: 42, retry_after_ms: None, error_code: None };
    assert_eq!(op.on_outcome(0, 1, &bad).unwrap_err().code(), "invalid_argument");
    assert!(matches!(op.poll(10), Ok(Decision::AwaitOutcome { running: 1, until_ms: 200 })));
}

#[test]
fn unsafe_ambiguous_write_reconciles_but_not_sent_retries() {
    let config =
        PolicyConfig { idempotency: Idempotency::Unsafe, jitter: JitterConfig::None, ..PolicyConfig::default() };
    let policy = Policy::new(&config).expect("valid");
    let mut op = Operation::new(&policy, 0, OperationOptions::new(1));
    let _ = op.poll(0);
    let not_sent = Outcome::Transport { failure: TransportFailure::NotSent, retry_after_ms: None };
    assert!(matches!(op.on_outcome(10, 1, &not_sent), Ok(Decision::Wait { .. })));
    let _ = op.poll(110);
    let lost = Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None };
    assert!(matches!(op.on_outcome(200, 2, &lost), Ok(Decision::Reconcile { attempts: 2, .. })));
}

#[test]
fn every_grant_is_settled_when_an_attempt_ends_or_the_operation_is_dropped() {
    let dependency = Dependency::from_json(
        r#"{"budget": {"kind": "quota", "capacity": 100, "retry_cost": 5, "timeout_retry_cost": 10, "success_increment": 1},
            "breaker": {"trip": {"kind": "consecutive", "failures": 100}, "open_ms": 1000, "half_open_probes": 1},
            "retry_slots": 5}"#,
    )
    .unwrap();
    let outstanding = |dependency: &Dependency| {
        (
            dependency.breaker().unwrap().permits_outstanding(),
            dependency.budget().unwrap().charges_outstanding(),
            dependency.retry_slots().unwrap().in_use(),
        )
    };
    // None: the operation is dropped mid-attempt; Some(None): the caller cancels it.
    for ending in
        [None, Some(None), Some(Some(Outcome::Cancelled)), Some(Some(UNAVAILABLE)), Some(Some(Outcome::Success))]
    {
        let options = OperationOptions::new(3).with_dependency(Arc::clone(&dependency));
        let mut op = Operation::new(&checkout(), 0, options);
        let _ = op.poll(0);
        assert!(matches!(op.on_outcome(10, 1, &UNAVAILABLE), Ok(Decision::Wait { until_ms: 60, .. })));
        assert!(matches!(op.poll(60), Ok(Decision::StartAttempt { attempt: 2, .. })));
        assert_eq!(outstanding(&dependency), (1, 1, 1), "the retry holds a permit, a charge and a slot");
        match &ending {
            None => drop(op),
            Some(None) => assert!(matches!(op.cancel(70), Ok(Decision::GaveUp { .. }))),
            Some(Some(outcome)) => drop(op.on_outcome(70, 2, outcome).unwrap()),
        }
        assert_eq!(outstanding(&dependency), (0, 0, 0), "after {ending:?}");
    }
}

#[test]
fn request_ids_differ_per_attempt_and_keys_are_stable() {
    let op = Operation::new(&checkout(), 0, OperationOptions::new(9));
    assert_ne!(op.request_id(1), op.request_id(2));
    let again = Operation::new(&checkout(), 0, OperationOptions::new(9));
    assert_eq!(op.idempotency_key(), again.idempotency_key());
    assert_eq!(op.idempotency_key().as_str().len(), 36);
    assert_eq!(&op.idempotency_key().as_str()[14..15], "4");
}

#[test]
#[allow(deprecated)]
fn the_old_names_of_remaining_ms_and_total_timeout_ms_give_the_same_numbers() {
    let policy = checkout();
    assert_eq!((policy.total_budget_ms(), policy.total_timeout_ms()), (800, 800));
    let op = Operation::new(&policy, 0, OperationOptions::new(1));
    for now in [0, 100, 750, 900] {
        assert_eq!(op.remaining_budget_ms(now), op.remaining_ms(now), "at {now}");
    }
    assert_eq!(op.remaining_ms(100), 650);
}
