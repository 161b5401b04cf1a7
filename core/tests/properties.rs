//! Property tests: the invariants of the decision rules hold for any policy,
//! seed and sequence of events.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use proptest::prelude::*;
use retryplan::engine::backoff::delay_range_ms;
use retryplan::ground::codes::{GrpcCode, TransportFailure};
use retryplan::headers::retry_after::Pushback;
use retryplan::policy::{
    AboveCap, AttemptTimeoutConfig, BackoffConfig, BackoffKind, Jitter, JitterConfig, ServerGuidanceConfig,
};
use retryplan::{Decision, Idempotency, Operation, OperationOptions, Outcome, Policy, PolicyConfig, Verdict};

fn jitter() -> impl Strategy<Value = JitterConfig> {
    prop_oneof![
        Just(JitterConfig::None),
        Just(JitterConfig::Full),
        Just(JitterConfig::Equal),
        Just(JitterConfig::Decorrelated),
        Just(JitterConfig::FullThenCap),
        (1u32..=1000).prop_map(|permille| JitterConfig::Proportional { ratio: f64::from(permille) / 1000.0 }),
        (0u64..=5_000).prop_map(|max_ms| JitterConfig::Additive { max_ms }),
    ]
}

fn idempotency() -> impl Strategy<Value = Idempotency> {
    prop_oneof![
        Just(Idempotency::Safe),
        Just(Idempotency::Idempotent),
        Just(Idempotency::Keyed),
        Just(Idempotency::Unsafe)
    ]
}

prop_compose! {
    fn policy()(
        max_attempts in 1u32..=8,
        total_timeout_ms in 1u64..20_000,
        reserve in 0u64..200,
        minimum in 0u64..500,
        fixed in proptest::option::of(1u64..5_000),
        fraction in 1u32..=1000,
        kind in prop_oneof![Just(BackoffKind::Exponential), Just(BackoffKind::Linear), Just(BackoffKind::Constant)],
        base_ms in 1u64..1_000,
        extra_cap in 0u64..5_000,
        multiplier_permille in prop_oneof![1000u32..4000, 1u32..1000],
        throttling_base_ms in proptest::option::of(1u64..1_000),
        max_above_backoff_ms in proptest::option::of(0u64..6_000),
        immediate_first_retry in proptest::bool::weighted(0.2),
        replace in proptest::bool::weighted(0.2),
        jitter in jitter(),
        honor in any::<bool>(),
        cap_ms in 0u64..10_000,
        clamp in any::<bool>(),
        idempotency in idempotency(),
    ) -> Option<Policy> {
        let attempt_timeout = match fixed {
            Some(ms) => AttemptTimeoutConfig::FixedMs(ms.max(minimum)),
            None => AttemptTimeoutConfig::FractionOfRemaining(f64::from(fraction) / 1000.0),
        };
        Policy::new(&PolicyConfig {
            max_attempts,
            total_timeout_ms,
            attempt_timeout,
            response_reserve_ms: reserve,
            minimum_useful_attempt_ms: minimum,
            backoff: BackoffConfig {
                kind,
                base_ms,
                multiplier: f64::from(multiplier_permille) / 1000.0,
                cap_ms: base_ms + extra_cap,
                throttling_base_ms: throttling_base_ms.map(|ms| ms.min(base_ms + extra_cap)),
                immediate_first_retry,
            },
            jitter,
            server_guidance: ServerGuidanceConfig {
                honor,
                cap_ms,
                above_cap: if clamp { AboveCap::Clamp } else { AboveCap::GiveUp },
                // The bound above the backoff needs mode floor (refused with replace).
                max_above_backoff_ms: max_above_backoff_ms.filter(|_| !replace),
                mode: if replace { retryplan::policy::GuidanceMode::Replace } else { retryplan::policy::GuidanceMode::Floor },
                ..ServerGuidanceConfig::default()
            },
            idempotency,
            ..PolicyConfig::default()
        })
        .ok()
    }
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        Just(Outcome::Success),
        (
            prop_oneof![Just(200u16), Just(404), Just(409), Just(429), Just(500), Just(503), Just(504)],
            proptest::option::of(0u64..15_000)
        )
            .prop_map(|(status, retry_after_ms)| Outcome::HttpStatus {
                status,
                retry_after_ms,
                error_code: None
            }),
        (
            0u32..17,
            proptest::option::of(prop_oneof![
                (0u64..5_000).prop_map(Pushback::RetryAfterMs),
                Just(Pushback::DoNotRetry)
            ])
        )
            .prop_map(|(code, pushback)| Outcome::GrpcStatus {
                code: GrpcCode::from_number(code).unwrap_or(GrpcCode::Unknown),
                pushback
            }),
        (
            prop_oneof![
                Just(TransportFailure::NotSent),
                Just(TransportFailure::ConnectionLost),
                Just(TransportFailure::TimedOut)
            ],
            proptest::option::of(0u64..5_000)
        )
            .prop_map(|(failure, retry_after_ms)| Outcome::Transport { failure, retry_after_ms }),
        prop_oneof![Just(Verdict::Retryable), Just(Verdict::NotRetryable), Just(Verdict::Conflict)]
            .prop_map(|verdict| Outcome::Application { verdict }),
        Just(Outcome::Cancelled),
    ]
}

