//! Every problem in a configuration in one pass: structural problems (an
//! unknown or misspelt field, a wrong type, an unknown name) and broken rules
//! alike, each with its dotted field path. What `retryplan check` prints, and
//! what a host can show beside a form.
//!
//! The readers stop at the first structural problem ([`Policy::from_json`]
//! and every binding's equivalent raise one `invalid_config` error with
//! one field path, and keep doing so). [`read_all`] reads on: it records the
//! problem, leaves the offending field out (so its default applies), and reads
//! again until the rest reads; [`policy`] and [`dependency`] then run the
//! validation rules on what was read. A rule about a field that was left out
//! is not reported: it would be about the default, not about what was written.
//!
//! ```
//! use retryplan::{check, value::Value};
//!
//! let value = Value::from_json(r#"{"max_attempt": 3, "jitter": "full",
//!     "backoff": {"kind": "exponential", "base_ms": 200, "multiplier": 2.0, "cap_ms": 100}}"#)?;
//! let problems = check::policy(&value).unwrap_err();
//! let fields: Vec<&str> = problems.iter().map(|problem| problem.field.as_str()).collect();
//! assert_eq!(fields, ["max_attempt", "jitter", "backoff.cap_ms"]);
//! assert!(problems[0].message.to_string().contains("did you mean `max_attempts`?"));
//! # Ok::<(), retryplan::Error>(())
//! ```

use crate::dependency::{Dependency, DependencyConfig};
use crate::error::{Error, Violation};
use crate::policy::{Policy, PolicyConfig};
use alloc::string::String;
use alloc::vec::Vec;

use crate::value::{item, join, Value};

/// What [`read_all`] could read, and every structural problem on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadAll<T> {
    /// The configuration, with every field that had a problem left at its
    /// default; `None` when nothing could be read (the top level is not an
    /// object, or is not valid JSON).
    pub value: Option<T>,
    /// Every structural problem, in the order the reader met them.
    pub problems: Vec<Violation>,
    /// The dotted paths of what was left out to read the rest.
    pub left_out: Vec<String>,
}

impl<T> ReadAll<T> {
    /// `violations` (of rules checked on what was read) without those about
    /// a field that was left out: they would be about its default.
    #[must_use]
    pub fn unless_left_out(&self, violations: Vec<Violation>) -> Vec<Violation> {
        violations
            .into_iter()
            .filter(|violation| !self.left_out.iter().any(|path| within(&violation.field, path)))
            .collect()
    }
}

/// Reads `value` to the end with `read`, a strict reader that stops at the
/// first problem (a [`Violation`] whose field is the dotted path inside
/// `value`, as [`PolicyConfig::from_value`]'s errors name it), collecting
/// every structural problem instead of stopping at the first: each problem's
/// field (for a missing field, the object that lacks it; for a bad list item,
/// the whole list, so a list reports one problem) is left out and the rest is
/// read again.
pub fn read_all<T>(value: &Value, mut read: impl FnMut(&Value) -> Result<T, Violation>) -> ReadAll<T> {
    let mut tree = value.clone();
    let mut problems = Vec::new();
    let mut left_out = Vec::new();
    loop {
        let problem = match read(&tree) {
            Ok(value) => return ReadAll { value: Some(value), problems, left_out },
            Err(problem) => problem,
        };
        // Each pass removes a part of the tree, so the loop ends.
        let found = leave_out(&mut tree, "", &problem.field);
        // A field missing where one was left out (the `kind` of a tagged
        // object) is this reader's doing, not the caller's.
        if !left_out.iter().any(|path| within(&problem.field, path)) {
            problems.push(problem);
        }
        match found {
            Found::Removed(path) => left_out.push(path),
            Found::Here | Found::Missing => return ReadAll { value: None, problems, left_out },
        }
    }
}

/// A strict reader's error as the problem it names.
fn reading_problem(error: Error) -> Violation {
    match error {
        Error::InvalidConfig { field, message, .. } => Violation { field: field.into(), message },
        other => Violation::new("", other.message()),
    }
}

