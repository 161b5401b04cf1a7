//! Python: the engine's records the binding mirrors field by field, read
//! from the core's source: the seven `Decision` subclasses (the variants of
//! `retryplan::Decision`, each field a getter), the `Action` subclasses (the
//! variants of `retryplan::Action` with fields; `StartAttempt`'s class is its
//! `AttemptPlan`, `Finish`'s its `Ending`, to which the binding adds its own
//! methods), the records the driver hands out whole (`EndingResult`,
//! `AttemptResult`, `Event`) and the `Stats` counters (the `u64` fields of
//! `retryplan::engine::stats::Stats`). Each is written twice from the one
//! reading: the Rust glue's macro invocation (the classes, their getters and
//! docs; `include!`d by `decision.rs`, `driver.rs` and `controls.rs`) and the
//! matching part of `_native.pyi`, spliced between two marker lines.
//!
//! A field of a type with no Python type here fails the generator, naming
//! it: add it to [`python_type`] and to the binding's `IntoField`.

use std::fs;
use std::path::Path;

use crate::docs::{self, Field, Record};
use crate::output::{Output, HEADER};
use crate::python_prose::python_prose;

pub const DECISIONS: &str = "bindings-python/src/decision_classes.rs";
pub const STATS: &str = "bindings-python/src/stats_counters.rs";
pub const ACTIONS: &str = "bindings-python/src/action_classes.rs";
pub const RECORDS: &str = "bindings-python/src/record_classes.rs";
pub const NATIVE_STUB: &str = "bindings-python/python/retryplan/_native.pyi";

/// The core's records (core/src/outcomes/action.rs) the binding hands out whole, each as a class of its own
/// (`Ending.result`, `Ending.last_result` and `Event.after`, `Driver.poll_event`).
const DRIVER_RECORDS: [&str; 3] = ["EndingResult", "AttemptResult", "Event"];

pub(crate) const WIDTH: usize = 120;

pub fn outputs(root: &Path) -> Result<Vec<Output>, String> {
    let decisions = docs::enum_records(&root.join("core/src/outcomes/decision.rs"), "Decision")?;
    let stats = docs::struct_record(&root.join("core/src/engine/stats.rs"), "Stats")?;
    let path = root.join(NATIVE_STUB);
    let stub = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut outputs = outputs_from(&decisions, &stats, &stub)?;
    let (endings, actions): (Vec<_>, Vec<_>) =
        action_records(root)?.into_iter().partition(|action| action.payload.as_deref() == Some(ENDING));
    let ending = endings.first().ok_or_else(|| format!("retryplan::Action: no variant carrying `{ENDING}`"))?;
    let last = outputs.len() - 1;
    outputs[last].text = splice(&outputs[last].text, "retryplan::Action", &action_stubs(&actions)?)?;
    outputs[last].text = splice(&outputs[last].text, "retryplan::Ending", &record_stub(&ending.record)?)?;
    outputs.push(Output { path: ACTIONS, text: action_classes(&actions, ending) });
    let path = root.join("core/src/outcomes/action.rs");
    let records = DRIVER_RECORDS.iter().map(|name| docs::struct_record(&path, name)).collect::<Result<Vec<_>, _>>()?;
    for record in &records {
        let what = format!("retryplan::{}", record.ident);
        outputs[last].text = splice(&outputs[last].text, &what, &record_stub(record)?)?;
    }
    outputs.push(Output { path: RECORDS, text: record_classes(&records) });
    Ok(outputs)
}

/// An `Action` subclass: its class, the variant it stands for, and the struct
/// the variant carries when its one field is unnamed (`StartAttempt(AttemptPlan)`).
struct ActionClass {
    variant: String,
    payload: Option<String>,
    record: Record,
}

/// The `Action` subclass that answers more than its fields (`succeeded`, `message`): its fields are written
/// apart (`ending_class!`, and a part of its class in the stub), the binding writes the rest.
const ENDING: &str = "Ending";

