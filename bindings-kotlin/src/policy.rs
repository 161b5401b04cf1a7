//! Policies: the configuration as a Kotlin data class, the validated `Policy`
//! object, and the pieces computed from a policy (classification, ceilings,
//! the worst-case timeline). Defaults and rules all come from the core.

use std::sync::Arc;

use serde::{Serialize, Serializer};

use retryplan as rp;
use retryplan::aws::ErrorCodeTable;
use retryplan::value::Value;
use retryplan::{
    AboveCap, BackoffKind, Class, DeadLetterReason, GrpcCode, GuidanceMode, Idempotency, JitterConfig,
    RetryAfterReading, TransportFailure,
};

use crate::decision::{Decision, Outcome};
use crate::{clock_in, count_out, long_out, ms_in, u32_in, Result, RetryplanError};

/// How long one attempt may run.
#[derive(Clone, Copy, Debug, PartialEq, uniffi::Enum)]
pub enum AttemptTimeoutConfig {
    /// Every attempt gets `ms` (less if the budget has less left).
    FixedMs { ms: i64 },
    /// Every attempt gets this fraction, in (0, 1], of what remains when it starts.
    FractionOfRemaining { fraction: f64 },
}

/// As the JSON schema spells it: `{"fixed_ms": 200}` or `{"fraction_of_remaining": 0.25}`.
impl Serialize for AttemptTimeoutConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            AttemptTimeoutConfig::FixedMs { ms } => {
                serializer.serialize_newtype_variant("AttemptTimeoutConfig", 0, "fixed_ms", &ms)
            }
            AttemptTimeoutConfig::FractionOfRemaining { fraction } => {
                serializer.serialize_newtype_variant("AttemptTimeoutConfig", 1, "fraction_of_remaining", &fraction)
            }
        }
    }
}

/// Backoff ceilings before jitter.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, uniffi::Record)]
pub struct BackoffConfig {
    pub kind: BackoffKind,
    pub base_ms: i64,
    pub multiplier: f64,
    pub cap_ms: i64,
    /// The first retry waits no backoff (urllib3's shape).
    pub immediate_first_retry: bool,
    /// The base after a throttling error; null: `base_ms`.
    #[uniffi(default)]
    pub throttling_base_ms: Option<i64>,
}

/// Outcomes that may be retried.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, uniffi::Record)]
pub struct RetryOnConfig {
    pub http_statuses: Vec<i32>,
    pub grpc_codes: Vec<GrpcCode>,
    pub transport: Vec<TransportFailure>,
    /// Built-in error-code tables (AWS standard mode) retried whatever the status.
    #[uniffi(default)]
    pub error_codes: Vec<ErrorCodeTable>,
}

/// A set of HTTP statuses and gRPC codes with one meaning (ambiguous, or conflict).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, uniffi::Record)]
pub struct StatusSetConfig {
    pub http_statuses: Vec<i32>,
    pub grpc_codes: Vec<GrpcCode>,
}

/// How server guidance (Retry-After, gRPC pushback) is honored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, uniffi::Record)]
pub struct ServerGuidanceConfig {
    pub honor: bool,
    pub cap_ms: i64,
    pub above_cap: AboveCap,
    /// How HTTP helpers read Retry-After: `STRICT` (RFC 9110) or `LENIENT`.
    pub retry_after_reading: RetryAfterReading,
    /// Per-status rules; null fields take the section's values.
    pub statuses: Vec<StatusGuidanceConfig>,
    /// `Floor` (the default), `A6` (guidance replaces the backoff and restarts it)
    /// or `Replace` (guidance replaces the backoff, the schedule keeps counting).
    pub mode: GuidanceMode,
    /// The most guidance may raise the delay above the drawn backoff; null: no bound.
    #[uniffi(default)]
    pub max_above_backoff_ms: Option<i64>,
}

/// One per-status rule of `server_guidance.statuses`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, uniffi::Record)]
pub struct StatusGuidanceConfig {
    pub status: i32,
    /// The section's `honor` when null.
    pub honor: Option<bool>,
    /// Retried only when the answer carries guidance.
    pub requires_guidance: bool,
    /// The section's `cap_ms` when null.
    pub cap_ms: Option<i64>,
    /// The section's `above_cap` when null.
    pub above_cap: Option<AboveCap>,
}

