//! Policy: the serde schema ([`PolicyConfig`]) and its validated, immutable form ([`Policy`]).
//!
//! JSON is the lingua franca: field names are snake_case, durations are whole
//! milliseconds in fields ending `_ms`, ratios are decimal numbers with at most
//! three decimals (they are stored as integer thousandths so every platform
//! computes bit-identical delays). Every field has a default, and unknown
//! fields are rejected. [`Policy::new`] checks every rule and reports all
//! violations at once, each naming its field; nothing is clamped silently.

use serde::{Deserialize, Serialize};

use crate::aws::{ErrorCodeTable, ErrorCodeTables};
use crate::classify::{GrpcCode, TransportFailure};
use crate::error::{Error, Violation};
pub use crate::guidance::GuidanceMode;
use crate::redelivery::{RedeliveryConfig, RedeliverySchedule, MAX_REDELIVERY_DELAYS};
use crate::value::{expected, join, one_of, optional, read_name, tagged, Decimal, Fields, FromValue, Named, Value};

/// The largest millisecond value accepted anywhere: 2^53 - 1, the largest
/// integer a JavaScript number holds exactly.
pub const MAX_MS: u64 = (1 << 53) - 1;

/// The most hedges that may run beside the first attempt.
pub const MAX_HEDGED_ATTEMPTS: u32 = 4;

/// The most attempts a policy may allow (first attempt included).
pub const MAX_ATTEMPTS_LIMIT: u32 = 100;

/// How long one attempt may run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptTimeoutConfig {
    /// Every attempt gets this many milliseconds (less if the budget has less left).
    FixedMs(u64),
    /// Every attempt gets this fraction, in (0, 1], of the budget that remains
    /// when it starts; never less than `minimum_useful_attempt_ms`.
    FractionOfRemaining(f64),
}

/// How the backoff ceiling grows with the retry number `r` (0 for the first retry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffKind {
    /// `min(cap_ms, base_ms * multiplier^r)`.
    Exponential,
    /// `min(cap_ms, base_ms * (r + 1))`.
    Linear,
    /// `base_ms` every time (`cap_ms` still bounds it).
    Constant,
}

/// Backoff ceilings before jitter.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BackoffConfig {
    /// How the ceiling grows.
    pub kind: BackoffKind,
    /// The first retry's ceiling, in milliseconds.
    pub base_ms: u64,
    /// Growth factor for `exponential`, in [1, 100], at most three decimals.
    pub multiplier: f64,
    /// No ceiling (and no jittered delay) ever exceeds this, in milliseconds.
    pub cap_ms: u64,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        BackoffConfig { kind: BackoffKind::Exponential, base_ms: 100, multiplier: 2.0, cap_ms: 2_000 }
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
}

/// Outcomes that may be retried.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RetryOnConfig {
    /// HTTP statuses worth another attempt.
    pub http_statuses: Vec<u16>,
    /// gRPC codes worth another attempt.
    pub grpc_codes: Vec<GrpcCode>,
    /// Transport failures worth another attempt.
    pub transport: Vec<TransportFailure>,
    /// Built-in tables of error codes (of HTTP outcomes) worth another
    /// attempt, whatever the status: `aws_transient`, `aws_throttling`
    /// (see [`crate::aws`]). Empty by default.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub error_codes: Vec<ErrorCodeTable>,
}

impl Default for RetryOnConfig {
    fn default() -> Self {
        RetryOnConfig {
            http_statuses: vec![408, 429, 500, 502, 503, 504],
            grpc_codes: vec![GrpcCode::Unavailable],
            transport: vec![TransportFailure::NotSent, TransportFailure::ConnectionLost, TransportFailure::TimedOut],
            error_codes: Vec::new(),
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AboveCap {
    /// Wait `cap_ms` instead.
    Clamp,
    /// Give up now with reason `retry_after_above_cap`.
    GiveUp,
}

/// How server guidance is honored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ServerGuidanceConfig {
    /// Honor Retry-After and gRPC pushback (a floor for the delay). When false
    /// both are ignored.
    pub honor: bool,
    /// The longest guidance honored as given, in milliseconds.
    pub cap_ms: u64,
    /// What to do above `cap_ms`.
    pub above_cap: AboveCap,
    /// How honored guidance shapes the delay: `floor` (the default) or `a6`.
    #[serde(skip_serializing_if = "GuidanceMode::is_floor")]
    pub mode: GuidanceMode,
}

impl Default for ServerGuidanceConfig {
    fn default() -> Self {
        ServerGuidanceConfig { honor: true, cap_ms: 60_000, above_cap: AboveCap::GiveUp, mode: GuidanceMode::Floor }
    }
}

/// Whether repeating the operation could repeat its effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    /// breaker and concurrency checks as a retry.
    pub max_hedged_attempts: u32,
}

/// The policy as written: plain data, every field defaulted.
///
/// Validate it into a [`Policy`] with [`Policy::new`] (or read JSON with
/// [`Policy::from_json`]). It is read by [`PolicyConfig::from_value`] (the
/// same rules from JSON, a JS object or serde's `Deserialize`) and written by
/// serde's `Serialize`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyConfig {
    /// How many attempts in all, the first one included (3 means one try and
    /// up to two retries). 1..=100.
    pub max_attempts: u32,
    /// The whole operation's time budget, in milliseconds, from its start.
    pub total_budget_ms: u64,
    /// How long one attempt may run.
    pub attempt_timeout: AttemptTimeoutConfig,
    /// Time kept back at the end of the budget to handle the last response.
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
    /// Whether repeating may repeat the effect.
    pub idempotency: Idempotency,
    /// Hedging, off when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hedging: Option<HedgingConfig>,
    /// Queue redelivery schedule for [`redeliver`](crate::redeliver); the
    /// backoff ceilings and `total_budget_ms` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redelivery: Option<RedeliveryConfig>,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            max_attempts: 3,
            total_budget_ms: 10_000,
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
            idempotency: Idempotency::Safe,
            hedging: None,
            redelivery: None,
        }
    }
}

