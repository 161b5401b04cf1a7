//! The per-operation state machine: events in, one [`Decision`] out per call.
//!
//! One logical operation is one business effect with one stable idempotency
//! key and up to `max_attempts` attempts, each with a fresh request id. The
//! rules, in the order they are applied:
//!
//! **Before every attempt** ([`Operation::poll`] when ready): the remaining
//! budget is `deadline - now - response_reserve` (saturating). If it is below
//! `max(1, minimum_useful_attempt_ms)`, give up with `deadline_insufficient`.
//! With a shared [`Dependency`](crate::Dependency): an open circuit breaker gives up
//! (`circuit_open`); a retry or hedge also needs a free retry slot
//! (`no_retry_slot`) and then a retry-budget token (`budget_exhausted`),
//! taken only now, after the wait, so a cancelled waiter spends nothing (a
//! quota prices it by the failure being retried: timeout, throttling or
//! other, [`RetryCause`]); step 7 below has already asked the budget once,
//! so this refuses only a retry whose budget other calls drained during
//! the wait. The
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
//!    remains, give up now (`retry_after_exceeds_deadline`); if the delay plus a
//!    minimum useful attempt does not fit, give up now (`deadline_insufficient`),
//!    never after sleeping;
//! 7. with a shared budget that would refuse the retry now (asked, nothing
//!    taken), give up now (`budget_exhausted`), never after sleeping: gRFC A6's
//!    throttle and the AWS SDKs' quota decide when the failure arrives;
//! 8. otherwise wait (or, for a zero delay, go straight to the pre-attempt
//!    check, which asks the budget itself).
//!
//! A clock reading earlier than one already seen counts as no time elapsed.
//!
//! Where each rule lives, in this order: `before_attempt.rs` (**Before every
//! attempt**), `grants.rs` (what a shared [`Dependency`](crate::Dependency) grants an attempt,
//! and step 0), `hedging.rs` (**Hedging**), `after_attempt.rs` (steps 1 to 8
//! of **After an attempt**) and `ending.rs` (every ending gives back what the
//! running attempts hold). This file holds the state and the public calls
//! that apply them.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::config::error::Error;
use crate::controls::budget::RetryCause;
use crate::engine::backoff::polly::PollyState;
use crate::ground::rng::{mix, Draws, SplitMix64};
use crate::outcomes::classify::{classify, Class, Outcome, TransportFailure};
use crate::outcomes::decision::{AttemptSet, Decision, GiveUpReason, RequestId};
use crate::outcomes::http::Repeatability;
use crate::policy::retry_limits::KindCounts;
use crate::policy::{Idempotency, Policy, MAX_HEDGED_ATTEMPTS, MAX_MS};

// The rules of the module doc, one file each, in the order they apply (a
// blank line between them keeps rustfmt from sorting them).
mod before_attempt;

mod grants;

mod hedging;

mod after_attempt;

mod ending;
#[cfg(feature = "entropy")]
mod entropy;
mod options;
#[cfg(test)]
mod tests;

#[doc(no_inline)]
pub use crate::config::idempotency_key::{IdempotencyKey, MAX_IDEMPOTENCY_KEY_LEN};
#[cfg(feature = "entropy")]
pub use entropy::{EntropyPool, OPERATIONS_PER_REFILL};
use grants::Controls;
pub use options::OperationOptions;

/// A policy an [`Operation`] (or a [`Driver`](crate::Driver)) can hold:
/// `&Policy`, copied once into a new shared handle, or an `Arc<Policy>`
/// (by reference or moved in), shared as it is (no copy: every operation
/// reads the same policy).
///
/// ```
/// use std::sync::Arc;
/// use retryplan::{Operation, OperationOptions, Policy};
/// let policy = Arc::new(Policy::from_json(r#"{"max_attempts": 2}"#).unwrap());
/// let borrowed = Operation::new(&policy, 0, OperationOptions::new(1));
/// let moved = std::thread::spawn(move || Operation::new(policy, 0, OperationOptions::new(2)).deadline_ms());
/// assert_eq!(moved.join().unwrap(), borrowed.deadline_ms());
/// ```
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

impl SharedPolicy for Arc<Policy> {
    fn share(self) -> Arc<Policy> {
        self
    }
}