/// Retries allowed after failures of each kind (null: no limit but `max_attempts`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, uniffi::Record)]
pub struct RetryLimitsConfig {
    /// After the connection was not made.
    pub connect: Option<i32>,
    /// After the connection broke or timed out after sending.
    pub read: Option<i32>,
    /// After a retryable status.
    pub status: Option<i32>,
    /// After an application verdict `retryable`.
    pub other: Option<i32>,
}

/// Hedging: extra attempts started while the first still runs (not for `unsafe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, uniffi::Record)]
pub struct HedgingConfig {
    /// How long an attempt runs without an answer before the next hedge starts.
    pub delay_ms: i64,
    /// Extra attempts that may run beside the first.
    pub max_hedged_attempts: i32,
}

/// A queue redelivery schedule (see `Policy.redeliver`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, uniffi::Record)]
pub struct RedeliveryConfig {
    /// The delay before each redelivery; the last one repeats.
    pub delays_ms: Vec<i64>,
    /// No redelivery is scheduled later than this after the message was first seen.
    pub max_age_ms: i64,
}

/// The policy as written, field for field the core's `PolicyConfig` (snake_case
/// in JSON, camelCase in Kotlin). Start from `defaultPolicyConfig()` or
/// `profileConfig(name)` and `copy(...)` what you change; `Policy(config)`
/// validates it.
#[derive(Clone, Debug, PartialEq, Serialize, uniffi::Record)]
pub struct PolicyConfig {
    /// Attempts in all, the first included (3 = one try and up to two retries).
    pub max_attempts: i32,
    pub total_budget_ms: i64,
    pub attempt_timeout: AttemptTimeoutConfig,
    pub response_reserve_ms: i64,
    pub minimum_useful_attempt_ms: i64,
    pub backoff: BackoffConfig,
    pub jitter: JitterConfig,
    pub retry_on: RetryOnConfig,
    pub ambiguous: StatusSetConfig,
    pub conflict: StatusSetConfig,
    pub server_guidance: ServerGuidanceConfig,
    /// Retries allowed per kind of failure.
    pub retry_limits: RetryLimitsConfig,
    /// The HTTP methods retried at all; RFC 9110 decides when null.
    pub retry_methods: Option<Vec<String>>,
    pub idempotency: Idempotency,
    /// Hedging, off when null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hedging: Option<HedgingConfig>,
    /// Queue redelivery schedule; the backoff ceilings and total budget when null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redelivery: Option<RedeliveryConfig>,
}

fn statuses_out(statuses: Vec<u16>) -> Vec<i32> {
    statuses.into_iter().map(i32::from).collect()
}

