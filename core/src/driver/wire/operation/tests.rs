use super::*;
use crate::driver::wire::{InputKind, OutcomeKind, PUSHBACK_DO_NOT_RETRY};
use crate::engine::operation::OperationOptions;
use crate::ground::named::Named;
use crate::headers::retry_after::Pushback;
use crate::outcomes::classify::{GrpcCode, Outcome, Verdict};
use crate::outcomes::decision::AttemptSet;
use crate::policy::Policy;
use alloc::string::String;
use alloc::vec::Vec;

fn operation(json: &str) -> Operation {
    Operation::new(&Policy::from_json(json).unwrap(), 0, OperationOptions::new(11))
}

fn poll(now_ms: i64) -> [i64; 8] {
    [InputKind::Poll.word(), now_ms, NONE, NONE, NONE, NONE, NONE, NONE]
}

fn result(now_ms: i64, attempt: i64, kind: OutcomeKind, code: i64, delay: i64) -> [i64; 8] {
    [InputKind::Result.word(), now_ms, attempt, NONE, NONE, kind.word(), code, delay]
}

/// Steps a typed and a wired operation alike and checks the record is the typed decision, encoded.
fn same(typed: &mut Operation, wired: &mut Operation, record: &[i64], call: impl FnOnce(&mut Operation) -> Decision) {
    let decision = call(typed);
    let mut expected = [NONE; DECISION_WORDS];
    encode_decision(&decision, &mut expected);
    let mut out = [NONE; DECISION_WORDS];
    wired.exchange(record, &mut out).unwrap();
    assert_eq!(out, expected, "{decision:?}");
}

#[test]
fn the_page_documents_every_field_at_its_word() {
    let page = include_str!("../../wire.md");
    let table = page.split("## Operation: the decision record").nth(1).expect("the heading is on the page");
    let documented: Vec<(usize, String)> = table
        .lines()
        .skip_while(|line| !line.starts_with("| 0 "))
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells[1].parse().unwrap(), String::from(cells[2].trim_matches('`')))
        })
        .collect();
    let fields: Vec<(usize, String)> = decision::FIELDS.iter().map(|(name, at)| (*at, String::from(*name))).collect();
    assert_eq!(documented, fields);
    assert_eq!(fields.len(), DECISION_WORDS);
    assert_eq!(DecisionKind::ALL.len(), 7);
    assert_eq!(DecisionKind::Restart.word(), 6);
}

#[test]
fn every_decision_in_words_is_the_typed_one() {
    let json = r#"{"max_attempts": 3, "jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#;
    let (mut typed, mut wired) = (operation(json), operation(json));
    same(&mut typed, &mut wired, &poll(0), |o| o.poll(0).unwrap());
    let busy = Outcome::GrpcStatus { code: GrpcCode::Unavailable, pushback: Some(Pushback::RetryAfterMs(700)) };
    let record = result(10, 1, OutcomeKind::GrpcStatus, 14, 700);
    same(&mut typed, &mut wired, &record, |o| o.on_outcome(10, 1, &busy).unwrap());
    same(&mut typed, &mut wired, &poll(20), |o| o.poll(20).unwrap());
    same(&mut typed, &mut wired, &poll(710), |o| o.poll(710).unwrap());
    let declined = Outcome::GrpcStatus { code: GrpcCode::Unavailable, pushback: Some(Pushback::DoNotRetry) };
    let record = result(720, 2, OutcomeKind::GrpcStatus, 14, PUSHBACK_DO_NOT_RETRY);
    same(&mut typed, &mut wired, &record, |o| o.on_outcome(720, 2, &declined).unwrap());
    // Ended: both refuse alike, and the record is left as it was.
    let mut out = [7; DECISION_WORDS];
    assert_eq!(wired.exchange(&poll(800), &mut out), Err(typed.poll(800).unwrap_err()));
    assert_eq!(out, [7; DECISION_WORDS]);
}

