use super::*;
use crate::outcomes::http::Repeatability;
use crate::policy::Policy;
use crate::Failure;

fn policy(json: &str) -> Policy {
    Policy::from_json(json).unwrap()
}

const PLAIN: &str = r#"{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 300},
    "jitter": {"kind": "none"}, "minimum_useful_attempt_ms": 50, "response_reserve_ms": 0}"#;
const HEDGING: &str = r#"{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 1000},
    "jitter": {"kind": "none"}, "minimum_useful_attempt_ms": 50, "response_reserve_ms": 0,
    "hedging": {"delay_ms": 100, "max_hedged_attempts": 1}}"#;

const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };

fn driver(json: &str) -> Driver {
    Driver::new(&policy(json), 0, OperationOptions::new(7), DriverOptions::default()).unwrap()
}

fn started(action: Action) -> AttemptPlan {
    match action {
        Action::StartAttempt(plan) => plan,
        other => panic!("expected a start, got {other:?}"),
    }
}

fn finished(action: Action) -> Ending {
    match action {
        Action::Finish(ending) => ending,
        other => panic!("expected the end, got {other:?}"),
    }
}

#[test]
fn a_503_then_a_success() {
    let mut driver = driver(PLAIN);
    let first = started(driver.poll_action(0).unwrap());
    assert_eq!((first.attempt, first.timeout_ms, first.abort_at_ms, first.hedge), (1, 300, 300, false));
    assert!(!first.send_idempotency_key);
    assert_eq!(driver.handle_result(40, 1, UNAVAILABLE), Ok(Receipt::Accepted));
    assert_eq!(driver.poll_action(40).unwrap(), Action::Sleep { until_ms: 140 });
    assert_eq!(driver.poll_action(90).unwrap(), Action::Sleep { until_ms: 140 });
    let second = started(driver.poll_action(140).unwrap());
    assert_eq!((second.attempt, second.abort_at_ms), (2, 440));
    assert_eq!(driver.poll_action(150).unwrap(), Action::Sleep { until_ms: 440 });
    assert_eq!(driver.handle_result(200, 2, Outcome::Success), Ok(Receipt::Accepted));
    let ending = finished(driver.poll_action(200).unwrap());
    assert!(matches!(ending.decision, Decision::Succeeded { attempts: 2, winner: 2, .. }));
    assert_eq!(ending.last_result, Some(AttemptResult { attempt: 2, outcome: Outcome::Success }));
    // The end is stable, and nothing after it is an error.
    assert_eq!(finished(driver.poll_action(900).unwrap()), ending);
    driver.handle_cancel(950);
    assert_eq!(driver.handle_result(960, 1, Outcome::Success), Ok(Receipt::Discarded));
    assert_eq!(finished(driver.poll_action(990).unwrap()), ending);
}

#[test]
fn an_attempt_past_its_abort_time_is_timed_out_by_the_driver_and_its_late_answer_discarded() {
    let mut driver = driver(PLAIN);
    started(driver.poll_action(0).unwrap());
    assert_eq!(driver.poll_action(299).unwrap(), Action::Sleep { until_ms: 300 });
    assert_eq!(driver.poll_action(300).unwrap(), Action::AbortAttempt { attempt: 1, reason: AbortReason::TimedOut });
    assert_eq!(driver.poll_action(300).unwrap(), Action::Sleep { until_ms: 400 });
    assert_eq!(driver.handle_result(310, 1, Outcome::Success), Ok(Receipt::Discarded));
    let second = started(driver.poll_action(400).unwrap());
    // A result handed in at the abort time itself is late too.
    assert_eq!(driver.handle_result(second.abort_at_ms, 2, Outcome::Success), Ok(Receipt::Discarded));
    assert_eq!(driver.poll_action(700).unwrap(), Action::AbortAttempt { attempt: 2, reason: AbortReason::TimedOut });
    assert!(matches!(driver.poll_action(700).unwrap(), Action::Sleep { until_ms: 900 }));
    started(driver.poll_action(900).unwrap());
    let last = Outcome::Transport { failure: TransportFailure::TimedOut, retry_after_ms: None };
    assert_eq!(driver.poll_action(1200).unwrap(), Action::AbortAttempt { attempt: 3, reason: AbortReason::TimedOut });
    let ending = finished(driver.poll_action(1200).unwrap());
    assert!(matches!(ending.decision, Decision::GaveUp { reason: GiveUpReason::AttemptsExhausted, attempts: 3, .. }));
    assert_eq!(ending.last_result, Some(AttemptResult { attempt: 3, outcome: last }));
}

