//! Kotlin (and Swift), through uniffi: `bindings-kotlin/src/errors.rs`, the
//! binding's error (`RetryplanError`, Kotlin's `RetryplanException` and a
//! subclass per variant) from the core's `Error`, read from its source: a
//! variant per variant with the core's doc, its fields in the core's order
//! and converted as the records' are, then `code`, `blame` and
//! `description` (the core's `Error::code`, `blame` and message), which
//! every variant carries. A field holding the reader's whole message
//! (`message`) is not repeated: `description` says it. `rule` (the rule an
//! `InvalidArgument` or `Unsupported` breaks, without its field) is carried,
//! as the root README's Errors section and Python's classes have it.
//!
//! The core's other error type, a refused compiled form
//! (`CompiledFormError`, `core/src/policy/compiled/error.rs`), is one more
//! variant, `CompiledForm`, with its doc, and carries the same three (its
//! code one of `CompiledFormError::CODES`); the core gives it no fields.
//!
//! A field of a type with no conversion here fails the generator, naming it:
//! add it to [`conversion`].

use std::fs;
use std::path::Path;

use crate::docs::{summary, type_name};
use crate::output::{Output, HEADER};
use crate::uniffi_records::docs;

pub const ERRORS: &str = "bindings-kotlin/src/errors.rs";
pub const ERROR_FIELDS: &str = "bindings-kotlin/kotlin/main/dev/retryplan/ErrorFields.kt";

const SOURCE: &str = "core/src/config/error.rs";
const COMPILED_SOURCE: &str = "core/src/policy/compiled/error.rs";

/// Fields the description already says.
const IN_DESCRIPTION: [&str; 1] = ["message"];

/// The name of a tuple variant's one field, by variant.
const TUPLE_FIELDS: [(&str, &str); 2] = [("InvalidHeader", "header"), ("InvalidRequestHeader", "header")];

