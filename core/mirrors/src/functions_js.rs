//! JS (wasm-bindgen): the entries of the shared table (`functions`) that
//! JS exports, for each of its two entries.
//!
//! The tools entry's (`retryplan/tools`, `Host::JsTools`):
//! `bindings-js/src/functions_generated.rs`, wasm exports that `lib/tools.js`
//! re-exports as they are, each checking its arguments as the tools' exports
//! do and naming them in camelCase. How each of the core's types is spelt,
//! for every function alike:
//! - `&str` is a string (`args::text`), `Option<&str>` one that may be
//!   `undefined` or `null` (`args::optional_text`);
//! - a `u64` in ms is a number (`args::ms`: `0..=2^53-1`, floored), one in
//!   nanoseconds (`_ns`) a bigint, refused as `nanoseconds` when it is not one
//!   a `u64` holds;
//! - one of the core's named enums is its name (`args::named`), the core's
//!   default when a defaulted one is `undefined` or `null`;
//! - a result in ms is a number, a function's in nanoseconds (`..._ns`) a
//!   bigint, a moment (`i64`) a number, a record a plain object with
//!   camelCase keys (`tools::to_js`), `Option<ErrorCode>` the code's text or
//!   `undefined`;
//! - a `HeaderError` throws the `RetryplanError` (`header_error`).
//!
//! The default entry's (`retryplan`, `Host::Js`), in every build of its wasm:
//! as the rest of that entry, `bindings-js/lib/functions.js` checks the
//! arguments in JS (`lib/args.js`: nothing of the tools' checks is linked
//! into the browser runtimes) and calls an internal export `_name` of
//! `bindings-js/src/functions_default_generated.rs`, which takes what those
//! checks give:
//! - `&str` a string (`text`), `Option<&str>` a string or `undefined`
//!   (`optional(text, ...)`), a `u64` in ms a number (`ms`), cast;
//! - a defaulted named enum its index in the core's table, or `undefined` for
//!   the core's default, from the hand-written reader that `NAMED_READERS`
//!   names (each refuses in its own words);
//! - a result in ms (`u64`, or `Option<u64>` with `undefined` for none) is a
//!   number, a `HeaderError` the `RetryplanError` returned in its place (see
//!   `either` in lib.rs) and thrown by `decided` (lib/convert.js).

use std::collections::BTreeSet;
use std::path::Path;

use retryplan::config::value::camel_case;

use crate::functions::{read, Host, Param, Read};
use crate::js_prose::js_prose;
use crate::output::{Output, HEADER};
use crate::python_records::{rust_doc, wrap, WIDTH};
use crate::tables::Table;

pub const FUNCTIONS: &str = "bindings-js/src/functions_generated.rs";
/// The default entry's wasm exports.
pub const DEFAULT_RUST: &str = "bindings-js/src/functions_default_generated.rs";
/// The default entry's functions, calling them.
pub const DEFAULT_JS: &str = "bindings-js/lib/functions.js";

/// The default entry's reader (a function of `lib/http.js`) of each of the core's named enums its functions take:
/// the name's index in the core's table, `undefined` when absent (the core's default).
const NAMED_READERS: [(&str, &str); 1] = [("RetryAfterReading", "readingOf")];

/// Both entries' files.
pub fn outputs(root: &Path, tables: &[Table]) -> Result<[Output; 3], String> {
    let [rust, js] = default_entry(&read(root, Host::Js)?, tables)?;
    Ok([written(&read(root, Host::JsTools)?, tables)?, rust, js])
}

fn written(functions: &[Read], tables: &[Table]) -> Result<Output, String> {
    let (mut uses, mut body) = (BTreeSet::new(), String::new());
    for function in functions {
        body.push_str(&export(function, tables, &mut uses)?);
    }
    let mut text = format!(
        "// {HEADER}\n//! The core's free functions the tools entry exports as they are, from their signatures (the\n\
         //! table: core/mirrors/src/functions.rs).\n\n"
    );
    for used in uses.iter().filter(|used| used.starts_with("alloc::")) {
        text.push_str(&format!("use {used};\n"));
    }
    text.push_str("\nuse retryplan as rp;\nuse wasm_bindgen::prelude::*;\n\n");
    let args: Vec<&str> = uses.iter().filter_map(|used: &String| used.strip_prefix("args::")).collect();
    if !args.is_empty() {
        text.push_str(&format!("use crate::args::{{{}}};\n", args.join(", ")));
    }
    for used in uses.iter().filter(|used| !used.starts_with("args::") && !used.starts_with("alloc::")) {
        text.push_str(&format!("use crate::{used};\n"));
    }
    text.push_str(&body);
    Ok(Output { path: FUNCTIONS, text })
}

