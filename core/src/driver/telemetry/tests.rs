use alloc::vec::Vec;

use super::*;
use crate::driver::{Action, Driver, DriverOptions};
use crate::engine::operation::OperationOptions;
use crate::ground::named::Named;
use crate::outcomes::action::AttemptResult;
use crate::outcomes::decision::AttemptSet;
use crate::policy::Policy;

fn unavailable() -> Outcome {
    Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None }
}

fn recording(json: &str) -> Driver {
    let policy = Policy::from_json(json).unwrap();
    let options = DriverOptions { record_events: true, ..DriverOptions::default() };
    Driver::new(&policy, 0, OperationOptions::new(7), options).unwrap()
}

fn all_signals(driver: &mut Driver) -> Vec<Signal> {
    let mut out = Vec::new();
    while let Some(event) = driver.poll_event() {
        out.extend(signals(&event));
    }
    out
}

#[test]
fn a_503_then_success_is_two_spans_the_second_a_resend() {
    let mut driver = recording(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#);
    let Ok(Action::StartAttempt(first)) = driver.poll_action(0) else { panic!("a start") };
    driver.handle_result(120, first.attempt, unavailable()).unwrap();
    assert_eq!(driver.poll_action(120), Ok(Action::Sleep { until_ms: 220 }));
    let Ok(Action::StartAttempt(second)) = driver.poll_action(220) else { panic!("a start") };
    driver.handle_result(260, second.attempt, Outcome::Success).unwrap();
    assert_eq!(
        all_signals(&mut driver),
        [
            Signal::AttemptStarted { attempt: 1, resend_count: None, hedge: false },
            Signal::Count { metric: Metric::Attempts, value: Some("first") },
            Signal::AttemptEnded { attempt: 1, status_code: Some(503), error_type: Some(ErrorType::Status(503)) },
            Signal::Count { metric: Metric::Retries, value: None },
            Signal::AttemptStarted { attempt: 2, resend_count: Some(1), hedge: false },
            Signal::Count { metric: Metric::Attempts, value: Some("retry") },
            Signal::AttemptEnded { attempt: 2, status_code: None, error_type: None },
            Signal::Count { metric: Metric::Operations, value: Some("succeeded") },
        ]
    );
}

#[test]
fn a_retry_started_at_once_is_a_retry_and_ends_the_span_of_the_result_first() {
    // A wait of 0 (here `immediate_first_retry`; also full jitter drawing
    // under 1 ms) starts the retry in the event of the result it follows.
    let mut driver = recording(r#"{"jitter": {"kind": "none"}, "backoff": {"immediate_first_retry": true}}"#);
    let Ok(Action::StartAttempt(first)) = driver.poll_action(0) else { panic!("a start") };
    driver.handle_result(50, first.attempt, unavailable()).unwrap();
    let Ok(Action::StartAttempt(_)) = driver.poll_action(50) else { panic!("a start at once") };
    let signals = all_signals(&mut driver);
    assert_eq!(
        signals[2..],
        [
            Signal::AttemptEnded { attempt: 1, status_code: Some(503), error_type: Some(ErrorType::Status(503)) },
            Signal::Count { metric: Metric::Retries, value: None },
            Signal::AttemptStarted { attempt: 2, resend_count: Some(1), hedge: false },
            Signal::Count { metric: Metric::Attempts, value: Some("retry") },
        ]
    );
}

#[test]
fn a_give_up_after_a_result_is_an_event_on_that_attempts_span_before_it_ends() {
    let mut driver = recording(r#"{"jitter": {"kind": "none"}, "max_attempts": 1}"#);
    let Ok(Action::StartAttempt(first)) = driver.poll_action(0) else { panic!("a start") };
    driver.handle_result(10, first.attempt, unavailable()).unwrap();
    let got = all_signals(&mut driver);
    assert_eq!(
        got[2..],
        [
            Signal::GaveUp { on_attempt: Some(1), reason: GiveUpReason::AttemptsExhausted, attempts: 1 },
            Signal::AttemptEnded { attempt: 1, status_code: Some(503), error_type: Some(ErrorType::Status(503)) },
            Signal::Count { metric: Metric::GiveUps, value: Some("attempts_exhausted") },
            Signal::Count { metric: Metric::Operations, value: Some("gave_up") },
        ]
    );
}

#[test]
fn a_cancel_while_waiting_gives_up_on_the_operations_span() {
    let mut driver = recording(r#"{"jitter": {"kind": "none"}}"#);
    let Ok(Action::StartAttempt(first)) = driver.poll_action(0) else { panic!("a start") };
    driver.handle_result(10, first.attempt, unavailable()).unwrap();
    all_signals(&mut driver);
    driver.handle_cancel(20);
    assert_eq!(
        all_signals(&mut driver),
        [
            Signal::GaveUp { on_attempt: None, reason: GiveUpReason::Cancelled, attempts: 1 },
            Signal::Count { metric: Metric::GiveUps, value: Some("cancelled") },
            Signal::Count { metric: Metric::Operations, value: Some("gave_up") },
        ]
    );
}

fn gave_up(reason: GiveUpReason, abort: &[u32]) -> Event {
    let mut abort_attempts = AttemptSet::EMPTY;
    for attempt in abort {
        abort_attempts.insert(*attempt);
    }
    let decision = Decision::GaveUp { reason, attempts: 2, remaining_ms: 0, refused_delay_ms: None, abort_attempts };
    Event { at_ms: 5, decision, after: None }
}

#[test]
fn budget_and_breaker_refusals_are_counted_beside_the_give_up() {
    let counts = |reason| {
        signals(&gave_up(reason, &[]))
            .into_iter()
            .filter_map(|signal| match signal {
                Signal::Count { metric, .. } => Some(metric),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(counts(GiveUpReason::BudgetExhausted), [Metric::GiveUps, Metric::BudgetRefusals, Metric::Operations]);
    assert_eq!(counts(GiveUpReason::CircuitOpen), [Metric::GiveUps, Metric::BreakerRefusals, Metric::Operations]);
    assert_eq!(counts(GiveUpReason::DeadlineInsufficient), [Metric::GiveUps, Metric::Operations]);
}

#[test]
fn attempts_an_ending_aborts_end_as_cancelled() {
    let mut event = gave_up(GiveUpReason::NotRetryable, &[2, 3]);
    event.after =
        Some(AttemptResult { attempt: 1, outcome: Outcome::Application { verdict: crate::Verdict::NotRetryable } });
    let ended: Vec<_> = signals(&event)
        .into_iter()
        .filter_map(|signal| match signal {
            Signal::AttemptEnded { attempt, error_type, .. } => Some((attempt, error_type)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ended,
        [
            (1, Some(ErrorType::Raised)),
            (2, Some(ErrorType::Named(ABORTED_ERROR_TYPE))),
            (3, Some(ErrorType::Named(ABORTED_ERROR_TYPE))),
        ]
    );
}

#[test]
fn a_hedge_is_a_resend_of_its_kind() {
    let decision = Decision::StartAttempt {
        attempt: 3,
        timeout_ms: 10,
        abort_at_ms: 10,
        request_id: crate::outcomes::decision::RequestId(1),
        remaining_ms: 10,
        hedge: true,
    };
    assert_eq!(
        signals(&Event { at_ms: 0, decision, after: None }),
        [
            Signal::AttemptStarted { attempt: 3, resend_count: Some(2), hedge: true },
            Signal::Count { metric: Metric::Attempts, value: Some("hedge") },
        ]
    );
}

#[test]
fn error_types_follow_the_conventions() {
    let status = |status| Outcome::HttpStatus { status, retry_after_ms: None, error_code: None };
    assert_eq!(ErrorType::of(&status(200)), None);
    assert_eq!(ErrorType::of(&status(399)), None);
    assert_eq!(ErrorType::of(&status(404)), Some(ErrorType::Status(404)));
    let lost = Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None };
    assert_eq!(ErrorType::of(&lost), Some(ErrorType::Named("connection_lost")));
    assert_eq!(ErrorType::of(&Outcome::Cancelled), Some(ErrorType::Named("cancelled")));
}

#[test]
fn names_follow_the_naming_rules() {
    for metric in Metric::ALL {
        let name = metric.otel_name();
        assert!(name.starts_with("retryplan.") && !name.ends_with("_total"), "{name}");
        assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'.' || b == b'_'), "{name}");
        assert!(metric.unit().starts_with('{') && metric.unit().ends_with('}'), "{name}");
        assert!(!metric.description().is_empty());
        assert_eq!(Metric::ALL.iter().filter(|other| other.otel_name() == name).count(), 1);
        let _ = metric.name();
    }
    for attribute in Attribute::ALL {
        assert_eq!(attribute.is_semantic_convention(), !attribute.key().starts_with("retryplan."), "{attribute:?}");
        assert!(!attribute.carriers().is_empty());
    }
}

#[test]
fn each_signal_names_its_own_kind_and_every_kind_has_one_name() {
    let each = [
        Signal::AttemptStarted { attempt: 1, resend_count: None, hedge: false },
        Signal::AttemptEnded { attempt: 1, status_code: None, error_type: None },
        Signal::GaveUp { on_attempt: None, reason: GiveUpReason::Cancelled, attempts: 1 },
        Signal::Count { metric: Metric::Retries, value: None },
    ];
    assert_eq!(each.map(Signal::kind), *SignalKind::ALL);
    let names = SignalKind::ALL.iter().map(|kind| kind.name()).collect::<Vec<_>>();
    assert_eq!(names, ["attempt_started", "attempt_ended", "gave_up", "count"]);
    assert_eq!(SignalKind::from_name("gave_up"), Some(SignalKind::GaveUp));
}
