//! The per-operation state machine: events in, one [`Decision`] out per call.
//!
//! One logical operation is one business effect with one stable idempotency
//! key and up to `max_attempts` attempts, each with a fresh request id. The
//! rules, in the order they are applied:
//!
//! **Before every attempt** ([`Operation::poll`] when ready): the remaining
//! budget is `deadline - now - response_reserve` (saturating). If it is below
//! `max(1, minimum_useful_attempt_ms)`, give up with `deadline_insufficient`.
//! With a shared [`Dependency`]: an open circuit breaker gives up
//! (`circuit_open`); a retry or hedge also needs a free in-flight slot
//! (`concurrency_limited`) and then a retry-budget token (`budget_exhausted`),
//! taken only now, after the wait, so a cancelled waiter spends nothing (a
//! quota prices it by the failure being retried: timeout, throttling or
//! other, [`RetryCause`]). The
//! effective timeout is `min(per-attempt timeout, remaining)`, where a
//! fraction-of-remaining timeout is never below the minimum useful time.
//!
//! **Hedging** (when the policy enables it): while attempts run, each
//! `hedging.delay_ms` after the latest start another attempt starts, up to
//! `1 + max_hedged_attempts` at once and `max_attempts` in all, under the same
//! checks; a hedge that is refused stops hedging but never ends the operation.
//! The first success wins and the ending lists the attempts to abort. A
//! retryable failure while other attempts run is not fatal: the next hedge may
//! start at once, or after the server's requested wait; if the server said not
//! to retry (or asked for a wait above the cap that the policy refuses), no
//! attempt starts again and the operation gives up when the last running one
//! fails. Any other result ends the operation. The backoff after hedged
//! attempts counts every attempt started (retry number = attempts - 1).
//!
//! **After an attempt** ([`Operation::on_outcome`]):
//! 0. the result feeds the dependency's controls: for the breaker a retryable
//!    failure is a failure and any other answer a success (the dependency
//!    answered); the budget is charged by retryable failures, and by a gRPC
//!    pushback that says "do not retry" whatever the code (when guidance is
//!    honored), and refilled only by successes (gRPC throttling semantics,
//!    gRFC A6 "Throttling"; other answers leave it as is);
//! 1. success ends it; cancellation gives up (`cancelled`); a conflict answers
//!    [`Decision::Restart`]; a non-retryable outcome gives up (`not_retryable`);
//! 2. an ambiguous outcome of an [`Idempotency::Unsafe`] operation answers
//!    [`Decision::Reconcile`], never a repeat;
//! 3. the last allowed attempt gives up (`attempts_exhausted`);
//! 4. server guidance (when honored): gRPC "do not retry" gives up
//!    (`server_declined_retry`); above the cap it is clamped or gives up
//!    (`retry_after_above_cap`);
//! 5. the delay is the jittered backoff (one draw; from
//!    `backoff.throttling_base_ms` instead of `base_ms` after a throttling
//!    error; none for the first retry under `backoff.immediate_first_retry`),
//!    raised to the guidance, which `server_guidance.max_above_backoff_ms`
//!    bounds to at most that far above the drawn backoff (after the cap of
//!    step 4); under `server_guidance.mode` `a6` the guidance instead
//!    *replaces* the backoff (no draw) and the backoff schedule starts over:
//!    the next retry without guidance uses the first ceiling (gRFC A6
//!    "Pushback"); under `replace` the guidance replaces the backoff and the
//!    schedule keeps counting (`max_above_backoff_ms` is refused with either:
//!    with no draw there is no backoff to bound the guidance by);
//! 6. if the guidance plus a minimum useful attempt does not fit in what
//!    remains, give up now (`retry_after_exceeds_budget`); if the delay plus a
//!    minimum useful attempt does not fit, give up now (`deadline_insufficient`),
//!    never after sleeping;
//! 7. otherwise wait (or, for a zero delay, go straight to the pre-attempt check).
//!
//! A clock reading earlier than one already seen counts as no time elapsed.

use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::backoff::draw_delay_ms;
use crate::backoff::polly::{self, PollyState};
use crate::breaker::BreakerPermit;
use crate::budget::{RetryCause, RetryCharge};
use crate::classify::{classify, Class, Outcome, TransportFailure, Verdict};
use crate::concurrency::RetrySlot;
use crate::decision::{AttemptSet, Decision, GiveUpReason, RequestId};
use crate::dependency::Dependency;
use crate::error::Error;
use crate::guidance::ServerDelay;
use crate::http::Repeatability;
use crate::policy::retry_limits::{FailureKind, KindCounts};
use crate::policy::{AttemptTimeout, GuidanceMode, Idempotency, Jitter, Policy, MAX_HEDGED_ATTEMPTS, MAX_MS};
use crate::retry_after::Pushback;
use crate::rng::{mix, Draws, SplitMix64};

mod key;
mod options;

pub use key::{IdempotencyKey, MAX_IDEMPOTENCY_KEY_LEN};
pub use options::OperationOptions;

/// A policy an [`Operation`] (or a [`Driver`](crate::Driver)) can hold:
/// `&Policy`, copied once into a new shared handle, or `&Arc<Policy>`,
/// shared as it is (no copy: every operation reads the same policy).
pub trait SharedPolicy {
    /// The shared handle.
    fn share(self) -> Arc<Policy>;
}