/// The line reading `param` (the `&JsValue` of its name) into the core's type, and the argument passed to the core.
fn parameter(param: &Param, tables: &[Table], uses: &mut BTreeSet<String>) -> Option<(String, String)> {
    let (name, js) = (&param.name, camel_case(&param.name));
    let mut used = |what: &str| uses.insert(what.to_owned());
    Some(match param.ty.as_str() {
        "&str" => {
            used("args::text");
            (format!("    let {name} = text(\"{js}\", {name})?;\n"), format!("&{name}"))
        }
        "Option<&str>" => {
            used("args::optional_text");
            (format!("    let {name} = optional_text(\"{js}\", {name})?;\n"), format!("{name}.as_deref()"))
        }
        "u64" if name.ends_with("_ms") => {
            used("args::ms");
            (format!("    let {name} = ms(\"{js}\", {name})?;\n"), name.clone())
        }
        "u64" if name.ends_with("_ns") => {
            used("invalid_with");
            let read = format!(
                "    let {name} = u64::try_from({name}.clone())\n        \
                 .map_err(|_| invalid_with(\"{js}\", \"nanoseconds\", {name}, &JsValue::UNDEFINED))?;\n"
            );
            (read, name.clone())
        }
        ty if tables.iter().any(|table| table.ident == ty) => {
            used("args::named");
            used("args::text");
            let named = format!("named(\"{js}\", &text(\"{js}\", {name})?)?");
            let read = if param.defaulted {
                format!(
                    "    let {name} = if {name}.is_undefined() || {name}.is_null() {{\n        \
                     Default::default()\n    }} else {{\n        {named}\n    }};\n"
                )
            } else {
                format!("    let {name} = {named};\n")
            };
            (read, name.clone())
        }
        _ => return None,
    })
}

/// The core's result: the exported function's type and the expression of it from `call` (the core's value, its
/// `HeaderError` already a `RetryplanError` when `fallible`).
fn result(function: &Read, call: &str, uses: &mut BTreeSet<String>) -> Option<(&'static str, String)> {
    let fallible = function.header_error;
    let ok = |value: String| if fallible { value } else { format!("Ok({value})") };
    Some(match function.value.as_str() {
        "u64" if function.function.ident.ends_with("_ns") => ("Result<u64, JsValue>", ok(call.to_owned())),
        "u64" => {
            uses.insert("num".to_owned());
            ("Result<f64, JsValue>", if fallible { format!("{call}.map(num)") } else { format!("Ok(num({call}))") })
        }
        // Within +-(2^53 - 1) ms: exact as a JS number.
        "i64" => ("Result<f64, JsValue>", ok(format!("{call}.map(|unix_ms| unix_ms as f64)"))),
        "String" => {
            uses.insert("alloc::string::String".to_owned());
            ("Result<String, JsValue>", ok(call.to_owned()))
        }
        "Option<ErrorCode>" => {
            uses.insert("alloc::string::String".to_owned());
            uses.insert("alloc::borrow::ToOwned".to_owned());
            ("Result<Option<String>, JsValue>", ok(format!("{call}.map(|code| code.as_str().to_owned())")))
        }
        "Pushback" | "Admission" => {
            uses.insert("tools::to_js".to_owned());
            let value = if fallible { format!("&{call}?") } else { format!("&{call}") };
            ("Result<JsValue, JsValue>", format!("to_js({value})"))
        }
        _ => return None,
    })
}

