//! The policy as written ([`PolicyConfig`]): plain data, its defaults and
//! the limits its rules name. Read by `read.rs`, validated by `validate.rs`.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use serde::Serialize;

use crate::config::error_code::ErrorCodeTable;
use crate::config::value::Bounded;
use crate::ground::codes::{GrpcCode, TransportFailure};
use crate::ground::message::Rule;
use crate::headers::retry_after::RetryAfterReading;

/// The most hedges that may run beside the first attempt.
pub const MAX_HEDGED_ATTEMPTS: u32 = 4;

/// The most attempts a policy may allow (first attempt included): as many as
/// an [`AttemptSet`](crate::outcomes::decision::AttemptSet) holds, so that
/// urllib3's `Retry(total=100)` (101 attempts, its own `test_backoff`) and
/// any count below it is a policy.
pub const MAX_ATTEMPTS_LIMIT: u32 = 128;

/// The policy's whole-number fields with a rule of their own, validated and
/// read by the same [`Bounded`]: `max_attempts` (the first attempt included).
pub(crate) const MAX_ATTEMPTS: Bounded =
    Bounded { min: 1, max: MAX_ATTEMPTS_LIMIT as u64, rule: Rule::MaxAttemptsRange };
/// `hedging.max_hedged_attempts`.
pub(crate) const HEDGED_ATTEMPTS: Bounded = Bounded { min: 1, max: MAX_HEDGED_ATTEMPTS as u64, rule: Rule::OutOfRange };
/// Each `retry_limits.*`: a limit of `n` allows `n` retries, so fewer than
/// `max_attempts` can ever make.
pub(crate) const RETRY_LIMIT: Bounded =
    Bounded { min: 0, max: MAX_ATTEMPTS_LIMIT as u64 - 1, rule: Rule::RetryLimitRange };
/// An HTTP status a policy names (each item of an `http_statuses` list,
/// `server_guidance.statuses[].status`): read with the words validation
/// refuses a status outside 100..=599 with, whatever the number (70000, -1,
/// 2.5) or a string, rather than the range of the `u16` it is kept in.
pub(crate) const HTTP_STATUS: Bounded = Bounded { min: 100, max: 599, rule: Rule::FieldNotHttpStatus };

/// How long one attempt may run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptTimeoutConfig {
    /// Every attempt gets this many milliseconds (less if less time is left).
    FixedMs(u64),
    /// Every attempt gets this fraction, in (0, 1], of the time that remains
    /// when it starts; never less than `minimum_useful_attempt_ms`.
    FractionOfRemaining(f64),
}

/// How the backoff ceiling grows with the retry number `r` (0 for the first retry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackoffKind {
    /// `min(cap_ms, base_ms * multiplier^r)`: grows with a multiplier above
    /// 1, shrinks toward 0 with one below 1.
    Exponential,
    /// `min(cap_ms, base_ms * (r + 1))`.
    Linear,
    /// `base_ms` every time (`cap_ms` still bounds it).
    Constant,
}

/// The largest `backoff.multiplier`: 10^6 (gRPC accepts any number > 0; a
/// larger one only matters when `cap_ms / base_ms` exceeds 10^6).
pub const MAX_MULTIPLIER: f64 = 1_000_000.0;

/// The longest base delay Polly accepts (`RetryStrategyOptions.Delay` is in
/// `[0, 1 day]`), in milliseconds: the limit of `backoff.base_ms` under
/// jitter `polly`.
pub(crate) const POLLY_MAX_BASE_MS: u64 = 86_400_000;

