//! The core's doc text as Python's docs read it. The core's doc comments
//! name Rust items (`RetryAfterReading::Strict`, `Driver::handle_result`,
//! `u64::MAX`, `Option<u64>`, `crate::outcomes::http`); every Python writer
//! passes a doc through [`python_prose`] (`docstring` and `python_rust_doc`
//! do), which spells each such code span as a Python user meets it: the name
//! the Python API takes, read from the core's own tables where one exists.

use std::path::Path;
use std::sync::OnceLock;

use crate::functions::{Function, Host, FUNCTIONS_TABLE};
use crate::tables::{self, Py};

/// The core's items whose Python name is not their Rust one, by their last two path segments: the module
/// constants `bindings-python/src/lib.rs` adds.
const PYTHON_NAMES: [(&str, &str); 2] =
    [("Verdict::UNKNOWN_ERROR", "UNKNOWN_ERROR_VERDICT"), ("profiles::NAMES", "PROFILE_NAMES")];

/// The core's enums whose every variant is a Python class of the variant's name (`Decision::Reconcile` is
/// `Reconcile`).
const CLASS_PER_VARIANT: [&str; 1] = ["Decision"];

/// `text`, a doc of the core (markdown, code in single backticks), with each code span that spells a Rust item
/// or type spelt as Python's API spells it; any other text as it is:
///
/// - a variant of a named enum (the registry's, `tables::variant_names`): its Python enum member
///   (`Verdict::Retryable` -> `Verdict.RETRYABLE`) where Python has the enum, else the string the API takes
///   (`RetryAfterReading::Strict` -> `"strict"`);
/// - a variant of `Error`: its exception class (`Error::ConfigViolations` -> `ConfigViolationsError`); of
///   `Decision`: its class (`Decision::Reconcile` -> `Reconcile`);
/// - an integer type's bound: its number (`u64::MAX` -> `2**64 - 1`);
/// - a module (`crate::outcomes::http`): its source file (`core/src/outcomes/http.rs`), else its path with
///   dots;
/// - any other path, its modules left out, with dots (`Driver::handle_result` -> `Driver.handle_result`,
///   `retryplan::Error` -> `Error`); a constructor `T::new` as the call `T()`; another enum's variant in
///   snake_case (`Pushback::DoNotRetry` -> `Pushback.do_not_retry`);
/// - `Option<T>` as `Optional[T]`, `Vec<T>` as `List[T]` (their integers `int`, `String` `str`); `Some(x)`
///   as `x`.
pub(crate) fn python_prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (index, part) in text.split('`').enumerate() {
        if index > 0 {
            out.push('`');
        }
        match (index % 2 == 1).then(|| python_code(part)).flatten() {
            Some(python) => out.push_str(&python),
            None => out.push_str(part),
        }
    }
    out
}

/// The Python spelling of the code span `code`, when it spells Rust.
fn python_code(code: &str) -> Option<String> {
    if let Some(inner) = code.strip_prefix("Some(").and_then(|rest| rest.strip_suffix(')')) {
        return Some(python_code(inner).unwrap_or_else(|| inner.to_owned()));
    }
    if code.contains('<') {
        return python_type(code);
    }
    let (path, call) = code.strip_suffix("()").map_or((code, ""), |path| (path, "()"));
    let segments: Vec<&str> = path.split("::").collect();
    if !segments.iter().all(|segment| is_ident(segment)) {
        return None;
    }
    if let [name] = segments[..] {
        return python_function(name).map(|python| format!("{python}{call}"));
    }
    Some(python_path(&segments).unwrap_or_else(|| python_member(&segments, call)))
}

/// The name Python exports the core's free function `name` under, when it is another (the functions table:
/// Python's `parse_retry_after` is the core's `parse_retry_after_with`, its reading defaulted).
fn python_function(name: &str) -> Option<String> {
    let exported: Vec<&Function> = FUNCTIONS_TABLE
        .iter()
        .filter(|function| function.hosts.contains(&Host::Python) && function.path.rsplit("::").next() == Some(name))
        .collect();
    match exported.first() {
        Some(function) if exported.iter().all(|function| function.ident != name) => Some(function.ident.to_owned()),
        _ => None,
    }
}