fn export(function: &Read, tables: &[Table], uses: &mut BTreeSet<String>) -> Result<String, String> {
    let path = function.function.path;
    let (mut params, mut reads, mut args) = (Vec::new(), String::new(), Vec::new());
    for param in &function.params {
        let (read, arg) = parameter(param, tables, uses).ok_or_else(|| {
            format!("{path}({}): no JS spelling for `{}` (functions_js::parameter)", param.core, param.ty)
        })?;
        params.push(format!("{}: &JsValue", param.name));
        reads.push_str(&read);
        args.push(arg);
    }
    let mut call = format!("rp::{path}({})", args.join(", "));
    if function.header_error {
        uses.insert("header_error".to_owned());
        call.push_str(".map_err(header_error)");
    }
    let (ty, out) = result(function, &call, uses)
        .ok_or_else(|| format!("{path}: no JS result for `{}` (functions_js::result)", function.value))?;
    let ident = function.function.ident;
    let allow = if function.value == "i64" { "#[allow(clippy::cast_precision_loss)]\n" } else { "" };
    Ok(format!(
        "\n{}#[wasm_bindgen(js_name = {})]\n{allow}pub fn {ident}({}) -> {ty} {{\n{reads}    {out}\n}}\n",
        rust_doc(&function.doc, ""),
        camel_case(ident),
        params.join(", ")
    ))
}

/// One parameter of the default entry: the export's parameter (Rust), the argument it passes the core, the JS check
/// giving it (lib/args.js, or a reader of `NAMED_READERS`) and what the JS imports for that check.
struct DefaultParam {
    rust: String,
    arg: String,
    check: String,
    imports: Vec<(&'static str, &'static str)>,
}

fn default_parameter(param: &Param, tables: &[Table]) -> Option<DefaultParam> {
    let (name, js) = (&param.name, camel_case(&param.name));
    let spelt = |rust: String, arg: String, check: String, imports| DefaultParam { rust, arg, check, imports };
    Some(match param.ty.as_str() {
        "&str" => {
            spelt(format!("{name}: &str"), name.clone(), format!("text('{js}', {js})"), vec![("./args.js", "text")])
        }
        "Option<&str>" => spelt(
            format!("{name}: Option<String>"),
            format!("{name}.as_deref()"),
            format!("optional(text, '{js}', {js})"),
            vec![("./args.js", "optional"), ("./args.js", "text")],
        ),
        "u64" if name.ends_with("_ms") => spelt(
            format!("{name}: f64"),
            format!("{name} as u64"),
            format!("ms('{js}', {js})"),
            vec![("./args.js", "ms")],
        ),
        ty if param.defaulted && tables.iter().any(|table| table.ident == ty) => {
            let (_, reader) = NAMED_READERS.iter().find(|(named, _)| *named == ty)?;
            let check = format!("{reader}({js})");
            spelt(
                format!("{name}: Option<u32>"),
                format!("named_or_default({name})"),
                check,
                vec![("./http.js", reader)],
            )
        }
        _ => return None,
    })
}

/// The results the default entry's exports return, by the core's type: the function turning the core's result into
/// one `JsValue` (the value, or the `HeaderError`'s `RetryplanError` in its place: see `either`), written once for
/// every export returning it, and its text.
const DEFAULT_RESULTS: [(&str, &str, &str); 2] = [
    (
        "u64",
        "ms_or_error",
        "/// A result in ms as a number, or the header error in its place.\n\
         fn ms_or_error(result: Result<u64, HeaderError>) -> JsValue {\n    \
         either(result.map(|ms| JsValue::from_f64(num(ms))).map_err(header_error))\n}\n",
    ),
    (
        "Option<u64>",
        "wait_or_error",
        "/// A wait in ms as a number, `undefined` for none, or the header error in its place.\n\
         fn wait_or_error(result: Result<Option<u64>, HeaderError>) -> JsValue {\n    \
         either(result.map(|wait| wait.map_or(JsValue::UNDEFINED, |ms| JsValue::from_f64(num(ms)))).map_err(header_error))\n}\n",
    ),
];