/// Validated per-attempt timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttemptTimeout {
    /// A fixed number of milliseconds.
    Fixed {
        /// The timeout.
        ms: u64,
    },
    /// Thousandths of the remaining budget.
    FractionOfRemaining {
        /// 1..=1000.
        permille: u32,
    },
}

/// Validated jitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Jitter {
    /// See [`JitterConfig::None`].
    None,
    /// See [`JitterConfig::Full`].
    Full,
    /// See [`JitterConfig::Equal`].
    Equal,
    /// See [`JitterConfig::Decorrelated`].
    Decorrelated,
    /// See [`JitterConfig::Proportional`].
    Proportional {
        /// The ratio in thousandths, 1..=1000.
        ratio_permille: u32,
    },
    /// See [`JitterConfig::A6`].
    A6,
}

/// Validated backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Backoff {
    /// How the ceiling grows.
    pub kind: BackoffKind,
    /// First ceiling in ms.
    pub base_ms: u64,
    /// Growth factor in thousandths (2000 = x2).
    pub multiplier_permille: u32,
    /// Upper bound of every ceiling and delay, in ms.
    pub cap_ms: u64,
}

/// A set of HTTP statuses (100..=599) as a bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HttpStatusSet([u64; 8]);

impl HttpStatusSet {
    /// True when `status` is in the set (false for anything outside 100..=599).
    #[must_use]
    pub fn contains(&self, status: u16) -> bool {
        match status.checked_sub(100) {
            Some(bit) => self.0.get(usize::from(bit / 64)).is_some_and(|word| word & (1 << (bit % 64)) != 0),
            _ => false,
        }
    }

    fn insert(&mut self, status: u16) {
        if let Some(bit) = status.checked_sub(100).filter(|bit| *bit < 500) {
            if let Some(word) = self.0.get_mut(usize::from(bit / 64)) {
                *word |= 1 << (bit % 64);
            }
        }
    }

    /// The statuses in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        (100u16..600).filter(|status| self.contains(*status))
    }
}

/// A set of gRPC codes as a bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GrpcCodeSet(u32);

impl GrpcCodeSet {
    /// True when `code` is in the set.
    #[must_use]
    pub fn contains(&self, code: GrpcCode) -> bool {
        self.0 & (1 << code.number()) != 0
    }

    fn insert(&mut self, code: GrpcCode) {
        self.0 |= 1 << code.number();
    }

    /// The codes in ascending numeric order.
    pub fn iter(&self) -> impl Iterator<Item = GrpcCode> + '_ {
        GrpcCode::ALL.into_iter().filter(|code| self.contains(*code))
    }
}

/// A set of transport failure kinds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TransportSet(u8);

impl TransportSet {
    /// True when `failure` is in the set.
    #[must_use]
    pub fn contains(&self, failure: TransportFailure) -> bool {
        self.0 & (1 << failure as u8) != 0
    }

    fn insert(&mut self, failure: TransportFailure) {
        self.0 |= 1 << failure as u8;
    }

    /// The kinds in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = TransportFailure> + '_ {
        TransportFailure::ALL.into_iter().filter(|failure| self.contains(*failure))
    }
}

/// Validated classification sets (see [`classify()`](crate::classify())).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Classification {
    /// Retryable HTTP statuses.
    pub retry_http: HttpStatusSet,
    /// Retryable gRPC codes.
    pub retry_grpc: GrpcCodeSet,
    /// Retryable transport failures.
    pub retry_transport: TransportSet,
    /// HTTP statuses whose request may have been processed.
    pub ambiguous_http: HttpStatusSet,
    /// gRPC codes whose request may have been processed.
    pub ambiguous_grpc: GrpcCodeSet,
    /// HTTP statuses that mean a conflict.
    pub conflict_http: HttpStatusSet,
    /// gRPC codes that mean a conflict.
    pub conflict_grpc: GrpcCodeSet,
    /// Tables of error codes that are retryable.
    pub retry_error_codes: ErrorCodeTables,
}

/// Validated server-guidance handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ServerGuidance {
    /// Honor guidance at all.
    pub honor: bool,
    /// Longest guidance honored as given.
    pub cap_ms: u64,
    /// What to do above the cap.
    pub above_cap: AboveCap,
    /// How guidance shapes the delay.
    pub mode: GuidanceMode,
}

