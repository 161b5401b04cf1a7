//! The host loop, decided once: a [`Driver`] owns everything a helper's loop
//! does except the I/O itself.
//!
//! [`Operation`] answers one decision per event. Turning those decisions into
//! I/O takes a loop — start attempts, enforce their abort times, ignore late
//! results, hedge, sleep, cancel, end — and that loop is itself a decision
//! procedure, so it lives here, once, and every helper in every language
//! (`run` and `retryFetch` in JS, `@retry`, `attempts()` and the httpx
//! transports in Python, `retrying {}` and the OkHttp interceptor in Kotlin)
//! is an adapter from its runtime to it. Like quinn-proto's connection, the
//! driver reads no clock and does no I/O: results go in through `handle_*`
//! calls, one [`Action`] at a time comes out of [`Driver::poll_action`].
//! Across a language boundary the same calls travel as whole numbers, in the
//! one encoding of [`wire`] ([`Driver::exchange`]).
//!
//! ```text
//! loop {
//!     match driver.poll_action(now()).unwrap() {
//!         StartAttempt(plan)            => spawn the attempt; when it ends: driver.handle_result(now(), n, outcome)
//!         AbortAttempt { attempt, .. }  => abort that attempt's I/O (its result, if any, is discarded)
//!         Release { token }             => drop what the host holds under that token
//!         Sleep { until_ms }            => sleep until then; a result or the caller's cancel wakes you early
//!         Finish(ending)                => return the winner's value, or raise the typed ending
//!     }
//! }
//! ```
//!
//! The rules the driver applies, identical in every language:
//!
//! 1. **Per-attempt timeouts are the driver's.** An attempt still running at
//!    its `abort_at_ms` is counted as `timed_out` by the driver itself, which
//!    tells the host to abort it ([`AbortReason::TimedOut`]). A result handed
//!    in at or after that time, or for an attempt already aborted, or after
//!    the end, is [`Receipt::Discarded`]: never an error, and the host keeps
//!    no bookkeeping of its own. A host that cannot interrupt an attempt
//!    (synchronous code) still has its late result counted as a timeout.
//! 2. **What an attempt's failure means** is decided by the engine: a host
//!    maps what its platform raised through its one table to a
//!    [`Failure`](crate::Failure) (whose [`outcome`](crate::Failure::outcome)
//!    it reports), or, for an error of the application's own code, through
//!    the helper's mapping hook (error to outcome; by default the application
//!    verdict `not_retryable`). An error raised because the request itself is
//!    invalid (a malformed URL, a bad header value) is the caller's mistake:
//!    the host cancels the driver and rethrows it unchanged.
//! 3. **Hedging needs a concurrent host.** A host that runs one attempt at a
//!    time says so ([`Concurrency::Sequential`]); a policy with a `hedging`
//!    section is then refused ([`Error::Unsupported`] naming `hedging`)
//!    unless the caller chose [`Concurrency::SequentialWithoutHedging`]. No
//!    section of a policy is ignored silently.
//! 4. **The driver keeps the books of what the host holds.** A host hands
//!    each result in with an opaque token of its own (its handle to the
//!    response, value or error: [`Driver::handle_result_with_token`],
//!    [`Driver::handle_response`]). The driver answers which token to drop
//!    now ([`Receipt::Discarded`], [`Action::Release`]) and which one the
//!    ending returns or raises with ([`Ending::result`]): the winner's on
//!    success; for a host that returns responses
//!    ([`DriverOptions::returns_responses`]) the last response unless the
//!    ending is a reconcile or the caller's cancel (then it is released);
//!    otherwise the last result, raised with (an error as the cause, a
//!    function's value as the last value). A late or aborted
//!    attempt's result can never reach the caller, and no host keeps a "last
//!    result" of its own. [`Ending::last_result`] says how the last attempt
//!    ended, for messages.
//! 5. **One behaviour for odd inputs**: a status the platform gave outside
//!    100..=599 (negative, 0, 70000) is a malformed response, read here; a
//!    request whose body can be sent only once
//!    ([`OperationOptions::with_one_shot_body`]) is sent once and ends
//!    [`GiveUpReason::BodyNotReplayable`] where a retry was wanted.
//! 6. **Counting and observing happen here**: with [`DriverOptions::stats`]
//!    every decision is counted as it is made (each start and ending once),
//!    and with [`DriverOptions::record_events`] each new decision is kept as an
//!    [`Event`] for the helper's observation hook.
//! 7. **A redirect may hide a processed request.** A host whose client
//!    follows redirects inside an attempt (fetch, OkHttp, java.net.http)
//!    says whether the response it hands in came through one
//!    ([`Driver::handle_response_after_redirects`]); its retryable failure
//!    is then ambiguous (a `POST` answered `303 See Other`, whose target
//!    answered 503, was processed by the first hop), so the method rule
//!    applies: an unkeyed `POST` reconciles, a keyed one and a `GET` are
//!    retried. Any redirect counts: fetch cannot tell a 303 from a 307, so
//!    every host reads it alike, the safe way. A host whose client hands it
//!    each hop (Python's httpx and requests helpers) needs no such word.
//! 8. **A clock that does not move through a wait is refused.** A host
//!    sleeps on its platform's timer and reads the caller's clock; when the
//!    two keep different times (a fake timer beside a real clock, a fake
//!    sleep that does not move the clock, a frozen clock) the wait never
//!    ends by the clock, and the host would arm its timer forever. Each host
//!    says when the timer it armed for a [`Action::Sleep`] ran out
//!    ([`Driver::handle_timer_end`]); the driver refuses the clock
//!    ([`Error::InvalidArgument`] naming `clock`) when it moved less than
//!    half of the wait since the wait began, and either one timer of 50 ms
//!    or more ran out with the clock moved less than half of it (no real
//!    timer ends half a wait early), or the timers of the wait have run it
//!    all and 250 ms more (shorter timers, which a coarse clock may not show
//!    one by one).
//!
//! ```
//! use retryplan::{Action, Driver, DriverOptions, OperationOptions, Outcome, Policy, Receipt};
//! let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#).unwrap();
//! let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
//! let Action::StartAttempt(first) = driver.poll_action(0).unwrap() else { unreachable!() };
//! assert_eq!((first.attempt, first.abort_at_ms), (1, 300));
//! // The attempt answers 503 at 120 ms: back off 100 ms.
//! let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
//! assert_eq!(driver.handle_result(120, 1, unavailable), Ok(Receipt::Accepted));
//! assert_eq!(driver.poll_action(120).unwrap(), Action::Sleep { until_ms: 220 });
//! let Action::StartAttempt(second) = driver.poll_action(220).unwrap() else { unreachable!() };
//! // It hangs: at its abort time the driver counts it as timed out itself.
//! assert!(matches!(driver.poll_action(520).unwrap(), Action::AbortAttempt { attempt: 2, .. }));
//! // Its answer arrives too late and is discarded.
//! assert_eq!(driver.handle_result(530, second.attempt, Outcome::Success), Ok(Receipt::Discarded));
//! ```

