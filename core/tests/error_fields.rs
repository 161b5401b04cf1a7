//! `Error::fields`: every error's fields as data, the one table a binding
//! converts generically into its exception's attributes.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use retryplan::config::error::{ConfigKind, Violation};
use retryplan::config::value::Value;
use retryplan::ground::message::Message;
use retryplan::headers::retry_after::HeaderError;
use retryplan::{Error, Policy, PolicyConfig};

/// One error of each variant (each header error kind too), every field set.
fn one_of_each() -> Vec<Error> {
    vec![
        Error::ConfigViolations {
            config: ConfigKind::Budget,
            violations: vec![Violation::new("max_tokens", Message::from("too many"))],
        },
        Error::InvalidConfig {
            config: ConfigKind::Breaker,
            field: Box::from("trip.kind"),
            message: Message::from("x"),
        },
        Error::UnknownProfile { profile: "fast".into(), known: vec!["read".into(), "checkout".into()] },
        Error::OperationEnded,
        Error::AttemptNotRunning { attempt: 3, running: vec![1, 2] },
        Error::InvalidArgument { field: "now_ms", rule: Message::from("must be >= 0") },
        Error::Unsupported { field: "hedging", rule: Message::from("one at a time") },
        Error::InvalidHeader(HeaderError::Empty { header: "retry-after" }),
        Error::InvalidHeader(HeaderError::malformed("retry-after", "a number of seconds", "soon")),
        Error::InvalidHeader(HeaderError::out_of_range("grpc-timeout", "8 digits", "123456789S")),
        Error::InvalidRequestHeader(Box::new(HeaderError::malformed("retryplan-attempt", "only ASCII digits", "two"))),
        Error::EntropyUnavailable { message: "no /dev/urandom".into() },
    ]
}

fn names(error: &Error) -> Vec<&'static str> {
    error.fields().into_iter().map(|(name, _)| name).collect()
}

#[test]
fn every_error_has_its_fields_as_data() {
    let text = |text: &str| Value::string(text);
    let expected: Vec<Vec<(&str, Value)>> = vec![
        vec![
            ("config", text("budget")),
            (
                "violations",
                Value::List(vec![Value::Object(vec![
                    ("field".into(), text("max_tokens")),
                    ("message".into(), text("too many")),
                ])]),
            ),
        ],
        vec![("config", text("breaker")), ("field", text("trip.kind")), ("message", text("x"))],
        vec![("profile", text("fast")), ("known", Value::List(vec![text("read"), text("checkout")]))],
        vec![],
        vec![("attempt", Value::unsigned(3)), ("running", Value::List(vec![Value::unsigned(1), Value::unsigned(2)]))],
        vec![("field", text("now_ms")), ("rule", text("must be >= 0"))],
        vec![("field", text("hedging")), ("rule", text("one at a time"))],
        vec![("header", text("retry-after")), ("kind", text("empty"))],
        vec![
            ("header", text("retry-after")),
            ("kind", text("malformed")),
            ("expected", text("a number of seconds")),
            ("value", text("soon")),
        ],
        vec![
            ("header", text("grpc-timeout")),
            ("kind", text("out_of_range")),
            ("limit", text("8 digits")),
            ("value", text("123456789S")),
        ],
        vec![
            ("header", text("retryplan-attempt")),
            ("kind", text("malformed")),
            ("expected", text("only ASCII digits")),
            ("value", text("two")),
        ],
        vec![("message", text("no /dev/urandom"))],
    ];
    let errors = one_of_each();
    for (error, expected) in errors.iter().zip(&expected) {
        assert_eq!(&error.fields(), expected, "{}", error.code());
    }
    assert_eq!(errors.len(), expected.len());
    let mut codes: Vec<&str> = errors.iter().map(Error::code).collect();
    codes.dedup();
    assert_eq!(codes, Error::CODES, "one error of every code, in the variants' order");
}

/// Every field a variant of `Error` declares (as written in core/src/config/error.rs) is in its `fields()`, so a
/// field added to a variant reaches every binding's exception or fails here.
#[test]
fn every_declared_field_is_in_fields() {
    let source = include_str!("../src/config/error.rs");
    let body = source.split("pub enum Error {\n").nth(1).and_then(|rest| rest.split("\n}\n").next()).unwrap();
    let mut declared: Vec<(String, Vec<String>)> = Vec::new();
    for line in body.lines() {
        let variant = line.strip_prefix("    ").filter(|rest| rest.starts_with(char::is_uppercase));
        if let Some(variant) = variant {
            let name = variant.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
            declared.push((name.to_owned(), Vec::new()));
        } else if let Some(field) = line.strip_prefix("        ").and_then(|rest| rest.split_once(": ")) {
            if field.0.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                declared.last_mut().unwrap().1.push(field.0.to_owned());
            }
        }
    }
    assert_eq!(declared.len(), Error::CODES.len(), "{declared:?}");
    let first = ("ConfigViolations".to_owned(), vec!["config".to_owned(), "violations".to_owned()]);
    assert_eq!(declared[0], first, "the scan reads each variant's fields");
    for error in one_of_each() {
        let index = Error::CODES.iter().position(|code| *code == error.code()).unwrap();
        let (variant, fields) = &declared[index];
        for field in fields {
            assert!(
                names(&error).contains(&field.as_str()),
                "{variant}.{field} is not in fields(): {:?}",
                names(&error)
            );
        }
    }
}

#[test]
fn a_violations_fields_are_the_errors_own() {
    let config = PolicyConfig { max_attempts: 0, ..PolicyConfig::default() };
    let error = Policy::new(&config).unwrap_err();
    let Error::ConfigViolations { violations, .. } = &error else { panic!("{error:?}") };
    let fields = error.fields();
    let Some((_, Value::List(listed))) = fields.iter().find(|(name, _)| *name == "violations") else { panic!() };
    let first = Value::Object(vec![
        ("field".into(), Value::string(&violations[0].field)),
        ("message".into(), Value::String(violations[0].message.to_string())),
    ]);
    assert_eq!((listed.len(), &listed[0]), (violations.len(), &first));
    assert_eq!(violations[0].field, "max_attempts");
}
