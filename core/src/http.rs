//! The HTTP conventions every binding's HTTP helper follows, in one place.
//!
//! - Send the operation's idempotency key in [`IDEMPOTENCY_KEY_HEADER`] when
//!   [`Policy::sends_idempotency_key`] says so (keyed and unsafe operations:
//!   the server deduplicates by it, or records it so the outcome can be
//!   reconciled); the same key on every attempt.
//! - If the caller already set that header, its value is the operation's key
//!   ([`IdempotencyKey::new`](crate::IdempotencyKey::new) checks it): never
//!   replace a key the caller chose.
//! - Send a fresh request id per attempt in [`REQUEST_ID_HEADER`].
//! - Read server guidance from `Retry-After` and from the first readable of
//!   [`RETRY_AFTER_MS_HEADERS`], through
//!   [`Outcome::from_http`](crate::Outcome::from_http).

use crate::policy::{Idempotency, Policy};

/// The header carrying the operation's idempotency key.
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";

/// The header carrying each attempt's request id.
pub const REQUEST_ID_HEADER: &str = "X-Request-Id";

/// The millisecond guidance headers, in the order they are consulted.
pub const RETRY_AFTER_MS_HEADERS: [&str; 2] = ["retry-after-ms", "x-ms-retry-after-ms"];

impl Policy {
    /// True when requests carry the idempotency key header: for keyed
    /// operations (the server deduplicates by it) and unsafe ones (it names
    /// the operation when its outcome must be reconciled). Safe and idempotent
    /// operations need no key.
    ///
    /// ```
    /// let keyed = retryplan::Policy::from_json(r#"{"idempotency": "keyed"}"#).unwrap();
    /// assert!(keyed.sends_idempotency_key());
    /// assert!(!retryplan::Policy::default().sends_idempotency_key());
    /// ```
    #[must_use]
    pub fn sends_idempotency_key(&self) -> bool {
        matches!(self.idempotency, Idempotency::Keyed | Idempotency::Unsafe)
    }
}