mod propagation;
mod queue;
mod still_clock;
pub mod telemetry;
pub mod wire;

use alloc::collections::VecDeque;
use alloc::sync::Arc;

#[doc(no_inline)]
pub use crate::outcomes::action::{
    AbortReason, Action, AttemptPlan, AttemptResult, Ending, EndingResult, Event, Held, Receipt,
};
use queue::ActionQueue;
use still_clock::Wait;

use crate::config::error::Error;
use crate::engine::operation::{IdempotencyKey, Operation, OperationOptions, SharedPolicy};
use crate::engine::stats::SharedStats;
use crate::ground::message::message;
use crate::outcomes::classify::{classify, Class, Outcome, TransportFailure};
use crate::outcomes::decision::{AttemptSet, Decision, GiveUpReason};
use crate::propagation::declines_retry;
use crate::propagation::RETRYPLAN_RETRYABLE;

/// Whether the host can run several attempts at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Concurrency {
    /// Attempts may run at once: hedges start beside running attempts
    /// (JS promises, asyncio tasks, threads, coroutines).
    #[default]
    Concurrent,
    /// One attempt at a time (a synchronous call): a policy with a `hedging`
    /// section is refused with [`Error::Unsupported`].
    Sequential,
    /// One attempt at a time, and the caller explicitly accepts that a
    /// hedging policy runs without its hedges (its retries still apply).
    SequentialWithoutHedging,
}

impl Concurrency {
    /// Every way, in declaration order.
    pub const ALL: [Concurrency; 3] =
        [Concurrency::Concurrent, Concurrency::Sequential, Concurrency::SequentialWithoutHedging];
}

impl crate::ground::named::Named for Concurrency {
    const ALL: &'static [Self] = &Concurrency::ALL;
    fn name(self) -> &'static str {
        match self {
            Concurrency::Concurrent => "concurrent",
            Concurrency::Sequential => "sequential",
            Concurrency::SequentialWithoutHedging => "sequential_without_hedging",
        }
    }
}

/// How a host runs its driver.
#[derive(Clone, Debug, Default)]
pub struct DriverOptions {
    /// Whether the host can run attempts concurrently.
    pub concurrency: Concurrency,
    /// Counters shared with other operations; every decision is counted as it
    /// is made.
    pub stats: Option<Arc<SharedStats>>,
    /// Keep each new decision as an [`Event`] for [`Driver::poll_event`] (for
    /// a helper's observation hook). Off, nothing is kept.
    pub record_events: bool,
    /// The host returns the last response even when the operation did not
    /// succeed (the HTTP helpers: `retryFetch`, the httpx and requests
    /// adapters, OkHttp's interceptor), except for a reconcile or the
    /// caller's cancel. Off (the function helpers: `run`, `@retry`,
    /// `retrying`), only a success's value is returned. Read through
    /// [`Ending::result`] by hosts that hand results in with tokens.
    pub returns_responses: bool,
}

