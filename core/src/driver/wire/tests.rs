use super::*;
use crate::driver::{DriverOptions, EndingResult};
use crate::engine::operation::OperationOptions;
use crate::policy::Policy;
use alloc::string::String;
use alloc::vec::Vec;

const PLAIN: &str = r#"{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 300},
    "jitter": {"kind": "none"}, "minimum_useful_attempt_ms": 50, "response_reserve_ms": 0}"#;

fn driver(options: DriverOptions) -> Driver {
    Driver::new(&Policy::from_json(PLAIN).unwrap(), 0, OperationOptions::new(7), options).unwrap()
}

fn poll(now_ms: i64) -> [i64; INPUT_WORDS] {
    [InputKind::Poll.word(), now_ms, NONE, NONE, NONE, NONE, NONE, NONE]
}

fn result(now_ms: i64, attempt: i64, token: i64, kind: OutcomeKind, code: i64, delay: i64) -> [i64; INPUT_WORDS] {
    [InputKind::Result.word(), now_ms, attempt, token, 0, kind.word(), code, delay]
}

fn exchange(driver: &mut Driver, record: &[i64]) -> [i64; OUTPUT_WORDS] {
    let mut out = [NONE; OUTPUT_WORDS];
    driver.exchange(record, &mut out).unwrap();
    out
}

/// The rows of the module docs' table under `heading`: (word, field).
fn documented(heading: &str) -> Vec<(usize, String)> {
    let page = include_str!("../wire.md");
    let table = page.split(heading).nth(1).expect("the heading is on the page");
    table
        .lines()
        .skip_while(|line| !line.starts_with("| 0 "))
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells[1].parse().unwrap(), String::from(cells[2].trim_matches('`')))
        })
        .collect()
}

#[test]
fn the_page_documents_every_field_at_its_word() {
    let fields =
        |table: &[(&str, usize)]| table.iter().map(|(name, at)| (*at, String::from(*name))).collect::<Vec<_>>();
    assert_eq!(documented("## Input record"), fields(input::FIELDS));
    assert_eq!(documented("## Output record"), fields(output::FIELDS));
    assert_eq!(input::FIELDS.len(), INPUT_WORDS);
    assert_eq!(output::FIELDS.len(), OUTPUT_WORDS);
}

#[test]
fn kinds_are_numbered_by_their_place() {
    for (index, kind) in OutcomeKind::ALL.iter().enumerate() {
        assert_eq!(kind.word(), index as i64);
        assert_eq!(by_index::<OutcomeKind>(index as i64), Some(*kind));
    }
    assert_eq!(ActionKind::Finish.word(), 4);
    assert_eq!(by_index::<ActionKind>(5), None);
    assert_eq!(by_index::<ActionKind>(NONE), None);
}

#[test]
fn a_whole_operation_in_words_matches_the_typed_driver() {
    let mut typed = driver(DriverOptions::default());
    let mut wired = driver(DriverOptions::default());
    let start = exchange(&mut wired, &poll(0));
    let Action::StartAttempt(plan) = typed.poll_action(0).unwrap() else { panic!() };
    assert_eq!(start[output::RECEIPT], NONE);
    assert_eq!(start[output::ACTION_KIND], ActionKind::StartAttempt.word());
    assert_eq!(start[output::ATTEMPT], 1);
    assert_eq!((start[output::TIMEOUT_MS], start[output::ABORT_AT_MS]), (300, 300));
    let id = ((start[output::REQUEST_ID_HIGH] as u64) << 32) | start[output::REQUEST_ID_LOW] as u64;
    assert_eq!(id, plan.request_id.0);
    assert_eq!((start[output::REMAINING_MS], start[output::FLAGS]), (5000, 0));
    // A 503 with a server wait of 250 ms: sleep until 40 + 250.
    let slept = exchange(&mut wired, &result(40, 1, NONE, OutcomeKind::HttpStatus, 503, 250));
    assert_eq!((slept[output::RECEIPT], slept[output::ACTION_KIND], slept[output::UNTIL_MS]), (0, 2, 290));
    let second = exchange(&mut wired, &poll(290));
    assert_eq!((second[output::ACTION_KIND], second[output::ATTEMPT]), (0, 2));
    // It hangs: at 590 ms the driver aborts it (reason timed_out, index 0).
    let abort = exchange(&mut wired, &poll(590));
    assert_eq!((abort[output::ACTION_KIND], abort[output::ATTEMPT], abort[output::REASON]), (1, 2, 0));
    // Its late answer is discarded (receipt 1), and the driver sleeps on.
    let late = exchange(&mut wired, &result(600, 2, NONE, OutcomeKind::Success, NONE, NONE));
    assert_eq!((late[output::RECEIPT], late[output::ACTION_KIND]), (1, ActionKind::Sleep.word()));
    let third = exchange(&mut wired, &poll(late[output::UNTIL_MS]));
    assert_eq!((third[output::ACTION_KIND], third[output::ATTEMPT]), (0, 3));
    // Reset after sending (failure connection_lost): attempts exhausted.
    let lost = Failure::ALL.iter().position(|failure| *failure == Failure::ConnectionLost).unwrap() as i64;
    let end = exchange(&mut wired, &result(third[output::UNTIL_MS] + 500, 3, NONE, OutcomeKind::Failure, lost, NONE));
    let end = if end[output::ACTION_KIND] == ActionKind::Finish.word() { end } else { panic!("{end:?}") };
    assert_eq!(end[output::ENDING], EndingKind::GaveUp.word());
    assert_eq!(end[output::REASON], index_of(GiveUpReason::AttemptsExhausted));
    assert_eq!((end[output::ATTEMPTS], end[output::DETAIL], end[output::TOKEN]), (3, NONE, NONE));
}

