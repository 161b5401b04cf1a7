use alloc::string::ToString;
use alloc::vec::Vec;

use super::*;
use crate::{Action, Driver, DriverOptions, Error, GiveUpReason, OperationOptions, Policy};

fn read(policy: &Policy, headers: &[(&'static str, &str)]) -> Result<IncomingContext, Error> {
    IncomingContext::read(policy, 1_000, |name| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value))
}

#[test]
fn the_tightest_deadline_and_the_highest_attempt_win() {
    let policy = Policy::default();
    let context = read(
        &policy,
        &[
            ("grpc-timeout", "2S"),
            ("x-envoy-expected-rq-timeout-ms", "1500"),
            ("retryplan-timeout-ms", "1800"),
            ("grpc-previous-rpc-attempts", "1"),
            ("x-envoy-attempt-count", "3"),
        ],
    )
    .unwrap();
    assert_eq!(context.caller_remaining_ns, Some(1_500_000_000));
    assert_eq!(context.deadline_header, Some(ENVOY_EXPECTED_RQ_TIMEOUT_MS));
    assert_eq!(context.previous_attempts, 2);
    assert!(context.caller_retries);
    assert_eq!(context.deadline_ms(20), Some(2_480));
}

#[test]
fn families_not_read_are_ignored_even_when_malformed() {
    let policy = Policy::from_json(r#"{"propagation": {"read_headers": ["retryplan"]}}"#).unwrap();
    let context = read(&policy, &[("grpc-timeout", "soon"), ("x-envoy-attempt-count", "0")]).unwrap();
    assert_eq!(context, IncomingContext::none(1_000));
}

#[test]
fn refusals_name_the_header_and_the_rule() {
    let policy = Policy::default();
    let message = |headers: &[(&'static str, &str)]| read(&policy, headers).unwrap_err().to_string();
    assert_eq!(
        message(&[("grpc-timeout", "1.5S")]),
        "invalid request header grpc-timeout: expected only ASCII digits before the unit, got \"1.5S\""
    );
    assert_eq!(
        message(&[("retryplan-timeout-ms", "-5")]),
        "invalid request header retryplan-timeout-ms: expected only ASCII digits (no sign, no unit), got \"-5\""
    );
    assert_eq!(
        message(&[("x-envoy-attempt-count", "0")]),
        "invalid request header x-envoy-attempt-count: \"0\" is out of range (at least 1 (the first attempt is 1))"
    );
    assert_eq!(
        message(&[("retryplan-caller-retries", "true")]),
        "invalid request header retryplan-caller-retries: expected a structured-field boolean, ?1 or ?0, got \"true\""
    );
    assert_eq!(message(&[("retryplan-attempt", " ")]), "invalid request header retryplan-attempt: value is empty");
    assert!(message(&[("idempotency-key", "a key")]).contains("Idempotency-Key"));
    assert!(message(&[("grpc-previous-rpc-attempts", "4294967296")]).contains("out of range"));
}

/// The caller of this service sent the request: its malformed header is the
/// caller's to fix (`invalid_request_header`, blame `caller`), never the
/// `server` blame of a response header; a malformed key stays the
/// `invalid_argument` every request's key gets, also the caller's.
#[test]
fn a_malformed_request_header_is_the_callers() {
    let policy = Policy::default();
    let refused = |headers: &[(&'static str, &str)]| {
        let error = read(&policy, headers).unwrap_err();
        (error.code(), error.blame().name())
    };
    for header in REQUEST_HEADERS.iter().filter(|name| **name != IDEMPOTENCY_KEY) {
        assert_eq!(refused(&[(header, "?")]), ("invalid_request_header", "caller"), "{header}");
    }
    assert_eq!(refused(&[("idempotency-key", "a key")]), ("invalid_argument", "caller"));
    let Err(Error::InvalidRequestHeader(header)) = read(&policy, &[("grpc-timeout", "")]) else { panic!() };
    assert_eq!(*header, crate::headers::retry_after::HeaderError::Empty { header: GRPC_TIMEOUT });
}

#[test]
fn envoy_zero_is_no_timeout_and_ours_is_none_left() {
    let policy = Policy::default();
    assert_eq!(read(&policy, &[("x-envoy-expected-rq-timeout-ms", "0")]).unwrap().caller_remaining_ns, None);
    let spent = read(&policy, &[("retryplan-timeout-ms", "0")]).unwrap();
    assert_eq!(spent.deadline_ms(20), Some(1_000));
    let driver = Driver::with_incoming(&policy, 1_000, OperationOptions::new(1), DriverOptions::default(), &spent);
    let mut driver = driver.unwrap();
    let Action::Finish(ending) = driver.poll_action(1_000).unwrap() else { panic!("no time left") };
    assert!(matches!(
        ending.decision,
        crate::Decision::GaveUp { reason: GiveUpReason::DeadlineInsufficient, attempts: 0, .. }
    ));
}

#[test]
fn an_inner_layer_whose_caller_retries_makes_one_attempt_and_says_so_downstream() {
    let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
    let incoming = read(&policy, &[("retryplan-caller-retries", "?1")]).unwrap();
    let mut driver =
        Driver::with_incoming(&policy, 1_000, OperationOptions::new(3), DriverOptions::default(), &incoming).unwrap();
    assert!(matches!(driver.poll_action(1_000).unwrap(), Action::StartAttempt(_)));
    let sent = driver.outgoing_headers(1, 1_000, Protocol::Http).unwrap();
    let names: Vec<&str> = sent.iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["retryplan-timeout-ms", "retryplan-attempt", "retryplan-caller-retries"]);
    assert_eq!(sent.get("retryplan-caller-retries"), Some("?1"));
    driver.handle_response(1_100, 1, None, 503, |_| None, 0).unwrap();
    let Action::Finish(ending) = driver.poll_action(1_100).unwrap() else { panic!("one attempt") };
    assert!(matches!(ending.decision, crate::Decision::GaveUp { reason: GiveUpReason::AttemptsExhausted, .. }));
    // One attempt, handed back for the caller to retry: no "do not retry".
    assert!(driver.answer_headers(Protocol::Http).is_empty());
}

#[test]
fn every_layer_retries_under_retry_layer_every() {
    let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}, "propagation": {"retry_layer": "every"}}"#).unwrap();
    let incoming = read(&policy, &[("retryplan-caller-retries", "?1")]).unwrap();
    let mut driver =
        Driver::with_incoming(&policy, 0, OperationOptions::new(3), DriverOptions::default(), &incoming).unwrap();
    assert!(matches!(driver.poll_action(0).unwrap(), Action::StartAttempt(_)));
    driver.handle_response(10, 1, None, 503, |_| None, 0).unwrap();
    assert_eq!(driver.poll_action(10).unwrap(), Action::Sleep { until_ms: 110 });
}

#[test]
fn a_do_not_retry_answer_ends_the_retries_here() {
    let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
    let mut driver = Driver::new(&policy, 0, OperationOptions::new(3), DriverOptions::default()).unwrap();
    assert!(matches!(driver.poll_action(0).unwrap(), Action::StartAttempt(_)));
    let headers = [("retryplan-retryable", "?0")];
    let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
    driver.handle_response(10, 1, None, 503, lookup, 0).unwrap();
    let Action::Finish(ending) = driver.poll_action(10).unwrap() else { panic!("declined") };
    assert!(matches!(ending.decision, crate::Decision::GaveUp { reason: GiveUpReason::ServerDeclinedRetry, .. }));
    // And it holds for the chain: this layer says so to its own caller.
    assert_eq!(driver.answer_headers(Protocol::Http).get("retryplan-retryable"), Some("?0"));
    assert_eq!(driver.answer_headers(Protocol::Grpc).get("grpc-retry-pushback-ms"), Some("-1"));
    assert!(outgoing::declines_retry("yes") && !outgoing::declines_retry(" ?1 "));
}

#[test]
fn grpc_headers_are_exact_and_count_previous_attempts() {
    let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 2000}}"#).unwrap();
    let mut driver = Driver::new(&policy, 0, OperationOptions::new(3), DriverOptions::default()).unwrap();
    assert!(matches!(driver.poll_action(0).unwrap(), Action::StartAttempt(_)));
    let first = driver.outgoing_headers(1, 0, Protocol::Grpc).unwrap();
    assert_eq!(first.get("grpc-timeout"), Some("2000000u"));
    assert_eq!(first.get("grpc-previous-rpc-attempts"), None);
    driver.handle_response(10, 1, None, 503, |_| None, 0).unwrap();
    assert!(matches!(driver.poll_action(110).unwrap(), Action::StartAttempt(_)));
    // Sent 3 ms after its start: what is left of its 2000 ms.
    let second = driver.outgoing_headers(2, 113, Protocol::Grpc).unwrap();
    assert_eq!(second.get("grpc-timeout"), Some("1997000u"));
    assert_eq!(second.get("grpc-previous-rpc-attempts"), Some("1"));
    assert!(driver.outgoing_headers(1, 113, Protocol::Grpc).is_err(), "attempt 1 is not running");
}

