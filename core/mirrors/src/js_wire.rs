//! JavaScript: `bindings-js/lib/generated/wire.js`, the core's wire encoding
//! (`retryplan::wire`) and the name tables the JS host reads as constants:
//! the special words, every record's word positions, every kind's number,
//! the vocabularies the host loop and the driver's arguments name, the HTTP
//! header names, the depth of a `cause` chain searched, the profile names
//! and the messages of a refused compiled form. Nothing of it is written in `lib/`,
//! nor built from the wasm at load (the wasm's version is still checked).

use retryplan::config::value::Named;
use retryplan::ground::codes::{GrpcCode, TransportFailure};
use retryplan::headers::retry_after::RetryAfterReading;
use retryplan::policy::compiled::{Damage, FormKind, FORM_VERSION, MAX_FORM_LEN};
use retryplan::wire::{self, ActionKind, DecisionKind, EndingKind, InputKind, OutcomeKind};
use retryplan::{AbortReason, CompiledFormError, Concurrency, Failure, GiveUpReason, Held, Receipt, Verdict};

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
        quoted(&retryplan::outcomes::http::GUIDANCE_HEADERS, "  ")
    ));
    text.push_str(&format!(
        "/** The header carrying the operation's idempotency key. */\nexport const IDEMPOTENCY_KEY_HEADER = '{}';\n\
         /** The header carrying each attempt's request id. */\nexport const REQUEST_ID_HEADER = '{}';\n\n",
        retryplan::outcomes::http::IDEMPOTENCY_KEY_HEADER,
        retryplan::outcomes::http::REQUEST_ID_HEADER,
    ));
    text.push_str(&format!(
        "/** How many errors below the one caught a host looks through (`cause` after `cause`) for a known failure. */\n\
         export const MAX_CAUSE_DEPTH = {};\n\n",
        retryplan::outcomes::failure::MAX_CAUSE_DEPTH
    ));
    text.push_str(&format!(
        "/** The built-in profile names. */\nexport const PROFILE_NAMES = Object.freeze([\n{}]);\n",
        quoted(&retryplan::dialects::profiles::NAMES, "  ")
    ));
    compiled_form(&mut text)?;
    Ok(Output { path: WIRE, text })
}

/// Numbers no message of a compiled form holds otherwise: each stands for a
/// placeholder while the core's message is turned into a template.
const SENTINEL_COUNT: usize = 987_654_321;
const SENTINEL_FOUND: u8 = 251;
const SENTINEL_SUPPORTED: u8 = 252;

/// Every message of a refused compiled form, in the order the wasm numbers
/// them (`src/lib.rs`, `compiled_error`): expecting `expected`, with `count`
/// bytes (or the offset), the version `found` and the version `supported`.
fn compiled_errors(expected: FormKind, count: usize, found: u8, supported: u8) -> [CompiledFormError; 6] {
    let other = if expected == FormKind::Policy { FormKind::Dependency } else { FormKind::Policy };
    [
        CompiledFormError::NotCompiled { expected, len: count },
        CompiledFormError::Version { expected, found, supported },
        CompiledFormError::Damaged { expected, damage: Damage::Checksum },
        CompiledFormError::Damaged { expected, damage: Damage::Unreadable { offset: count } },
        CompiledFormError::Kind { expected, found: Some(other) },
        CompiledFormError::Kind { expected, found: None },
    ]
}

/// The values a template names after the kind expected (`{0}`), as the wasm passes them.
fn compiled_values(error: &CompiledFormError) -> Vec<String> {
    let mut values = Vec::new();
    match *error {
        CompiledFormError::NotCompiled { expected, len } => {
            values.extend([expected.name().to_string(), len.to_string()])
        }
        CompiledFormError::Version { expected, found, supported } => {
            values.extend([expected.name().to_string(), found.to_string(), supported.to_string()]);
        }
        CompiledFormError::Damaged { expected, damage: Damage::Unreadable { offset } } => {
            values.extend([expected.name().to_string(), offset.to_string()]);
        }
        CompiledFormError::Kind { expected, found: Some(found) } => {
            values.extend([expected.name().to_string(), found.name().to_string()]);
        }
        CompiledFormError::Damaged { expected, .. } | CompiledFormError::Kind { expected, .. } => {
            values.push(expected.name().to_string());
        }
        _ => {}
    }
    values
}

/// A template filled as lib/messages.js fills it (`{n}`, `{{`, `}}`).
fn fill(template: &str, values: &[String]) -> String {
    let mut text = template.replace("{{", "\u{1}").replace("}}", "\u{2}");
    for (at, value) in values.iter().enumerate() {
        text = text.replace(&format!("{{{at}}}"), value);
    }
    text.replace('\u{1}', "{").replace('\u{2}', "}")
}

/// The messages of `CompiledFormError` as templates of lib/messages.js (`{0}`
/// the kind expected, then the numbers or the kind found), made from the
/// core's own text and checked to compose it back for every kind; with the
/// codes, their blame and the version this core reads.
fn compiled_form(text: &mut String) -> Result<(), String> {
    let samples = compiled_errors(FormKind::Policy, SENTINEL_COUNT, SENTINEL_FOUND, SENTINEL_SUPPORTED);
    let mut rows = String::new();
    for (index, sample) in samples.iter().enumerate() {
        let template = sample
            .to_string()
            .replace('{', "{{")
            .replace('}', "}}")
            .replace(&SENTINEL_COUNT.to_string(), "{1}")
            .replace(&SENTINEL_FOUND.to_string(), "{1}")
            .replace(&SENTINEL_SUPPORTED.to_string(), "{2}")
            .replace(FormKind::Dependency.name(), "{1}")
            .replace(FormKind::Policy.name(), "{0}");
        for expected in [FormKind::Policy, FormKind::Dependency] {
            for error in compiled_errors(expected, 3, 2, FORM_VERSION).iter().skip(index).take(1) {
                if fill(&template, &compiled_values(error)) != error.to_string() {
                    return Err(format!(
                        "the compiled-form message {index} does not compose back as a template: {template}"
                    ));
                }
            }
        }
        let template = serde_json::to_string(&template).map_err(|e| e.to_string())?;
        rows.push_str(&format!("    ['{}', {template}],\n", sample.code()));
    }
    text.push_str(&format!(
        "\n/**\n * A refused compiled form (the core's `CompiledFormError`): its messages as\n \
         * `[code, template]` in the order the wasm numbers them (`{{0}}` the kind\n \
         * expected, then the numbers or the kind found), the blame of every code,\n \
         * the form version this core reads, and the longest form it reads\n \
         * (`MAX_FORM_LEN`: the binding copies at most one byte more into wasm\n \
         * memory, and the core refuses the form).\n */\n\
         export const COMPILED_FORM = Object.freeze({{\n  MESSAGES: Object.freeze([\n{rows}  ]),\n  BLAME: '{}',\n  VERSION: {FORM_VERSION},\n  MAX_LEN: {MAX_FORM_LEN},\n}});\n",
        samples[0].blame().name(),
    ));
    Ok(())
}
