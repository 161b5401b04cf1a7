//! Grants: what a shared control hands out and takes back.
//!
//! A [`CircuitBreaker`](crate::CircuitBreaker) grants [`BreakerPermit`]s, a
//! [`RetryBudget`](crate::RetryBudget) [`RetryCharge`]s and a
//! [`RetrySlots`](crate::RetrySlots) [`RetrySlot`]s. Each grant
//! is an owned token, and the rules are the same for all three:
//!
//! - **Single use.** A grant is settled once: a permit by one result or one
//!   release, a charge by one success (refunded) or one failure (spent), a
//!   slot by one release. Settling takes the token by value, so in Rust a
//!   second report does not compile. A host that keeps grants in objects of
//!   its own (the bindings) keeps each in a [`GrantCell`], which refuses a
//!   second use with [`Error::InvalidArgument`].
//! - **Owned by its control.** No grant can be made by hand (no public
//!   constructor, no `Clone`), and a control refuses one it did not issue
//!   ([`Error::InvalidArgument`] naming `permit`, `charge` or `slot`), so a
//!   permit of breaker A never changes breaker B and a charge refunds exactly
//!   what was charged. A refused grant goes back to the control that issued
//!   it as if dropped.
//! - **Never leaked.** A grant dropped unsettled is given back: a permit as
//!   a release (a half-open probe is freed), a slot as a release, a charge as
//!   spent. A control counts its grants still out
//!   ([`CircuitBreaker::permits_outstanding`](crate::CircuitBreaker::permits_outstanding), ...).
//!
//! [`RetryBudget::acquire`](crate::RetryBudget::acquire) and
//! [`RetryBudget::release`](crate::RetryBudget::release) are outside these
//! rules on purpose: they are the AWS SDKs' raw quota calls, in units, for a
//! host that mirrors botocore's own bookkeeping; a retry loop uses
//! [`RetryBudget::try_retry`](crate::RetryBudget::try_retry) and its charge.
//!
//! A misused grant is an error, not a silent no-op, as every misuse of the
//! engine is ([`crate::config::error`]); it names the argument, and a control's own
//! state never changes on a refusal. An [`Operation`](crate::Operation)
//! settles each grant it takes exactly once, so it never meets these errors.
//!
//! [`BreakerPermit`]: crate::controls::breaker::BreakerPermit
//! [`RetryCharge`]: crate::controls::budget::RetryCharge
//! [`RetrySlot`]: crate::controls::retry_slots::RetrySlot

use crate::config::error::Error;
use crate::ground::lock::{Lock, Shared, SharedWeak};
use crate::ground::message::message;

/// A token a control hands out: [`BreakerPermit`], [`RetryCharge`] or [`RetrySlot`].
/// Each control's module implements it for its own grant (this module knows
/// no control), and only they can: the trait is sealed.
///
/// [`BreakerPermit`]: crate::controls::breaker::BreakerPermit
/// [`RetryCharge`]: crate::controls::budget::RetryCharge
/// [`RetrySlot`]: crate::controls::retry_slots::RetrySlot
pub trait Grant: sealed::Sealed {
    /// The argument name in errors: `permit`, `charge` or `slot`.
    const ARGUMENT: &'static str;
}

/// Seals [`Grant`]: a type outside the crate cannot name `Sealed`, so it
/// cannot be a grant.
pub(crate) mod sealed {
    pub trait Sealed {}
}

/// A grant kept in a host's object until it is settled: [`take`](GrantCell::take)
/// hands it out once and refuses every later use. `Send + Sync` with the
/// standard library (the `no_std` build is single-threaded).
///
/// ```
/// use retryplan::{config::grant::GrantCell, CircuitBreaker};
/// use retryplan::controls::breaker::{BreakerConfig, TripConfig};
/// let breaker = CircuitBreaker::new(&BreakerConfig {
///     trip: TripConfig::Consecutive { failures: 1 }, open_ms: 1000, half_open_probes: 1,
/// }).unwrap();
/// let permit = GrantCell::new(breaker.try_acquire(0).unwrap());
/// breaker.on_success(1, permit.take().unwrap()).unwrap();
/// assert_eq!(permit.take().unwrap_err().code(), "invalid_argument");
/// ```
#[derive(Debug)]
pub struct GrantCell<T: Grant>(Lock<Option<T>>);

impl<T: Grant> GrantCell<T> {
    /// Keeps `grant` until it is taken.
    #[must_use]
    pub fn new(grant: T) -> GrantCell<T> {
        GrantCell(Lock::new(Some(grant)))
    }

    /// The grant, the first time; afterwards [`Error::InvalidArgument`]
    /// naming the grant (`permit`, `charge` or `slot`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the grant was already taken.
    pub fn take(&self) -> Result<T, Error> {
        self.0.lock().take().ok_or_else(|| Error::InvalidArgument { field: T::ARGUMENT, rule: message!(GrantSettled) })
    }

    /// True once the grant was taken.
    #[must_use]
    pub fn is_settled(&self) -> bool {
        self.0.lock().is_none()
    }
}

/// The error for a grant that another control issued.
pub(crate) fn foreign<T: Grant>(control: &'static str) -> Error {
    Error::InvalidArgument { field: T::ARGUMENT, rule: message!(GrantForeign, control) }
}

/// True when `owner` (a grant's back-reference) points at `control`.
pub(crate) fn issued_by<S>(owner: &SharedWeak<S>, control: &Shared<S>) -> bool {
    core::ptr::eq(owner.as_ptr(), Shared::as_ptr(control))
}
