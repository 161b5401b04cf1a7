//! The core's doc text as Kotlin's docs read it. uniffi copies the binding's
//! `///` docs onto the Kotlin it generates (KDoc), and those are the core's
//! docs, which name Rust items (`Receipt::Discarded`, `Driver::poll_action`,
//! `Error::ConfigViolations`, `Option<u64>`, `crate::outcomes::http`); every
//! Kotlin writer passes a doc through [`kotlin_prose`] (`uniffi_records::docs`,
//! [`doc_line`] and `methods_kotlin`'s `doc` do), which spells each such code
//! span as uniffi names it in Kotlin (a variant of a unit enum SCREAMING_SNAKE,
//! a method or a field lowerCamelCase, an error variant a class nested in
//! `RetryplanException`).

use std::sync::OnceLock;

use retryplan::config::value::camel_case;

use crate::functions::{Host, FUNCTIONS_TABLE};
use crate::rust_prose::{camel, is_crate, is_module, respell, snake, Bound, Spelling};
use crate::tables;

/// The core's items Kotlin has under another name, by their last two path segments: the functions
/// `bindings-kotlin/src` exports for them (a call for a value's).
const KOTLIN_NAMES: [(&str, &str); 6] = [
    ("Verdict::UNKNOWN_ERROR", "unknownErrorVerdict()"),
    ("profiles::NAMES", "profileNames()"),
    ("Outcome::from_http", "outcomeFromHttp"),
    ("Outcome::from_http_response", "outcomeFromHttpResponse"),
    // The standalone reader with its optional reading and policy: Kotlin's is the same function.
    ("Outcome::read_http_response", "outcomeFromHttpResponse"),
    ("Driver::with_incoming", "driverWithIncoming"),
];

/// The binding's error as Kotlin names it (uniffi's `RetryplanError`, its `Error` suffix `Exception`): the
/// core's `Error`, a variant of it a class nested in it.
const EXCEPTION: &str = "RetryplanException";

/// `text`, a doc of the core (markdown, code in single backticks), with each code span that spells a Rust item
/// or type spelt as Kotlin's API spells it; any other text as it is:
///
/// - a variant of a named enum (the registry's, `tables::variant_names`, each a unit enum uniffi makes an
///   `enum class`): its entry in SCREAMING_SNAKE (`Receipt::Discarded` -> `Receipt.DISCARDED`);
/// - `Error`, and a variant of it: the exception and its nested class (`Error::ConfigViolations` ->
///   `RetryplanException.ConfigViolations`);
/// - an integer type's bound: its number (`u64::MAX` -> `18446744073709551615`);
/// - a module (`crate::outcomes::http`): its source file (`core/src/outcomes/http.rs`), else its path with
///   dots;
/// - a free function, alone or by its path: the name Kotlin exports it under, lowerCamelCase
///   (`dialects::aws::error_code_from_response` -> `awsErrorCodeFromResponse`);
/// - any other path, its modules left out, with dots, its methods and fields lowerCamelCase
///   (`Driver::poll_action` -> `Driver.pollAction`); a constructor `T::new` as the call `T()`; a variant of an
///   enum with fields (a sealed class in Kotlin) as it is (`Decision::Reconcile` -> `Decision.Reconcile`);
/// - `Option<T>` as `T?`, `Vec<T>` as `List<T>` (their integers `Int` or `Long`, `String` `String`); `Some(x)`
///   as `x`.
pub(crate) fn kotlin_prose(text: &str) -> String {
    respell(text, &Kotlin)
}

/// A `///` line of `text` (none for an empty text) at `indent`, the core's Rust names as Kotlin spells them.
pub(crate) fn doc_line(indent: &str, text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("{indent}/// {}\n", kotlin_prose(text))
    }
}

/// The Kotlin API's spelling of the core's Rust names, as uniffi writes them.
struct Kotlin;

