//! A breaker's configuration: when it trips and how it recovers, as written,
//! and the reader from a [`Value`] (checked by [`CircuitBreaker::new`](super::CircuitBreaker::new)).

use serde::Serialize;

use crate::config::error::{ConfigKind, Error};
use crate::config::value::read_duration_ms;
use crate::config::value::{tagged, Fields, Value};
use crate::controls::AT_LEAST_ONE;
use crate::ground::named::Named;

/// When a closed breaker opens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TripConfig {
    /// After this many retryable failures in a row.
    Consecutive {
        /// Failures in a row that open the breaker, >= 1.
        failures: u32,
    },
    /// When failures reach this share of the results in the window.
    Ratio {
        /// Share of failures that opens it, in (0, 1], at most three decimals.
        failure_ratio: f64,
        /// Results needed in the window before the ratio counts, >= 1.
        minimum_throughput: u32,
        /// The sliding window, >= 1 ms.
        window_ms: u64,
    },
}

/// Circuit breaker configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BreakerConfig {
    /// When it opens.
    pub trip: TripConfig,
    /// How long it stays open before probing, in ms (>= 1).
    pub open_ms: u64,
    /// Probes allowed at a time while half-open, and successes needed to close (>= 1).
    pub half_open_probes: u32,
}

impl BreakerConfig {
    /// Reads a breaker object (every field required). Errors name the dotted
    /// path from the breaker itself (`trip.kind`, not `breaker.trip.kind`):
    /// the error's `config` says whose path it is.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a breaker (a dependency's reader names
    /// its own configuration instead, and the path from it: `breaker.trip.kind`).
    pub fn from_value(value: &Value) -> Result<BreakerConfig, Error> {
        ConfigKind::Breaker.reading(BreakerConfig::read(value, ""))
    }

    /// [`BreakerConfig::from_value`] at `path` inside another configuration, whose reader names it.
    pub(crate) fn read(value: &Value, path: &str) -> Result<BreakerConfig, Error> {
        let fields = Fields::new(value, path, &["trip", "open_ms", "half_open_probes"])?;
        Ok(BreakerConfig {
            trip: fields.required_with("trip", read_trip)?,
            open_ms: fields.required_with("open_ms", read_duration_ms)?,
            half_open_probes: fields.required_bounded("half_open_probes", AT_LEAST_ONE)?,
        })
    }
}

fn read_trip(value: &Value, path: &str) -> Result<TripConfig, Error> {
    let (kind, fields) = tagged(value, path, |kind: TripKind| match kind {
        TripKind::Consecutive => &["kind", "failures"],
        TripKind::Ratio => &["kind", "failure_ratio", "minimum_throughput", "window_ms"],
    })?;
    Ok(match kind {
        TripKind::Consecutive => {
            TripConfig::Consecutive { failures: fields.required_bounded("failures", AT_LEAST_ONE)? }
        }
        TripKind::Ratio => TripConfig::Ratio {
            failure_ratio: fields.required("failure_ratio")?,
            minimum_throughput: fields.required_bounded("minimum_throughput", AT_LEAST_ONE)?,
            window_ms: fields.required_with("window_ms", read_duration_ms)?,
        },
    })
}

/// The names of [`TripConfig`]'s variants (its `kind` tag).
#[derive(Clone, Copy)]
enum TripKind {
    Consecutive,
    Ratio,
}

impl Named for TripKind {
    const ALL: &'static [Self] = &[TripKind::Consecutive, TripKind::Ratio];
    fn name(self) -> &'static str {
        match self {
            TripKind::Consecutive => "consecutive",
            TripKind::Ratio => "ratio",
        }
    }
}

crate::config::value::deserialize_through_value!(BreakerConfig, BreakerConfig::read, ConfigKind::Breaker);
crate::config::value::deserialize_through_value!(TripConfig, read_trip, ConfigKind::Breaker);
