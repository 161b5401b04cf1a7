//! Kotlin: `bindings-kotlin/kotlin/main/dev/retryplan/WireWords.kt`, the
//! core's wire encoding (`retryplan::wire`) as constants: the version, the
//! special words, every record's word positions, every kind's number, and
//! each vocabulary's number on the wire for the binding's enums (both ways:
//! the member's place in the core's table, which is its `ordinal` because
//! `src/generated.rs` declares the enum for uniffi from that table; no list
//! or `when` mapping, which loaded every vocabulary's enum class and Kotlin's
//! collections on the first call of a process), so nothing of the encoding
//! is written (or read at load) in Kotlin; and `MAX_CAUSE_DEPTH`, how deep `failureOf` looks through wrapped errors.

use retryplan::config::value::Named;
use retryplan::wire::{self, ActionKind, DecisionKind, EndingKind, InputKind, OutcomeKind};

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

pub fn output(tables: &[Table]) -> Result<Output, String> {
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
    text.push_str("}\n");
    Ok(Output { path: WIRE_WORDS, text })
}
