//! The per-operation state machine as a thread-safe object, its options and
//! shared counters. (The free functions, headers, deadline propagation and
//! admission, are generated from the core's signatures: `functions.rs`.)

use std::sync::{Arc, Mutex};

use retryplan as rp;

use crate::controls::Dependency;
use crate::live::Registry;
use crate::policy::{HttpRequest, Policy};
use crate::records::{Decision, Outcome, StatsSnapshot};
use crate::{attempts_out, lock, long_out, ms_in, opt_ms_in, u32_in, Result};

/// How an operation starts. Every field may be null: no seed draws one (and
/// a key) from the operating system; no key derives one from the seed; no
/// deadline means the policy's total timeout alone; no dependency means no
/// shared budget, breaker or retry slots.
#[derive(Clone, Debug, Default, uniffi::Record)]
pub struct OperationOptions {
    /// Seeds the jitter and the request ids: 64 bits (a negative `Long` is fine).
    #[uniffi(default)]
    pub seed: Option<i64>,
    /// The stable key of every attempt (1 to 255 visible ASCII characters).
    #[uniffi(default)]
    pub idempotency_key: Option<String>,
    /// A deadline propagated by the caller, absolute ms on the same clock.
    #[uniffi(default)]
    pub deadline_ms: Option<i64>,
    /// The shared controls of the dependency this operation calls.
    #[uniffi(default)]
    pub dependency: Option<Arc<Dependency>>,
    /// Whether the request may be repeated by its protocol's rules; null: the
    /// policy alone decides. An HTTP host passes `httpRequest` instead
    /// (`Policy.httpRequest`, which reads the request's own key too).
    #[uniffi(default)]
    pub repeatability: Option<rp::outcomes::http::Repeatability>,
    /// The request's body can be sent only once (a stream): it is sent once,
    /// never hedged, and the operation ends `gave_up body_not_replayable`
    /// where a retry was wanted.
    #[uniffi(default)]
    pub one_shot_body: bool,
    /// What `Policy.httpRequest(method, idempotent, requestIdempotencyKey)`
    /// made of an HTTP request: its repeatability and the key it carries
    /// itself, applied over `repeatability` and `idempotencyKey`.
    #[uniffi(default)]
    pub http_request: Option<Arc<HttpRequest>>,
}

impl OperationOptions {
    /// The core's options: a seed (and a key) from the operating system when none is given.
    pub(crate) fn into_core(self) -> Result<rp::OperationOptions> {
        let mut core = match self.seed {
            // Bit-for-bit: a seed is 64 random bits, whatever their sign in Kotlin.
            Some(seed) => rp::OperationOptions::new(seed as u64),
            None => rp::OperationOptions::from_entropy()?,
        };
        if let Some(key) = self.idempotency_key {
            core = core.with_idempotency_key(rp::IdempotencyKey::new(key)?);
        }
        if let Some(deadline_ms) = opt_ms_in("deadline_ms", self.deadline_ms)? {
            core = core.with_deadline_ms(deadline_ms);
        }
        if let Some(dependency) = self.dependency {
            core = core.with_dependency(Arc::clone(&dependency.0));
        }
        if self.one_shot_body {
            core = core.with_one_shot_body();
        }
        let core = core.with_repeatability(self.repeatability.unwrap_or_default());
        Ok(match self.http_request {
            Some(request) => core.with_http_request(request.0.clone()),
            None => core,
        })
    }
}

/// Live operations, by handle (`wire.rs` steps them).
pub(crate) static OPERATIONS: Registry<Operation> = Registry::new();

/// One logical operation (one business effect, one idempotency key, many
/// attempts). Thread-safe: calls are serialised by a lock.
#[derive(Debug, uniffi::Object)]
pub struct Operation(pub(crate) Mutex<rp::Operation>);

