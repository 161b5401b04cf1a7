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
//! use retryplan::{tools::check, config::value::Value};
//!
//! let value = Value::from_json(r#"{"max_attempt": 3, "jitter": "full",
//!     "backoff": {"kind": "exponential", "base_ms": 200, "multiplier": 2.0, "cap_ms": 100}}"#)?;
//! let problems = check::policy(&value).unwrap_err();
//! let fields: Vec<&str> = problems.iter().map(|problem| problem.field.as_str()).collect();
//! assert_eq!(fields, ["max_attempt", "jitter", "backoff.cap_ms"]);
//! assert!(problems[0].message.to_string().contains("did you mean `max_attempts`?"));
//! # Ok::<(), retryplan::Error>(())
//! ```

use crate::config::error::{Error, Violation};
use crate::controls::dependency::{Dependency, DependencyConfig};
use crate::ground::message::{message, Message, Rule};
use crate::policy::{Policy, PolicyConfig};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::config::value::{item, join, Value};

/// What [`read_all`] could read, and every structural problem on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadAll<T> {
    /// The configuration, with every field that had a problem left at its
    /// default (or read under the name it was most likely meant to have);
    /// `None` when nothing could be read (the top level is not an object, or
    /// is not valid JSON).
    pub value: Option<T>,
    /// Every structural problem, in the order the reader met them, each at
    /// its path as written.
    pub problems: Vec<Violation>,
    /// The dotted paths (as written) of what was left out to read the rest.
    pub left_out: Vec<String>,
    /// How a path in what was read maps back to the path as written, one
    /// step per change, oldest first: a misspelt name read as the name
    /// suggested for it (`"ratio"` read as `retry_ratio`), and the items after
    /// a list item that was left out (`phases[1]` read was `phases[2]`).
    pub read_as: Vec<(String, String)>,
    /// Required fields not written, or left out for their value, and read
    /// with a stand-in (so the rest of their object is checked): the path as
    /// written, and the stand-in as a rule's message shows a value
    /// (`duration_ms (1)`).
    pub stand_ins: Vec<(String, String)>,
}

impl<T> ReadAll<T> {
    /// `violations` (of rules checked on what was read) without those about
    /// a field that was left out (they would be about its default) or that
    /// name a stand-in's value, each at its path as written (and the paths
    /// its message names, too).
    #[must_use]
    pub fn unless_left_out(&self, violations: Vec<Violation>) -> Vec<Violation> {
        violations
            .into_iter()
            .map(|violation| {
                let field = self.as_written(&violation.field);
                let text = violation.message.to_string();
                let rewritten = self.paths_as_written(&text);
                let message = if rewritten == text { violation.message } else { Message::text(rewritten) };
                Violation { field, message }
            })
            .filter(|violation| !self.left_out.iter().any(|path| within(&violation.field, path)))
            .filter(|violation| {
                let text = violation.message.to_string();
                !self.stand_ins.iter().any(|(path, shown)| names(&text, shown) && !path.is_empty())
            })
            .collect()
    }