/// What the driver read of a response beside its outcome (nothing, for a
/// result that is no response).
#[derive(Clone, Copy, Debug, Default)]
struct ResponseRead {
    /// The next hop said not to retry.
    declined: bool,
    /// The client followed a redirect inside the attempt to get it.
    redirected: bool,
    /// The status, when it was no HTTP status (read as a malformed response).
    malformed_status: Option<i64>,
}

/// The latest accepted result the host holds under a token.
#[derive(Clone, Copy, Debug)]
struct Kept {
    /// The host's token for it.
    token: u64,
    /// What the host holds under it.
    held: Held,
    /// The abort time of the attempt that produced it (see
    /// [`EndingResult::readable_until_ms`]).
    abort_at_ms: u64,
}

/// Where the driver stands: live, or ended with this decision (the ending's
/// last result is `last_result`, which no longer changes once ended).
#[derive(Clone, Copy, Debug)]
enum State {
    Live,
    Ended(Decision),
}

/// What a poll decided, before it is made an [`Action`]: a finish carries no
/// ending (the ending is the driver's state, read in place by
/// [`Driver::exchange`] and copied out only for [`Driver::poll_action`]), so
/// a step is at most 48 bytes against an action's 176, and a binding's poll
/// through the wire moves no ending through its returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Start(AttemptPlan),
    Abort { attempt: u32, reason: AbortReason },
    Sleep { until_ms: u64 },
    Release { token: u64 },
    Finish,
}

impl Step {
    /// The step `action` is (a finish's ending dropped).
    fn of(action: &Action) -> Step {
        match *action {
            Action::StartAttempt(plan) => Step::Start(plan),
            Action::AbortAttempt { attempt, reason } => Step::Abort { attempt, reason },
            Action::Sleep { until_ms } => Step::Sleep { until_ms },
            Action::Release { token } => Step::Release { token },
            Action::Finish(_) => Step::Finish,
        }
    }
}

/// The host loop of one operation: results in, one [`Action`] out per poll
/// (see the [module documentation](self)).
#[derive(Debug)]
pub struct Driver {
    operation: Operation,
    state: State,
    /// Actions decided inside a `handle_*` call or an expiry, handed out first.
    queue: ActionQueue,
    /// The last attempt result taken into account.
    last_result: Option<AttemptResult>,
    /// The status of `last_result`'s response when it was no HTTP status
    /// ([`Ending::malformed_status`]).
    malformed_status: Option<i64>,
    /// The latest accepted result handed in with a token.
    kept: Option<Kept>,
    /// Tokens the host must release, oldest first (handed out before any
    /// other action).
    releases: VecDeque<u64>,
    /// What the ending does with the held result, settled when it ends.
    ending_result: Option<EndingResult>,
    returns_responses: bool,
    stats: Option<Arc<SharedStats>>,
    events: Option<VecDeque<Event>>,
    /// The wait the host's timers are armed for ([`Driver::handle_timer_end`]).
    wait: Wait,
}

impl Driver {
    /// Starts an operation at `now_ms` under `policy`, run by a host as
    /// `driver_options` says.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `now_ms` for a reading past
    /// [`MAX_MS`](crate::policy::MAX_MS) (every later call would refuse the
    /// deadline it gives); [`Error::Unsupported`] naming `hedging` when the
    /// policy hedges and the host runs attempts [`Concurrency::Sequential`]ly.
    pub fn new(
        policy: impl SharedPolicy,
        now_ms: u64,
        options: OperationOptions,
        driver_options: DriverOptions,
    ) -> Result<Driver, Error> {
        Error::check_ms("now_ms", now_ms)?;
        let policy = policy.share();
        let hedges = match driver_options.concurrency {
            Concurrency::Concurrent => true,
            Concurrency::Sequential if policy.hedging.is_some() => {
                return Err(Error::Unsupported { field: "hedging", rule: message!(CannotHedge) })
            }
            Concurrency::Sequential => true,
            Concurrency::SequentialWithoutHedging => false,
        };
        // The operation is made in its place in the driver, not made and then moved in.
        Ok(Driver {
            operation: Operation::started(policy, now_ms, options, hedges),
            state: State::Live,
            queue: ActionQueue::new(),
            last_result: None,
            malformed_status: None,
            kept: None,
            releases: VecDeque::new(),
            ending_result: None,
            returns_responses: driver_options.returns_responses,
            stats: driver_options.stats,
            events: driver_options.record_events.then(VecDeque::new),
            wait: Wait::default(),
        })
    }

