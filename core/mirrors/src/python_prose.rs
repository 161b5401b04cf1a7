//! The core's doc text as Python's docs read it. The core's doc comments
//! name Rust items (`RetryAfterReading::Strict`, `Driver::handle_result`,
//! `u64::MAX`, `Option<u64>`, `crate::outcomes::http`); every Python writer
//! passes a doc through [`python_prose`] (`docstring` and `python_rust_doc`
//! do), which spells each such code span as a Python user meets it: the name
//! the Python API takes, read from the core's own tables where one exists.

use std::sync::OnceLock;

use crate::functions::{Function, Host, FUNCTIONS_TABLE};
pub(crate) use crate::rust_prose::{camel, snake};
use crate::rust_prose::{integer_bound, is_camel, respell, Bound, Spelling};
use crate::tables::{self, Py};

/// The core's items whose Python name is not their Rust one, by their last two path segments: the module
/// constants `bindings-python/src/lib.rs` adds, and the driver's option `Driver(record_events=True)` takes
/// (Python has no `DriverOptions`).
const PYTHON_NAMES: [(&str, &str); 4] = [
    ("Verdict::UNKNOWN_ERROR", "UNKNOWN_ERROR_VERDICT"),
    ("profiles::NAMES", "PROFILE_NAMES"),
    ("DriverOptions::record_events", "record_events=True"),
    // The standalone reader with its optional reading and policy: Python's is the one method.
    ("Outcome::read_http_response", "Outcome.from_http_response"),
];

/// What Python says in words for a code span of the core that names nothing Python has: the core's type of an
/// error code (Python takes a `str`) and its function that reduces one (Python has none: its rule, from its doc).
const PYTHON_WORDS: [(&str, &str); 2] = [
    ("ErrorCode", "error code"),
    (
        "sanitize_error_code",
        "the SDKs' rule (everything from the first `:` on dropped, then everything up to the last `#`; surrounding \
         whitespace ignored)",
    ),
];

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
///   as `x`;
/// - what Python has no name for (`PYTHON_WORDS`, a bare integer type): words, not code (`ErrorCode` -> error
///   code, `u64` -> int from `0` to `2**64 - 1`).
pub(crate) fn python_prose(text: &str) -> String {
    respell(text, &Python)
}

/// The Python API's spelling of the core's Rust names.
struct Python;

impl Spelling for Python {
    const OPTION: [&'static str; 2] = ["Optional[", "]"];
    const LIST: [&'static str; 2] = ["List[", "]"];

    /// The name Python exports the core's free function `name` under, when it is another (the functions table:
    /// Python's `parse_retry_after` is the core's `parse_retry_after_with`, its reading defaulted).
    fn function(&self, name: &str) -> Option<String> {
        let exported: Vec<&Function> = FUNCTIONS_TABLE
            .iter()
            .filter(|function| {
                function.hosts.contains(&Host::Python) && function.path.rsplit("::").next() == Some(name)
            })
            .collect();
        match exported.first() {
            Some(function) if exported.iter().all(|function| function.ident != name) => Some(function.ident.to_owned()),
            _ => None,
        }
    }

    /// A constant of its own, a variant, an exception class, a class per variant.
    fn named(&self, _: &[&str], owner: &str, last: &str) -> Option<String> {
        let pair = format!("{owner}::{last}");
        if let Some((_, python)) = PYTHON_NAMES.iter().find(|(rust, _)| *rust == pair) {
            return Some((*python).to_owned());
        }
        if let Some(python) = variant_names()
            .iter()
            .find_map(|(enum_ident, variant, python)| (*enum_ident == owner && variant == last).then(|| python.clone()))
        {
            return Some(python);
        }
        if owner == "Error" && retryplan::Error::CODES.iter().any(|code| camel(code) == last) {
            return Some(format!("{last}Error"));
        }
        if CLASS_PER_VARIANT.contains(&owner) && is_camel(last) {
            return Some(last.to_owned());
        }
        None
    }

    fn bound(&self, bound: Bound) -> String {
        match bound {
            Bound::Zero => "0".to_owned(),
            Bound::PowerLessOne(bits) => format!("2**{bits} - 1"),
            Bound::NegativePower(bits) => format!("-2**{bits}"),
        }
    }

    fn scalar(&self, ty: &str) -> Option<&'static str> {
        match ty {
            "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => {
                Some("int")
            }
            "f32" | "f64" => Some("float"),
            "String" | "&str" | "str" => Some("str"),
            _ => None,
        }
    }

    /// An item of `PYTHON_WORDS`; a bare integer type as its range (`u64` -> int from `0` to `2**64 - 1`).
    fn words(&self, code: &str) -> Option<String> {
        if let Some((_, words)) = PYTHON_WORDS.iter().find(|(rust, _)| *rust == code) {
            return Some((*words).to_owned());
        }
        let (min, max) = (integer_bound(code, "MIN")?, integer_bound(code, "MAX")?);
        Some(format!("int from `{}` to `{}`", self.bound(min), self.bound(max)))
    }

    /// Another enum's variant in snake_case (`Pushback.do_not_retry`).
    fn segment(&self, first: bool, segment: &str) -> String {
        if !first && is_camel(segment) {
            snake(segment)
        } else {
            segment.to_owned()
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust_prose::checks;

    #[test]
    fn rust_items_read_as_python_names() {
        checks::reads(
            python_prose,
            &[
                ("RetryAfterReading::Strict", "\"strict\""),
                ("retryplan::headers::retry_after::RetryAfterReading::Lenient", "\"lenient\""),
                ("Receipt::Discarded", "\"discarded\""),
                ("Verdict::Retryable", "Verdict.RETRYABLE"),
                ("Idempotency::Unsafe", "Idempotency.UNSAFE"),
                ("Verdict::UNKNOWN_ERROR", "UNKNOWN_ERROR_VERDICT"),
                ("profiles::NAMES", "PROFILE_NAMES"),
                ("DriverOptions::record_events", "record_events=True"),
                ("Outcome::read_http_response", "Outcome.from_http_response"),
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
            ],
        );
    }

    #[test]
    fn what_python_has_no_name_for_reads_in_words() {
        assert_eq!(python_prose("Every `u64` fits."), "Every int from `0` to `2**64 - 1` fits.");
        assert_eq!(python_prose("An `i32`"), "An int from `-2**31` to `2**31 - 1`");
        assert_eq!(python_prose("not a valid `ErrorCode` (x)"), "not a valid error code (x)");
        assert_eq!(
            python_prose("reduced by `sanitize_error_code`."),
            "reduced by the SDKs' rule (everything from the first `:` on dropped, then everything up to the last \
             `#`; surrounding whitespace ignored)."
        );
        assert_eq!(python_prose("An odd `u64"), "An odd `u64");
    }

    #[test]
    fn other_text_is_left_as_it_is() {
        checks::leaves(
            python_prose,
            &["`email.utils.parsedate_tz`, `HashMap<K, V>`, `x::y z`"],
            "`RetryAfterReading::Strict`, `Driver::handle_result`, `u64::MAX`, `Option<u64>`",
        );
    }
}