    /// `text` with every path in it (`phases[1].to_ms`, or the end of one:
    /// `scenario.phases[1].to_ms`) as written.
    fn paths_as_written(&self, text: &str) -> String {
        if self.read_as.is_empty() {
            return String::from(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        for c in text.chars().chain(core::iter::once(' ')) {
            if c == ' ' || c == '(' || c == ')' || c == ',' || c == ':' || c == '`' {
                out.push_str(&self.path_as_written(&word));
                word.clear();
                out.push(c);
            } else {
                word.push(c);
            }
        }
        out.pop();
        out
    }

    /// One word of a message, as written when it is a path or ends with one.
    fn path_as_written(&self, word: &str) -> String {
        let mut start = 0;
        loop {
            let (head, tail) = word.split_at(start);
            let written = self.as_written(tail);
            if written != tail {
                return alloc::format!("{head}{written}");
            }
            match tail.find('.') {
                Some(dot) => start += dot + 1,
                None => return String::from(word),
            }
        }
    }

    /// `field` (a path in what was read) as the caller wrote it.
    #[must_use]
    pub fn as_written(&self, field: &str) -> String {
        as_written(&self.read_as, field)
    }
}

/// Whether `text` holds `shown` (`delay_ms (1)`) as a whole word: not the
/// end of another name (`min_delay_ms (1)`).
fn names(text: &str, shown: &str) -> bool {
    text.match_indices(shown)
        .any(|(at, _)| text[..at].chars().next_back().is_none_or(|before| !(before.is_alphanumeric() || before == '_')))
}

/// Undoes the steps of `read_as`, newest first, each where it applies.
fn as_written(read_as: &[(String, String)], field: &str) -> String {
    let mut field = String::from(field);
    for (read, before) in read_as.iter().rev() {
        if let Some(rest) = field.strip_prefix(read.as_str()) {
            if rest.is_empty() || rest.starts_with('.') || rest.starts_with('[') {
                field = alloc::format!("{before}{rest}");
            }
        }
    }
    field
}

/// Reads `value` to the end with `read`, a strict reader that stops at the
/// first problem (a [`Violation`] whose field is the dotted path inside
/// `value`, as [`PolicyConfig::from_value`]'s errors name it), collecting
/// every structural problem instead of stopping at the first:
///
/// - an unknown field or name with a "did you mean" is read as the name
///   suggested, so the rules of what was written still run (a structural
///   problem inside what was read so is the guess's: not reported, and that
///   part is then left out; but an unknown name in one of the guess's own
///   fields, or an unknown field it offers one of its own for, is the
///   caller's, reported as any other);
/// - a required field not written (or left out for its value) is read with
///   a stand-in (see [`ReadAll::stand_ins`]), so the rest of its object is
///   still read; a missing `kind` (or a field no stand-in fits) leaves out
///   the object that lacks it;
/// - any other problem's field is left out (for a bad list item, that item,
///   unless the item is an object: then that field of it) and the rest is
///   read again. Every path reported is the path as written.
///
/// Each pass reads the whole tree again, so the passes are bounded
/// ([`MAX_PASSES`]): a configuration with more problems than that (a form
/// pasted into the wrong box, a file of a thousand unknown fields) ends with
/// the problems found and one more at the top level, `check_stopped`,
/// naming how many, and no value; the time stays linear in the input.
pub fn read_all<T>(value: &Value, mut read: impl FnMut(&Value) -> Result<T, Violation>) -> ReadAll<T> {
    let mut tree = value.clone();
    let mut problems = Vec::new();
    let mut left_out: Vec<String> = Vec::new();
    let mut read_as: Vec<(String, String)> = Vec::new();
    // The parts read under a suggested name, as written.
    let mut guessed: Vec<String> = Vec::new();
    // Stand-ins tried for a required field that was left out, by path as written.
    let mut stood_in: Vec<(String, usize)> = Vec::new();
    let mut stand_ins: Vec<(String, String)> = Vec::new();
    for _ in 0..MAX_PASSES {
        let problem = match read(&tree) {
            Ok(value) => return ReadAll { value: Some(value), problems, left_out, read_as, stand_ins },
            Err(problem) => problem,
        };
        let written = as_written(&read_as, &problem.field);
        let text = problem.message.to_string();
        // What depends on the guess being right (a field it lacks or does not
        // know) is the guess's; a wrong value of a field it has is the caller's:
        // inside a guessed object (a misspelt `kind` read as the one meant), an
        // unknown name in a field of its own (`"failure": "timeot"`), and an
        // unknown field it suggests one of its own for (`form_ms`).
        let names = ["unknown field", "unknown variant", "missing field"];
        let inside_guess = guessed.iter().any(|path| within(&written, path) && written != *path);
        let the_callers = inside_guess
            && (text.starts_with("unknown variant")
                || (text.starts_with("unknown field") && text.contains("` (did you mean `")));
        let in_guess = !the_callers
            && guessed.iter().any(|path| within(&written, path))
            && names.iter().any(|start| text.starts_with(start));
        // An object of exactly one field (`{"fixed_ms": 2.5}`) whose field
        // was left out for its value is empty by this reader's doing: its
        // problem is the field's, reported already.
        let emptied =
            problem.message.rule() == Rule::ExactlyOneOf && left_out.iter().any(|path| within(path, &written));
        let ours = emptied || left_out.iter().any(|path| within(&written, path));
        // A required field the caller did not write (a missing `kind` aside:
        // its object goes as a whole, as a guessed kind would bring problems
        // of its own) is reported, then read with a stand-in like one left out.
        let unwritten =
            !ours && !in_guess && text.starts_with("missing field") && !text.starts_with("missing field `kind`");
        if unwritten {
            problems.push(Violation { field: written.clone(), ..problem.clone() });
            left_out.push(written.clone());
        }
        if (ours || unwritten) && text.starts_with("missing field") {
            // A required field not written or left out for its value: a
            // stand-in of the same kind lets the rest of its object be read and
            // checked (rules about the field itself are not reported: it was
            // left out). When none fits, the object that lacks it goes.
            if let Some(stand_in) = stand_in(&written, &text, &mut stood_in) {
                let key = written.rsplit('.').next().unwrap_or(&written);
                let shown = match &stand_in {
                    Value::Number(number) => Some(number.as_f64().to_string()),
                    Value::Bool(flag) => Some(flag.to_string()),
                    Value::List(_) => Some(String::from("[]")),
                    _ => None,
                };
                if put(&mut tree, &problem.field, stand_in) {
                    if let Some(shown) = shown {
                        let shown = alloc::format!("{key} ({shown})");
                        stand_ins.push((written, shown));
                    }
                    continue;
                }
            }
        }
        if !in_guess && !ours {
            if let Some(guess) = read_as_suggested(&mut tree, &problem) {
                if guess.read != problem.field {
                    read_as.push((guess.read, problem.field.clone()));
                }
                guessed.push(as_written(&read_as, &guess.scope));
                problems.push(Violation { field: written, ..problem });
                continue;
            }
        }
        // Each pass removes a part of the tree, so the loop ends.
        let found = leave_out(&mut tree, "", &problem.field);
        // A field missing where one was left out (the `kind` of a tagged
        // object) is this reader's doing, not the caller's; so is a problem
        // in what was read under a suggested name.
        if !in_guess && !ours && !unwritten {
            problems.push(Violation { field: written, ..problem });
        }
        match found {
            Found::Removed(path) => left_out.push(as_written(&read_as, &path)),
            Found::RemovedItem { list, index, remaining } => {
                left_out.push(as_written(&read_as, &item(&list, index)));
                // The items after it moved up by one.
                for moved in index..remaining {
                    read_as.push((item(&list, moved), item(&list, moved + 1)));
                }
            }
            Found::Here | Found::Missing => return ReadAll { value: None, problems, left_out, read_as, stand_ins },
        }
    }
    let stopped = message!(CheckStopped, problems.len());
    problems.push(Violation { field: String::new(), message: stopped });
    ReadAll { value: None, problems, left_out, read_as, stand_ins }
}

/// The most passes [`read_all`] makes over a configuration: each handles one
/// problem (or tries one stand-in), and each reads the whole tree again.
pub const MAX_PASSES: usize = 256;

/// The next stand-in for the required field at `written` (as written),
/// whose "missing field" message is `missing`: 1, 0, `false`, `[]`, `{}`
/// (its own required fields then stood in too), and the first name a
/// missing `kind` lists (`(one of `constant`, ...)`), each tried once; none
/// when every one was tried.
fn stand_in(written: &str, missing: &str, tried: &mut Vec<(String, usize)>) -> Option<Value> {
    let named = missing.split_once("one of `").and_then(|(_, rest)| rest.split_once('`')).map(|(name, _)| name);
    let mut candidates = Vec::new();
    if let Some(name) = named {
        candidates.push(Value::String(String::from(name)));
    }
    candidates.extend([
        Value::unsigned(1),
        Value::unsigned(0),
        Value::Bool(false),
        Value::List(Vec::new()),
        Value::Object(Vec::new()),
    ]);
    let count = match tried.iter_mut().find(|(path, _)| path == written) {
        Some((_, count)) => count,
        None => {
            tried.push((String::from(written), 0));
            &mut tried.last_mut()?.1
        }
    };
    let next = candidates.into_iter().nth(*count)?;
    *count += 1;
    Some(next)
}

/// Puts `value` at `target` (a field of an object in `tree`); whether it could.
fn put(tree: &mut Value, target: &str, value: Value) -> bool {
    let (parent, key) = target.rsplit_once('.').unwrap_or(("", target));
    match node_at(tree, "", parent) {
        Some(Value::Object(fields)) if !key.ends_with(']') => {
            fields.push((String::from(key), value));
            true
        }
        _ => false,
    }
}

/// A misspelt name read as the one suggested for it.
struct Guess {
    /// The path it is read at.
    read: String,
    /// What was read on the guess (a path in what is read): the renamed
    /// field, or the object whose `kind` was replaced (the name itself for
    /// any other enum).
    scope: String,
}

/// The name a reader's "unknown field `x` (did you mean `y`?)" or "unknown
/// variant ..." suggests, written into `tree` in place of the unknown one
/// (a field renamed, unless the suggested one is there too; a name
/// replaced), and where.
fn read_as_suggested(tree: &mut Value, problem: &Violation) -> Option<Guess> {
    let text = problem.message.to_string();
    let (field, rest) = if let Some(rest) = text.strip_prefix("unknown field `") {
        (true, rest)
    } else {
        (false, text.strip_prefix("unknown variant `")?)
    };
    let (unknown, rest) = rest.split_once("` (did you mean `")?;
    let (suggested, _) = rest.split_once("`?)")?;
    let (parent, last) = match problem.field.rsplit_once('.') {
        Some((parent, last)) => (parent, last),
        None => ("", problem.field.as_str()),
    };
    if field {
        if last != unknown {
            return None;
        }
        let Value::Object(fields) = node_at(tree, "", parent)? else { return None };
        if fields.iter().any(|(key, _)| key == suggested) {
            return None;
        }
        let (key, _) = fields.iter_mut().rev().find(|(key, _)| key == unknown)?;
        *key = String::from(suggested);
        let read = join(parent, suggested);
        return Some(Guess { scope: read.clone(), read });
    }
    let node = node_at(tree, "", &problem.field)?;
    if !matches!(node, Value::String(name) if name == unknown) {
        return None;
    }
    *node = Value::String(String::from(suggested));
    let scope = if last == "kind" { String::from(parent) } else { problem.field.clone() };
    Some(Guess { read: problem.field.clone(), scope })
}

/// The node of `node` (at `path`) at `target`, if it is there.
fn node_at<'a>(node: &'a mut Value, path: &str, target: &str) -> Option<&'a mut Value> {
    if path == target {
        return Some(node);
    }
    match node {
        Value::Object(fields) => {
            let (key, child) = fields.iter_mut().rev().find(|(key, _)| within(target, &join(path, key)))?;
            let child_path = join(path, key);
            node_at(child, &child_path, target)
        }
        Value::List(items) => {
            let (index, child) = items.iter_mut().enumerate().find(|(index, _)| within(target, &item(path, *index)))?;
            node_at(child, &item(path, index), target)
        }
        _ => None,
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
    /// Removed item `index` of the list at `list`; `remaining` items are left.
    RemovedItem { list: String, index: usize, remaining: usize },
    /// The target would be inside this node, but is not there (a missing field).
    Missing,
}

/// Removes from `node` (at `path`) the part at `target`: the field itself
/// (in a list item that is an object, too); the object that lacks it, for a
/// missing field; the item, for anything else in a list item.
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
                Found::Here | Found::Missing => {
                    fields.remove(index);
                    Found::Removed(child_path)
                }
                found => found,
            }
        }
        Value::List(items) => {
            let Some(index) = (0..items.len()).find(|index| within(target, &item(path, *index))) else {
                return Found::Missing;
            };
            // A field of an item that is an object goes alone, as in any object.
            let found = match items.get_mut(index) {
                Some(child @ Value::Object(_)) => leave_out(child, &item(path, index), target),
                _ => Found::Here,
            };
            match found {
                Found::Here | Found::Missing => {
                    items.remove(index);
                    Found::RemovedItem { list: String::from(path), index, remaining: items.len() }
                }
                found => found,
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

    #[test]
    fn a_configuration_of_a_thousand_problems_is_read_in_a_bounded_number_of_passes() {
        // Every pass reads the whole tree: unbounded, 16,000 unknown fields took seconds (quadratic).
        let json = alloc::format!(
            "{{{}}}",
            (0..1000).map(|index| alloc::format!("\"field{index}\": 1")).collect::<Vec<_>>().join(", ")
        );
        let mut passes = 0;
        let read = read_all(&Value::from_json(&json).unwrap(), |tree| {
            passes += 1;
            PolicyConfig::from_value(tree).map_err(reading_problem)
        });
        assert_eq!(passes, MAX_PASSES);
        assert_eq!(read.value, None);
        assert_eq!(read.problems.len(), MAX_PASSES + 1);
        assert_eq!(read.problems[0].field, "field0");
        let last = read.problems.last().unwrap();
        assert_eq!((last.field.as_str(), last.message.rule()), ("", Rule::CheckStopped));
        assert_eq!(last.message.to_string(), "256 problems found; checking stopped there (fix these and check again)");
        assert_eq!(problems(r#"{"field0": 1, "field1": 2}"#).len(), 2, "a few problems are all listed");
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
        // Each bad item of a list once, at its own index as written; the rest of the list is read on.
        assert_eq!(
            fields(r#"{"retry_on": {"http_statuses": ["a", "b"]}, "max_attempts": 0}"#),
            ["retry_on.http_statuses[0]", "retry_on.http_statuses[1]", "max_attempts"]
        );
    }

    #[test]
    fn a_bad_item_leaves_the_rest_of_its_list_checked_at_the_indices_as_written() {
        let found = problems(r#"{"retry_on": {"http_statuses": [503, "x", 700]}}"#);
        let fields: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
        assert_eq!(fields, ["retry_on.http_statuses[1]", "retry_on.http_statuses[2]"]);
        // 700 is item 2 as written (item 1 once "x" was left out): its field and message say so.
        assert_eq!(found[1].1, "retry_on.http_statuses[2] (700) must be an HTTP status in 100..=599");
    }

    #[test]
    fn a_misspelt_name_is_read_as_the_one_suggested_so_its_rules_run_in_the_same_pass() {
        // `retries` for `max_attempts` is no typo; `max_atempts` is, and its value breaks the rule.
        let found = problems(r#"{"max_atempts": 0, "jitter": {"kind": "ful"}}"#);
        let at: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
        assert_eq!(at, ["max_atempts", "jitter.kind", "max_atempts"], "{found:?}");
        assert!(found[0].1.contains("did you mean `max_attempts`?"), "{}", found[0].1);
        // Said of the name as written, read as `max_attempts`.
        assert!(found[2].1.starts_with("max_atempts (0) must be a whole number in 1..=128"), "{}", found[2].1);
        // A name without its unit: read as the one it is part of.
        let value = Value::from_json(
            r#"{"budget": {"kind": "ratio", "ratio": 1.5, "min_retries_per_second": 1, "window_ms": 1000}}"#,
        )
        .unwrap();
        let found = dependency(&value).unwrap_err();
        let at: Vec<&str> = found.iter().map(|problem| problem.field.as_str()).collect();
        assert_eq!(at, ["budget.ratio", "budget.ratio"], "{found:?}");
        assert!(found[0].message.to_string().contains("did you mean `retry_ratio`?"), "{}", found[0].message);
        assert_eq!(found[1].message.to_string(), "budget.ratio (1.5) must be a number in [0, 1]");
        // Nothing the guess itself lacks is reported (`proportional` needs a `ratio`): one mistake, one problem.
        assert_eq!(fields(r#"{"jitter": {"kind": "proportional"}}"#), ["jitter.ratio"]);
        assert_eq!(fields(r#"{"jitter": {"kind": "proportionl"}}"#), ["jitter.kind"]);
    }

    #[test]
    fn a_misspelt_kind_hides_no_mistake_in_a_field_its_guess_has() {
        // `proportionl` is read as `proportional`; `ratoi` is a typo of that kind's own `ratio`: both reported,
        // and `ratoi` is then read as `ratio`, so its rule runs too.
        let found = problems(r#"{"jitter": {"kind": "proportionl", "ratoi": 2}}"#);
        let at: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
        assert_eq!(at, ["jitter.kind", "jitter.ratoi", "jitter.ratoi"], "{found:?}");
        assert!(found[1].1.contains("did you mean `ratio`?"), "{}", found[1].1);
        // A misspelt field read as the one meant: a misspelt name in its value is the caller's too.
        let found = problems(r#"{"jiter": {"kind": "ful"}}"#);
        let at: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
        assert_eq!(at, ["jiter", "jiter.kind"], "{found:?}");
        assert!(found[1].1.contains("did you mean `full`?"), "{}", found[1].1);
        // What the guess lacks or does not know at all stays the guess's: one mistake, one problem.
        assert_eq!(fields(r#"{"jitter": {"kind": "proportionl", "colour": 1}}"#), ["jitter.kind"]);
    }

    #[test]
    fn a_required_field_with_a_bad_value_leaves_the_rest_of_its_object_checked() {
        // `min_retries_per_second` is required: left out for its value, a stand-in reads the rest.
        let value = Value::from_json(
            r#"{"budget": {"kind": "ratio", "retry_ratio": 1.5, "min_retries_per_second": "x", "window_ms": 1000}}"#,
        )
        .unwrap();
        let found = dependency(&value).unwrap_err();
        let fields: Vec<&str> = found.iter().map(|problem| problem.field.as_str()).collect();
        assert_eq!(fields, ["budget.min_retries_per_second", "budget.retry_ratio"], "{found:?}");
        // No rule about the stand-in's own value.
        assert!(found.iter().all(|problem| !problem.message.to_string().contains("min_retries_per_second (")));
    }

    #[test]
    fn a_required_field_not_written_is_read_with_a_stand_in_so_the_rest_of_its_object_is_checked() {
        let all = |json: &str| -> Vec<(String, String)> {
            let value = Value::from_json(json).unwrap();
            dependency(&value).unwrap_err().into_iter().map(|found| (found.field, found.message.to_string())).collect()
        };
        // The bad `window_ms` beside a missing `retry_ratio` is reported too.
        let found = all(r#"{"budget": {"kind": "ratio", "min_retries_per_second": 5, "window_ms": -1}}"#);
        let at: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
        assert_eq!(at, ["budget.retry_ratio", "budget.window_ms"], "{found:?}");
        // The README's example: misspelt, missing, and the rule of what was misspelt.
        let found = all(r#"{"budget": {"kind": "ratio", "ratio": 1.5}}"#);
        let at: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
        assert_eq!(
            at,
            ["budget.ratio", "budget.min_retries_per_second", "budget.window_ms", "budget.ratio"],
            "{found:?}"
        );
        assert_eq!(found[3].1, "budget.ratio (1.5) must be a number in [0, 1]");
        // Every missing field of an object, each once; no rule about a stand-in.
        assert_eq!(fields(r#"{"hedging": {}}"#), ["hedging.delay_ms", "hedging.max_hedged_attempts"]);
        // A stand-in hides only rules naming it, not one naming a longer name that ends like it.
        let read = read_all(&Value::from_json(r#"{"hedging": {}}"#).unwrap(), |value| {
            PolicyConfig::from_value(value).map_err(reading_problem)
        });
        let about = |text: &'static str| Violation::new("other", crate::ground::message::Message::text(text));
        let kept = read
            .unless_left_out(vec![about("hedging.delay_ms (1) must be ..."), about("x.min_delay_ms (1) must be ...")]);
        let kept: Vec<String> = kept.iter().map(|violation| violation.message.to_string()).collect();
        assert_eq!(kept, ["x.min_delay_ms (1) must be ..."]);
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
        let about = |field: &str| Violation::new(field, crate::ground::message::Message::text(""));
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
