//! Random event sequences over several operations and drivers sharing one
//! dependency (retry budget, circuit breaker, retry slots), with
//! the engine's invariants checked after every step:
//!
//! - no attempt is scheduled to end after the deadline minus the response
//!   reserve, and no wait leaves less than a minimum useful attempt;
//! - attempts never exceed `max_attempts`;
//! - an ambiguous outcome of an unsafe operation is never repeated;
//! - a wait is never below the server's guidance and stays within the
//!   jitter's bounds;
//! - the shared controls hold no more grants than attempts run, and once
//!   every operation ended (or was dropped), no permit, charge or slot is
//!   left out and no probe is counted in flight.
#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use retryplan::controls::budget::BudgetSnapshot;
use retryplan::ground::codes::{GrpcCode, TransportFailure};
use retryplan::headers::retry_after::Pushback;
use retryplan::outcomes::decision::AttemptSet;
use retryplan::policy::Jitter;
use retryplan::{
    outcomes::classify::classify, Action, Class, Concurrency, Decision, Dependency, Driver, DriverOptions, Held,
    Idempotency, Operation, OperationOptions, Outcome, Policy, Receipt, Verdict,
};
use serde_json::json;

#[derive(Arbitrary, Debug)]
struct Script {
    policy: PolicyKnobs,
    dependency: DependencyKnobs,
    clients: Vec<ClientKnobs>,
    events: Vec<Event>,
}

#[derive(Arbitrary, Debug)]
struct PolicyKnobs {
    max_attempts: u8,
    total_timeout_ms: u16,
    fixed_timeout_ms: Option<u16>,
    fraction_permille: u16,
    reserve_ms: u8,
    minimum_useful_ms: u8,
    backoff_kind: u8,
    base_ms: u16,
    multiplier_tenths: u8,
    cap_ms: u16,
    jitter: u8,
    jitter_permille: u16,
    honor: bool,
    guidance_cap_ms: u16,
    clamp_above_cap: bool,
    a6_guidance: bool,
    idempotency: u8,
    hedging: Option<(u16, u8)>,
}

#[derive(Arbitrary, Debug)]
struct DependencyKnobs {
    budget: u8,
    budget_numbers: [u16; 4],
    breaker: u8,
    breaker_numbers: [u16; 4],
    slots: Option<u8>,
}

#[derive(Arbitrary, Debug)]
struct ClientKnobs {
    driver: Option<u8>,
    start_ms: u8,
    seed: u64,
    deadline_ms: Option<u16>,
    /// An HTTP method by index, or none (not an HTTP request).
    method: Option<u8>,
}

#[derive(Arbitrary, Debug)]
enum Event {
    Advance(u16),
    Poll(u8),
    Outcome(u8, u8, OutcomeKnobs),
    Cancel(u8),
    /// A reading earlier than the latest (a racing thread), up to this much.
    Behind(u8, u16),
    /// Drops a client mid-flight (its grants must come back).
    Drop(u8),
}

#[derive(Arbitrary, Debug)]
enum OutcomeKnobs {
    Success,
    Http(u8, Option<u16>),
    Grpc(u8, Option<Option<u16>>),
    Transport(u8, Option<u16>),
    Application(u8),
    Cancelled,
}

const STATUSES: [u16; 10] = [200, 204, 400, 404, 409, 429, 500, 502, 503, 504];
const METHODS: [&str; 5] = ["GET", "PUT", "POST", "DELETE", "PATCH"];
const BACKOFF_KINDS: [&str; 3] = ["exponential", "linear", "constant"];
const IDEMPOTENCIES: [&str; 4] = ["safe", "idempotent", "keyed", "unsafe"];

fn outcome(knobs: &OutcomeKnobs) -> Outcome {
    match *knobs {
        OutcomeKnobs::Success => Outcome::Success,
        OutcomeKnobs::Http(status, retry_after) => Outcome::HttpStatus {
            status: STATUSES[usize::from(status) % STATUSES.len()],
            retry_after_ms: retry_after.map(u64::from),
            error_code: None,
        },
        OutcomeKnobs::Grpc(code, pushback) => Outcome::GrpcStatus {
            code: [
                GrpcCode::Ok,
                GrpcCode::Unavailable,
                GrpcCode::DeadlineExceeded,
                GrpcCode::Aborted,
                GrpcCode::NotFound,
            ][usize::from(code) % 5],
            pushback: pushback.map(|ms| ms.map_or(Pushback::DoNotRetry, |ms| Pushback::RetryAfterMs(u64::from(ms)))),
        },
        OutcomeKnobs::Transport(failure, retry_after) => Outcome::Transport {
            failure: [TransportFailure::NotSent, TransportFailure::ConnectionLost, TransportFailure::TimedOut]
                [usize::from(failure) % 3],
            retry_after_ms: retry_after.map(u64::from),
        },
        OutcomeKnobs::Application(verdict) => Outcome::Application {
            verdict: [Verdict::Retryable, Verdict::NotRetryable, Verdict::Conflict][usize::from(verdict) % 3],
        },
        OutcomeKnobs::Cancelled => Outcome::Cancelled,
    }
}