/// A validated, immutable policy. Cheap to copy (no heap data).
///
/// ```
/// use retryplan::Policy;
/// let policy = Policy::from_json(r#"{"max_attempts": 4, "total_budget_ms": 2000}"#).unwrap();
/// assert_eq!(policy.max_attempts(), 4);
/// let error = Policy::from_json(r#"{"backoff": {"base_ms": 200, "cap_ms": 100}}"#).unwrap_err();
/// assert_eq!(error.to_string(), "invalid policy: backoff.cap_ms (100) must be >= backoff.base_ms (200)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Policy {
    pub(crate) max_attempts: u32,
    pub(crate) total_budget_ms: u64,
    pub(crate) attempt_timeout: AttemptTimeout,
    pub(crate) response_reserve_ms: u64,
    pub(crate) minimum_useful_attempt_ms: u64,
    pub(crate) backoff: Backoff,
    pub(crate) jitter: Jitter,
    pub(crate) classification: Classification,
    pub(crate) server_guidance: ServerGuidance,
    pub(crate) idempotency: Idempotency,
    pub(crate) hedging: Option<HedgingConfig>,
    pub(crate) redelivery: Option<RedeliverySchedule>,
}

impl Default for Policy {
    fn default() -> Self {
        // The default configuration is valid (a unit test checks it), so the
        // fallback is never used; it only avoids a panic path.
        Policy::new(&PolicyConfig::default()).unwrap_or_else(|_| unreachable_default())
    }
}

#[cold]
fn unreachable_default() -> Policy {
    Policy {
        max_attempts: 1,
        total_budget_ms: 1,
        attempt_timeout: AttemptTimeout::Fixed { ms: 1 },
        response_reserve_ms: 0,
        minimum_useful_attempt_ms: 0,
        backoff: Backoff { kind: BackoffKind::Constant, base_ms: 0, multiplier_permille: 1000, cap_ms: 0 },
        jitter: Jitter::None,
        classification: Classification::default(),
        server_guidance: ServerGuidance {
            honor: false,
            cap_ms: 0,
            above_cap: AboveCap::GiveUp,
            mode: GuidanceMode::Floor,
        },
        idempotency: Idempotency::Unsafe,
        hedging: None,
        redelivery: None,
    }
}

/// Collects violations while validating.
struct Checker {
    violations: Vec<Violation>,
}

impl Checker {
    fn fail(&mut self, field: &str, message: String) {
        self.violations.push(Violation { field: field.to_owned(), message });
    }

    fn ms(&mut self, field: &str, value: u64) {
        if value > MAX_MS {
            self.fail(field, format!("{field} ({value}) must be <= {MAX_MS} (2^53 - 1)"));
        }
    }

    /// A decimal with at most three decimals in `[low, high]`, as thousandths.
    fn permille(&mut self, field: &str, value: f64, low: f64, high: f64, open_low: bool) -> u32 {
        permille_of(value, low, high, open_low).unwrap_or_else(|rule| {
            self.fail(field, format!("{field} ({}) {rule}", Decimal(value)));
            1000
        })
    }

    fn http_set(&mut self, field: &str, statuses: &[u16]) -> HttpStatusSet {
        let mut set = HttpStatusSet::default();
        for (index, status) in statuses.iter().enumerate() {
            if (100..=599).contains(status) {
                set.insert(*status);
            } else {
                self.fail(field, format!("{field}[{index}] ({status}) must be an HTTP status in 100..=599"));
            }
        }
        set
    }
}

/// A decimal with at most three decimals in `[low, high]` (or `(low, high]`)
/// as integer thousandths, or the rule it breaks.
pub(crate) fn permille_of(value: f64, low: f64, high: f64, open_low: bool) -> Result<u32, String> {
    let in_range = value.is_finite() && value <= high && if open_low { value > low } else { value >= low };
    if !in_range {
        let bracket = if open_low { "(" } else { "[" };
        return Err(format!("must be a number in {bracket}{}, {}]", Decimal(low), Decimal(high)));
    }
    let scaled = value * 1000.0;
    let rounded = scaled.round();
    if (scaled - rounded).abs() > 1e-6 {
        return Err("must have at most three decimals".to_owned());
    }
    // Finite and within the checked range (callers use ranges up to 1000), so the cast is exact.
    Ok(rounded as u32)
}

fn grpc_set(codes: &[GrpcCode]) -> GrpcCodeSet {
    let mut set = GrpcCodeSet::default();
    for code in codes {
        set.insert(*code);
    }
    set
}