    /// What to do now: hand out the actions already decided (releases
    /// first), else count any attempt past its abort time as timed out, else
    /// ask the operation.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `now_ms` for a reading past
    /// [`MAX_MS`](crate::policy::MAX_MS). Else
    /// none in a working engine: every ending the operation returns passes
    /// through the driver, so a live driver's operation always answers. Were
    /// that ever broken (a bug in this crate), the operation's refusal
    /// ([`Error::OperationEnded`]) comes out as it is, for the host to raise,
    /// rather than an action (a sleep until now would make a host spin).
    pub fn poll_action(&mut self, now_ms: u64) -> Result<Action, Error> {
        Ok(match self.poll_step(now_ms)? {
            Step::Start(plan) => Action::StartAttempt(plan),
            Step::Abort { attempt, reason } => Action::AbortAttempt { attempt, reason },
            Step::Sleep { until_ms } => Action::Sleep { until_ms },
            Step::Release { token } => Action::Release { token },
            // A finish is polled only once ended: the ending is there.
            Step::Finish => match self.state {
                State::Ended(decision) => Action::Finish(self.ending(decision)),
                State::Live => return Err(Error::OperationEnded),
            },
        })
    }

    /// [`poll_action`](Self::poll_action)'s decision, with a finish's ending
    /// left in the driver's state (read in place by the wire's exchange).
    /// Inlined into both: the typed poll then builds its action from the
    /// step's fields where they are (moved through memory, a step is read
    /// back in wider words than it was written, which stalls the load).
    #[inline(always)]
    fn poll_step(&mut self, now_ms: u64) -> Result<Step, Error> {
        self.operation.check_clock(now_ms)?;
        if let Some(step) = self.next_decided() {
            return Ok(step);
        }
        if self.is_ended() {
            return Ok(Step::Finish);
        }
        self.expire_overdue(now_ms);
        if let Some(step) = self.next_decided() {
            return Ok(step);
        }
        if self.is_ended() {
            return Ok(Step::Finish);
        }
        let decision = self.operation.poll(now_ms)?;
        Ok(match decision {
            Decision::StartAttempt { .. } => {
                self.count(now_ms, &decision, false);
                self.plan(&decision).map_or(Step::Finish, Step::Start)
            }
            Decision::Wait { until_ms, .. } | Decision::AwaitOutcome { until_ms, .. } => {
                self.wait.slept(now_ms, until_ms);
                Step::Sleep { until_ms }
            }
            ending => {
                self.count(now_ms, &ending, false);
                self.end(ending);
                self.next_decided().unwrap_or(Step::Finish)
            }
        })
    }

    /// The oldest step already decided: a release, else a queued start or abort.
    fn next_decided(&mut self) -> Option<Step> {
        match self.releases.pop_front() {
            Some(token) => Some(Step::Release { token }),
            None => self.queue.pop(),
        }
    }

    /// Hands in how attempt `attempt` ended, as the host observed it at `now_ms`.
    ///
    /// # Errors
    /// [`Error::AttemptNotRunning`] when this driver never started `attempt`;
    /// [`Error::InvalidArgument`] for an HTTP status outside 100..=599 (build
    /// HTTP outcomes with [`Outcome::from_http_response`], which reads such a
    /// status as the server's fault), for a `retry_after_ms` or `pushback`
    /// past [`MAX_MS`](crate::policy::MAX_MS), and naming `now_ms` as
    /// [`poll_action`](Self::poll_action) does. On error nothing changes.
    pub fn handle_result(&mut self, now_ms: u64, attempt: u32, outcome: Outcome) -> Result<Receipt, Error> {
        self.hand_in(now_ms, attempt, outcome, None, ResponseRead::default())
    }