fn policy(k: &PolicyKnobs) -> Option<Policy> {
    let attempt_timeout = match k.fixed_timeout_ms {
        Some(ms) => json!({"fixed_ms": u64::from(ms)}),
        None => json!({"fraction_of_remaining": f64::from(k.fraction_permille % 1000 + 1) / 1000.0}),
    };
    let jitter = match k.jitter % 6 {
        0 => json!({"kind": "none"}),
        1 => json!({"kind": "full"}),
        2 => json!({"kind": "equal"}),
        3 => json!({"kind": "decorrelated"}),
        4 => json!({"kind": "proportional", "ratio": f64::from(k.jitter_permille % 1000 + 1) / 1000.0}),
        _ => json!({"kind": "a6"}),
    };
    let mut config = json!({
        "max_attempts": u64::from(k.max_attempts % 8),
        "total_timeout_ms": u64::from(k.total_timeout_ms),
        "attempt_timeout": attempt_timeout,
        "response_reserve_ms": u64::from(k.reserve_ms),
        "minimum_useful_attempt_ms": u64::from(k.minimum_useful_ms),
        "backoff": {
            "kind": BACKOFF_KINDS[usize::from(k.backoff_kind % 3)],
            "base_ms": u64::from(k.base_ms % 2000),
            "multiplier": f64::from(k.multiplier_tenths % 40 + 10) / 10.0,
            "cap_ms": u64::from(k.cap_ms % 5000),
        },
        "jitter": jitter,
        "server_guidance": {
            "honor": k.honor,
            "cap_ms": u64::from(k.guidance_cap_ms),
            "above_cap": if k.clamp_above_cap { "clamp" } else { "give_up" },
            "mode": if k.a6_guidance { "a6" } else { "floor" },
        },
        "idempotency": IDEMPOTENCIES[usize::from(k.idempotency % 4)],
    });
    if let (Some((delay_ms, hedges)), Some(object)) = (k.hedging, config.as_object_mut()) {
        object.insert(
            "hedging".into(),
            json!({"delay_ms": u64::from(delay_ms % 1000), "max_hedged_attempts": u64::from(hedges % 3 + 1)}),
        );
    }
    Policy::from_json(&config.to_string()).ok()
}

fn dependency(k: &DependencyKnobs) -> Option<Arc<Dependency>> {
    let [a, b, c, d] = k.budget_numbers.map(u64::from);
    let budget = match k.budget % 4 {
        0 => None,
        1 => Some(
            json!({"kind": "token_bucket", "max_tokens": a % 20 + 1, "token_ratio": (b % ((a % 20 + 1) * 1000) + 1) as f64 / 1000.0}),
        ),
        2 => Some(
            json!({"kind": "ratio", "retry_ratio": (a % 1001) as f64 / 1000.0, "min_retries_per_second": b % 5, "window_ms": c % 5000 + 1}),
        ),
        _ => Some(
            json!({"kind": "quota", "capacity": a % 50 + 1, "retry_cost": b % (a % 50 + 2), "timeout_retry_cost": c % (a % 50 + 2), "success_increment": d % 5}),
        ),
    };
    let [e, f, g, h] = k.breaker_numbers.map(u64::from);
    let trip = match k.breaker % 3 {
        0 => None,
        1 => Some(json!({"kind": "consecutive", "failures": e % 5 + 1})),
        _ => Some(
            json!({"kind": "ratio", "failure_ratio": (e % 1000 + 1) as f64 / 1000.0, "minimum_throughput": f % 10 + 1, "window_ms": g % 5000 + 1}),
        ),
    };
    let mut config = json!({});
    let object = config.as_object_mut()?;
    if let Some(budget) = budget {
        object.insert("budget".into(), budget);
    }
    if let Some(trip) = trip {
        object.insert("breaker".into(), json!({"trip": trip, "open_ms": h % 3000 + 1, "half_open_probes": f % 3 + 1}));
    }
    if let Some(slots) = k.slots {
        object.insert("retry_slots".into(), json!(slots % 4));
    }
    Some(Dependency::from_json(&config.to_string()).expect("the knobs make a valid dependency"))
}

