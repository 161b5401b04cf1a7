//! JavaScript: `bindings-js/lib/generated/wire.js`, the core's wire encoding
//! (`retryplan::wire`) and the name tables the JS host reads as constants:
//! the special words, every record's word positions, every kind's number,
//! the vocabularies the host loop and the driver's arguments name, the HTTP
//! header names, the depth of a `cause` chain searched and the profile names. Nothing of it is written in `lib/`,
//! nor built from the wasm at load (the wasm's version is still checked).

use retryplan::value::Named;
use retryplan::wire::{self, ActionKind, DecisionKind, EndingKind, InputKind, OutcomeKind};
use retryplan::{
    AbortReason, Concurrency, Failure, GiveUpReason, GrpcCode, Held, Receipt, RetryAfterReading, TransportFailure,
    Verdict,
};

use crate::output::{Output, HEADER};

pub const WIRE: &str = "bindings-js/lib/generated/wire.js";

/// `'a', 'b', ...` wrapped at about 100 columns, each line indented by `indent`.
fn quoted(names: &[&str], indent: &str) -> String {
    let mut lines = vec![String::new()];
    for name in names {
        let item = format!("'{name}',");
        let line = lines.last().map_or(0, String::len);
        if line > 0 && indent.len() + line + 1 + item.len() > 100 {
            lines.push(String::new());
        }
        if let Some(last) = lines.last_mut() {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(&item);
        }
    }
    lines.iter().map(|line| format!("{indent}{line}\n")).collect()
}

fn names<T: Named>() -> Vec<&'static str> {
    T::ALL.iter().map(|member| member.name()).collect()
}

/// `{name: number}` of a record's fields (their word positions).
fn positions(text: &mut String, key: &str, doc: &str, fields: &[(&str, usize)]) {
    text.push_str(&format!("  /** {doc} */\n  {key}: Object.freeze({{\n"));
    for (name, at) in fields {
        text.push_str(&format!("    {name}: {at},\n"));
    }
    text.push_str("  }),\n");
}

/// `{name: number}` of a kind table (a member's number is its place), without a prototype.
fn numbered(text: &mut String, key: &str, doc: &str, names: &[&str]) {
    text.push_str(&format!("  /** {doc} */\n  {key}: numbered({{\n"));
    for (at, name) in names.iter().enumerate() {
        text.push_str(&format!("    {name}: {at},\n"));
    }
    text.push_str("  }),\n");
}

