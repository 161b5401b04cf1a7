//! The wire's C functions (`src/wire.rs`) against the core's typed calls.

use std::sync::Arc;

use super::*;
use crate::driver::DriverOptions;
use crate::operation::OperationOptions;
use crate::policy::Policy;

#[test]
fn the_c_path_answers_as_the_core_until_the_driver_is_dropped() {
    let policy =
        Policy::from_json(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#.to_owned()).unwrap();
    let options = OperationOptions { seed: Some(7), ..OperationOptions::default() };
    let driver = Driver::new(policy, 0, options, DriverOptions::default()).unwrap();
    let handle = Arc::as_ptr(&driver) as u64;
    let mut out = [0i64; wire::OUTPUT_WORDS];
    let len = wire::OUTPUT_WORDS as i32;
    let poll = [InputKind::Poll.word(), 0];
    assert_eq!(retryplan_kotlin_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), len), DONE);
    assert_eq!(out[wire::output::ACTION_KIND], ActionKind::StartAttempt.word());
    assert_eq!(out[wire::output::ABORT_AT_MS], 300);
    // A refused record changes nothing and says so.
    let late = [InputKind::Result.word(), 10, 9, -1, -1, OutcomeKind::Success.word(), -1, -1];
    assert_eq!(retryplan_kotlin_exchange(handle, late.as_ptr(), 8, out.as_mut_ptr(), len), FAILED);
    assert_eq!(retryplan_kotlin_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), 3), BAD_BUFFER);
    drop(driver);
    assert_eq!(retryplan_kotlin_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), len), NOT_LIVE);
}

#[test]
fn an_operation_answers_its_decisions_in_words_until_it_is_dropped() {
    let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#.to_owned()).unwrap();
    let options = OperationOptions { seed: Some(5), ..OperationOptions::default() };
    let operation = Operation::new(policy, 0, options).unwrap();
    let handle = Arc::as_ptr(&operation) as u64;
    let mut out = [0i64; wire::DECISION_WORDS];
    let len = wire::DECISION_WORDS as i32;
    let poll = [InputKind::Poll.word(), 10];
    assert_eq!(retryplan_kotlin_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), len), DONE);
    assert_eq!(out[wire::decision::DECISION_KIND], DecisionKind::StartAttempt.word());
    // 70000 is no status an operation's caller can report: refused, typed on uniffi's path.
    let odd = [InputKind::Result.word(), 20, 1, -1, -1, OutcomeKind::HttpStatus.word(), 70000, -1];
    assert_eq!(retryplan_kotlin_exchange(handle, odd.as_ptr(), 8, out.as_mut_ptr(), len), FAILED);
    let busy = [InputKind::Result.word(), 20, 1, -1, -1, OutcomeKind::HttpStatus.word(), 503, 1500];
    assert_eq!(retryplan_kotlin_exchange(handle, busy.as_ptr(), 8, out.as_mut_ptr(), len), DONE);
    assert_eq!(out[wire::decision::DECISION_KIND], DecisionKind::Wait.word());
    assert_eq!(out[wire::decision::RETRY_AFTER_MS], 1500);
    assert_eq!(retryplan_kotlin_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), 18), BAD_BUFFER);
    drop(operation);
    assert_eq!(retryplan_kotlin_exchange(handle, poll.as_ptr(), 2, out.as_mut_ptr(), len), NOT_LIVE);
}

#[test]
fn the_tables_name_every_word() {
    let tables = wire_tables();
    assert_eq!(tables.version, wire::WIRE_VERSION);
    assert_eq!(tables.input_fields.len(), wire::INPUT_WORDS);
    assert_eq!(tables.output_fields.len(), wire::OUTPUT_WORDS);
    assert_eq!(tables.output_fields[wire::output::TOKEN], "token");
    assert_eq!(tables.action_kinds[ActionKind::Release.word() as usize], "release");
    assert_eq!(tables.ending_kinds[EndingKind::GaveUp.word() as usize], "gave_up");
    assert_eq!(tables.decision_fields.len(), wire::DECISION_WORDS);
    assert_eq!(tables.decision_kinds[DecisionKind::Wait.word() as usize], "wait");
}
