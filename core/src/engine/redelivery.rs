//! Background redelivery: a stateless decision for queue workers.
//!
//! A queue message is delivered, processed, and either acknowledged or handed
//! back. [`redeliver`] decides from the policy, how many deliveries there
//! were, when the message was first seen, the time now and the outcome of
//! this delivery alone — the worker keeps no retry state; the queue carries the
//! count and the first-seen time.
//!
//! The delay schedule is the policy's `redelivery.delays_ms` (the last delay
//! repeats), or its backoff ceilings when the policy has no `redelivery`
//! section (from `backoff.throttling_base_ms` after a throttling error);
//! `max_attempts` bounds the deliveries and `redelivery.max_age_ms` (default:
//! `total_timeout_ms`) bounds the message's age at its next delivery. Server
//! guidance raises a delay as for an operation (at most
//! `server_guidance.max_above_backoff_ms` above the scheduled delay). A conflict is
//! redelivered (the next delivery re-reads the state: that is the restart), so
//! is a cancelled delivery (the worker stopped, the message is still due); an
//! ambiguous outcome of an unsafe operation is dead-lettered for
//! reconciliation, never redelivered.

use serde::{Deserialize, Serialize};

use crate::config::error::Error;
use crate::engine::backoff::policy_ceiling_ms;
use crate::engine::guidance::RetryAfterWait;
use crate::ground::message::message;
use crate::outcomes::classify::{classify, Class, Outcome};
#[doc(no_inline)]
pub use crate::policy::config::{RedeliveryConfig, MAX_REDELIVERY_DELAYS};
#[doc(no_inline)]
pub use crate::policy::validated::RedeliverySchedule;
use crate::policy::{Idempotency, Policy};

/// Why a message goes to the dead-letter queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeadLetterReason {
    /// This was the last delivery `max_attempts` allows.
    AttemptsExhausted,
    /// The next delivery would come after `max_age_ms`.
    MaxAgeExceeded,
    /// The outcome is not worth another delivery.
    NotRetryable,
    /// An unsafe operation may have taken effect: reconcile, do not redeliver.
    UnsafeToRepeat,
    /// The server asked for a wait above the policy's cap, and the policy gives up there.
    RetryAfterAboveCap,
    /// The server's gRPC pushback said not to retry.
    ServerDeclinedRetry,
}

impl crate::ground::named::Named for DeadLetterReason {
    const ALL: &'static [Self] = &[
        DeadLetterReason::AttemptsExhausted,
        DeadLetterReason::MaxAgeExceeded,
        DeadLetterReason::NotRetryable,
        DeadLetterReason::UnsafeToRepeat,
        DeadLetterReason::RetryAfterAboveCap,
        DeadLetterReason::ServerDeclinedRetry,
    ];
    fn name(self) -> &'static str {
        match self {
            DeadLetterReason::AttemptsExhausted => "attempts_exhausted",
            DeadLetterReason::MaxAgeExceeded => "max_age_exceeded",
            DeadLetterReason::NotRetryable => "not_retryable",
            DeadLetterReason::UnsafeToRepeat => "unsafe_to_repeat",
            DeadLetterReason::RetryAfterAboveCap => "retry_after_above_cap",
            DeadLetterReason::ServerDeclinedRetry => "server_declined_retry",
        }
    }
}

crate::ground::named::named_serde!(DeadLetterReason);

/// What to do with a message after one delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Redelivery {
    /// It succeeded: acknowledge it.
    Acknowledge,
    /// Hand it back to be delivered again after `delay_ms` (at `redeliver_at_ms`).
    RedeliverAfter {
        /// The delay.
        delay_ms: u64,
        /// now + delay.
        redeliver_at_ms: u64,
    },
    /// Move it to the dead-letter queue.
    DeadLetter {
        /// Why.
        reason: DeadLetterReason,
    },
}

/// Decides what happens to a message after delivery number `attempts`
/// (1 for the first) that ended with `outcome`.
///
/// ```
/// use retryplan::{Outcome, Policy};
/// use retryplan::engine::redelivery::{redeliver, Redelivery};
/// let policy = Policy::from_json(r#"{"max_attempts": 5, "total_timeout_ms": 3600000,
///     "redelivery": {"delays_ms": [5000, 30000, 120000], "max_age_ms": 3600000}}"#).unwrap();
/// let failed = Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None };
/// assert_eq!(redeliver(&policy, 2, 0, 10_000, &failed).unwrap(),
///            Redelivery::RedeliverAfter { delay_ms: 30_000, redeliver_at_ms: 40_000 });
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `attempts` 0 or an HTTP status outside 100..=599.
pub fn redeliver(
    policy: &Policy,
    attempts: u32,
    first_seen_ms: u64,
    now_ms: u64,
    outcome: &Outcome,
) -> Result<Redelivery, Error> {
    if attempts == 0 {
        return Err(Error::InvalidArgument { field: "attempts", rule: message!(NoDeliveries) });
    }
    let dead = |reason| Ok(Redelivery::DeadLetter { reason });
    let class = classify(policy, outcome)?;
    match class {
        Class::Success => return Ok(Redelivery::Acknowledge),
        Class::NotRetryable => return dead(DeadLetterReason::NotRetryable),
        Class::Retryable { ambiguous: true, .. } if policy.idempotency == Idempotency::Unsafe => {
            return dead(DeadLetterReason::UnsafeToRepeat)
        }
        Class::Retryable { .. } | Class::Conflict | Class::Cancelled => {}
    }
    if attempts >= policy.max_attempts {
        return dead(DeadLetterReason::AttemptsExhausted);
    }
    let retry_after_ms = match policy.server_guidance.apply(outcome) {
        RetryAfterWait::None => 0,
        RetryAfterWait::AtLeastMs(ms) => ms,
        RetryAfterWait::DoNotRetry => return dead(DeadLetterReason::ServerDeclinedRetry),
        RetryAfterWait::AboveCap { .. } => return dead(DeadLetterReason::RetryAfterAboveCap),
    };
    let redelivery = attempts - 1;
    let (scheduled_ms, max_age_ms) = match policy.redelivery {
        Some(schedule) => {
            let index = usize::try_from(redelivery).unwrap_or(usize::MAX).min(schedule.len.saturating_sub(1));
            (schedule.delays_ms.get(index).copied().unwrap_or(0), schedule.max_age_ms)
        }
        None => {
            let after_throttling = matches!(class, Class::Retryable { throttling: true, .. });
            (policy_ceiling_ms(policy, redelivery, after_throttling), policy.total_timeout_ms)
        }
    };
    let retry_after_ms = policy.server_guidance.bound_above_backoff(retry_after_ms, scheduled_ms);
    let delay_ms = scheduled_ms.max(retry_after_ms);
    let redeliver_at_ms = now_ms.saturating_add(delay_ms);
    if redeliver_at_ms.saturating_sub(first_seen_ms) > max_age_ms {
        return dead(DeadLetterReason::MaxAgeExceeded);
    }
    Ok(Redelivery::RedeliverAfter { delay_ms, redeliver_at_ms })
}