/// The Python name of the path `segments` when it is a name the Python API has (a variant, a class, a
/// constant, a bound, a module's file), else None.
fn python_path(segments: &[&str]) -> Option<String> {
    let [.., owner, last] = segments else { return None };
    let pair = format!("{owner}::{last}");
    if let Some((_, python)) = PYTHON_NAMES.iter().find(|(rust, _)| *rust == pair) {
        return Some((*python).to_owned());
    }
    if let Some(bound) = integer_bound(owner, last) {
        return Some(bound);
    }
    if let Some(python) = variant_names()
        .iter()
        .find_map(|(enum_ident, variant, python)| (enum_ident == owner && variant == last).then(|| python.clone()))
    {
        return Some(python);
    }
    if *owner == "Error" && retryplan::Error::CODES.iter().any(|code| camel(code) == *last) {
        return Some(format!("{last}Error"));
    }
    if CLASS_PER_VARIANT.contains(owner) && is_camel(last) {
        return Some((*last).to_owned());
    }
    if segments.iter().all(|segment| is_module(segment)) {
        let inner: Vec<&str> = segments.iter().copied().skip_while(|segment| is_crate(segment)).collect();
        return Some(module_file(&inner).unwrap_or_else(|| inner.join(".")));
    }
    None
}

/// Each named enum's variant, by enum and variant ident, with its Python spelling.
fn variant_names() -> &'static [(&'static str, String, String)] {
    static NAMES: OnceLock<Vec<(&'static str, String, String)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        tables::variant_names()
            .into_iter()
            .map(|(enum_ident, variant, name, py)| {
                let python = match py {
                    Py::Enum => format!("{enum_ident}.{}", name.to_uppercase()),
                    Py::Literal | Py::No => format!("\"{name}\""),
                };
                (enum_ident, variant, python)
            })
            .collect()
    })
}

/// `u64::MAX` as `2**64 - 1`, `i64::MIN` as `-2**63`, ... (None for anything else).
fn integer_bound(ty: &str, bound: &str) -> Option<String> {
    let (signed, bits) = (ty.starts_with('i'), ty.get(1..)?.parse::<u32>().ok()?);
    if !matches!(ty.chars().next(), Some('i' | 'u')) || ![8, 16, 32, 64, 128].contains(&bits) {
        return None;
    }
    match (bound, signed) {
        ("MAX", false) => Some(format!("2**{bits} - 1")),
        ("MAX", true) => Some(format!("2**{} - 1", bits - 1)),
        ("MIN", false) => Some("0".to_owned()),
        ("MIN", true) => Some(format!("-2**{}", bits - 1)),
        _ => None,
    }
}

/// The core's source file of the module path `inner` (`outcomes::http`, from `crate::outcomes::http`), when
/// there is one.
fn module_file(inner: &[&str]) -> Option<String> {
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let module = format!("src/{}", inner.join("/"));
    [format!("{module}.rs"), format!("{module}/mod.rs")]
        .into_iter()
        .find(|file| core.join(file).is_file())
        .map(|file| format!("core/{file}"))
}

/// A path with dots, its leading modules left out: `Driver.handle_result`, `Pushback.do_not_retry`, `Policy()`.
fn python_member(segments: &[&str], call: &str) -> String {
    let start = segments.iter().position(|segment| !is_module(segment)).unwrap_or(segments.len() - 1);
    let kept = &segments[start..];
    if let [ty, "new"] = kept {
        return format!("{ty}()");
    }
    let named: Vec<String> = kept
        .iter()
        .enumerate()
        .map(|(index, segment)| if index > 0 && is_camel(segment) { snake(segment) } else { (*segment).to_owned() })
        .collect();
    format!("{}{call}", named.join("."))
}

/// A Rust type with generics as Python's typing spells it (`Option<u64>` -> `Optional[int]`), when it is one.
fn python_type(code: &str) -> Option<String> {
    let code = code.trim();
    let (outer, inner) = code.strip_suffix('>')?.split_once('<')?;
    let wrapper = match outer {
        "Option" => "Optional",
        "Vec" => "List",
        _ => return None,
    };
    Some(format!("{wrapper}[{}]", python_type(inner).unwrap_or_else(|| python_scalar(inner.trim()))))
}