/// Stream constant for [`mix`]: request ids (derived keys have their own, in `key.rs`).
const REQUEST_ID_STREAM: u64 = 0x5245_5155_4553_5449; // "REQUESTI"

/// The most attempts that run at once: the first plus every hedge.
pub(crate) const MAX_RUNNING: usize = 1 + MAX_HEDGED_ATTEMPTS as usize;

/// Where the operation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The next poll checks the time left and starts an attempt.
    Ready,
    /// Backing off until `until_ms`; the server's requested delay is kept for
    /// repeated answers.
    Waiting { until_ms: u64, retry_after_ms: Option<u64> },
    /// Attempts are running (see `running`).
    Running,
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

/// A running attempt, or a free slot (attempt 0: attempts count from 1).
/// What it holds from a shared dependency is kept apart, in [`Controls`], so
/// an operation without one carries nothing to give back or drop.
#[derive(Clone, Copy, Debug)]
struct Running {
    attempt: u32,
    abort_at_ms: u64,
    /// The caller's deadline left this attempt less than half the time the
    /// policy alone gives it. Its timeout at its abort time then says nothing
    /// of the dependency, which the shared controls are not told ([`grants`]
    /// releases it as a cancelled attempt).
    cut_by_caller: bool,
}

impl Running {
    const FREE: Running = Running { attempt: 0, abort_at_ms: 0, cut_by_caller: false };

    fn is_free(self) -> bool {
        self.attempt == 0
    }
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
/// hold from the dependency (breaker probes, retry slots).
#[derive(Debug)]
pub struct Operation {
    /// Shared with every operation made from the same `Arc<Policy>` (see [`SharedPolicy`]).
    policy: Arc<Policy>,
    seed: u64,
    draws: Draws,
    idempotency_key: IdempotencyKey,
    /// The policy's idempotency, made `unsafe` for a request that is not idempotent.
    idempotency: Idempotency,
    /// The shared dependency and what the running attempts hold from it.
    /// Boxed: inline it is ~250 bytes an operation without a dependency (every
    /// binding's happy path) would carry, zero and move for nothing.
    controls: Option<Box<Controls>>,
    started_at_ms: u64,
    deadline_ms: u64,
    /// The deadline the policy alone sets (`total_timeout_ms` after the
    /// start): later than `deadline_ms` when a caller's deadline is earlier.
    policy_deadline_ms: u64,
    last_now_ms: u64,
    attempts_started: u32,
    previous_delay_ms: u64,
    /// The backoff schedule's retry number for the next computed delay: the
    /// retries so far, or under `a6` guidance those since the last guidance.
    backoff_retry: u32,
    /// The class of the last failure, which prices the retry that repeats it.
    last_failure: RetryCause,
    phase: Phase,
    running: [Running; MAX_RUNNING],
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
    /// The request's body can be sent only once: no hedge, no retry.
    one_shot_body: bool,
    /// The caller retries: one attempt here, no hedge.
    retries_delegated: bool,
    /// A layer above retries this request.
    caller_retries: bool,
    /// The key came from the caller and travels on every attempt.
    key_from_caller: bool,
}

impl Operation {
    /// Starts an operation at `now_ms`. Call [`poll`](Operation::poll) for its
    /// first decision. `policy` is a `&Policy` (copied into the operation) or
    /// an `&Arc<Policy>`, shared by every operation made from it (no copy:
    /// the cheaper way to make many operations of one policy).
    ///
    /// Every time is at most [`MAX_MS`] (2^53 - 1). A constructor cannot
    /// fail, so a `now_ms` past it is refused by the first call that takes a
    /// clock reading ([`poll`](Operation::poll), [`on_outcome`](Operation::on_outcome),
    /// [`cancel`](Operation::cancel), [`outgoing_headers`](Operation::outgoing_headers)):
    /// [`Error::InvalidArgument`] naming `now_ms`, as each of those refuses
    /// its own reading past it.
    ///
    /// ```
    /// use retryplan::{Error, Operation, OperationOptions, Policy};
    /// let policy = Policy::default();
    /// let mut operation = Operation::new(&policy, 1 << 53, OperationOptions::new(7));
    /// assert!(matches!(operation.poll(0), Err(Error::InvalidArgument { field: "now_ms", .. })));
    /// ```
    #[must_use]
    pub fn new(policy: impl SharedPolicy, now_ms: u64, options: OperationOptions) -> Operation {
        Operation::started(policy.share(), now_ms, options, true)
    }