#[test]
fn tokens_travel_through_the_words() {
    let mut wired = driver(DriverOptions { returns_responses: true, ..DriverOptions::default() });
    exchange(&mut wired, &poll(0));
    exchange(&mut wired, &result(40, 1, 11, OutcomeKind::HttpStatus, 503, NONE));
    exchange(&mut wired, &poll(140));
    let release = exchange(&mut wired, &result(200, 2, 12, OutcomeKind::HttpStatus, 200, NONE));
    assert_eq!((release[output::ACTION_KIND], release[output::TOKEN]), (ActionKind::Release.word(), 11));
    let end = exchange(&mut wired, &poll(200));
    assert_eq!(end[output::ENDING], EndingKind::Succeeded.word() + ENDING_RETURNS);
    assert_eq!((end[output::TOKEN], end[output::DETAIL], end[output::ABORT_AT_MS]), (12, 2, NONE));
    let Action::Finish(ending) = wired.poll_action(200).unwrap() else { panic!() };
    assert_eq!(
        ending.result,
        Some(EndingResult { token: 12, returned: true, readable_until_ms: None, held: Held::Value })
    );
}

#[test]
fn a_failed_response_returned_at_the_end_carries_its_attempts_abort_time() {
    let mut wired = driver(DriverOptions { returns_responses: true, ..DriverOptions::default() });
    let start = exchange(&mut wired, &poll(0));
    let refused = exchange(&mut wired, &result(40, 1, 11, OutcomeKind::HttpStatus, 400, NONE));
    assert_eq!(refused[output::ENDING], EndingKind::GaveUp.word() + ENDING_RETURNS);
    assert_eq!((refused[output::TOKEN], refused[output::ABORT_AT_MS]), (11, start[output::ABORT_AT_MS]));
    let Action::Finish(ending) = wired.poll_action(40).unwrap() else { panic!() };
    let readable_until_ms = Some(start[output::ABORT_AT_MS] as u64);
    assert_eq!(ending.result, Some(EndingResult { token: 11, returned: true, readable_until_ms, held: Held::Value }));
}

#[test]
fn odd_statuses_are_the_server_s_fault_however_they_arrive() {
    for status in [-1, 0, 99, 600, 70_000, MAX_WORD] {
        let mut wired = driver(DriverOptions::default());
        exchange(&mut wired, &poll(0));
        let out = exchange(&mut wired, &result(30, 1, NONE, OutcomeKind::HttpStatus, status, NONE));
        assert_eq!(out[output::RECEIPT], 0, "{status}");
        let Action::Sleep { .. } = wired.poll_action(30).unwrap() else { panic!("{status}") };
        let last = wired.operation().policy().http_outcome(status, |_| None, 0);
        assert_eq!(last, Failure::MalformedResponse.outcome(), "{status}");
    }
}