/// Reads and validates a policy, reporting every problem at once.
///
/// # Errors
/// Every structural problem and every broken rule, each with its field path.
pub fn policy(value: &Value) -> Result<Policy, Vec<Violation>> {
    let read = read_all(value, |value| PolicyConfig::from_value(value).map_err(reading_problem));
    let mut problems = read.problems.clone();
    if let Some(config) = &read.value {
        match Policy::new(config) {
            Ok(policy) if problems.is_empty() => return Ok(policy),
            Ok(_) => {}
            Err(error) => problems.extend(read.unless_left_out(rules_broken(error))),
        }
    }
    Err(problems)
}

/// Reads and validates a dependency's shared controls, reporting every
/// problem at once; the configuration when there is none.
///
/// # Errors
/// Every structural problem and every broken rule, each with its field path.
pub fn dependency(value: &Value) -> Result<DependencyConfig, Vec<Violation>> {
    let read = read_all(value, |value| DependencyConfig::from_value(value).map_err(reading_problem));
    let mut problems = read.problems.clone();
    if let Some(config) = &read.value {
        match Dependency::new(config) {
            Ok(_) if problems.is_empty() => return Ok(*config),
            Ok(_) => {}
            Err(error) => problems.extend(read.unless_left_out(rules_broken(error))),
        }
    }
    Err(problems)
}

/// The violations of a validation error.
fn rules_broken(error: Error) -> Vec<Violation> {
    match error {
        Error::ConfigViolations { violations, .. } => violations,
        other => alloc::vec![reading_problem(other)],
    }
}

