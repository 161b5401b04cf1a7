//! Python: `_error_classes.py`, the engine's errors as exceptions: one class
//! per [`retryplan::Blame`] (named here: the one Python-only table, with
//! each code's builtin base) and one per code of [`retryplan::Error`], its
//! code and blame read from the core at run time, its fields and docs from
//! the variant in `core/src/config/error.rs` (a variant wrapping an enum, such as
//! `InvalidHeader(HeaderError)`, has that enum's fields, those not in every
//! variant optional, and its variant's name as `kind`). A field named
//! `message` is `detail` (the exception's `message` is its text). The
//! deprecated names of renamed codes come from `Error::RENAMED_CODES`.
//!
//! A refused compiled form is the core's other error type,
//! [`retryplan::CompiledFormError`]: a class of that name (its doc, its
//! blame's class and `ValueError`) and under it one class per code of
//! `CompiledFormError::CODES`, each with its variant's doc (which names its
//! code: checked). The core gives no fields for it, so its classes have none.
//!
//! A code without a builtin base here, a blame without a class name, or a
//! field of a type with no Python type fails the generator, naming it.

use std::path::Path;

use retryplan::config::error::ConfigKind;
use retryplan::ground::message::Message;
use retryplan::headers::retry_after::HeaderError;
use retryplan::policy::compiled::{Damage, FormKind};
use retryplan::{Blame, CompiledFormError, Error};

use crate::docs::{self, Field};
use crate::output::{Output, HEADER};
use crate::python_prose::{camel, python_prose, snake};
use crate::python_records::docstring;
use crate::tables::Table;

pub const ERRORS: &str = "bindings-python/python/retryplan/_error_classes.py";
/// The failure table, whose section `MISUSE_SECTION` this module writes.
const FAILURES: &str = "bindings-python/python/retryplan/_failures.py";
const MISUSE_SECTION: &str = "misuse";
const SOURCE: &str = "core/src/config/error.rs";
/// The enums a variant of `Error` wraps, and their files.
const WRAPPED: [(&str, &str); 1] = [("HeaderError", "core/src/headers/retry_after.rs")];
/// The file of `CompiledFormError`, and its classes' builtin base.
const COMPILED_SOURCE: &str = "core/src/policy/compiled/error.rs";
const COMPILED_BASE: &str = "ValueError";

/// Each blame's class: its Python name (`EnvironmentError` is a builtin alias of `OSError`).
const BLAME_CLASSES: [(Blame, &str); 4] = [
    (Blame::Caller, "CallerError"),
    (Blame::Configuration, "ConfigurationError"),
    (Blame::Server, "ServerDataError"),
    (Blame::Environment, "PlatformError"),
];

/// Each code's builtin base, so that `except ValueError` catches what it always did.
const BUILTIN_BASES: [(&str, &str); 10] = [
    ("config_violations", "ValueError"),
    ("invalid_config", "ValueError"),
    ("unknown_profile", "LookupError"),
    ("operation_ended", "RuntimeError"),
    ("attempt_not_running", "RuntimeError"),
    ("invalid_argument", "ValueError"),
    ("unsupported", "ValueError"),
    ("invalid_header", "ValueError"),
    ("invalid_request_header", "ValueError"),
    ("entropy_unavailable", "OSError"),
];

/// Error fields renamed in this release, `(code, old, new)`: the class keeps a property under the old name, for one
/// release, that warns `DeprecationWarning` and reads the new (issue 28: the input an error blames is `field`, a
/// profile `profile`, in every binding). Kotlin's deprecated properties are in `Errors.kt`.
pub(crate) const RENAMED_FIELDS: [(&str, &str, &str); 2] =
    [("invalid_argument", "name", "field"), ("unknown_profile", "name", "profile")];

