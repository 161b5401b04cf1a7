//! The typed API's times as a Rust caller hands them in: a clock reading
//! earlier than one already seen counts as no time elapsed (outgoing headers
//! included), and a time past `MAX_MS` (2^53 - 1) is refused naming the field,
//! as the bindings refuse it, never read as a decision.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use retryplan::ground::codes::{GrpcCode, TransportFailure};
use retryplan::headers::retry_after::Pushback;
use retryplan::policy::MAX_MS;
use retryplan::propagation::Protocol;
use retryplan::{Action, Decision, Driver, DriverOptions, Error, Operation, OperationOptions, Outcome, Policy};

fn policy() -> Policy {
    Policy::from_json(
        r#"{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 3000},
            "response_reserve_ms": 50, "minimum_useful_attempt_ms": 100, "jitter": {"kind": "none"}}"#,
    )
    .unwrap()
}

fn refused(result: Result<impl core::fmt::Debug, Error>, field: &str) {
    match result {
        Err(Error::InvalidArgument { field: got, .. }) => assert_eq!(got, field),
        other => panic!("expected invalid_argument naming {field}, got {other:?}"),
    }
}

#[test]
fn outgoing_headers_at_an_earlier_reading_never_grant_more_than_the_attempt() {
    let policy = policy();
    let mut operation = Operation::new(&policy, 0, OperationOptions::new(7));
    assert!(matches!(
        operation.poll(1000),
        Ok(Decision::StartAttempt { attempt: 1, timeout_ms: 3000, abort_at_ms: 4000, .. })
    ));
    let http = operation.outgoing_headers(1, 0, Protocol::Http).unwrap();
    assert_eq!(http.get("retryplan-timeout-ms"), Some("3000"));
    let grpc = operation.outgoing_headers(1, 0, Protocol::Grpc).unwrap();
    assert_eq!(grpc.get("grpc-timeout"), Some("3000000u"));
    // A later reading still counts.
    let later = operation.outgoing_headers(1, 1500, Protocol::Http).unwrap();
    assert_eq!(later.get("retryplan-timeout-ms"), Some("2500"));

    let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
    assert!(matches!(driver.poll_action(1000), Ok(Action::StartAttempt(_))));
    let http = driver.outgoing_headers(1, 0, Protocol::Http).unwrap();
    assert_eq!(http.get("retryplan-timeout-ms"), Some("3000"));
}

#[test]
fn a_clock_reading_past_max_ms_is_refused_naming_now_ms() {
    let policy = policy();
    let mut operation = Operation::new(&policy, 0, OperationOptions::new(7));
    refused(operation.poll(MAX_MS + 1), "now_ms");
    assert!(matches!(operation.poll(0), Ok(Decision::StartAttempt { attempt: 1, .. })));
    refused(operation.on_outcome(MAX_MS + 1, 1, &Outcome::Success), "now_ms");
    refused(operation.outgoing_headers(1, u64::MAX, Protocol::Http), "now_ms");
    refused(operation.cancel(MAX_MS + 1), "now_ms");
    // Nothing changed: the attempt still runs, and MAX_MS itself is a time.
    assert_eq!(operation.running_attempts().iter().collect::<Vec<_>>(), [1]);
    assert!(matches!(operation.on_outcome(MAX_MS, 1, &Outcome::Success), Ok(Decision::Succeeded { .. })));
}

#[test]
fn a_start_past_max_ms_is_refused_by_the_driver_s_constructor_and_by_the_operation_s_first_reading() {
    let policy = policy();
    let mut operation = Operation::new(&policy, 1 << 53, OperationOptions::new(7));
    refused(operation.poll(1 << 53), "now_ms");
    refused(operation.poll(0), "now_ms");
    refused(operation.cancel(0), "now_ms");

    // The driver's constructor is fallible: it refuses the reading where it is given.
    refused(Driver::new(&policy, 1 << 53, OperationOptions::new(7), DriverOptions::default()).map(|_| ()), "now_ms");
}

#[test]
fn a_wait_past_max_ms_is_refused_naming_its_field() {
    let policy = policy();
    let huge = Some(u64::MAX);
    let http = Outcome::HttpStatus { status: 503, retry_after_ms: huge, error_code: None };
    let transport = Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: huge };
    let grpc = Outcome::GrpcStatus { code: GrpcCode::Unavailable, pushback: Some(Pushback::RetryAfterMs(MAX_MS + 1)) };

    let mut operation = Operation::new(&policy, 0, OperationOptions::new(7));
    assert!(matches!(operation.poll(0), Ok(Decision::StartAttempt { attempt: 1, .. })));
    refused(operation.on_outcome(10, 1, &http), "retry_after_ms");
    refused(operation.on_outcome(10, 1, &transport), "retry_after_ms");
    refused(operation.on_outcome(10, 1, &grpc), "pushback");
    let at_max = Outcome::HttpStatus { status: 503, retry_after_ms: Some(MAX_MS), error_code: None };
    assert!(matches!(operation.on_outcome(10, 1, &at_max), Ok(Decision::GaveUp { .. })));

    let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
    assert!(matches!(driver.poll_action(0), Ok(Action::StartAttempt(_))));
    refused(driver.handle_result(10, 1, http), "retry_after_ms");
    refused(driver.handle_result(MAX_MS + 1, 1, Outcome::Success), "now_ms");
    assert!(!driver.is_ended());
}

#[test]
fn a_cancel_past_max_ms_still_cancels_at_the_latest_reading() {
    let policy = policy();
    let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
    assert!(matches!(driver.poll_action(100), Ok(Action::StartAttempt(_))));
    driver.handle_cancel(u64::MAX);
    assert!(driver.is_ended());
}

#[test]
fn a6_jitter_never_draws_past_max_ms() {
    let policy = Policy::from_json(&format!(
        r#"{{"max_attempts": 2, "total_timeout_ms": {MAX_MS}, "attempt_timeout": {{"fixed_ms": 1000}},
            "backoff": {{"kind": "exponential", "base_ms": {MAX_MS}, "cap_ms": {MAX_MS}}}, "jitter": {{"kind": "a6"}}}}"#
    ))
    .unwrap();
    for seed in 0..64 {
        let mut operation = Operation::new(&policy, 0, OperationOptions::new(seed));
        assert!(matches!(operation.poll(0), Ok(Decision::StartAttempt { attempt: 1, .. })));
        let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
        match operation.on_outcome(10, 1, &unavailable).unwrap() {
            Decision::GaveUp { refused_delay_ms, .. } => {
                assert!(refused_delay_ms.is_none_or(|ms| ms <= MAX_MS), "{refused_delay_ms:?}");
            }
            Decision::Wait { delay_ms, until_ms, .. } => assert!(delay_ms <= MAX_MS && until_ms <= MAX_MS),
            other => panic!("{other:?}"),
        }
    }
}