/// Whether `field` is `path` or lies inside it.
fn within(field: &str, path: &str) -> bool {
    field.strip_prefix(path).is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// Where the target of [`leave_out`] was, relative to one node.
enum Found {
    /// This node is what goes: the caller removes it.
    Here,
    /// Removed the part at this path.
    Removed(String),
    /// The target would be inside this node, but is not there (a missing field).
    Missing,
}

/// Removes from `node` (at `path`) the part at `target`: the field itself;
/// the object that lacks it, for a missing field; the whole list, for an item.
fn leave_out(node: &mut Value, path: &str, target: &str) -> Found {
    if path == target {
        return Found::Here;
    }
    match node {
        Value::Object(fields) => {
            // From the end: of a repeated key, the later copy is the one refused.
            let Some(index) = fields.iter().rposition(|(key, _)| within(target, &join(path, key))) else {
                return Found::Missing;
            };
            let Some((key, child)) = fields.get_mut(index) else { return Found::Missing };
            let child_path = join(path, key);
            match leave_out(child, &child_path, target) {
                Found::Removed(removed) => Found::Removed(removed),
                Found::Here | Found::Missing => {
                    fields.remove(index);
                    Found::Removed(child_path)
                }
            }
        }
        Value::List(items) => {
            let inside = (0..items.len()).any(|index| within(target, &item(path, index)));
            if inside {
                Found::Here
            } else {
                Found::Missing
            }
        }
        _ => Found::Missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(json: &str) -> Vec<(String, String)> {
        let value = Value::from_json(json).unwrap();
        match policy(&value) {
            Ok(_) => Vec::new(),
            Err(problems) => problems.into_iter().map(|problem| (problem.field, problem.message.to_string())).collect(),
        }
    }

    fn fields(json: &str) -> Vec<String> {
        problems(json).into_iter().map(|(field, _)| field).collect()
    }

    #[test]
    fn a_valid_policy_has_no_problems() {
        assert_eq!(fields(r#"{"max_attempts": 3}"#), Vec::<String>::new());
        assert!(policy(&Value::from_json("{}").unwrap()).is_ok());
    }

    #[test]
    fn structural_problems_and_broken_rules_come_together() {
        let found = problems(
            r#"{"max_attempt": 3, "jitter": "full",
                "backoff": {"kind": "exponential", "base_ms": 200, "multiplier": 2.0, "cap_ms": 100}}"#,
        );
        let fields: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
        assert_eq!(fields, ["max_attempt", "jitter", "backoff.cap_ms"]);
        assert!(found[0].1.contains("did you mean `max_attempts`?"), "{}", found[0].1);
        assert!(found[1].1.contains(r#"did you mean `{"kind": "full"}`?"#), "{}", found[1].1);
        assert_eq!(found[2].1, "backoff.cap_ms (100) must be >= backoff.base_ms (200)");
    }

    #[test]
    fn the_first_problem_is_the_strict_readers_error() {
        for json in [
            r#"{"max_attempt": 3, "jitter": "full"}"#,
            r#"{"backoff": {"base": 1}, "jitter": {"kind": "ful"}}"#,
            r#"{"retry_on": {"http_statuses": [503, "x", 700]}}"#,
            r#"{"jitter": {"ratio": 0.1}, "max_attempt": 1}"#,
        ] {
            let value = Value::from_json(json).unwrap();
            let Err(Error::InvalidConfig { field, message, .. }) = PolicyConfig::from_value(&value) else {
                panic!("{json} is refused by the reader")
            };
            let all = policy(&value).unwrap_err();
            assert_eq!((all[0].field.as_str(), all[0].message.to_string()), (&*field, message.to_string()), "{json}");
        }
    }

    #[test]
    fn missing_fields_unknown_names_repeats_and_lists() {
        // A tagged object without its tag goes as a whole; the reading goes on.
        assert_eq!(fields(r#"{"jitter": {"ratio": 0.1}, "max_attempts": 0}"#), ["jitter.kind", "max_attempts"]);
        // An unknown enum name, with the closest known one.
        let found = problems(r#"{"jitter": {"kind": "ful"}, "idempotency": "keyd"}"#);
        assert_eq!(found.len(), 2);
        assert!(found[0].1.contains("did you mean `full`?"), "{}", found[0].1);
        assert!(found[1].1.contains("did you mean `keyed`?"), "{}", found[1].1);
        // The later of two repeated keys is the one refused and left out.
        assert_eq!(fields(r#"{"max_attempts": 3, "max_attempts": 0}"#), ["max_attempts"]);
        // One problem per list.
        assert_eq!(fields(r#"{"retry_on": {"http_statuses": ["a", "b"]}, "max_attempts": 0}"#).len(), 2);
    }

    #[test]
    fn the_rest_of_an_object_is_still_read_and_checked() {
        let found =
            fields(r#"{"backoff": {"kind": "exponential", "base_ms": 200, "multiplier": 2.0, "cap_ms": 100, "x": 1}}"#);
        assert_eq!(found, ["backoff.x", "backoff.cap_ms"]);
    }

    #[test]
    fn rules_about_a_field_left_out_are_not_reported() {
        let read = read_all(&Value::from_json(r#"{"jitter": {"ratio": 0.1}}"#).unwrap(), |value| {
            PolicyConfig::from_value(value).map_err(reading_problem)
        });
        assert_eq!(read.left_out, ["jitter"]);
        let about = |field: &str| Violation::new(field, crate::message::Message::text(""));
        let kept =
            read.unless_left_out(vec![about("jitter.ratio"), about("jitter"), about("jitters"), about("backoff")]);
        let fields: Vec<&str> = kept.iter().map(|violation| violation.field.as_str()).collect();
        assert_eq!(fields, ["jitters", "backoff"]);
    }

    #[test]
    fn what_cannot_be_read_at_all_is_one_problem() {
        let read = read_all(&Value::List(vec![]), |value| PolicyConfig::from_value(value).map_err(reading_problem));
        assert_eq!(read.value, None);
        assert_eq!(read.problems.len(), 1);
        assert_eq!(read.problems[0].field, "");
    }

    #[test]
    fn dependency_problems_come_together_too() {
        let value = Value::from_json(
            r#"{"budgett": {}, "breaker": {"trip": {"kind": "consecutive", "failures": 0}, "open_ms": 1000, "half_open_probes": 1}}"#,
        )
        .unwrap();
        let found = dependency(&value).unwrap_err();
        assert_eq!(found[0].field, "budgett");
        assert!(found[0].message.to_string().contains("did you mean `budget`?"), "{}", found[0].message);
        assert!(found.len() >= 2, "the breaker's rule too: {found:?}");
    }
}