/// One error of each variant, in the variants' order: its code and blame, as the core says.
fn samples() -> Vec<Error> {
    let text = || Message::text("");
    vec![
        Error::ConfigViolations { config: ConfigKind::Policy, violations: Vec::new() },
        Error::InvalidConfig { config: ConfigKind::Policy, field: Box::from(""), message: text() },
        Error::UnknownProfile { profile: String::new(), known: Vec::new() },
        Error::OperationEnded,
        Error::AttemptNotRunning { attempt: 0, running: Vec::new() },
        Error::InvalidArgument { field: "", rule: text() },
        Error::Unsupported { field: "", rule: text() },
        Error::InvalidHeader(HeaderError::Empty { header: "" }),
        Error::InvalidRequestHeader(Box::new(HeaderError::Empty { header: "" })),
        Error::EntropyUnavailable { message: String::new() },
    ]
}

/// One `CompiledFormError` of each variant, in the variants' order.
fn compiled_samples() -> Vec<CompiledFormError> {
    let expected = FormKind::Policy;
    vec![
        CompiledFormError::NotCompiled { expected, len: 0 },
        CompiledFormError::Version { expected, found: 0, supported: 0 },
        CompiledFormError::Damaged { expected, damage: Damage::Checksum },
        CompiledFormError::Kind { expected, found: None },
    ]
}

/// One exception class: the variant's doc, code, blame and fields (each with `optional`: not always there).
struct Class {
    doc: String,
    code: &'static str,
    blame: Blame,
    fields: Vec<(Field, bool)>,
}

/// `CompiledFormError`'s class (its doc and blame) and one class per code, without fields.
struct Compiled {
    doc: String,
    blame: Blame,
    classes: Vec<Class>,
}

fn compiled(root: &Path) -> Result<Compiled, String> {
    let path = root.join(COMPILED_SOURCE);
    let summary = docs::enum_docs(&path, "CompiledFormError")?.summary;
    let records = docs::enum_records(&path, "CompiledFormError")?;
    let samples = compiled_samples();
    if records.len() != samples.len() || samples.iter().map(CompiledFormError::code).ne(CompiledFormError::CODES) {
        return Err(format!("{COMPILED_SOURCE}: the variants of CompiledFormError are not those of compiled_samples"));
    }
    let mut classes = Vec::new();
    for (record, sample) in records.into_iter().zip(&samples) {
        // Zipped by position: each variant's doc names its own code.
        if !record.doc.contains(&format!("Code `{}`", sample.code())) {
            let ident = record.ident;
            return Err(format!(
                "{COMPILED_SOURCE}: CompiledFormError::{ident} does not say `Code `{}``",
                sample.code()
            ));
        }
        classes.push(Class { doc: record.doc, code: sample.code(), blame: sample.blame(), fields: Vec::new() });
    }
    let blame = samples.first().map(CompiledFormError::blame).ok_or("no CompiledFormError")?;
    if classes.iter().any(|class| class.blame != blame) {
        return Err(format!("{COMPILED_SOURCE}: the codes of CompiledFormError have different blames"));
    }
    Ok(Compiled { doc: summary, blame, classes })
}

/// `_error_classes.py`, and the misuse section of `_failures.py` (`MISUSE_CLASSES`).
pub fn outputs(root: &Path, tables: &[Table]) -> Result<[Output; 2], String> {
    let failures = std::fs::read_to_string(root.join(FAILURES)).map_err(|e| format!("{FAILURES}: {e}"))?;
    let misuse = crate::output::splice_section(&failures, FAILURES, "#", MISUSE_SECTION, &misuse_classes()?)?;
    Ok([output(root, tables)?, Output { path: FAILURES, text: misuse }])
}

