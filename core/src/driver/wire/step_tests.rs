//! The exchange writes a poll's step (a finish's ending read in place in
//! the driver) exactly as [`encode_action`] writes the typed driver's action.

use super::*;
use crate::driver::DriverOptions;
use crate::engine::operation::OperationOptions;
use crate::policy::Policy;
use crate::Outcome;

const PLAIN: &str = r#"{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 300},
    "jitter": {"kind": "none"}, "minimum_useful_attempt_ms": 50, "response_reserve_ms": 0}"#;

/// One step of a host's loop: a poll at `now_ms`, or a result held under a token.
#[derive(Clone, Copy)]
enum Input {
    Poll(u64),
    Result { now_ms: u64, attempt: u32, token: u64, status: u16 },
}

#[test]
fn every_kind_of_step_is_written_as_the_typed_action_is_encoded() {
    let policy = Policy::from_json(PLAIN).unwrap();
    let options = DriverOptions { returns_responses: true, ..DriverOptions::default() };
    let mut typed = Driver::new(&policy, 0, OperationOptions::new(7), options.clone()).unwrap();
    let mut wired = Driver::new(&policy, 0, OperationOptions::new(7), options).unwrap();
    // Attempts 1 and 3 answer 503 (held under tokens 11 and 13) 40 ms in; attempt 2 hangs until
    // its abort time: token 11 is released, attempt 2 aborted, and attempt 3's 503 gives up, returned.
    let mut input = Input::Poll(0);
    let mut kinds = Vec::new();
    while kinds.last() != Some(&ActionKind::Finish) && kinds.len() < 20 {
        let (mut expected, mut decision) = ([NONE; OUTPUT_WORDS], [NONE; DECISION_WORDS]);
        let mut written = [NONE; OUTPUT_WORDS];
        let now_ms = match input {
            Input::Poll(now_ms) => {
                wired.exchange(&[InputKind::Poll.word(), now_ms as i64], &mut written).unwrap();
                now_ms
            }
            Input::Result { now_ms, attempt, token, status } => {
                let record = [
                    InputKind::Result.word(),
                    now_ms as i64,
                    i64::from(attempt),
                    token as i64,
                    0,
                    OutcomeKind::HttpStatus.word(),
                    i64::from(status),
                    NONE,
                ];
                wired.exchange(&record, &mut written).unwrap();
                let outcome = Outcome::HttpStatus { status, retry_after_ms: None, error_code: None };
                let receipt = typed.handle_result_with_token(now_ms, attempt, outcome, token, Held::Value).unwrap();
                expected[output::RECEIPT] = index_of(receipt);
                now_ms
            }
        };
        let action = typed.poll_action(now_ms).unwrap();
        encode_action(&action, &mut expected, &mut decision);
        assert_eq!(written, expected, "{action:?}");
        kinds.push(action.kind());
        input = match action {
            Action::StartAttempt(plan) if plan.attempt == 2 => Input::Poll(plan.abort_at_ms),
            Action::StartAttempt(plan) => Input::Result {
                now_ms: now_ms + 40,
                attempt: plan.attempt,
                token: 10 + u64::from(plan.attempt),
                status: 503,
            },
            Action::Sleep { until_ms } => Input::Poll(until_ms),
            _ => Input::Poll(now_ms),
        };
    }
    let every = [ActionKind::StartAttempt, ActionKind::AbortAttempt, ActionKind::Sleep, ActionKind::Release];
    assert!(every.iter().all(|kind| kinds.contains(kind)), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&ActionKind::Finish), "{kinds:?}");
    let Some(Action::Finish(ending)) = typed.poll_action(1_000).ok() else { panic!("{kinds:?}") };
    assert_eq!(ending.result.map(|result| (result.token, result.returned)), Some((13, true)));
}