/// Backoff ceilings before jitter.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BackoffConfig {
    /// How the ceiling grows.
    pub kind: BackoffKind,
    /// The first retry's ceiling, in milliseconds.
    pub base_ms: u64,
    /// Growth factor for `exponential`, in (0, 10^6] with at most three
    /// decimals (kept as integer thousandths): above 1 the ceilings grow, 1
    /// keeps them constant, below 1 they shrink toward 0 (gRFC A6 allows any
    /// `backoffMultiplier` > 0). Default 2.
    pub multiplier: f64,
    /// No ceiling (and no jittered delay) ever exceeds this, in milliseconds.
    pub cap_ms: u64,
    /// The base used instead of `base_ms` when the failure being retried is a
    /// throttling error (an `aws_throttling` error code, classified
    /// `throttling: true`): the AWS SDKs' 2026 standard mode waits from 1 s
    /// after throttling and from 50 ms after other errors. Every formula of
    /// `kind` and the jitter uses it in place of `base_ms` for that retry
    /// (under jitter `polly` it is Polly's `Delay` for that retry); the retry
    /// number is unchanged. Absent (the default): `base_ms` for every
    /// failure. The rules of `base_ms` apply to it: at most `cap_ms` and at
    /// least 1 for growing kinds (under `polly`: 0 to 1 day).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttling_base_ms: Option<u64>,
    /// The first retry waits no backoff (only server guidance), later retries
    /// keep their ceilings: urllib3's `backoff_factor` shape (0, 2f, 4f, ...
    /// with `base_ms` f). Also after a throttling error. False by default.
    #[serde(skip_serializing_if = "is_false")]
    pub immediate_first_retry: bool,
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

impl Default for BackoffConfig {
    fn default() -> Self {
        BackoffConfig {
            kind: BackoffKind::Exponential,
            base_ms: 100,
            multiplier: 2.0,
            cap_ms: 2_000,
            throttling_base_ms: None,
            immediate_first_retry: false,
        }
    }
}

/// How a delay is drawn from the ceiling `c` of retry `r`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JitterConfig {
    /// Exactly `c`.
    None,
    /// Uniform in `[0, c]`: spreads clients the most (the default).
    Full,
    /// Uniform in `[c/2, c]`: guarantees half the ceiling.
    Equal,
    /// Uniform in `[base, min(cap, 3 * previous delay)]`, the previous delay
    /// starting at `base` (the ceilings of `backoff.kind` are not used).
    Decorrelated,
    /// Uniform in `[c * (1 - ratio), min(cap, c * (1 + ratio))]`, as gRPC's
    /// retry design does with ratio 0.2.
    Proportional {
        /// Spread around the ceiling, in (0, 1], at most three decimals.
        ratio: f64,
    },
    /// Uniform in `[c * 0.8, c * 1.2]`, *not* bounded by the cap: gRFC A6
    /// (section "Exponential Backoff", as revised in 2024) multiplies the
    /// capped ceiling by `random(0.8, 1.2)`.
    A6,
    /// Uniform in `[0, u]` over the ceiling *before* the cap, `u = base *
    /// multiplier^r` for `exponential` (`base * (r + 1)` for `linear`,
    /// `base` for `constant`), then capped: `min(cap, draw)`. This is the
    /// formula the AWS SDKs and Tools reference guide writes for the classic
    /// standard mode (`t_i = min(random() * 2^i, 20 s)`) and aws-sdk-js-v3's
    /// classic backoff (botocore, smithy-rs, aws-sdk-go-v2 and
    /// aws-sdk-java-v2 cap first, as `full` and the `aws_standard` profile
    /// do): from the first retry whose uncapped ceiling exceeds the cap, the
    /// delay is the cap with probability `1 - cap / u`, where `full` would
    /// draw uniformly under the cap. `u` is computed like the ceilings (step by
    /// step in integer ms), saturating at 2^53 - 1 ms.
    FullThenCap,
    /// Polly v8's delays exactly as Polly computes them (see
    /// [`backoff`](crate::engine::backoff)): `backoff.kind` is Polly's `BackoffType`,
    /// `base_ms` its `Delay` (0 to 1 day; 0 gives no delay), `cap_ms` its
    /// `MaxDelay` (any value, even below the base), and `use_jitter` its
    /// `UseJitter`: +-25% around constant and linear delays,
    /// DecorrelatedJitterBackoffV2 for exponential (whose factor is 2).
    Polly {
        /// Polly's `UseJitter` (true when absent).
        use_jitter: bool,
    },
    /// Uniform in `[c, c + max_ms]`, then capped: `min(cap, c + U * max_ms)`,
    /// a random amount added on top of the ceiling, as urllib3's
    /// `backoff_jitter` does (`min(backoff_max, factor * 2^(n-1) + random() *
    /// backoff_jitter)`). A retry whose ceiling is 0 because of
    /// `immediate_first_retry` waits 0, as urllib3's first retry does.
    Additive {
        /// The most added on top of the ceiling, in ms (0 adds nothing).
        max_ms: u64,
    },
}