impl From<rp::PolicyConfig> for PolicyConfig {
    fn from(c: rp::PolicyConfig) -> Self {
        PolicyConfig {
            max_attempts: count_out(c.max_attempts),
            total_budget_ms: long_out(c.total_budget_ms),
            attempt_timeout: match c.attempt_timeout {
                rp::AttemptTimeoutConfig::FixedMs(ms) => AttemptTimeoutConfig::FixedMs { ms: long_out(ms) },
                rp::AttemptTimeoutConfig::FractionOfRemaining(fraction) => {
                    AttemptTimeoutConfig::FractionOfRemaining { fraction }
                }
            },
            response_reserve_ms: long_out(c.response_reserve_ms),
            minimum_useful_attempt_ms: long_out(c.minimum_useful_attempt_ms),
            backoff: BackoffConfig {
                kind: c.backoff.kind,
                base_ms: long_out(c.backoff.base_ms),
                multiplier: c.backoff.multiplier,
                cap_ms: long_out(c.backoff.cap_ms),
                immediate_first_retry: c.backoff.immediate_first_retry,
                throttling_base_ms: c.backoff.throttling_base_ms.map(long_out),
            },
            jitter: c.jitter,
            retry_on: RetryOnConfig {
                http_statuses: statuses_out(c.retry_on.http_statuses),
                grpc_codes: c.retry_on.grpc_codes,
                transport: c.retry_on.transport,
                error_codes: c.retry_on.error_codes,
            },
            ambiguous: StatusSetConfig {
                http_statuses: statuses_out(c.ambiguous.http_statuses),
                grpc_codes: c.ambiguous.grpc_codes,
            },
            conflict: StatusSetConfig {
                http_statuses: statuses_out(c.conflict.http_statuses),
                grpc_codes: c.conflict.grpc_codes,
            },
            server_guidance: ServerGuidanceConfig {
                honor: c.server_guidance.honor,
                cap_ms: long_out(c.server_guidance.cap_ms),
                above_cap: c.server_guidance.above_cap,
                retry_after_reading: c.server_guidance.retry_after_reading,
                statuses: c
                    .server_guidance
                    .statuses
                    .into_iter()
                    .map(|rule| StatusGuidanceConfig {
                        status: i32::from(rule.status),
                        honor: rule.honor,
                        requires_guidance: rule.requires_guidance,
                        cap_ms: rule.cap_ms.map(long_out),
                        above_cap: rule.above_cap,
                    })
                    .collect(),
                mode: c.server_guidance.mode,
                max_above_backoff_ms: c.server_guidance.max_above_backoff_ms.map(long_out),
            },
            retry_limits: RetryLimitsConfig {
                connect: c.retry_limits.connect.map(count_out),
                read: c.retry_limits.read.map(count_out),
                status: c.retry_limits.status.map(count_out),
                other: c.retry_limits.other.map(count_out),
            },
            retry_methods: c.retry_methods,
            idempotency: c.idempotency,
            hedging: c.hedging.map(|h| HedgingConfig {
                delay_ms: long_out(h.delay_ms),
                max_hedged_attempts: count_out(h.max_hedged_attempts),
            }),
            redelivery: c.redelivery.map(|r| RedeliveryConfig {
                delays_ms: r.delays_ms.into_iter().map(long_out).collect(),
                max_age_ms: long_out(r.max_age_ms),
            }),
        }
    }
}

impl TryFrom<PolicyConfig> for rp::PolicyConfig {
    type Error = RetryplanError;
    /// Through the core's one reader: the record becomes the data tree a JSON
    /// text or a JS object becomes (serde's `Serialize`, field names as in the
    /// JSON schema), so a bad value gets the same error code and field path
    /// in every language (a negative `backoff.baseMs` is `invalid_config`
    /// at `backoff.base_ms`, as in JSON).
    fn try_from(config: PolicyConfig) -> Result<Self> {
        Ok(rp::PolicyConfig::from_value(&Value::from_serialize(&config)?)?)
    }
}

/// The core's default configuration (every field; the core owns the defaults).
#[uniffi::export]
pub fn default_policy_config() -> PolicyConfig {
    rp::PolicyConfig::default().into()
}

/// The configuration of a built-in profile (`read`, `checkout`, `write_keyed`, ...).
#[uniffi::export]
pub fn profile_config(name: String) -> Result<PolicyConfig> {
    Ok(rp::profiles::profile(&name)?.into())
}

/// The built-in profile names.
#[uniffi::export]
pub fn profile_names() -> Vec<String> {
    rp::profiles::NAMES.iter().map(|name| (*name).to_owned()).collect()
}

/// Reads a configuration from JSON without validating its rules.
#[uniffi::export]
pub fn policy_config_from_json(json: String) -> Result<PolicyConfig> {
    Ok(rp::PolicyConfig::from_json(&json)?.into())
}

/// A validated, immutable policy. Share one across threads freely.
#[derive(Debug, uniffi::Object)]
pub struct Policy(pub(crate) rp::Policy);

#[uniffi::export]
impl Policy {
    /// Validates a configuration; every violation is reported, nothing is clamped.
    #[uniffi::constructor]
    pub fn new(config: PolicyConfig) -> Result<Arc<Policy>> {
        Ok(Arc::new(Policy(rp::Policy::new(&config.try_into()?)?)))
    }

    /// Reads and validates a policy from JSON text (snake_case fields).
    #[uniffi::constructor]
    pub fn from_json(json: String) -> Result<Arc<Policy>> {
        Ok(Arc::new(Policy(rp::Policy::from_json(&json)?)))
    }

