//! Kotlin: `bindings-kotlin/kotlin/main/dev/retryplan/WireWords.kt`, the
//! core's wire encoding (`retryplan::wire`) as constants: the version, the
//! special words, every record's word positions, every kind's number, and
//! each vocabulary's number on the wire for the binding's enums (both ways:
//! the member's place in the core's table, which is its `ordinal` because
//! `src/generated.rs` declares the enum for uniffi from that table; no list
//! or `when` mapping, which loaded every vocabulary's enum class and Kotlin's
//! collections on the first call of a process), so nothing of the encoding
//! is written (or read at load) in Kotlin; `MAX_CAUSE_DEPTH`, how deep `failureOf` looks through wrapped errors;
//! and `decision(w)`, the decision record read back as the binding's `Decision` (what `Operation`'s wire path answers).

use std::path::Path;

use retryplan::config::value::{camel_case, Named};
use retryplan::wire::{self, ActionKind, DecisionKind, EndingKind, InputKind, OutcomeKind};

use crate::js_records::{layout, Word};
use crate::output::{Output, HEADER};
use crate::tables::Table;

pub const WIRE_WORDS: &str = "bindings-kotlin/kotlin/main/dev/retryplan/WireWords.kt";

/// The vocabularies a Kotlin host puts on or reads off the wire (their number is their place in the table).
const VOCABULARIES: [&str; 8] =
    ["Failure", "Verdict", "TransportFailure", "GrpcCode", "Held", "Receipt", "AbortReason", "GiveUpReason"];

fn record(text: &mut String, title: &str, prefix: &str, words: usize, fields: &[(&str, usize)]) {
    text.push_str(&format!("\n    // {title} ({words} words).\n    const val {prefix}WORDS = {words}\n"));
    for (name, at) in fields {
        text.push_str(&format!("    const val {prefix}{} = {at}\n", name.to_ascii_uppercase()));
    }
}

fn kinds<K: Named>(text: &mut String, prefix: &str) {
    for (at, kind) in K::ALL.iter().enumerate() {
        text.push_str(&format!("    const val {prefix}_{} = {at}L\n", kind.name().to_ascii_uppercase()));
    }
}

pub fn output(root: &Path, tables: &[Table]) -> Result<Output, String> {
    let mut text = format!(
        "// {HEADER}\npackage dev.retryplan\n\n\
         /**\n * The core's wire encoding (`retryplan::wire`, `core/src/driver/wire.md`) as\n \
         * constants: record words (`IN_`, `OUT_`, `D_`), kind numbers, and each\n \
         * vocabulary's number on the wire (`word(...)`, and back).\n */\n\
         internal object WireWords {{\n\
         \x20   /** `WIRE_VERSION`: the library's `wireVersion()` must be the same. */\n\
         \x20   const val VERSION = {}L\n    const val NONE = {}L\n    const val PUSHBACK_DO_NOT_RETRY = {}L\n\
         \x20   const val FLAG_HEDGE = {}L\n    const val FLAG_SEND_IDEMPOTENCY_KEY = {}L\n    const val ENDING_RETURNS = {}L\n\n\
         \x20   /** `retryplan::outcomes::failure::MAX_CAUSE_DEPTH`: how many wrapped errors `failureOf` looks through below the one caught. */\n\
         \x20   const val MAX_CAUSE_DEPTH = {}\n",
        wire::WIRE_VERSION,
        wire::NONE,
        wire::PUSHBACK_DO_NOT_RETRY,
        wire::FLAG_HEDGE,
        wire::FLAG_SEND_IDEMPOTENCY_KEY,
        wire::ENDING_RETURNS,
        retryplan::outcomes::failure::MAX_CAUSE_DEPTH,
    );
    record(&mut text, "The input record", "IN_", wire::INPUT_WORDS, wire::input::FIELDS);
    record(&mut text, "The output record (a driver's next action)", "OUT_", wire::OUTPUT_WORDS, wire::output::FIELDS);
    record(
        &mut text,
        "The decision record (an operation's decision)",
        "D_",
        wire::DECISION_WORDS,
        wire::decision::FIELDS,
    );
    text.push_str("\n    // Kinds.\n");
    kinds::<InputKind>(&mut text, "INPUT");
    kinds::<OutcomeKind>(&mut text, "OUTCOME");
    kinds::<ActionKind>(&mut text, "ACTION");
    kinds::<EndingKind>(&mut text, "ENDING");
    kinds::<DecisionKind>(&mut text, "DECISION");
    for ident in VOCABULARIES {
        let table = tables.iter().find(|table| table.ident == ident).ok_or(format!("no table {ident}"))?;
        // A member's number on the wire is its place in the table, which is its
        // Kotlin `ordinal` only because uniffi's enum is declared from the table.
        if !table.mirrors.kotlin {
            return Err(format!("{ident}: its Kotlin enum must be generated from its table (mirrors.kotlin)"));
        }
        let decode = format!("{}{}", ident[..1].to_ascii_lowercase(), &ident[1..]);
        text.push_str(&format!(
            "\n    /** A `{ident}`'s number on the wire: its place in the core's table, its `ordinal`. */\n\
             \x20   fun word(value: {ident}): Long = value.ordinal.toLong()\n\n\
             \x20   /** The `{ident}` numbered [word] on the wire. */\n\
             \x20   fun {decode}(word: Long): {ident} = {ident}.values()[word.toInt()]\n"
        ));
    }
    text.push_str(&decision_reader(root, tables)?);
    text.push_str("}\n");
    Ok(Output { path: WIRE_WORDS, text })
}