enum Runner {
    Operation(Operation),
    Driver(Driver),
}

struct Client {
    runner: Option<Runner>,
    /// The latest time this client was given (readings behind it count as it).
    seen_ms: u64,
    /// Attempts started and not yet reported or aborted.
    running: Vec<u32>,
    /// A driver client's tokens: the results it handed in and still holds
    /// (accepted, not yet released), and the next token to give.
    held: Vec<u64>,
    next_token: u64,
}

struct Checker<'a> {
    policy: &'a Policy,
}

impl Checker<'_> {
    fn minimum(&self) -> u64 {
        self.policy.minimum_useful_attempt_ms().max(1)
    }

    /// The latest end a schedule may have: the deadline minus the reserve.
    fn end(&self, deadline_ms: u64) -> u64 {
        deadline_ms.saturating_sub(self.policy.response_reserve_ms())
    }

    /// An attempt's start; `now_ms` is when it was decided, when known (a
    /// driver hands out starts it decided while handling a result).
    fn start(&self, deadline_ms: u64, attempt: u32, abort_at_ms: u64, timeout_ms: u64, now_ms: Option<u64>) {
        assert!(
            attempt >= 1 && attempt <= self.policy.max_attempts(),
            "attempt {attempt} of {}",
            self.policy.max_attempts()
        );
        assert!(timeout_ms >= 1, "a zero timeout");
        if let Some(now_ms) = now_ms {
            assert_eq!(abort_at_ms, now_ms.saturating_add(timeout_ms));
        }
        assert!(
            abort_at_ms <= self.end(deadline_ms),
            "attempt {attempt} ends at {abort_at_ms}, after {deadline_ms} - reserve"
        );
    }

    fn wait(&self, delay_ms: u64, retry_after_ms: Option<u64>) {
        assert!(delay_ms >= retry_after_ms.unwrap_or(0), "a wait of {delay_ms} below the server's {retry_after_ms:?}");
        if retry_after_ms.is_none() {
            let backoff = self.policy.backoff();
            let highest = match self.policy.jitter() {
                Jitter::A6 => backoff.cap_ms.saturating_add(backoff.cap_ms / 5),
                _ => backoff.cap_ms,
            };
            assert!(delay_ms <= highest, "a wait of {delay_ms} above the jitter's bound {highest}");
            if let Jitter::None = self.policy.jitter() {
                assert!(
                    (0..self.policy.max_attempts()).any(|retry| backoff.ceiling_ms(retry) == delay_ms),
                    "an unjittered wait of {delay_ms} is no backoff ceiling"
                );
            }
        }
    }

    /// Checks a decision of `operation` at `now_ms`; `reported` is the outcome just reported, if any.
    fn decision(&self, operation: &Operation, decision: &Decision, now_ms: u64, reported: Option<&Outcome>) {
        let deadline_ms = operation.deadline_ms();
        assert!(operation.attempts_started() <= self.policy.max_attempts());
        match *decision {
            Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, .. } => {
                self.start(deadline_ms, attempt, abort_at_ms, timeout_ms, Some(now_ms))
            }
            Decision::Wait { delay_ms, until_ms, retry_after_ms, .. } => {
                assert_eq!(until_ms, now_ms.saturating_add(delay_ms));
                assert!(delay_ms >= 1);
                assert!(
                    until_ms.saturating_add(self.minimum()) <= self.end(deadline_ms),
                    "a wait until {until_ms} leaves less than a minimum useful attempt before {deadline_ms}"
                );
                // A wait just decided (not the rest of one, asked again by a poll): its bounds.
                if reported.is_some() {
                    self.wait(delay_ms, retry_after_ms)
                }
            }
            _ => {}
        }
        if let Some(outcome) = reported {
            let ambiguous =
                matches!(classify(operation.policy(), outcome), Ok(Class::Retryable { ambiguous: true, .. }));
            if ambiguous && operation.idempotency() == Idempotency::Unsafe {
                assert!(
                    matches!(decision, Decision::Reconcile { .. } | Decision::GaveUp { .. }),
                    "an ambiguous {outcome:?} of an unsafe operation answered {decision:?}"
                );
            }
        }
    }
}