/// The variants of `retryplan::Action` that carry fields, each with its fields (a variant carrying a
/// struct: that struct's, under the struct's name; `Finish` carries the `Ending`).
fn action_records(root: &Path) -> Result<Vec<ActionClass>, String> {
    let path = root.join("core/src/outcomes/action.rs");
    let source = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
    let records = docs::enum_records(&path, "Action")?;
    let action = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Enum(item) if item.ident == "Action" => Some(item),
            _ => None,
        })
        .ok_or_else(|| format!("{}: no enum Action", path.display()))?;
    let mut classes = Vec::new();
    for (variant, record) in action.variants.iter().zip(records) {
        match &variant.fields {
            syn::Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                let payload = fields.unnamed.iter().map(|field| docs::type_name(&field.ty)).collect::<String>();
                let carried = docs::struct_record(&path, &payload)?;
                let record = Record { ident: payload.clone(), doc: record.doc, fields: carried.fields };
                classes.push(ActionClass { variant: variant.ident.to_string(), payload: Some(payload), record });
            }
            syn::Fields::Named(_) => {
                classes.push(ActionClass { variant: variant.ident.to_string(), payload: None, record });
            }
            _ => return Err(format!("Action::{}: no Python class for its fields", variant.ident)),
        }
    }
    Ok(classes)
}

/// The glue's subclasses of `Action`: `action_classes!` for those that are only their fields, `ending_class!`
/// for the `Ending`.
fn action_classes(actions: &[ActionClass], ending: &ActionClass) -> String {
    let mut text = format!(
        "// {HEADER}\n// From `retryplan::Action` (core/src/outcomes/action.rs): one subclass per variant with fields \
         (a struct's when it carries one), a getter per field.\n"
    );
    text.push_str(&action_invocation("action_classes", actions));
    text.push_str(&action_invocation("ending_class", std::slice::from_ref(ending)));
    text
}

/// `macro_name!` over these subclasses: each its class, its variant and what the variant carries, its fields.
fn action_invocation(macro_name: &str, actions: &[ActionClass]) -> String {
    let mut text = format!("{macro_name}!(\n");
    for action in actions {
        text.push_str(&python_rust_doc(&action.record.doc, "    "));
        // The struct the variant carries, or `()` when its fields are its own.
        let payload = format!("({})", action.payload.as_deref().unwrap_or_default());
        text.push_str(&format!("    {} = {}{payload} {{\n", action.record.ident, action.variant));
        for field in &action.record.fields {
            text.push_str(&python_rust_doc(&field.doc, "        "));
            text.push_str(&format!("        {},\n", field.name));
        }
        text.push_str("    }\n");
    }
    text.push_str(");\n");
    text
}

fn action_stubs(actions: &[ActionClass]) -> Result<String, String> {
    let mut text = String::new();
    for action in actions {
        text.push_str(&format!("@final\nclass {}(Action):\n", action.record.ident));
        text.push_str(&docstring(&action.record.doc, "    "));
        text.push('\n');
        for field in &action.record.fields {
            text.push_str(&property(field, "    ")?);
        }
        text.push('\n');
    }
    Ok(text)
}

/// The glue's classes of the records the driver hands out: each the record's Rust class (`Py` and its name),
/// the name Python sees, the core's record, a field per field.
fn record_classes(records: &[Record]) -> String {
    let names: Vec<String> = records.iter().map(|record| format!("`retryplan::{}`", record.ident)).collect();
    let mut text = format!(
        "// {HEADER}\n// From {} (core/src/outcomes/action.rs): a class per record, a getter per field.\nrecord_classes!(\n",
        names.join(", ")
    );
    for record in records {
        text.push_str(&python_rust_doc(&record.doc, "    "));
        text.push_str(&format!("    Py{0}(\"{0}\") = {0} {{\n", record.ident));
        for field in &record.fields {
            text.push_str(&python_rust_doc(&field.doc, "        "));
            text.push_str(&format!("        {},\n", field.name));
        }
        text.push_str("    }\n");
    }
    text.push_str(");\n");
    text
}

