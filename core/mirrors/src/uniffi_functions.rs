//! Kotlin (and Swift), through uniffi: `bindings-kotlin/src/functions.rs`,
//! the core's free functions a host calls as they are (the header readers,
//! the grpc-timeout codec, deadline arithmetic), exported from their
//! signatures in the core's source: each parameter and the result cross as
//! the records' fields do (`i64` milliseconds refused by `ms_in` when the
//! core cannot hold them, `long_out` on the way out, the generated records),
//! a header error becomes the core's `Error`, and the doc is the core's.
//!
//! A parameter or result of a type with no conversion here fails the
//! generator, naming it: add it to [`parameter`] or [`result`].

use std::fs;
use std::path::Path;

use crate::docs::{summary, type_name};
use crate::output::{Output, HEADER};
use crate::tables::Table;
use crate::uniffi_records::docs;

pub const FUNCTIONS: &str = "bindings-kotlin/src/functions.rs";

/// One exported function: where the core defines it, its path from the
/// core's root, the binding's name, and the binding's names of its parameters
/// where they differ (Kotlin callers may name them).
struct Function {
    file: &'static str,
    path: &'static str,
    ident: &'static str,
    renames: &'static [(&'static str, &'static str)],
}

const fn function(file: &'static str, path: &'static str, ident: &'static str) -> Function {
    Function { file, path, ident, renames: &[] }
}

const FUNCTIONS_TABLE: [Function; 14] = [
    function("core/src/headers/retry_after.rs", "headers::retry_after::parse_retry_after", "parse_retry_after"),
    function(
        "core/src/headers/retry_after.rs",
        "headers::retry_after::parse_retry_after_with",
        "parse_retry_after_with",
    ),
    function("core/src/headers/retry_after.rs", "headers::retry_after::parse_http_date", "parse_http_date"),
    function(
        "core/src/headers/retry_after.rs",
        "headers::retry_after::parse_retry_after_ms_header",
        "parse_retry_after_ms_header",
    ),
    function("core/src/headers/retry_after.rs", "headers::retry_after::parse_grpc_pushback", "parse_grpc_pushback"),
    Function {
        renames: &[("rate_limit", "value"), ("rate_limit_policy", "policy_value")],
        ..function("core/src/headers/rate_limit.rs", "headers::rate_limit::parse_rate_limit", "parse_rate_limit")
    },
    function("core/src/headers/rate_limit.rs", "headers::rate_limit::parse_rate_limit_reset", "parse_rate_limit_reset"),
    function("core/src/headers/grpc_timeout.rs", "headers::grpc_timeout::encode_grpc_timeout", "encode_grpc_timeout"),
    function("core/src/headers/grpc_timeout.rs", "headers::grpc_timeout::parse_grpc_timeout", "parse_grpc_timeout"),
    function(
        "core/src/headers/grpc_timeout.rs",
        "headers::grpc_timeout::parse_grpc_timeout_ns",
        "parse_grpc_timeout_ns",
    ),
    function("core/src/ground/deadline.rs", "ground::deadline::remaining_ms", "remaining_ms"),
    function("core/src/ground/deadline.rs", "ground::deadline::admit", "admit"),
    function(
        "core/src/config/error_code.rs",
        "dialects::aws::error_code_from_response",
        "aws_error_code_from_response",
    ),
    function("core/src/driver/telemetry/mod.rs", "telemetry::signals", "telemetry_signals"),
];

/// The core's types the records mirror (`records.rs`), by the same name.
const RECORDS: [&str; 2] = ["Pushback", "Admission"];

/// The core's types the records mirror under another name: (the core's, the binding's).
const RENAMED_RECORDS: [(&str, &str); 1] = [("Signal", "TelemetrySignal")];

/// The records a caller hands in (converted back, refused when the core cannot hold them).
const RECORDS_IN: [&str; 1] = ["Event"];

