//! `Action::kind`: one name per action, the same as its JSON `type` and its kind on the wire.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use retryplan::config::value::Named;
use retryplan::wire::{self, input, output, ActionKind, InputKind, INPUT_WORDS, NONE, OUTPUT_WORDS};
use retryplan::{Action, Driver, DriverOptions, Held, OperationOptions, Outcome, Policy};

/// Every kind of action, from a driver of a host of responses: start, sleep, start, abort and release (the
/// caller's cancel: the 503 it holds is closed), finish.
fn one_run(driver: &mut Driver) -> Vec<Action> {
    let mut actions = vec![driver.poll_action(0).unwrap()];
    driver
        .handle_result_with_token(
            10,
            1,
            Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None },
            7,
            Held::Value,
        )
        .unwrap();
    actions.push(driver.poll_action(10).unwrap());
    let Action::Sleep { until_ms } = actions[1] else { panic!("{actions:?}") };
    actions.push(driver.poll_action(until_ms).unwrap());
    driver.handle_cancel(until_ms + 1);
    while !matches!(actions.last(), Some(Action::Finish(_))) {
        actions.push(driver.poll_action(until_ms + 1).unwrap());
    }
    actions
}

fn driver() -> Driver {
    let policy = Policy::from_json(r#"{"max_attempts": 3, "jitter": {"kind": "none"}}"#).unwrap();
    // A host of responses: the response it holds when the caller cancels is released (closed), not raised with.
    let options = DriverOptions { returns_responses: true, ..DriverOptions::default() };
    Driver::new(&policy, 0, OperationOptions::new(1), options).unwrap()
}

#[test]
fn an_actions_kind_is_its_json_type() {
    let actions = one_run(&mut driver());
    let mut kinds: Vec<ActionKind> = actions.iter().map(|action| action.kind()).collect();
    for (action, kind) in actions.iter().zip(&kinds) {
        let json = serde_json::to_value(action).unwrap();
        assert_eq!(json["type"], kind.name(), "{action:?}");
    }
    kinds.sort_by_key(|kind| kind.word());
    kinds.dedup();
    assert_eq!(kinds, ActionKind::ALL, "the run shows every kind: {actions:?}");
}

#[test]
fn an_actions_kind_is_its_kind_on_the_wire() {
    let actions = one_run(&mut driver());
    let Action::Sleep { until_ms } = actions[1] else { panic!("{actions:?}") };
    let until = i64::try_from(until_ms).unwrap();
    // The same run through the wire: each output's action kind word is the kind of the action polled.
    let record = |kind: InputKind, now: i64| {
        let mut words = [NONE; INPUT_WORDS];
        (words[input::INPUT_KIND], words[input::NOW_MS]) = (kind.word(), now);
        words
    };
    let mut result = record(InputKind::Result, 10);
    let value = Held::ALL.iter().position(|held| *held == Held::Value).unwrap();
    (result[input::ATTEMPT], result[input::TOKEN], result[input::HELD]) = (1, 7, i64::try_from(value).unwrap());
    (result[input::OUTCOME_KIND], result[input::OUTCOME_CODE]) = (wire::OutcomeKind::HttpStatus.word(), 503);
    let mut inputs = vec![record(InputKind::Poll, 0), result, record(InputKind::Poll, until)];
    inputs.push(record(InputKind::Cancel, until + 1));
    inputs.resize(actions.len(), record(InputKind::Poll, until + 1));
    let mut exchanged = driver();
    let mut out = [NONE; OUTPUT_WORDS];
    let mut words = Vec::new();
    for input in &inputs {
        exchanged.exchange(input, &mut out).unwrap();
        words.push(out[output::ACTION_KIND]);
    }
    let kinds: Vec<i64> = actions.iter().map(|action| action.kind().word()).collect();
    assert_eq!(words, kinds, "{actions:?}");
}
