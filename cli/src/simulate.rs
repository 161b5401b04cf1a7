//! `retryplan simulate`: the variants compared in one run, and the whole
//! report.

use retryplan::controls::budget::BudgetConfig;
use retryplan::policy::JitterConfig;
use retryplan::Policy;
use serde::Serialize;

use crate::file::Plan;
use crate::report::{variant_report, VariantReport};
use crate::scenario::{workload_problems, Scenario};
use crate::sim::{Setup, SimError, Simulation};

/// A way of running the file's policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VariantName {
    /// The policy and controls as written.
    AsWritten,
    /// The policy with `jitter` set to `none`.
    NoJitter,
    /// The controls without the retry budget.
    NoBudget,
    /// `scenario.layers` layers, each running the policy as written.
    Layered,
    /// `scenario.layers` layers that propagate as `retryplan::propagation`
    /// says: the caller's deadline less the reserve, one retrying layer,
    /// do-not-retry answers.
    Propagated,
}

impl VariantName {
    /// Every variant, in report order.
    pub const ALL: [VariantName; 5] = [
        VariantName::AsWritten,
        VariantName::NoJitter,
        VariantName::NoBudget,
        VariantName::Layered,
        VariantName::Propagated,
    ];

    /// The name on the command line and in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            VariantName::AsWritten => "as-written",
            VariantName::NoJitter => "no-jitter",
            VariantName::NoBudget => "no-budget",
            VariantName::Layered => "layered",
            VariantName::Propagated => "propagated",
        }
    }

    /// Reads a name.
    #[must_use]
    pub fn parse(text: &str) -> Option<VariantName> {
        VariantName::ALL.into_iter().find(|variant| variant.name() == text || variant.name().replace('-', "_") == text)
    }
}

/// A variant ready to run.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Which.
    pub name: VariantName,
    /// What differs from the file.
    pub description: String,
    /// What it runs.
    pub setup: Setup,
}

/// Builds the variants; a variant that cannot be built is a problem in the file.
///
/// # Errors
/// A message naming the field, e.g. a layered variant too large to simulate.
pub fn variants(plan: &Plan, scenario: &Scenario, names: &[VariantName]) -> Result<Vec<Variant>, String> {
    let mut out = Vec::new();
    for name in names {
        let mut setup = Setup { policy: plan.policy, dependency: plan.dependency_config, layers: 1, propagated: false };
        let description = match name {
            VariantName::AsWritten => "the policy and dependency controls as written".to_owned(),
            VariantName::NoJitter => {
                let mut config = plan.policy_config.clone();
                config.jitter = JitterConfig::None;
                setup.policy = Policy::new(&config).map_err(|error| format!("no-jitter variant: {error}"))?;
                "jitter none (every client waits exactly the backoff ceiling)".to_owned()
            }
            VariantName::NoBudget => {
                let had = setup.dependency.budget.take().is_some();
                if had {
                    "the dependency controls without the retry budget".to_owned()
                } else {
                    "same as as-written: the file's dependency has no retry budget".to_owned()
                }
            }
            VariantName::Layered => {
                let layers = scenario.config.layers;
                let attempts = plan.policy.max_attempts();
                // Loading the plan refused what breaks the work bound already.
                if let Some(problem) = workload_problems(&scenario.config, attempts, &plan.policy_source).first() {
                    return Err(problem.message.clone());
                }
                let most = u64::from(attempts).saturating_pow(layers);
                setup.layers = layers;
                let deadlines = if scenario.config.propagate_deadline {
                    "deadlines propagated"
                } else {
                    "deadlines not propagated"
                };
                format!(
                    "{layers} layers x {attempts} attempts, each layer as written, {deadlines} (up to {most} attempts per operation)"
                )
            }
            VariantName::Propagated => {
                let layers = scenario.config.layers;
                let attempts = plan.policy.max_attempts();
                let propagation = plan.policy.propagation();
                setup.layers = layers;
                setup.propagated = true;
                let retrying = match propagation.retry_layer {
                    retryplan::policy::RetryLayer::Outermost => {
                        format!("only the outermost retries (up to {attempts} attempts per operation)")
                    }
                    retryplan::policy::RetryLayer::Every => {
                        // Every layer retries: the work bound is the layered one.
                        if let Some(problem) =
                            workload_problems(&scenario.config, attempts, &plan.policy_source).first()
                        {
                            return Err(problem.message.clone());
                        }
                        "every layer retries (retry_layer every)".to_owned()
                    }
                };
                format!(
                    "{layers} layers propagating the caller's deadline less {} ms, {retrying}, overload answered do-not-retry",
                    propagation.reserve_ms
                )
            }
        };
        out.push(Variant { name: *name, description, setup });
    }
    Ok(out)
}

/// The whole `--json` report.
#[derive(Debug, Serialize)]
pub struct SimulationReport {
    /// Which policy of the file ran.
    pub policy: String,
    /// The seed.
    pub seed: u64,
    /// The scenario as checked.
    pub scenario: Scenario,
    /// The dependency's healthy throughput, requests/s.
    pub capacity_per_second: f64,
    /// One per variant.
    pub variants: Vec<VariantReport>,
}

/// Runs every variant; `progress(variant index, fraction)`.
///
/// # Errors
/// [`SimError`] when the engine refuses an event (a simulator bug).
pub fn run(
    plan: &Plan,
    scenario: &Scenario,
    variants: &[Variant],
    seed: u64,
    progress: &mut dyn FnMut(usize, f64),
) -> Result<SimulationReport, SimError> {
    let mut reports = Vec::new();
    for (index, variant) in variants.iter().enumerate() {
        let run = Simulation::new(scenario, &variant.setup, seed).run(&mut |done| progress(index, done))?;
        let budget_window_ms = match variant.setup.dependency.budget {
            Some(BudgetConfig::Ratio { window_ms, .. }) => Some(window_ms),
            _ => None,
        };
        reports.push(variant_report(
            variant.name.name(),
            &variant.description,
            variant.setup.layers,
            budget_window_ms,
            scenario,
            run,
        ));
    }
    Ok(SimulationReport {
        policy: plan.policy_source.clone(),
        seed,
        scenario: scenario.clone(),
        capacity_per_second: scenario.capacity_per_second(),
        variants: reports,
    })
}