    /// [`new`](Operation::new) of a policy already shared; `hedges`: false
    /// for a host that runs one attempt at a time by the caller's explicit
    /// choice (no hedge ever starts). Inlined: a driver builds its operation
    /// in place, where a made operation would be copied into it (a third
    /// of a kilobyte, on every binding's happy path).
    #[inline]
    pub(crate) fn started(policy: Arc<Policy>, now_ms: u64, options: OperationOptions, hedges: bool) -> Operation {
        let idempotency_key = options.idempotency_key.unwrap_or_else(|| IdempotencyKey::derived(options.seed));
        // No time is ever past MAX_MS (2^53 - 1, what a JS number holds exactly),
        // so an unbounded budget (a gRPC call without a deadline) ends there.
        let timeout_end = now_ms.saturating_add(policy.total_timeout_ms).min(MAX_MS.max(now_ms));
        let deadline_ms = options.deadline_ms.map_or(timeout_end, |caller| caller.min(timeout_end));
        let idempotency = options.repeatability.effective(policy.idempotency);
        let previous_delay_ms = policy.backoff.base_ms;
        Operation {
            policy,
            seed: options.seed,
            draws: Draws::Seeded(SplitMix64::new(options.seed)),
            idempotency_key,
            idempotency,
            controls: options.dependency.map(|dependency| Box::new(Controls::new(dependency))),
            started_at_ms: now_ms,
            deadline_ms,
            policy_deadline_ms: timeout_end,
            last_now_ms: now_ms,
            attempts_started: 0,
            previous_delay_ms,
            backoff_retry: 0,
            last_failure: RetryCause::Transient,
            phase: Phase::Ready,
            running: [Running::FREE; MAX_RUNNING],
            running_set: AttemptSet::EMPTY,
            hedge_at_ms: None,
            // An operation that may not repeat its request never hedges.
            hedging_stopped: !hedges
                || !idempotency.may_repeat_ambiguous()
                || matches!(options.repeatability, Repeatability::NotRetried { .. })
                || options.one_shot_body
                || options.retries_delegated,
            refused_by_server: None,
            polly_state: PollyState::default(),
            kind_failures: KindCounts::default(),
            method_not_retried: matches!(options.repeatability, Repeatability::NotRetried { .. }),
            one_shot_body: options.one_shot_body,
            retries_delegated: options.retries_delegated,
            caller_retries: options.caller_retries,
            key_from_caller: options.key_from_caller,
        }
    }

