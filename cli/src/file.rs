//! The `retryplan` file: a policy, the dependency's shared controls, and a
//! simulation scenario, in one JSON document.
//!
//! Two shapes are accepted:
//!
//! - a **bare policy**: the object is a `retryplan` policy (every field
//!   optional, as in `core`), e.g. `examples/policies/checkout.json`;
//! - a **plan**: an object with only these optional top-level keys:
//!   - `policy`: the policy;
//!   - `profiles`: named policies, `{"read": {...}, "checkout": {...}}`,
//!     chosen with `--profile NAME` (`policy` is used when no profile is named);
//!   - `dependency`: the shared controls (retry budget, circuit breaker,
//!     retry slots) each client holds for the dependency, as in `core`;
//!   - `scenario`: the world `simulate` runs the policy in ([`ScenarioConfig`](crate::scenario::ScenarioConfig)).
//!
//! A file is a plan as soon as it has one of those four keys; a bare policy's
//! unknown key close to one of them (`polcy`, `profile`) is reported as
//! that plan key misspelt. Every problem is
//! reported with its dotted field path and the rule it breaks; the policy and
//! dependency rules are `core`'s own, unchanged.

use std::collections::BTreeMap;
use std::sync::Arc;

use retryplan::config::value::{closest_name, excerpt, join, Value};
use retryplan::tools::check;
use retryplan::tools::timeline::Warning;
use retryplan::{Dependency, DependencyConfig, Error, Policy, PolicyConfig};

// Defined on its own (the scenario reader reports them too); still published here as before.
pub use crate::problem::Problem;
use crate::problem::MAX_MESSAGE_CHARS;
use crate::scenario::Scenario;

/// The top-level keys of a plan.
pub const PLAN_KEYS: [&str; 4] = ["policy", "profiles", "dependency", "scenario"];

/// Why a file could not be used.
#[derive(Debug)]
pub enum FileError {
    /// The file could not be read (exit code 2).
    Io(String),
    /// A command-line choice does not match the file (exit code 2).
    Usage(String),
    /// The file breaks rules (exit code 1).
    Invalid(Vec<Problem>),
}

/// A file, read and validated.
#[derive(Debug)]
pub struct Plan {
    /// Which policy was chosen: `policy` or `profiles.NAME`.
    pub policy_source: String,
    /// The chosen policy as written.
    pub policy_config: PolicyConfig,
    /// The chosen policy, validated by `core`.
    pub policy: Policy,
    /// The dependency controls as written (all absent when the file has none).
    pub dependency_config: DependencyConfig,
    /// The scenario, when the file has one.
    pub scenario: Option<Scenario>,
    /// What the file holds, for `check`'s report.
    pub sections: Vec<String>,
    /// What a person should look at in a valid file (attempts that can never
    /// run within the total timeout), each at its field: of every policy checked.
    pub warnings: Vec<Problem>,
    /// Whether the chosen policy writes `server_guidance.cap_ms` (the
    /// warning about a cap longer than the deadline is about what was written,
    /// never about the default).
    pub guidance_cap_written: bool,
}

/// Which policy the caller asked for.
#[derive(Clone, Debug, Default)]
pub struct Selection<'a> {
    /// `--profile NAME`.
    pub profile: Option<&'a str>,
    /// Validate every profile, not only the chosen one (`check` without `--profile`).
    pub all_profiles: bool,
}

/// Reads a file from disk: text that is not UTF-8, or that starts with a
/// byte order mark (which JSON has none of: RFC 8259 §8.1), is an invalid
/// file, said where, not a file that could not be read.
pub fn read(path: &str) -> Result<String, FileError> {
    let bytes = std::fs::read(path).map_err(|error| FileError::Io(format!("cannot read {path}: {error}")))?;
    let invalid = |message: String| FileError::Invalid(vec![Problem::new("", message)]);
    let text = String::from_utf8(bytes).map_err(|error| {
        invalid(format!("not valid UTF-8: the byte at offset {} starts no character", error.utf8_error().valid_up_to()))
    })?;
    if text.starts_with('\u{feff}') {
        return Err(invalid(
            "not valid JSON: the file starts with a byte order mark (U+FEFF), which JSON has none of \
                            (RFC 8259 §8.1): save it as UTF-8 without one"
                .to_owned(),
        ));
    }
    Ok(text)
}