impl SharedPolicy for &Policy {
    fn share(self) -> Arc<Policy> {
        Arc::new(*self)
    }
}

impl SharedPolicy for &Arc<Policy> {
    fn share(self) -> Arc<Policy> {
        Arc::clone(self)
    }
}

/// Stream constants for [`mix`]: request ids and derived idempotency keys.
const REQUEST_ID_STREAM: u64 = 0x5245_5155_4553_5449; // "REQUESTI"
const KEY_STREAM: u64 = 0x4944_454d_5f4b_4559; // "IDEM_KEY"

/// The most attempts that run at once: the first plus every hedge.
pub(crate) const MAX_IN_FLIGHT: usize = 1 + MAX_HEDGED_ATTEMPTS as usize;

/// Where the operation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The next poll checks the budget and starts an attempt.
    Ready,
    /// Backing off until `until_ms`; the server's requested delay is kept for
    /// repeated answers.
    Waiting { until_ms: u64, server_delay_ms: Option<u64> },
    /// Attempts are running (see `running`).
    InFlight,
    /// An ending was returned.
    Ended,
}

/// Why an attempt is being started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    First,
    Retry,
    Hedge,
}

/// What a running attempt holds from the shared controls: grants it settles
/// exactly once (with its result, or given back when it is aborted).
#[derive(Debug)]
struct Running {
    attempt: u32,
    abort_at_ms: u64,
    breaker: Option<BreakerPermit>,
    retry_slot: Option<RetrySlot>,
    charge: Option<RetryCharge>,
}

/// A grant the operation settles is always one it took from its own
/// dependency, so settling it cannot fail; a failure would be a bug here.
fn settled(result: Result<(), Error>) {
    debug_assert!(result.is_ok(), "an operation settled a grant of another control: {result:?}");
}

/// The state machine of one logical operation.
///
/// ```
/// use retryplan::{Decision, Operation, OperationOptions, Outcome, Policy};
/// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
/// let mut op = Operation::new(&policy, 0, OperationOptions::new(7));
/// let Decision::StartAttempt { attempt, .. } = op.poll(0).unwrap() else { unreachable!() };
/// let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
/// assert!(matches!(op.on_outcome(120, attempt, &unavailable).unwrap(), Decision::Wait { until_ms: 220, .. }));
/// assert!(matches!(op.poll(220).unwrap(), Decision::StartAttempt { attempt: 2, .. }));
/// assert!(matches!(op.on_outcome(300, 2, &Outcome::Success).unwrap(), Decision::Succeeded { attempts: 2, winner: 2, .. }));
/// ```
///
/// Dropping an operation with attempts still running gives back what they
/// hold from the dependency (breaker probes, in-flight slots).
#[derive(Debug)]
pub struct Operation {
    /// Shared with every operation made from the same `Arc<Policy>` (see [`SharedPolicy`]).
    policy: Arc<Policy>,
    seed: u64,
    draws: Draws,
    idempotency_key: IdempotencyKey,
    /// The policy's idempotency, made `unsafe` for a request that is not idempotent.
    idempotency: Idempotency,
    dependency: Option<Arc<Dependency>>,
    started_at_ms: u64,
    deadline_ms: u64,
    last_now_ms: u64,
    attempts_started: u32,
    previous_delay_ms: u64,
    /// The backoff schedule's retry number for the next computed delay: the
    /// retries so far, or under `a6` guidance those since the last guidance.
    backoff_retry: u32,
    /// The class of the last failure, which prices the retry that repeats it.
    last_failure: RetryCause,
    phase: Phase,
    running: [Option<Running>; MAX_IN_FLIGHT],
    /// The attempt numbers in `running`, kept alongside it.
    running_set: AttemptSet,
    hedge_at_ms: Option<u64>,
    hedging_stopped: bool,
    /// Set when the server refused further attempts (pushback "do not retry",
    /// or guidance above the cap) while hedges still ran.
    refused_by_server: Option<GiveUpReason>,
    /// Polly's DecorrelatedJitterBackoffV2 state (jitter `polly`).
    polly_state: PollyState,
    /// Failures so far by kind, for `retry_limits`.
    kind_failures: KindCounts,
    /// The request's method is not in the policy's `retry_methods`: only a
    /// request that never left, or an application verdict, is tried again.
    method_not_retried: bool,
}