/// The generated part of a record's class in the stub: its docstring and a property per field (the binding
/// writes the class line and any method after them).
fn record_stub(record: &Record) -> Result<String, String> {
    let mut text = docstring(&record.doc, "    ");
    text.push('\n');
    for field in &record.fields {
        text.push_str(&property(field, "    ")?);
    }
    Ok(text)
}

/// The files from these records and the stub as it is.
fn outputs_from(decisions: &[Record], stats: &Record, stub: &str) -> Result<Vec<Output>, String> {
    let counters: Vec<&Field> = stats.fields.iter().filter(|field| field.ty == "u64").collect();
    let stub = splice(stub, "retryplan::Decision", &decision_stubs(decisions)?)?;
    let stub = splice(&stub, "retryplan::Stats", &counter_stubs(&counters)?)?;
    Ok(vec![
        Output { path: DECISIONS, text: decision_classes(decisions) },
        Output { path: STATS, text: stats_counters(&counters) },
        Output { path: NATIVE_STUB, text: stub },
    ])
}

/// The Python type of a field's Rust type (as the binding's `IntoField` converts it).
fn python_type(field: &Field) -> Result<&'static str, String> {
    Ok(match field.ty.as_str() {
        "u32" | "u64" => "int",
        "Option<u64>" => "Optional[int]",
        "bool" => "bool",
        "RequestId" => "str",
        "AttemptSet" => "Tuple[int, ...]",
        "GiveUpReason" => "GiveUpReason",
        "AbortReason" => "AbortReasonName",
        "Outcome" => "Outcome",
        "Decision" => "Decision",
        "Option<AttemptResult>" => "Optional[AttemptResult]",
        "Option<EndingResult>" => "Optional[EndingResult]",
        other => {
            return Err(format!("field `{}`: no Python type for `{other}` (python_records::python_type)", field.name))
        }
    })
}

/// `text` as lines of at most `WIDTH` characters, the first after `first`, the others after `rest`.
pub(crate) fn wrap(text: &str, first: &str, rest: &str) -> Vec<String> {
    let mut lines = vec![first.to_owned()];
    let mut empty = true;
    for word in text.split_whitespace() {
        let line = lines.last_mut().filter(|line| empty || line.len() + 1 + word.len() <= WIDTH);
        match line {
            Some(line) => {
                if !empty {
                    line.push(' ');
                }
                line.push_str(word);
            }
            None => lines.push(format!("{rest}{word}")),
        }
        empty = false;
    }
    lines
}

/// `///` lines of `text` at `indent`.
pub(crate) fn rust_doc(text: &str, indent: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let prefix = format!("{indent}/// ");
    wrap(text, &prefix, &prefix).iter().map(|line| format!("{line}\n")).collect()
}

/// `///` lines of `text` at `indent` for the Python binding's Rust (pyo3 shows them as docstrings): the core's
/// Rust names as Python spells them (`python_prose`).
pub(crate) fn python_rust_doc(text: &str, indent: &str) -> String {
    rust_doc(&python_prose(text), indent)
}

/// A docstring of `text` at `indent` (the core's Rust names as Python spells them, backticks as reST literals).
pub(crate) fn docstring(text: &str, indent: &str) -> String {
    let text = python_prose(text).replace('\\', "\\\\").replace('`', "``");
    let mut lines = wrap(&text, &format!("{indent}\"\"\""), indent);
    if let Some(last) = lines.last_mut() {
        if last.len() + 3 > WIDTH {
            lines.push(indent.to_owned());
        }
    }
    let mut text = lines.join("\n");
    text.push_str("\"\"\"\n");
    text
}

fn decision_classes(decisions: &[Record]) -> String {
    let mut text = format!(
        "// {HEADER}\n// From `retryplan::Decision` (core/src/outcomes/decision.rs): one subclass per variant, a getter per field.\n\
         decision_classes!(\n"
    );
    for decision in decisions {
        text.push_str(&python_rust_doc(&decision.doc, "    "));
        text.push_str(&format!("    {} {{\n", decision.ident));
        for field in &decision.fields {
            text.push_str(&python_rust_doc(&field.doc, "        "));
            text.push_str(&format!("        {},\n", field.name));
        }
        text.push_str("    }\n");
    }
    text.push_str(");\n");
    text
}

