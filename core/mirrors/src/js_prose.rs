//! The core's doc text as JS's docs read it. The core's doc comments name
//! Rust items (`Verdict::Retryable`, `Error::InvalidConfig`,
//! `Driver::handle_result`, `u64::MAX`, `Option<u64>`); every JS/TypeScript
//! writer passes a doc through [`js_prose`] ([`doc_comment`] does, and
//! `functions_js`'s and `methods_js`'s JSDoc), which spells each such code
//! span as a JS user meets it in `bindings-js/lib/index.d.ts`: a name of the
//! core's tables a string (`"retryable"`), an error the `RetryplanError` and
//! its `code` (`"invalid_config"`), a method or a field camelCase.

use std::sync::OnceLock;

use retryplan::config::value::{camel_case, Named};

use crate::functions::{Function, Host, FUNCTIONS_TABLE};
use crate::rust_prose::{camel, is_camel, is_crate, is_module, respell, Bound, Spelling};
use crate::tables;

/// The binding's one error class (`lib/error.js`): the core's `Error`, each variant of it one of its `code`s.
const ERROR: &str = "RetryplanError";

/// The core's items JS has under another name, by their last two path segments: what `lib/index.d.ts` exports
/// for them (the error's accessors are its properties; a policy and a dependency are made by `fromConfig`; the
/// standalone reader with its optional reading and policy is `Outcome.fromHttpResponse`).
const JS_NAMES: [(&str, &str); 8] = [
    ("profiles::NAMES", "profileNames()"),
    ("Outcome::read_http_response", "Outcome.fromHttpResponse"),
    ("Policy::new", "Policy.fromConfig"),
    ("Dependency::new", "Dependency.fromConfig"),
    ("Error::code", "RetryplanError.code"),
    ("Error::blame", "RetryplanError.blame"),
    ("Error::message", "RetryplanError.message"),
    ("CompiledFormError::code", "RetryplanError.code"),
];

/// The core's types JS makes with `new` (a public `constructor` in `lib/index.d.ts`): `T::new` is `new T()`.
const CONSTRUCTED: [&str; 6] = ["Operation", "Stats", "RetryBudget", "CircuitBreaker", "RetrySlots", "Driver"];

/// The core's enums whose every variant is a type `lib/index.d.ts` exports by the variant's name
/// (`Decision::Reconcile` is the interface `Reconcile`).
const TYPE_PER_VARIANT: [&str; 1] = ["Decision"];

/// `text`, a doc of the core (markdown, code in single backticks), with each code span that spells a Rust item
/// or type spelt as JS's API spells it; any other text as it is:
///
/// - a variant of a named enum (the registry's, `tables::variant_names`): the string the API takes and returns
///   (`Verdict::Retryable` -> `"retryable"`), as `Verdict::UNKNOWN_ERROR` (its value, `"ambiguous"`);
/// - `Error` in a path: the `RetryplanError` (alone, `Error`, which it extends); a variant of it: its `code`
///   (`Error::ConfigViolations` -> `"config_violations"`); its `code`, `blame` and `message`: the error's
///   properties (`Error::code()` -> `RetryplanError.code`);
/// - a variant of `Decision`: the type of its name (`Decision::Reconcile` -> `Reconcile`);
/// - an integer type's bound: its number as the README writes it (`u64::MAX` -> `2^64 - 1`);
/// - a module (`crate::outcomes::http`): its source file (`core/src/outcomes/http.rs`), else its path with
///   dots;
/// - a free function, alone or by its path: the name JS exports it under (`parse_retry_after_with` ->
///   `parseRetryAfter`, `dialects::aws::error_code_from_response` -> `awsErrorCodeFromResponse`);
/// - a constructor: `Policy.fromConfig`, `Dependency.fromConfig`, `new T()` for a class JS makes with `new`
///   (`RetryBudget::new` -> `new RetryBudget()`);
/// - any other path, its modules left out, with dots, its methods and fields camelCase
///   (`Driver::handle_result` -> `Driver.handleResult`);
/// - `Option<T>` as `T | undefined`, `Vec<T>` as `T[]` (their numbers `number`, `String` `string`); `Some(x)`
///   as `x`.
pub(crate) fn js_prose(text: &str) -> String {
    respell(text, &Js)
}