/// The default entry's exports (Rust) and the functions calling them (JS).
fn default_entry(functions: &[Read], tables: &[Table]) -> Result<[Output; 2], String> {
    let (mut rust, mut js) = (String::new(), String::new());
    let (mut exports, mut imports) = (Vec::new(), BTreeSet::new());
    let (mut strings, mut results) = (false, BTreeSet::new());
    for function in functions {
        let path = function.function.path;
        let (mut params, mut args, mut checks, mut names) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for param in &function.params {
            let spelt = default_parameter(param, tables).ok_or_else(|| {
                format!(
                    "{path}({}): no spelling in JS's default entry for `{}` (functions_js::default_parameter)",
                    param.core, param.ty
                )
            })?;
            strings |= spelt.rust.ends_with("Option<String>");
            imports.extend(spelt.imports);
            params.push(spelt.rust);
            args.push(spelt.arg);
            checks.push(spelt.check);
            names.push(camel_case(&param.name));
        }
        let (ident, export) = (function.function.ident, format!("_{}", camel_case(function.function.ident)));
        // A `String` that cannot fail (a request's name) is returned as it is: wasm-bindgen hands JS the string.
        let (returned, result, decided) = if function.value == "String" && !function.header_error {
            strings = true;
            ("String", String::new(), "")
        } else {
            let result = DEFAULT_RESULTS.iter().find(|(value, _, _)| *value == function.value);
            let (_, result, _) = result.filter(|_| function.header_error).ok_or_else(|| {
                let error = if function.header_error { "" } else { " without a HeaderError" };
                format!(
                    "{path}: no result in JS's default entry for `{}`{error} (functions_js::DEFAULT_RESULTS)",
                    function.value
                )
            })?;
            results.insert(*result);
            ("JsValue", (*result).to_owned(), "decided")
        };
        let wrapped =
            |wrapper: &str, call: String| if wrapper.is_empty() { call } else { format!("{wrapper}({call})") };
        rust.push_str(&format!(
            "\n{}#[wasm_bindgen(js_name = {export})]\npub fn {ident}({}) -> {returned} {{\n    {}\n}}\n",
            rust_doc(&function.doc, ""),
            params.join(", "),
            wrapped(&result, format!("rp::{path}({})", args.join(", ")))
        ));
        let line = format!("  return {};", wrapped(decided, format!("{export}({})", checks.join(", "))));
        if line.len() > WIDTH {
            return Err(format!("{path}: its JS call is longer than {WIDTH} characters (functions_js::default_entry)"));
        }
        js.push_str(&format!(
            "\n{}export function {}({}) {{\n{line}\n}}\n",
            js_doc(&function.doc),
            camel_case(ident),
            names.join(", ")
        ));
        exports.push(export);
    }
    for (_, _, body) in DEFAULT_RESULTS.iter().filter(|(_, result, _)| results.contains(result)) {
        rust.push_str(&format!("\n{body}"));
    }
    let rust = format!(
        "// {HEADER}\n//! The core's free functions the default entry exports, from their signatures (the table:\n\
         //! core/mirrors/src/functions.rs): internal exports taking what lib/functions.js checked.\n\n{}\
         use retryplan as rp;\nuse rp::headers::retry_after::HeaderError;\nuse wasm_bindgen::prelude::*;\n\n\
         use crate::args::named_or_default;\nuse crate::{{either, header_error, num}};\n{rust}",
        if strings { "use alloc::string::String;\n\n" } else { "" }
    );
    exports.sort_unstable();
    let wasm = format!("import {{ {} }} from '../wasm/retryplan_js.js';", exports.join(", "));
    let wasm = if wasm.len() <= WIDTH {
        wasm
    } else {
        format!(
            "import {{\n{}}} from '../wasm/retryplan_js.js';",
            exports.iter().map(|name| format!("  {name},\n")).collect::<String>()
        )
    };
    let mut head = format!(
        "// {HEADER}\n// The core's free functions the default entry exports, from their signatures (the table:\n\
         // core/mirrors/src/functions.rs): each checks its arguments and calls the wasm's export of\n\
         // src/functions_default_generated.rs.\n{wasm}\n"
    );
    imports.insert(("./convert.js", "decided"));
    let modules: BTreeSet<&str> = imports.iter().map(|(module, _)| *module).collect();
    for module in modules {
        let names: Vec<&str> = imports.iter().filter(|(from, _)| *from == module).map(|(_, name)| *name).collect();
        head.push_str(&format!("import {{ {} }} from '{module}';\n", names.join(", ")));
    }
    Ok([Output { path: DEFAULT_RUST, text: rust }, Output { path: DEFAULT_JS, text: head + &js }])
}