#[test]
fn a_sequential_host_reporting_after_the_abort_time_gets_a_timeout() {
    let options = DriverOptions { concurrency: Concurrency::Sequential, ..DriverOptions::default() };
    let mut driver = Driver::new(&policy(PLAIN), 0, OperationOptions::new(7), options).unwrap();
    started(driver.poll_action(0).unwrap());
    // The synchronous attempt returned at 450 ms, past its 300 ms abort time.
    assert_eq!(driver.handle_result(450, 1, Outcome::Success), Ok(Receipt::Discarded));
    assert_eq!(driver.poll_action(450).unwrap(), Action::AbortAttempt { attempt: 1, reason: AbortReason::TimedOut });
    assert_eq!(driver.poll_action(450).unwrap(), Action::Sleep { until_ms: 550 });
}

#[test]
fn a_hedge_wins_and_the_loser_is_aborted_then_ignored() {
    let mut driver = driver(HEDGING);
    started(driver.poll_action(0).unwrap());
    assert_eq!(driver.poll_action(50).unwrap(), Action::Sleep { until_ms: 100 });
    let hedge = started(driver.poll_action(100).unwrap());
    assert!(hedge.hedge);
    assert_eq!(driver.handle_result(180, 2, Outcome::Success), Ok(Receipt::Accepted));
    assert_eq!(driver.poll_action(180).unwrap(), Action::AbortAttempt { attempt: 1, reason: AbortReason::LostRace });
    let ending = finished(driver.poll_action(180).unwrap());
    assert!(matches!(ending.decision, Decision::Succeeded { winner: 2, .. }));
    assert_eq!(driver.handle_result(190, 1, UNAVAILABLE), Ok(Receipt::Discarded));
}

