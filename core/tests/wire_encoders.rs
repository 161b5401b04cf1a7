//! The wire's encoders (`wire::encode_outcome`, `wire::encode_action`,
//! `wire::encode_decision`) against the typed API, over the driver
//! transcripts of `tests/conformance/driver.json`: every outcome a transcript
//! hands in or expects reads back as itself from its words, and a driver fed
//! its outcomes through the words acts as the typed one, its actions (a
//! finish's whole decision too) written as the typed ones.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::path::PathBuf;

use retryplan::config::value::Named;
use retryplan::ground::codes::{GrpcCode, TransportFailure};
use retryplan::headers::retry_after::Pushback;
use retryplan::outcomes::decision::AttemptSet;
use retryplan::wire::{
    self, decision, decode_outcome, encode_action, encode_decision, encode_outcome, output, ActionKind, DecisionKind,
    EndingKind, InputKind, OutcomeKind, DECISION_WORDS, NONE, OUTPUT_WORDS,
};
use retryplan::{
    Action, Concurrency, Decision, Driver, DriverOptions, Failure, Held, OperationOptions, Outcome, Policy, Verdict,
};
use serde_json::{Map, Value};

fn transcripts() -> Vec<Map<String, Value>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/driver.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    file["cases"].as_array().unwrap().iter().map(|case| case.as_object().unwrap().clone()).collect()
}