    /// The current decision at `now_ms`: start an attempt (or a hedge), keep
    /// waiting, or await the running attempts' outcomes.
    ///
    /// # Errors
    /// [`Error::OperationEnded`] after an ending was returned;
    /// [`Error::InvalidArgument`] naming `now_ms` for a reading past
    /// [`MAX_MS`] (or one [`new`](Operation::new) took).
    pub fn poll(&mut self, now_ms: u64) -> Result<Decision, Error> {
        self.check_clock(now_ms)?;
        let now = self.observe(now_ms);
        match self.phase {
            Phase::Ended => Err(Error::OperationEnded),
            Phase::Running => Ok(self.poll_running(now)),
            Phase::Waiting { until_ms, retry_after_ms } if now < until_ms => {
                Ok(self.wait_again(now, until_ms, retry_after_ms))
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
    /// status outside 100..=599, a `retry_after_ms` or `pushback` past
    /// [`MAX_MS`] ([`classify`]), or a `now_ms` past it (as [`poll`](Operation::poll)).
    /// On error nothing changes.
    pub fn on_outcome(&mut self, now_ms: u64, attempt: u32, outcome: &Outcome) -> Result<Decision, Error> {
        self.check_clock(now_ms)?;
        if self.phase == Phase::Ended {
            return Err(Error::OperationEnded);
        }
        let slot = self.running_slot(attempt)?;
        let class = classify(&self.policy, outcome)?;
        Ok(self.settle(now_ms, slot, attempt, class, outcome))
    }

    /// [`on_outcome`](Self::on_outcome) for a caller that classified
    /// `outcome` already, as `class`, under this operation's policy (the
    /// driver, which checks a result, and its clock reading, before anything
    /// else): an outcome is read once per result.
    pub(crate) fn on_classified_outcome(
        &mut self,
        now_ms: u64,
        attempt: u32,
        outcome: &Outcome,
        class: Class,
    ) -> Result<Decision, Error> {
        if self.phase == Phase::Ended {
            return Err(Error::OperationEnded);
        }
        let slot = self.running_slot(attempt)?;
        Ok(self.settle(now_ms, slot, attempt, class, outcome))
    }

    /// The slot of running attempt `attempt`.
    fn running_slot(&self, attempt: u32) -> Result<usize, Error> {
        self.running
            .iter()
            .position(|running| !running.is_free() && running.attempt == attempt)
            .ok_or_else(|| self.not_running(attempt))
    }

    /// Applies the outcome of the attempt running in `slot`.
    fn settle(&mut self, now_ms: u64, slot: usize, attempt: u32, class: Class, outcome: &Outcome) -> Decision {
        let now = self.observe(now_ms);
        let finished = self.running.get_mut(slot).map(|finished| core::mem::replace(finished, Running::FREE));
        self.running_set.remove(attempt);
        let honor_guidance = self.policy.server_guidance.honor;
        if let Some(controls) = self.controls.as_mut() {
            // An attempt the caller's deadline cut short that timed out at its abort time timed out for the
            // caller, not the dependency (gRFC A6 throttles on the server's answers alone): a client that sends
            // a short deadline must not open a breaker or drain a budget that every other caller shares. A
            // timeout before then (a client's own connect timeout) is the dependency's, as ever.
            let cut_short = finished.is_some_and(|finished| finished.cut_by_caller && now >= finished.abort_at_ms);
            let timed_out = matches!(outcome, Outcome::Transport { failure: TransportFailure::TimedOut, .. });
            let seen_by_controls = if cut_short && timed_out { Class::Cancelled } else { class };
            controls.settle(slot, now, seen_by_controls, outcome, honor_guidance);
        }
        let class = self.restricted(class, outcome);
        self.after_attempt(now, attempt, class, outcome)
    }

    /// The caller abandons the operation: gives up with reason `cancelled`,
    /// listing the running attempts to abort. A waiting operation spends
    /// nothing more.
    ///
    /// # Errors
    /// [`Error::OperationEnded`] after an ending; [`Error::InvalidArgument`]
    /// naming `now_ms` for a reading past [`MAX_MS`] (as [`poll`](Operation::poll)).
    pub fn cancel(&mut self, now_ms: u64) -> Result<Decision, Error> {
        self.check_clock(now_ms)?;
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
            Phase::Running => Some(self.running_until()),
            Phase::Ended => None,
        }
    }

    /// Time left at `now_ms` before the deadline, after the response reserve
    /// (saturating at 0).
    #[must_use]
    pub fn remaining_ms(&self, now_ms: u64) -> u64 {
        crate::ground::deadline::remaining_ms(
            self.deadline_ms,
            now_ms.max(self.last_now_ms),
            self.policy.response_reserve_ms,
        )
    }

    /// The old name of [`Operation::remaining_ms`], kept for one release.
    #[deprecated(
        note = "renamed `remaining_ms` (\"budget\" names the retry budget only); this alias is removed in the next release"
    )]
    #[must_use]
    pub fn remaining_budget_ms(&self, now_ms: u64) -> u64 {
        self.remaining_ms(now_ms)
    }

    /// Whether this operation may ever send its request again after an
    /// attempt fails: more than one attempt allowed, and neither a one-shot
    /// body, a method the policy does not retry, nor a caller that retries
    /// itself. What a hop tells the next one (`retryplan-caller-retries`).
    #[must_use]
    pub fn may_retry(&self) -> bool {
        self.policy.max_attempts > 1 && !self.one_shot_body && !self.method_not_retried && !self.retries_delegated
    }

    /// When running attempt `attempt` is aborted, or `None` when it is not running.
    #[must_use]
    pub fn abort_at_ms(&self, attempt: u32) -> Option<u64> {
        self.running.iter().find(|running| !running.is_free() && running.attempt == attempt).map(|r| r.abort_at_ms)
    }

