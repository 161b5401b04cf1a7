//! Python: the engine's records the binding mirrors field by field, read
//! from the core's source: the seven `Decision` subclasses (the variants of
//! `retryplan::Decision`, each field a getter) and the `Stats` counters (the
//! `u64` fields of `retryplan::engine::stats::Stats`). Each is written twice from the one
//! reading: the Rust glue's macro invocation (the classes, their getters and
//! docs; `include!`d by `decision.rs` and `controls.rs`) and the matching
//! part of `_native.pyi`, spliced between two marker lines.
//!
//! A field of a type with no Python type here fails the generator, naming
//! it: add it to [`python_type`] and to the binding's `IntoField`.

use std::fs;
use std::path::Path;

use crate::docs::{self, Field, Record};
use crate::output::{Output, HEADER};

pub const DECISIONS: &str = "bindings-python/src/decision_classes.rs";
pub const STATS: &str = "bindings-python/src/stats_counters.rs";
pub const NATIVE_STUB: &str = "bindings-python/python/retryplan/_native.pyi";

const WIDTH: usize = 120;

pub fn outputs(root: &Path) -> Result<Vec<Output>, String> {
    let decisions = docs::enum_records(&root.join("core/src/outcomes/decision.rs"), "Decision")?;
    let stats = docs::struct_record(&root.join("core/src/engine/stats.rs"), "Stats")?;
    let path = root.join(NATIVE_STUB);
    let stub = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    outputs_from(&decisions, &stats, &stub)
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

/// A docstring of `text` at `indent` (backticks as reST literals).
pub(crate) fn docstring(text: &str, indent: &str) -> String {
    let text = text.replace('\\', "\\\\").replace('`', "``");
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
        text.push_str(&rust_doc(&decision.doc, "    "));
        text.push_str(&format!("    {} {{\n", decision.ident));
        for field in &decision.fields {
            text.push_str(&rust_doc(&field.doc, "        "));
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
        text.push_str(&rust_doc(&field.doc, "    "));
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
    let begin = format!("# {HEADER}: {what}\n");
    let end = format!("# end of what core/mirrors writes: {what}\n");
    let start = stub.find(&begin).ok_or_else(|| format!("{NATIVE_STUB}: no line `{}`", begin.trim_end()))?;
    let start = start + begin.len();
    let stop = stub[start..].find(&end).ok_or_else(|| format!("{NATIVE_STUB}: no line `{}`", end.trim_end()))?;
    // The end marker keeps the begin marker's indentation.
    let stop = start + stub[start..start + stop].rfind('\n').map_or(0, |newline| newline + 1);
    Ok(format!("{}{body}{}", &stub[..start], &stub[stop..]))
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
