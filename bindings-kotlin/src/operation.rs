//! The per-operation state machine as a thread-safe object, its options and
//! shared counters. (The free functions, headers, deadline propagation and
//! admission, are generated from the core's signatures: `functions.rs`.) The
//! operation's typed methods are generated too (`operation_generated.rs`, from
//! the engine's family in core/mirrors/src/methods/table.rs, as Python's are); this
//! file keeps the object and its `start`.

use std::sync::{Arc, Mutex};

use retryplan as rp;

use crate::controls::Dependency;
use crate::live::Registry;
use crate::policy::{HttpRequest, Policy};
use crate::records::{Decision, Outcome, StatsSnapshot};
use crate::{attempts_out, count_out, lock, long_out, ms_in, opt_ms_in, u32_in, Result};

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

/// The operating system's random bits for the next operations, drawn ahead 16 at a time in one system call (the
/// core's pool; each operation still gets its own). Nothing forgets it: a JVM never forks after loading a library
/// (Android's zygote forks before an app loads its own).
static ENTROPY: Mutex<rp::engine::operation::EntropyPool> = Mutex::new(rp::engine::operation::EntropyPool::new());

impl OperationOptions {
    /// The core's options: a seed (and a key) from the operating system when none is given.
    pub(crate) fn into_core(self) -> Result<rp::OperationOptions> {
        let mut core = match self.seed {
            // Bit-for-bit: a seed is 64 random bits, whatever their sign in Kotlin.
            Some(seed) => rp::OperationOptions::new(seed as u64),
            None => lock(&ENTROPY).draw()?,
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

// The typed methods of the engine's family (`methods::ENGINE`), written by core/mirrors; the constructor calls
// `start` below.
include!("operation_generated.rs");

impl Operation {
    /// An operation of `policy` started at `now_ms`, registered for the wire.
    fn start(policy: &rp::Policy, now_ms: u64, options: rp::OperationOptions) -> Result<Arc<Operation>> {
        let operation = Arc::new(Operation(Mutex::new(rp::Operation::new(policy, now_ms, options))));
        OPERATIONS.register(&operation);
        Ok(operation)
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