impl Operation {
    /// Starts an operation at `now_ms`. Call [`poll`](Operation::poll) for its
    /// first decision. `policy` is a `&Policy` (copied into the operation) or
    /// an `&Arc<Policy>`, shared by every operation made from it (no copy:
    /// the cheaper way to make many operations of one policy).
    #[must_use]
    pub fn new(policy: impl SharedPolicy, now_ms: u64, options: OperationOptions) -> Operation {
        let policy = policy.share();
        let idempotency_key = options.idempotency_key.unwrap_or_else(|| {
            let high = mix(options.seed, KEY_STREAM, 0);
            let low = mix(options.seed, KEY_STREAM, 1);
            IdempotencyKey::from_bits(u128::from(high) << 64 | u128::from(low))
        });
        // No time is ever past MAX_MS (2^53 - 1, what a JS number holds exactly),
        // so an unbounded budget (a gRPC call without a deadline) ends there.
        let budget_end = now_ms.saturating_add(policy.total_budget_ms).min(MAX_MS.max(now_ms));
        let deadline_ms = options.deadline_ms.map_or(budget_end, |caller| caller.min(budget_end));
        let idempotency = options.repeatability.effective(policy.idempotency);
        let previous_delay_ms = policy.backoff.base_ms;
        Operation {
            policy,
            seed: options.seed,
            draws: Draws::Seeded(SplitMix64::new(options.seed)),
            idempotency_key,
            idempotency,
            dependency: options.dependency,
            started_at_ms: now_ms,
            deadline_ms,
            last_now_ms: now_ms,
            attempts_started: 0,
            previous_delay_ms,
            backoff_retry: 0,
            last_failure: RetryCause::Transient,
            phase: Phase::Ready,
            running: [const { None }; MAX_IN_FLIGHT],
            running_set: AttemptSet::EMPTY,
            hedge_at_ms: None,
            // An operation that may not repeat its request never hedges.
            hedging_stopped: !idempotency.may_repeat_ambiguous()
                || matches!(options.repeatability, Repeatability::NotRetried { .. }),
            refused_by_server: None,
            polly_state: PollyState::default(),
            kind_failures: KindCounts::default(),
            method_not_retried: matches!(options.repeatability, Repeatability::NotRetried { .. }),
        }
    }

    /// The current decision at `now_ms`: start an attempt (or a hedge), keep
    /// waiting, or await the running attempts' outcomes.
    ///
    /// # Errors
    /// [`Error::OperationEnded`] after an ending was returned.
    pub fn poll(&mut self, now_ms: u64) -> Result<Decision, Error> {
        let now = self.observe(now_ms);
        match self.phase {
            Phase::Ended => Err(Error::OperationEnded),
            Phase::InFlight => Ok(self.poll_in_flight(now)),
            Phase::Waiting { until_ms, server_delay_ms } if now < until_ms => {
                Ok(self.wait_again(now, until_ms, server_delay_ms))
            }
            Phase::Waiting { .. } => Ok(self.start_or_give_up(now, Start::Retry)),
            Phase::Ready => Ok(self.start_or_give_up(now, Start::First)),
        }
    }

    /// Reports how attempt `attempt` ended and returns the next decision.
    ///
    /// # Errors
    /// [`Error::OperationEnded`] after an ending; [`Error::AttemptNotRunning`]
    /// when `attempt` is not running; [`Error::InvalidArgument`] for an HTTP
    /// status outside 100..=599. On error nothing changes.
    pub fn on_outcome(&mut self, now_ms: u64, attempt: u32, outcome: &Outcome) -> Result<Decision, Error> {
        if self.phase == Phase::Ended {
            return Err(Error::OperationEnded);
        }
        let Some(slot) = self.running.iter().position(|running| running.as_ref().is_some_and(|r| r.attempt == attempt))
        else {
            return Err(Error::AttemptNotRunning { attempt, running: self.running_list() });
        };
        let class = classify(&self.policy, outcome)?;
        let now = self.observe(now_ms);
        let finished = self.running.get_mut(slot).and_then(Option::take);
        self.running_set.remove(attempt);
        if let Some(finished) = finished {
            self.settle(now, finished, class, outcome);
        }
        let class = self.restricted(class, outcome);
        Ok(self.after_attempt(now, attempt, class, outcome))
    }

    /// The caller abandons the operation: gives up with reason `cancelled`,
    /// listing the running attempts to abort. A waiting operation spends
    /// nothing more.
    ///
    /// # Errors
    /// [`Error::OperationEnded`] after an ending.
    pub fn cancel(&mut self, now_ms: u64) -> Result<Decision, Error> {
        if self.phase == Phase::Ended {
            return Err(Error::OperationEnded);
        }
        let now = self.observe(now_ms);
        Ok(self.give_up(now, GiveUpReason::Cancelled, None))
    }

    /// When the caller should poll next: the end of a wait, the earliest abort
    /// or hedge time while attempts run, the last seen time when an attempt is
    /// due now, or `None` once ended.
    #[must_use]
    pub fn next_wakeup_ms(&self) -> Option<u64> {
        match self.phase {
            Phase::Ready => Some(self.last_now_ms),
            Phase::Waiting { until_ms, .. } => Some(until_ms),
            Phase::InFlight => Some(self.in_flight_until()),
            Phase::Ended => None,
        }
    }

    /// Budget left at `now_ms` after the response reserve (saturating at 0).
    #[must_use]
    pub fn remaining_budget_ms(&self, now_ms: u64) -> u64 {
        crate::deadline::remaining_budget_ms(
            self.deadline_ms,
            now_ms.max(self.last_now_ms),
            self.policy.response_reserve_ms,
        )
    }

    /// The operation's deadline: `min(start + total_budget_ms, caller deadline)`.
    #[must_use]
    pub fn deadline_ms(&self) -> u64 {
        self.deadline_ms
    }

