//! How an operation starts: its seed, key, caller deadline, shared controls
//! and whether its request may be repeated.

use alloc::sync::Arc;

#[cfg(feature = "entropy")]
use crate::config::error::Error;
use crate::config::idempotency_key::IdempotencyKey;
use crate::controls::dependency::Dependency;
use crate::outcomes::http::Repeatability;

/// The random bits of one operation: an 8-byte seed and a 16-byte key.
#[cfg(feature = "entropy")]
pub(super) const BYTES_PER_OPERATION: usize = 24;

/// How an operation starts: its seed, key and the caller's deadline. Built
/// by [`new`](OperationOptions::new) (or [`from_entropy`](OperationOptions::from_entropy),
/// [`from_random`](OperationOptions::from_random)) and the `with_*` methods;
/// the [`Operation`](crate::Operation) it starts reports what it made of them.
///
/// ```
/// use retryplan::{OperationOptions, IdempotencyKey, Operation, Policy};
/// let options = OperationOptions::new(42)
///     .with_idempotency_key(IdempotencyKey::new("order-5001").unwrap())
///     .with_deadline_ms(1_800);
/// let policy = Policy::from_json(r#"{"total_timeout_ms": 5000}"#).unwrap();
/// let operation = Operation::new(&policy, 0, options);
/// assert_eq!((operation.idempotency_key().as_str(), operation.deadline_ms()), ("order-5001", 1_800));
/// ```
#[derive(Clone, Debug)]
pub struct OperationOptions {
    /// Seeds the jitter and the request ids (and the key when none is given).
    pub(super) seed: u64,
    /// The stable key for all attempts; derived from the seed when `None`.
    pub(super) idempotency_key: Option<IdempotencyKey>,
    /// A deadline propagated by the caller, on the same clock; the operation's
    /// deadline is the earlier of this and `start + total_timeout_ms`.
    pub(super) deadline_ms: Option<u64>,
    /// The shared controls (budget, breaker, retry slots) of the dependency
    /// this operation calls.
    pub(super) dependency: Option<Arc<Dependency>>,
    /// Whether the request may be repeated by its protocol's rules (an HTTP
    /// method); combined with the policy's idempotency by
    /// [`Repeatability::effective`].
    pub(super) repeatability: Repeatability,
    /// The request's body can be sent only once (a stream): the request is
    /// never sent twice (no hedge, no retry).
    pub(super) one_shot_body: bool,
    /// The caller retries this request itself and the policy retries at the
    /// outermost layer only: one attempt, no hedge (see
    /// [`propagation`](crate::propagation)).
    pub(super) retries_delegated: bool,
    /// A layer above retries this request (what the next hop is told).
    pub(super) caller_retries: bool,
    /// The key came from the caller: it travels on every attempt.
    pub(super) key_from_caller: bool,
    /// The key was given by the host ([`with_idempotency_key`](OperationOptions::with_idempotency_key),
    /// or the request's own through [`with_http_request`](OperationOptions::with_http_request)): a caller's
    /// propagated key does not replace it.
    pub(super) key_given: bool,
}

impl OperationOptions {
    /// Options with this seed, a key derived from it, and no caller deadline.
    ///
    /// The seed decides everything random: the jitter, the request ids and,
    /// unless [`with_idempotency_key`](OperationOptions::with_idempotency_key)
    /// sets one, the idempotency key. The same seed gives the same key and the
    /// same jitter, on every operation: a server that deduplicates by key
    /// would merge two different writes into one, and every client would
    /// retry in step. A constant seed is for tests and replays; a real
    /// operation takes [`from_entropy`](OperationOptions::from_entropy) (or
    /// [`from_random`](OperationOptions::from_random) with the host's own
    /// random bits), or a key of the caller's with `with_idempotency_key`.
    #[must_use]
    pub fn new(seed: u64) -> OperationOptions {
        OperationOptions {
            seed,
            idempotency_key: None,
            deadline_ms: None,
            dependency: None,
            repeatability: Repeatability::Unknown,
            one_shot_body: false,
            retries_delegated: false,
            caller_retries: false,
            key_from_caller: false,
            key_given: false,
        }
    }