fn output(root: &Path, tables: &[Table]) -> Result<Output, String> {
    let path = root.join(SOURCE);
    let records = docs::enum_records(&path, "Error")?;
    let source = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| format!("{SOURCE}: {e}"))?;
    let samples = samples();
    if records.len() != samples.len() || samples.iter().map(Error::code).ne(Error::CODES) {
        return Err(format!("{SOURCE}: the variants of Error are not those of python_errors::samples"));
    }
    let mut classes = Vec::new();
    for (record, sample) in records.into_iter().zip(&samples) {
        // Zipped by position: a variant's docs and fields must land on its own code.
        if snake(&record.ident) != sample.code() {
            return Err(format!("{SOURCE}: variant {} is not the sample of code `{}`", record.ident, sample.code()));
        }
        let mut fields: Vec<(Field, bool)> = Vec::new();
        for field in record.fields {
            let ty = field_type(&file, &record.ident, &field.name).unwrap_or_default();
            fields.push((Field { ty, ..field }, false));
        }
        if let Some(wrapped) = wrapped(&file, &record.ident) {
            fields = wrapped_fields(root, &wrapped)?;
        }
        let (code, blame) = (sample.code(), sample.blame());
        classes.push(Class { doc: record.doc, code, blame, fields });
    }
    let blames = tables.iter().find(|table| table.ident == "Blame").ok_or("no Blame table")?;
    let violation = docs::struct_record(&path, "Violation")?;
    Ok(Output { path: ERRORS, text: text(&classes, &compiled(root)?, blames, &violation)? })
}

/// The type of field `name` of variant `variant` of `Error`, as written (`&str` for a reference).
fn field_type(file: &syn::File, variant: &str, name: &str) -> Option<String> {
    let field =
        variant_of(file, variant)?.fields.iter().find(|field| field.ident.as_ref().is_some_and(|i| i == name))?;
    Some(match &field.ty {
        syn::Type::Reference(_) => "&str".to_owned(),
        syn::Type::Path(path) => {
            let last = path.path.segments.last()?;
            match &last.arguments {
                syn::PathArguments::AngleBracketed(generics) => match generics.args.first()? {
                    syn::GenericArgument::Type(syn::Type::Path(inner)) => {
                        format!("{}<{}>", last.ident, inner.path.segments.last()?.ident)
                    }
                    _ => return None,
                },
                _ => last.ident.to_string(),
            }
        }
        _ => return None,
    })
}

fn variant_of<'a>(file: &'a syn::File, variant: &str) -> Option<&'a syn::Variant> {
    file.items.iter().find_map(|item| match item {
        syn::Item::Enum(item) if item.ident == "Error" => item.variants.iter().find(|v| v.ident == variant),
        _ => None,
    })
}

/// The enum variant `variant` of `Error` wraps, if it wraps one (`InvalidHeader(HeaderError)`, or boxed:
/// `InvalidRequestHeader(Box<HeaderError>)`).
fn wrapped(file: &syn::File, variant: &str) -> Option<String> {
    match &variant_of(file, variant)?.fields {
        syn::Fields::Unnamed(fields) => {
            let name = docs::type_name(&fields.unnamed.first()?.ty);
            Some(name.strip_prefix("Box<").and_then(|inner| inner.strip_suffix('>')).unwrap_or(&name).to_owned())
        }
        _ => None,
    }
}

/// A wrapped enum's fields: `kind` (its variant's name), then every variant's fields (optional unless in all).
fn wrapped_fields(root: &Path, ident: &str) -> Result<Vec<(Field, bool)>, String> {
    let source =
        WRAPPED.iter().find(|(name, _)| *name == ident).ok_or(format!("python_errors: no file for {ident}"))?;
    let variants = docs::enum_records(&root.join(source.1), ident)?;
    let kinds: Vec<String> = variants.iter().map(|variant| format!("`{}`", snake(&variant.ident))).collect();
    let doc = format!("Which: {}.", kinds.join(", "));
    let mut fields = vec![(Field { name: "kind".into(), ty: "&str".into(), doc }, false)];
    for field in variants.iter().flat_map(|variant| &variant.fields) {
        if fields.iter().all(|(known, _)| known.name != field.name) {
            let everywhere = variants.iter().all(|variant| variant.fields.iter().any(|f| f.name == field.name));
            fields.push((Field { ty: "&str".into(), ..field.clone() }, !everywhere));
        }
    }
    fields.sort_by_key(|(field, _)| field.name != "header"); // the header first, as the message names it
    Ok(fields)
}