/// Outcomes that may be retried.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RetryOnConfig {
    /// HTTP statuses worth another attempt: error statuses (>= 400), or a
    /// 2xx to poll again (a 202 "accepted, still working").
    pub http_statuses: Vec<u16>,
    /// gRPC codes worth another attempt.
    pub grpc_codes: Vec<GrpcCode>,
    /// Transport classes (may the request have reached the server?) worth
    /// another attempt.
    pub transport: Vec<TransportFailure>,
    /// Built-in tables of error codes (of HTTP outcomes) worth another
    /// attempt, whatever the status: `aws_transient`, `aws_throttling`
    /// (see [`crate::dialects::aws`]). Empty by default.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub error_codes: Vec<ErrorCodeTable>,
    /// Every server error (500..=599) is worth another attempt, beside
    /// `http_statuses`, except a status listed in `conflict`: Envoy's
    /// `retry_on: 5xx`, Polly's `HandleTransientHttpError()` and
    /// Microsoft.Extensions.Http.Resilience's transient predicate retry any
    /// 5xx (add 408 and 429 to `http_statuses` for theirs). Which 5xx are
    /// ambiguous is still `ambiguous`'s. Written back only when true, and
    /// then `http_statuses` leaves out the 5xx it covers. False by default.
    #[serde(skip_serializing_if = "is_false")]
    pub all_server_errors: bool,
}

impl RetryOnConfig {
    /// Retries nothing: every list empty, every flag off. The base of a
    /// profile that states its own sets (`..RetryOnConfig::none()`), so a
    /// field added here reaches every profile off, with no allocation.
    #[must_use]
    pub const fn none() -> RetryOnConfig {
        RetryOnConfig {
            http_statuses: Vec::new(),
            grpc_codes: Vec::new(),
            transport: Vec::new(),
            error_codes: Vec::new(),
            all_server_errors: false,
        }
    }
}

impl Default for RetryOnConfig {
    fn default() -> Self {
        RetryOnConfig {
            http_statuses: vec![408, 429, 500, 502, 503, 504],
            grpc_codes: vec![GrpcCode::Unavailable],
            transport: vec![TransportFailure::NotSent, TransportFailure::ConnectionLost, TransportFailure::TimedOut],
            error_codes: Vec::new(),
            all_server_errors: false,
        }
    }
}

/// A set of HTTP statuses and gRPC codes with one meaning (ambiguous, or conflict).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StatusSetConfig {
    /// HTTP statuses in the set.
    pub http_statuses: Vec<u16>,
    /// gRPC codes in the set.
    pub grpc_codes: Vec<GrpcCode>,
}

/// What to do when server guidance (Retry-After, gRPC pushback) exceeds `cap_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AboveCap {
    /// Wait `cap_ms` instead.
    Clamp,
    /// Give up now with reason `retry_after_above_cap`.
    GiveUp,
}

/// How server guidance is honored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServerGuidanceConfig {
    /// Honor Retry-After and gRPC pushback (a floor for the delay). When false
    /// both are ignored.
    pub honor: bool,
    /// The longest guidance honored as given, in milliseconds.
    pub cap_ms: u64,
    /// What to do above `cap_ms`.
    pub above_cap: AboveCap,
    /// How HTTP helpers read `Retry-After` ([`Policy::http_outcome`](super::Policy::http_outcome)):
    /// `strict` RFC 9110 (the default) or `lenient`.
    #[serde(skip_serializing_if = "is_strict")]
    pub retry_after_reading: RetryAfterReading,
    /// Per-status rules (see [`status_rules`](super::status_rules)); none by default.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub statuses: Vec<StatusGuidanceConfig>,
    /// How honored guidance shapes the delay: `floor` (the default), `a6` or `replace`.
    #[serde(skip_serializing_if = "GuidanceMode::is_floor")]
    pub mode: GuidanceMode,
    /// The most honored guidance may raise the delay above the drawn backoff
    /// `t`, in ms: the delay is `clamp(guidance, t, t + max_above_backoff_ms)`
    /// (the AWS SDKs' 2026 standard mode honours `x-amz-retry-after` within
    /// `[t, t + 5 s]`). Applied after `cap_ms` (or a per-status rule's cap),
    /// to every status; mode `floor` only (refused with `replace` and `a6`,
    /// which draw no backoff). Absent (the default): no bound, the guidance
    /// is a plain floor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_above_backoff_ms: Option<u64>,
    /// Which response headers HTTP helpers read guidance from
    /// ([`Policy::http_outcome`](super::Policy::http_outcome)): `all` (the
    /// default, left out when written) or `retry_after` (only `Retry-After`,
    /// as urllib3 reads it).
    #[serde(skip_serializing_if = "GuidanceHeaders::is_all")]
    pub headers: GuidanceHeaders,
}