/// The grants out and the probes counted can never exceed the attempts running.
fn check_controls(dependency: &Dependency, running: usize, all_ended: bool) {
    let running = if all_ended { 0 } else { running };
    if let Some(breaker) = dependency.breaker() {
        assert!(
            breaker.permits_outstanding() <= running,
            "{} permits out, {running} running",
            breaker.permits_outstanding()
        );
        assert!(breaker.snapshot(0).probes_running as usize <= running);
    }
    if let Some(budget) = dependency.budget() {
        assert!(
            budget.charges_outstanding() <= running,
            "{} charges out, {running} running",
            budget.charges_outstanding()
        );
        if let BudgetSnapshot::TokenBucket { tokens_milli, max_tokens_milli, .. } = budget.snapshot(0) {
            assert!(tokens_milli <= max_tokens_milli);
        }
        if let BudgetSnapshot::Quota { available, capacity } = budget.snapshot(0) {
            assert!(available <= capacity);
        }
    }
    if let Some(slots) = dependency.retry_slots() {
        assert!(slots.in_use() <= slots.capacity());
        assert!(slots.in_use() as usize <= running, "{} slots taken, {running} running", slots.in_use());
    }
}

/// One of the running attempts, or (one time in `running + 1`) any number, to exercise refusals.
fn chosen(running: &[u32], choice: u8) -> u32 {
    running.get(usize::from(choice) % (running.len() + 1)).copied().unwrap_or(u32::from(choice))
}

fn remove(running: &mut Vec<u32>, attempts: AttemptSet) {
    running.retain(|attempt| !attempts.contains(*attempt));
}