    /// [`handle_result`](Self::handle_result) for a result the host holds
    /// under `token` (its own handle to the response, value or error,
    /// `held`). From then on the driver says what becomes of it: the
    /// receipt [`Receipt::Discarded`] (drop it now), a later
    /// [`Action::Release`] naming the token (drop it then), or the ending's
    /// [`Ending::result`] (return it, or raise the ending with it: an error
    /// as the cause, a function's value as the last value). A host that hands every result in this way keeps no "last
    /// result" of its own, and a late or aborted attempt's result can never
    /// reach its caller.
    ///
    /// ```
    /// use retryplan::{Action, Driver, DriverOptions, EndingResult, Held, OperationOptions, Outcome, Policy, Receipt};
    /// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}"#).unwrap();
    /// let options = DriverOptions { returns_responses: true, ..DriverOptions::default() };
    /// let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), options).unwrap();
    /// assert!(matches!(driver.poll_action(0).unwrap(), Action::StartAttempt(_)));
    /// let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
    /// // The host holds the 503 response as token 11.
    /// assert_eq!(driver.handle_result_with_token(40, 1, unavailable, 11, Held::Value), Ok(Receipt::Accepted));
    /// assert_eq!(driver.poll_action(40).unwrap(), Action::Sleep { until_ms: 140 });
    /// assert!(matches!(driver.poll_action(140).unwrap(), Action::StartAttempt(_)));
    /// // Attempt 2's 200 (token 12) replaces it: close the 503 now, return the 200.
    /// assert_eq!(driver.handle_result_with_token(200, 2, Outcome::Success, 12, Held::Value), Ok(Receipt::Accepted));
    /// assert_eq!(driver.poll_action(200).unwrap(), Action::Release { token: 11 });
    /// let Action::Finish(ending) = driver.poll_action(200).unwrap() else { unreachable!() };
    /// assert_eq!(ending.result, Some(EndingResult { token: 12, returned: true, readable_until_ms: None, held: Held::Value }));
    /// ```
    ///
    /// # Errors
    /// As [`handle_result`](Self::handle_result); and, for a host that
    /// returns responses ([`DriverOptions::returns_responses`]), a success
    /// held as an [`Held::Error`] (an HTTP helper's error hook that called a
    /// thrown error a success: there is no response to return) is refused
    /// with [`Error::InvalidArgument`] naming `outcome_of_error`. On error
    /// nothing changes and the token stays the host's.
    pub fn handle_result_with_token(
        &mut self,
        now_ms: u64,
        attempt: u32,
        outcome: Outcome,
        token: u64,
        held: Held,
    ) -> Result<Receipt, Error> {
        self.hand_in(now_ms, attempt, outcome, Some((token, held)), ResponseRead::default())
    }

    /// Hands in the HTTP response attempt `attempt` received, read here as
    /// every helper in every language reads one: `status` is whatever number
    /// the platform gave (outside 100..=599, including negative or huge
    /// ones, it is the server's fault: [`Failure::MalformedResponse`](crate::Failure::MalformedResponse);
    /// so is an interim 1xx but 101, which a client returned in place of the answer after it),
    /// `header` looks a header up by its lower-case name (a header sent as
    /// several field lines joined by `", "`), and the policy's
    /// `server_guidance.retry_after_reading` reads `Retry-After` against
    /// the caller's wall clock `now_unix_ms`. The response is held as a
    /// [`Held::Value`] under `token` when one is given. A next hop's
    /// `retryplan-retryable` "do not retry" (see
    /// [`propagation`](crate::propagation)) ends the retries here with
    /// [`GiveUpReason::ServerDeclinedRetry`], when the policy honours server
    /// guidance and reads the `retryplan` headers.
    ///
    /// ```
    /// use retryplan::{Action, AttemptResult, Driver, DriverOptions, Failure, OperationOptions, Policy, Receipt};
    /// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
    /// let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
    /// assert!(matches!(driver.poll_action(0).unwrap(), Action::StartAttempt(_)));
    /// assert_eq!(driver.handle_response(30, 1, None, 70_000, |_| None, 0), Ok(Receipt::Accepted));
    /// let outcome = driver.operation().policy().http_outcome(-1, |_| None, 0);
    /// assert_eq!(outcome, Failure::MalformedResponse.outcome());
    /// ```
    ///
    /// A host whose client follows redirects inside an attempt hands its
    /// responses in through
    /// [`handle_response_after_redirects`](Self::handle_response_after_redirects)
    /// instead, saying whether it followed one.
    ///
    /// # Errors
    /// As [`handle_result`](Self::handle_result).
    pub fn handle_response<'a>(
        &mut self,
        now_ms: u64,
        attempt: u32,
        token: Option<u64>,
        status: i64,
        header: impl FnMut(&'static str) -> Option<&'a str>,
        now_unix_ms: u64,
    ) -> Result<Receipt, Error> {
        self.handle_response_after_redirects(now_ms, attempt, token, status, header, now_unix_ms, false)
    }