pub fn outputs(root: &Path) -> Result<Vec<Output>, String> {
    let path = root.join(SOURCE);
    let source = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
    let item = file.items.iter().find_map(|item| match item {
        syn::Item::Enum(item) if item.ident == "Error" => Some(item),
        _ => None,
    });
    let item = item.ok_or_else(|| format!("{SOURCE}: no enum Error"))?;
    let mut definition = String::new();
    let mut arms = String::new();
    let mut kotlin_arms = String::new();
    for variant in &item.variants {
        let ident = variant.ident.to_string();
        kotlin_arms.push_str(&format!("        is RetryplanException.{ident} -> Triple(code, description, blame)\n"));
        let tuple = matches!(variant.fields, syn::Fields::Unnamed(_));
        let mut bound = Vec::new();
        let mut fields = String::new();
        let mut values = String::new();
        for field in &variant.fields {
            let name = match &field.ident {
                Some(name) => name.to_string(),
                None => TUPLE_FIELDS
                    .iter()
                    .find(|(of, _)| *of == ident)
                    .map(|(_, name)| (*name).to_owned())
                    .ok_or_else(|| format!("Error::{ident}: name its field in uniffi_errors::TUPLE_FIELDS"))?,
            };
            if IN_DESCRIPTION.contains(&name.as_str()) {
                continue;
            }
            let ty = type_name(&field.ty);
            let (binding, value) = conversion(&name, &ty).ok_or_else(|| {
                format!("Error::{ident}.{name}: no conversion for `{ty}` (uniffi_errors::conversion)")
            })?;
            fields.push_str(&docs("        ", &summary(&field.attrs)));
            fields.push_str(&format!("        {name}: {binding},\n"));
            values.push_str(&if value == name {
                format!("                {name},\n")
            } else {
                format!("                {name}: {value},\n")
            });
            bound.push(name);
        }
        definition.push_str(&docs("    ", &summary(&variant.attrs)));
        definition.push_str(&format!(
            "    #[error(\"{{description}}\")]\n    {ident} {{\n{fields}        code: String,\n        \
             blame: Blame,\n        description: String,\n    }},\n"
        ));
        let pattern = match (tuple, bound.as_slice(), variant.fields.is_empty()) {
            (_, _, true) => format!("rp::Error::{ident}"),
            (true, [name], false) => format!("rp::Error::{ident}({name})"),
            (_, [], false) => format!("rp::Error::{ident} {{ .. }}"),
            (_, names, false) if names.len() == variant.fields.len() => {
                format!("rp::Error::{ident} {{ {} }}", names.join(", "))
            }
            (_, names, false) => format!("rp::Error::{ident} {{ {}, .. }}", names.join(", ")),
        };
        arms.push_str(&format!(
            "            {pattern} => RetryplanError::{ident} {{\n{values}                code,\n                \
             blame,\n                description,\n            }},\n"
        ));
    }
    let compiled = crate::docs::enum_docs(&root.join(COMPILED_SOURCE), "CompiledFormError")?;
    definition.push_str(&docs("    ", &compiled.summary));
    definition.push_str(
        "    #[error(\"{description}\")]\n    CompiledForm {\n        code: String,\n        blame: Blame,\n        \
         description: String,\n    },\n",
    );
    let text = format!(
        "// {HEADER}\n//! The binding's error, variant for variant the core's `Error` (core/mirrors/src/uniffi_errors.rs).\n\n\
         use retryplan as rp;\nuse retryplan::config::error::ConfigKind;\nuse retryplan::Blame;\n\nuse crate::{{count_out, Violation}};\n\n\
         {}///\n/// Every variant carries `code`, the core's stable identifier (the same in every language), `blame`, who\n\
         /// must act, and `description`, the core's message (also what `toString()` and Kotlin's `message` return).\n\
         #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, uniffi::Error)]\n#[uniffi::export(Display)]\n\
         pub enum RetryplanError {{\n{definition}}}\n\n\
         impl From<rp::Error> for RetryplanError {{\n    fn from(error: rp::Error) -> Self {{\n        \
         let code = error.code().to_owned();\n        let description = error.to_string();\n        \
         let blame = error.blame();\n        match error {{\n{arms}        }}\n    }}\n}}\n\n\
         impl From<rp::CompiledFormError> for RetryplanError {{\n    fn from(error: rp::CompiledFormError) -> Self {{\n        \
         RetryplanError::CompiledForm {{\n            code: error.code().to_owned(),\n            \
         blame: error.blame(),\n            description: error.to_string(),\n        }}\n    }}\n}}\n",
        docs("", &summary(&item.attrs)),
    );
    kotlin_arms.push_str("        is RetryplanException.CompiledForm -> Triple(code, description, blame)\n");
    Ok(vec![Output { path: ERRORS, text }, Output { path: ERROR_FIELDS, text: kotlin_fields(&kotlin_arms) }])
}

/// Kotlin's `code`, `description` and `blame` on any `RetryplanException`:
/// uniffi gives each subclass its own fields, so one `when` over every
/// variant reads them (exhaustive: a variant missing here fails the build).
fn kotlin_fields(arms: &str) -> String {
    format!(
        "// {HEADER}\npackage dev.retryplan\n\n\
         /** What every [RetryplanException] carries, whatever its subclass (core/mirrors/src/uniffi_errors.rs). */\n\
         private val RetryplanException.common: Triple<String, String, Blame>\n    get() = when (this) {{\n{arms}    }}\n\n\
         /** The core's stable error code (`config_violations`, `operation_ended`, ...) on any [RetryplanException]. */\n\
         val RetryplanException.code: String get() = common.first\n\n\
         /** The core's message on any [RetryplanException] (also its `message` and `toString()`). */\n\
         val RetryplanException.description: String get() = common.second\n\n\
         /**\n * Who must act on any [RetryplanException] (the core's `Error::blame()`):\n\
         \x20* [Blame.CALLER], [Blame.CONFIGURATION], [Blame.SERVER] or [Blame.ENVIRONMENT];\n\
         \x20* its `name` lowercased is the snake_case name every binding uses.\n */\n\
         val RetryplanException.blame: Blame get() = common.third\n{}",
        kotlin_misuse()
    )
}

