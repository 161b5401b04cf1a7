//! JavaScript: `bindings-js/lib/rules.js`, the core's message table
//! (`Rule::ALL`, in order: the wasm names a rule by its index) from which
//! lib/messages.js composes every message of the core outside the wasm, and
//! the blame of every error code (`Error::blame`, from
//! `tests/messages/rules.json`, which core/tests/messages.rs keeps current).
//!
//! A rule no JS entry can raise ([`NOT_IN_JS`]) keeps its place and its id
//! but not its template: one module is shared by every entry, Node's and the
//! browser's, so each template JS never composes is download for nothing.

use std::fs;
use std::path::Path;

use retryplan::ground::message::Rule;
use retryplan::Blame;

use crate::output::{Output, HEADER};

pub const RULES: &str = "bindings-js/lib/rules.js";

/// The rules no JS entry raises, and why: what raises each, which no JS
/// entry reaches (pinned, with those reasons checked against the source, by
/// this module's tests).
pub const NOT_IN_JS: [(Rule, &str); 10] = [
    (
        Rule::EntropyUnavailable,
        "`Error::EntropyUnavailable` comes from `OperationOptions::from_entropy` and `EntropyPool::draw` alone (the core's `entropy` feature, \
         which the JS wasm is built without: lib/entropy.js draws the seeds and throws its own error)",
    ),
    (Rule::StepStartAttempt, DESCRIBE),
    (Rule::StepStartHedge, DESCRIBE),
    (Rule::StepWait, DESCRIBE),
    (Rule::StepWaitServer, DESCRIBE),
    (Rule::StepAwait, DESCRIBE),
    (Rule::StepSucceeded, DESCRIBE),
    (Rule::StepGaveUp, DESCRIBE),
    (Rule::StepReconcile, DESCRIBE),
    (Rule::StepRestart, DESCRIBE),
];

const DESCRIBE: &str =
    "`Decision::describe` alone (a decision in words for a log line: Python's `Decision.describe`), \
                        which no JS export calls";

pub fn output(root: &Path) -> Result<Output, String> {
    let path = root.join("tests/messages/rules.json");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let document: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let blames = document["blames"].as_object().ok_or_else(|| format!("{}: no `blames` object", path.display()))?;
    let mut text = format!(
        "// {HEADER}\n\
         /**\n * Every rule of the core's messages (retryplan::ground::message::Rule::ALL), in the order the wasm numbers\n \
         * them: [id, template], or [id] alone for a rule no JS entry raises (core/mirrors/src/js_rules.rs).\n */\n\
         export const RULES = [\n"
    );
    for rule in Rule::ALL {
        let id = json(rule.id())?;
        if NOT_IN_JS.iter().any(|(left_out, _)| left_out == rule) {
            text.push_str(&format!("  [{id}],\n"));
        } else {
            text.push_str(&format!("  [{id}, {}],\n", json(rule.template())?));
        }
    }
    text.push_str("];\n\n/** Who must act on each error code (retryplan::Error::blame). */\nexport const BLAMES = {\n");
    for (code, blame) in blames {
        let blame = blame.as_str().ok_or_else(|| format!("{}: the blame of `{code}` is no string", path.display()))?;
        text.push_str(&format!("  {code}: {},\n", json(blame)?));
    }
    text.push_str("};\n");
    text.push_str(&misuse());
    Ok(Output { path: RULES, text })
}

/// `MISUSE`: the blames whose errors are misuse of retryplan itself ([`Blame::is_misuse`]), which the host loop
/// (lib/host.js) makes no attempt's outcome.
fn misuse() -> String {
    let names: Vec<String> =
        Blame::ALL.iter().filter(|blame| blame.is_misuse()).map(|blame| format!("\"{}\"", blame.name())).collect();
    format!(
        "\n/** The blames of misuse of retryplan itself (retryplan::Blame::is_misuse): raised in an attempt, no outcome. */\n\
         export const MISUSE = [{}];\n",
        names.join(", ")
    )
}