    /// A built-in profile, validated.
    #[uniffi::constructor]
    pub fn profile(name: String) -> Result<Arc<Policy>> {
        Ok(Arc::new(Policy(rp::Policy::new(&rp::profiles::profile(&name)?)?)))
    }

    /// True when requests carry the idempotency key header (keyed and unsafe operations).
    pub fn sends_idempotency_key(&self) -> bool {
        self.0.sends_idempotency_key()
    }

    /// Whether an HTTP request with `method` may be repeated under this policy
    /// (RFC 9110, or the policy's `retry_methods`), unless the caller says so
    /// for this request (`idempotent`): pass it in `OperationOptions.repeatability`.
    #[uniffi::method(default(idempotent = None))]
    pub fn repeatability_for_http(&self, method: String, idempotent: Option<bool>) -> Result<rp::Repeatability> {
        Ok(self.0.repeatability_for_http(&method, idempotent)?)
    }

    /// The one rule for an HTTP request (the core's `Policy::http_request`):
    /// the caller's word (`idempotent`), else the request's own
    /// `Idempotency-Key` value (`requestIdempotencyKey`: keyed by that exact
    /// key), else `retry_methods` or RFC 9110. Pass it in `OperationOptions.httpRequest`.
    #[uniffi::method(default(idempotent = None, request_idempotency_key = None))]
    pub fn http_request(
        &self,
        method: String,
        idempotent: Option<bool>,
        request_idempotency_key: Option<String>,
    ) -> Result<std::sync::Arc<crate::operation::HttpRequest>> {
        let request = self.0.http_request(&method, idempotent, request_idempotency_key.as_deref())?;
        Ok(std::sync::Arc::new(crate::operation::HttpRequest(request)))
    }

    /// True when the policy hedges: starts extra attempts while one still runs.
    pub fn has_hedging(&self) -> bool {
        self.0.hedging().is_some()
    }

    /// The configuration this policy was validated from (normalised).
    pub fn to_config(&self) -> PolicyConfig {
        self.0.to_config().into()
    }

    /// The configuration as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        self.0.to_config().to_json()
    }

    /// What an outcome means under this policy.
    pub fn classify(&self, outcome: Outcome) -> Result<Class> {
        Ok(rp::classify(&self.0, &outcome.try_into()?)?)
    }

    /// The backoff ceilings of the first `retries` retries (retry 0 = the first retry).
    pub fn backoff_ceilings_ms(&self, retries: i32) -> Result<Vec<i64>> {
        let ceilings = rp::backoff_ceilings_ms(&self.0, u32_in("retries", retries)?)?;
        Ok(ceilings.into_iter().map(long_out).collect())
    }

    /// What to do with a queue message whose delivery number `attempts` (1 for
    /// the first) ended with `outcome`, first seen at `first_seen_ms`.
    pub fn redeliver(&self, attempts: i32, first_seen_ms: i64, now_ms: i64, outcome: Outcome) -> Result<Redelivery> {
        let redelivery = rp::redeliver(
            &self.0,
            u32_in("attempts", attempts)?,
            clock_in("first_seen_ms", first_seen_ms)?,
            clock_in("now_ms", now_ms)?,
            &outcome.try_into()?,
        )?;
        Ok(match redelivery {
            rp::Redelivery::Acknowledge => Redelivery::Acknowledge,
            rp::Redelivery::RedeliverAfter { delay_ms, redeliver_at_ms } => {
                Redelivery::RedeliverAfter { delay_ms: long_out(delay_ms), redeliver_at_ms: long_out(redeliver_at_ms) }
            }
            rp::Redelivery::DeadLetter { reason } => Redelivery::DeadLetter { reason },
        })
    }

    /// The worst-case timeline against `deadline_ms` (from the start; null = the
    /// total budget alone) when the first attempt starts `first_attempt_at_ms` in.
    pub fn explain(&self, deadline_ms: Option<i64>, first_attempt_at_ms: i64) -> Result<Timeline> {
        let deadline_ms = deadline_ms.map(|ms| ms_in("deadline_ms", ms)).transpose()?;
        let first = ms_in("first_attempt_at_ms", first_attempt_at_ms)?;
        Ok(rp::explain(&self.0, deadline_ms, first).into())
    }
}