/// Kotlin's `Blame.isMisuse`, the core's [`retryplan::Blame::is_misuse`] (one exhaustive `when`: a blame the
/// core adds fails the build until this is written again), which the host loop (`Host.kt`) reads.
fn kotlin_misuse() -> String {
    let mut arms = String::new();
    for misuse in [true, false] {
        let blames: Vec<String> = retryplan::Blame::ALL
            .iter()
            .filter(|blame| blame.is_misuse() == misuse)
            .map(|blame| format!("Blame.{}", blame.name().to_uppercase()))
            .collect();
        if !blames.is_empty() {
            arms.push_str(&format!("        {} -> {misuse}\n", blames.join(", ")));
        }
    }
    format!(
        "\n/**\n * Whether an error of this blame, raised inside an attempt, is misuse of retryplan itself (the core's\n\
         \x20* `Blame::is_misuse`): no attempt's outcome; the host loop ends the operation and throws it unchanged.\n */\n\
         internal val Blame.isMisuse: Boolean\n    get() = when (this) {{\n{arms}    }}\n"
    )
}

/// A field `name` of the core's type `ty`: the binding's type and the expression converting it.
fn conversion(name: &str, ty: &str) -> Option<(&'static str, String)> {
    Some(match ty {
        "ConfigKind" => ("ConfigKind", name.into()),
        "String" => ("String", name.into()),
        "Vec<String>" => ("Vec<String>", name.into()),
        "Box<str>" => ("String", format!("{name}.into()")),
        "&str" => ("String", format!("{name}.to_owned()")),
        "u32" => ("i32", format!("count_out({name})")),
        "Vec<u32>" => ("Vec<i32>", format!("{name}.into_iter().map(count_out).collect()")),
        "HeaderError" | "Box<HeaderError>" => ("String", format!("{name}.header().to_owned()")),
        "Vec<Violation>" => ("Vec<Violation>", format!("{name}.into_iter().map(Violation::from).collect()")),
        "Message" => ("String", format!("{name}.to_string()")),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kotlin's `Blame.isMisuse` as written in `ErrorFields.kt` (what `Host.kt` never makes an attempt's outcome)
    /// is true of a blame exactly when the core's `Blame::is_misuse` is.
    #[test]
    fn kotlins_misuse_is_the_cores() {
        let text = fs::read_to_string(crate::workspace_root().join(ERROR_FIELDS)).unwrap();
        let when = text.split("internal val Blame.isMisuse: Boolean\n").nth(1).unwrap();
        for blame in retryplan::Blame::ALL {
            let name = format!("Blame.{}", blame.name().to_uppercase());
            let arm =
                when.lines().find(|line| line.split(" -> ").next().unwrap().split(", ").any(|b| b.trim() == name));
            let arm = arm.unwrap_or_else(|| panic!("no arm for {name}: {when}"));
            assert!(arm.ends_with(&format!(" -> {}", blame.is_misuse())), "{name}: {arm}");
        }
        assert!(when.contains("        Blame.CALLER, Blame.CONFIGURATION -> true\n"), "{when}");
    }

    #[test]
    fn every_variant_carries_code_blame_and_description_and_the_rule_an_argument_breaks() {
        let text = &outputs(&crate::workspace_root()).unwrap()[0].text;
        assert!(text.contains("    InvalidArgument {\n"), "{text}");
        assert!(
            text.contains("rp::Error::InvalidArgument { field, rule } => RetryplanError::InvalidArgument {\n"),
            "{text}"
        );
        assert!(text.contains("        rule: String,\n"), "{text}");
        assert!(text.contains("                rule: rule.to_string(),\n"), "{text}");
        assert!(text.contains("rp::Error::InvalidHeader(header) => RetryplanError::InvalidHeader {\n"), "{text}");
        // The reader's whole message is the description, not a field of its own.
        assert!(text.contains("rp::Error::InvalidConfig { config, field, .. } =>"), "{text}");
        assert!(!text.contains("message:"), "{text}");
        assert!(text.contains("    CompiledForm {\n        code: String,\n"), "{text}");
        assert!(text.contains("impl From<rp::CompiledFormError> for RetryplanError {\n"), "{text}");
        assert!(conversion("at", "Instant").is_none());
    }
}