fn json(text: &str) -> Result<String, String> {
    serde_json::to_string(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `MISUSE` as written in lib/rules.js (what lib/host.js never makes an attempt's outcome) names a blame exactly
    /// when the core's `Blame::is_misuse` says its errors are misuse.
    #[test]
    fn the_misuse_blames_are_those_the_core_calls_misuse() {
        let text = fs::read_to_string(crate::workspace_root().join(RULES)).unwrap();
        let line = text.lines().find_map(|line| line.strip_prefix("export const MISUSE = [")).unwrap();
        let listed: Vec<&str> = line.trim_end_matches("];").split(", ").map(|name| name.trim_matches('"')).collect();
        for blame in Blame::ALL {
            assert_eq!(listed.contains(&blame.name()), blame.is_misuse(), "{}: {line}", blame.name());
        }
        assert_eq!(listed, ["caller", "configuration"]);
    }

    /// The rules JS leaves out, by id: adding one is a decision this test states.
    #[test]
    fn the_rules_left_out_of_js_are_these() {
        let ids: Vec<&str> = NOT_IN_JS.iter().map(|(rule, _)| rule.id()).collect();
        assert_eq!(
            ids,
            [
                "entropy_unavailable",
                "step_start_attempt",
                "step_start_hedge",
                "step_wait",
                "step_wait_server",
                "step_await",
                "step_succeeded",
                "step_gave_up",
                "step_reconcile",
                "step_restart",
            ]
        );
    }

    /// The functions of the core's source (outside its tests and the rules' own table) whose body names `word`, as
    /// `file: fn`.
    fn users(root: &Path, word: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut dirs = vec![root.join("core/src")];
        while let Some(dir) = dirs.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let file = path.strip_prefix(root).unwrap().display().to_string();
                let tests = path.file_name().is_some_and(|name| name == "tests.rs");
                if !file.ends_with(".rs") || tests || file == "core/src/ground/message/rules.rs" {
                    continue;
                }
                let source = fs::read_to_string(&path).unwrap();
                let mut function = String::new();
                for line in source.lines() {
                    if line.trim() == "#[cfg(test)]" {
                        break;
                    }
                    let code = line.trim_start();
                    if let Some(at) = code.find("fn ").filter(|_| !code.starts_with("//")) {
                        let name = code[at + 3..].split(|c: char| !c.is_alphanumeric() && c != '_').next();
                        function = name.unwrap_or_default().to_owned();
                    }
                    let named = line.split(|c: char| !c.is_alphanumeric() && c != '_').any(|token| token == word);
                    if named && !code.starts_with("//") && !found.contains(&format!("{file}: {function}")) {
                        found.push(format!("{file}: {function}"));
                    }
                }
            }
        }
        found.sort();
        found
    }

    /// Each rule left out is raised only where its reason says, and no JS entry reaches that place: so a rule JS
    /// does raise cannot be left out.
    #[test]
    fn the_rules_left_out_are_raised_only_where_no_js_entry_reaches() {
        let root = crate::workspace_root();
        let bindings: String = fs::read_dir(root.join("bindings-js/src"))
            .unwrap()
            .map(|entry| fs::read_to_string(entry.unwrap().path()).unwrap())
            .collect();
        for (rule, reason) in NOT_IN_JS {
            let variant = format!("{rule:?}");
            if rule == Rule::EntropyUnavailable {
                // The rule is the error's message; the error is made in one place, behind the `entropy` feature.
                let raised: Vec<String> = users(&root, "EntropyUnavailable")
                    .into_iter()
                    .filter(|user| !user.starts_with("core/src/config/error") && !user.contains("error_fields"))
                    .collect();
                assert_eq!(
                    raised,
                    [
                        "core/src/engine/operation/entropy.rs: draw",
                        "core/src/engine/operation/options.rs: from_entropy"
                    ],
                    "{reason}"
                );
                let options = fs::read_to_string(root.join("core/src/engine/operation/options.rs")).unwrap();
                assert!(options.contains("#[cfg(feature = \"entropy\")]\n    pub fn from_entropy("), "{reason}");
                let operation = fs::read_to_string(root.join("core/src/engine/operation/mod.rs")).unwrap();
                assert!(operation.contains("#[cfg(feature = \"entropy\")]\nmod entropy;"), "{reason}");
                let manifest = fs::read_to_string(root.join("bindings-js/Cargo.toml")).unwrap();
                assert!(manifest.contains("\nretryplan = { workspace = true }\n"), "{reason}");
                let workspace = fs::read_to_string(root.join("Cargo.toml")).unwrap();
                assert!(
                    workspace.contains("\nretryplan = { path = \"core\", default-features = false }\n"),
                    "{reason}"
                );
                assert!(!bindings.contains("from_entropy"), "{reason}");
            } else {
                assert_eq!(users(&root, &variant), ["core/src/outcomes/decision.rs: describe"], "{reason}");
                assert!(!bindings.contains("describe("), "{reason}");
            }
        }
    }

    /// Every rule JS raises keeps its template, in the core's order; a rule left out keeps its id.
    #[test]
    fn the_table_keeps_every_place() {
        let text = output(&crate::workspace_root()).unwrap().text;
        assert!(text.contains("\n  [\"invalid_argument\", \"invalid argument `{0}`: {1}\"],\n"), "{text}");
        assert!(text.contains("\n  [\"step_wait\"],\n"), "{text}");
        assert_eq!(text.matches("\n  [\"").count(), Rule::ALL.len());
        assert!(text.contains("\n  invalid_argument: \"caller\",\n"), "{text}");
    }
}