/// One caller action: how much time passes, what the attempt returned, and
/// whether the caller polls early, cancels, or lets the clock go backwards.
#[derive(Clone, Debug)]
struct Step {
    elapsed_ms: u64,
    outcome: Outcome,
    poll_early: bool,
    cancel: bool,
    backwards_ms: u64,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u64..3_000,
        outcome(),
        any::<bool>(),
        proptest::bool::weighted(0.05),
        prop_oneof![9 => Just(0u64), 1 => 1u64..500],
    )
        .prop_map(|(elapsed_ms, outcome, poll_early, cancel, backwards_ms)| Step {
            elapsed_ms,
            outcome,
            poll_early,
            cancel,
            backwards_ms,
        })
}

fn is_ambiguous(policy: &Policy, outcome: &Outcome) -> bool {
    matches!(
        retryplan::outcomes::classify::classify(policy, outcome),
        Ok(retryplan::Class::Retryable { ambiguous: true, .. })
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_for_any_event_sequence(
        policy in policy(),
        seed in any::<u64>(),
        start_ms in 0u64..1_000_000,
        deadline_offset in proptest::option::of(0u64..30_000),
        steps in proptest::collection::vec(step(), 1..24),
    ) {
        let Some(policy) = policy else { return Ok(()) };
        let mut options = OperationOptions::new(seed);
        if let Some(offset) = deadline_offset {
            options = options.with_deadline_ms(start_ms + offset);
        }
        let mut operation = Operation::new(&policy, start_ms, options);
        let limit = operation.deadline_ms().saturating_sub(policy.response_reserve_ms());
        let minimum = policy.minimum_useful_attempt_ms().max(1);
        let mut now = start_ms;
        let mut decisions = Vec::new();
        let mut decision = operation.poll(now).expect("a new operation polls");
        let mut last_outcome: Option<Outcome> = None;
        for step in &steps {
            decisions.push(decision);
            match decision {
                Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, .. } => {
                    prop_assert!(attempt <= policy.max_attempts(), "attempt {} > max", attempt);
                    prop_assert!(abort_at_ms <= limit, "attempt ends at {} after deadline - reserve {}", abort_at_ms, limit);
                    prop_assert!(timeout_ms >= 1);
                    if let Some(previous) = last_outcome {
                        prop_assert!(
                            !(policy.idempotency() == Idempotency::Unsafe && is_ambiguous(&policy, &previous)),
                            "an unsafe ambiguous outcome was repeated"
                        );
                    }
                    if step.cancel {
                        decision = operation.cancel(now).expect("cancel before the end");
                        continue;
                    }
                    now += step.elapsed_ms.min(timeout_ms);
                    last_outcome = Some(step.outcome);
                    decision = operation.on_outcome(now.saturating_sub(step.backwards_ms), attempt, &step.outcome).expect("running attempt");
                }
                Decision::Wait { retry, delay_ms, until_ms, retry_after_ms, .. } => {
                    prop_assert!(until_ms.saturating_add(minimum) <= limit, "wait until {} leaves no useful attempt before {}", until_ms, limit);
                    if delay_ms > 0 && until_ms == now + delay_ms && !matches!(decisions.get(decisions.len().wrapping_sub(2)), Some(Decision::Wait { .. })) {
                        let server = retry_after_ms.unwrap_or(0);
                        prop_assert!(delay_ms >= server, "delay {} below server guidance {}", delay_ms, server);
                        if delay_ms > server && policy.jitter() != Jitter::Decorrelated {
                            let (low, high) = delay_range_ms(&policy, retry, 0);
                            prop_assert!((low..=high).contains(&delay_ms), "delay {} outside jitter range [{}, {}]", delay_ms, low, high);
                        }
                        if delay_ms > server {
                            prop_assert!(delay_ms <= policy.backoff().cap_ms);
                        }
                    }
                    if step.cancel {
                        decision = operation.cancel(now).expect("cancel before the end");
                        continue;
                    }
                    now = if step.poll_early { now + until_ms.saturating_sub(now) / 2 } else { until_ms.max(now) + step.elapsed_ms % 50 };
                    decision = operation.poll(now).expect("poll before the end");
                }
                Decision::AwaitOutcome { .. } => prop_assert!(false, "no poll happens while an attempt runs here"),
                _ => {
                    prop_assert!(decision.is_final());
                    prop_assert_eq!(operation.poll(now + 1).unwrap_err().code(), "operation_ended");
                    prop_assert_eq!(operation.cancel(now + 1).unwrap_err().code(), "operation_ended");
                    prop_assert!(operation.attempts_started() <= policy.max_attempts());
                    break;
                }
            }
        }
    }

    #[test]
    fn same_seed_same_decisions(policy in policy(), seed in any::<u64>(), outcomes in proptest::collection::vec(outcome(), 1..10)) {
        let Some(policy) = policy else { return Ok(()) };
        let run = || {
            let mut operation = Operation::new(&policy, 0, OperationOptions::new(seed));
            let mut now = 0;
            let mut trace = vec![operation.poll(now)];
            for outcome in &outcomes {
                match trace.last() {
                    Some(Ok(Decision::StartAttempt { attempt, abort_at_ms, .. })) => {
                        now = *abort_at_ms;
                        trace.push(operation.on_outcome(now, *attempt, outcome));
                    }
                    Some(Ok(Decision::Wait { until_ms, .. })) => {
                        now = *until_ms;
                        trace.push(operation.poll(now));
                    }
                    _ => break,
                }
            }
            trace
        };
        prop_assert_eq!(run(), run());
    }

    #[test]
    fn policy_json_never_panics(json in "\\PC{0,200}") {
        let _ = Policy::from_json(&json);
    }

    #[test]
    fn headers_never_panic(value in "\\PC{0,40}", now in any::<u64>(), ms in any::<u64>()) {
        let _ = retryplan::headers::retry_after::parse_retry_after(&value, now);
        let _ = retryplan::headers::grpc_timeout::parse_grpc_timeout(&value);
        let _ = retryplan::headers::retry_after::parse_grpc_pushback(&value);
        let encoded = retryplan::headers::grpc_timeout::encode_grpc_timeout(ms);
        let parsed = retryplan::headers::grpc_timeout::parse_grpc_timeout(&encoded).expect("own encoding parses");
        prop_assert!(parsed <= ms, "encoding minted time: {} -> {} -> {}", ms, encoded, parsed);
    }
}