/// `/** doc */` on its own line at `indent`, the core's Rust names as JS spells them; nothing for an empty doc.
pub(crate) fn doc_comment(doc: &str, indent: &str) -> String {
    if doc.is_empty() {
        return String::new();
    }
    format!("{indent}/** {} */\n", js_prose(doc).replace("*/", "*\\/"))
}

/// The JS API's spelling of the core's Rust names.
struct Js;

impl Js {
    /// A function one of JS's entries exports (`retryplan` or `retryplan/tools`).
    fn exported(host: &[Host]) -> bool {
        host.iter().any(|host| matches!(host, Host::Js | Host::JsTools))
    }
}

impl Spelling for Js {
    const OPTION: [&'static str; 2] = ["", " | undefined"];
    const LIST: [&'static str; 2] = ["", "[]"];

    /// The name JS exports the core's free function `name` under (the functions table: JS's `parseRetryAfter`
    /// is the core's `parse_retry_after_with`, its reading defaulted), camelCase.
    fn function(&self, name: &str) -> Option<String> {
        let exported: Vec<&Function> = FUNCTIONS_TABLE.iter().filter(|function| Js::exported(function.hosts)).collect();
        let by_ident = exported.iter().find(|function| function.ident == name);
        by_ident
            .or_else(|| exported.iter().find(|function| function.path.rsplit("::").next() == Some(name)))
            .map(|function| camel_case(function.ident))
    }

    /// A function by its path, a name of its own, a constructor, a variant's string, an error's code, a type
    /// per variant.
    fn named(&self, segments: &[&str], owner: &str, last: &str) -> Option<String> {
        let path = segments.iter().copied().skip_while(|segment| is_crate(segment));
        let path = path.collect::<Vec<_>>().join("::");
        if let Some(function) =
            FUNCTIONS_TABLE.iter().find(|function| Js::exported(function.hosts) && function.path == path)
        {
            return Some(camel_case(function.ident));
        }
        let pair = format!("{owner}::{last}");
        if let Some((_, js)) = JS_NAMES.iter().find(|(rust, _)| *rust == pair) {
            return Some((*js).to_owned());
        }
        if pair == "Verdict::UNKNOWN_ERROR" {
            return Some(format!("\"{}\"", retryplan::Verdict::UNKNOWN_ERROR.name()));
        }
        if last == "new" && CONSTRUCTED.contains(&owner) {
            return Some(format!("new {owner}()"));
        }
        if let Some(name) = variant_names()
            .iter()
            .find_map(|(enum_ident, variant, name)| (*enum_ident == owner && variant == last).then_some(name))
        {
            return Some(format!("\"{name}\""));
        }
        if owner == "Error" {
            return retryplan::Error::CODES.iter().find(|code| camel(code) == last).map(|code| format!("\"{code}\""));
        }
        if TYPE_PER_VARIANT.contains(&owner) && is_camel(last) {
            return Some(last.to_owned());
        }
        None
    }

    /// JS's numbers as its README writes them: `2^64 - 1`, `-2^63`.
    fn bound(&self, bound: Bound) -> String {
        match bound {
            Bound::Zero => "0".to_owned(),
            Bound::PowerLessOne(bits) => format!("2^{bits} - 1"),
            Bound::NegativePower(bits) => format!("-2^{bits}"),
        }
    }

    /// The binding's TypeScript types: every count and time a `number`.
    fn scalar(&self, ty: &str) -> Option<&'static str> {
        match ty {
            "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128" | "isize"
            | "f32" | "f64" => Some("number"),
            "bool" => Some("boolean"),
            "String" | "&str" | "str" => Some("string"),
            _ => None,
        }
    }

    /// `Error` the `RetryplanError`, a method or a field camelCase.
    fn segment(&self, first: bool, segment: &str) -> String {
        match (first, segment) {
            (true, "Error") => ERROR.to_owned(),
            (false, segment) if is_module(segment) => camel_case(segment),
            (_, segment) => segment.to_owned(),
        }
    }
}

/// Each named enum's variant, by enum and variant ident, with its name (the string JS's API takes).
fn variant_names() -> &'static [(&'static str, String, &'static str)] {
    static NAMES: OnceLock<Vec<(&'static str, String, &'static str)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        tables::variant_names().into_iter().map(|(enum_ident, variant, name, _)| (enum_ident, variant, name)).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust_prose::checks;