    /// Sets the idempotency key. A key set here is the operation's, whatever
    /// a served request's caller propagates ([`with_incoming`](OperationOptions::with_incoming)).
    #[must_use]
    pub fn with_idempotency_key(mut self, key: IdempotencyKey) -> OperationOptions {
        self.idempotency_key = Some(key);
        self.key_given = true;
        self.key_from_caller = false;
        self
    }

    /// Sets the caller's propagated deadline (absolute ms on the caller's clock).
    #[must_use]
    pub fn with_deadline_ms(mut self, deadline_ms: u64) -> OperationOptions {
        self.deadline_ms = Some(deadline_ms);
        self
    }

    /// Sets the dependency whose shared controls this operation uses.
    #[must_use]
    pub fn with_dependency(mut self, dependency: Arc<Dependency>) -> OperationOptions {
        self.dependency = Some(dependency);
        self
    }

    /// Says whether the operation's request may be repeated (an HTTP host
    /// hands [`Policy::http_request`](crate::Policy::http_request)'s answer
    /// to [`OperationOptions::with_http_request`] instead). A request that is not
    /// idempotent runs a `safe` or `idempotent` policy as `unsafe`, without
    /// hedges.
    #[must_use]
    pub fn with_repeatability(mut self, repeatability: Repeatability) -> OperationOptions {
        self.repeatability = repeatability;
        self
    }

    /// Applies what [`Policy::http_request`](crate::Policy::http_request)
    /// made of the request: its repeatability and, when the request carries
    /// its own key, that key (over any the options held, and over a served
    /// request's caller's: a key on the request is the one the server sees).
    #[must_use]
    pub fn with_http_request(mut self, request: crate::outcomes::http::HttpRequest) -> OperationOptions {
        self.repeatability = request.repeatability;
        match request.idempotency_key {
            Some(key) => self.with_idempotency_key(key),
            None => self,
        }
    }

    /// Says that the request's body can be sent only once (a stream that is
    /// read as it is sent). Such a request is sent once: it is never hedged,
    /// and where a retry would follow, the operation gives up with
    /// [`GiveUpReason::BodyNotReplayable`](crate::GiveUpReason::BodyNotReplayable)
    /// instead, so the caller learns why (an ambiguous failure of an unsafe
    /// request still answers reconcile). One behaviour for every helper in
    /// every language: none buffers a body it was handed as a stream, none
    /// refuses it, none retries it.
    ///
    /// ```
    /// use retryplan::{Decision, GiveUpReason, Operation, OperationOptions, Outcome, Policy};
    /// let policy = Policy::from_json(r#"{"max_attempts": 3}"#).unwrap();
    /// let mut operation = Operation::new(&policy, 0, OperationOptions::new(7).with_one_shot_body());
    /// assert!(matches!(operation.poll(0).unwrap(), Decision::StartAttempt { attempt: 1, .. }));
    /// let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
    /// let decision = operation.on_outcome(40, 1, &unavailable).unwrap();
    /// assert!(matches!(decision, Decision::GaveUp { reason: GiveUpReason::BodyNotReplayable, attempts: 1, .. }));
    /// ```
    #[must_use]
    pub fn with_one_shot_body(mut self) -> OperationOptions {
        self.one_shot_body = true;
        self
    }

