//! One deadline and one retrying layer across hops: what a service reads
//! from the request it serves, what it writes on the requests it makes, and
//! what it answers its caller when it gives up.
//!
//! A host does three things, each a call into the core (it computes none of
//! these values itself):
//!
//! 1. **Read the incoming request** through its header lookup, at `now`:
//!    [`IncomingContext::read`] reads the caller's remaining deadline, the
//!    attempts the caller has made, the idempotency key and whether the
//!    caller retries, as the policy's `propagation.read_headers` says.
//! 2. **Start the driver with it**: [`Driver::with_incoming`](crate::Driver::with_incoming).
//!    The operation then ends by `now + caller's remaining - propagation.reserve_ms`
//!    (no attempt's timeout reaches past it, and when too little remains it
//!    gives up `deadline_insufficient` as any deadline does), runs under the
//!    caller's idempotency key (unless the host gave the operation its own:
//!    [`OperationOptions::with_idempotency_key`](crate::OperationOptions::with_idempotency_key),
//!    or the request's own `Idempotency-Key`), and under `propagation.retry_layer`
//!    `outermost` makes one attempt when the caller retries.
//! 3. **Write each attempt's request headers** from
//!    [`Driver::outgoing_headers`](crate::Driver::outgoing_headers) (the
//!    attempt's remaining time, its number, the key, whether a layer above
//!    retries), and, after the end, **the answer's headers** from
//!    [`Driver::answer_headers`](crate::Driver::answer_headers): "do not
//!    retry" when this layer gave up because of overload or its retry budget.
//!    A service that makes several outgoing operations while serving one
//!    request keeps an [`Answer`] for it, hands it each operation's ending,
//!    and writes its headers: the last give-up decides.
//!    The driver reads that answer from the next hop when it classifies a
//!    response ([`Driver::handle_response`](crate::Driver::handle_response)).
//!
//! # The wire form
//!
//! Request headers (read when their family is in `propagation.read_headers`;
//! names are looked up in lower case; a header sent as several field lines
//! arrives joined by `", "` and is refused like any malformed value):
//!
//! | header | family | value | meaning |
//! |---|---|---|---|
//! | `grpc-timeout` | `grpc` | `1*8DIGIT unit` (`H M S m u n`), gRPC's HTTP/2 protocol | the caller's remaining time |
//! | `x-envoy-expected-rq-timeout-ms` | `envoy` | `1*DIGIT`, ms; `0` is Envoy's "no timeout" | the time Envoy expects the request to take |
//! | `retryplan-timeout-ms` | `retryplan` | `1*16DIGIT`, ms, at most 2^53 - 1; `0`: no time left | the caller's remaining time |
//! | `grpc-previous-rpc-attempts` | `grpc` | `1*DIGIT`, at most 2^32 - 1 | attempts made before this one (gRFC A6) |
//! | `x-envoy-attempt-count` | `envoy` | `1*DIGIT`, 1 to 2^32 - 1 | this attempt's number, 1 for the first |
//! | `retryplan-attempt` | `retryplan` | `1*DIGIT`, 1 to 2^32 - 1 | this attempt's number, 1 for the first |
//! | `retryplan-caller-retries` | `retryplan` | `?1` or `?0` (an RFC 9651 boolean) | a layer above retries this request |
//! | `idempotency-key` | always | the IETF draft's key (see [`IdempotencyKey::from_request_header`](crate::IdempotencyKey::from_request_header)) | the operation's key, unchanged at every hop |
//!
//! Surrounding spaces and tabs are ignored (HTTP's optional whitespace).
//! When several deadline headers are present the tightest wins (each is an
//! upper bound on what the caller has); when several attempt headers are
//! present the highest count wins. A caller retries when it says so
//! (`retryplan-caller-retries: ?1`) or when this is not its first attempt.
//!
//! A value that breaks its header's rule is refused with an error naming
//! the header and the rule ([`Error::InvalidRequestHeader`](crate::Error::InvalidRequestHeader),
//! or [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `Idempotency-Key`, as
//! any request's key is refused): never read as absent, never clamped. Both
//! blame `caller`: the caller of this service sent the request (a response
//! header a server sent is [`Error::InvalidHeader`](crate::Error::InvalidHeader), blame `server`). For `grpc-timeout` this is gRPC's own rule
//! (grpc-go fails such a call with `INTERNAL`, grpc-java's
//! `TimeoutMarshaller` throws); the others follow it. A host answers such a
//! request as malformed (HTTP 400, gRPC `INTERNAL`).
//!
//! Response headers (written by [`Driver::answer_headers`](crate::Driver::answer_headers) and [`Answer::headers`]):
//!
//! | protocol | header | value | meaning |
//! |---|---|---|---|
//! | gRPC | `grpc-retry-pushback-ms` | `-1` | do not retry (gRFC A6: a negative pushback) |
//! | HTTP | `retryplan-retryable` | `?0` | do not retry |
//!
//! The driver reads `retryplan-retryable` on every response (family
//! `retryplan`, when the policy honours server guidance): `?1` changes
//! nothing, and any other value, `?0` or unreadable, means "do not retry",
//! as gRFC A6 reads an unparseable pushback. The operation then gives up
//! [`GiveUpReason::ServerDeclinedRetry`](crate::GiveUpReason::ServerDeclinedRetry)
//! where it would have retried, exactly as after a gRPC pushback of `-1`.
//!
//! Why these names: the peers each prefix their own (`grpc-`, `x-envoy-`,
//! Linkerd's `l5d-`, Finagle's `Finagle-Ctx-`); RFC 6648 retires the `X-`
//! prefix for new headers, so the project's own are `retryplan-`. The
//! deadline is a duration, not an instant (as `grpc-timeout` and Envoy's
//! header are), so no two hops need synchronised clocks. The attempt number
//! counts from 1, as Envoy's does. Booleans are RFC 9651 structured-field
//! booleans. `Idempotency-Key` is the IETF httpapi draft's header the HTTP
//! helpers already send.

