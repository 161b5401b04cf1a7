//! A budget's configuration: its model and numbers as written, and the
//! reader from a [`Value`] (checked by [`RetryBudget::new`](super::RetryBudget::new)).

use serde::Serialize;

use crate::config::error::{ConfigKind, Error};
use crate::config::value::read_duration_ms;
use crate::config::value::{tagged, Bounded, Value};
use crate::ground::message::Rule;
use crate::ground::named::Named;

/// A token bucket's `max_tokens`, validated and read by the same rule
/// (gRPC's: a bucket of 1 to 1000 tokens).
pub(crate) const MAX_TOKENS: Bounded = Bounded { min: 1, max: 1000, rule: Rule::OutOfRange };

/// The budget model and its numbers (JSON: `{"kind": "token_bucket", ...}`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BudgetConfig {
    /// gRPC retry throttling.
    TokenBucket {
        /// Bucket size, 1..=1000 tokens.
        max_tokens: u32,
        /// Tokens a success returns, in (0, max_tokens], at most three decimals.
        token_ratio: f64,
    },
    /// Finagle/tower/Linkerd-style ratio budget.
    Ratio {
        /// Retries allowed per original request, in [0, 1], at most three
        /// decimals (0.05 = 5 retries per 100 requests).
        retry_ratio: f64,
        /// Retries always allowed per second of window, on top of the ratio.
        min_retries_per_second: u32,
        /// The sliding window, >= 1 ms.
        window_ms: u64,
    },
    /// AWS-SDK-style retry quota.
    Quota {
        /// Units when full (and at the start). Any number: 0 refuses every
        /// retry that costs anything, as botocore's `RetryQuota(0)` does.
        capacity: u32,
        /// Units a retry costs (any number; one above `capacity` is never
        /// paid, as in botocore and smithy-rs).
        retry_cost: u32,
        /// Units a retry after a timeout costs.
        timeout_retry_cost: u32,
        /// Units a successful first attempt returns.
        success_increment: u32,
        /// Units a retry after a throttling error costs (the AWS SDKs' 2026
        /// standard mode: 5, where other retries cost 14). Absent (the
        /// default): the same as `retry_cost`.
        #[serde(skip_serializing_if = "Option::is_none")]
        throttling_retry_cost: Option<u32>,
    },
}

impl BudgetConfig {
    /// Reads a budget object (`{"kind": "token_bucket", ...}`; every field of
    /// the kind is required). Errors name the dotted path from the budget
    /// itself (`kind`, not `budget.kind`): the error's `config` says whose
    /// path it is.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a budget (a dependency's reader names
    /// its own configuration instead, and the path from it: `budget.kind`).
    pub fn from_value(value: &Value) -> Result<BudgetConfig, Error> {
        ConfigKind::Budget.reading(BudgetConfig::read(value, ""))
    }

    /// [`BudgetConfig::from_value`] at `path` inside another configuration, whose reader names it.
    pub(crate) fn read(value: &Value, path: &str) -> Result<BudgetConfig, Error> {
        let (kind, fields) = tagged(value, path, |kind: BudgetKind| match kind {
            BudgetKind::TokenBucket => &["kind", "max_tokens", "token_ratio"],
            BudgetKind::Ratio => &["kind", "retry_ratio", "min_retries_per_second", "window_ms"],
            BudgetKind::Quota => {
                &["kind", "capacity", "retry_cost", "timeout_retry_cost", "success_increment", "throttling_retry_cost"]
            }
        })?;
        Ok(match kind {
            BudgetKind::TokenBucket => BudgetConfig::TokenBucket {
                max_tokens: fields.required_bounded("max_tokens", MAX_TOKENS)?,
                token_ratio: fields.required("token_ratio")?,
            },
            BudgetKind::Ratio => BudgetConfig::Ratio {
                retry_ratio: fields.required("retry_ratio")?,
                min_retries_per_second: fields.required("min_retries_per_second")?,
                window_ms: fields.required_with("window_ms", read_duration_ms)?,
            },
            BudgetKind::Quota => BudgetConfig::Quota {
                capacity: fields.required("capacity")?,
                retry_cost: fields.required("retry_cost")?,
                timeout_retry_cost: fields.required("timeout_retry_cost")?,
                success_increment: fields.required("success_increment")?,
                throttling_retry_cost: fields
                    .optional("throttling_retry_cost", crate::config::value::FromValue::from_value)?,
            },
        })
    }
}

/// The names of [`BudgetConfig`]'s variants (its `kind` tag).
#[derive(Clone, Copy)]
enum BudgetKind {
    TokenBucket,
    Ratio,
    Quota,
}

impl Named for BudgetKind {
    const ALL: &'static [Self] = &[BudgetKind::TokenBucket, BudgetKind::Ratio, BudgetKind::Quota];
    fn name(self) -> &'static str {
        match self {
            BudgetKind::TokenBucket => "token_bucket",
            BudgetKind::Ratio => "ratio",
            BudgetKind::Quota => "quota",
        }
    }
}

crate::config::value::deserialize_through_value!(BudgetConfig, BudgetConfig::read, ConfigKind::Budget);
