//! The message table as the JavaScript binding composes from it:
//! `tests/messages/rules.json` holds every rule's id and template (in
//! `Rule::ALL` order, the index the wasm names a rule by) and examples of
//! composed text, each message written as the wasm hands it to JS (`[rule
//! index, ...values]`, a value being a string, a number, `{"bigint":
//! "digits"}`, an array of names, a message, or an array of messages). The JS
//! test composes every example and checks the text byte for byte; the build
//! makes `bindings-js/lib/rules.js` from the rules.
//!
//! `RETRYPLAN_FILL_VECTORS=1` rewrites the file.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::borrow::Cow;
use std::path::Path;

use retryplan::config::error::ConfigKind;
use retryplan::ground::message::{Arg, Message, Rule};
use retryplan::headers::retry_after::HeaderError;
use retryplan::{Blame, Error};
use serde_json::{json, Value};

/// A message as the wasm hands it to JS (see the module docs).
fn as_data(message: &Message) -> Value {
    let mut items = vec![json!(message.rule().index())];
    items.extend(message.args().iter().map(arg_data));
    Value::Array(items)
}

fn arg_data(arg: &Arg) -> Value {
    const MAX_SAFE: u64 = (1 << 53) - 1;
    match arg {
        Arg::Text(text) => json!(text),
        Arg::Unsigned(number) if *number <= MAX_SAFE => json!(number),
        Arg::Signed(number) if number.unsigned_abs() <= MAX_SAFE => json!(number),
        Arg::Unsigned(number) => json!({"bigint": number.to_string()}),
        Arg::Signed(number) => json!({"bigint": number.to_string()}),
        Arg::Float(number) if number.is_finite() => json!(number),
        Arg::Float(number) => json!({"float": number.to_string()}),
        Arg::Names(names) => json!(names),
        Arg::Message(message) => as_data(message),
        Arg::Messages(messages) => Value::Array(messages.iter().map(as_data).collect()),
        other => panic!("an argument the wasm cannot hand over: {other:?}"),
    }
}

/// How many values a template names.
fn placeholders(template: &str) -> usize {
    let template = template.replace("{{", "").replace("}}", "");
    template
        .split('{')
        .skip(1)
        .filter_map(|piece| piece.split_once('}'))
        .filter_map(|(placeholder, _)| placeholder.split(':').next()?.parse::<usize>().ok())
        .map(|index| index + 1)
        .max()
        .unwrap_or(0)
}

fn text(text: &'static str) -> Arg {
    Arg::Text(Cow::Borrowed(text))
}