impl Policy {
    /// Validates a configuration. Every broken rule is reported in
    /// [`Error::InvalidPolicy`], each naming its field.
    pub fn new(config: &PolicyConfig) -> Result<Policy, Error> {
        let mut check = Checker { violations: Vec::new() };
        let c = config;

        if !(1..=MAX_ATTEMPTS_LIMIT).contains(&c.max_attempts) {
            check.fail(
                "max_attempts",
                format!(
                    "max_attempts ({}) must be in 1..={MAX_ATTEMPTS_LIMIT} (it counts the first attempt: 3 means up to 2 retries)",
                    c.max_attempts
                ),
            );
        }
        if c.total_budget_ms == 0 {
            check.fail(
                "total_budget_ms",
                "total_budget_ms (0) must be >= 1: every operation needs a finite, non-zero budget".to_owned(),
            );
        }
        check.ms("total_budget_ms", c.total_budget_ms);
        check.ms("response_reserve_ms", c.response_reserve_ms);
        check.ms("minimum_useful_attempt_ms", c.minimum_useful_attempt_ms);
        let before_first_attempt = c.response_reserve_ms.saturating_add(c.minimum_useful_attempt_ms);
        if c.total_budget_ms > 0 && before_first_attempt >= c.total_budget_ms {
            check.fail(
                "total_budget_ms",
                format!(
                    "total_budget_ms ({}) must be > response_reserve_ms ({}) + minimum_useful_attempt_ms ({}), or no attempt could ever start",
                    c.total_budget_ms, c.response_reserve_ms, c.minimum_useful_attempt_ms
                ),
            );
        }

        let attempt_timeout = match c.attempt_timeout {
            AttemptTimeoutConfig::FixedMs(ms) => {
                check.ms("attempt_timeout.fixed_ms", ms);
                if ms == 0 {
                    check.fail("attempt_timeout.fixed_ms", "attempt_timeout.fixed_ms (0) must be >= 1".to_owned());
                } else if ms < c.minimum_useful_attempt_ms {
                    check.fail(
                        "attempt_timeout.fixed_ms",
                        format!(
                            "attempt_timeout.fixed_ms ({ms}) must be >= minimum_useful_attempt_ms ({}), or every attempt would be too short to be useful",
                            c.minimum_useful_attempt_ms
                        ),
                    );
                }
                AttemptTimeout::Fixed { ms }
            }
            AttemptTimeoutConfig::FractionOfRemaining(fraction) => AttemptTimeout::FractionOfRemaining {
                permille: check.permille("attempt_timeout.fraction_of_remaining", fraction, 0.0, 1.0, true),
            },
        };

        let b = &c.backoff;
        check.ms("backoff.base_ms", b.base_ms);
        check.ms("backoff.cap_ms", b.cap_ms);
        if b.cap_ms < b.base_ms {
            check.fail(
                "backoff.cap_ms",
                format!("backoff.cap_ms ({}) must be >= backoff.base_ms ({})", b.cap_ms, b.base_ms),
            );
        }
        let multiplier_permille = check.permille("backoff.multiplier", b.multiplier, 1.0, 100.0, false);
        if b.kind != BackoffKind::Constant && b.base_ms == 0 {
            check.fail(
                "backoff.base_ms",
                format!(
                    "backoff.base_ms (0) must be >= 1 for {} backoff (use kind \"constant\" for immediate retries)",
                    kind_name(b.kind)
                ),
            );
        }

        let jitter = match c.jitter {
            JitterConfig::None => Jitter::None,
            JitterConfig::Full => Jitter::Full,
            JitterConfig::Equal => Jitter::Equal,
            JitterConfig::Decorrelated => {
                if b.base_ms == 0 {
                    check.fail(
                        "jitter.kind",
                        "jitter.kind decorrelated needs backoff.base_ms >= 1 (it grows from the base)".to_owned(),
                    );
                }
                Jitter::Decorrelated
            }
            JitterConfig::Proportional { ratio } => {
                Jitter::Proportional { ratio_permille: check.permille("jitter.ratio", ratio, 0.0, 1.0, true) }
            }
            JitterConfig::A6 => Jitter::A6,
        };

        let classification = Classification {
            retry_http: check.http_set("retry_on.http_statuses", &c.retry_on.http_statuses),
            retry_grpc: grpc_set(&c.retry_on.grpc_codes),
            retry_transport: {
                let mut set = TransportSet::default();
                for failure in &c.retry_on.transport {
                    set.insert(*failure);
                }
                set
            },
            ambiguous_http: check.http_set("ambiguous.http_statuses", &c.ambiguous.http_statuses),
            ambiguous_grpc: grpc_set(&c.ambiguous.grpc_codes),
            conflict_http: check.http_set("conflict.http_statuses", &c.conflict.http_statuses),
            conflict_grpc: grpc_set(&c.conflict.grpc_codes),
            retry_error_codes: ErrorCodeTables::of(&c.retry_on.error_codes),
        };
        for status in classification.conflict_http.iter() {
            if status < 400 {
                check.fail(
                    "conflict.http_statuses",
                    format!("conflict.http_statuses ({status}) must be an error status (>= 400)"),
                );
            }
            if classification.retry_http.contains(status) {
                check.fail(
                    "conflict.http_statuses",
                    format!("conflict.http_statuses ({status}) must not also be in retry_on.http_statuses: a conflict is redone, not repeated"),
                );
            }
        }
        for status in classification.retry_http.iter().filter(|status| *status < 400) {
            check.fail(
                "retry_on.http_statuses",
                format!("retry_on.http_statuses ({status}) must be an error status (>= 400): 1xx-3xx count as success"),
            );
        }
        for code in classification.conflict_grpc.iter() {
            if classification.retry_grpc.contains(code) {
                check.fail(
                    "conflict.grpc_codes",
                    format!("conflict.grpc_codes ({}) must not also be in retry_on.grpc_codes", code.name()),
                );
            }
        }
        for (field, set) in [
            ("retry_on.grpc_codes", &c.retry_on.grpc_codes),
            ("ambiguous.grpc_codes", &c.ambiguous.grpc_codes),
            ("conflict.grpc_codes", &c.conflict.grpc_codes),
        ] {
            if set.contains(&GrpcCode::Ok) {
                check.fail(field, format!("{field} must not list ok: it counts as success"));
            }
        }

        check.ms("server_guidance.cap_ms", c.server_guidance.cap_ms);
        if let Some(hedging) = c.hedging {
            check.ms("hedging.delay_ms", hedging.delay_ms);
            if !(1..=MAX_HEDGED_ATTEMPTS).contains(&hedging.max_hedged_attempts) {
                check.fail(
                    "hedging.max_hedged_attempts",
                    format!(
                        "hedging.max_hedged_attempts ({}) must be in 1..={MAX_HEDGED_ATTEMPTS}",
                        hedging.max_hedged_attempts
                    ),
                );
            }
            if c.idempotency == Idempotency::Unsafe {
                check.fail(
                    "hedging",
                    "hedging needs an operation that may be repeated: idempotency must be safe, idempotent or keyed, not unsafe".to_owned(),
                );
            }
        }

        let redelivery = c.redelivery.as_ref().map(|config| {
            let count = config.delays_ms.len();
            if !(1..=MAX_REDELIVERY_DELAYS).contains(&count) {
                check.fail(
                    "redelivery.delays_ms",
                    format!("redelivery.delays_ms has {count} values; it must have 1 to {MAX_REDELIVERY_DELAYS}"),
                );
            }
            let mut delays_ms = [0; MAX_REDELIVERY_DELAYS];
            for (index, delay) in config.delays_ms.iter().enumerate() {
                check.ms(&format!("redelivery.delays_ms[{index}]"), *delay);
                if let Some(slot) = delays_ms.get_mut(index) {
                    *slot = *delay;
                }
            }
            check.ms("redelivery.max_age_ms", config.max_age_ms);
            RedeliverySchedule { delays_ms, len: count.min(MAX_REDELIVERY_DELAYS), max_age_ms: config.max_age_ms }
        });

        if !check.violations.is_empty() {
            return Err(Error::InvalidPolicy { violations: check.violations });
        }
        Ok(Policy {
            max_attempts: c.max_attempts,
            total_budget_ms: c.total_budget_ms,
            attempt_timeout,
            response_reserve_ms: c.response_reserve_ms,
            minimum_useful_attempt_ms: c.minimum_useful_attempt_ms,
            backoff: Backoff { kind: b.kind, base_ms: b.base_ms, multiplier_permille, cap_ms: b.cap_ms },
            jitter,
            classification,
            server_guidance: ServerGuidance {
                honor: c.server_guidance.honor,
                cap_ms: c.server_guidance.cap_ms,
                above_cap: c.server_guidance.above_cap,
                mode: c.server_guidance.mode,
            },
            idempotency: c.idempotency,
            hedging: c.hedging,
            redelivery,
        })
    }

