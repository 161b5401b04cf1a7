//! The failure vocabulary ([`Failure`]): what a host observes when an attempt
//! fails below the application protocol, mapped once to the engine's
//! [`Outcome`], a transport class ([`TransportFailure`]: may the request
//! have reached the server?) or `cancelled`.
//!
//! Every binding keeps exactly one table from its platform's errors (Node's
//! `cause.code`s and `DOMException` names; Python's builtins, httpx and
//! `requests`; Java's `ConnectException`, `UnknownHostException`, ...) to a
//! [`Failure`]; this module decides what each one means, so a DNS failure is
//! `not_sent` in every language and a reset after sending is `connection_lost`.
//!
//! The split that matters is whether the request may have reached the server:
//!
//! | failure | outcome | why |
//! |---|---|---|
//! | `dns_lookup_failed`, `connection_refused`, `unreachable`, `connect_timeout`, `tls_handshake_failed`, `pool_timeout` | `not_sent` | no byte of the request left: always safe to repeat |
//! | `write_failed`, `connection_lost`, `body_broken`, `malformed_response` | `connection_lost` | the request was (partly) sent: it may have been processed |
//! | `read_timeout`, `attempt_timed_out` | `timed_out` | sent, then no (complete) answer in time |
//! | `cancelled` | `cancelled` | the caller abandoned the attempt and the operation |
//!
//! Two things are deliberately *not* failures: an error raised because the
//! request itself is invalid (a malformed URL, a bad header value) is the
//! caller's mistake, which a helper rethrows unchanged; and an error of the
//! application's own code is an application outcome, decided by the helper's
//! mapping hook (default: not retryable).

use crate::config::error::Error;
use crate::ground::message::message;
use crate::ground::named::Named;
use crate::outcomes::classify::{Outcome, TransportFailure};

/// How many wrapped errors a host looks through, below the one it caught, for
/// a failure its table recognises (following each platform's own link: a
/// JS `cause`, a Python `__cause__`/`__context__` or urllib3's `reason`, a
/// Java `cause`). One depth in every language, so an error wrapped three
/// times is the same failure everywhere; eight is deeper than any HTTP
/// client wraps (requests: `ConnectionError` > `MaxRetryError` >
/// `NewConnectionError` > `ConnectionRefusedError`).
pub const MAX_CAUSE_DEPTH: usize = 8;

/// What a host saw go wrong with an attempt, named the same in every language:
/// the failure vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Failure {
    /// The host name could not be resolved.
    DnsLookupFailed,
    /// The server refused the connection.
    ConnectionRefused,
    /// No route to the network or the host.
    Unreachable,
    /// The connection could not be made in time.
    ConnectTimeout,
    /// The TLS handshake failed (before any request byte was sent).
    TlsHandshakeFailed,
    /// No pooled connection became free in time.
    PoolTimeout,
    /// The connection broke while the request was being written.
    WriteFailed,
    /// The connection was reset or closed after the request was sent, before
    /// a complete response arrived.
    ConnectionLost,
    /// No (complete) response arrived within the read timeout.
    ReadTimeout,
    /// The response started, then its body broke off mid-stream.
    BodyBroken,
    /// The server's answer could not be read as a response (a status outside
    /// 100..=599, an interim 1xx but 101 given as the answer, a malformed
    /// header block): the server's fault, and the request may have been
    /// processed.
    MalformedResponse,
    /// The attempt ran to its abort time (`abort_at_ms`) and was aborted.
    AttemptTimedOut,
    /// The caller abandoned the attempt (its abort signal fired, its task or
    /// coroutine was cancelled).
    Cancelled,
}

impl Failure {
    /// Every failure, in declaration order.
    pub const ALL: [Failure; 13] = [
        Failure::DnsLookupFailed,
        Failure::ConnectionRefused,
        Failure::Unreachable,
        Failure::ConnectTimeout,
        Failure::TlsHandshakeFailed,
        Failure::PoolTimeout,
        Failure::WriteFailed,
        Failure::ConnectionLost,
        Failure::ReadTimeout,
        Failure::BodyBroken,
        Failure::MalformedResponse,
        Failure::AttemptTimedOut,
        Failure::Cancelled,
    ];