/// `decision(w)`: the decision record (`retryplan::wire::encode_decision`)
/// read back as the binding's `Decision`. Where each key is carried is
/// found as JS's reader finds it (`js_records::layout`), and each field is
/// read as its generated record declares it (`uniffi_records::variant_fields`).
fn decision_reader(root: &Path, tables: &[Table]) -> Result<String, String> {
    let variants = crate::uniffi_records::variant_fields(root, tables, "Decision")?;
    let mut text = String::from(
        "\n    /** The decision the decision record [w] holds (`encode_decision` in the core). */\n    \
         fun decision(w: LongArray): Decision = when (w[D_DECISION_KIND]) {\n",
    );
    for kind in DecisionKind::ALL {
        let variant = camel_case(&format!("_{}", kind.name()));
        let (_, fields) =
            variants.iter().find(|(ident, _)| *ident == variant).ok_or(format!("no Decision::{variant}"))?;
        let mut args = Vec::new();
        for (key, word) in layout(*kind)?.0 {
            let (_, ty) = fields.iter().find(|(name, _)| *name == key).ok_or(format!("{variant}: no field {key}"))?;
            let read = match (word, ty.as_str()) {
                (Word::Number(at), "i32") => format!("w[{at}].toInt()"),
                (Word::Number(at), "i64") => format!("w[{at}]"),
                (Word::Number(at), "Option<i64>") => format!("w[{at}].takeUnless {{ it == NONE }}"),
                (Word::Flag { flags, name, .. }, "bool") => format!("w[{flags}] and {name} != 0L"),
                (Word::GiveUpReason(at), "GiveUpReason") => format!("giveUpReason(w[{at}])"),
                (Word::RequestId { high, low }, "String") => format!("Wire.requestId(w[{high}], w[{low}])"),
                (Word::Attempts(aborts), "Vec<i32>") => {
                    format!("Wire.attempts({})", aborts.map(|at| format!("w[{at}]")).join(", "))
                }
                (word, ty) => return Err(format!("{variant}.{key}: no Kotlin reading of {word:?} as `{ty}`")),
            };
            args.push(format!("{} = {read}", camel_case(&key)));
        }
        text.push_str(&format!(
            "        DECISION_{} -> Decision.{variant}({})\n",
            kind.name().to_ascii_uppercase(),
            args.join(", ")
        ));
    }
    text.push_str(
        "        else -> throw IllegalStateException(\"retryplan: unknown decision kind ${w[D_DECISION_KIND]}\")\n    }\n",
    );
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every decision kind is a branch, and every field the binding's record declares for it is read, by name.
    #[test]
    fn the_decision_reader_reads_every_field_of_every_kind() {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let text = decision_reader(&root, &tables).unwrap();
        let variants = crate::uniffi_records::variant_fields(&root, &tables, "Decision").unwrap();
        assert_eq!(variants.len(), DecisionKind::ALL.len());
        for (variant, fields) in variants {
            let line = text.lines().find(|line| line.contains(&format!("-> Decision.{variant}("))).unwrap();
            for (name, _) in fields {
                assert!(line.contains(&format!("{} = ", camel_case(&name))), "{name} in {line}");
            }
        }
        assert!(text.contains("retryAfterMs = w[10].takeUnless { it == NONE }"), "{text}");
        assert!(text.contains("hedge = w[7] and FLAG_HEDGE != 0L"), "{text}");
    }
}