    #[cfg(feature = "json")]
    /// Reads and validates a policy from JSON text. Reading errors name the
    /// field path ([`Error::InvalidPolicyJson`]); rule violations come as
    /// [`Error::InvalidPolicy`].
    pub fn from_json(json: &str) -> Result<Policy, Error> {
        Policy::new(&PolicyConfig::from_json(json)?)
    }

    /// The configuration this policy was validated from (normalised: sets
    /// sorted, ratios as decimals).
    #[must_use]
    pub fn to_config(&self) -> PolicyConfig {
        let cls = &self.classification;
        PolicyConfig {
            max_attempts: self.max_attempts,
            total_budget_ms: self.total_budget_ms,
            attempt_timeout: match self.attempt_timeout {
                AttemptTimeout::Fixed { ms } => AttemptTimeoutConfig::FixedMs(ms),
                AttemptTimeout::FractionOfRemaining { permille } => {
                    AttemptTimeoutConfig::FractionOfRemaining(f64::from(permille) / 1000.0)
                }
            },
            response_reserve_ms: self.response_reserve_ms,
            minimum_useful_attempt_ms: self.minimum_useful_attempt_ms,
            backoff: BackoffConfig {
                kind: self.backoff.kind,
                base_ms: self.backoff.base_ms,
                multiplier: f64::from(self.backoff.multiplier_permille) / 1000.0,
                cap_ms: self.backoff.cap_ms,
            },
            jitter: match self.jitter {
                Jitter::None => JitterConfig::None,
                Jitter::Full => JitterConfig::Full,
                Jitter::Equal => JitterConfig::Equal,
                Jitter::Decorrelated => JitterConfig::Decorrelated,
                Jitter::Proportional { ratio_permille } => {
                    JitterConfig::Proportional { ratio: f64::from(ratio_permille) / 1000.0 }
                }
                Jitter::A6 => JitterConfig::A6,
            },
            retry_on: RetryOnConfig {
                http_statuses: cls.retry_http.iter().collect(),
                grpc_codes: cls.retry_grpc.iter().collect(),
                transport: cls.retry_transport.iter().collect(),
                error_codes: cls.retry_error_codes.iter().collect(),
            },
            ambiguous: StatusSetConfig {
                http_statuses: cls.ambiguous_http.iter().collect(),
                grpc_codes: cls.ambiguous_grpc.iter().collect(),
            },
            conflict: StatusSetConfig {
                http_statuses: cls.conflict_http.iter().collect(),
                grpc_codes: cls.conflict_grpc.iter().collect(),
            },
            server_guidance: ServerGuidanceConfig {
                honor: self.server_guidance.honor,
                cap_ms: self.server_guidance.cap_ms,
                above_cap: self.server_guidance.above_cap,
                mode: self.server_guidance.mode,
            },
            idempotency: self.idempotency,
            hedging: self.hedging,
            redelivery: self.redelivery.map(RedeliverySchedule::to_config),
        }
    }

