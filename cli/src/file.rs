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
//!     in-flight cap) each client holds for the dependency, as in `core`;
//!   - `scenario`: the world `simulate` runs the policy in ([`ScenarioConfig`](crate::scenario::ScenarioConfig)).
//!
//! A file is a plan as soon as it has one of those four keys. Every problem is
//! reported with its dotted field path and the rule it breaks; the policy and
//! dependency rules are `core`'s own, unchanged.

use std::collections::BTreeMap;
use std::sync::Arc;

use retryplan::value::excerpt;
use retryplan::{Dependency, DependencyConfig, Error, Policy, PolicyConfig};
use serde::Serialize;
use serde_json::Value;

use crate::scenario::Scenario;

/// The top-level keys of a plan.
pub const PLAN_KEYS: [&str; 4] = ["policy", "profiles", "dependency", "scenario"];

/// One problem: where, and the rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Dotted path of the field (empty for the whole file).
    pub field: String,
    /// The rule it breaks, in words.
    pub message: String,
}

/// The longest field path and message a problem keeps, in characters: a
/// key or value of the file is quoted as an excerpt, never whole.
const MAX_FIELD_CHARS: usize = 256;
const MAX_MESSAGE_CHARS: usize = 512;

impl Problem {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { field: excerpt(&field.into(), MAX_FIELD_CHARS), message: excerpt(&message.into(), MAX_MESSAGE_CHARS) }
    }
}

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
}

/// Which policy the caller asked for.
#[derive(Clone, Debug, Default)]
pub struct Selection<'a> {
    /// `--profile NAME`.
    pub profile: Option<&'a str>,
    /// Validate every profile, not only the chosen one (`check` without `--profile`).
    pub all_profiles: bool,
}

/// Reads a file from disk.
pub fn read(path: &str) -> Result<String, FileError> {
    std::fs::read_to_string(path).map_err(|error| FileError::Io(format!("cannot read {path}: {error}")))
}