/// A JSDoc of `text`, the core's Rust names as JS spells them (`js_prose`), each backticked snake_case name in
/// camelCase and `None` as `undefined`.
fn js_doc(text: &str) -> String {
    let parts: Vec<String> = js_prose(text)
        .split('`')
        .enumerate()
        .map(|(index, part)| {
            let name = index % 2 == 1 && part.contains('_') && part.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            match part {
                "None" if index % 2 == 1 => "undefined".to_owned(),
                _ if name => camel_case(part),
                _ => part.to_owned(),
            }
        })
        .collect();
    let text = parts.join("`");
    if text.len() + 7 <= WIDTH {
        return format!("/** {text} */\n");
    }
    let lines = wrap(&text, " * ", " * ");
    format!("/**\n{}\n */\n", lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts() -> [String; 3] {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        outputs(&root, &tables).unwrap().map(|output| output.text)
    }

    fn text() -> String {
        let [tools, _, _] = texts();
        tools
    }

    /// Each argument is checked in order under its camelCase name; a header error throws.
    #[test]
    fn arguments_are_checked_by_their_camel_case_names() {
        let text = text();
        assert!(
            text.contains(
                "#[wasm_bindgen(js_name = remainingMs)]\npub fn remaining_ms(deadline_ms: &JsValue, now_ms: &JsValue, \
                 reserve_ms: &JsValue) -> Result<f64, JsValue> {\n    let deadline_ms = ms(\"deadlineMs\", deadline_ms)?;\n    \
                 let now_ms = ms(\"nowMs\", now_ms)?;\n    let reserve_ms = ms(\"reserveMs\", reserve_ms)?;\n    \
                 Ok(num(rp::ground::deadline::remaining_ms(deadline_ms, now_ms, reserve_ms)))\n}\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("    rp::headers::grpc_timeout::parse_grpc_timeout(&value).map_err(header_error).map(num)\n")
        );
        assert!(text.contains("    let reading = if reading.is_undefined() || reading.is_null() {\n"), "{text}");
    }

    /// Nanoseconds cross as a bigint both ways.
    #[test]
    fn nanoseconds_are_a_bigint() {
        let text = text();
        assert!(text.contains("pub fn parse_grpc_timeout_ns(value: &JsValue) -> Result<u64, JsValue> {\n"), "{text}");
        assert!(
            text.contains("invalid_with(\"timeoutNs\", \"nanoseconds\", timeout_ns, &JsValue::UNDEFINED)"),
            "{text}"
        );
    }

    /// A parameter of a type JS has no spelling for stops the generator, naming the function.
    #[test]
    fn a_type_without_a_spelling_is_named() {
        let (functions, tables) = crate::functions::tests::with_an_instant(Host::JsTools);
        let error = written(&functions, &tables).err().unwrap();
        assert!(error.contains("parse_http_date(at): no JS spelling for `Instant`"), "{error}");
        let (functions, tables) = crate::functions::tests::with_an_instant(Host::Js);
        let error = default_entry(&functions, &tables).err().unwrap();
        assert!(
            error.contains("parse_retry_after_with(at): no spelling in JS's default entry for `Instant`"),
            "{error}"
        );
    }

    /// The default entry's JS checks each argument in order under its camelCase name (a named enum by its
    /// hand-written reader) and calls the internal export, which takes the checked values as they are.
    #[test]
    fn the_default_entry_checks_in_js_and_calls_its_internal_export() {
        let [_, rust, js] = texts();
        assert!(
            rust.contains(
                "#[wasm_bindgen(js_name = _parseRetryAfter)]\npub fn parse_retry_after(value: &str, now_unix_ms: f64, \
                 reading: Option<u32>) -> JsValue {\n    ms_or_error(rp::headers::retry_after::parse_retry_after_with(value, \
                 now_unix_ms as u64, named_or_default(reading)))\n}\n"
            ),
            "{rust}"
        );
        assert!(rust.contains("pub fn parse_rate_limit(value: &str, policy_value: Option<String>) -> JsValue {\n"));
        assert!(rust.contains(
            "    wait_or_error(rp::headers::rate_limit::parse_rate_limit(value, policy_value.as_deref()))\n"
        ));
        // One conversion per result type, shared by the exports returning it.
        assert_eq!(rust.matches("fn ms_or_error(").count(), 1, "{rust}");
        assert!(
            js.contains(
                "export function parseRetryAfter(value, nowUnixMs, reading) {\n  return decided(_parseRetryAfter(\
                 text('value', value), ms('nowUnixMs', nowUnixMs), readingOf(reading)));\n}\n"
            ),
            "{js}"
        );
        assert!(js.contains("_parseRateLimit(text('value', value), optional(text, 'policyValue', policyValue))"));
        assert!(js.contains("import { readingOf } from './http.js';\n"), "{js}");
        // The core's `None` is JS's `undefined`.
        assert!(js.contains("or `undefined` when it asks for none."), "{js}");
    }
}
