//! The validated, immutable [`Policy`] and its parts, read back through its
//! accessors and [`Policy::to_config`]. Built only by `validate.rs`.

use super::config::{
    AboveCap, AttemptTimeoutConfig, BackoffConfig, BackoffKind, GuidanceHeaders, GuidanceMode, HeaderFamily,
    HedgingConfig, Idempotency, JitterConfig, PolicyConfig, PropagationConfig, RedeliveryConfig, RetryLayer,
    RetryOnConfig, ServerGuidanceConfig, StatusSetConfig, MAX_REDELIVERY_DELAYS,
};
use super::retry_limits::{MethodSet, RetryLimits};
use super::sets::{Classification, SERVER_ERRORS};
use super::status_rules::StatusRules;
use crate::ground::named::Named;
use crate::headers::retry_after::RetryAfterReading;

/// Validated per-attempt timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttemptTimeout {
    /// A fixed number of milliseconds.
    Fixed {
        /// The timeout.
        ms: u64,
    },
    /// Thousandths of the remaining time.
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
    /// See [`JitterConfig::Polly`].
    Polly {
        /// Polly's `UseJitter`.
        use_jitter: bool,
    },
    /// See [`JitterConfig::A6`].
    A6,
    /// See [`JitterConfig::FullThenCap`].
    FullThenCap,
    /// See [`JitterConfig::Additive`].
    Additive {
        /// The most added on top of the ceiling, in ms.
        max_ms: u64,
    },
}

/// Validated backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Backoff {
    /// How the ceiling grows.
    pub kind: BackoffKind,
    /// First ceiling in ms.
    pub base_ms: u64,
    /// Growth factor in thousandths (2000 = x2; below 1000 the ceilings shrink).
    pub multiplier_permille: u32,
    /// Upper bound of every ceiling and delay, in ms.
    pub cap_ms: u64,
    /// The base after a throttling error, if it differs from `base_ms`.
    pub throttling_base_ms: Option<u64>,
    /// The first retry waits no backoff.
    pub immediate_first_retry: bool,
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
    /// How HTTP helpers read `Retry-After`.
    pub retry_after_reading: RetryAfterReading,
    /// Per-status rules.
    pub statuses: StatusRules,
    /// How guidance shapes the delay.
    pub mode: GuidanceMode,
    /// The most guidance may raise the delay above the drawn backoff.
    pub max_above_backoff_ms: Option<u64>,
    /// Which response headers HTTP helpers read guidance from.
    pub headers: GuidanceHeaders,
}

/// The validated schedule, stored in a [`Policy`] without heap data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RedeliverySchedule {
    pub(crate) delays_ms: [u64; MAX_REDELIVERY_DELAYS],
    pub(crate) len: usize,
    pub(crate) max_age_ms: u64,
}

impl RedeliverySchedule {
    /// The section as written, for [`Policy::to_config`].
    pub(crate) fn to_config(self) -> RedeliveryConfig {
        RedeliveryConfig {
            delays_ms: self.delays_ms.iter().copied().take(self.len).collect(),
            max_age_ms: self.max_age_ms,
        }
    }
}

/// A set of [`HeaderFamily`]s, one bit each in the order of their table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HeaderFamilies {
    pub(crate) bits: u8,
}

impl HeaderFamilies {
    /// Every family.
    pub const ALL: HeaderFamilies = HeaderFamilies { bits: 0b111 };

    /// The set of these families.
    #[must_use]
    pub fn of(families: &[HeaderFamily]) -> HeaderFamilies {
        families.iter().fold(HeaderFamilies::default(), |set, family| HeaderFamilies { bits: set.bits | bit(*family) })
    }

    /// Whether `family` is in the set.
    #[must_use]
    pub fn contains(self, family: HeaderFamily) -> bool {
        self.bits & bit(family) != 0
    }

    /// The families in the set, in table order.
    pub fn iter(self) -> impl Iterator<Item = HeaderFamily> {
        HeaderFamily::ALL.iter().copied().filter(move |family| self.contains(*family))
    }
}

fn bit(family: HeaderFamily) -> u8 {
    let place = HeaderFamily::ALL.iter().position(|known| *known == family).unwrap_or_default();
    1 << place
}

/// Validated `propagation` section (see [`PropagationConfig`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Propagation {
    /// Kept back from the caller's remaining time for the answer's way back, in ms.
    pub reserve_ms: u64,
    /// Which layer retries.
    pub retry_layer: RetryLayer,
    /// The header families read from an incoming request.
    pub read_headers: HeaderFamilies,
}

impl Propagation {
    /// The section as written, for [`Policy::to_config`].
    pub(crate) fn to_config(self) -> PropagationConfig {
        PropagationConfig {
            reserve_ms: self.reserve_ms,
            retry_layer: self.retry_layer,
            read_headers: self.read_headers.iter().collect(),
        }
    }
}