    #[test]
    fn rust_items_read_as_js_names() {
        checks::reads(
            js_prose,
            &[
                ("Verdict::Retryable", "\"retryable\""),
                ("RetryAfterReading::Strict", "\"strict\""),
                ("retryplan::headers::retry_after::RetryAfterReading::Lenient", "\"lenient\""),
                ("Receipt::Discarded", "\"discarded\""),
                ("GrpcCode::DeadlineExceeded", "\"deadline_exceeded\""),
                ("Verdict::UNKNOWN_ERROR", "\"ambiguous\""),
                ("profiles::NAMES", "profileNames()"),
                ("Error::InvalidConfig", "\"invalid_config\""),
                ("Error::ConfigViolations", "\"config_violations\""),
                ("Error::Unsupported", "\"unsupported\""),
                ("Error::InvalidRequestHeader", "\"invalid_request_header\""),
                ("retryplan::Error", "RetryplanError"),
                ("Error::code", "RetryplanError.code"),
                ("Error::code()", "RetryplanError.code"),
                ("Error::blame()", "RetryplanError.blame"),
                ("Error::message()", "RetryplanError.message"),
                ("CompiledFormError::code", "RetryplanError.code"),
                ("Decision::Reconcile", "Reconcile"),
                ("Some(Decision::GaveUp)", "GaveUp"),
                ("u64::MAX", "2^64 - 1"),
                ("i64::MAX", "2^63 - 1"),
                ("i32::MIN", "-2^31"),
                ("u32::MIN", "0"),
                ("Driver::handle_result", "Driver.handleResult"),
                ("Driver::poll_action()", "Driver.pollAction()"),
                ("IncomingContext::read", "IncomingContext.read"),
                ("Repeatability::effective", "Repeatability.effective"),
                ("Outcome::from_http_response", "Outcome.fromHttpResponse"),
                ("Outcome::read_http_response", "Outcome.fromHttpResponse"),
                ("Policy::new", "Policy.fromConfig"),
                ("Dependency::new", "Dependency.fromConfig"),
                ("RetryBudget::new", "new RetryBudget()"),
                ("crate::outcomes::http", "core/src/outcomes/http.rs"),
                ("crate::config::grant", "core/src/config/grant.rs"),
                ("Option<u64>", "number | undefined"),
                ("Option<Vec<String>>", "string[] | undefined"),
                ("Vec<u32>", "number[]"),
                ("Option<bool>", "boolean | undefined"),
                ("parse_retry_after_with", "parseRetryAfter"),
                ("parse_retry_after", "parseRetryAfter"),
                ("parse_http_date", "parseHttpDate"),
                ("crate::dialects::aws::error_code_from_response", "awsErrorCodeFromResponse"),
            ],
        );
    }

    #[test]
    fn other_text_is_left_as_it_is() {
        checks::leaves(
            js_prose,
            &[
                "A `u64` fits.",
                "`Retry-After`, `HashMap<K, V>`, `Box<str>`, `x::y z`, `max_tokens`, `budget.max_tokens`, `Error`",
            ],
            "`Verdict::Retryable`, `Error::InvalidConfig`, `Driver::handle_result`, `u64::MAX`, `Option<u64>`",
        );
        // A name no table knows: not a string, not an error code.
        assert_eq!(js_prose("`Verdict::NoSuch`, `Error::NoSuch`"), "`Verdict.NoSuch`, `RetryplanError.NoSuch`");
        // Kotlin's function of its own (`telemetry::signals`) is no JS export.
        assert_eq!(js_prose("`telemetry_signals`"), "`telemetry_signals`");
    }