/// Which response headers an HTTP helper reads server guidance from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GuidanceHeaders {
    /// Every guidance header, the first that asks for a wait winning
    /// ([`GUIDANCE_HEADERS`](crate::outcomes::http::GUIDANCE_HEADERS), in the
    /// order of [`crate::outcomes::http`]): the millisecond headers,
    /// `Retry-After`, `RateLimit`, `RateLimit-Reset`, `X-RateLimit-Reset` (the
    /// last three not on a response from a cache: an `Age` above 0).
    #[default]
    All,
    /// `Retry-After` only (RFC 9110 section 10.2.3), as urllib3's `Retry`
    /// reads it: the other headers neither give a wait nor satisfy a
    /// `requires_guidance` rule.
    RetryAfter,
}

impl GuidanceHeaders {
    /// True for [`GuidanceHeaders::All`] (the default, left out when written).
    #[must_use]
    pub fn is_all(&self) -> bool {
        *self == GuidanceHeaders::All
    }
}

fn is_strict(reading: &RetryAfterReading) -> bool {
    *reading == RetryAfterReading::Strict
}

/// How honored server guidance (Retry-After, gRPC pushback) shapes the delay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GuidanceMode {
    /// A floor: the jittered backoff is drawn as usual and raised to the
    /// guidance; the schedule keeps counting every retry.
    #[default]
    Floor,
    /// gRFC A6 ("Pushback"): the guidance *replaces* the backoff (the retry
    /// waits exactly that long, no draw), and the exponential schedule starts
    /// over, so the next retry without guidance waits from the first ceiling.
    A6,
    /// The guidance *replaces* the backoff (no draw) and the schedule keeps
    /// counting: the wait is exactly what the server asked, as urllib3's
    /// `Retry.sleep`, ky and got wait.
    Replace,
}

impl GuidanceMode {
    /// True for [`GuidanceMode::Floor`] (the default, left out when written).
    #[must_use]
    pub fn is_floor(&self) -> bool {
        *self == GuidanceMode::Floor
    }
}

impl Default for ServerGuidanceConfig {
    fn default() -> Self {
        ServerGuidanceConfig {
            honor: true,
            cap_ms: 60_000,
            above_cap: AboveCap::GiveUp,
            retry_after_reading: RetryAfterReading::Strict,
            statuses: Vec::new(),
            mode: GuidanceMode::Floor,
            max_above_backoff_ms: None,
            headers: GuidanceHeaders::All,
        }
    }
}

/// One per-status rule of `server_guidance.statuses` as written; absent
/// fields take the section's values (see [`status_rules`](super::status_rules)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StatusGuidanceConfig {
    /// The HTTP status the rule is for.
    pub status: u16,
    /// Whether this status's guidance is honoured (the section's `honor` when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub honor: Option<bool>,
    /// Retried only when the answer carries guidance.
    pub requires_guidance: bool,
    /// The cap for this status (the section's `cap_ms` when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap_ms: Option<u64>,
    /// What a wait above the cap does (the section's `above_cap` when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub above_cap: Option<AboveCap>,
}

/// `retry_limits` as written: retries allowed after failures of each kind
/// (see [`retry_limits`](super::retry_limits)); absent is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RetryLimitsConfig {
    /// Retries after the connection was not made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect: Option<u32>,
    /// Retries after the connection broke or timed out after sending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<u32>,
    /// Retries after a retryable status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u32>,
    /// Retries after an application verdict `retryable`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other: Option<u32>,
}

impl RetryLimitsConfig {
    /// True when no limit is set (the section is then left out of the config).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == RetryLimitsConfig::default()
    }
}

