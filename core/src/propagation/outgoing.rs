//! Writing headers: an attempt's request headers and the answer's "do not
//! retry", as [`Driver::outgoing_headers`](crate::Driver::outgoing_headers)
//! and [`Driver::answer_headers`](crate::Driver::answer_headers) compute them.

use alloc::string::String;
use alloc::vec::Vec;

use crate::config::idempotency_key::IdempotencyKey;
use crate::headers::grpc_timeout::encode_grpc_timeout_ns;
use crate::outcomes::classify::{GrpcCode, Outcome};
use crate::outcomes::decision::{Decision, GiveUpReason};

use super::{
    GRPC_PREVIOUS_RPC_ATTEMPTS, GRPC_RETRY_PUSHBACK_MS, GRPC_TIMEOUT, IDEMPOTENCY_KEY, RETRYPLAN_ATTEMPT,
    RETRYPLAN_CALLER_RETRIES, RETRYPLAN_RETRYABLE, RETRYPLAN_TIMEOUT_MS,
};

const NS_PER_MS: u64 = 1_000_000;

/// What the next hop speaks, which decides the headers written for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Plain HTTP: the project's own headers and `idempotency-key`.
    Http,
    /// gRPC: `grpc-timeout` in exact units, `grpc-previous-rpc-attempts`,
    /// `grpc-retry-pushback-ms`, and the project's own for the rest.
    Grpc,
}

impl Protocol {
    /// Every protocol, in declaration order.
    pub const ALL: [Protocol; 2] = [Protocol::Http, Protocol::Grpc];
}

impl crate::ground::named::Named for Protocol {
    const ALL: &'static [Self] = &Protocol::ALL;
    fn name(self) -> &'static str {
        match self {
            Protocol::Http => "http",
            Protocol::Grpc => "grpc",
        }
    }
}

/// Headers to write, in order: lower-case names and their values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderList {
    entries: Vec<(&'static str, String)>,
}

impl HeaderList {
    fn push(&mut self, name: &'static str, value: String) {
        self.entries.push((name, value));
    }

    /// Each header's name and value, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.entries.iter().map(|(name, value)| (*name, value.as_str()))
    }

    /// The value of header `name`, if written.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter().find(|(written, _)| *written == name).map(|(_, value)| value)
    }

    /// How many headers.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there is nothing to write.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The request headers of attempt `attempt`, sent with `timeout_ms` left
/// for it (its abort time minus now): the deadline, the attempt count, the
/// key when it is sent, and whether a layer above the next hop retries.
pub(crate) fn request_headers(
    protocol: Protocol,
    attempt: u32,
    timeout_ms: u64,
    key: Option<&IdempotencyKey>,
    retried_above: bool,
) -> HeaderList {
    let mut headers = HeaderList::default();
    match protocol {
        Protocol::Grpc => {
            headers.push(GRPC_TIMEOUT, encode_grpc_timeout_ns(timeout_ms.saturating_mul(NS_PER_MS)));
            // gRPC sends it on retries and hedges only (gRFC A6).
            if attempt > 1 {
                headers.push(GRPC_PREVIOUS_RPC_ATTEMPTS, decimal(u64::from(attempt - 1)));
            }
        }
        Protocol::Http => {
            headers.push(RETRYPLAN_TIMEOUT_MS, decimal(timeout_ms));
            headers.push(RETRYPLAN_ATTEMPT, decimal(u64::from(attempt)));
        }
    }
    if let Some(key) = key {
        headers.push(IDEMPOTENCY_KEY, key.as_str().into());
    }
    headers.push(RETRYPLAN_CALLER_RETRIES, String::from(if retried_above { "?1" } else { "?0" }));
    headers
}

/// `number` in decimal digits, without the formatter (the wasm builds carry
/// no formatting machinery).
fn decimal(number: u64) -> String {
    let mut out = String::new();
    crate::ground::text::push_decimal(&mut out, number);
    out
}

/// Whether an operation that ended with `decision`, its last attempt's
/// outcome `last_outcome`, tells its caller not to retry (a driver's
/// [`Ending`](crate::Ending) holds both): the layer gave up because of
/// overload or its retry budget, or was itself told so.
///
/// - `budget_exhausted`, `circuit_open`, `no_retry_slot`: this layer's
///   dependency refused a retry to protect an overloaded service (the
///   Google SRE book, "Handling Overload": answer "overloaded; don't retry"
///   so the layers above do not multiply the load);
/// - `server_declined_retry`: the next hop said so, and it holds for the
///   whole chain;
/// - `attempts_exhausted` after more than one attempt whose last answer was
///   an overload (HTTP 429 or 503, gRPC `RESOURCE_EXHAUSTED`): this layer
///   retried and the service is still overloaded.
///
/// Any other ending (a success, a non-retryable answer, a deadline, a layer
/// that made one attempt because its caller retries) leaves the caller's
/// policy to decide.
#[must_use]
pub fn answers_do_not_retry(decision: &Decision, last_outcome: Option<&Outcome>) -> bool {
    match *decision {
        Decision::GaveUp {
            reason:
                GiveUpReason::BudgetExhausted
                | GiveUpReason::CircuitOpen
                | GiveUpReason::NoRetrySlot
                | GiveUpReason::ServerDeclinedRetry,
            ..
        } => true,
        Decision::GaveUp { reason: GiveUpReason::AttemptsExhausted, attempts, .. } if attempts > 1 => {
            last_outcome.is_some_and(is_overload)
        }
        _ => false,
    }
}

/// An answer that says the service is overloaded.
fn is_overload(outcome: &Outcome) -> bool {
    matches!(
        outcome,
        Outcome::HttpStatus { status: 429 | 503, .. } | Outcome::GrpcStatus { code: GrpcCode::ResourceExhausted, .. }
    )
}

/// The answer's headers for `protocol`: "do not retry" or nothing.
pub(crate) fn answer_headers(protocol: Protocol, do_not_retry: bool) -> HeaderList {
    let mut headers = HeaderList::default();
    if do_not_retry {
        match protocol {
            Protocol::Grpc => headers.push(GRPC_RETRY_PUSHBACK_MS, String::from("-1")),
            Protocol::Http => headers.push(RETRYPLAN_RETRYABLE, String::from("?0")),
        }
    }
    headers
}

/// Whether a response's `retryplan-retryable` value says "do not retry":
/// anything but `?1` (surrounding spaces and tabs ignored), as gRFC A6
/// reads an unparseable pushback.
pub(crate) fn declines_retry(value: &str) -> bool {
    value.trim_matches([' ', '\t']) != "?1"
}