    /// When the operation started.
    #[must_use]
    pub fn started_at_ms(&self) -> u64 {
        self.started_at_ms
    }

    /// The stable idempotency key of every attempt (the operation id).
    #[must_use]
    pub fn idempotency_key(&self) -> &IdempotencyKey {
        &self.idempotency_key
    }

    /// Attempts started so far (hedges included).
    #[must_use]
    pub fn attempts_started(&self) -> u32 {
        self.attempts_started
    }

    /// Attempts running now.
    #[must_use]
    pub fn running_attempts(&self) -> AttemptSet {
        self.running_set
    }

    /// True once an ending was returned.
    #[must_use]
    pub fn is_ended(&self) -> bool {
        self.phase == Phase::Ended
    }

    /// The idempotency this operation runs with: the policy's, or `unsafe`
    /// when its request is not idempotent ([`Repeatability::effective`](crate::Repeatability::effective)).
    #[must_use]
    pub fn idempotency(&self) -> Idempotency {
        self.idempotency
    }

    /// True when every attempt's request carries the idempotency key header
    /// (keyed or unsafe operations; see [`crate::http`]).
    #[must_use]
    pub fn sends_idempotency_key(&self) -> bool {
        self.idempotency.sends_idempotency_key()
    }

    /// The policy this operation runs.
    #[must_use]
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The request id attempt `attempt` gets (1-based).
    #[must_use]
    pub fn request_id(&self, attempt: u32) -> RequestId {
        RequestId(mix(self.seed, REQUEST_ID_STREAM, u64::from(attempt)))
    }

    /// The same operation with every jitter draw at the top of its range
    /// (the worst case), for [`explain`](crate::explain).
    pub(crate) fn with_highest_draws(mut self) -> Operation {
        self.draws = Draws::Highest;
        self
    }

    /// Records a clock reading; one earlier than the last counts as no time elapsed.
    fn observe(&mut self, now_ms: u64) -> u64 {
        self.last_now_ms = self.last_now_ms.max(now_ms);
        self.last_now_ms
    }

    /// The running attempts, ascending (for errors).
    pub(crate) fn running_list(&self) -> Vec<u32> {
        self.running_attempts().iter().collect()
    }

    /// The running attempt that reached its abort time first (at or before
    /// `now_ms`; the lower number on a tie), if any.
    pub(crate) fn earliest_overdue(&self, now_ms: u64) -> Option<u32> {
        self.running
            .iter()
            .flatten()
            .filter(|running| running.abort_at_ms <= now_ms)
            .min_by_key(|running| (running.abort_at_ms, running.attempt))
            .map(|running| running.attempt)
    }

    fn in_flight_until(&self) -> u64 {
        let earliest_abort = self.running.iter().flatten().map(|running| running.abort_at_ms).min();
        match (earliest_abort, self.hedge_at_ms) {
            (Some(abort), Some(hedge)) => abort.min(hedge),
            (Some(abort), None) => abort,
            (None, hedge) => hedge.unwrap_or(self.last_now_ms),
        }
    }

    fn await_outcome(&self) -> Decision {
        Decision::AwaitOutcome { in_flight: self.running_attempts().len(), until_ms: self.in_flight_until() }
    }

    fn poll_in_flight(&mut self, now: u64) -> Decision {
        match self.hedge_at_ms {
            Some(hedge_at) if now >= hedge_at => match self.try_start(now, Start::Hedge) {
                Ok(started) => started,
                Err(_) => {
                    // A refused hedge stops hedging; the running attempts go on.
                    self.stop_hedging();
                    self.await_outcome()
                }
            },
            _ => self.await_outcome(),
        }
    }

    fn wait_again(&self, now: u64, until_ms: u64, server_delay_ms: Option<u64>) -> Decision {
        Decision::Wait {
            retry: self.attempts_started.saturating_sub(1),
            delay_ms: until_ms - now,
            until_ms,
            server_delay_ms,
            remaining_budget_ms: self.remaining_budget_ms(now),
        }
    }

    fn start_or_give_up(&mut self, now: u64, start: Start) -> Decision {
        match self.try_start(now, start) {
            Ok(started) => started,
            Err(reason) => self.give_up(now, reason, None),
        }
    }

    /// Runs the pre-attempt checks and, when they pass, starts an attempt.
    fn try_start(&mut self, now: u64, start: Start) -> Result<Decision, GiveUpReason> {
        let remaining = self.remaining_budget_ms(now);
        let minimum = self.policy.minimum_useful_attempt_ms.max(1);
        if remaining < minimum {
            return Err(GiveUpReason::DeadlineInsufficient);
        }
        if self.attempts_started >= self.policy.max_attempts {
            return Err(GiveUpReason::AttemptsExhausted);
        }
        let Some(slot) = self.running.iter().position(Option::is_none) else {
            return Err(GiveUpReason::ConcurrencyLimited);
        };
        let held = self.acquire(now, start)?;
        let per_attempt = match self.policy.attempt_timeout {
            AttemptTimeout::Fixed { ms } => ms,
            AttemptTimeout::FractionOfRemaining { permille } => {
                // `remaining` is at most 2^53 - 1 ms and `permille` at most 1000: the product fits in u64.
                let share = remaining.saturating_mul(u64::from(permille)) / 1000;
                share.max(minimum)
            }
        };
        let timeout_ms = per_attempt.min(remaining);
        self.attempts_started += 1;
        let attempt = self.attempts_started;
        let abort_at_ms = now.saturating_add(timeout_ms);
        if let Some(free) = self.running.get_mut(slot) {
            *free = Some(Running { attempt, abort_at_ms, ..held });
        }
        self.running_set.insert(attempt);
        self.phase = Phase::InFlight;
        self.schedule_hedge(now, None);
        Ok(Decision::StartAttempt {
            attempt,
            timeout_ms,
            abort_at_ms,
            request_id: self.request_id(attempt),
            remaining_budget_ms: remaining,
            hedge: start == Start::Hedge,
        })
    }