#[test]
fn a_zero_delay_retry_decided_by_a_result_is_handed_out_by_the_next_poll() {
    let mut driver =
        driver(r#"{"backoff": {"kind": "constant", "base_ms": 0, "cap_ms": 0}, "jitter": {"kind": "none"}}"#);
    started(driver.poll_action(0).unwrap());
    assert_eq!(driver.handle_result(10, 1, UNAVAILABLE), Ok(Receipt::Accepted));
    assert_eq!(started(driver.poll_action(10).unwrap()).attempt, 2);
}

#[test]
fn cancelling_while_attempts_run_aborts_them_and_gives_up() {
    let mut driver = driver(HEDGING);
    started(driver.poll_action(0).unwrap());
    started(driver.poll_action(100).unwrap());
    driver.handle_cancel(150);
    assert!(driver.is_ended());
    assert_eq!(driver.poll_action(150).unwrap(), Action::AbortAttempt { attempt: 1, reason: AbortReason::Cancelled });
    assert_eq!(driver.poll_action(150).unwrap(), Action::AbortAttempt { attempt: 2, reason: AbortReason::Cancelled });
    let ending = finished(driver.poll_action(150).unwrap());
    assert!(matches!(ending.decision, Decision::GaveUp { reason: GiveUpReason::Cancelled, attempts: 2, .. }));
    assert_eq!(ending.last_result, None);
}

#[test]
fn cancelling_a_wait_spends_nothing_more() {
    let mut driver = driver(PLAIN);
    started(driver.poll_action(0).unwrap());
    driver.handle_result(40, 1, Failure::ConnectionRefused.outcome()).unwrap();
    assert_eq!(driver.poll_action(40).unwrap(), Action::Sleep { until_ms: 140 });
    driver.handle_cancel(60);
    let ending = finished(driver.poll_action(60).unwrap());
    assert!(matches!(ending.decision, Decision::GaveUp { reason: GiveUpReason::Cancelled, attempts: 1, .. }));
    assert_eq!(ending.last_result.map(|result| result.attempt), Some(1));
}

#[test]
fn a_sequential_host_refuses_a_hedging_policy_unless_told_to_run_it_without_hedges() {
    let sequential = DriverOptions { concurrency: Concurrency::Sequential, ..DriverOptions::default() };
    let error = Driver::new(&policy(HEDGING), 0, OperationOptions::new(7), sequential).unwrap_err();
    assert_eq!(error.code(), "unsupported");
    assert!(matches!(error, Error::Unsupported { field: "hedging", .. }));

    let without = DriverOptions { concurrency: Concurrency::SequentialWithoutHedging, ..DriverOptions::default() };
    let mut driver = Driver::new(&policy(HEDGING), 0, OperationOptions::new(7), without).unwrap();
    started(driver.poll_action(0).unwrap());
    // No hedge at 100 ms: the attempt's own abort time is the next wake-up.
    assert_eq!(driver.poll_action(100).unwrap(), Action::Sleep { until_ms: 1000 });
}

#[test]
fn a_post_under_a_safe_policy_is_never_repeated_after_it_may_have_been_processed() {
    let post = Repeatability::by_method("POST", None).unwrap();
    let options = OperationOptions::new(7).with_repeatability(post);
    let mut driver = Driver::new(&policy(HEDGING), 0, options, DriverOptions::default()).unwrap();
    let first = started(driver.poll_action(0).unwrap());
    assert!(first.send_idempotency_key, "an unsafe operation names itself for reconciliation");
    // No hedge for a request that must not be repeated.
    assert_eq!(driver.poll_action(100).unwrap(), Action::Sleep { until_ms: 1000 });
    driver.handle_result(150, 1, Failure::ConnectionLost.outcome()).unwrap();
    assert!(matches!(finished(driver.poll_action(150).unwrap()).decision, Decision::Reconcile { attempts: 1, .. }));

    // A connection refused means nothing was sent: that is retried.
    let options = OperationOptions::new(7).with_repeatability(post);
    let mut driver = Driver::new(&policy(PLAIN), 0, options, DriverOptions::default()).unwrap();
    started(driver.poll_action(0).unwrap());
    driver.handle_result(20, 1, Failure::ConnectionRefused.outcome()).unwrap();
    assert_eq!(driver.poll_action(20).unwrap(), Action::Sleep { until_ms: 120 });

    // The caller may say the request is repeatable.
    let repeatable = Repeatability::by_method("POST", Some(true)).unwrap();
    let options = OperationOptions::new(7).with_repeatability(repeatable);
    let mut driver = Driver::new(&policy(PLAIN), 0, options, DriverOptions::default()).unwrap();
    assert!(!started(driver.poll_action(0).unwrap()).send_idempotency_key);
    driver.handle_result(20, 1, Failure::ConnectionLost.outcome()).unwrap();
    assert_eq!(driver.poll_action(20).unwrap(), Action::Sleep { until_ms: 120 });
}

#[test]
fn an_ending_names_the_error_hook_only_when_its_last_result_is_an_error_nothing_classified() {
    use crate::Verdict;
    let hint = Verdict::unknown_error_hint("outcomeOfError").to_string();
    // An unsafe write whose attempt raised an unknown error: reconcile, with the hint.
    let post = Repeatability::by_method("POST", None).unwrap();
    let options = OperationOptions::new(7).with_repeatability(post);
    let mut unsafe_write = Driver::new(&policy(PLAIN), 0, options, DriverOptions::default()).unwrap();
    started(unsafe_write.poll_action(0).unwrap());
    assert_eq!(unsafe_write.ended(), None, "a live operation has no ending");
    unsafe_write.handle_result(20, 1, Outcome::Application { verdict: Verdict::UNKNOWN_ERROR }).unwrap();
    let ending = finished(unsafe_write.poll_action(20).unwrap());
    assert!(matches!(ending.decision, Decision::Reconcile { .. }));
    assert_eq!(unsafe_write.ended(), Some(ending));
    let key = unsafe_write.idempotency_key().as_str();
    let message = ending.message("POST /orders", Some(key), "outcomeOfError").unwrap().to_string();
    let words = ending.decision.ending_message("POST /orders", Some(key)).unwrap().to_string();
    assert_eq!(message, alloc::format!("{words}; {hint}"));

    // The same operation ended by a timeout the driver counted itself: the words alone.
    let options = OperationOptions::new(7).with_repeatability(post);
    let mut unsafe_write = Driver::new(&policy(PLAIN), 0, options, DriverOptions::default()).unwrap();
    started(unsafe_write.poll_action(0).unwrap());
    assert_eq!(
        unsafe_write.poll_action(300).unwrap(),
        Action::AbortAttempt { attempt: 1, reason: AbortReason::TimedOut }
    );
    let ending = finished(unsafe_write.poll_action(300).unwrap());
    assert!(matches!(ending.decision, Decision::Reconcile { .. }));
    assert_eq!(ending.last_result.map(|result| result.outcome), Some(Failure::AttemptTimedOut.outcome()));
    let key = unsafe_write.idempotency_key().as_str();
    let message = ending.message("POST /orders", Some(key), "outcomeOfError").unwrap().to_string();
    assert_eq!(message, ending.decision.ending_message("POST /orders", Some(key)).unwrap().to_string());

    // A success has no ending words, whatever came before it.
    let mut succeeding = driver(PLAIN);
    started(succeeding.poll_action(0).unwrap());
    succeeding.handle_result(20, 1, Outcome::Application { verdict: Verdict::UNKNOWN_ERROR }).unwrap();
    started(succeeding.poll_action(120).unwrap());
    succeeding.handle_result(150, 2, Outcome::Success).unwrap();
    let ending = finished(succeeding.poll_action(150).unwrap());
    assert!(ending.message("op", Some("k"), "outcomeOfError").is_none());
}

#[test]
fn misuse_is_an_error_and_changes_nothing() {
    let mut driver = driver(PLAIN);
    assert_eq!(driver.handle_result(0, 1, Outcome::Success).unwrap_err().code(), "attempt_not_running");
    started(driver.poll_action(0).unwrap());
    assert_eq!(driver.handle_result(10, 0, Outcome::Success).unwrap_err().code(), "attempt_not_running");
    assert_eq!(driver.handle_result(10, 2, Outcome::Success).unwrap_err().code(), "attempt_not_running");
    let bad = Outcome::HttpStatus { status: 700, retry_after_ms: None, error_code: None };
    // Even when the attempt is overdue, a refused result expires nothing.
    assert_eq!(driver.handle_result(400, 1, bad).unwrap_err().code(), "invalid_argument");
    assert_eq!(driver.handle_result(200, 1, Outcome::Success), Ok(Receipt::Accepted));
}

#[test]
fn stats_count_each_decision_once_and_events_record_each_new_one() {
    let stats = Arc::new(SharedStats::default());
    let options = DriverOptions { stats: Some(stats.clone()), record_events: true, ..DriverOptions::default() };
    let mut driver = Driver::new(&policy(PLAIN), 0, OperationOptions::new(7), options).unwrap();
    started(driver.poll_action(0).unwrap());
    driver.handle_result(40, 1, UNAVAILABLE).unwrap();
    for now in [40, 60, 80] {
        assert_eq!(driver.poll_action(now).unwrap(), Action::Sleep { until_ms: 140 });
    }
    started(driver.poll_action(140).unwrap());
    driver.handle_result(200, 2, Outcome::Success).unwrap();
    finished(driver.poll_action(200).unwrap());
    finished(driver.poll_action(300).unwrap());
    let counted = stats.snapshot();
    assert_eq!((counted.operations, counted.attempts, counted.retries, counted.succeeded), (1, 2, 1, 1));

    let events: Vec<Event> = std::iter::from_fn(|| driver.poll_event()).collect();
    let kinds: Vec<&str> = events.iter().map(|event| event.decision.kind()).collect();
    assert_eq!(kinds, ["start_attempt", "wait", "start_attempt", "succeeded"]);
    assert_eq!(events.get(1).and_then(|event| event.after), Some(AttemptResult { attempt: 1, outcome: UNAVAILABLE }));
    assert_eq!(events.get(1).map(|event| event.at_ms), Some(40));
    assert_eq!(driver.poll_event(), None);
}

#[test]
fn without_event_recording_nothing_is_kept() {
    let mut driver = driver(PLAIN);
    started(driver.poll_action(0).unwrap());
    driver.handle_result(10, 1, Outcome::Success).unwrap();
    finished(driver.poll_action(10).unwrap());
    assert_eq!(driver.poll_event(), None);
}

#[test]
fn several_overdue_attempts_expire_in_abort_time_order() {
    let json = r#"{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 1000},
        "jitter": {"kind": "none"}, "minimum_useful_attempt_ms": 50, "response_reserve_ms": 0,
        "hedging": {"delay_ms": 100, "max_hedged_attempts": 2}}"#;
    let mut driver = driver(json);
    started(driver.poll_action(0).unwrap());
    started(driver.poll_action(100).unwrap());
    started(driver.poll_action(200).unwrap());
    // At 1150 ms attempts 1 (abort 1000) and 2 (abort 1100) are overdue; 3 (abort 1200) is not.
    assert_eq!(driver.handle_result(1150, 3, Outcome::Success), Ok(Receipt::Accepted));
    assert_eq!(driver.poll_action(1150).unwrap(), Action::AbortAttempt { attempt: 1, reason: AbortReason::TimedOut });
    assert_eq!(driver.poll_action(1150).unwrap(), Action::AbortAttempt { attempt: 2, reason: AbortReason::TimedOut });
    assert!(matches!(finished(driver.poll_action(1150).unwrap()).decision, Decision::Succeeded { winner: 3, .. }));
}