/// Whether repeating the operation could repeat its effect: what the
/// policy's `idempotency` declares about the operation. What the request's
/// protocol and its caller allow is its
/// [`Repeatability`](crate::outcomes::http::Repeatability); the engine combines the two
/// ([`Repeatability::effective`](crate::outcomes::http::Repeatability::effective)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Idempotency {
    /// No effect at all (a read).
    Safe,
    /// Repeating has the same effect as doing it once (a PUT of a whole value).
    Idempotent,
    /// The server deduplicates by the operation's idempotency key.
    Keyed,
    /// Repeating may repeat the effect: an ambiguous outcome answers
    /// [`Decision::Reconcile`](crate::Decision::Reconcile), never a new attempt.
    Unsafe,
}

impl Idempotency {
    /// True when an attempt whose request may have been processed can be sent again.
    #[must_use]
    pub fn may_repeat_ambiguous(self) -> bool {
        !matches!(self, Idempotency::Unsafe)
    }
}

/// Hedging: extra attempts started while the first is still running, to cut
/// tail latency. Only for operations that may be repeated (not `unsafe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct HedgingConfig {
    /// How long an attempt runs without an answer before the next hedge
    /// starts, in ms (0 starts them all at once).
    pub delay_ms: u64,
    /// Extra attempts that may run beside the first, 1..=4. Every hedge
    /// counts toward `max_attempts` and needs the same deadline, budget,
    /// breaker and retry-slot checks as a retry.
    pub max_hedged_attempts: u32,
}

/// The most delays a redelivery schedule may list.
pub const MAX_REDELIVERY_DELAYS: usize = 8;

/// A policy's redelivery section (JSON: `{"delays_ms": [5000, 30000, 120000], "max_age_ms": 3600000}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RedeliveryConfig {
    /// Delay before each redelivery, 1 to 8 values; the last one repeats.
    pub delays_ms: Vec<u64>,
    /// The oldest a message may be at its next delivery, in ms.
    pub max_age_ms: u64,
}

/// Which layer of a call chain retries (`propagation.retry_layer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RetryLayer {
    /// Only the outermost layer that can retry does: a layer whose caller
    /// says it retries (see [`propagation`](crate::propagation)) makes one
    /// attempt and hands the failure back, so the deepest service sees at
    /// most the outermost policy's attempts, not their product (the Google
    /// SRE book, "Handling Overload": retry at one layer). The default.
    #[default]
    Outermost,
    /// Every layer retries under its own policy, whatever its caller does
    /// (each layer's attempts multiply): what every helper did before
    /// propagation.
    Every,
}

/// A family of request headers an incoming context is read from
/// (`propagation.read_headers`): each names the deadline and attempt-count
/// headers one peer writes. `Idempotency-Key` is always read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeaderFamily {
    /// gRPC's `grpc-timeout` and `grpc-previous-rpc-attempts` (gRPC over
    /// HTTP/2, gRFC A6).
    Grpc,
    /// Envoy's `x-envoy-expected-rq-timeout-ms` and `x-envoy-attempt-count`.
    Envoy,
    /// The project's own `retryplan-timeout-ms`, `retryplan-attempt` and
    /// `retryplan-caller-retries` (see [`propagation`](crate::propagation)).
    Retryplan,
}

/// The default reserve for an answer's way back to the caller, in ms: see
/// [`PropagationConfig::reserve_ms`].
pub const DEFAULT_PROPAGATION_RESERVE_MS: u64 = 20;

/// How a deadline, an attempt count and retries are carried across hops
/// (see [`propagation`](crate::propagation)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PropagationConfig {
    /// Time kept back from what the caller has left for this layer's answer
    /// to travel back to it, in ms: an operation started from an incoming
    /// context ends by `received + caller's remaining - reserve_ms`. 20 by
    /// default: a response's way back over one hop inside a region (a
    /// round trip is well under 1 ms on the wire, several ms through a
    /// sidecar proxy and TLS, and a garbage-collection pause of the callee's
    /// runtime is commonly 10 ms), so an answer finished at the deadline
    /// still reaches a caller that measured the same deadline.
    pub reserve_ms: u64,
    /// Which layer retries: `outermost` (the default) or `every`.
    pub retry_layer: RetryLayer,
    /// The header families read from an incoming request, a set (all three
    /// by default): the deadline is the tightest one read, the attempt count
    /// the highest.
    pub read_headers: Vec<HeaderFamily>,
}

