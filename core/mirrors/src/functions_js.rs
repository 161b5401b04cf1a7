//! JS (wasm-bindgen): `bindings-js/src/functions_generated.rs`, the entries
//! of the shared table (`functions`) that JS exports, as the tools entry's
//! wasm exports (`retryplan/tools`: `lib/tools.js` re-exports them as they
//! are), each checking its arguments as the tools' exports do and naming
//! them in camelCase.
//!
//! How each of the core's types is spelt, for every function alike:
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
//! - a `HeaderError` throws the `RetryplanError` (`headers::header_error`).

use std::collections::BTreeSet;
use std::path::Path;

use retryplan::config::value::camel_case;

use crate::functions::{read, Host, Param, Read};
use crate::output::{Output, HEADER};
use crate::python_records::rust_doc;
use crate::tables::Table;

pub const FUNCTIONS: &str = "bindings-js/src/functions_generated.rs";

pub fn output(root: &Path, tables: &[Table]) -> Result<Output, String> {
    written(&read(root, Host::Js)?, tables)
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
        uses.insert("headers::header_error".to_owned());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn text() -> String {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        output(&root, &tables).unwrap().text
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
        let (functions, tables) = crate::functions::tests::with_an_instant(Host::Js);
        let error = written(&functions, &tables).err().unwrap();
        assert!(error.contains("parse_http_date(at): no JS spelling for `Instant`"), "{error}");
    }
}