#[test]
fn a_poll_the_operation_refuses_is_an_error_for_the_host_never_a_sleep_until_now() {
    // Not reachable through the API: the operation is ended behind the
    // driver's back, the shape a bug in the driver's bookkeeping would have.
    let mut driver = driver(PLAIN);
    started(driver.poll_action(0).unwrap());
    assert!(driver.operation.cancel(10).is_ok());
    assert_eq!(driver.poll_action(10), Err(Error::OperationEnded));
    assert_eq!(driver.poll_action(20), Err(Error::OperationEnded), "polling again does not turn it into an action");
    // The wire carries the same error, and leaves the output record as it was.
    let mut out = [7; wire::OUTPUT_WORDS];
    let poll = [wire::InputKind::Poll.word(), 30];
    assert_eq!(driver.exchange(&poll, &mut out), Err(Error::OperationEnded));
    assert_eq!(out, [7; wire::OUTPUT_WORDS]);
}

/// The next action at `now_ms` that is not a release, sleeping as told.
fn next_after_releases(driver: &mut Driver, mut now_ms: u64) -> Action {
    loop {
        match driver.poll_action(now_ms).unwrap() {
            Action::Release { .. } => {}
            Action::Sleep { until_ms } => now_ms = until_ms,
            action => return action,
        }
    }
}