pub fn outputs(root: &Path, tables: &[Table]) -> Result<Vec<Output>, String> {
    let enums: Vec<&str> = tables.iter().filter(|table| table.mirrors.kotlin).map(|table| table.ident).collect();
    let enum_path = |ident: &str| {
        tables.iter().find(|table| table.ident == ident).map_or(ident.to_owned(), |table| {
            table.rust_path.strip_prefix("retryplan::").unwrap_or(table.rust_path).to_owned()
        })
    };
    let mut text = format!(
        "// {HEADER}\n//! The core's free functions a host calls as they are, exported from their\n\
         //! signatures (core/mirrors/src/uniffi_functions.rs).\n\n"
    );
    let mut uses = std::collections::BTreeSet::new();
    let mut body = String::new();
    for function in &FUNCTIONS_TABLE {
        let path = root.join(function.file);
        let source = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
        let core = function.path.rsplit("::").next().unwrap_or(function.path);
        let item = file.items.iter().find_map(|item| match item {
            syn::Item::Fn(item) if item.sig.ident == core => Some(item),
            _ => None,
        });
        let item = item.ok_or_else(|| format!("{}: no fn {core}", function.file))?;
        body.push_str(&export(function, item, &enums, &mut uses)?);
    }
    text.push_str("use retryplan as rp;\n");
    for used in uses.iter().filter(|used| !used.starts_with("crate::")) {
        text.push_str(&format!("use retryplan::{};\n", enum_path(used)));
    }
    let helpers: Vec<&str> = uses.iter().filter_map(|used| used.strip_prefix("crate::")).collect();
    text.push_str(&format!("\nuse crate::{{{}}};\n", helpers.join(", ")));
    text.push_str(&body);
    Ok(vec![Output { path: FUNCTIONS, text }])
}

/// The exported wrapper of `item`.
fn export(
    function: &Function,
    item: &syn::ItemFn,
    enums: &[&str],
    uses: &mut std::collections::BTreeSet<String>,
) -> Result<String, String> {
    let (mut params, mut checks, mut args) = (Vec::new(), String::new(), Vec::new());
    for input in &item.sig.inputs {
        let syn::FnArg::Typed(typed) = input else { return Err(format!("{}: a method", function.path)) };
        let syn::Pat::Ident(pat) = &*typed.pat else { return Err(format!("{}: a pattern parameter", function.path)) };
        let core_name = pat.ident.to_string();
        let name =
            function.renames.iter().find(|(from, _)| *from == core_name).map_or(core_name.as_str(), |(_, to)| to);
        let ty = type_name(&typed.ty);
        let (binding_ty, arg, check) = parameter(name, &ty, enums).ok_or_else(|| {
            format!("{}({core_name}): no conversion for `{ty}` (uniffi_functions::parameter)", function.path)
        })?;
        if let Some(check) = check {
            if RECORDS_IN.contains(&binding_ty.as_str()) {
                uses.insert(format!("crate::records::{binding_ty}"));
            } else {
                uses.insert("crate::ms_in".to_owned());
            }
            checks.push_str(&check);
        }
        if enums.contains(&binding_ty.as_str()) {
            uses.insert(binding_ty.clone());
        }
        params.push(format!("{name}: {binding_ty}"));
        args.push(arg);
    }
    let returned = match &item.sig.output {
        syn::ReturnType::Type(_, ty) => type_name(ty),
        syn::ReturnType::Default => return Err(format!("{}: returns nothing", function.path)),
    };
    let mut call = format!("rp::{}({})", function.path, args.join(", "));
    let value = match returned.strip_prefix("Result<").and_then(|rest| rest.split_once(", ")) {
        Some((value, "HeaderError>")) => {
            call.push_str(".map_err(rp::Error::from)?");
            value.to_owned()
        }
        Some((_, error)) => return Err(format!("{}: an error `{error}` with no conversion", function.path)),
        None => returned.clone(),
    };
    let (binding_ty, out, helper) = result(&value, &call).ok_or_else(|| {
        format!("{}: no conversion for the result `{value}` (uniffi_functions::result)", function.path)
    })?;
    if let Some(helper) = helper {
        uses.insert(format!("crate::{helper}"));
    }
    let fallible = !checks.is_empty() || returned.starts_with("Result<");
    if fallible {
        uses.insert("crate::Result".to_owned());
    }
    let (ret, body) =
        if fallible { (format!("Result<{binding_ty}>"), format!("Ok({out})")) } else { (binding_ty, out) };
    let mut text = format!("\n{}", docs("", &summary(&item.attrs)));
    let signature = format!("pub fn {}({}) -> {ret} {{", function.ident, params.join(", "));
    text.push_str(&format!("#[uniffi::export]\n{signature}\n{checks}    {body}\n}}\n"));
    Ok(text)
}

