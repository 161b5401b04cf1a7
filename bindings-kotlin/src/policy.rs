//! Policies: the validated `Policy` object, the configuration records'
//! way to and from the core (generated records, `config.rs`, read and written
//! by the core's one reader and writer), and the pieces computed from a policy
//! (classification, ceilings, the worst-case timeline). Defaults and rules all
//! come from the core.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use retryplan as rp;
use retryplan::value::Value;
use retryplan::{Class, DeadLetterReason};

use crate::config::PolicyConfig;
use crate::decision::{Decision, Outcome};
use crate::{count_out, long_out, ms_in, u32_in, Result, RetryplanError};

/// The core's configuration as the generated record: through the core's
/// writer and serde, in the JSON shape both spell (`config.rs`).
pub(crate) fn record_out<C: Serialize, R: DeserializeOwned>(config: &C) -> Result<R> {
    serde_json::from_value(serde_json::to_value(config).map_err(json_error)?).map_err(json_error)
}

/// A record as the data tree a JSON text or a JS object becomes, for the
/// core's one reader: a bad value gets the same error code and field path in
/// every language (a negative `backoff.baseMs` is `invalid_config` at
/// `backoff.base_ms`, as in JSON).
pub(crate) fn record_in<R: Serialize>(record: &R) -> Result<Value> {
    Ok(Value::from_serialize(record)?)
}

/// The core wrote a configuration its own record's shape cannot hold: a
/// record out of step with the core (regenerate: `cargo run -p retryplan-mirrors`).
fn json_error(error: serde_json::Error) -> RetryplanError {
    crate::invalid("config", format!("the configuration record does not match the core's: {error}"))
}

/// The core's default configuration (every field; the core owns the defaults).
#[uniffi::export]
pub fn default_policy_config() -> Result<PolicyConfig> {
    record_out(&rp::PolicyConfig::default())
}

/// The configuration of a built-in profile (`read`, `checkout`, `write_keyed`, ...).
#[uniffi::export]
pub fn profile_config(name: String) -> Result<PolicyConfig> {
    record_out(&rp::profiles::profile(&name)?)
}

/// The built-in profile names.
#[uniffi::export]
pub fn profile_names() -> Vec<String> {
    rp::profiles::NAMES.iter().map(|name| (*name).to_owned()).collect()
}

/// Reads a configuration from JSON without validating its rules.
#[uniffi::export]
pub fn policy_config_from_json(json: String) -> Result<PolicyConfig> {
    record_out(&rp::PolicyConfig::from_json(&json)?)
}

/// A validated, immutable policy. Share one across threads freely.
#[derive(Debug, uniffi::Object)]
pub struct Policy(pub(crate) rp::Policy);

impl Policy {
    /// A new policy object, in the table of live policies (`src/wire.rs` makes operations from it).
    pub(crate) fn shared(policy: rp::Policy) -> Arc<Policy> {
        let policy = Arc::new(Policy(policy));
        crate::wire::POLICIES.register(&policy);
        policy
    }
}

impl Drop for Policy {
    fn drop(&mut self) {
        crate::wire::POLICIES.unregister(self);
    }
}

#[uniffi::export]
impl Policy {
    /// Validates a configuration; every violation is reported, nothing is clamped.
    #[uniffi::constructor]
    pub fn new(config: PolicyConfig) -> Result<Arc<Policy>> {
        Ok(Policy::shared(rp::Policy::new(&rp::PolicyConfig::from_value(&record_in(&config)?)?)?))
    }

    /// Reads and validates a policy from JSON text (snake_case fields).
    #[uniffi::constructor]
    pub fn from_json(json: String) -> Result<Arc<Policy>> {
        Ok(Policy::shared(rp::Policy::from_json(&json)?))
    }

    /// A built-in profile, validated.
    #[uniffi::constructor]
    pub fn profile(name: String) -> Result<Arc<Policy>> {
        Ok(Policy::shared(rp::Policy::new(&rp::profiles::profile(&name)?)?))
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
    pub fn to_config(&self) -> Result<PolicyConfig> {
        record_out(&self.0.to_config())
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
            ms_in("first_seen_ms", first_seen_ms)?,
            ms_in("now_ms", now_ms)?,
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