#[test]
fn a_failed_response_returned_at_the_end_is_readable_until_its_attempts_abort_time_a_success_without_limit() {
    let returning = || {
        let options = DriverOptions { returns_responses: true, ..DriverOptions::default() };
        Driver::new(&policy(PLAIN), 0, OperationOptions::new(7), options).unwrap()
    };
    // Three 503s, each 40 ms after its start: the last is returned, readable until its attempt's abort time.
    let mut driver = returning();
    let mut now_ms = 0;
    let mut last = None;
    for token in [11, 12, 13] {
        let plan = started(next_after_releases(&mut driver, now_ms));
        now_ms = plan.abort_at_ms - 260;
        assert_eq!(
            driver.handle_result_with_token(now_ms, plan.attempt, UNAVAILABLE, token, Held::Value),
            Ok(Receipt::Accepted)
        );
        last = Some(plan);
    }
    let last = last.unwrap();
    let ending = finished(next_after_releases(&mut driver, now_ms));
    assert!(matches!(ending.decision, Decision::GaveUp { reason: GiveUpReason::AttemptsExhausted, .. }));
    assert_eq!(last.attempt, 3);
    let readable_until_ms = Some(last.abort_at_ms);
    assert_eq!(ending.result, Some(EndingResult { token: 13, returned: true, readable_until_ms, held: Held::Value }));

    // A success's value is the caller's: no limit.
    let mut driver = returning();
    let plan = started(driver.poll_action(0).unwrap());
    assert_eq!(
        driver.handle_result_with_token(40, plan.attempt, Outcome::Success, 21, Held::Value),
        Ok(Receipt::Accepted)
    );
    let ending = finished(driver.poll_action(40).unwrap());
    assert_eq!(
        ending.result,
        Some(EndingResult { token: 21, returned: true, readable_until_ms: None, held: Held::Value })
    );

    // A raised ending returns nothing: no window either.
    let mut driver = returning();
    let plan = started(driver.poll_action(0).unwrap());
    let refused = Outcome::Application { verdict: crate::Verdict::NotRetryable };
    assert_eq!(driver.handle_result_with_token(40, plan.attempt, refused, 31, Held::Error), Ok(Receipt::Accepted));
    let ending = finished(driver.poll_action(40).unwrap());
    assert_eq!(
        ending.result,
        Some(EndingResult { token: 31, returned: false, readable_until_ms: None, held: Held::Error })
    );
}

/// A function's last value rides on the ending that raises (Python's `last_result`): the host of a function is
/// not told to drop it, as a host of responses is told to close its last response when it raises.
#[test]
fn a_raised_ending_holds_a_functions_last_value_and_a_response_is_released() {
    let retryable = Outcome::Application { verdict: crate::Verdict::Retryable };
    for returns_responses in [false, true] {
        let options = DriverOptions { returns_responses, ..DriverOptions::default() };
        let mut driver = Driver::new(&policy(PLAIN), 0, OperationOptions::new(7), options).unwrap();
        let (mut now_ms, mut released, mut token) = (0, Vec::new(), 40);
        let ending = loop {
            match driver.poll_action(now_ms).unwrap() {
                Action::StartAttempt(plan) => {
                    now_ms += 10;
                    token += 1;
                    // A value the policy retries: a function's (classified by its hook), or a response's 409.
                    let receipt = driver.handle_result_with_token(now_ms, plan.attempt, retryable, token, Held::Value);
                    assert_eq!(receipt, Ok(Receipt::Accepted));
                    driver.handle_cancel(now_ms); // the caller's cancel: an ending that returns nothing
                }
                Action::Release { token } => released.push(token),
                Action::Sleep { until_ms } => now_ms = until_ms,
                Action::AbortAttempt { .. } => {}
                Action::Finish(ending) => break ending,
            }
        };
        assert!(matches!(ending.decision, Decision::GaveUp { reason: GiveUpReason::Cancelled, .. }));
        if returns_responses {
            assert_eq!((ending.result, released), (None, vec![41]));
        } else {
            assert_eq!(
                ending.result,
                Some(EndingResult { token: 41, returned: false, readable_until_ms: None, held: Held::Value })
            );
            assert_eq!(released, Vec::<u64>::new());
        }
    }
}