fn stats_counters(counters: &[&Field]) -> String {
    let mut text = format!(
        "// {HEADER}\n// From `retryplan::engine::stats::Stats` (core/src/engine/stats.rs): a getter per counter.\nstats_methods!(\n"
    );
    for field in counters {
        text.push_str(&python_rust_doc(&field.doc, "    "));
        text.push_str(&format!("    {},\n", field.name));
    }
    text.push_str(");\n");
    text
}

fn property(field: &Field, indent: &str) -> Result<String, String> {
    let doc = if field.doc.is_empty() {
        format!("{indent}    ...\n")
    } else {
        docstring(&field.doc, &format!("{indent}    "))
    };
    Ok(format!("{indent}@property\n{indent}def {}(self) -> {}:\n{doc}", field.name, python_type(field)?))
}

fn decision_stubs(decisions: &[Record]) -> Result<String, String> {
    let mut text = String::new();
    for decision in decisions {
        text.push_str(&format!("@final\nclass {}(Decision):\n", decision.ident));
        text.push_str(&docstring(&decision.doc, "    "));
        let names: Vec<String> = decision.fields.iter().map(|field| format!("\"{}\"", field.name)).collect();
        let trailing = if names.len() == 1 { "," } else { "" };
        text.push_str(&format!("\n    __match_args__ = ({}{trailing})\n", names.join(", ")));
        for field in &decision.fields {
            text.push_str(&property(field, "    ")?);
        }
        text.push('\n');
    }
    Ok(text)
}

fn counter_stubs(counters: &[&Field]) -> Result<String, String> {
    counters.iter().map(|field| property(field, "    ")).collect()
}