/// What a queue consumer does with a message (`Policy.redeliver`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum Redelivery {
    /// It succeeded: acknowledge it.
    Acknowledge,
    /// Redeliver it after `delay_ms`, at `redeliver_at_ms`.
    RedeliverAfter { delay_ms: i64, redeliver_at_ms: i64 },
    /// Send it to the dead-letter queue; `reason` says why.
    DeadLetter { reason: DeadLetterReason },
}

/// One step of the worst case, in ms from the operation's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum TimelineStep {
    Attempt { attempt: i32, start_ms: i64, timeout_ms: i64, end_ms: i64 },
    Wait { retry: i32, start_ms: i64, ceiling_ms: i64, min_delay_ms: i64, max_delay_ms: i64, end_ms: i64 },
}

/// Something in a policy a person should look at; `text` is the core's wording.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum Warning {
    AttemptsDoNotFit { configured: i32, fit: i32, deadline_ms: i64, text: String },
    WorstCaseExceedsDeadline { worst_case_ms: i64, deadline_ms: i64, text: String },
    GuidanceCapExceedsBudget { cap_ms: i64, deadline_ms: i64, text: String },
}

/// A policy's worst-case timeline against a deadline (what `explain` prints).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Timeline {
    pub deadline_ms: i64,
    pub first_attempt_at_ms: i64,
    pub response_reserve_ms: i64,
    pub configured_attempts: i32,
    pub attempts_that_fit: i32,
    pub steps: Vec<TimelineStep>,
    pub ending: Decision,
    pub unbounded_worst_case_ms: Option<i64>,
    pub warnings: Vec<Warning>,
}

impl From<rp::Timeline> for Timeline {
    fn from(t: rp::Timeline) -> Self {
        let step = |step| match step {
            rp::TimelineStep::Attempt { attempt, start_ms, timeout_ms, end_ms } => TimelineStep::Attempt {
                attempt: count_out(attempt),
                start_ms: long_out(start_ms),
                timeout_ms: long_out(timeout_ms),
                end_ms: long_out(end_ms),
            },
            rp::TimelineStep::Wait { retry, start_ms, ceiling_ms, min_delay_ms, max_delay_ms, end_ms } => {
                TimelineStep::Wait {
                    retry: count_out(retry),
                    start_ms: long_out(start_ms),
                    ceiling_ms: long_out(ceiling_ms),
                    min_delay_ms: long_out(min_delay_ms),
                    max_delay_ms: long_out(max_delay_ms),
                    end_ms: long_out(end_ms),
                }
            }
        };
        let warning = |warning: rp::Warning| {
            let text = warning.to_string();
            match warning {
                rp::Warning::AttemptsDoNotFit { configured, fit, deadline_ms } => Warning::AttemptsDoNotFit {
                    configured: count_out(configured),
                    fit: count_out(fit),
                    deadline_ms: long_out(deadline_ms),
                    text,
                },
                rp::Warning::WorstCaseExceedsDeadline { worst_case_ms, deadline_ms } => {
                    Warning::WorstCaseExceedsDeadline {
                        worst_case_ms: long_out(worst_case_ms),
                        deadline_ms: long_out(deadline_ms),
                        text,
                    }
                }
                rp::Warning::GuidanceCapExceedsBudget { cap_ms, deadline_ms } => Warning::GuidanceCapExceedsBudget {
                    cap_ms: long_out(cap_ms),
                    deadline_ms: long_out(deadline_ms),
                    text,
                },
            }
        };
        Timeline {
            deadline_ms: long_out(t.deadline_ms),
            first_attempt_at_ms: long_out(t.first_attempt_at_ms),
            response_reserve_ms: long_out(t.response_reserve_ms),
            configured_attempts: count_out(t.configured_attempts),
            attempts_that_fit: count_out(t.attempts_that_fit),
            steps: t.steps.into_iter().map(step).collect(),
            ending: t.ending.into(),
            unbounded_worst_case_ms: t.unbounded_worst_case_ms.map(long_out),
            warnings: t.warnings.into_iter().map(warning).collect(),
        }
    }
}
