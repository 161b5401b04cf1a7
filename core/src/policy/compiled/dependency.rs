//! The compiled form of a dependency's shared controls (kind `d`):
//! [`DependencyConfig::to_compiled`], [`DependencyConfig::from_compiled`] and
//! [`Dependency::from_compiled`]. The controls keep no validated form apart
//! from their running state, so the form holds the configuration, validated
//! before it is written and built by the controls' constructors when read.

use alloc::sync::Arc;
use alloc::vec::Vec;

use super::bytes::{self, Reader, Unreadable, HEADER_LEN};
use super::error::{CompiledFormError, Damage, FormKind};
use super::fields::{struct_form, Encoded};
use super::{read_body, FORM_VERSION};
use crate::config::error::Error;
use crate::controls::breaker::{BreakerConfig, TripConfig};
use crate::controls::budget::BudgetConfig;
use crate::controls::dependency::{Dependency, DependencyConfig};

struct_form!(DependencyConfig { budget, breaker, retry_slots });

struct_form!(BreakerConfig { trip, open_ms, half_open_probes });

/// Eight bytes: the number's IEEE 754 bits, little-endian.
impl Encoded for f64 {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let mut bits = [0u8; 8];
        for byte in &mut bits {
            *byte = input.byte();
        }
        f64::from_bits(u64::from_le_bytes(bits))
    }
}

/// The kind (`token_bucket` 0, `ratio` 1, `quota` 2), then its fields in the order written.
impl Encoded for BudgetConfig {
    fn write(&self, out: &mut Vec<u8>) {
        match *self {
            BudgetConfig::TokenBucket { max_tokens, token_ratio } => {
                out.push(0);
                max_tokens.write(out);
                token_ratio.write(out);
            }
            BudgetConfig::Ratio { retry_ratio, min_retries_per_second, window_ms } => {
                out.push(1);
                retry_ratio.write(out);
                min_retries_per_second.write(out);
                window_ms.write(out);
            }
            BudgetConfig::Quota {
                capacity,
                retry_cost,
                timeout_retry_cost,
                success_increment,
                throttling_retry_cost,
            } => {
                out.push(2);
                capacity.write(out);
                retry_cost.write(out);
                timeout_retry_cost.write(out);
                success_increment.write(out);
                throttling_retry_cost.write(out);
            }
        }
    }
    fn read(input: &mut Reader<'_>) -> Self {
        match input.number_up_to(2) {
            0 => BudgetConfig::TokenBucket { max_tokens: u32::read(input), token_ratio: f64::read(input) },
            1 => BudgetConfig::Ratio {
                retry_ratio: f64::read(input),
                min_retries_per_second: u32::read(input),
                window_ms: u64::read(input),
            },
            _ => BudgetConfig::Quota {
                capacity: u32::read(input),
                retry_cost: u32::read(input),
                timeout_retry_cost: u32::read(input),
                success_increment: u32::read(input),
                throttling_retry_cost: Option::read(input),
            },
        }
    }
}

/// The kind (`consecutive` 0, `ratio` 1), then its fields in the order written.
impl Encoded for TripConfig {
    fn write(&self, out: &mut Vec<u8>) {
        match *self {
            TripConfig::Consecutive { failures } => {
                out.push(0);
                failures.write(out);
            }
            TripConfig::Ratio { failure_ratio, minimum_throughput, window_ms } => {
                out.push(1);
                failure_ratio.write(out);
                minimum_throughput.write(out);
                window_ms.write(out);
            }
        }
    }
    fn read(input: &mut Reader<'_>) -> Self {
        if bool::read(input) {
            TripConfig::Ratio {
                failure_ratio: f64::read(input),
                minimum_throughput: u32::read(input),
                window_ms: u64::read(input),
            }
        } else {
            TripConfig::Consecutive { failures: u32::read(input) }
        }
    }
}

impl DependencyConfig {
    /// The configuration's compiled form (kind `d`), once it is valid: what
    /// [`Dependency::from_compiled`] builds the controls from, without the
    /// configuration reader.
    ///
    /// # Errors
    /// [`Error::ConfigViolations`] naming a dependency, as [`Dependency::new`]
    /// reports them: only a valid configuration is compiled.
    pub fn to_compiled(&self) -> Result<Vec<u8>, Error> {
        Dependency::new(self)?;
        let mut body = Vec::new();
        self.write(&mut body);
        Ok(bytes::seal(FormKind::Dependency, FORM_VERSION, &body))
    }

    /// The configuration a compiled form holds (not validated again: see
    /// [`Dependency::from_compiled`]).
    ///
    /// # Errors
    /// [`CompiledFormError`], as [`Policy::from_compiled`](crate::Policy::from_compiled).
    pub fn from_compiled(form: &[u8]) -> Result<DependencyConfig, CompiledFormError> {
        let body = bytes::open(form, FormKind::Dependency, FORM_VERSION)?;
        read_body(body).map_err(|Unreadable(offset)| damaged(offset))
    }
}

impl Dependency {
    /// The shared controls of a compiled form, new (full budget, closed
    /// breaker), as [`Dependency::new`] builds them from the configuration.
    ///
    /// ```
    /// use retryplan::{Dependency, DependencyConfig};
    /// let config = DependencyConfig { retry_slots: Some(4), ..DependencyConfig::default() };
    /// let form = config.to_compiled().unwrap();
    /// let dependency = Dependency::from_compiled(&form).unwrap();
    /// assert_eq!(dependency.snapshot(0), Dependency::new(&config).unwrap().snapshot(0));
    /// ```
    ///
    /// # Errors
    /// [`CompiledFormError`], as [`Policy::from_compiled`](crate::Policy::from_compiled);
    /// a form whose values the controls refuse (forged: a compiled form is
    /// valid) is damaged at the body's first byte.
    pub fn from_compiled(form: &[u8]) -> Result<Arc<Dependency>, CompiledFormError> {
        let config = DependencyConfig::from_compiled(form)?;
        Dependency::new(&config).map_err(|_| damaged(HEADER_LEN))
    }
}

fn damaged(offset: usize) -> CompiledFormError {
    CompiledFormError::Damaged { expected: FormKind::Dependency, damage: Damage::Unreadable { offset } }
}