/// What a host holds comes back to it exactly once before the Finish: each token it hands in is discarded at
/// once, released by an action, or the ending's result; and an ending that does not return its result raises
/// with an error, or with a function's value (its last value), never with a response (released: closed). A host
/// that keeps values and errors by token (the Python binding's `Run`) relies on both: it sweeps nothing at the
/// end and raises with what the ending names.
#[test]
fn every_token_comes_back_once_before_the_finish_and_an_ending_never_raises_with_a_response() {
    let retryable = Outcome::Application { verdict: crate::Verdict::Retryable };
    let refused = Outcome::Application { verdict: crate::Verdict::NotRetryable };
    let (value, error) = (Held::Value, Held::Error);
    // Each attempt's result, how the host holds it, and how long after its start it comes (over 300: late).
    let scripts: [[(Outcome, Held, u64); 3]; 6] = [
        [(UNAVAILABLE, value, 40), (UNAVAILABLE, value, 40), (UNAVAILABLE, value, 40)],
        [(retryable, error, 40), (retryable, error, 40), (retryable, error, 40)],
        [(UNAVAILABLE, value, 40), (retryable, error, 40), (Outcome::Success, value, 40)],
        [(retryable, error, 40), (Outcome::Success, value, 400), (UNAVAILABLE, value, 40)],
        [(UNAVAILABLE, value, 40), (refused, error, 40), (UNAVAILABLE, value, 40)],
        [(retryable, value, 40), (UNAVAILABLE, error, 40), (refused, value, 40)],
    ];
    for returns_responses in [false, true] {
        for (index, script) in scripts.iter().enumerate() {
            for cancel_after in [None, Some(1), Some(2)] {
                let label = format!("script {index}, returns_responses {returns_responses}, cancel {cancel_after:?}");
                let options = DriverOptions { returns_responses, ..DriverOptions::default() };
                let mut driver = Driver::new(&policy(PLAIN), 0, OperationOptions::new(7), options).unwrap();
                let (mut now_ms, mut handed, mut back) = (0, 0, Vec::new());
                let ending = loop {
                    match driver.poll_action(now_ms).unwrap() {
                        Action::StartAttempt(plan) => {
                            let (outcome, held, after_ms) = script[handed];
                            now_ms += after_ms;
                            let token = handed as u64;
                            let receipt = driver.handle_result_with_token(now_ms, plan.attempt, outcome, token, held);
                            if receipt.unwrap() == Receipt::Discarded {
                                back.push(token);
                            }
                            handed += 1;
                            if cancel_after == Some(handed) {
                                driver.handle_cancel(now_ms);
                            }
                        }
                        Action::Release { token } => back.push(token),
                        Action::Sleep { until_ms } => now_ms = now_ms.max(until_ms),
                        Action::AbortAttempt { .. } => {}
                        Action::Finish(ending) => break ending,
                    }
                };
                if let Some(result) = ending.result {
                    back.push(result.token);
                    let held = script[usize::try_from(result.token).unwrap()].1;
                    assert!(
                        result.returned || held == Held::Error || !returns_responses,
                        "{label}: raises with a response"
                    );
                }
                back.sort_unstable();
                assert_eq!(back, (0..handed as u64).collect::<Vec<_>>(), "{label}: each token back once");
            }
        }
    }
}