/// Every `outcome` object anywhere under `value` (results handed in, last results expected).
fn outcomes_in(value: &Value, found: &mut Vec<Outcome>) {
    match value {
        Value::Object(object) => {
            for (key, inner) in object {
                if key == "outcome" && inner.get("error_code").is_none() {
                    found.push(serde_json::from_value(inner.clone()).unwrap());
                } else {
                    outcomes_in(inner, found);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| outcomes_in(item, found)),
        _ => {}
    }
}

fn round_trip(outcome: &Outcome) -> Outcome {
    let [kind, code, delay] = encode_outcome(outcome);
    decode_outcome(kind, code, delay).unwrap_or_else(|error| panic!("{outcome:?}: {error:?}"))
}

#[test]
fn every_outcome_reads_back_as_itself_from_its_words() {
    let mut outcomes = Vec::new();
    for case in transcripts() {
        outcomes_in(&Value::Object(case), &mut outcomes);
    }
    assert!(outcomes.len() > 50, "the transcripts hold outcomes: {}", outcomes.len());
    outcomes.extend(Failure::ALL.iter().filter(|f| **f != Failure::Cancelled).map(|failure| failure.outcome()));
    outcomes
        .extend(TransportFailure::ALL.iter().map(|&failure| Outcome::Transport { failure, retry_after_ms: Some(9) }));
    outcomes.extend(Verdict::ALL.iter().map(|&verdict| Outcome::Application { verdict }));
    for code in (0..=16).filter_map(GrpcCode::from_number) {
        for pushback in [None, Some(Pushback::DoNotRetry), Some(Pushback::RetryAfterMs(0))] {
            outcomes.push(Outcome::GrpcStatus { code, pushback });
        }
    }
    outcomes.extend([100, 101, 103, 200, 503, 599].map(|status| Outcome::HttpStatus {
        status,
        retry_after_ms: None,
        error_code: None,
    }));
    outcomes.extend([Outcome::Success, Outcome::Cancelled]);
    for outcome in &outcomes {
        if let Outcome::HttpStatus { status, .. } = outcome {
            // No HTTP status, or an interim one (1xx but 101): written as it is, read back as every host reads it.
            if !(100..=599).contains(status) || ((100..=199).contains(status) && *status != 101) {
                assert_eq!(round_trip(outcome), Failure::MalformedResponse.outcome(), "{status}");
                continue;
            }
        }
        assert_eq!(&round_trip(outcome), outcome);
        assert_ne!(encode_outcome(outcome)[0], OutcomeKind::Failure.word(), "{outcome:?}");
    }
    let busy = Outcome::HttpStatus { status: 503, retry_after_ms: Some(2_000), error_code: None };
    assert_eq!(encode_outcome(&busy), [OutcomeKind::HttpStatus.word(), 503, 2_000]);
    assert_eq!(encode_outcome(&Outcome::Success), [OutcomeKind::Success.word(), NONE, NONE]);
}

/// The driver of a transcript whose options this test reads (policy, seed,
/// start, concurrency, returned responses), or none for one it does not.
fn driver_of(case: &Map<String, Value>) -> Option<Driver> {
    let known =
        ["id", "kind", "description", "policy", "seed", "start_ms", "steps", "concurrency", "returns_responses"];
    if case.keys().any(|key| !known.contains(&key.as_str())) {
        return None;
    }
    let policy = Policy::from_json(&case.get("policy")?.to_string()).ok()?;
    let concurrency = match case.get("concurrency").and_then(Value::as_str) {
        None => Concurrency::Concurrent,
        Some(name) => Named::from_name(name)?,
    };
    let returns_responses = case.get("returns_responses").and_then(Value::as_bool) == Some(true);
    let options = DriverOptions { concurrency, returns_responses, record_events: false, stats: None };
    let start = case["start_ms"].as_u64()?;
    Driver::new(&policy, start, OperationOptions::new(case["seed"].as_u64()?), options).ok()
}

/// Checks the output record (and a finish's decision record) `encode_action` wrote for `action`.
fn check_action(action: &Action, out: &[i64; OUTPUT_WORDS], record: &[i64; DECISION_WORDS], label: &str) {
    let kind = ActionKind::ALL.iter().position(|kind: &ActionKind| {
        matches!(
            (kind, action),
            (ActionKind::StartAttempt, Action::StartAttempt(_))
                | (ActionKind::AbortAttempt, Action::AbortAttempt { .. })
                | (ActionKind::Sleep, Action::Sleep { .. })
                | (ActionKind::Release, Action::Release { .. })
                | (ActionKind::Finish, Action::Finish(_))
        )
    });
    assert_eq!(Some(out[output::ACTION_KIND] as usize), kind, "{label}");
    match action {
        Action::StartAttempt(plan) => {
            let id = ((out[output::REQUEST_ID_HIGH] as u64) << 32) | out[output::REQUEST_ID_LOW] as u64;
            assert_eq!(
                (out[output::ATTEMPT], out[output::ABORT_AT_MS]),
                (plan.attempt.into(), plan.abort_at_ms as i64)
            );
            assert_eq!(id, plan.request_id.0, "{label}");
        }
        Action::Sleep { until_ms } => assert_eq!(out[output::UNTIL_MS], *until_ms as i64, "{label}"),
        Action::Release { token } => assert_eq!(out[output::TOKEN], *token as i64, "{label}"),
        Action::AbortAttempt { attempt, .. } => assert_eq!(out[output::ATTEMPT], i64::from(*attempt), "{label}"),
        Action::Finish(ending) => {
            let mut alone = [NONE; DECISION_WORDS];
            encode_decision(&ending.decision, &mut alone);
            assert_eq!(record, &alone, "{label}: a finish carries its decision record");
            let (ending_kind, decision_kind, aborts) = match ending.decision {
                Decision::Succeeded { abort_attempts, .. } => {
                    (EndingKind::Succeeded, DecisionKind::Succeeded, abort_attempts)
                }
                Decision::GaveUp { abort_attempts, .. } => (EndingKind::GaveUp, DecisionKind::GaveUp, abort_attempts),
                Decision::Reconcile { abort_attempts, .. } => {
                    (EndingKind::Reconcile, DecisionKind::Reconcile, abort_attempts)
                }
                Decision::Restart { abort_attempts, .. } => {
                    (EndingKind::Restart, DecisionKind::Restart, abort_attempts)
                }
                other => panic!("{label}: a finish with {other:?}"),
            };
            assert_eq!(out[output::ENDING] & 0xff, ending_kind.word(), "{label}");
            assert_eq!(record[decision::DECISION_KIND], decision_kind.word(), "{label}");
            assert_eq!(attempts(record), aborts, "{label}");
            let token = ending.result.map_or(NONE, |result| result.token as i64);
            assert_eq!(out[output::TOKEN], token, "{label}");
        }
    }
}

/// The attempts a record's four `aborts_` words name.
fn attempts(record: &[i64; DECISION_WORDS]) -> AttemptSet {
    let mut set = AttemptSet::EMPTY;
    for (word, first) in
        [(decision::ABORTS_1, 1), (decision::ABORTS_33, 33), (decision::ABORTS_65, 65), (decision::ABORTS_97, 97)]
    {
        for bit in 0..32 {
            if record[word] >> bit & 1 == 1 {
                set.insert(first + bit);
            }
        }
    }
    set
}

#[test]
fn a_driver_fed_words_acts_as_the_typed_one_over_the_transcripts() {
    let mut checked = 0;
    for case in transcripts() {
        let id = case["id"].as_str().unwrap().to_owned();
        let (Some(mut typed), Some(mut wired)) = (driver_of(&case), driver_of(&case)) else { continue };
        // A `timer_ended` record is a judged poll: its output stands for the typed poll of the next step.
        let mut judged_poll: Option<[i64; OUTPUT_WORDS]> = None;
        for (index, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            let label = format!("{id} step {index}");
            let at_ms = step["at_ms"].as_u64().unwrap();
            match step["call"].as_str().unwrap() {
                "poll" => {
                    let action = typed.poll_action(at_ms).unwrap();
                    let (mut out, mut record) = ([NONE; OUTPUT_WORDS], [NONE; DECISION_WORDS]);
                    encode_action(&action, &mut out, &mut record);
                    check_action(&action, &out, &record, &label);
                    let exchanged = judged_poll.take().unwrap_or_else(|| {
                        let mut exchanged = [NONE; OUTPUT_WORDS];
                        wired.exchange(&[InputKind::Poll.word(), at_ms as i64], &mut exchanged).unwrap();
                        exchanged
                    });
                    assert_eq!(exchanged, out, "{label}: the exchange writes what encode_action writes");
                    assert_eq!(wire::ActionKind::ALL.len(), 5);
                    checked += 1;
                }
                "result" if step.get("response").is_none() => {
                    let attempt = step["attempt"].as_u64().unwrap() as u32;
                    let outcome = match step.get("outcome") {
                        Some(outcome) if outcome.get("error_code").is_none() => {
                            serde_json::from_value(outcome.clone()).unwrap()
                        }
                        Some(_) => break,
                        None => Named::from_name(step["failure"].as_str().unwrap()).map(Failure::outcome).unwrap(),
                    };
                    let held = if step.get("held").and_then(Value::as_str) == Some("error") {
                        Held::Error
                    } else {
                        Held::Value
                    };
                    let hand = |driver: &mut Driver, outcome: Outcome| match step.get("token").and_then(Value::as_u64) {
                        Some(token) => driver.handle_result_with_token(at_ms, attempt, outcome, token, held),
                        None => driver.handle_result(at_ms, attempt, outcome),
                    };
                    if matches!(outcome, Outcome::HttpStatus { status, .. } if !(100..=599).contains(&status)) {
                        break; // the typed call refuses it; its words read as a malformed response
                    }
                    let worded = round_trip(&outcome);
                    assert_eq!(hand(&mut typed, outcome), hand(&mut wired, worded), "{label}");
                }
                "cancel" => {
                    typed.handle_cancel(at_ms);
                    wired.handle_cancel(at_ms);
                }
                "timer_ended" => {
                    let mut exchanged = [NONE; OUTPUT_WORDS];
                    let judged = wired.exchange(&[InputKind::TimerEnded.word(), at_ms as i64], &mut exchanged);
                    assert_eq!(typed.handle_timer_end(at_ms), judged, "{label}: the same judgement on the wire");
                    judged_poll = judged.is_ok().then_some(exchanged);
                }
                _ => break,
            }
        }
    }
    assert!(checked > 100, "polls checked: {checked}");
}