impl Spelling for Kotlin {
    const OPTION: [&'static str; 2] = ["", "?"];
    const LIST: [&'static str; 2] = ["List<", ">"];

    /// The name Kotlin exports the core's free function `name` under (the functions table), lowerCamelCase.
    fn function(&self, name: &str) -> Option<String> {
        FUNCTIONS_TABLE
            .iter()
            .find(|function| function.hosts.contains(&Host::Kotlin) && function.path.rsplit("::").next() == Some(name))
            .map(|function| camel_case(function.ident))
    }

    /// A function of its own (an exported free function by its path: `dialects::aws::error_code_from_response`
    /// is `awsErrorCodeFromResponse`), a unit enum's entry, the exception's nested class.
    fn named(&self, segments: &[&str], owner: &str, last: &str) -> Option<String> {
        let path = segments.iter().copied().skip_while(|segment| is_crate(segment));
        let path = path.collect::<Vec<_>>().join("::");
        if let Some(function) =
            FUNCTIONS_TABLE.iter().find(|function| function.hosts.contains(&Host::Kotlin) && function.path == path)
        {
            return Some(camel_case(function.ident));
        }
        let pair = format!("{owner}::{last}");
        if let Some((_, kotlin)) = KOTLIN_NAMES.iter().find(|(rust, _)| *rust == pair) {
            return Some((*kotlin).to_owned());
        }
        if variant_idents().iter().any(|(enum_ident, variant)| *enum_ident == owner && variant == last) {
            return Some(format!("{owner}.{}", snake(last).to_uppercase()));
        }
        if owner == "Error" && retryplan::Error::CODES.iter().any(|code| camel(code) == last) {
            // uniffi's `error_variant_name`: a variant named `...Error` is `...Exception`.
            let class = last.strip_suffix("Error").map_or_else(|| last.to_owned(), |stem| format!("{stem}Exception"));
            return Some(format!("{EXCEPTION}.{class}"));
        }
        None
    }

    fn bound(&self, bound: Bound) -> String {
        match bound {
            Bound::Zero => "0".to_owned(),
            Bound::PowerLessOne(bits) => (u128::MAX >> (128 - bits)).to_string(),
            Bound::NegativePower(bits) => format!("-{}", 1u128 << bits),
        }
    }

    /// The binding's Kotlin types: a time or a 64-bit count `Long`, a smaller count `Int`.
    fn scalar(&self, ty: &str) -> Option<&'static str> {
        match ty {
            "u64" | "i64" | "u128" | "i128" | "usize" | "isize" => Some("Long"),
            "u8" | "u16" | "u32" | "i8" | "i16" | "i32" => Some("Int"),
            "f64" => Some("Double"),
            "f32" => Some("Float"),
            "bool" => Some("Boolean"),
            "String" | "&str" | "str" => Some("String"),
            _ => None,
        }
    }

    /// `Error` the exception, a method or a field lowerCamelCase.
    fn segment(&self, first: bool, segment: &str) -> String {
        match (first, segment) {
            (true, "Error") => EXCEPTION.to_owned(),
            (false, segment) if is_module(segment) => camel_case(segment),
            (_, segment) => segment.to_owned(),
        }
    }
}

/// Each named enum's variant, by enum and variant ident (every one a unit enum Kotlin has as an `enum class`,
/// `bindings-kotlin/src/generated.rs`).
fn variant_idents() -> &'static [(&'static str, String)] {
    static IDENTS: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    IDENTS.get_or_init(|| {
        tables::variant_names().into_iter().map(|(enum_ident, variant, _, _)| (enum_ident, variant)).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust_prose::checks;

    #[test]
    fn rust_items_read_as_kotlin_names() {
        checks::reads(
            kotlin_prose,
            &[
                ("Receipt::Discarded", "Receipt.DISCARDED"),
                ("retryplan::headers::retry_after::RetryAfterReading::Lenient", "RetryAfterReading.LENIENT"),
                ("Verdict::Retryable", "Verdict.RETRYABLE"),
                ("GrpcCode::DeadlineExceeded", "GrpcCode.DEADLINE_EXCEEDED"),
                ("Verdict::UNKNOWN_ERROR", "unknownErrorVerdict()"),
                ("profiles::NAMES", "profileNames()"),
                ("Outcome::from_http_response", "outcomeFromHttpResponse"),
                ("Outcome::read_http_response", "outcomeFromHttpResponse"),
                ("Driver::with_incoming", "driverWithIncoming"),
                ("Error::ConfigViolations", "RetryplanException.ConfigViolations"),
                ("retryplan::Error", "RetryplanException"),
                ("Error::code", "RetryplanException.code"),
                ("Decision::Reconcile", "Decision.Reconcile"),
                ("u64::MAX", "18446744073709551615"),
                ("i64::MAX", "9223372036854775807"),
                ("i32::MIN", "-2147483648"),
                ("u32::MIN", "0"),
                ("Driver::poll_action", "Driver.pollAction"),
                ("Driver::handle_result()", "Driver.handleResult()"),
                ("DriverOptions::record_events", "DriverOptions.recordEvents"),
                ("Ending::result", "Ending.result"),
                ("Metric::attribute", "Metric.attribute"),
                ("propagation::IncomingContext::read", "IncomingContext.read"),
                ("Policy::new", "Policy()"),
                ("crate::outcomes::http", "core/src/outcomes/http.rs"),
                ("crate::controls::breaker", "core/src/controls/breaker/mod.rs"),
                ("Option<u64>", "Long?"),
                ("Option<Vec<String>>", "List<String>?"),
                ("Vec<u32>", "List<Int>"),
                ("Some(Receipt::Discarded)", "Receipt.DISCARDED"),
                ("parse_retry_after_with", "parseRetryAfterWith"),
                ("crate::dialects::aws::error_code_from_response", "awsErrorCodeFromResponse"),
                ("telemetry::signals", "telemetrySignals"),
            ],
        );
    }

    #[test]
    fn other_text_is_left_as_it_is() {
        checks::leaves(
            kotlin_prose,
            &["A `u64` fits.", "`Retry-After`, `HashMap<K, V>`, `Box<str>`, `x::y z`, `max_tokens`"],
            "`Receipt::Discarded`, `Driver::poll_action`, `u64::MAX`, `Option<u64>`, `Vec<u8>`",
        );
    }
}