/// Parses and validates a file's text, collecting every problem.
pub fn load(text: &str, selection: &Selection<'_>) -> Result<Plan, FileError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|error| FileError::Invalid(vec![Problem::new("", format!("not valid JSON: {error}"))]))?;
    // serde_json keeps the last of a repeated key; the core refuses them, and so does a plan.
    if let Some(field) = retryplan::value::Value::from_json(text).ok().as_ref().and_then(|tree| repeated_key(tree, ""))
    {
        return Err(FileError::Invalid(vec![Problem::new(&field, "this key appears more than once in its object")]));
    }
    let Value::Object(top) = value else {
        return Err(FileError::Invalid(vec![Problem::new(
            "",
            "the file must hold one JSON object: a policy, or a plan with policy/profiles/dependency/scenario",
        )]));
    };
    let is_plan = PLAN_KEYS.iter().any(|key| top.contains_key(*key));
    let mut problems = Vec::new();
    let mut sections = Vec::new();

    // Which policies the file holds, by source name.
    let mut policies: BTreeMap<String, Value> = BTreeMap::new();
    let mut profile_names: Vec<String> = Vec::new();
    let mut dependency_value = None;
    let mut scenario_value = None;
    if is_plan {
        for (key, field) in &top {
            match key.as_str() {
                "policy" => {
                    policies.insert("policy".to_owned(), field.clone());
                }
                "profiles" => match field {
                    Value::Object(profiles) => {
                        if profiles.is_empty() {
                            problems.push(Problem::new("profiles", "profiles must name at least one policy"));
                        }
                        for (name, profile) in profiles {
                            profile_names.push(name.clone());
                            policies.insert(format!("profiles.{name}"), profile.clone());
                        }
                    }
                    _ => problems.push(Problem::new("profiles", "profiles must be an object of named policies")),
                },
                "dependency" => dependency_value = Some(field.clone()),
                "scenario" => scenario_value = Some(field.clone()),
                other => {
                    let other = excerpt(other, 64);
                    problems.push(Problem::new(
                        &other,
                        format!(
                            "unknown top-level field `{other}`: a plan holds only {} (a policy's own fields go under `policy`)",
                            PLAN_KEYS.join(", ")
                        ),
                    ))
                }
            }
        }
    } else {
        policies.insert("policy".to_owned(), Value::Object(top.clone()));
    }

    // The policy to use.
    let chosen = match selection.profile {
        Some(name) => {
            let source = format!("profiles.{name}");
            if !policies.contains_key(&source) {
                let known = if profile_names.is_empty() { "none".to_owned() } else { profile_names.join(", ") };
                return Err(FileError::Usage(excerpt(
                    &format!("the file has no profile `{name}` (profiles in the file: {known})"),
                    MAX_MESSAGE_CHARS,
                )));
            }
            source
        }
        None if policies.contains_key("policy") => "policy".to_owned(),
        None if profile_names.len() == 1 => format!("profiles.{}", profile_names[0]),
        None if profile_names.is_empty() => {
            problems.push(Problem::new("policy", "the plan has no `policy` and no `profiles`"));
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
    for (source, value) in &policies {
        if source != &chosen && !selection.all_profiles {
            continue;
        }
        let prefix = if is_plan { format!("{source}.") } else { String::new() };
        match read_policy(value, &prefix) {
            Ok((config, policy)) => {
                if source == &chosen {
                    chosen_policy = Some((config, policy));
                }
            }
            Err(more) => problems.extend(more),
        }
        sections.push(if is_plan { source.clone() } else { "policy".to_owned() });
    }

    let mut dependency_config = DependencyConfig::default();
    if let Some(value) = &dependency_value {
        sections.push("dependency".to_owned());
        match read_dependency(value) {
            Ok(config) => dependency_config = config,
            Err(more) => problems.extend(more),
        }
    }

    let mut scenario = None;
    if let Some(value) = &scenario_value {
        sections.push("scenario".to_owned());
        match crate::scenario::read(value) {
            Ok(read) => scenario = Some(read),
            Err(more) => problems.extend(more),
        }
    }

    if !problems.is_empty() {
        return Err(FileError::Invalid(problems));
    }
    let Some((policy_config, policy)) = chosen_policy else {
        return Err(FileError::Invalid(vec![Problem::new("policy", "no policy to use")]));
    };
    Ok(Plan { policy_source: chosen, policy_config, policy, dependency_config, scenario, sections })
}

/// The path of the first key repeated within one object, anywhere in `tree`.
fn repeated_key(tree: &retryplan::value::Value, path: &str) -> Option<String> {
    use retryplan::value::{join, Value as Tree};
    match tree {
        Tree::Object(fields) => fields.iter().enumerate().find_map(|(index, (key, item))| {
            let field = join(path, key);
            if fields.iter().take(index).any(|(earlier, _)| earlier == key) {
                Some(field)
            } else {
                repeated_key(item, &field)
            }
        }),
        Tree::List(items) => {
            items.iter().enumerate().find_map(|(index, item)| repeated_key(item, &format!("{path}[{index}]")))
        }
        _ => None,
    }
}

/// Reads a policy with `core`'s reader and rules; fields are prefixed with
/// where the policy sits in the file.
fn read_policy(value: &Value, prefix: &str) -> Result<(PolicyConfig, Policy), Vec<Problem>> {
    if !value.is_object() {
        return Err(vec![Problem::new(prefix.trim_end_matches('.'), "a policy must be a JSON object")]);
    }
    let config = PolicyConfig::from_json(&value.to_string()).map_err(|error| core_problems(&error, prefix))?;
    let policy = Policy::new(&config).map_err(|error| core_problems(&error, prefix))?;
    Ok((config, policy))
}

/// Reads the dependency controls with `core`'s reader and rules.
fn read_dependency(value: &Value) -> Result<DependencyConfig, Vec<Problem>> {
    if !value.is_object() {
        return Err(vec![Problem::new("dependency", "dependency must be a JSON object")]);
    }
    let config =
        DependencyConfig::from_json(&value.to_string()).map_err(|error| core_problems(&error, "dependency."))?;
    Dependency::new(&config).map_err(|error| core_problems(&error, "dependency."))?;
    Ok(config)
}

/// A fresh set of shared controls (one per client and layer in the simulation).
pub fn new_dependency(config: &DependencyConfig) -> Option<Arc<Dependency>> {
    let empty = config.budget.is_none() && config.breaker.is_none() && config.max_concurrent_retries.is_none();
    if empty {
        return None;
    }
    // Validated when the file was loaded.
    Dependency::new(config).ok()
}

/// `core`'s errors as problems, each with its full field path.
fn core_problems(error: &Error, prefix: &str) -> Vec<Problem> {
    let join = |field: &str| {
        if field.is_empty() {
            prefix.trim_end_matches('.').to_owned()
        } else {
            format!("{prefix}{field}")
        }
    };
    match error {
        Error::InvalidPolicy { violations } => {
            violations.iter().map(|violation| Problem::new(join(&violation.field), violation.message.clone())).collect()
        }
        Error::InvalidPolicyJson { field, message } => vec![Problem::new(join(field), message.clone())],
        other => vec![Problem::new(prefix.trim_end_matches('.'), format!("{other} ({})", other.code()))],
    }
}
