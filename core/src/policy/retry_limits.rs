//! Limits beside `max_attempts`: how many retries each kind of failure may
//! have (`retry_limits`), and which HTTP methods are retried at all
//! (`retry_methods`), so a urllib3 `Retry` maps onto a policy without loss.
//!
//! **`retry_limits`** (each field optional; absent or `null` is no limit but
//! `max_attempts`):
//!
//! | field | counts failures of kind | outcomes |
//! |---|---|---|
//! | `connect` | the connection was not made: the request never left | `transport` `not_sent` |
//! | `read` | the connection broke or timed out after sending | `transport` `connection_lost`, `timed_out` |
//! | `status` | the server answered with a retryable status | `http_status`, `grpc_status` |
//! | `other` | anything else the application judged retryable | `application` `retryable` |
//!
//! A limit `n` allows `n` retries after failures of that kind: the `n + 1`-th
//! such failure gives up with `attempts_exhausted`, as urllib3's
//! `Retry(connect=n, read=n, status=n, other=n)` raises `MaxRetryError`.
//!
//! **`retry_methods`** (absent or `null`: RFC 9110 decides alone): the HTTP
//! methods the policy retries, from GET, HEAD, POST, PUT, DELETE, CONNECT,
//! OPTIONS, TRACE, PATCH and QUERY. A listed method may be repeated (the
//! policy says so, as urllib3's `allowed_methods`); an unlisted one is tried
//! again only when its request never left (`not_sent`) or the application
//! judges the failure retryable: a status or a failure after sending ends the
//! operation (`not_retryable`, or `reconcile` for a request RFC 9110 does not
//! call idempotent whose outcome is ambiguous). See
//! [`Policy::http_request`](super::Policy::http_request).

use alloc::string::String;
use alloc::vec::Vec;

use super::config::{RetryLimitsConfig, RETRY_LIMIT};
use crate::config::error::Violation;
use crate::config::value::join;
use crate::ground::message::message;

/// The kinds of failure `retry_limits` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The request never left.
    Connect,
    /// The connection broke or timed out after sending.
    Read,
    /// A retryable status or code.
    Status,
    /// An application verdict.
    Other,
}

impl FailureKind {
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// Validated `retry_limits`, indexed by [`FailureKind`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RetryLimits {
    limits: [Option<u32>; 4],
}

impl RetryLimits {
    /// The limit for `kind`, if any.
    #[must_use]
    pub fn get(&self, kind: FailureKind) -> Option<u32> {
        self.limits.get(kind.index()).copied().flatten()
    }

    /// True when the `failures`-th failure of `kind` (1 for the first) is one
    /// more than the kind's limit allows retries for.
    #[must_use]
    pub fn exhausted(&self, kind: FailureKind, failures: u32) -> bool {
        self.get(kind).is_some_and(|limit| failures > limit)
    }

    /// The limits as configuration.
    #[must_use]
    pub fn to_config(&self) -> RetryLimitsConfig {
        RetryLimitsConfig {
            connect: self.get(FailureKind::Connect),
            read: self.get(FailureKind::Read),
            status: self.get(FailureKind::Status),
            other: self.get(FailureKind::Other),
        }
    }

    /// The limits of a compiled form, indexed by [`FailureKind`]: its reader
    /// refuses a limit of [`MAX_ATTEMPTS_LIMIT`](super::MAX_ATTEMPTS_LIMIT) or more before they come here.
    pub(super) fn from_limits(limits: [Option<u32>; 4]) -> RetryLimits {
        RetryLimits { limits }
    }

    pub(super) fn new(config: &RetryLimitsConfig, violations: &mut Vec<Violation>) -> RetryLimits {
        let fields =
            [("connect", config.connect), ("read", config.read), ("status", config.status), ("other", config.other)];
        for (name, limit) in fields {
            if let Some(limit) = limit {
                violations.extend(RETRY_LIMIT.check(&join("retry_limits", name), limit.into()));
            }
        }
        RetryLimits { limits: [config.connect, config.read, config.status, config.other] }
    }
}

/// Counts failures by kind within one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KindCounts([u32; 4]);

impl KindCounts {
    /// Counts one failure of `kind` and returns how many there have been.
    pub(crate) fn count(&mut self, kind: FailureKind) -> u32 {
        match self.0.get_mut(kind.index()) {
            Some(slot) => {
                *slot = slot.saturating_add(1);
                *slot
            }
            None => 0,
        }
    }
}

/// The methods `retry_methods` may name, in bit order.
pub const RETRY_METHODS: [&str; 10] =
    ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY"];

/// A set of HTTP methods from [`RETRY_METHODS`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MethodSet(u16);

impl MethodSet {
    /// True when `method` (case-sensitive) is in the set.
    #[must_use]
    pub fn contains(&self, method: &str) -> bool {
        RETRY_METHODS.iter().position(|known| *known == method).is_some_and(|bit| self.0 & (1 << bit) != 0)
    }

    /// The methods in the set, in [`RETRY_METHODS`] order.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        RETRY_METHODS.iter().enumerate().filter(|(bit, _)| self.0 & (1 << bit) != 0).map(|(_, name)| *name)
    }

    /// The set as bits, bit `i` for `RETRY_METHODS[i]` (a compiled form's encoding).
    pub(super) fn bits(self) -> u16 {
        self.0
    }

    /// The set of `bits`, if every bit set names a method of [`RETRY_METHODS`].
    pub(super) fn from_bits(bits: u16) -> Option<MethodSet> {
        (bits >> RETRY_METHODS.len() == 0).then_some(MethodSet(bits))
    }

    pub(super) fn new(methods: &[String], violations: &mut Vec<Violation>) -> MethodSet {
        let mut set = MethodSet(0);
        for (index, method) in methods.iter().enumerate() {
            match RETRY_METHODS.iter().position(|known| known == method) {
                Some(bit) => set.0 |= 1 << bit,
                None => violations.push(Violation::new(
                    "retry_methods",
                    message!(UnknownMethod, index, method, RETRY_METHODS.join(", ")),
                )),
            }
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_count_retries() {
        let mut violations = Vec::new();
        let limits =
            RetryLimits::new(&RetryLimitsConfig { connect: Some(2), ..RetryLimitsConfig::default() }, &mut violations);
        assert!(violations.is_empty());
        assert!(!limits.exhausted(FailureKind::Connect, 2));
        assert!(limits.exhausted(FailureKind::Connect, 3));
        assert!(!limits.exhausted(FailureKind::Read, 99));
        let zero =
            RetryLimits::new(&RetryLimitsConfig { read: Some(0), ..RetryLimitsConfig::default() }, &mut violations);
        assert!(zero.exhausted(FailureKind::Read, 1));
        RetryLimits::new(&RetryLimitsConfig { other: Some(128), ..RetryLimitsConfig::default() }, &mut violations);
        assert_eq!(violations.first().map(|v| v.field.as_str()), Some("retry_limits.other"));
    }

    #[test]
    fn method_sets() {
        let mut violations = Vec::new();
        let set = MethodSet::new(&["GET".to_owned(), "PUT".to_owned()], &mut violations);
        assert!(set.contains("GET") && set.contains("PUT") && !set.contains("POST") && !set.contains("get"));
        assert_eq!(set.iter().collect::<Vec<_>>(), ["GET", "PUT"]);
        MethodSet::new(&["get".to_owned()], &mut violations);
        assert_eq!(violations.len(), 1);
    }
}