    /// [`handle_response`](Self::handle_response) for a host whose HTTP
    /// client follows redirects inside an attempt (fetch, OkHttp,
    /// java.net.http): the response handed in is the answer of the chain's
    /// last hop, and `redirected` says the client followed at least one
    /// redirect to get it.
    ///
    /// A redirected response's retryable failure is read as **ambiguous**: an
    /// earlier hop may have processed the request (a `POST` answered
    /// `303 See Other`, whose target then answered 503, was processed by the
    /// first hop), so the method rule applies as to any ambiguous failure: a
    /// request whose method is not idempotent (RFC 9110 §9.2.2, RFC 10008) is not repeated unless the
    /// operation is keyed (it ends [`Decision::Reconcile`]), a keyed one is
    /// retried with its key, an idempotent one (GET) is retried as before.
    /// The rule is "any redirect followed", not "a 301, 302 or 303": a
    /// fetch response says only that it was redirected, not how, so every
    /// host reads it the same, the safe way. A success, a failure that is
    /// not retryable, or a conflict reads as without redirects. A client that
    /// follows redirects hop by hop (Python's httpx and requests helpers)
    /// hands in each hop's response as its own attempt, through
    /// [`handle_response`](Self::handle_response).
    ///
    /// ```
    /// use retryplan::{Action, Decision, Driver, DriverOptions, OperationOptions, Policy, Receipt};
    /// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}}"#).unwrap();
    /// let post = OperationOptions::new(7).with_http_request(policy.http_request("POST", None, None).unwrap());
    /// let mut driver = Driver::new(&policy, 0, post, DriverOptions::default()).unwrap();
    /// assert!(matches!(driver.poll_action(0).unwrap(), Action::StartAttempt(_)));
    /// // POST /orders answered 303; the client followed it, and GET /orders/7 answered 503.
    /// let receipt = driver.handle_response_after_redirects(30, 1, None, 503, |_| None, 0, true);
    /// assert_eq!(receipt, Ok(Receipt::Accepted));
    /// let Action::Finish(ending) = driver.poll_action(30).unwrap() else { unreachable!() };
    /// assert!(matches!(ending.decision, Decision::Reconcile { attempts: 1, .. }));
    /// ```
    ///
    /// # Errors
    /// As [`handle_result`](Self::handle_result).
    #[allow(clippy::too_many_arguments)] // handle_response's, and the one fact more
    pub fn handle_response_after_redirects<'a>(
        &mut self,
        now_ms: u64,
        attempt: u32,
        token: Option<u64>,
        status: i64,
        mut header: impl FnMut(&'static str) -> Option<&'a str>,
        now_unix_ms: u64,
        redirected: bool,
    ) -> Result<Receipt, Error> {
        let declined = self.reads_declined_retry() && header(RETRYPLAN_RETRYABLE).is_some_and(declines_retry);
        let outcome = self.operation.policy().http_outcome(status, header, now_unix_ms);
        // A response's outcome is a transport failure only when its status was no HTTP status.
        let malformed_status = matches!(outcome, Outcome::Transport { .. }).then_some(status);
        let read = ResponseRead { declined, redirected, malformed_status };
        self.hand_in(now_ms, attempt, outcome, token.map(|token| (token, Held::Value)), read)
    }

    /// Hands a result in, with what was read of its response beside its outcome.
    fn hand_in(
        &mut self,
        now_ms: u64,
        attempt: u32,
        outcome: Outcome,
        held: Option<(u64, Held)>,
        ResponseRead { declined, redirected, malformed_status }: ResponseRead,
    ) -> Result<Receipt, Error> {
        if attempt == 0 || attempt > self.operation.attempts_started() {
            return Err(Error::AttemptNotRunning { attempt, running: self.operation.running_list() });
        }
        self.operation.check_clock(now_ms)?;
        let class = classify(self.operation.policy(), &outcome)?;
        let class = if redirected { class.after_redirect() } else { class };
        // An HTTP helper's success returns its response: an error has none to return. Refused before anything
        // changes, unless it would be discarded anyway (late, a loser, after the end: whatever it says).
        if self.returns_responses
            && class == Class::Success
            && matches!(held, Some((_, Held::Error)))
            && !matches!(self.state, State::Ended(_))
            && self.operation.abort_at_ms(attempt).is_some_and(|abort_at_ms| now_ms < abort_at_ms)
        {
            return Err(Error::InvalidArgument { field: "outcome_of_error", rule: message!(ErrorAsSuccess) });
        }
        self.expire_overdue(now_ms);
        if matches!(self.state, State::Ended(_)) || !self.operation.running_attempts().contains(attempt) {
            return Ok(Receipt::Discarded);
        }
        if declined {
            self.operation.decline_further_attempts();
        }
        // Read while the attempt still runs (checked above, so never the fallback): its window bounds
        // what an ending returns of it.
        let abort_at_ms = self.operation.abort_at_ms(attempt).unwrap_or(now_ms);
        let decision = self.operation.on_classified_outcome(now_ms, attempt, &outcome, class)?;
        self.last_result = Some(AttemptResult { attempt, outcome });
        self.malformed_status = malformed_status;
        self.keep(held.map(|(token, held)| Kept { token, held, abort_at_ms }));
        self.take(now_ms, decision);
        Ok(Receipt::Accepted)
    }

    /// Makes `kept` the latest result the host holds, releasing the token it replaces.
    fn keep(&mut self, kept: Option<Kept>) {
        if let Some(previous) = self.kept.take() {
            if kept.map(|kept| kept.token) != Some(previous.token) {
                self.releases.push_back(previous.token);
            }
        }
        self.kept = kept;
    }

    /// The caller abandons the operation: it gives up (`cancelled`) and every
    /// running attempt is aborted ([`AbortReason::Cancelled`]). After the end
    /// this does nothing (a cancel racing the end is not an error). A cancel
    /// cannot fail: a `now_ms` past [`MAX_MS`](crate::policy::MAX_MS), which
    /// every other call refuses, counts as no time elapsed (the latest
    /// reading seen is used).
    pub fn handle_cancel(&mut self, now_ms: u64) {
        if matches!(self.state, State::Ended(_)) {
            return;
        }
        let now_ms = if self.operation.check_clock(now_ms).is_ok() { now_ms } else { self.operation.latest_now_ms() };
        if let Ok(decision) = self.operation.cancel(now_ms) {
            self.count(now_ms, &decision, false);
            self.end(decision);
        }
    }