    /// Takes what an attempt needs from the dependency: a breaker permit, and
    /// for a retry or hedge an in-flight slot and then a budget token. On
    /// refusal everything taken is given back.
    fn acquire(&self, now: u64, start: Start) -> Result<Running, GiveUpReason> {
        let mut held = Running { attempt: 0, abort_at_ms: 0, breaker: None, retry_slot: None, charge: None };
        let Some(dependency) = self.dependency.as_deref() else {
            return Ok(held);
        };
        if let Some(breaker) = dependency.breaker() {
            held.breaker = Some(breaker.try_acquire(now).ok_or(GiveUpReason::CircuitOpen)?);
        }
        if start == Start::First {
            if let Some(budget) = dependency.budget() {
                budget.on_request(now);
            }
            return Ok(held);
        }
        if let Some(slots) = dependency.retry_slots() {
            match slots.try_acquire() {
                Some(slot) => held.retry_slot = Some(slot),
                None => {
                    self.release(held);
                    return Err(GiveUpReason::ConcurrencyLimited);
                }
            }
        }
        if let Some(budget) = dependency.budget() {
            match budget.try_retry_for(now, self.last_failure) {
                Some(charge) => held.charge = Some(charge),
                None => {
                    self.release(held);
                    return Err(GiveUpReason::BudgetExhausted);
                }
            }
        }
        Ok(held)
    }

    /// Gives back what an attempt holds without a result (a charge stays spent).
    fn release(&self, held: Running) {
        let Some(dependency) = self.dependency.as_deref() else { return };
        if let (Some(breaker), Some(permit)) = (dependency.breaker(), held.breaker) {
            settled(breaker.release(permit));
        }
        if let (Some(slots), Some(slot)) = (dependency.retry_slots(), held.retry_slot) {
            settled(slots.release(slot));
        }
        if let (Some(budget), Some(charge)) = (dependency.budget(), held.charge) {
            settled(budget.spend(charge));
        }
    }

    /// Feeds a finished attempt's result to the dependency's controls.
    fn settle(&self, now: u64, finished: Running, class: Class, outcome: &Outcome) {
        let Some(dependency) = self.dependency.as_deref() else { return };
        let Running { breaker: permit, retry_slot, charge, .. } = finished;
        if let (Some(slots), Some(slot)) = (dependency.retry_slots(), retry_slot) {
            settled(slots.release(slot));
        }
        let breaker = dependency.breaker().zip(permit);
        let budget = dependency.budget();
        match class {
            Class::Cancelled => {
                if let Some((breaker, permit)) = breaker {
                    settled(breaker.release(permit));
                }
                if let (Some(budget), Some(charge)) = (budget, charge) {
                    settled(budget.spend(charge));
                }
            }
            Class::Retryable { .. } => {
                if let Some((breaker, permit)) = breaker {
                    settled(breaker.on_failure(now, permit));
                }
                if let Some(budget) = budget {
                    settled(budget.on_failure(now, charge));
                }
            }
            Class::Success | Class::NotRetryable | Class::Conflict => {
                if let Some((breaker, permit)) = breaker {
                    settled(breaker.on_success(now, permit));
                }
                let declined = matches!(outcome, Outcome::GrpcStatus { pushback: Some(Pushback::DoNotRetry), .. });
                if let (true, true, Some(budget)) = (declined, self.policy.server_guidance.honor, budget) {
                    // gRFC A6 "Throttling": a "do not retry" pushback counts as a failure, whatever the code.
                    settled(budget.on_failure(now, None));
                }
                match (budget, class) {
                    (Some(budget), Class::Success) => settled(budget.on_success(now, charge)),
                    (Some(budget), _) => {
                        if let Some(charge) = charge {
                            settled(budget.spend(charge));
                        }
                    }
                    (None, _) => {}
                }
            }
        }
    }

    /// What a retryable class means for this request: with a method the
    /// policy does not retry, only a request that never left (or an
    /// application verdict) is tried again; an ambiguous failure of an unsafe
    /// request still answers reconcile.
    fn restricted(&self, class: Class, outcome: &Outcome) -> Class {
        match class {
            Class::Retryable { ambiguous, .. } if self.method_not_retried && !retried_for_unlisted_method(outcome) => {
                if ambiguous && self.idempotency == Idempotency::Unsafe {
                    class
                } else {
                    Class::NotRetryable
                }
            }
            other => other,
        }
    }