    /// The stable snake_case name used at every language edge.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Failure::DnsLookupFailed => "dns_lookup_failed",
            Failure::ConnectionRefused => "connection_refused",
            Failure::Unreachable => "unreachable",
            Failure::ConnectTimeout => "connect_timeout",
            Failure::TlsHandshakeFailed => "tls_handshake_failed",
            Failure::PoolTimeout => "pool_timeout",
            Failure::WriteFailed => "write_failed",
            Failure::ConnectionLost => "connection_lost",
            Failure::ReadTimeout => "read_timeout",
            Failure::BodyBroken => "body_broken",
            Failure::MalformedResponse => "malformed_response",
            Failure::AttemptTimedOut => "attempt_timed_out",
            Failure::Cancelled => "cancelled",
        }
    }

    /// The failure called `name`, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Failure> {
        <Failure as Named>::from_name(name)
    }

    /// What the failure means to the engine (see the module table).
    ///
    /// ```
    /// use retryplan::{Failure, Outcome};
    /// use retryplan::ground::codes::TransportFailure;
    /// let not_sent = Outcome::Transport { failure: TransportFailure::NotSent, retry_after_ms: None };
    /// assert_eq!(Failure::DnsLookupFailed.outcome(), not_sent);
    /// let lost = Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None };
    /// assert_eq!(Failure::BodyBroken.outcome(), lost);
    /// ```
    #[must_use]
    pub fn outcome(self) -> Outcome {
        let failure = match self {
            Failure::DnsLookupFailed
            | Failure::ConnectionRefused
            | Failure::Unreachable
            | Failure::ConnectTimeout
            | Failure::TlsHandshakeFailed
            | Failure::PoolTimeout => TransportFailure::NotSent,
            Failure::WriteFailed | Failure::ConnectionLost | Failure::BodyBroken | Failure::MalformedResponse => {
                TransportFailure::ConnectionLost
            }
            Failure::ReadTimeout | Failure::AttemptTimedOut => TransportFailure::TimedOut,
            Failure::Cancelled => return Outcome::Cancelled,
        };
        Outcome::Transport { failure, retry_after_ms: None }
    }

    /// The failure's outcome with a wait the server asked for along with it
    /// (`retry_after_ms`, ms from now; see [`Outcome::Transport`]).
    ///
    /// ```
    /// use retryplan::{Failure, Outcome};
    /// use retryplan::ground::codes::TransportFailure;
    /// let timed_out = Outcome::Transport { failure: TransportFailure::TimedOut, retry_after_ms: Some(1_500) };
    /// assert_eq!(Failure::ReadTimeout.outcome_after(Some(1_500)), Ok(timed_out));
    /// assert_eq!(Failure::ConnectionLost.outcome_after(None), Ok(Failure::ConnectionLost.outcome()));
    /// assert!(Failure::Cancelled.outcome_after(Some(1_500)).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `retry_after_ms` for
    /// [`Failure::Cancelled`] with a wait: the caller's cancel carries no
    /// server guidance.
    pub fn outcome_after(self, retry_after_ms: Option<u64>) -> Result<Outcome, Error> {
        match (self.outcome(), retry_after_ms) {
            (Outcome::Transport { failure, .. }, retry_after_ms) => Ok(Outcome::Transport { failure, retry_after_ms }),
            (outcome, None) => Ok(outcome),
            (_, Some(_)) => {
                Err(Error::InvalidArgument { field: "retry_after_ms", rule: message!(CancelHasNoServerDelay) })
            }
        }
    }
}

impl Named for Failure {
    const ALL: &'static [Self] = &Failure::ALL;
    fn name(self) -> &'static str {
        Failure::name(self)
    }
}

impl core::fmt::Display for Failure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for failure in Failure::ALL {
            assert_eq!(Failure::from_name(failure.name()), Some(failure));
        }
        let mut names: Vec<&str> = Failure::ALL.iter().map(|failure| failure.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Failure::ALL.len());
        assert_eq!(Failure::from_name("DNS_LOOKUP_FAILED"), None);
    }

    #[test]
    fn nothing_sent_is_never_ambiguous_and_anything_sent_is() {
        for failure in Failure::ALL {
            match failure.outcome() {
                Outcome::Transport { failure: transport, retry_after_ms: None } => {
                    let before_sending = matches!(
                        failure,
                        Failure::DnsLookupFailed
                            | Failure::ConnectionRefused
                            | Failure::Unreachable
                            | Failure::ConnectTimeout
                            | Failure::TlsHandshakeFailed
                            | Failure::PoolTimeout
                    );
                    assert_eq!(transport.may_have_been_processed(), !before_sending, "{failure}");
                }
                Outcome::Cancelled => assert_eq!(failure, Failure::Cancelled),
                other => panic!("{failure} maps to {other:?}"),
            }
        }
    }
}