#[test]
fn hedges_aborts_and_cancel_in_words() {
    let json = r#"{"max_attempts": 100, "total_timeout_ms": 1000000, "jitter": {"kind": "none"},
        "attempt_timeout": {"fixed_ms": 1000}, "minimum_useful_attempt_ms": 1,
        "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0},
        "hedging": {"delay_ms": 50, "max_hedged_attempts": 1}, "idempotency": "idempotent"}"#;
    let (mut typed, mut wired) = (operation(json), operation(json));
    // 65 attempts fail one at a time; attempt 66 runs, then a hedge (67) wins.
    for attempt in 1..=65 {
        let now = attempt * 2;
        same(&mut typed, &mut wired, &poll(now), |o| o.poll(now as u64).unwrap());
        let busy = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
        let record = result(now + 1, attempt, OutcomeKind::HttpStatus, 503, NONE);
        same(&mut typed, &mut wired, &record, |o| o.on_outcome(now as u64 + 1, attempt as u32, &busy).unwrap());
    }
    // Attempt 66 started at once (no backoff); 50 ms later a hedge.
    let mut out = [NONE; DECISION_WORDS];
    wired.exchange(&poll(200), &mut out).unwrap();
    typed.poll(200).unwrap();
    assert_eq!((out[decision::ATTEMPT], out[decision::FLAGS]), (67, FLAG_HEDGE));
    let record = result(260, 67, OutcomeKind::Success, NONE, NONE);
    same(&mut typed, &mut wired, &record, |o| o.on_outcome(260, 67, &Outcome::Success).unwrap());
    wired.exchange(&poll(270), &mut out).unwrap_err();
    // Every abort word: attempts 1, 32, 33, 66, 128.
    let mut set = AttemptSet::EMPTY;
    for attempt in [1, 32, 33, 66, 128] {
        set.insert(attempt);
    }
    encode_decision(&Decision::Reconcile { attempts: 128, remaining_ms: 5, abort_attempts: set }, &mut out);
    let aborts =
        [out[decision::ABORTS_1], out[decision::ABORTS_33], out[decision::ABORTS_65], out[decision::ABORTS_97]];
    assert_eq!(aborts, [1 | 1 << 31, 1, 0b10, 1 << 31]);
    let (mut typed, mut wired) = (operation(json), operation(json));
    same(&mut typed, &mut wired, &poll(0), |o| o.poll(0).unwrap());
    let cancel = [InputKind::Cancel.word(), 5];
    same(&mut typed, &mut wired, &cancel, |o| o.cancel(5).unwrap());
}

#[test]
fn an_operation_refuses_a_status_the_driver_would_read_as_malformed() {
    let json = r#"{"jitter": {"kind": "none"}}"#;
    let mut wired = operation(json);
    let mut out = [NONE; DECISION_WORDS];
    wired.exchange(&poll(0), &mut out).unwrap();
    let before = out;
    for status in [-1, 0, 99, 600, 70000] {
        let error = wired.exchange(&result(10, 1, OutcomeKind::HttpStatus, status, NONE), &mut out).unwrap_err();
        assert_eq!(error.code(), "invalid_argument");
        assert!(matches!(error, Error::InvalidArgument { field: "outcome_code", .. }), "{error:?}");
        assert_eq!(out, before);
    }
    // The application's verdict, then a restart's deadline in `detail`.
    let record = result(10, 1, OutcomeKind::Application, 2, NONE);
    wired.exchange(&record, &mut out).unwrap();
    assert_eq!(Verdict::ALL[2], Verdict::Conflict);
    assert_eq!(out[decision::DECISION_KIND], DecisionKind::Restart.word());
    assert_eq!(out[decision::DETAIL], wired.deadline_ms() as i64);
}

#[test]
fn a_decision_writes_only_the_words_of_its_kind() {
    let mut record = [7; DECISION_WORDS];
    encode_decision(&Decision::AwaitOutcome { running: 2, until_ms: 90 }, &mut record);
    let mut expected = [7; DECISION_WORDS];
    expected[decision::DECISION_KIND] = DecisionKind::AwaitOutcome.word();
    expected[decision::RUNNING] = 2;
    expected[decision::UNTIL_MS] = 90;
    assert_eq!(record, expected);
    // A reconcile's `detail` is documented as -1: written so.
    let reconcile = Decision::Reconcile { attempts: 3, remaining_ms: 5, abort_attempts: AttemptSet::EMPTY };
    encode_decision(&reconcile, &mut record);
    assert_eq!((record[decision::DETAIL], record[decision::ATTEMPTS], record[decision::ABORTS_97]), (NONE, 3, 0));
    assert_eq!(record[decision::TIMEOUT_MS], 7, "a word the kind does not use is left as it was");
}

#[test]
#[allow(deprecated)]
fn the_renamed_words_keep_their_old_names_for_one_release() {
    assert_eq!(decision::SERVER_DELAY_MS, decision::RETRY_AFTER_MS);
    assert_eq!(decision::IN_FLIGHT, decision::RUNNING);
}