/// Parses and validates a file's text, collecting every problem: the core
/// reads each policy and the dependency on past a structural problem
/// ([`retryplan::check`]), and so does the scenario's reader here.
pub fn load(text: &str, selection: &Selection<'_>) -> Result<Plan, FileError> {
    let tree = Value::from_json(text).map_err(|error| {
        let message = match error {
            Error::InvalidConfig { message, .. } => message.to_string(),
            other => other.to_string(),
        };
        FileError::Invalid(vec![Problem::new("", format!("not valid JSON: {message}"))])
    })?;
    let Value::Object(top) = &tree else {
        return Err(FileError::Invalid(vec![Problem::new(
            "",
            "the file must hold one JSON object: a policy, or a plan with policy/profiles/dependency/scenario",
        )]));
    };
    let is_plan = PLAN_KEYS.iter().any(|key| top.iter().any(|(name, _)| name == key));
    let mut problems = Vec::new();
    let mut sections = Vec::new();

    // Which policies the file holds, by source name.
    let mut policies: BTreeMap<String, &Value> = BTreeMap::new();
    let mut profile_names: Vec<String> = Vec::new();
    let mut dependency_value = None;
    let mut scenario_value = None;
    if is_plan {
        for (index, (key, field)) in top.iter().enumerate() {
            if top.iter().take(index).any(|(earlier, _)| earlier == key) {
                problems.push(Problem::new(key, "this key appears more than once in its object"));
                continue;
            }
            match key.as_str() {
                "policy" => {
                    policies.insert("policy".to_owned(), field);
                }
                "profiles" => match field {
                    Value::Object(profiles) => {
                        if profiles.is_empty() {
                            problems.push(Problem::new("profiles", "profiles must name at least one policy"));
                        }
                        for (name, profile) in profiles {
                            if profile_names.contains(name) {
                                let field = join("profiles", name);
                                problems.push(Problem::new(field, "this key appears more than once in its object"));
                                continue;
                            }
                            profile_names.push(name.clone());
                            policies.insert(join("profiles", name), profile);
                        }
                    }
                    _ => problems.push(Problem::new("profiles", "profiles must be an object of named policies")),
                },
                "dependency" => dependency_value = Some(field),
                "scenario" => scenario_value = Some(field),
                other => {
                    let hint = closest_name(other, PLAN_KEYS)
                        .map(|name| format!(" (did you mean `{name}`?)"))
                        .unwrap_or_default();
                    let other = excerpt(other, 64);
                    problems.push(Problem::new(
                        &other,
                        format!(
                            "unknown top-level field `{other}`{hint}: a plan holds only {} (a policy's own fields go under `policy`)",
                            PLAN_KEYS.join(", ")
                        ),
                    ));
                }
            }
        }
    } else {
        policies.insert("policy".to_owned(), &tree);
    }

    // The policy to use.
    let chosen = match selection.profile {
        Some(name) => {
            let source = join("profiles", name);
            if !policies.contains_key(&source) {
                let known = if profile_names.is_empty() { "none".to_owned() } else { profile_names.join(", ") };
                let hint = closest_name(name, profile_names.iter().map(String::as_str))
                    .map(|meant| format!(" (did you mean `{meant}`?)"))
                    .unwrap_or_default();
                return Err(FileError::Usage(excerpt(
                    &format!("the file has no profile `{name}`{hint} (profiles in the file: {known})"),
                    MAX_MESSAGE_CHARS,
                )));
            }
            source
        }
        None if policies.contains_key("policy") => "policy".to_owned(),
        None if profile_names.len() == 1 => format!("profiles.{}", profile_names[0]),
        None if profile_names.is_empty() => {
            // A written `profiles` that names no policy (`{}`, or not an
            // object) has its own problem already, at `profiles`.
            if !top.iter().any(|(key, _)| key == "profiles") {
                problems.push(Problem::new("policy", "the plan has no `policy` and no `profiles`"));
            }
            String::new()
        }
        None if selection.all_profiles => format!("profiles.{}", profile_names[0]),
        None => {
            return Err(FileError::Usage(excerpt(
                &format!(
                    "the file has several profiles and no `policy`: choose one with --profile ({})",
                    profile_names.join(", ")
                ),
                MAX_MESSAGE_CHARS,
            )))
        }
    };

    let mut chosen_policy = None;
    // Each policy checked, with its `max_attempts`: the scenario's work bound depends on it.
    let mut attempts_of: Vec<(String, u32)> = Vec::new();
    let mut warnings = Vec::new();
    let mut guidance_cap_written = false;
    for (source, value) in &policies {
        if source != &chosen && !selection.all_profiles {
            continue;
        }
        let prefix = if is_plan { source.as_str() } else { "" };
        match check::policy(value) {
            Ok(policy) => {
                attempts_of.push((source.clone(), policy.max_attempts()));
                warnings.extend(attempts_that_cannot_fit(prefix, &policy));
                if source == &chosen {
                    guidance_cap_written = written(value, &["server_guidance", "cap_ms"]);
                    chosen_policy = Some(policy);
                }
            }
            Err(more) if is_plan => problems.extend(within(prefix, more)),
            Err(more) => problems.extend(within(prefix, more).map(misspelt_plan_key)),
        }
        sections.push(if is_plan { source.clone() } else { "policy".to_owned() });
    }

    let mut dependency_config = DependencyConfig::default();
    if let Some(value) = dependency_value {
        sections.push("dependency".to_owned());
        match check::dependency(value) {
            Ok(config) => dependency_config = config,
            Err(more) => problems.extend(within("dependency", more)),
        }
    }

    let mut scenario = None;
    if let Some(value) = scenario_value {
        sections.push("scenario".to_owned());
        match crate::scenario::read(value) {
            Ok(read) => {
                for (source, max_attempts) in &attempts_of {
                    problems.extend(crate::scenario::workload_problems(&read.config, *max_attempts, source));
                }
                scenario = Some(read);
            }
            Err(more) => problems.extend(more),
        }
    }

    if !problems.is_empty() {
        return Err(FileError::Invalid(problems));
    }
    let Some(policy) = chosen_policy else {
        return Err(FileError::Invalid(vec![Problem::new("policy", "no policy to use")]));
    };
    Ok(Plan {
        policy_source: chosen,
        policy_config: policy.to_config(),
        policy,
        dependency_config,
        scenario,
        sections,
        warnings,
        guidance_cap_written,
    })
}