/// The ending's hint about an unknown error follows an error the host raised, never a value: a function's value
/// the caller's `outcomeOfResult` judged ambiguous ends the operation with the ending's words alone.
#[test]
fn the_unknown_error_hint_follows_an_error_and_never_a_value() {
    let ambiguous = Outcome::Application { verdict: crate::Verdict::UNKNOWN_ERROR };
    let hint = crate::Verdict::unknown_error_hint("outcomeOfError").to_string();
    for held in [Held::Error, Held::Value] {
        let mut driver = driver(r#"{"max_attempts": 1}"#);
        let plan = started(driver.poll_action(0).unwrap());
        let receipt = driver.handle_result_with_token(10, plan.attempt, ambiguous, 51, held);
        assert_eq!(receipt, Ok(Receipt::Accepted));
        let ending = finished(next_after_releases(&mut driver, 10));
        assert!(matches!(ending.decision, Decision::GaveUp { reason: GiveUpReason::AttemptsExhausted, .. }));
        assert_eq!(ending.result.map(|result| (result.token, result.returned, result.held)), Some((51, false, held)));
        let message = ending.message("op", Some("k"), "outcomeOfError").unwrap().to_string();
        assert_eq!(message.contains(&hint), held == Held::Error, "{held:?}: {message}");
        assert!(message.starts_with("retryplan: op: "), "{message}");
    }
}

/// Polls from `now` (moved on past each sleep) until the driver starts an attempt.
fn start_next(driver: &mut Driver, now: &mut u64) -> AttemptPlan {
    loop {
        match driver.poll_action(*now).unwrap() {
            Action::StartAttempt(plan) => return plan,
            Action::Sleep { until_ms } => *now = until_ms,
            other => panic!("expected a start or a sleep, got {other:?}"),
        }
    }
}

/// A client that returned an interim 1xx as the answer (http.client and a 103 Early Hints) left the final answer
/// unread: a malformed response, whose ending says so; 101, final for an upgrade, is a success.
#[test]
fn an_interim_status_handed_in_as_the_answer_is_a_malformed_response_that_the_ending_names() {
    let none = |_: &'static str| -> Option<&'static str> { None };
    let mut get = driver(PLAIN);
    let mut now = 0;
    for attempt in 1..=3 {
        assert_eq!(start_next(&mut get, &mut now).attempt, attempt);
        now += 20;
        get.handle_response(now, attempt, None, [100, 102, 103][attempt as usize - 1], none, 0).unwrap();
    }
    let ending = finished(get.poll_action(now).unwrap());
    assert_eq!(ending.last_result.map(|result| result.outcome), Some(Failure::MalformedResponse.outcome()));
    let message = ending.message("GET /items", None, "outcomeOfError").unwrap().to_string();
    assert!(
        message.ends_with(
            "; the last response's status 103 is an interim answer (1xx), never the final one: read as a malformed \
             response (the HTTP client returned it in place of the answer that follows it)"
        ),
        "{message}"
    );

    let mut upgraded = driver(PLAIN);
    started(upgraded.poll_action(0).unwrap());
    upgraded.handle_response(20, 1, None, 101, none, 0).unwrap();
    let ending = finished(upgraded.poll_action(20).unwrap());
    assert!(matches!(ending.decision, Decision::Succeeded { .. }), "{:?}", ending.decision);
    assert_eq!(ending.malformed_status, None);
}

#[test]
fn an_ending_after_a_status_that_is_no_http_status_names_it() {
    let none = |_: &'static str| -> Option<&'static str> { None };
    let hint = |status: i64| {
        alloc::format!(
            "; the last response's status {status} is no HTTP status (100..=599): read as a malformed response, \
             the server's fault"
        )
    };
    // A GET answered 999, 600 and -1: each read as a malformed response (a lost connection), retried, then given up.
    let mut get = driver(PLAIN);
    let mut now = 0;
    for (attempt, status) in [(1, 999), (2, 600), (3, -1)] {
        assert_eq!(start_next(&mut get, &mut now).attempt, attempt);
        now += 20;
        get.handle_response(now, attempt, None, status, none, 0).unwrap();
    }
    let ending = finished(get.poll_action(now).unwrap());
    assert!(matches!(ending.decision, Decision::GaveUp { reason: GiveUpReason::AttemptsExhausted, .. }));
    assert_eq!(ending.last_result.map(|result| result.outcome), Some(Failure::MalformedResponse.outcome()));
    assert_eq!(ending.malformed_status, Some(-1), "the last response's status");
    let key = get.idempotency_key().as_str();
    let words = ending.decision.ending_message("GET /items", Some(key)).unwrap().to_string();
    let message = ending.message("GET /items", Some(key), "outcomeOfError").unwrap().to_string();
    assert_eq!(message, alloc::format!("{words}{}", hint(-1)));

    // A POST answered 999: reconcile, and the words say what came back.
    let post = Repeatability::by_method("POST", None).unwrap();
    let options = OperationOptions::new(7).with_repeatability(post);
    let mut write = Driver::new(&policy(PLAIN), 0, options, DriverOptions::default()).unwrap();
    started(write.poll_action(0).unwrap());
    write.handle_response(20, 1, Some(5), 999, none, 0).unwrap();
    let ending = finished(write.poll_action(20).unwrap());
    assert!(matches!(ending.decision, Decision::Reconcile { .. }));
    let key = write.idempotency_key().as_str();
    let words = ending.decision.ending_message("POST /orders", Some(key)).unwrap().to_string();
    let message = ending.message("POST /orders", Some(key), "outcomeOfError").unwrap().to_string();
    assert_eq!(message, alloc::format!("{words}{}", hint(999)));

    // A 999, then results that are no such response: the ending names no status.
    let mut timed_out = driver(PLAIN);
    let mut now = 0;
    start_next(&mut timed_out, &mut now);
    timed_out.handle_response(now + 20, 1, None, 999, none, 0).unwrap();
    now += 20;
    start_next(&mut timed_out, &mut now);
    timed_out.handle_response(now + 20, 2, None, 503, none, 0).unwrap();
    now += 20;
    let third = start_next(&mut timed_out, &mut now);
    let abort = Action::AbortAttempt { attempt: 3, reason: AbortReason::TimedOut };
    assert_eq!(timed_out.poll_action(third.abort_at_ms).unwrap(), abort);
    let ending = finished(timed_out.poll_action(third.abort_at_ms).unwrap());
    assert_eq!(ending.malformed_status, None, "the last result is the timeout the driver counted");
    let mut answered = driver(PLAIN);
    started(answered.poll_action(0).unwrap());
    answered.handle_response(20, 1, None, 999, none, 0).unwrap();
    let mut now = 20;
    start_next(&mut answered, &mut now);
    answered.handle_response(now + 20, 2, None, 404, none, 0).unwrap();
    let ending = finished(answered.poll_action(now + 20).unwrap());
    assert_eq!(ending.malformed_status, None, "a 404 answered last");
}

#[test]
fn a_start_time_past_max_ms_is_refused_where_it_is_given_not_at_every_later_poll() {
    let plain = policy(PLAIN);
    for now_ms in [crate::policy::MAX_MS + 1, u64::MAX] {
        let refused = Driver::new(&plain, now_ms, OperationOptions::new(7), DriverOptions::default()).map(|_| ());
        assert!(matches!(&refused, Err(Error::InvalidArgument { field: "now_ms", .. })), "{now_ms}: {refused:?}");
    }
    let last = Driver::new(&plain, crate::policy::MAX_MS, OperationOptions::new(7), DriverOptions::default());
    assert!(last.is_ok(), "MAX_MS itself is a time");
}

#[test]
fn an_http_hosts_error_called_a_success_is_refused_naming_the_hook() {
    let options_http = || DriverOptions { returns_responses: true, ..DriverOptions::default() };
    let mut http = Driver::new(&policy(PLAIN), 0, OperationOptions::new(7), options_http()).unwrap();
    let first = started(http.poll_action(0).unwrap());
    let refused = http.handle_result_with_token(10, first.attempt, Outcome::Success, 1, Held::Error);
    let Err(Error::InvalidArgument { field, rule }) = refused else { panic!("expected a refusal, got {refused:?}") };
    assert_eq!(field, "outcome_of_error");
    assert!(rule.to_string().starts_with("answered a success for a thrown error"), "{rule}");
    // Nothing changed: the attempt still runs, and its response can still be handed in.
    assert_eq!(
        http.handle_result_with_token(20, first.attempt, Outcome::Success, 2, Held::Value),
        Ok(Receipt::Accepted)
    );
    // Once it has ended (a late or losing attempt's error called a success), such a result is discarded: the
    // operation that succeeded stays a success.
    assert_eq!(
        http.handle_result_with_token(30, first.attempt, Outcome::Success, 3, Held::Error),
        Ok(Receipt::Discarded)
    );
    // So is one at or after its attempt's abort time.
    let mut late = Driver::new(&policy(PLAIN), 0, OperationOptions::new(7), options_http()).unwrap();
    let first = started(late.poll_action(0).unwrap());
    let at_abort = late.handle_result_with_token(first.abort_at_ms, first.attempt, Outcome::Success, 1, Held::Error);
    assert_eq!(at_abort, Ok(Receipt::Discarded));
    // A function helper's success after an error returns no value: not refused.
    let mut function = driver(PLAIN);
    let first = started(function.poll_action(0).unwrap());
    assert_eq!(
        function.handle_result_with_token(10, first.attempt, Outcome::Success, 1, Held::Error),
        Ok(Receipt::Accepted)
    );
}