    /// Applies what the request this operation serves says
    /// ([`IncomingContext::read`](crate::propagation::IncomingContext::read)),
    /// under `policy`'s `propagation` section: the operation ends by the
    /// caller's deadline minus `propagation.reserve_ms` (or earlier, by its
    /// own budget or a deadline already set), runs under the caller's
    /// idempotency key (sent on every attempt, unchanged) unless the host
    /// gave the operation a key of its own (its
    /// [`with_idempotency_key`](OperationOptions::with_idempotency_key), or
    /// the request's own `Idempotency-Key`: one served request may make
    /// several different writes, each under the key its code gave it), and, when the
    /// caller retries and `propagation.retry_layer` is `outermost`, makes
    /// one attempt and no hedge: a failure a retry would follow ends
    /// [`GiveUpReason::AttemptsExhausted`](crate::GiveUpReason::AttemptsExhausted),
    /// handed back for the caller to retry. What the operation then tells
    /// the next hop is [`Operation::outgoing_headers`](crate::Operation::outgoing_headers).
    ///
    /// ```
    /// use retryplan::{propagation::IncomingContext, Decision, GiveUpReason, Operation, OperationOptions, Outcome, Policy};
    /// let policy = Policy::default();
    /// let headers = [("retryplan-timeout-ms", "800"), ("retryplan-caller-retries", "?1")];
    /// let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
    /// let incoming = IncomingContext::read(&policy, 100, lookup).unwrap();
    /// let mut operation = Operation::new(&policy, 100, OperationOptions::new(7).with_incoming(&policy, &incoming));
    /// assert_eq!(operation.deadline_ms(), 880); // 100 + 800 - 20
    /// assert!(matches!(operation.poll(100).unwrap(), Decision::StartAttempt { attempt: 1, .. }));
    /// let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
    /// let ended = operation.on_outcome(150, 1, &unavailable).unwrap();
    /// assert!(matches!(ended, Decision::GaveUp { reason: GiveUpReason::AttemptsExhausted, attempts: 1, .. }));
    /// ```
    #[must_use]
    pub fn with_incoming(
        mut self,
        policy: &crate::Policy,
        incoming: &crate::propagation::IncomingContext,
    ) -> OperationOptions {
        let propagation = policy.propagation();
        if let Some(deadline_ms) = incoming.deadline_ms(propagation.reserve_ms) {
            self.deadline_ms = Some(self.deadline_ms.map_or(deadline_ms, |set| set.min(deadline_ms)));
        }
        if let (Some(key), false) = (&incoming.idempotency_key, self.key_given) {
            self.idempotency_key = Some(key.clone());
            self.key_from_caller = true;
        }
        self.caller_retries = incoming.caller_retries;
        self.retries_delegated =
            incoming.caller_retries && propagation.retry_layer == crate::policy::RetryLayer::Outermost;
        self
    }

    /// A seed and a 128-bit UUID-formatted key from the operating system's
    /// random source (`getrandom`). The only entropy the crate ever reads,
    /// here or in an [`EntropyPool`](super::EntropyPool), which draws it for
    /// several operations in one system call.
    ///
    /// # Errors
    /// [`Error::EntropyUnavailable`] when the random source fails.
    #[cfg(feature = "entropy")]
    pub fn from_entropy() -> Result<OperationOptions, Error> {
        let mut drawn = [0u8; BYTES_PER_OPERATION];
        getrandom::fill(&mut drawn).map_err(|error| Error::EntropyUnavailable { message: error.to_string() })?;
        Ok(OperationOptions::from_drawn(drawn))
    }

    /// Options of one operation's random bits: the seed first, then the key.
    #[cfg(feature = "entropy")]
    pub(super) fn from_drawn(drawn: [u8; BYTES_PER_OPERATION]) -> OperationOptions {
        let (seed, key) = drawn.split_at(8);
        let seed = u64::from_le_bytes(seed.try_into().unwrap_or_default());
        let key = u128::from_le_bytes(key.try_into().unwrap_or_default());
        OperationOptions::from_random(seed, key)
    }

    /// Options from random bits the host drew itself, as
    /// [`from_entropy`](OperationOptions::from_entropy) draws them: a seed and
    /// 128 bits for a UUID-formatted key. For a host whose own random source is
    /// cheaper to reach in bulk than `getrandom` (the wasm build draws from
    /// `crypto.getRandomValues` in batches).
    ///
    /// ```
    /// use retryplan::{Operation, OperationOptions, Policy};
    /// let policy = Policy::from_json("{}").unwrap();
    /// let operation = Operation::new(&policy, 0, OperationOptions::from_random(7, u128::MAX));
    /// assert_eq!(operation.idempotency_key().as_str(), "ffffffff-ffff-4fff-bfff-ffffffffffff");
    /// // The seed is 7: the request ids are those of `new(7)`.
    /// let seven = Operation::new(&policy, 0, OperationOptions::new(7));
    /// assert_eq!(operation.request_id(1), seven.request_id(1));
    /// ```
    #[must_use]
    pub fn from_random(seed: u64, key_bits: u128) -> OperationOptions {
        // A drawn key, not a given one: a served request's caller's key replaces it.
        OperationOptions { idempotency_key: Some(IdempotencyKey::from_bits(key_bits)), ..OperationOptions::new(seed) }
    }
}