fuzz_target!(|script: Script| {
    let Some(policy) = policy(&script.policy) else { return };
    let Some(dependency) = dependency(&script.dependency) else { return };
    let checker = Checker { policy: &policy };
    let mut now_ms: u64 = 0;
    let mut clients: Vec<Client> = Vec::new();
    for knobs in script.clients.iter().take(4) {
        let start_ms = u64::from(knobs.start_ms);
        let mut options = OperationOptions::new(knobs.seed).with_dependency(Arc::clone(&dependency));
        if let Some(deadline) = knobs.deadline_ms {
            options = options.with_deadline_ms(start_ms + u64::from(deadline));
        }
        if let Some(method) = knobs.method {
            let method = METHODS[usize::from(method) % METHODS.len()];
            options = options.with_http_request(policy.http_request(method, None, None).expect("a known method"));
        }
        let runner = match knobs.driver {
            None => Runner::Operation(Operation::new(&policy, start_ms, options)),
            Some(kind) => {
                let concurrency =
                    [Concurrency::Concurrent, Concurrency::Sequential, Concurrency::SequentialWithoutHedging]
                        [usize::from(kind) % 3];
                let driver_options = DriverOptions { concurrency, ..DriverOptions::default() };
                match Driver::new(&policy, start_ms, options, driver_options) {
                    Ok(driver) => Runner::Driver(driver),
                    Err(error) => {
                        assert_eq!(error.code(), "unsupported");
                        continue;
                    }
                }
            }
        };
        clients.push(Client {
            runner: Some(runner),
            seen_ms: start_ms,
            running: Vec::new(),
            held: Vec::new(),
            next_token: 1,
        });
    }
    if clients.is_empty() {
        return;
    }
    for event in script.events.iter().take(300) {
        let count = clients.len();
        let pick = |index: &u8| usize::from(*index) % count;
        match event {
            Event::Advance(ms) => now_ms += u64::from(*ms),
            Event::Drop(index) => {
                let client = &mut clients[pick(index)];
                client.runner = None;
                client.running.clear();
            }
            Event::Poll(index) | Event::Cancel(index) | Event::Outcome(index, _, _) | Event::Behind(index, _) => {
                let client = &mut clients[pick(index)];
                let reading = match event {
                    Event::Behind(_, back) => now_ms.saturating_sub(u64::from(*back)),
                    _ => now_ms,
                };
                let now = reading.max(client.seen_ms);
                match client.runner.as_mut() {
                    None => {}
                    Some(Runner::Operation(operation)) => {
                        let (result, reported) = match event {
                            Event::Cancel(_) => (operation.cancel(reading), None),
                            Event::Outcome(_, choice, knobs) => {
                                let attempt = chosen(&client.running, *choice);
                                let outcome = outcome(knobs);
                                let result = operation.on_outcome(reading, attempt, &outcome);
                                if result.is_ok() {
                                    client.running.retain(|running| *running != attempt);
                                }
                                (result, Some(outcome))
                            }
                            _ => (operation.poll(reading), None),
                        };
                        // A refused call changes nothing, its reading included.
                        if result.is_ok() || reported.is_none() {
                            client.seen_ms = now;
                        }
                        match result {
                            Ok(decision) => {
                                checker.decision(operation, &decision, now, reported.as_ref());
                                match decision {
                                    Decision::StartAttempt { attempt, .. } => client.running.push(attempt),
                                    Decision::Succeeded { abort_attempts, .. }
                                    | Decision::GaveUp { abort_attempts, .. }
                                    | Decision::Reconcile { abort_attempts, .. }
                                    | Decision::Restart { abort_attempts, .. } => {
                                        remove(&mut client.running, abort_attempts);
                                        assert!(client.running.is_empty(), "ended with {:?} running", client.running);
                                    }
                                    Decision::Wait { .. } | Decision::AwaitOutcome { .. } => {}
                                }
                            }
                            Err(error) => {
                                assert!(["operation_ended", "attempt_not_running"].contains(&error.code()), "{error}")
                            }
                        }
                        assert_eq!(operation.running_attempts().len() as usize, client.running.len());
                    }
                    Some(Runner::Driver(driver)) => {
                        client.seen_ms = now;
                        match event {
                            Event::Cancel(_) => driver.handle_cancel(reading),
                            Event::Outcome(_, choice, knobs) => {
                                let attempt = chosen(&client.running, *choice);
                                // Every result is held under a token, as the helpers hold them.
                                let token = client.next_token;
                                client.next_token += 1;
                                let held = if token % 2 == 0 { Held::Error } else { Held::Value };
                                match driver.handle_result_with_token(reading, attempt, outcome(knobs), token, held) {
                                    Ok(receipt) => {
                                        client.running.retain(|running| *running != attempt);
                                        if receipt == Receipt::Accepted {
                                            client.held.push(token);
                                        }
                                    }
                                    Err(error) => assert_eq!(error.code(), "attempt_not_running", "{error}"),
                                }
                            }
                            _ => {}
                        }
                        let deadline_ms = driver.operation().deadline_ms();
                        match driver.poll_action(reading).expect("a live driver's operation answers every poll") {
                            Action::StartAttempt(plan) => {
                                checker.start(deadline_ms, plan.attempt, plan.abort_at_ms, plan.timeout_ms, None);
                                assert!(plan.abort_at_ms <= now.saturating_add(plan.timeout_ms));
                                client.running.push(plan.attempt);
                            }
                            Action::AbortAttempt { attempt, .. } => {
                                client.running.retain(|running| *running != attempt)
                            }
                            Action::Sleep { until_ms } => {
                                assert!(until_ms > reading || driver.is_ended(), "sleep until {until_ms} at {reading}")
                            }
                            Action::Release { token } => {
                                // Only a token handed in, accepted and not yet released.
                                let at = client.held.iter().position(|held| *held == token);
                                assert!(at.is_some(), "released {token}, held {:?}", client.held);
                                client.held.retain(|held| *held != token);
                            }
                            Action::Finish(ending) => {
                                assert!(driver.is_ended());
                                // Everything else was released before the finish: the host
                                // holds at most the one result the ending returns or raises.
                                let expected: Vec<u64> = ending.result.map(|result| result.token).into_iter().collect();
                                assert_eq!(client.held, expected, "held at the finish {:?}", ending);
                            }
                        }
                        assert!(driver.operation().attempts_started() <= policy.max_attempts());
                    }
                }
            }
        }
        let running: usize = clients
            .iter()
            .map(|client| match &client.runner {
                Some(Runner::Operation(operation)) => operation.running_attempts().len() as usize,
                Some(Runner::Driver(driver)) => driver.operation().running_attempts().len() as usize,
                None => 0,
            })
            .sum();
        check_controls(&dependency, running, false);
    }
    // Every client ends: dropped (a driver or operation still running gives back what it holds).
    clients.clear();
    check_controls(&dependency, 0, true);
    if let Some(breaker) = dependency.breaker() {
        assert_eq!(breaker.permits_outstanding(), 0);
        assert_eq!(breaker.snapshot(now_ms).probes_running, 0, "a probe counted after every operation ended");
    }
    if let Some(budget) = dependency.budget() {
        assert_eq!(budget.charges_outstanding(), 0);
    }
    if let Some(slots) = dependency.retry_slots() {
        assert_eq!(slots.in_use(), 0);
    }
});