/// The policy's worst case (`retryplan::explain` with its own budget) when
/// fewer attempts fit than `max_attempts` allows, as a warning at
/// `max_attempts`.
fn attempts_that_cannot_fit(prefix: &str, policy: &Policy) -> Option<Problem> {
    // Times in range: the core refuses none (an error here would be the core's to fix, and `explain` shows it).
    let timeline = retryplan::explain(policy, None, 0).ok()?;
    timeline.warnings.iter().find_map(|warning| match *warning {
        Warning::AttemptsDoNotFit { configured, fit, .. } => {
            let never = if fit + 1 == configured {
                format!("attempt {configured} can never run")
            } else {
                format!("attempts {} to {configured} can never run", fit + 1)
            };
            Some(Problem::new(
                join(prefix, "max_attempts"),
                format!("{warning}: {never} (`retryplan explain` shows the worst case)"),
            ))
        }
        _ => None,
    })
}

/// A bare policy's unknown top-level field that is close to a plan key
/// (`polcy`, `profile`, `Policy`): the file meant to be a plan, and no key
/// made it one, so the plan key is offered rather than a policy's fields.
fn misspelt_plan_key(problem: Problem) -> Problem {
    let unknown = !problem.field.contains(['.', '[']) && problem.message.starts_with("unknown field");
    match closest_name(&problem.field, PLAN_KEYS).filter(|_| unknown) {
        Some(name) => {
            let message = format!(
                "unknown field `{}` (did you mean `{name}`?): the file was read as a bare policy, as none of its keys is a plan's ({})",
                problem.field,
                PLAN_KEYS.join(", ")
            );
            Problem::new(problem.field, message)
        }
        None => problem,
    }
}

/// Whether `value` holds the field at `keys` (object keys, outermost first).
fn written(value: &Value, keys: &[&str]) -> bool {
    let Some((first, rest)) = keys.split_first() else { return true };
    match value {
        Value::Object(fields) => fields.iter().any(|(key, inner)| key == first && written(inner, rest)),
        _ => false,
    }
}

/// Problems the core found in the part of the file at `prefix`, with their
/// full field paths (the part itself for a problem at its top).
fn within(prefix: &str, violations: Vec<retryplan::config::error::Violation>) -> impl Iterator<Item = Problem> + '_ {
    violations.into_iter().map(move |violation| {
        let field = if violation.field.is_empty() { prefix.to_owned() } else { join(prefix, &violation.field) };
        Problem::new(field, violation.message)
    })
}

/// A fresh set of shared controls (one per client and layer in the simulation).
pub fn new_dependency(config: &DependencyConfig) -> Option<Arc<Dependency>> {
    let empty = config.budget.is_none() && config.breaker.is_none() && config.retry_slots.is_none();
    if empty {
        return None;
    }
    // Validated when the file was loaded.
    Dependency::new(config).ok()
}