impl Default for PropagationConfig {
    fn default() -> Self {
        PropagationConfig {
            reserve_ms: DEFAULT_PROPAGATION_RESERVE_MS,
            retry_layer: RetryLayer::Outermost,
            read_headers: vec![HeaderFamily::Grpc, HeaderFamily::Envoy, HeaderFamily::Retryplan],
        }
    }
}

impl PropagationConfig {
    /// True for the defaults (the section is then left out when written).
    #[must_use]
    pub fn is_default(&self) -> bool {
        *self == PropagationConfig::default()
    }
}

/// The policy as written: plain data, every field defaulted.
///
/// Validate it into a [`Policy`](super::Policy) with [`Policy::new`](super::Policy::new)
/// (or read JSON with [`Policy::from_json`](super::Policy::from_json)). It is read by [`PolicyConfig::from_value`] (the
/// same rules from JSON, a JS object or serde's `Deserialize`) and written by
/// serde's `Serialize`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyConfig {
    /// How many attempts in all, the first one included (3 means one try and
    /// up to two retries). 1..=128 ([`MAX_ATTEMPTS_LIMIT`]).
    pub max_attempts: u32,
    /// The whole operation's total timeout, in milliseconds, from its start.
    pub total_timeout_ms: u64,
    /// How long one attempt may run.
    pub attempt_timeout: AttemptTimeoutConfig,
    /// Time kept back at the end of the total timeout to handle the last response.
    pub response_reserve_ms: u64,
    /// No attempt starts with less time than this left (after the reserve).
    pub minimum_useful_attempt_ms: u64,
    /// Backoff ceilings.
    pub backoff: BackoffConfig,
    /// How a delay is drawn from the ceiling.
    pub jitter: JitterConfig,
    /// Outcomes worth another attempt.
    pub retry_on: RetryOnConfig,
    /// Retryable outcomes whose request may have been processed.
    pub ambiguous: StatusSetConfig,
    /// Outcomes that mean "state changed underneath: re-read and redo the unit".
    pub conflict: StatusSetConfig,
    /// Retry-After and gRPC pushback handling.
    pub server_guidance: ServerGuidanceConfig,
    /// Retries allowed per kind of failure, beside `max_attempts` (see
    /// [`retry_limits`](super::retry_limits)); no limits by default.
    #[serde(skip_serializing_if = "RetryLimitsConfig::is_empty")]
    pub retry_limits: RetryLimitsConfig,
    /// The HTTP methods retried at all; RFC 9110 §9.2.2 and RFC 10008 alone decide when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_methods: Option<Vec<String>>,
    /// Whether repeating may repeat the effect.
    pub idempotency: Idempotency,
    /// Hedging, off when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hedging: Option<HedgingConfig>,
    /// Queue redelivery schedule for [`redeliver`](crate::engine::redelivery::redeliver); the
    /// backoff ceilings and `total_timeout_ms` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redelivery: Option<RedeliveryConfig>,
    /// How deadlines, attempt counts and retries cross hops; the defaults
    /// when absent (and left out when written).
    #[serde(skip_serializing_if = "PropagationConfig::is_default")]
    pub propagation: PropagationConfig,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            max_attempts: 3,
            total_timeout_ms: 10_000,
            attempt_timeout: AttemptTimeoutConfig::FixedMs(3_000),
            response_reserve_ms: 50,
            minimum_useful_attempt_ms: 100,
            backoff: BackoffConfig::default(),
            jitter: JitterConfig::Full,
            retry_on: RetryOnConfig::default(),
            ambiguous: StatusSetConfig {
                http_statuses: vec![500, 502, 504],
                grpc_codes: vec![GrpcCode::DeadlineExceeded],
            },
            conflict: StatusSetConfig { http_statuses: vec![409], grpc_codes: vec![GrpcCode::Aborted] },
            server_guidance: ServerGuidanceConfig::default(),
            retry_limits: RetryLimitsConfig::default(),
            retry_methods: None,
            idempotency: Idempotency::Safe,
            hedging: None,
            redelivery: None,
            propagation: PropagationConfig::default(),
        }
    }
}
