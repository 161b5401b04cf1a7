//! `tests/conformance/schema.json`, the vectors' schema, with the policy's
//! shapes written in from the core: `core/src/policy/schema.json` holds the
//! JSON Schema of a policy configuration beside the code that reads it
//! (`config.rs`, `read.rs`; a core test checks every section's properties
//! against the reader's fields), and each of its `$defs` replaces the entry
//! of that name here. Every other mirror is generated from the result, so a
//! policy field is written in the core's `policy/` and nowhere else by hand.

use std::fs;
use std::path::Path;

use serde_json::{Map, Value};

use crate::output::Output;

pub const SCHEMA: &str = "tests/conformance/schema.json";
pub const POLICY_SCHEMA: &str = "core/src/policy/schema.json";

/// The vectors' schema at `root`, the policy's `$defs` written in.
pub fn output(root: &Path) -> Result<Output, String> {
    let read = |path: &str| -> Result<Value, String> {
        let text = fs::read_to_string(root.join(path)).map_err(|e| format!("{path}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
    };
    let text = splice(read(SCHEMA)?, &read(POLICY_SCHEMA)?)?;
    Ok(Output { path: SCHEMA, text })
}

/// `schema` with each of `policy`'s `$defs` in place of the entry of its
/// name (added at the end when there is none), as pretty JSON (two spaces,
/// the file's own form).
pub fn splice(mut schema: Value, policy: &Value) -> Result<String, String> {
    let from = policy.get("$defs").and_then(Value::as_object).ok_or(format!("{POLICY_SCHEMA}: no $defs object"))?;
    let defs = schema.get_mut("$defs").and_then(Value::as_object_mut).ok_or(format!("{SCHEMA}: no $defs object"))?;
    let mut spliced = Map::new();
    for (name, def) in std::mem::take(defs) {
        let def = from.get(&name).cloned().unwrap_or(def);
        spliced.insert(name, def);
    }
    for (name, def) in from {
        if !spliced.contains_key(name) {
            spliced.insert(name.clone(), def.clone());
        }
    }
    *defs = spliced;
    let mut text = serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_def_is_replaced_in_place_and_a_new_one_appended() {
        let schema = serde_json::json!({"$defs": {"a": 1, "policyConfig": {"x": 1}, "z": 2}});
        let policy = serde_json::json!({"$defs": {"policyConfig": {"x": 2}, "statusSet": 3}});
        let text = splice(schema, &policy).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&String> = value["$defs"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "policyConfig", "z", "statusSet"]);
        assert_eq!(value["$defs"]["policyConfig"]["x"], 2);
    }
}