    /// Attempts allowed in all, the first included.
    #[must_use]
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }
    /// The operation's time budget in ms.
    #[must_use]
    pub fn total_budget_ms(&self) -> u64 {
        self.total_budget_ms
    }
    /// The per-attempt timeout rule.
    #[must_use]
    pub fn attempt_timeout(&self) -> AttemptTimeout {
        self.attempt_timeout
    }
    /// Time kept back for the last response, in ms.
    #[must_use]
    pub fn response_reserve_ms(&self) -> u64 {
        self.response_reserve_ms
    }
    /// Least time worth starting an attempt with, in ms.
    #[must_use]
    pub fn minimum_useful_attempt_ms(&self) -> u64 {
        self.minimum_useful_attempt_ms
    }
    /// Backoff ceilings.
    #[must_use]
    pub fn backoff(&self) -> Backoff {
        self.backoff
    }
    /// Jitter.
    #[must_use]
    pub fn jitter(&self) -> Jitter {
        self.jitter
    }
    /// Outcome classification sets.
    #[must_use]
    pub fn classification(&self) -> &Classification {
        &self.classification
    }
    /// Server guidance handling.
    #[must_use]
    pub fn server_guidance(&self) -> ServerGuidance {
        self.server_guidance
    }
    /// Whether repeating may repeat the effect.
    #[must_use]
    pub fn idempotency(&self) -> Idempotency {
        self.idempotency
    }
    /// Hedging, if enabled.
    #[must_use]
    pub fn hedging(&self) -> Option<HedgingConfig> {
        self.hedging
    }
}

fn kind_name(kind: BackoffKind) -> &'static str {
    match kind {
        BackoffKind::Exponential => "exponential",
        BackoffKind::Linear => "linear",
        BackoffKind::Constant => "constant",
    }
}

/// The fields of a policy object, in the order `to_json` writes them.
const POLICY_FIELDS: &[&str] = &[
    "max_attempts",
    "total_budget_ms",
    "attempt_timeout",
    "response_reserve_ms",
    "minimum_useful_attempt_ms",
    "backoff",
    "jitter",
    "retry_on",
    "ambiguous",
    "conflict",
    "server_guidance",
    "idempotency",
    "hedging",
    "redelivery",
];

impl PolicyConfig {
    /// Reads a configuration from a [`Value`] without validating its rules:
    /// absent fields take their defaults, unknown fields are refused, and a
    /// list is accepted only where the schema has one. Errors name the dotted
    /// path of the field being read.
    ///
    /// # Errors
    /// [`Error::InvalidPolicyJson`].
    pub fn from_value(value: &Value) -> Result<PolicyConfig, Error> {
        let mut config = PolicyConfig::default();
        let fields = Fields::new(value, "", POLICY_FIELDS)?;
        // Each present field replaces its default; `Fields::new` refused any other key.
        for (key, item) in fields.entries() {
            let path = fields.path(key);
            let path = path.as_str();
            match key {
                "max_attempts" => config.max_attempts = u32::from_value(item, path)?,
                "total_budget_ms" => config.total_budget_ms = u64::from_value(item, path)?,
                "attempt_timeout" => config.attempt_timeout = read_attempt_timeout(item, path)?,
                "response_reserve_ms" => config.response_reserve_ms = u64::from_value(item, path)?,
                "minimum_useful_attempt_ms" => config.minimum_useful_attempt_ms = u64::from_value(item, path)?,
                "backoff" => config.backoff = read_backoff(item, path)?,
                "jitter" => config.jitter = read_jitter(item, path)?,
                "retry_on" => config.retry_on = read_retry_on(item, path)?,
                "ambiguous" => config.ambiguous = read_status_set(item, path)?,
                "conflict" => config.conflict = read_status_set(item, path)?,
                "server_guidance" => config.server_guidance = read_server_guidance(item, path)?,
                "idempotency" => config.idempotency = read_name(item, path)?,
                "hedging" => config.hedging = optional(item, path, read_hedging)?,
                "redelivery" => config.redelivery = optional(item, path, RedeliveryConfig::read)?,
                _ => {}
            }
        }
        Ok(config)
    }

    /// The configuration as a [`Value`] (what `to_json` prints).
    #[must_use]
    pub fn to_value(&self) -> Value {
        // Plain data with string keys: serializing it cannot fail.
        Value::from_serialize(self).unwrap_or(Value::Null)
    }
}