    #[test]
    fn a_doc_comment_is_one_line_in_js_spelling() {
        assert_eq!(doc_comment("", "  "), "");
        assert_eq!(
            doc_comment("Refused with `Error::Unsupported` */.", "  "),
            "  /** Refused with `\"unsupported\"` *\\/. */\n"
        );
    }

    /// No generated declaration (`.d.ts`), nor the JSDoc of the JS written from the core's functions,
    /// controls and policy's methods, carries a Rust spelling of the core's docs: a path (`::`) or a generic type. (`lib/index.d.ts`
    /// is hand-written around the driver's and the operation's sections, which `typescript_methods`'s test checks.)
    #[test]
    fn no_rust_spelling_reaches_a_generated_declaration() {
        let outputs = crate::generate(&crate::workspace_root()).unwrap();
        let js = [crate::functions_js::DEFAULT_JS, crate::methods_js::JS, crate::methods_js_tools::TOOLS_JS];
        let generated = |path: &str| path.ends_with(".d.ts") && path != crate::typescript_methods::INDEX_DTS;
        let declarations: Vec<_> =
            outputs.iter().filter(|output| generated(output.path) || js.contains(&output.path)).collect();
        assert_eq!(declarations.len(), 6, "{:?}", declarations.iter().map(|output| output.path).collect::<Vec<_>>());
        for output in declarations {
            for (number, line) in output.text.lines().enumerate() {
                let rust = ["::", "Option<", "Vec<"].into_iter().find(|rust| line.contains(rust));
                assert!(rust.is_none(), "{}:{}: {rust:?} in {line}", output.path, number + 1);
            }
        }
    }

    /// Every JS name the tables above write is one `lib/index.d.ts` (or `lib/tools.d.ts`) declares.
    #[test]
    fn each_js_name_is_one_the_package_declares() {
        let lib = crate::workspace_root().join("bindings-js/lib");
        let declared =
            ["index.d.ts", "tools.d.ts"].map(|file| std::fs::read_to_string(lib.join(file)).unwrap()).concat();
        // A class, or an object of functions (`Outcome`).
        let class = |name: &str| -> &str {
            let start = (declared.find(&format!("export class {name} ")))
                .or_else(|| declared.find(&format!("export const {name}: {{")))
                .unwrap_or_else(|| panic!("no class {name}"));
            &declared[start..start + declared[start..].find("\n}").unwrap()]
        };
        for (_, js) in JS_NAMES {
            match js.split_once('.') {
                None => {
                    let function = js.strip_suffix("()").unwrap();
                    assert!(declared.contains(&format!("export function {function}(")), "no function {function}");
                }
                // An error's `message` is `Error`'s own.
                Some((ERROR, "message")) => {
                    assert!(class(ERROR).starts_with("export class RetryplanError extends Error"))
                }
                Some((owner, member)) => {
                    let body = class(owner);
                    let members = [format!("\n  {member}("), format!(" {member}("), format!("readonly {member}: ")];
                    assert!(members.iter().any(|member| body.contains(member)), "{owner} has no {member}");
                }
            }
        }
        for name in ["Policy", "Dependency"] {
            assert!(class(name).contains("\n  protected constructor();"), "{name} is made with new");
        }
        for name in CONSTRUCTED {
            assert!(class(name).contains("\n  constructor("), "{name} has no public constructor");
        }
        for variant in ["StartAttempt", "Wait", "AwaitOutcome", "Succeeded", "GaveUp", "Reconcile", "Restart"] {
            assert!(declared.contains(&format!("export interface {variant} ")), "no interface {variant}");
        }
        for function in FUNCTIONS_TABLE.iter().filter(|function| Js::exported(function.hosts)) {
            let function = camel_case(function.ident);
            assert!(declared.contains(&format!("export function {function}(")), "no function {function}");
        }
        for (class_name, member) in
            [("Driver", "handleResult("), ("Driver", "pollAction("), ("IncomingContext", "read(")]
        {
            assert!(class(class_name).contains(member), "{class_name} has no {member}");
        }
    }
}
