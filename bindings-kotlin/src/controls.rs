//! Shared controls, one per downstream dependency: retry budget, circuit
//! breaker, retry slots (`RetrySlots`), the
//! grants each hands out (`RetryCharge`, `BreakerPermit`, `RetrySlot`: single
//! use, owned by the control that issued them, as in the core), and the
//! `Dependency` that bundles the three for operations. All are
//! thread-safe in the core; these objects only convert. Configurations are
//! read by the core's reader, as policies are (see `policy.rs`): a negative
//! `openMs` is `invalid_config` at `breaker.open_ms`, as in JSON.
//!
//! The objects are generated (`controls_generated.rs`, from the one
//! definition in core/mirrors/src/methods/table.rs); this file keeps where a
//! control lives.

use std::sync::Arc;

use retryplan as rp;

use crate::policy::record_in;
use crate::{ms_in, quantity_in, quantity_out, Result};

/// A control of its own, or one of a dependency's (`Dependency.budget()`, ...).
#[derive(Debug)]
enum Source<T> {
    Own(T),
    Dependency(Arc<rp::Dependency>, fn(&rp::Dependency) -> Option<&T>),
}

impl<T> Source<T> {
    /// The control, or `invalid_argument` naming it when the dependency has
    /// none (never: a handle is only made for a control that exists).
    fn get(&self, name: &'static str) -> Result<&T> {
        match self {
            Source::Own(control) => Ok(control),
            Source::Dependency(dependency, of) => {
                of(dependency).ok_or_else(|| crate::invalid(name, format!("the dependency has no {name}")))
            }
        }
    }
}

include!("controls_generated.rs");