#[test]
fn broken_records_are_refused_by_field_and_change_nothing() {
    let mut wired = driver(DriverOptions::default());
    exchange(&mut wired, &poll(0));
    let refused = |wired: &mut Driver, record: &[i64]| {
        let mut out = [7; OUTPUT_WORDS];
        let error = wired.exchange(record, &mut out).unwrap_err();
        assert_eq!(out, [7; OUTPUT_WORDS], "output untouched");
        match error {
            Error::InvalidArgument { field: name, rule } => (name, alloc::string::ToString::to_string(&rule)),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(refused(&mut wired, &[9, 0]), ("input_kind", String::from("must be an input kind (0..=3), got 9")));
    assert_eq!(refused(&mut wired, &[0]).0, "input");
    assert_eq!(refused(&mut wired, &[0, -5]).0, "now_ms");
    assert_eq!(refused(&mut wired, &[0, MAX_WORD + 1]).0, "now_ms");
    assert_eq!(refused(&mut wired, &[1, 10, 1]), ("input", String::from("needs 8 words for its kind, got 3")));
    assert_eq!(refused(&mut wired, &result(10, 0, NONE, OutcomeKind::Success, NONE, NONE)).0, "attempt");
    assert_eq!(refused(&mut wired, &result(10, 1, -3, OutcomeKind::Success, NONE, NONE)).0, "token");
    assert_eq!(refused(&mut wired, &[1, 10, 1, 4, 2, 0, NONE, NONE]).0, "held");
    assert_eq!(refused(&mut wired, &[1, 10, 1, NONE, NONE, 7, NONE, NONE]).0, "outcome_kind");
    assert_eq!(refused(&mut wired, &result(10, 1, NONE, OutcomeKind::GrpcStatus, 17, NONE)).0, "outcome_code");
    assert_eq!(refused(&mut wired, &result(10, 1, NONE, OutcomeKind::Transport, 3, NONE)).0, "outcome_code");
    assert_eq!(refused(&mut wired, &result(10, 1, NONE, OutcomeKind::Failure, 13, NONE)).0, "outcome_code");
    assert_eq!(refused(&mut wired, &result(10, 1, NONE, OutcomeKind::Application, 4, NONE)).0, "outcome_code");
    assert_eq!(refused(&mut wired, &result(10, 1, NONE, OutcomeKind::HttpStatus, 503, -2)).0, "outcome_retry_after_ms");
    // Nothing changed: attempt 1 is still running and its answer is accepted.
    let out = exchange(&mut wired, &result(20, 1, NONE, OutcomeKind::Success, NONE, NONE));
    assert_eq!((out[output::RECEIPT], out[output::ACTION_KIND]), (0, ActionKind::Finish.word()));
}

#[test]
fn grpc_pushback_and_cancel_in_words() {
    let mut wired = driver(DriverOptions::default());
    exchange(&mut wired, &poll(0));
    let unavailable = i64::from(GrpcCode::Unavailable.number());
    let declined =
        exchange(&mut wired, &result(10, 1, NONE, OutcomeKind::GrpcStatus, unavailable, PUSHBACK_DO_NOT_RETRY));
    assert_eq!(declined[output::ENDING], EndingKind::GaveUp.word());
    assert_eq!(declined[output::REASON], index_of(GiveUpReason::ServerDeclinedRetry));
    let mut cancelled = driver(DriverOptions::default());
    exchange(&mut cancelled, &poll(0));
    let abort = exchange(&mut cancelled, &[InputKind::Cancel.word(), 5]);
    assert_eq!((abort[output::ACTION_KIND], abort[output::REASON]), (1, index_of(AbortReason::Cancelled)));
    let end = exchange(&mut cancelled, &poll(5));
    assert_eq!(end[output::REASON], index_of(GiveUpReason::Cancelled));
}

#[test]
fn a_transport_failure_carries_the_server_s_wait() {
    // A timed-out attempt with a 2000 ms retry-after waits 2000 ms (the
    // backoff of PLAIN, no jitter, is 100 ms): the wait word is read for
    // transport and failure kinds alike.
    let timed_out = TransportFailure::ALL.iter().position(|failure| *failure == TransportFailure::TimedOut).unwrap();
    let read_timeout = Failure::ALL.iter().position(|failure| *failure == Failure::ReadTimeout).unwrap();
    for (kind, code) in [(OutcomeKind::Transport, timed_out), (OutcomeKind::Failure, read_timeout)] {
        let mut wired = driver(DriverOptions::default());
        exchange(&mut wired, &poll(0));
        let wait = exchange(&mut wired, &result(10, 1, NONE, kind, code as i64, 2_000));
        assert_eq!((wait[output::ACTION_KIND], wait[output::UNTIL_MS]), (ActionKind::Sleep.word(), 2_010), "{kind:?}");
    }
    let mut wired = driver(DriverOptions::default());
    exchange(&mut wired, &poll(0));
    let cancelled = Failure::ALL.iter().position(|failure| *failure == Failure::Cancelled).unwrap() as i64;
    let mut out = [7; OUTPUT_WORDS];
    let error = wired.exchange(&result(10, 1, NONE, OutcomeKind::Failure, cancelled, 500), &mut out).unwrap_err();
    assert!(matches!(error, Error::InvalidArgument { field: "outcome_retry_after_ms", .. }), "{error:?}");
    let error =
        wired.exchange(&result(10, 1, NONE, OutcomeKind::Transport, timed_out as i64, -2), &mut out).unwrap_err();
    assert!(matches!(error, Error::InvalidArgument { field: "outcome_retry_after_ms", .. }), "{error:?}");
}

#[test]
#[allow(deprecated)]
fn the_outcome_word_keeps_its_old_name_for_one_release() {
    assert_eq!(input::OUTCOME_DELAY_MS, input::OUTCOME_RETRY_AFTER_MS);
    assert!(input::FIELDS.contains(&("outcome_retry_after_ms", 7)));
}