    /// Counts a retryable failure by kind; true when its kind's retry limit is used up.
    fn kind_limit_reached(&mut self, outcome: &Outcome) -> bool {
        failure_kind(outcome).is_some_and(|kind| {
            let failures = self.kind_failures.count(kind);
            self.policy.retry_limits.exhausted(kind, failures)
        })
    }

    fn after_attempt(&mut self, now: u64, attempt: u32, class: Class, outcome: &Outcome) -> Decision {
        let attempts = self.attempts_started;
        let (ambiguous, throttling) = match class {
            Class::Success => {
                let abort_attempts = self.abort_running();
                return self.end(Decision::Succeeded { attempts, winner: attempt, abort_attempts });
            }
            Class::Cancelled => return self.give_up(now, GiveUpReason::Cancelled, None),
            Class::NotRetryable => return self.give_up(now, GiveUpReason::NotRetryable, None),
            Class::Conflict => {
                let remaining_budget_ms = self.remaining_budget_ms(now);
                let abort_attempts = self.abort_running();
                return self.end(Decision::Restart {
                    attempts,
                    deadline_ms: self.deadline_ms,
                    remaining_budget_ms,
                    abort_attempts,
                });
            }
            Class::Retryable { ambiguous, throttling } => (ambiguous, throttling),
        };
        if ambiguous && self.idempotency == Idempotency::Unsafe {
            let remaining_budget_ms = self.remaining_budget_ms(now);
            let abort_attempts = self.abort_running();
            return self.end(Decision::Reconcile { attempts, remaining_budget_ms, abort_attempts });
        }
        self.last_failure = if throttling {
            RetryCause::Throttling
        } else if matches!(outcome, Outcome::Transport { failure: TransportFailure::TimedOut }) {
            RetryCause::Timeout
        } else {
            RetryCause::Transient
        };
        let kind_limit_reached = self.kind_limit_reached(outcome);
        if kind_limit_reached && !self.running_attempts().is_empty() {
            self.refuse_further_attempts(GiveUpReason::AttemptsExhausted);
            return self.poll_in_flight(now);
        }
        if !self.running_attempts().is_empty() {
            // Another attempt is still running: this failure is not fatal. The
            // next hedge may start at once, or after the server's requested wait;
            // if the server refused further attempts, none starts again.
            match self.policy.server_guidance.apply(outcome) {
                ServerDelay::None => self.schedule_hedge(now, Some(0)),
                ServerDelay::AtLeastMs(ms) => self.schedule_hedge(now, Some(ms)),
                ServerDelay::DoNotRetry => self.refuse_further_attempts(GiveUpReason::ServerDeclinedRetry),
                ServerDelay::AboveCap { .. } => self.refuse_further_attempts(GiveUpReason::RetryAfterAboveCap),
            }
            return self.poll_in_flight(now);
        }
        self.hedge_at_ms = None;
        if let Some(reason) = self.refused_by_server {
            return self.give_up(now, reason, None);
        }
        if attempts >= self.policy.max_attempts || kind_limit_reached {
            return self.give_up(now, GiveUpReason::AttemptsExhausted, None);
        }

        let server_delay_ms = match self.policy.server_guidance.apply(outcome) {
            ServerDelay::None => None,
            ServerDelay::AtLeastMs(ms) => Some(ms),
            ServerDelay::DoNotRetry => return self.give_up(now, GiveUpReason::ServerDeclinedRetry, None),
            ServerDelay::AboveCap { requested_ms } => {
                return self.give_up(now, GiveUpReason::RetryAfterAboveCap, Some(requested_ms))
            }
        };

        let retry = attempts - 1;
        let guidance = self.policy.server_guidance;
        let mut server_delay_ms = server_delay_ms;
        let delay_ms = match (guidance.mode, server_delay_ms) {
            (GuidanceMode::A6, Some(server_ms)) => {
                self.backoff_retry = 0;
                server_ms
            }
            (GuidanceMode::Replace, Some(server_ms)) => {
                self.backoff_retry = self.backoff_retry.saturating_add(1);
                server_ms
            }
            (mode, _) => {
                let backoff_retry = if mode == GuidanceMode::A6 { self.backoff_retry } else { retry };
                let backoff_ms = self.backoff_ms(backoff_retry, throttling);
                self.previous_delay_ms = backoff_ms;
                self.backoff_retry = self.backoff_retry.saturating_add(1);
                server_delay_ms = server_delay_ms.map(|server_ms| guidance.bound_above_backoff(server_ms, backoff_ms));
                backoff_ms.max(server_delay_ms.unwrap_or(0))
            }
        };

        let remaining = self.remaining_budget_ms(now);
        let minimum = self.policy.minimum_useful_attempt_ms.max(1);
        if let Some(server_ms) = server_delay_ms {
            if server_ms.saturating_add(minimum) > remaining {
                return self.give_up(now, GiveUpReason::RetryAfterExceedsBudget, Some(server_ms));
            }
        }
        if delay_ms.saturating_add(minimum) > remaining {
            return self.give_up(now, GiveUpReason::DeadlineInsufficient, Some(delay_ms));
        }
        if delay_ms == 0 {
            return self.start_or_give_up(now, Start::Retry);
        }
        let until_ms = now.saturating_add(delay_ms);
        self.phase = Phase::Waiting { until_ms, server_delay_ms };
        Decision::Wait { retry, delay_ms, until_ms, server_delay_ms, remaining_budget_ms: remaining }
    }