/// A field's parameter (annotation and default), its attribute's annotation and how the attribute is set.
fn python(field: &Field, optional: bool) -> Result<(String, String, String), String> {
    let name = if field.name == "message" { "detail" } else { field.name.as_str() };
    let (param, attribute, value) = match field.ty.as_str() {
        _ if optional => ("Optional[str] = None".to_owned(), "Optional[str]", name.to_owned()),
        "&str" | "String" | "Box<str>" | "Message" => ("str = \"\"".to_owned(), "str", name.to_owned()),
        "ConfigKind" => (format!("str = \"{}\"", ConfigKind::Policy.name()), "str", name.to_owned()),
        "u32" => ("int = 0".to_owned(), "int", name.to_owned()),
        "Vec<u32>" => ("Sequence[int] = ()".to_owned(), "List[int]", format!("list({name})")),
        "Vec<String>" => ("Sequence[str] = ()".to_owned(), "List[str]", format!("list({name})")),
        // Each a pair, or a mapping as `Error::fields` gives it (`{field, message}`).
        "Vec<Violation>" => (
            "Sequence[Union[Tuple[str, str], Mapping[str, str]]] = ()".to_owned(),
            "Tuple[Violation, ...]",
            format!("tuple(Violation(**v) if isinstance(v, Mapping) else Violation(*v) for v in {name})"),
        ),
        other => return Err(format!("Error field `{}`: no Python type for `{other}` (python_errors)", field.name)),
    };
    Ok((format!("{name}: {param}"), format!("{name}: {attribute}"), format!("self.{name} = {value}")))
}