#[cfg(feature = "json")]
impl PolicyConfig {
    /// Reads a configuration from JSON text without validating its rules (see
    /// [`PolicyConfig::from_value`]).
    ///
    /// # Errors
    /// [`Error::InvalidPolicyJson`], naming the dotted path of the field being read.
    pub fn from_json(json: &str) -> Result<PolicyConfig, Error> {
        PolicyConfig::from_value(&Value::from_json(json)?)
    }

    /// The configuration as pretty-printed JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        self.to_value().to_json()
    }
}

fn read_attempt_timeout(value: &Value, path: &str) -> Result<AttemptTimeoutConfig, Error> {
    let (key, inner) = one_of(value, path, &["fixed_ms", "fraction_of_remaining"])?;
    let path = join(path, key);
    Ok(if key == "fixed_ms" {
        AttemptTimeoutConfig::FixedMs(u64::from_value(inner, &path)?)
    } else {
        AttemptTimeoutConfig::FractionOfRemaining(f64::from_value(inner, &path)?)
    })
}

fn read_backoff(value: &Value, path: &str) -> Result<BackoffConfig, Error> {
    let defaults = BackoffConfig::default();
    let fields = Fields::new(value, path, &["kind", "base_ms", "multiplier", "cap_ms"])?;
    Ok(BackoffConfig {
        kind: fields.with("kind", defaults.kind, read_name)?,
        base_ms: fields.or("base_ms", defaults.base_ms)?,
        multiplier: fields.or("multiplier", defaults.multiplier)?,
        cap_ms: fields.or("cap_ms", defaults.cap_ms)?,
    })
}

fn read_jitter(value: &Value, path: &str) -> Result<JitterConfig, Error> {
    let (kind, fields) = tagged(value, path, |kind: JitterKind| match kind {
        JitterKind::Proportional => &["kind", "ratio"],
        _ => &["kind"],
    })?;
    Ok(match kind {
        JitterKind::None => JitterConfig::None,
        JitterKind::Full => JitterConfig::Full,
        JitterKind::Equal => JitterConfig::Equal,
        JitterKind::Decorrelated => JitterConfig::Decorrelated,
        JitterKind::Proportional => JitterConfig::Proportional { ratio: fields.required("ratio")? },
        JitterKind::A6 => JitterConfig::A6,
    })
}

/// The names of [`JitterConfig`]'s variants (its `kind` tag).
#[derive(Clone, Copy)]
enum JitterKind {
    None,
    Full,
    Equal,
    Decorrelated,
    Proportional,
    A6,
}

impl Named for JitterKind {
    const ALL: &'static [Self] = &[
        JitterKind::None,
        JitterKind::Full,
        JitterKind::Equal,
        JitterKind::Decorrelated,
        JitterKind::Proportional,
        JitterKind::A6,
    ];
    fn name(self) -> &'static str {
        match self {
            JitterKind::None => "none",
            JitterKind::Full => "full",
            JitterKind::Equal => "equal",
            JitterKind::Decorrelated => "decorrelated",
            JitterKind::Proportional => "proportional",
            JitterKind::A6 => "a6",
        }
    }
}

fn read_retry_on(value: &Value, path: &str) -> Result<RetryOnConfig, Error> {
    let defaults = RetryOnConfig::default();
    let fields = Fields::new(value, path, &["http_statuses", "grpc_codes", "transport", "error_codes"])?;
    Ok(RetryOnConfig {
        http_statuses: fields.or("http_statuses", defaults.http_statuses)?,
        grpc_codes: fields.with("grpc_codes", defaults.grpc_codes, read_names)?,
        transport: fields.with("transport", defaults.transport, read_names)?,
        error_codes: fields.with("error_codes", defaults.error_codes, read_names)?,
    })
}

fn read_status_set(value: &Value, path: &str) -> Result<StatusSetConfig, Error> {
    let fields = Fields::new(value, path, &["http_statuses", "grpc_codes"])?;
    Ok(StatusSetConfig {
        http_statuses: fields.or("http_statuses", Vec::new())?,
        grpc_codes: fields.with("grpc_codes", Vec::new(), read_names)?,
    })
}

fn read_server_guidance(value: &Value, path: &str) -> Result<ServerGuidanceConfig, Error> {
    let defaults = ServerGuidanceConfig::default();
    let fields = Fields::new(value, path, &["honor", "cap_ms", "above_cap", "mode"])?;
    Ok(ServerGuidanceConfig {
        honor: fields.or("honor", defaults.honor)?,
        cap_ms: fields.or("cap_ms", defaults.cap_ms)?,
        above_cap: fields.with("above_cap", defaults.above_cap, read_name)?,
        mode: fields.with("mode", defaults.mode, read_name)?,
    })
}

fn read_hedging(value: &Value, path: &str) -> Result<HedgingConfig, Error> {
    let fields = Fields::new(value, path, &["delay_ms", "max_hedged_attempts"])?;
    Ok(HedgingConfig {
        delay_ms: fields.required("delay_ms")?,
        max_hedged_attempts: fields.required("max_hedged_attempts")?,
    })
}