/// A parameter `name` of the core's type `ty`: the binding's type, the argument
/// passed to the core, and the line that checks it first, if any.
fn parameter(name: &str, ty: &str, enums: &[&str]) -> Option<(String, String, Option<String>)> {
    Some(match ty {
        "&str" => ("String".into(), format!("&{name}"), None),
        "Option<&str>" => ("Option<String>".into(), format!("{name}.as_deref()"), None),
        "u64" => ("i64".into(), name.into(), Some(format!("    let {name} = ms_in(\"{name}\", {name})?;\n"))),
        ty if enums.contains(&ty) => (ty.into(), name.into(), None),
        ty => {
            let record = ty.strip_prefix('&').filter(|record| RECORDS_IN.contains(record))?;
            (record.into(), format!("&{name}"), Some(format!("    let {name}: rp::{record} = {name}.try_into()?;\n")))
        }
    })
}

/// The core's result `ty` of the expression `call`: the binding's type, the
/// expression converting it, and the binding's helper it calls.
fn result(ty: &str, call: &str) -> Option<(String, String, Option<String>)> {
    Some(match ty {
        "u64" => ("i64".into(), format!("long_out({call})"), Some("long_out".into())),
        "Option<u64>" => ("Option<i64>".into(), format!("{call}.map(long_out)"), Some("long_out".into())),
        "i64" | "String" => (ty.into(), call.into(), None),
        "Option<ErrorCode>" => ("Option<String>".into(), format!("{call}.map(|code| code.as_str().to_owned())"), None),
        ty if RECORDS.contains(&ty) => (ty.into(), format!("{call}.into()"), Some(format!("records::{ty}"))),
        ty => {
            let item = ty.strip_prefix("Vec<")?.strip_suffix('>')?;
            let (_, record) = RENAMED_RECORDS.iter().find(|(core, _)| *core == item)?;
            let out = format!("{call}.into_iter().map(Into::into).collect()");
            (format!("Vec<{record}>"), out, Some(format!("records::{record}")))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_without_a_conversion_is_refused() {
        assert!(parameter("at", "Instant", &[]).is_none());
        assert!(result("Instant", "f()").is_none());
        let (ty, arg, check) = parameter("now_ms", "u64", &[]).unwrap();
        assert_eq!((ty.as_str(), arg.as_str()), ("i64", "now_ms"));
        assert_eq!(check.unwrap(), "    let now_ms = ms_in(\"now_ms\", now_ms)?;\n");
    }

    #[test]
    fn a_header_reader_refuses_a_bad_clock_and_converts_its_error() {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let text = &outputs(&root, &tables).unwrap()[0].text;
        let expected =
            "#[uniffi::export]\npub fn parse_retry_after(value: String, now_unix_ms: i64) -> Result<i64> {\n    \
                        let now_unix_ms = ms_in(\"now_unix_ms\", now_unix_ms)?;\n    \
                        Ok(long_out(rp::headers::retry_after::parse_retry_after(&value, now_unix_ms).map_err(rp::Error::from)?))\n}\n";
        assert!(text.contains(expected), "{text}");
        assert!(text.contains("pub fn parse_rate_limit(value: String, policy_value: Option<String>)"), "{text}");
    }
}