    /// The next hop answered "do not retry" (an HTTP `retryplan-retryable:
    /// ?0`, read by the driver): no further attempt starts, and a retryable
    /// failure gives up with [`GiveUpReason::ServerDeclinedRetry`], as a
    /// gRPC pushback that says so does.
    pub(crate) fn decline_further_attempts(&mut self) {
        self.refuse_further_attempts(GiveUpReason::ServerDeclinedRetry);
    }

    /// The operation's deadline: `min(start + total_timeout_ms, caller deadline)`.
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
    /// when its request is not idempotent ([`Repeatability::effective`](crate::outcomes::http::Repeatability::effective)).
    #[must_use]
    pub fn idempotency(&self) -> Idempotency {
        self.idempotency
    }

    /// True when every attempt's request carries the idempotency key header
    /// (keyed or unsafe operations, see [`crate::outcomes::http`]; or a key the caller
    /// sent, which travels unchanged: [`OperationOptions::with_incoming`]).
    #[must_use]
    pub fn sends_idempotency_key(&self) -> bool {
        self.key_from_caller || self.idempotency.sends_idempotency_key()
    }

    /// The request headers of running attempt `attempt`, sent at `now_ms`
    /// to a next hop that speaks `protocol` (see
    /// [`propagation`](crate::propagation) for the wire form): the time
    /// left for the attempt (its abort time minus now; for gRPC a
    /// `grpc-timeout` in the finest unit that holds it exactly), its number
    /// (gRPC: `grpc-previous-rpc-attempts` on retries and hedges), the
    /// idempotency key when it is sent ([`sends_idempotency_key`](Self::sends_idempotency_key)),
    /// and `retryplan-caller-retries`: `?1` when this layer
    /// ([`may_retry`](Self::may_retry)) or one above it retries the request.
    /// A `now_ms` earlier than a reading the operation has seen counts as no
    /// time elapsed: the time left is never more than the attempt was given.
    ///
    /// # Errors
    /// [`Error::AttemptNotRunning`] when `attempt` is not running;
    /// [`Error::InvalidArgument`] naming `now_ms` for a reading past
    /// [`MAX_MS`] (as [`poll`](Operation::poll)).
    pub fn outgoing_headers(
        &self,
        attempt: u32,
        now_ms: u64,
        protocol: crate::propagation::Protocol,
    ) -> Result<crate::propagation::HeaderList, Error> {
        self.check_clock(now_ms)?;
        let abort_at_ms = self.abort_at_ms(attempt).ok_or_else(|| self.not_running(attempt))?;
        let key = self.sends_idempotency_key().then_some(&self.idempotency_key);
        let retried_above = self.caller_retries || self.may_retry();
        let timeout_ms = abort_at_ms.saturating_sub(now_ms.max(self.last_now_ms));
        Ok(crate::propagation::request_headers(protocol, attempt, timeout_ms, key, retried_above))
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

    /// The latest clock reading seen (the start before any other).
    pub(crate) fn latest_now_ms(&self) -> u64 {
        self.last_now_ms
    }

    /// Refuses a clock reading past [`MAX_MS`], this one or the one the
    /// operation started at (its constructor cannot refuse it): one compare
    /// on every call that takes a reading, before anything changes.
    #[inline]
    pub(crate) fn check_clock(&self, now_ms: u64) -> Result<(), Error> {
        let latest = now_ms.max(self.last_now_ms);
        if latest > MAX_MS {
            return Err(Error::ms_above_max("now_ms", latest));
        }
        Ok(())
    }

    /// The error for an outcome of an attempt that is not running (out of
    /// line: building its message would otherwise weigh on every outcome).
    #[cold]
    #[inline(never)]
    fn not_running(&self, attempt: u32) -> Error {
        Error::AttemptNotRunning { attempt, running: self.running_list() }
    }

    /// The running attempts, ascending (for errors).
    pub(crate) fn running_list(&self) -> Vec<u32> {
        self.running_attempts().iter().collect()
    }

    fn wait_again(&self, now: u64, until_ms: u64, retry_after_ms: Option<u64>) -> Decision {
        Decision::Wait {
            retry: self.attempts_started.saturating_sub(1),
            delay_ms: until_ms - now,
            until_ms,
            retry_after_ms,
            remaining_ms: self.remaining_ms(now),
        }
    }
}