    /// The timer the host armed for the last [`Action::Sleep`] ran out (it
    /// was not woken early) with the host's clock at `now_ms`; the host polls
    /// next, as after any wake-up. The driver judges whether the clock moved
    /// through the wait (rule 8 of the [module documentation](self)), the
    /// timer taken to have run its whole length (the rest of the wait when
    /// the host armed it). A host whose timer is a blocking sleep that may
    /// return early says [`handle_sleep_end`](Self::handle_sleep_end) instead.
    ///
    /// ```
    /// use retryplan::{Action, Driver, DriverOptions, Error, OperationOptions, Outcome, Policy};
    /// let policy = Policy::from_json(r#"{"jitter": {"kind": "none"}, "backoff": {"base_ms": 2000}}"#).unwrap();
    /// let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).unwrap();
    /// assert!(matches!(driver.poll_action(0).unwrap(), Action::StartAttempt(_)));
    /// let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
    /// driver.handle_result(10, 1, unavailable).unwrap();
    /// assert_eq!(driver.poll_action(10).unwrap(), Action::Sleep { until_ms: 2010 });
    /// // A 2 s timer ran out, and the clock says 10 ms still.
    /// let Err(Error::InvalidArgument { field, rule }) = driver.handle_timer_end(10) else { unreachable!() };
    /// assert_eq!((field, rule.to_string().as_str()), ("clock",
    ///     "the clock moved 0 ms during a wait of 2000 ms: a fake sleep or timer needs a clock that moves with it"));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `clock`, as above (every language's
    /// name for the caller's clock, whatever its helpers call the option);
    /// the host cancels the operation and raises it. Nothing changes in the
    /// driver then.
    pub fn handle_timer_end(&mut self, now_ms: u64) -> Result<(), Error> {
        self.wait.timer_ended(now_ms, None)
    }

    /// [`handle_timer_end`](Self::handle_timer_end) for a host whose sleep or
    /// timer may end early (a caller's own `sleep`, a test's no-op, an event
    /// loop whose timers fire up to a clock tick early): `real_clock_ms` is a
    /// reading of the real monotonic clock (ms, from any origin) when it
    /// ended. From a wait's second sleep on, its sleeps have run as long as
    /// that clock moved, not as long as they were asked to: under 50 ms, a
    /// sleep that returns at once beside a clock that follows real time goes
    /// on until the wait is over, and one beside a clock that stands still
    /// is refused once a quarter of a second more than the wait has really
    /// passed (one of 50 ms or more that ends with the clock moved less than
    /// half of it is refused at once, as any timer is).
    ///
    /// # Errors
    /// As [`handle_timer_end`](Self::handle_timer_end).
    pub fn handle_sleep_end(&mut self, now_ms: u64, real_clock_ms: u64) -> Result<(), Error> {
        self.wait.timer_ended(now_ms, Some(real_clock_ms))
    }