#[uniffi::export]
impl Operation {
    /// Starts an operation at `now_ms`; call `poll` for its first decision.
    #[uniffi::constructor]
    pub fn new(policy: Arc<Policy>, now_ms: i64, options: OperationOptions) -> Result<Arc<Operation>> {
        let now_ms = ms_in("now_ms", now_ms)?;
        let core = options.into_core()?;
        let operation = Arc::new(Operation(Mutex::new(rp::Operation::new(&policy.0, now_ms, core))));
        OPERATIONS.register(&operation);
        Ok(operation)
    }

    /// The current decision at `now_ms`.
    pub fn poll(&self, now_ms: i64) -> Result<Decision> {
        Ok(lock(&self.0).poll(ms_in("now_ms", now_ms)?)?.into())
    }

    /// Reports how attempt `attempt` ended and returns the next decision.
    pub fn on_outcome(&self, now_ms: i64, attempt: i32, outcome: Outcome) -> Result<Decision> {
        let (now_ms, attempt, outcome) = (ms_in("now_ms", now_ms)?, u32_in("attempt", attempt)?, outcome.try_into()?);
        Ok(lock(&self.0).on_outcome(now_ms, attempt, &outcome)?.into())
    }

    /// The caller abandons the operation: gives up with reason `cancelled`.
    pub fn cancel(&self, now_ms: i64) -> Result<Decision> {
        Ok(lock(&self.0).cancel(ms_in("now_ms", now_ms)?)?.into())
    }

    /// When to poll next, or null once ended.
    pub fn next_wakeup_ms(&self) -> Option<i64> {
        lock(&self.0).next_wakeup_ms().map(long_out)
    }

    /// Time left at `now_ms` after the response reserve.
    pub fn remaining_ms(&self, now_ms: i64) -> Result<i64> {
        let now_ms = ms_in("now_ms", now_ms)?;
        Ok(long_out(lock(&self.0).remaining_ms(now_ms)))
    }

    /// `min(start + total_timeout_ms, caller deadline)`.
    pub fn deadline_ms(&self) -> i64 {
        long_out(lock(&self.0).deadline_ms())
    }

    /// When the operation started.
    pub fn started_at_ms(&self) -> i64 {
        long_out(lock(&self.0).started_at_ms())
    }

    /// The idempotency key of every attempt (the operation id).
    pub fn idempotency_key(&self) -> String {
        lock(&self.0).idempotency_key().as_str().to_owned()
    }

    /// The request id attempt `attempt` gets (1-based), as 16 hex digits.
    pub fn request_id(&self, attempt: i32) -> Result<String> {
        Ok(lock(&self.0).request_id(u32_in("attempt", attempt)?).to_string())
    }

    /// Attempts started so far.
    pub fn attempts_started(&self) -> i32 {
        crate::count_out(lock(&self.0).attempts_started())
    }

    /// The attempts running now, ascending.
    pub fn running_attempts(&self) -> Vec<i32> {
        attempts_out(lock(&self.0).running_attempts())
    }

    /// True once an ending was returned.
    pub fn is_ended(&self) -> bool {
        lock(&self.0).is_ended()
    }
}

impl Drop for Operation {
    fn drop(&mut self) {
        OPERATIONS.unregister(self);
    }
}

/// Counters fed with every decision, shared by any number of threads: the
/// core's `SharedStats`, which a `Driver` given them counts into itself.
#[derive(Debug, Default, uniffi::Object)]
pub struct Stats(pub(crate) Arc<rp::engine::stats::SharedStats>);

#[uniffi::export]
impl Stats {
    /// Empty counters.
    #[uniffi::constructor]
    pub fn new() -> Arc<Stats> {
        Arc::new(Stats::default())
    }

    /// Counts one decision (`Wait` and `AwaitOutcome` count nothing).
    pub fn record(&self, decision: Decision) -> Result<()> {
        let decision = decision.try_into()?;
        self.0.record(&decision);
        Ok(())
    }

    /// The counters now.
    pub fn snapshot(&self) -> StatsSnapshot {
        self.0.snapshot().into()
    }
}