/// A list of enum names.
fn read_names<T: Named>(value: &Value, path: &str) -> Result<Vec<T>, Error> {
    match value {
        Value::List(items) => {
            items.iter().enumerate().map(|(index, item)| read_name(item, &format!("{path}[{index}]"))).collect()
        }
        other => Err(expected(path, "a list of names", other)),
    }
}

impl Named for BackoffKind {
    const ALL: &'static [Self] = &[BackoffKind::Exponential, BackoffKind::Linear, BackoffKind::Constant];
    fn name(self) -> &'static str {
        kind_name(self)
    }
}

impl Named for AboveCap {
    const ALL: &'static [Self] = &[AboveCap::Clamp, AboveCap::GiveUp];
    fn name(self) -> &'static str {
        match self {
            AboveCap::Clamp => "clamp",
            AboveCap::GiveUp => "give_up",
        }
    }
}

impl Named for Idempotency {
    const ALL: &'static [Self] = &[Idempotency::Safe, Idempotency::Idempotent, Idempotency::Keyed, Idempotency::Unsafe];
    fn name(self) -> &'static str {
        match self {
            Idempotency::Safe => "safe",
            Idempotency::Idempotent => "idempotent",
            Idempotency::Keyed => "keyed",
            Idempotency::Unsafe => "unsafe",
        }
    }
}

crate::value::deserialize_through_value!(PolicyConfig, |value, _| PolicyConfig::from_value(value));
crate::value::deserialize_through_value!(AttemptTimeoutConfig, read_attempt_timeout);
crate::value::deserialize_through_value!(BackoffConfig, read_backoff);
crate::value::deserialize_through_value!(JitterConfig, read_jitter);
crate::value::deserialize_through_value!(RetryOnConfig, read_retry_on);
crate::value::deserialize_through_value!(StatusSetConfig, read_status_set);
crate::value::deserialize_through_value!(ServerGuidanceConfig, read_server_guidance);
crate::value::deserialize_through_value!(HedgingConfig, read_hedging);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid_and_round_trips() {
        let config = PolicyConfig::default();
        let policy = Policy::new(&config).expect("default is valid");
        assert_eq!(policy, Policy::default());
        assert_eq!(policy.to_config(), config);
        let json = config.to_json();
        assert_eq!(PolicyConfig::from_json(&json).expect("round trip"), config);
    }

    #[test]
    fn every_violation_is_reported_with_its_field() {
        let mut config = PolicyConfig::default();
        config.max_attempts = 0;
        config.backoff.base_ms = 200;
        config.backoff.cap_ms = 100;
        config.backoff.multiplier = 2.0005;
        config.jitter = JitterConfig::Proportional { ratio: f64::NAN };
        config.retry_on.http_statuses = vec![503, 700];
        let Err(Error::InvalidPolicy { violations }) = Policy::new(&config) else {
            panic!("expected invalid policy");
        };
        let fields: Vec<&str> = violations.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(
            fields,
            ["max_attempts", "backoff.cap_ms", "backoff.multiplier", "jitter.ratio", "retry_on.http_statuses"]
        );
        assert_eq!(violations[1].message, "backoff.cap_ms (100) must be >= backoff.base_ms (200)");
        assert_eq!(violations[4].message, "retry_on.http_statuses[1] (700) must be an HTTP status in 100..=599");
    }

    #[test]
    fn json_errors_name_the_path() {
        let error = PolicyConfig::from_json(r#"{"backoff": {"base_ms": -5}}"#).unwrap_err();
        let Error::InvalidPolicyJson { field, message } = error else { panic!("wrong error") };
        assert_eq!(field, "backoff.base_ms");
        assert!(message.contains("-5"), "{message}");
        let error = PolicyConfig::from_json(r#"{"max_attemps": 3}"#).unwrap_err();
        assert!(error.to_string().contains("unknown field `max_attemps`"), "{error}");
        let error = PolicyConfig::from_json(r#"{} {}"#).unwrap_err();
        assert_eq!(error.code(), "invalid_policy_json");
    }

    #[test]
    fn serde_reads_every_config_type_through_the_one_reader() {
        let backoff: BackoffConfig = serde_json::from_str(r#"{"base_ms": 5}"#).unwrap();
        assert_eq!(backoff, BackoffConfig { base_ms: 5, ..BackoffConfig::default() });
        let timeout: AttemptTimeoutConfig = serde_json::from_str(r#"{"fixed_ms": 7}"#).unwrap();
        assert_eq!(timeout, AttemptTimeoutConfig::FixedMs(7));
        let error = serde_json::from_str::<HedgingConfig>(r#"{"delay_ms": 5}"#).unwrap_err();
        assert!(error.to_string().contains("max_hedged_attempts"), "{error}");
        let error = serde_json::from_str::<PolicyConfig>(r#"{"jitter": {"kind": "full", "ratio": 0.2}}"#).unwrap_err();
        assert!(error.to_string().contains("jitter.ratio"), "{error}");
    }

    #[test]
    fn budget_must_leave_room_for_one_attempt() {
        let mut config = PolicyConfig::default();
        config.total_budget_ms = 150;
        config.response_reserve_ms = 50;
        config.minimum_useful_attempt_ms = 100;
        let error = Policy::new(&config).unwrap_err();
        assert!(error.to_string().contains("no attempt could ever start"), "{error}");
    }
}