/// A validated, immutable policy. Cheap to copy (no heap data).
///
/// ```
/// use retryplan::Policy;
/// let policy = Policy::from_json(r#"{"max_attempts": 4, "total_timeout_ms": 2000}"#).unwrap();
/// assert_eq!(policy.max_attempts(), 4);
/// let error = Policy::from_json(r#"{"backoff": {"base_ms": 200, "cap_ms": 100}}"#).unwrap_err();
/// assert_eq!(error.to_string(), "invalid policy: backoff.cap_ms (100) must be >= backoff.base_ms (200)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Policy {
    pub(crate) max_attempts: u32,
    pub(crate) total_timeout_ms: u64,
    pub(crate) attempt_timeout: AttemptTimeout,
    pub(crate) response_reserve_ms: u64,
    pub(crate) minimum_useful_attempt_ms: u64,
    pub(crate) backoff: Backoff,
    pub(crate) jitter: Jitter,
    pub(crate) classification: Classification,
    pub(crate) server_guidance: ServerGuidance,
    pub(crate) retry_limits: RetryLimits,
    pub(crate) retry_methods: Option<MethodSet>,
    pub(crate) idempotency: Idempotency,
    pub(crate) hedging: Option<HedgingConfig>,
    pub(crate) redelivery: Option<RedeliverySchedule>,
    pub(crate) propagation: Propagation,
}

impl Policy {
    /// The configuration this policy was validated from (normalised: sets
    /// sorted, ratios as decimals).
    #[must_use]
    pub fn to_config(&self) -> PolicyConfig {
        let cls = &self.classification;
        PolicyConfig {
            max_attempts: self.max_attempts,
            total_timeout_ms: self.total_timeout_ms,
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
                throttling_base_ms: self.backoff.throttling_base_ms,
                immediate_first_retry: self.backoff.immediate_first_retry,
            },
            jitter: match self.jitter {
                Jitter::None => JitterConfig::None,
                Jitter::Full => JitterConfig::Full,
                Jitter::Equal => JitterConfig::Equal,
                Jitter::Decorrelated => JitterConfig::Decorrelated,
                Jitter::Proportional { ratio_permille } => {
                    JitterConfig::Proportional { ratio: f64::from(ratio_permille) / 1000.0 }
                }
                Jitter::Polly { use_jitter } => JitterConfig::Polly { use_jitter },
                Jitter::A6 => JitterConfig::A6,
                Jitter::FullThenCap => JitterConfig::FullThenCap,
                Jitter::Additive { max_ms } => JitterConfig::Additive { max_ms },
            },
            retry_on: RetryOnConfig {
                http_statuses: cls
                    .retry_http
                    .iter()
                    .filter(|status| !(cls.retry_all_server_errors && SERVER_ERRORS.contains(status)))
                    .collect(),
                grpc_codes: cls.retry_grpc.iter().collect(),
                transport: cls.retry_transport.iter().collect(),
                error_codes: cls.retry_error_codes.iter().collect(),
                all_server_errors: cls.retry_all_server_errors,
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
                retry_after_reading: self.server_guidance.retry_after_reading,
                statuses: self.server_guidance.statuses.to_config(),
                mode: self.server_guidance.mode,
                max_above_backoff_ms: self.server_guidance.max_above_backoff_ms,
                headers: self.server_guidance.headers,
            },
            retry_limits: self.retry_limits.to_config(),
            retry_methods: self.retry_methods.map(|methods| methods.iter().map(alloc::string::String::from).collect()),
            idempotency: self.idempotency,
            hedging: self.hedging,
            redelivery: self.redelivery.map(RedeliverySchedule::to_config),
            propagation: self.propagation.to_config(),
        }
    }

    /// Attempts allowed in all, the first included.
    #[must_use]
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }
    /// The operation's total timeout in ms: every attempt and wait fit in it.
    #[must_use]
    pub fn total_timeout_ms(&self) -> u64 {
        self.total_timeout_ms
    }
    /// The old name of [`Policy::total_timeout_ms`], kept for one release.
    #[deprecated(
        note = "renamed `total_timeout_ms` (\"budget\" names the retry budget only); this alias is removed in the next release"
    )]
    #[must_use]
    pub fn total_budget_ms(&self) -> u64 {
        self.total_timeout_ms
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
    /// Retries allowed per kind of failure.
    #[must_use]
    pub fn retry_limits(&self) -> RetryLimits {
        self.retry_limits
    }
    /// The HTTP methods retried at all (`None`: RFC 9110 decides).
    #[must_use]
    pub fn retry_methods(&self) -> Option<MethodSet> {
        self.retry_methods
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
    /// How deadlines, attempt counts and retries cross hops.
    #[must_use]
    pub fn propagation(&self) -> Propagation {
        self.propagation
    }
}