#[test]
fn the_reader_looks_up_only_the_request_headers_listed() {
    let policy = Policy::default();
    let mut asked = Vec::new();
    let read = IncomingContext::read(&policy, 0, |name| {
        asked.push(name);
        None
    });
    assert_eq!(read, Ok(IncomingContext::none(0)));
    // Every family read (the default): each listed name asked once, in the listed order.
    assert_eq!(asked, REQUEST_HEADERS.to_vec());
}

/// An ending of `decision` whose last attempt answered HTTP `status`.
fn ending(decision: crate::Decision, status: u16) -> crate::Ending {
    let outcome = crate::Outcome::HttpStatus { status, retry_after_ms: None, error_code: None };
    crate::Ending {
        decision,
        last_result: Some(crate::AttemptResult { attempt: 2, outcome }),
        result: None,
        malformed_status: None,
    }
}

fn gave_up(reason: GiveUpReason) -> crate::Decision {
    crate::Decision::GaveUp {
        reason,
        attempts: 2,
        remaining_ms: 0,
        refused_delay_ms: None,
        abort_attempts: crate::outcomes::decision::AttemptSet::default(),
    }
}

#[test]
fn the_last_give_up_inside_a_served_request_decides_its_answer() {
    let mut answer = Answer::new();
    assert!(answer.headers(Protocol::Http).is_empty(), "nothing ended yet");
    let succeeded = crate::Decision::Succeeded {
        attempts: 1,
        winner: 1,
        abort_attempts: crate::outcomes::decision::AttemptSet::default(),
    };
    answer.record(&ending(succeeded, 200));
    assert!(!answer.do_not_retry(), "a success alone says nothing");
    answer.record(&ending(gave_up(GiveUpReason::BudgetExhausted), 503));
    assert_eq!(answer.headers(Protocol::Http).get("retryplan-retryable"), Some("?0"));
    assert_eq!(answer.headers(Protocol::Grpc).get("grpc-retry-pushback-ms"), Some("-1"));
    // A later success does not undo the overload the request answers for.
    answer.record(&ending(succeeded, 200));
    assert!(answer.do_not_retry());
    // A later give-up that says nothing (a deadline) replaces it: the last give-up decides.
    answer.record(&ending(gave_up(GiveUpReason::DeadlineInsufficient), 503));
    assert!(!answer.do_not_retry() && answer.headers(Protocol::Http).is_empty());
    // attempts_exhausted says "do not retry" only when the last answer was an overload.
    answer.record(&ending(gave_up(GiveUpReason::AttemptsExhausted), 503));
    assert!(answer.do_not_retry());
    answer.record(&ending(gave_up(GiveUpReason::AttemptsExhausted), 500));
    assert!(!answer.do_not_retry());
}