/// `stub` with the lines between the markers of `what` replaced by `body`.
pub(crate) fn splice(stub: &str, what: &str, body: &str) -> Result<String, String> {
    crate::output::splice_section(stub, NATIVE_STUB, "#", what, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_between_the_markers_are_replaced() {
        let stub = format!("a\n    # {HEADER}: X\n    old\n    # end of what core/mirrors writes: X\nb\n");
        let spliced = splice(&stub, "X", "    new\n").unwrap();
        assert_eq!(spliced, stub.replace("    old\n", "    new\n"));
        assert!(splice("no markers", "X", "").is_err());
    }

    /// A field added to a core variant reaches the Rust glue's getters and the stub; one of a type
    /// the binding cannot convert stops the generator, naming it.
    #[test]
    fn a_new_decision_field_reaches_the_glue_and_the_stub() {
        let root = crate::workspace_root();
        let mut decisions = docs::enum_records(&root.join("core/src/outcomes/decision.rs"), "Decision").unwrap();
        let stats = docs::struct_record(&root.join("core/src/engine/stats.rs"), "Stats").unwrap();
        let stub = fs::read_to_string(root.join(NATIVE_STUB)).unwrap();
        let field = |ty: &str| Field { name: "jitter_ms".into(), ty: ty.into(), doc: "The jitter drawn.".into() };
        decisions[1].fields.push(field("u64"));
        let outputs = outputs_from(&decisions, &stats, &stub).unwrap();
        assert!(outputs[0].text.contains("        /// The jitter drawn.\n        jitter_ms,\n    }\n    /// "));
        assert!(outputs[2].text.contains("\"remaining_ms\", \"jitter_ms\")\n"));
        assert!(outputs[2].text.contains("    def jitter_ms(self) -> int:\n        \"\"\"The jitter drawn.\"\"\"\n"));
        assert_eq!(outputs[1].text, stats_counters(&stats.fields.iter().filter(|f| f.ty == "u64").collect::<Vec<_>>()));
        decisions[1].fields.push(field("Duration"));
        assert!(outputs_from(&decisions, &stats, &stub).unwrap_err().contains("`Duration`"));
    }

    /// Each `Action` variant with fields is a subclass (`StartAttempt`'s under its `AttemptPlan`, `Finish`'s
    /// under its `Ending`, apart: the binding adds its methods), and a field added to the core's struct reaches
    /// the glue and the stub.
    #[test]
    fn a_new_action_field_reaches_the_glue_and_the_stub() {
        let root = crate::workspace_root();
        let mut actions = action_records(&root).unwrap();
        let names: Vec<&str> = actions.iter().map(|action| action.record.ident.as_str()).collect();
        assert_eq!(names, ["AttemptPlan", "AbortAttempt", "Sleep", "Release", ENDING]);
        let mut ending = actions.pop().unwrap();
        let glue = action_classes(&actions, &ending);
        assert!(glue.contains(");\nending_class!(\n    /// The operation has ended"), "{glue}");
        assert!(glue.contains("    Ending = Finish(Ending) {\n        /// The final decision"), "{glue}");
        assert!(glue.contains("    AttemptPlan = StartAttempt(AttemptPlan) {\n        /// Attempt number"), "{glue}");
        assert!(glue.contains(
            "    Sleep = Sleep() {\n        /// When to poll again at the latest.\n        until_ms,\n    }\n"
        ));
        let field = Field { name: "jitter_ms".into(), ty: "u64".into(), doc: "The jitter drawn.".into() };
        ending.record.fields.push(field.clone());
        actions[0].record.fields.push(field);
        let glue = action_classes(&actions, &ending);
        assert!(
            glue.contains("        result,\n        /// The jitter drawn.\n        jitter_ms,\n    }\n);\n"),
            "{glue}"
        );
        let stub = record_stub(&ending.record).unwrap();
        assert!(stub.contains("    def result(self) -> Optional[EndingResult]:\n"), "{stub}");
        assert!(glue.contains("        send_idempotency_key,\n        /// The jitter drawn.\n        jitter_ms,\n"));
        let stubs = action_stubs(&actions).unwrap();
        assert!(stubs.contains("    def jitter_ms(self) -> int:\n        \"\"\"The jitter drawn.\"\"\"\n\n@final\nclass AbortAttempt(Action):"));
        assert!(stubs.contains("    def reason(self) -> AbortReasonName:\n"));
    }

    /// Each record the driver hands out is a class of its own (`Py` and its name in the glue, Python's name
    /// the core's), and a field added to the core's record reaches the glue and the class's part of the stub.
    #[test]
    fn a_new_record_field_reaches_the_glue_and_the_stub() {
        let path = crate::workspace_root().join("core/src/outcomes/action.rs");
        let mut record = docs::struct_record(&path, "AttemptResult").unwrap();
        record.fields.push(Field { name: "jitter_ms".into(), ty: "u64".into(), doc: "The jitter drawn.".into() });
        let glue = record_classes(std::slice::from_ref(&record));
        assert!(glue.contains("    PyAttemptResult(\"AttemptResult\") = AttemptResult {\n"), "{glue}");
        assert!(
            glue.contains("        outcome,\n        /// The jitter drawn.\n        jitter_ms,\n    }\n"),
            "{glue}"
        );
        let stub = record_stub(&record).unwrap();
        assert!(stub.starts_with("    \"\"\"An attempt and how it ended.\"\"\"\n\n    @property\n"), "{stub}");
        assert!(stub.contains("    def outcome(self) -> Outcome:\n"), "{stub}");
        assert!(stub.ends_with("    def jitter_ms(self) -> int:\n        \"\"\"The jitter drawn.\"\"\"\n"), "{stub}");
    }

    #[test]
    fn a_field_type_without_a_python_type_is_named() {
        let field = Field { name: "at".into(), ty: "Instant".into(), doc: String::new() };
        assert!(python_type(&field).unwrap_err().contains("`Instant`"));
    }

    #[test]
    fn docs_wrap_at_the_width() {
        let text = "word ".repeat(40);
        for line in docstring(&text, "    ").lines().chain(rust_doc(&text, "    ").lines()) {
            assert!(line.len() <= WIDTH, "{line}");
        }
    }
}