mod shared_controls {
    use super::*;
    use retryplan::controls::budget::{BudgetConfig, BudgetSnapshot};
    use retryplan::policy::HedgingConfig;
    use retryplan::{Dependency, RetryBudget};

    #[derive(Clone, Debug)]
    enum Event {
        Request,
        Retry(bool),
        Success,
        Failure,
    }

    fn event() -> impl Strategy<Value = Event> {
        prop_oneof![
            Just(Event::Request),
            any::<bool>().prop_map(Event::Retry),
            Just(Event::Success),
            Just(Event::Failure)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        #[test]
        fn token_bucket_tokens_stay_within_bounds(max_tokens in 1u32..=1000, ratio_milli in 1u32..=1000, events in proptest::collection::vec(event(), 0..300)) {
            let token_ratio = f64::from(ratio_milli.min(max_tokens * 1000)) / 1000.0;
            let budget = RetryBudget::new(&BudgetConfig::TokenBucket { max_tokens, token_ratio }).unwrap();
            for event in events {
                let before = budget.snapshot(0);
                match event {
                    Event::Request => budget.on_request(0),
                    Event::Retry(after_timeout) => {
                        let granted = budget.try_retry(0, after_timeout).is_some();
                        let BudgetSnapshot::TokenBucket { tokens_milli, max_tokens_milli, .. } = before else { unreachable!() };
                        prop_assert_eq!(granted, tokens_milli * 2 > max_tokens_milli);
                    }
                    Event::Success => budget.on_success(0, None).unwrap(),
                    Event::Failure => budget.on_failure(0, None).unwrap(),
                }
                let BudgetSnapshot::TokenBucket { tokens_milli, max_tokens_milli, .. } = budget.snapshot(0) else { unreachable!() };
                prop_assert!(tokens_milli <= max_tokens_milli);
            }
        }

        #[test]
        fn a_ratio_budget_never_grants_more_than_ratio_plus_minimum(
            ratio_milli in 0u32..=1000,
            min_per_second in 0u32..20,
            window_ms in 1_000u64..20_000,
            events in proptest::collection::vec((event(), 0u64..1_000), 0..400),
        ) {
            // Every event inside the first tenth of the window: nothing expires.
            let budget = RetryBudget::new(&BudgetConfig::Ratio {
                retry_ratio: f64::from(ratio_milli) / 1000.0,
                min_retries_per_second: min_per_second,
                window_ms,
            }).unwrap();
            let (mut requests, mut granted) = (0u64, 0u64);
            for (event, at) in events {
                let at = at * window_ms / 10_000;
                match event {
                    Event::Request => { budget.on_request(at); requests += 1; }
                    Event::Retry(_) => if budget.try_retry(at, false).is_some() { granted += 1 },
                    Event::Success => budget.on_success(at, None).unwrap(),
                    Event::Failure => budget.on_failure(at, None).unwrap(),
                }
                let allowance_milli = requests * u64::from(ratio_milli) + u64::from(min_per_second) * window_ms;
                prop_assert!(granted * 1000 <= allowance_milli, "{} retries for {} requests", granted, requests);
            }
        }

        #[test]
        fn hedges_never_exceed_their_caps_or_the_deadline(
            max_attempts in 1u32..=8,
            max_hedged_attempts in 1u32..=4,
            delay_ms in 0u64..300,
            seed in any::<u64>(),
            budget in any::<bool>(),
            choices in proptest::collection::vec((0usize..8, 0u64..400, outcome()), 1..40),
        ) {
            let policy = Policy::new(&PolicyConfig {
                max_attempts,
                total_timeout_ms: 3_000,
                hedging: Some(HedgingConfig { delay_ms, max_hedged_attempts }),
                ..PolicyConfig::default()
            }).unwrap();
            let mut options = OperationOptions::new(seed);
            if budget {
                options = options.with_dependency(Dependency::from_json(
                    r#"{"budget": {"kind": "token_bucket", "max_tokens": 4, "token_ratio": 0.5}, "retry_slots": 2}"#,
                ).unwrap());
            }
            let mut operation = Operation::new(&policy, 0, options);
            let limit = operation.deadline_ms() - policy.response_reserve_ms();
            let mut now = 0;
            let mut running: Vec<u32> = Vec::new();
            for (pick, elapsed, outcome) in choices {
                now += elapsed;
                let decision = if running.is_empty() || pick % 2 == 0 {
                    operation.poll(now)
                } else {
                    let attempt = running.remove(pick % running.len());
                    operation.on_outcome(now, attempt, &outcome)
                };
                let Ok(decision) = decision else { break };
                match decision {
                    Decision::StartAttempt { attempt, abort_at_ms, .. } => {
                        prop_assert!(abort_at_ms <= limit);
                        running.push(attempt);
                    }
                    Decision::AwaitOutcome { running: count, .. } => prop_assert_eq!(count as usize, running.len()),
                    Decision::Wait { .. } => prop_assert!(running.is_empty()),
                    ending => {
                        let abort: Vec<u32> = match ending {
                            Decision::Succeeded { abort_attempts, .. }
                            | Decision::GaveUp { abort_attempts, .. }
                            | Decision::Reconcile { abort_attempts, .. }
                            | Decision::Restart { abort_attempts, .. } => abort_attempts.iter().collect(),
                            _ => unreachable!(),
                        };
                        running.sort_unstable();
                        prop_assert_eq!(abort, running.clone());
                        break;
                    }
                }
                prop_assert!(running.len() as u32 <= 1 + max_hedged_attempts);
                prop_assert!(operation.attempts_started() <= max_attempts);
            }
        }
    }
}