/// A Rust scalar type as Python's typing spells it (`u64` -> `int`); any other type as it is.
fn python_scalar(ty: &str) -> String {
    match ty {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "int",
        "f32" | "f64" => "float",
        "String" | "&str" | "str" => "str",
        other => other,
    }
    .to_owned()
}

/// A Rust ident (one segment of a path).
fn is_ident(segment: &str) -> bool {
    let mut chars = segment.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `crate`, `retryplan`, `self`, `super`: a path's start that Python never shows.
fn is_crate(segment: &str) -> bool {
    matches!(segment, "crate" | "retryplan" | "self" | "super")
}

/// A module's name: lowercase (a function's too, which never comes first in a path).
fn is_module(segment: &str) -> bool {
    segment.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// An UpperCamelCase ident (a type or a variant, not a CONSTANT).
fn is_camel(segment: &str) -> bool {
    segment.starts_with(|c: char| c.is_ascii_uppercase()) && segment.chars().any(|c| c.is_ascii_lowercase())
}

/// A Rust ident in snake_case (`RetryAfterMs` -> `retry_after_ms`), as serde's `rename_all = "snake_case"` writes it.
pub(crate) fn snake(ident: &str) -> String {
    let mut name = String::new();
    for (index, letter) in ident.chars().enumerate() {
        if letter.is_uppercase() && index > 0 {
            name.push('_');
        }
        name.push(letter.to_ascii_lowercase());
    }
    name
}

/// A snake_case code in UpperCamelCase, as its `Error` variant is named (`config_violations` ->
/// `ConfigViolations`).
pub(crate) fn camel(code: &str) -> String {
    code.split('_').map(|word| word[..1].to_uppercase() + &word[1..]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_items_read_as_python_names() {
        let read = |rust: &str| python_prose(&format!("See `{rust}`."));
        for (rust, python) in [
            ("RetryAfterReading::Strict", "\"strict\""),
            ("retryplan::headers::retry_after::RetryAfterReading::Lenient", "\"lenient\""),
            ("Receipt::Discarded", "\"discarded\""),
            ("Verdict::Retryable", "Verdict.RETRYABLE"),
            ("Idempotency::Unsafe", "Idempotency.UNSAFE"),
            ("Verdict::UNKNOWN_ERROR", "UNKNOWN_ERROR_VERDICT"),
            ("profiles::NAMES", "PROFILE_NAMES"),
            ("Error::ConfigViolations", "ConfigViolationsError"),
            ("Decision::Reconcile", "Reconcile"),
            ("u64::MAX", "2**64 - 1"),
            ("i64::MAX", "2**63 - 1"),
            ("i32::MIN", "-2**31"),
            ("Driver::handle_result", "Driver.handle_result"),
            ("Error::code()", "Error.code()"),
            ("retryplan::Error", "Error"),
            ("propagation::Answer", "Answer"),
            ("Policy::new", "Policy()"),
            ("Pushback::DoNotRetry", "Pushback.do_not_retry"),
            ("crate::outcomes::http", "core/src/outcomes/http.rs"),
            ("crate::controls::breaker", "core/src/controls/breaker/mod.rs"),
            ("Option<u64>", "Optional[int]"),
            ("Option<Vec<String>>", "Optional[List[str]]"),
            ("Some(Decision::Reconcile)", "Reconcile"),
            ("parse_retry_after_with", "parse_retry_after"),
        ] {
            assert_eq!(read(rust), format!("See `{python}`."), "{rust}");
        }
    }

    #[test]
    fn other_text_is_left_as_it_is() {
        for text in [
            "A `u64` fits; 1..=4, and a::b outside code.",
            "`[1-9][0-9]*`, `email.utils.parsedate_tz`, `\"strict\"`, `None`, `HashMap<K, V>`, `x::y z`",
            "An odd ` backtick",
        ] {
            assert_eq!(python_prose(text), text);
        }
        assert_eq!(python_prose("`retryplan::no_such::module`"), "`no_such.module`");
        // What it writes reads the same the second time (the Python writers may pass a doc through twice).
        let once = python_prose("`RetryAfterReading::Strict`, `Driver::handle_result`, `u64::MAX`, `Option<u64>`");
        assert_eq!(python_prose(&once), once);
    }
}
