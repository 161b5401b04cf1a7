//! `retryplan._native`: the Python face of the retryplan engine.
//!
//! This crate converts types and errors and decides nothing; every number and
//! every decision comes from the `retryplan` crate. One module per job:
//! `args` (arguments, one reading per kind; a clock reading is float seconds
//! or its exact `_ms` twin), `fault` (why a call failed), `errors` (one map from core errors to the
//! exceptions of `retryplan._errors`), `data` (dicts to and from the core's
//! data tree, and the plain values of `retryplan._values`), `policy`,
//! `outcome`, `decision`, `operation`, `driver` (the host loop every helper
//! adapts), `settings` (what a helper was given, checked once), `run` (one
//! operation as every helper runs it, and the sequential loop itself),
//! `attempts` (the attempt loops over it), `sources` (the clock, OS
//! randomness and Python callbacks a run reads), `controls` (budget,
//! breaker, dependency, stats), `timeline` (explain, backoff, redelivery) and
//! `dialects` (gRPC service configs, AWS standard mode).
#![forbid(unsafe_code)]

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use retryplan::ground::codes::GrpcCode;
use retryplan::outcomes::failure::MAX_CAUSE_DEPTH;
use retryplan::outcomes::http::{GUIDANCE_HEADERS, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER};
use retryplan::policy::MAX_MS;
use retryplan::{dialects::profiles, Failure, GiveUpReason};

mod args;
mod attempts;
mod controls;
mod data;
mod decision;
mod dialects;
mod driver;
mod errors;
mod fault;
#[rustfmt::skip]
mod functions_generated;
mod operation;
mod outcome;
mod policy;
mod propagation;
mod run;
mod settings;
mod sources;
mod telemetry;
mod timeline;
mod wire;

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<policy::PyPolicy>()?;
    m.add_class::<outcome::PyOutcome>()?;
    m.add_class::<outcome::PyPushback>()?;
    decision::add_decision_classes(m)?;
    m.add_class::<operation::PyOperation>()?;
    m.add_class::<driver::PyDriver>()?;
    m.add_class::<propagation::PyIncomingContext>()?;
    m.add_class::<driver::PyServed>()?;
    driver::add_action_classes(m)?;
    m.add_class::<driver::PyEndingResult>()?;
    m.add_class::<driver::PyAttemptResult>()?;
    m.add_class::<driver::PyEvent>()?;
    m.add_class::<settings::Settings>()?;
    m.add_class::<run::Run>()?;
    m.add_class::<attempts::Attempt>()?;
    m.add_class::<attempts::Attempts>()?;
    m.add_class::<controls::PyStats>()?;
    m.add_class::<controls::PyDependency>()?;
    m.add_class::<controls::PyRetryBudget>()?;
    m.add_class::<controls::PyRetryCharge>()?;
    m.add_class::<controls::PyCircuitBreaker>()?;
    m.add_class::<controls::PyBreakerPermit>()?;
    m.add_class::<controls::PyRetrySlots>()?;
    m.add_class::<controls::PyRetrySlot>()?;
    m.add_class::<dialects::PyServiceConfig>()?;
    for function in [
        wrap_pyfunction!(policy::profile, m)?,
        wrap_pyfunction!(controls::compile_dependency, m)?,
        wrap_pyfunction!(outcome::classify, m)?,
        wrap_pyfunction!(dialects::policy_from_urllib3, m)?,
        wrap_pyfunction!(timeline::explain, m)?,
        wrap_pyfunction!(timeline::backoff_ceilings_ms, m)?,
        wrap_pyfunction!(timeline::redeliver, m)?,
        wrap_pyfunction!(wire::wire_tables, m)?,
        wrap_pyfunction!(telemetry::telemetry_signals, m)?,
    ] {
        m.add_function(function)?;
    }
    functions_generated::register(m)?;
    m.add("PROFILE_NAMES", PyTuple::new(py, profiles::NAMES)?)?;
    m.add("GIVE_UP_REASONS", PyTuple::new(py, GiveUpReason::ALL.map(GiveUpReason::name))?)?;
    m.add("GRPC_CODES", PyTuple::new(py, GrpcCode::ALL.map(GrpcCode::name))?)?;
    m.add("FAILURES", PyTuple::new(py, Failure::ALL.map(Failure::name))?)?;
    m.add("MAX_CAUSE_DEPTH", MAX_CAUSE_DEPTH)?;
    m.add("GUIDANCE_HEADERS", PyTuple::new(py, GUIDANCE_HEADERS)?)?;
    m.add("IDEMPOTENCY_KEY_HEADER", IDEMPOTENCY_KEY_HEADER)?;
    m.add("REQUEST_ID_HEADER", REQUEST_ID_HEADER)?;
    m.add("MAX_MS", MAX_MS)?;
    m.add("URLLIB3_DEFAULT_TOTAL_TIMEOUT_MS", retryplan::dialects::urllib3::DEFAULT_TOTAL_TIMEOUT_MS)?;
    m.add("URLLIB3_ATTRIBUTES", PyTuple::new(py, retryplan::dialects::urllib3::ATTRIBUTES)?)?;
    m.add("FORM_VERSION", retryplan::policy::compiled::FORM_VERSION)?;
    // What every helper makes of an error nothing classified, and what its ending then says.
    m.add("UNKNOWN_ERROR_VERDICT", retryplan::config::value::Named::name(retryplan::Verdict::UNKNOWN_ERROR))?;
    m.add("UNKNOWN_ERROR_HINT", retryplan::Verdict::unknown_error_hint("outcome_of_error=").to_string())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