mod answer;
mod incoming;
mod outgoing;

pub use answer::Answer;
pub use incoming::IncomingContext;
pub use outgoing::{answers_do_not_retry, HeaderList, Protocol};
pub(crate) use outgoing::{declines_retry, request_headers};

/// `grpc-timeout`: the caller's remaining time (gRPC over HTTP/2).
pub const GRPC_TIMEOUT: &str = "grpc-timeout";
/// `grpc-previous-rpc-attempts`: attempts made before this one (gRFC A6).
pub const GRPC_PREVIOUS_RPC_ATTEMPTS: &str = "grpc-previous-rpc-attempts";
/// `grpc-retry-pushback-ms`: the server's pushback (gRFC A6); negative means do not retry.
pub const GRPC_RETRY_PUSHBACK_MS: &str = "grpc-retry-pushback-ms";
/// `x-envoy-expected-rq-timeout-ms`: the time Envoy expects the request to take.
pub const ENVOY_EXPECTED_RQ_TIMEOUT_MS: &str = "x-envoy-expected-rq-timeout-ms";
/// `x-envoy-attempt-count`: Envoy's attempt number, 1 for the first.
pub const ENVOY_ATTEMPT_COUNT: &str = "x-envoy-attempt-count";
/// `retryplan-timeout-ms`: the caller's remaining time in ms.
pub const RETRYPLAN_TIMEOUT_MS: &str = "retryplan-timeout-ms";
/// `retryplan-attempt`: this attempt's number, 1 for the first.
pub const RETRYPLAN_ATTEMPT: &str = "retryplan-attempt";
/// `retryplan-caller-retries`: `?1` when a layer above retries this request.
pub const RETRYPLAN_CALLER_RETRIES: &str = "retryplan-caller-retries";
/// `retryplan-retryable`: a response's `?0` means do not retry.
pub const RETRYPLAN_RETRYABLE: &str = "retryplan-retryable";
/// Every request header [`IncomingContext::read`] may look up, lower case,
/// in the order it consults them. A host whose lookup cannot call back into
/// its platform (a binding that crosses an FFI boundary once) hands the
/// core these headers' values; it never picks one itself.
pub const REQUEST_HEADERS: [&str; 8] = [
    GRPC_TIMEOUT,
    ENVOY_EXPECTED_RQ_TIMEOUT_MS,
    RETRYPLAN_TIMEOUT_MS,
    GRPC_PREVIOUS_RPC_ATTEMPTS,
    ENVOY_ATTEMPT_COUNT,
    RETRYPLAN_ATTEMPT,
    RETRYPLAN_CALLER_RETRIES,
    IDEMPOTENCY_KEY,
];
/// `idempotency-key`, the lower-case spelling of [`IDEMPOTENCY_KEY_HEADER`](crate::outcomes::http::IDEMPOTENCY_KEY_HEADER).
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

#[cfg(test)]
mod tests;