fn comment(doc: &str) -> String {
    let doc = python_prose(doc).replace('`', "``");
    let mut text = String::new();
    for line in crate::python_records::wrap(&doc, "    #: ", "    #: ") {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

fn text(classes: &[Class], compiled: &Compiled, blames: &Table, violation: &docs::Record) -> Result<String, String> {
    let blame_class = |blame: Blame| BLAME_CLASSES.iter().find(|(b, _)| *b == blame).map(|(_, name)| *name);
    let mut all = vec!["RetryplanError".to_owned(), "Violation".to_owned(), "CompiledFormError".to_owned()];
    all.extend(compiled.classes.iter().map(|class| format!("{}Error", camel(class.code))));
    all.extend(BLAME_CLASSES.iter().map(|(_, name)| (*name).to_owned()));
    all.extend(classes.iter().map(|class| format!("{}Error", camel(class.code))));
    all.sort_unstable();
    let quoted: Vec<String> = all.iter().map(|name| format!("    \"{name}\",\n")).collect();
    let mut text = format!(
        "# {HEADER}\n\"\"\"The engine's errors (the core's ``Error``, core/src/config/error.rs): one class per code under one \
         class per\n``Blame``, each error's fields its attributes. Their public home is ``retryplan``.\"\"\"\n\n\
         from typing import TYPE_CHECKING, List, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union\n\n__all__ = [\n{}]\n\n\n\
         class RetryplanError(Exception):\n    \"\"\"Base of every exception retryplan raises.\n\n    \
         ``code`` is a stable snake_case identifier: for engine errors it equals the\n    engine's ``Error.code()`` \
         (the same in every language binding); messages\n    may be reworded, codes may not.\n    \"\"\"\n\n    \
         code: str = \"retryplan_error\"\n    #: Who must act (engine errors): {}; the same as every\n    \
         #: binding's ``blame``. Empty for the endings of the helpers, which are not misuse.\n    \
         blame: Literal[{}, \"\"] = \"\"\n\n    def __init__(self, message: str) -> None:\n        super().__init__(message)\n        \
         self.message = message\n\n    def __str__(self) -> str:\n        return self.message\n",
        quoted.concat(),
        blames.variants.iter().map(|variant| format!("``{}``", variant.name)).collect::<Vec<_>>().join(", "),
        blames.variants.iter().map(|variant| format!("\"{}\"", variant.name)).collect::<Vec<_>>().join(", ")
    );
    for variant in &blames.variants {
        let blame = Blame::ALL.iter().find(|blame| blame.name() == variant.name).ok_or("no such blame")?;
        let name = blame_class(*blame).ok_or(format!("python_errors: no class name for blame {}", variant.name))?;
        text.push_str(&format!("\n\nclass {name}(RetryplanError):\n"));
        let doc = variant.doc[..1].to_lowercase() + &variant.doc[1..];
        text.push_str(&docstring(&format!("Blame `{}`: {doc}", variant.name), "    "));
        text.push_str(&format!("\n    blame = \"{}\"\n", variant.name));
    }
    text.push_str("\n\nclass Violation(NamedTuple):\n");
    text.push_str(&docstring(&violation.doc, "    "));
    text.push('\n');
    for field in &violation.fields {
        text.push_str(&format!("{}    {}: str\n", comment(&field.doc), field.name));
    }
    for class in classes {
        let name = format!("{}Error", camel(class.code));
        let base = BUILTIN_BASES.iter().find(|(code, _)| *code == class.code);
        let base = base.ok_or(format!("python_errors: no builtin base for code {}", class.code))?.1;
        let blame = blame_class(class.blame).ok_or("python_errors: a blame without a class")?;
        text.push_str(&format!("\n\nclass {name}({blame}, {base}):\n"));
        let renamed = Error::RENAMED_CODES.iter().find(|(_, new)| *new == class.code);
        let doc = match renamed {
            Some((old, _)) => format!(
                "{} The class of its old code `{old}`, `{}Error`, stays importable as a \
                                       deprecated alias for one release.",
                class.doc,
                camel(old)
            ),
            None => class.doc.clone(),
        };
        text.push_str(&docstring(&doc, "    "));
        text.push_str(&format!("\n    code = \"{}\"\n", class.code));
        if class.fields.is_empty() {
            continue;
        }
        let mut params = vec!["self".to_owned(), "message: str".to_owned()];
        let mut sets = String::new();
        for (field, optional) in &class.fields {
            let (param, attribute, set) = python(field, *optional)?;
            text.push_str(&format!("{}    {attribute}\n", comment(&field.doc)));
            params.push(param);
            sets.push_str(&format!("        {set}\n"));
        }
        let signature = format!("    def __init__({}) -> None:", params.join(", "));
        let signature = if signature.len() <= 120 {
            format!("{signature}\n")
        } else {
            let params: String = params.iter().map(|param| format!("        {param},\n")).collect();
            format!("    def __init__(\n{params}    ) -> None:\n")
        };
        text.push_str(&format!("\n{signature}        super().__init__(message)\n{sets}"));
        let names: Vec<&str> = class.fields.iter().map(|(field, _)| field.name.as_str()).collect();
        if names.contains(&"violations") {
            text.push_str(
                "\n    @property\n    def fields(self) -> Tuple[str, ...]:\n        \"\"\"The dotted path of \
                           each violation, in order.\"\"\"\n        return tuple(v.field for v in self.violations)\n",
            );
        } else if names.contains(&"field") {
            text.push_str(
                "\n    @property\n    def fields(self) -> Tuple[str, ...]:\n        \"\"\"``(field,)``, as \
                           ``ConfigViolationsError.fields`` lists a path per violation.\"\"\"\n        \
                           return (self.field,)\n",
            );
        }
        for (_, old, new) in RENAMED_FIELDS.iter().filter(|(code, ..)| *code == class.code) {
            if !names.contains(new) {
                return Err(format!("python_errors: RENAMED_FIELDS: {name} has no field `{new}`"));
            }
            text.push_str(&format!(
                "\n    @property\n    def {old}(self) -> str:\n        \"\"\"Deprecated: renamed ``{new}``, as every binding names \
                 it; kept for one release.\"\"\"\n        import warnings\n\n        warnings.warn(\n            \"{name}.{old} is \
                 renamed {name}.{new}\", DeprecationWarning, stacklevel=2\n        )\n        return self.{new}\n"
            ));
        }
    }
    let blame = blame_class(compiled.blame).ok_or("python_errors: a blame without a class")?;
    text.push_str(&format!("\n\nclass CompiledFormError({blame}, {COMPILED_BASE}):\n"));
    text.push_str(&docstring(&compiled.doc, "    "));
    for class in &compiled.classes {
        text.push_str(&format!("\n\nclass {}Error(CompiledFormError):\n", camel(class.code)));
        text.push_str(&docstring(&class.doc, "    "));
        text.push_str(&format!("\n    code = \"{}\"\n", class.code));
    }
    text.push_str(
        "\n\n#: Each engine error's class by its code: the class ``_native`` raises, ``Error.fields()`` its\n",
    );
    text.push_str("#: keyword arguments (a field named ``message`` as ``detail``).\nBY_CODE = {\n");
    for class in classes.iter().chain(&compiled.classes) {
        text.push_str(&format!("    \"{}\": {}Error,\n", class.code, camel(class.code)));
    }
    text.push_str("}\n");
    let renamed: Vec<(String, String)> = Error::RENAMED_CODES
        .iter()
        .map(|(old, new)| (format!("{}Error", camel(old)), format!("{}Error", camel(new))))
        .collect();
    text.push_str(
        "\n\n#: The classes of renamed codes, by their old names: each a deprecated alias for one release.\n",
    );
    let pairs: Vec<String> = renamed.iter().map(|(old, new)| format!("\"{old}\": \"{new}\"")).collect();
    text.push_str(&format!("RENAMED = {{{}}}\n\nif TYPE_CHECKING:  # pragma: no cover\n", pairs.join(", ")));
    for (old, new) in &renamed {
        text.push_str(&format!("    {old} = {new}\n"));
    }
    Ok(text)
}

/// `MISUSE_CLASSES`: the names of the classes of the blames whose errors are misuse of retryplan itself
/// ([`Blame::is_misuse`]), which the failure table (`_failures.py`) makes no attempt's outcome. Names, not the
/// classes: the table matches by name, and importing `_error_classes` (and `typing` with it) would slow down
/// every process's first `@retry` call.
fn misuse_classes() -> Result<String, String> {
    let blame_class = |blame: Blame| BLAME_CLASSES.iter().find(|(b, _)| *b == blame).map(|(_, name)| *name);
    let mut names = Vec::new();
    for blame in Blame::ALL.iter().filter(|blame| blame.is_misuse()) {
        let name = blame_class(*blame).ok_or(format!("python_errors: no class name for blame {}", blame.name()))?;
        names.push(format!("\"{name}\""));
    }
    let tuple = if names.len() == 1 { format!("{},", names[0]) } else { names.join(", ") };
    Ok(format!(
        "# The classes of the blames whose errors are misuse of retryplan itself (the core's Blame::is_misuse): one\n\
         # raised inside an attempt is no attempt's outcome; the helper ends the operation and raises it unchanged.\n\
         MISUSE_CLASSES = ({tuple})\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `MISUSE_CLASSES` as written in `_failures.py` (what it never makes an attempt's outcome)
    /// holds a blame's class exactly when the core's `Blame::is_misuse` says its errors are misuse.
    #[test]
    fn the_misuse_classes_are_those_of_the_blames_the_core_calls_misuse() {
        let text = std::fs::read_to_string(crate::workspace_root().join(FAILURES)).unwrap();
        let line = text.lines().find_map(|line| line.strip_prefix("MISUSE_CLASSES = (")).unwrap();
        let listed: Vec<&str> = line
            .trim_end_matches(')')
            .split(',')
            .map(|name| name.trim().trim_matches('"'))
            .filter(|n| !n.is_empty())
            .collect();
        for (blame, class) in BLAME_CLASSES {
            assert_eq!(listed.contains(&class), blame.is_misuse(), "{class}: {line}");
        }
        assert_eq!(listed, ["CallerError", "ConfigurationError"]);
    }

    /// A field added to a core error reaches its class; one of a type with no Python type stops the generator.
    #[test]
    fn a_new_error_field_reaches_its_class() {
        let field = Field { name: "attempts".into(), ty: "u32".into(), doc: "Attempts started.".into() };
        assert_eq!(python(&field, false).unwrap().2, "self.attempts = attempts");
        let message = Field { name: "message".into(), ty: "String".into(), doc: String::new() };
        assert_eq!(python(&message, false).unwrap().0, "detail: str = \"\"");
        let odd = Field { name: "at".into(), ty: "Instant".into(), doc: String::new() };
        assert!(python(&odd, false).unwrap_err().contains("`Instant`"));
    }

    /// `_native` raises each error as `BY_CODE[code](message, **fields)`: every field `Error::fields` gives is
    /// a keyword its class takes (the header error's optional ones too), and every code is in `BY_CODE`.
    #[test]
    fn every_field_the_core_gives_is_a_keyword_of_its_class() {
        let root = crate::workspace_root();
        let text = output(&root, &crate::tables::registry(&root).unwrap()).unwrap().text;
        let mut errors = samples();
        errors.push(Error::InvalidHeader(HeaderError::malformed("h", "e", "v")));
        errors.push(Error::InvalidHeader(HeaderError::out_of_range("h", "l", "v")));
        errors.push(Error::InvalidRequestHeader(Box::new(HeaderError::malformed("h", "e", "v"))));
        errors.push(Error::InvalidRequestHeader(Box::new(HeaderError::out_of_range("h", "l", "v"))));
        for error in errors {
            let class = text.split(&format!("    code = \"{}\"\n", error.code())).nth(1).unwrap();
            let class = class.split("\n\nclass ").next().unwrap();
            for (name, _) in error.fields() {
                let name = if name == "message" { "detail" } else { name };
                assert!(class.contains(&format!("        self.{name} = ")), "{}: {name}", error.code());
            }
            let entry = format!("    \"{}\": {}Error,\n", error.code(), camel(error.code()));
            assert!(text.split("BY_CODE = {").nth(1).unwrap().contains(&entry), "{entry}");
        }
    }

    #[test]
    fn every_code_has_a_class_a_builtin_base_and_a_blame_class() {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let text = output(&root, &tables).unwrap().text;
        for code in Error::CODES {
            assert!(text.contains(&format!("    code = \"{code}\"\n")), "{code}");
        }
        assert!(text.contains("class InvalidHeaderError(ServerDataError, ValueError):"));
        assert!(text.contains("class InvalidRequestHeaderError(CallerError, ValueError):"));
        assert!(text.contains("class CompiledFormError(ConfigurationError, ValueError):"), "{text}");
        for code in CompiledFormError::CODES {
            assert!(text.contains(&format!("class {}Error(CompiledFormError):\n", camel(code))), "{code}");
            assert!(text.contains(&format!("    code = \"{code}\"\n")), "{code}");
            assert!(text.contains(&format!("    \"{code}\": {}Error,\n", camel(code))), "{code}");
        }
        assert!(text.contains("        expected: Optional[str] = None,\n"), "{text}");
        assert_eq!(snake("OutOfRange"), "out_of_range");
        assert_eq!(camel("attempt_not_running"), "AttemptNotRunning");
    }
}