/// Examples of every kind of value, every rule with text values, and the
/// values a message can hold at their edges.
fn examples() -> Vec<Message> {
    let mut examples: Vec<Message> = Rule::ALL
        .iter()
        .map(|rule| {
            let args = (0..placeholders(rule.template()))
                .map(|index| text(["first", "a \"quoted\" \\ value\n\u{200b}\u{7f}…", "x", "y", "z"][index % 5]))
                .collect();
            Message::new(*rule, args)
        })
        .collect();
    let numbers =
        [0.0, -0.0, 0.1, 2.0, -1.5, 1e-7, 1e-12, 1e-13, -1e-13, 0.2000001, 2.0005, 123_456_789.123, 1e14, 1e15];
    let more = [1e18, 9_007_199_254_740_993.0, 1e19, 1e20, -1e20, 0.1 + 0.2, 1.0 / 3.0, 5e-324, f64::NAN];
    for number in numbers.into_iter().chain(more) {
        examples.push(Message::new(Rule::FoundNumber, vec![Arg::Float(number)]));
    }
    for number in [0, 7, (1 << 53) - 1, 1 << 53, u64::MAX] {
        examples.push(Message::new(Rule::FoundNumber, vec![Arg::Unsigned(number)]));
    }
    for number in [-1, -(1 << 53) + 1, -(1 << 53) - 1, i64::MIN] {
        examples.push(Message::new(Rule::FoundNumber, vec![Arg::Signed(number)]));
    }
    let names = |names: &[&'static str]| Arg::Names(names.iter().map(|name| Cow::Borrowed(*name)).collect());
    examples.push(Message::new(Rule::OneOf, vec![names(&[])]));
    examples.push(Message::new(Rule::OneOf, vec![names(&["full"])]));
    examples.push(Message::new(Rule::OneOf, vec![names(&["none", "full", "equal"])]));
    let inner = Message::new(Rule::DidYouMean, vec![text("jitter")]);
    examples
        .push(Message::new(Rule::UnknownField, vec![text("jiter"), Arg::from(inner), names(&["jitter", "backoff"])]));
    examples.push(Message::new(Rule::UnknownField, vec![text("colour"), text(""), names(&["jitter"])]));
    let violation = |field: &'static str| Message::new(Rule::AtLeastOne, vec![text(field), Arg::from(0u64)]);
    examples.push(Message::new(Rule::ConfigViolations, vec![text("policy"), Arg::Messages(vec![])]));
    examples.push(Message::new(Rule::ConfigViolations, vec![text("policy"), Arg::Messages(vec![violation("a")])]));
    examples.push(Message::new(
        Rule::ConfigViolations,
        vec![text("budget configuration"), Arg::Messages(vec![violation("a"), violation("b.c")])],
    ));
    let quoted =
        "\"\\\u{0}\u{1f}\u{9f}\u{200b}\u{200f}\u{202a}\u{202e}\u{2060}\u{2064}\u{2066}\u{2069}\u{feff}\u{ad}é😀";
    examples.push(Message::new(Rule::HeaderMalformed, vec![text("retry-after"), text("digits"), text(quoted)]));
    examples
}

/// One error of each code (the match makes a new variant break this build).
fn one_error_per_code() -> Vec<Error> {
    let errors = vec![
        Error::ConfigViolations { config: ConfigKind::Policy, violations: Vec::new() },
        Error::InvalidConfig { config: ConfigKind::Policy, field: Box::from(""), message: Message::from("x") },
        Error::UnknownProfile { profile: String::new(), known: Vec::new() },
        Error::OperationEnded,
        Error::AttemptNotRunning { attempt: 1, running: Vec::new() },
        Error::InvalidArgument { field: "x", rule: Message::from("x") },
        Error::Unsupported { field: "x", rule: Message::from("x") },
        Error::InvalidHeader(HeaderError::Empty { header: "x" }),
        Error::InvalidRequestHeader(Box::new(HeaderError::Empty { header: "x" })),
        Error::EntropyUnavailable { message: String::new() },
    ];
    for error in &errors {
        match error {
            Error::ConfigViolations { .. }
            | Error::InvalidConfig { .. }
            | Error::UnknownProfile { .. }
            | Error::OperationEnded
            | Error::AttemptNotRunning { .. }
            | Error::InvalidArgument { .. }
            | Error::Unsupported { .. }
            | Error::InvalidHeader(_)
            | Error::InvalidRequestHeader(_)
            | Error::EntropyUnavailable { .. } => {}
        }
    }
    errors
}

#[test]
fn every_variant_has_its_blame() {
    let blames: Vec<(&str, &str)> =
        one_error_per_code().iter().map(|error| (error.code(), error.blame().name())).collect();
    assert_eq!(
        blames,
        [
            ("config_violations", "configuration"),
            ("invalid_config", "configuration"),
            ("unknown_profile", "configuration"),
            ("operation_ended", "caller"),
            ("attempt_not_running", "caller"),
            ("invalid_argument", "caller"),
            ("unsupported", "configuration"),
            ("invalid_header", "server"),
            ("invalid_request_header", "caller"),
            ("entropy_unavailable", "environment"),
        ]
    );
}

/// `Error::CODES`, the table the bindings' code lists are generated from, is every code `code()` returns.
#[test]
fn the_code_table_lists_every_code_once() {
    let codes: Vec<&str> = one_error_per_code().iter().map(Error::code).collect();
    assert_eq!(codes, Error::CODES);
    for (old, new) in Error::RENAMED_CODES {
        assert!(!codes.contains(&old) && codes.contains(&new), "{old} -> {new}");
    }
}

#[test]
fn every_blame_is_named_once() {
    let names: Vec<&str> = Blame::ALL.iter().map(|blame| blame.name()).collect();
    assert_eq!(names, ["caller", "configuration", "server", "environment"]);
    for blame in Blame::ALL {
        assert!(one_error_per_code().iter().any(|error| error.blame() == *blame), "{blame:?} is never used");
    }
}

#[test]
fn the_table_for_javascript_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/messages/rules.json");
    let rules: Vec<Value> =
        Rule::ALL.iter().map(|rule| json!({"id": rule.id(), "template": rule.template()})).collect();
    let examples: Vec<Value> =
        examples().iter().map(|message| json!({"message": as_data(message), "text": message.to_string()})).collect();
    let blames: serde_json::Map<String, Value> =
        one_error_per_code().iter().map(|error| (error.code().to_owned(), json!(error.blame().name()))).collect();
    let document = json!({
        "description": "Every rule of retryplan's messages (retryplan::ground::message::Rule::ALL, in order: the wasm names a rule by its index), and examples of composed text with each message as the wasm hands it to JS; and the blame of every error code (Error::blame). Written by core/tests/messages.rs (RETRYPLAN_FILL_VECTORS=1); core/mirrors makes bindings-js/lib/rules.js from the blames (and the core's rules, without the templates of those no JS entry raises), and the JS tests compose every example of the rules JS raises.",
        "rules": rules,
        "blames": blames,
        "examples": examples,
    });
    let mut text = serde_json::to_string_pretty(&document).expect("serialises");
    text.push('\n');
    if std::env::var_os("RETRYPLAN_FILL_VECTORS").is_some() {
        std::fs::write(&path, &text).expect("writable");
    } else {
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(current == text, "{} is out of date (run with RETRYPLAN_FILL_VECTORS=1)", path.display());
    }
}