    /// The backoff before retry `retry` (0 for the first), from
    /// `backoff.throttling_base_ms` instead of `base_ms` after a throttling
    /// error: nothing for an immediate first retry, Polly's arithmetic for
    /// jitter `polly`, else one draw in the jitter range.
    fn backoff_ms(&mut self, retry: u32, after_throttling: bool) -> u64 {
        let backoff = self.policy.backoff;
        match self.policy.jitter {
            _ if backoff.immediate_first_retry && retry == 0 => 0,
            Jitter::Polly { use_jitter } => {
                let draws = &mut self.draws;
                polly::delay_ms(
                    backoff.kind,
                    use_jitter,
                    retry,
                    backoff.base_for_ms(after_throttling),
                    backoff.cap_ms,
                    &mut self.polly_state,
                    || draws.unit_interval(),
                )
            }
            _ => draw_delay_ms(&self.policy, retry, self.previous_delay_ms, after_throttling, &mut self.draws),
        }
    }

    /// Plans the next hedge, if the policy hedges, hedging was not stopped,
    /// and there is room: `delay_ms` after `now` (`hedging.delay_ms` when `None`).
    fn schedule_hedge(&mut self, now: u64, delay_ms: Option<u64>) {
        self.hedge_at_ms = self.policy.hedging.filter(|_| !self.hedging_stopped).and_then(|hedging| {
            let room = self.running_attempts().len() < 1 + hedging.max_hedged_attempts;
            let delay_ms = delay_ms.unwrap_or(hedging.delay_ms);
            (room && self.attempts_started < self.policy.max_attempts).then(|| now.saturating_add(delay_ms))
        });
    }

    /// The server refused further attempts while others still run: no hedge
    /// starts, and when the last running attempt fails the operation gives up.
    fn refuse_further_attempts(&mut self, reason: GiveUpReason) {
        self.refused_by_server = Some(reason);
        self.stop_hedging();
    }

    /// Runs the operation without hedges (a host that runs one attempt at a
    /// time, by the caller's explicit choice).
    pub(crate) fn disable_hedging(&mut self) {
        self.stop_hedging();
    }

    fn stop_hedging(&mut self) {
        self.hedging_stopped = true;
        self.hedge_at_ms = None;
    }

    /// Gives back what the running attempts hold and lists them for the caller to abort.
    fn abort_running(&mut self) -> AttemptSet {
        let aborted = core::mem::take(&mut self.running_set);
        for index in 0..MAX_IN_FLIGHT {
            if let Some(running) = self.running.get_mut(index).and_then(Option::take) {
                self.release(running);
            }
        }
        aborted
    }

    fn give_up(&mut self, now: u64, reason: GiveUpReason, refused_delay_ms: Option<u64>) -> Decision {
        let remaining_budget_ms = self.remaining_budget_ms(now);
        let abort_attempts = self.abort_running();
        let decision = Decision::GaveUp {
            reason,
            attempts: self.attempts_started,
            remaining_budget_ms,
            refused_delay_ms,
            abort_attempts,
        };
        self.end(decision)
    }

    fn end(&mut self, decision: Decision) -> Decision {
        self.phase = Phase::Ended;
        self.hedge_at_ms = None;
        decision
    }
}

/// The kind of a failed outcome for `retry_limits` (`None` for success and
/// cancellation): a request that never left is `connect`, a failure after
/// sending `read`, a status or code `status`, an application verdict `other`.
fn failure_kind(outcome: &Outcome) -> Option<FailureKind> {
    match *outcome {
        Outcome::Transport { failure: TransportFailure::NotSent } => Some(FailureKind::Connect),
        Outcome::Transport { .. } => Some(FailureKind::Read),
        Outcome::HttpStatus { .. } | Outcome::GrpcStatus { .. } => Some(FailureKind::Status),
        Outcome::Application { .. } => Some(FailureKind::Other),
        Outcome::Success | Outcome::Cancelled => None,
    }
}

/// True when an outcome may be retried for a request whose method the
/// policy's `retry_methods` does not list: only a request that never left, or
/// an application verdict `retryable`.
fn retried_for_unlisted_method(outcome: &Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Transport { failure: TransportFailure::NotSent }
            | Outcome::Application { verdict: Verdict::Retryable }
    )
}

impl Drop for Operation {
    fn drop(&mut self) {
        let _ = self.abort_running();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::classify::TransportFailure;
    use crate::dependency::Dependency;
    use crate::policy::{AttemptTimeoutConfig, BackoffConfig, JitterConfig, PolicyConfig};

    fn checkout() -> Policy {
        Policy::new(&PolicyConfig {
            max_attempts: 3,
            total_budget_ms: 800,
            attempt_timeout: AttemptTimeoutConfig::FixedMs(200),
            response_reserve_ms: 50,
            minimum_useful_attempt_ms: 200,
            backoff: BackoffConfig { base_ms: 50, cap_ms: 400, ..BackoffConfig::default() },
            jitter: JitterConfig::None,
            ..PolicyConfig::default()
        })
        .expect("valid")
    }

    const UNAVAILABLE: Outcome = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };

    #[test]
    fn the_800_ms_checkout_gives_up_before_a_third_attempt_that_needs_850_ms() {
        let mut op = Operation::new(&checkout(), 0, OperationOptions::new(1));
        assert!(matches!(
            op.poll(50),
            Ok(Decision::StartAttempt { attempt: 1, timeout_ms: 200, abort_at_ms: 250, .. })
        ));
        assert!(matches!(op.on_outcome(250, 1, &UNAVAILABLE), Ok(Decision::Wait { delay_ms: 50, until_ms: 300, .. })));
        assert!(matches!(
            op.poll(300),
            Ok(Decision::StartAttempt { attempt: 2, timeout_ms: 200, abort_at_ms: 500, .. })
        ));
        assert_eq!(
            op.on_outcome(500, 2, &UNAVAILABLE),
            Ok(Decision::GaveUp {
                reason: GiveUpReason::DeadlineInsufficient,
                attempts: 2,
                remaining_budget_ms: 250,
                refused_delay_ms: Some(100),
                abort_attempts: AttemptSet::EMPTY
            })
        );
        assert_eq!(op.poll(600), Err(Error::OperationEnded));
    }

    #[test]
    fn misuse_is_an_error_and_changes_nothing() {
        let mut op = Operation::new(&checkout(), 0, OperationOptions::new(1));
        assert_eq!(op.on_outcome(0, 1, &UNAVAILABLE).unwrap_err().code(), "attempt_not_running");
        let _ = op.poll(0);
        assert_eq!(op.on_outcome(0, 2, &UNAVAILABLE).unwrap_err().code(), "attempt_not_running");
        let bad = Outcome::HttpStatus { status: 42, retry_after_ms: None, error_code: None };
        assert_eq!(op.on_outcome(0, 1, &bad).unwrap_err().code(), "invalid_argument");
        assert!(matches!(op.poll(10), Ok(Decision::AwaitOutcome { in_flight: 1, until_ms: 200 })));
    }

    #[test]
    fn unsafe_ambiguous_write_reconciles_but_not_sent_retries() {
        let config =
            PolicyConfig { idempotency: Idempotency::Unsafe, jitter: JitterConfig::None, ..PolicyConfig::default() };
        let policy = Policy::new(&config).expect("valid");
        let mut op = Operation::new(&policy, 0, OperationOptions::new(1));
        let _ = op.poll(0);
        let not_sent = Outcome::Transport { failure: TransportFailure::NotSent };
        assert!(matches!(op.on_outcome(10, 1, &not_sent), Ok(Decision::Wait { .. })));
        let _ = op.poll(110);
        let lost = Outcome::Transport { failure: TransportFailure::ConnectionLost };
        assert!(matches!(op.on_outcome(200, 2, &lost), Ok(Decision::Reconcile { attempts: 2, .. })));
    }

    #[test]
    fn every_grant_is_settled_when_an_attempt_ends_or_the_operation_is_dropped() {
        let dependency = Dependency::from_json(
            r#"{"budget": {"kind": "quota", "capacity": 100, "retry_cost": 5, "timeout_retry_cost": 10, "success_increment": 1},
                "breaker": {"trip": {"kind": "consecutive", "failures": 100}, "open_ms": 1000, "half_open_probes": 1},
                "max_concurrent_retries": 5}"#,
        )
        .unwrap();
        let outstanding = |dependency: &Dependency| {
            (
                dependency.breaker().unwrap().permits_outstanding(),
                dependency.budget().unwrap().charges_outstanding(),
                dependency.retry_slots().unwrap().in_flight(),
            )
        };
        for ending in [None, Some(Outcome::Cancelled), Some(UNAVAILABLE), Some(Outcome::Success)] {
            let options = OperationOptions::new(3).with_dependency(Arc::clone(&dependency));
            let mut op = Operation::new(&checkout(), 0, options);
            let _ = op.poll(0);
            assert!(matches!(op.on_outcome(10, 1, &UNAVAILABLE), Ok(Decision::Wait { until_ms: 60, .. })));
            assert!(matches!(op.poll(60), Ok(Decision::StartAttempt { attempt: 2, .. })));
            assert_eq!(outstanding(&dependency), (1, 1, 1), "the retry holds a permit, a charge and a slot");
            match ending {
                None => drop(op),
                Some(outcome) => drop(op.on_outcome(70, 2, &outcome).unwrap()),
            }
            assert_eq!(outstanding(&dependency), (0, 0, 0), "after {ending:?}");
        }
    }

    #[test]
    fn request_ids_differ_per_attempt_and_keys_are_stable() {
        let op = Operation::new(&checkout(), 0, OperationOptions::new(9));
        assert_ne!(op.request_id(1), op.request_id(2));
        let again = Operation::new(&checkout(), 0, OperationOptions::new(9));
        assert_eq!(op.idempotency_key(), again.idempotency_key());
        assert_eq!(op.idempotency_key().as_str().len(), 36);
        assert_eq!(&op.idempotency_key().as_str()[14..15], "4");
    }
}