pub fn output() -> Result<Output, String> {
    let unknown = Verdict::ALL.iter().position(|verdict| *verdict == Verdict::UNKNOWN_ERROR);
    let unknown = unknown.ok_or("Verdict::UNKNOWN_ERROR is not in Verdict::ALL")?;
    let mut text = format!(
        "// {HEADER}\n\
         // The core's wire encoding (retryplan::wire, core/src/driver/wire.md) and the\n\
         // name tables the host reads, as constants (lib/wire.js re-exports them).\n\n\
         /**\n * `{{name: number}}` without a prototype: a name read from a caller's object\n \
         * (`toString`) finds nothing. Made with its names, then stripped of its\n \
         * prototype: an object made from `Object.create(null)` keeps its names in\n \
         * a dictionary, which the host loop's every lookup would search.\n */\n\
         const numbered = (names) => Object.freeze(Object.setPrototypeOf(names, null));\n\n\
         /** The words and kinds of the wire. */\n\
         export const WIRE = Object.freeze({{\n\
         \x20 /** `WIRE_VERSION`: the wasm's must be the same. */\n  VERSION: {},\n\
         \x20 NONE: {},\n  FLAG_HEDGE: {},\n  FLAG_SEND_IDEMPOTENCY_KEY: {},\n  ENDING_RETURNS: {},\n\
         \x20 PUSHBACK_DO_NOT_RETRY: {},\n\
         \x20 /** The verdict of an error nothing classified: the core's `Verdict::UNKNOWN_ERROR`. */\n\
         \x20 UNKNOWN_ERROR_VERDICT: {unknown},\n",
        wire::WIRE_VERSION,
        wire::NONE,
        wire::FLAG_HEDGE,
        wire::FLAG_SEND_IDEMPOTENCY_KEY,
        wire::ENDING_RETURNS,
        wire::PUSHBACK_DO_NOT_RETRY,
    );
    positions(&mut text, "IN", "The input record's word positions.", wire::input::FIELDS);
    positions(&mut text, "OUT", "The output record's word positions.", wire::output::FIELDS);
    positions(&mut text, "DECISION", "The decision record's word positions.", wire::decision::FIELDS);
    numbered(&mut text, "INPUT", "Input kinds.", &names::<InputKind>());
    numbered(&mut text, "OUTCOME", "Outcome kinds.", &names::<OutcomeKind>());
    numbered(&mut text, "ACTION", "Action kinds.", &names::<ActionKind>());
    numbered(&mut text, "HELD", "What a token holds.", &names::<Held>());
    numbered(&mut text, "RECEIPT", "A result's receipts.", &names::<Receipt>());
    numbered(&mut text, "VERDICT", "An application outcome's verdicts (its outcome code).", &names::<Verdict>());
    numbered(&mut text, "FAILURE", "A failure of the vocabulary by name: its outcome code.", &names::<Failure>());
    numbered(&mut text, "TRANSPORT", "Transport failures (a transport outcome's code).", &names::<TransportFailure>());
    numbered(
        &mut text,
        "GRPC",
        "gRPC codes by name: their number (a gRPC status outcome's code).",
        &names::<GrpcCode>(),
    );
    text.push_str("});\n\n/** The core's name tables, in the core's order (a member's number is its place). */\n");
    text.push_str("export const NAMES = Object.freeze({\n");
    let tables: [(&str, Vec<&str>); 12] = [
        ("failures", names::<Failure>()),
        ("verdicts", names::<Verdict>()),
        ("transportFailures", names::<TransportFailure>()),
        ("abortReasons", names::<AbortReason>()),
        ("giveUpReasons", names::<GiveUpReason>()),
        ("endingKinds", names::<EndingKind>()),
        ("receipts", names::<Receipt>()),
        ("held", names::<Held>()),
        ("concurrencies", names::<Concurrency>()),
        ("readings", names::<RetryAfterReading>()),
        ("actionKinds", names::<ActionKind>()),
        ("decisionKinds", names::<DecisionKind>()),
    ];
    for (key, members) in &tables {
        text.push_str(&format!("  {key}: Object.freeze([\n{}  ]),\n", quoted(members, "    ")));
    }
    text.push_str("});\n\n/** Every response header the core reads for server guidance, lower case, in the order it consults them. */\n");
    text.push_str(&format!(
        "export const GUIDANCE_HEADERS = Object.freeze([\n{}]);\n",
        quoted(&retryplan::GUIDANCE_HEADERS, "  ")
    ));
    text.push_str(&format!(
        "/** The header carrying the operation's idempotency key. */\nexport const IDEMPOTENCY_KEY_HEADER = '{}';\n\
         /** The header carrying each attempt's request id. */\nexport const REQUEST_ID_HEADER = '{}';\n\n",
        retryplan::IDEMPOTENCY_KEY_HEADER,
        retryplan::REQUEST_ID_HEADER,
    ));
    text.push_str(&format!(
        "/** How many errors below the one caught a host looks through (`cause` after `cause`) for a known failure. */\n\
         export const MAX_CAUSE_DEPTH = {};\n\n",
        retryplan::MAX_CAUSE_DEPTH
    ));
    text.push_str(&format!(
        "/** The built-in profile names. */\nexport const PROFILE_NAMES = Object.freeze([\n{}]);\n",
        quoted(&retryplan::profiles::NAMES, "  ")
    ));
    Ok(Output { path: WIRE, text })
}