    /// The oldest recorded [`Event`] not yet read (only with
    /// [`DriverOptions::record_events`]).
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.as_mut().and_then(VecDeque::pop_front)
    }

    /// The operation's idempotency key (the same on every attempt).
    #[must_use]
    pub fn idempotency_key(&self) -> &IdempotencyKey {
        self.operation.idempotency_key()
    }

    /// The operation being driven (its deadline, time left, attempts, ...).
    #[must_use]
    pub fn operation(&self) -> &Operation {
        &self.operation
    }

    /// True once the operation has ended (the next poll returns
    /// [`Action::Finish`] after any pending aborts).
    #[must_use]
    pub fn is_ended(&self) -> bool {
        matches!(self.state, State::Ended(_))
    }

    /// The ending once the operation has ended (what [`Action::Finish`]
    /// carries), else None. Reads only: no action is handed out or counted
    /// (a host that has its finish reads the typed ending's words from it,
    /// [`Ending::message`]).
    #[must_use]
    pub fn ended(&self) -> Option<Ending> {
        match self.state {
            State::Ended(decision) => Some(self.ending(decision)),
            State::Live => None,
        }
    }

    /// Counts every running attempt whose abort time has come as timed out,
    /// earliest first, queueing its abort and whatever the operation decides.
    fn expire_overdue(&mut self, now_ms: u64) {
        while let (State::Live, Some(attempt)) = (self.state, self.operation.earliest_overdue(now_ms)) {
            let outcome = Outcome::Transport { failure: TransportFailure::TimedOut, retry_after_ms: None };
            let Ok(decision) = self.operation.on_outcome(now_ms, attempt, &outcome) else { return };
            self.queue.push_abort(attempt, AbortReason::TimedOut);
            self.last_result = Some(AttemptResult { attempt, outcome });
            self.malformed_status = None;
            self.keep(None);
            self.take(now_ms, decision);
        }
    }

    /// Acts on a decision the operation made in answer to a result or an
    /// expiry: a start is queued, an ending ends the driver; a wait needs
    /// nothing (the next poll reads it from the operation again). The
    /// result it answers is `last_result`, just set.
    fn take(&mut self, now_ms: u64, decision: Decision) {
        self.count(now_ms, &decision, true);
        match decision {
            Decision::StartAttempt { .. } => {
                if let Some(plan) = self.plan(&decision) {
                    self.queue.push_start(plan);
                }
            }
            Decision::Wait { .. } | Decision::AwaitOutcome { .. } => {}
            ending => self.end(ending),
        }
    }

    /// The plan of a start decision (None for any other decision).
    fn plan(&self, decision: &Decision) -> Option<AttemptPlan> {
        let Decision::StartAttempt { attempt, timeout_ms, abort_at_ms, request_id, remaining_ms, hedge } = *decision
        else {
            return None;
        };
        let send_idempotency_key = self.operation.sends_idempotency_key();
        Some(AttemptPlan { attempt, timeout_ms, abort_at_ms, request_id, remaining_ms, hedge, send_idempotency_key })
    }

    /// Records the ending and queues the aborts of the attempts it lists.
    fn end(&mut self, decision: Decision) {
        let (abort_attempts, reason) = match decision {
            Decision::Succeeded { abort_attempts, .. } => (abort_attempts, AbortReason::LostRace),
            Decision::GaveUp { reason: GiveUpReason::Cancelled, abort_attempts, .. } => {
                (abort_attempts, AbortReason::Cancelled)
            }
            Decision::GaveUp { abort_attempts, .. }
            | Decision::Reconcile { abort_attempts, .. }
            | Decision::Restart { abort_attempts, .. } => (abort_attempts, AbortReason::OperationEnded),
            Decision::StartAttempt { .. } | Decision::Wait { .. } | Decision::AwaitOutcome { .. } => {
                (AttemptSet::EMPTY, AbortReason::OperationEnded)
            }
        };
        for attempt in abort_attempts.iter() {
            self.queue.push_abort(attempt, reason);
        }
        self.ending_result = self.kept.take().and_then(|Kept { token, held, abort_at_ms }| {
            if self.returns_held(decision, held) {
                let succeeded = matches!(decision, Decision::Succeeded { .. });
                Some(EndingResult {
                    token,
                    returned: true,
                    readable_until_ms: (!succeeded).then_some(abort_at_ms),
                    held,
                })
            } else if held == Held::Error || !self.returns_responses {
                // Raised with it: an error as the cause, a function's value as the ending's last value.
                Some(EndingResult { token, returned: false, readable_until_ms: None, held })
            } else {
                self.releases.push_back(token);
                None
            }
        });
        self.state = State::Ended(decision);
    }

    /// Whether the ending `decision` returns the latest result the host holds
    /// (rather than raising): a success's always; the last response of a
    /// host that returns responses unless the ending is a reconcile (the
    /// caller must find out what happened) or the caller's own cancel.
    fn returns_held(&self, decision: Decision, held: Held) -> bool {
        match decision {
            Decision::Succeeded { .. } => true,
            Decision::Reconcile { .. } | Decision::GaveUp { reason: GiveUpReason::Cancelled, .. } => false,
            _ => {
                self.returns_responses
                    && held == Held::Value
                    && matches!(
                        &self.last_result,
                        Some(AttemptResult { outcome: Outcome::HttpStatus { .. } | Outcome::GrpcStatus { .. }, .. })
                    )
            }
        }
    }

    fn ending(&self, decision: Decision) -> Ending {
        Ending {
            decision,
            last_result: self.last_result,
            result: self.ending_result,
            malformed_status: self.malformed_status,
        }
    }

    /// The ending's decision and what it does with the held result, read in
    /// place (what the wire writes of a finish), or None while live.
    fn finish(&self) -> Option<(&Decision, Option<EndingResult>)> {
        match &self.state {
            State::Ended(decision) => Some((decision, self.ending_result)),
            State::Live => None,
        }
    }

    /// Counts `decision` and records it as an event, answering `last_result`
    /// when `after_result` (read only when events are recorded: a result is
    /// not copied for nothing on every hand-in).
    fn count(&mut self, at_ms: u64, decision: &Decision, after_result: bool) {
        if let Some(stats) = &self.stats {
            stats.record(decision);
        }
        if let Some(events) = &mut self.events {
            let after = if after_result { self.last_result } else { None };
            events.push_back(Event { at_ms, decision: *decision, after });
        }
    }
}

#[cfg(test)]
mod tests;
