//! Kotlin (and Swift), through uniffi: `bindings-kotlin/src/functions.rs`,
//! the core's free functions a host calls as they are (the header readers,
//! the grpc-timeout codec, deadline arithmetic), the entries of the shared
//! table (`functions`) that Kotlin exports, from their signatures in the
//! core's source: each parameter and the result cross as
//! the records' fields do (`i64` milliseconds refused by `ms_in` when the
//! core cannot hold them, `long_out` on the way out, the generated records),
//! a header error becomes the core's `Error`, and the doc is the core's.
//!
//! A parameter or result of a type with no conversion here fails the
//! generator, naming it: add it to [`parameter`] or [`result`].

use std::path::Path;

use crate::functions::{read, Host, Read};
use crate::output::{Output, HEADER};
use crate::tables::Table;
use crate::uniffi_records::docs;

pub const FUNCTIONS: &str = "bindings-kotlin/src/functions.rs";

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
    for function in read(root, Host::Kotlin)? {
        body.push_str(&export(&function, &enums, &mut uses)?);
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

/// The exported wrapper of `function`.
fn export(function: &Read, enums: &[&str], uses: &mut std::collections::BTreeSet<String>) -> Result<String, String> {
    let path = function.function.path;
    let (mut params, mut checks, mut args) = (Vec::new(), String::new(), Vec::new());
    for param in &function.params {
        let (name, ty) = (param.name.as_str(), param.ty.as_str());
        let (binding_ty, arg, check) = parameter(name, ty, enums)
            .ok_or_else(|| format!("{path}({}): no conversion for `{ty}` (uniffi_functions::parameter)", param.core))?;
        if let Some((check, helper)) = check {
            uses.insert(format!("crate::{helper}"));
            checks.push_str(&check);
        }
        if enums.contains(&binding_ty.as_str()) {
            uses.insert(binding_ty.clone());
        }
        params.push(format!("{name}: {binding_ty}"));
        args.push(arg);
    }
    let mut call = format!("rp::{path}({})", args.join(", "));
    if function.header_error {
        call.push_str(".map_err(rp::Error::from)?");
    }
    let value = &function.value;
    let Converted { ty: binding_ty, out, helper, fallible } = result(value, &call)
        .ok_or_else(|| format!("{path}: no conversion for the result `{value}` (uniffi_functions::result)"))?;
    if let Some(helper) = helper {
        uses.insert(format!("crate::{helper}"));
    }
    let fallible = fallible || !checks.is_empty() || function.header_error;
    if fallible {
        uses.insert("crate::Result".to_owned());
    }
    let (ret, body) =
        if fallible { (format!("Result<{binding_ty}>"), format!("Ok({out})")) } else { (binding_ty, out) };
    let mut text = format!("\n{}", docs("", &function.doc));
    let signature = format!("pub fn {}({}) -> {ret} {{", function.function.ident, params.join(", "));
    text.push_str(&format!("#[uniffi::export]\n{signature}\n{checks}    {body}\n}}\n"));
    Ok(text)
}

/// The line that checks a parameter before the call, and the binding's item it uses.
type Check = (String, String);

/// A parameter `name` of the core's type `ty`: the binding's type, the argument
/// passed to the core, and the line that checks it first with the binding's
/// item that line uses, if any. A `u64` is milliseconds (`ms_in`), or
/// nanoseconds when its name ends in `_ns` (`ns_in`).
fn parameter(name: &str, ty: &str, enums: &[&str]) -> Option<(String, String, Option<Check>)> {
    let checked = |check: &str, helper: &str| Some((format!("    let {name} = {check};\n"), helper.to_owned()));
    Some(match ty {
        "&str" => ("String".into(), format!("&{name}"), None),
        "Option<&str>" => ("Option<String>".into(), format!("{name}.as_deref()"), None),
        "u64" if name.ends_with("_ns") => {
            ("i64".into(), name.into(), checked(&format!("ns_in(\"{name}\", {name})?"), "ns_in"))
        }
        "u64" => ("i64".into(), name.into(), checked(&format!("ms_in(\"{name}\", {name})?"), "ms_in")),
        ty if enums.contains(&ty) => (ty.into(), name.into(), None),
        ty => {
            let record = ty.strip_prefix('&').filter(|record| RECORDS_IN.contains(record))?;
            let check = format!("    let {name}: rp::{record} = {name}.try_into()?;\n");
            (record.into(), format!("&{name}"), Some((check, format!("records::{record}"))))
        }
    })
}

/// A result as the binding returns it: its type, the expression converting
/// the core's, the binding's item that expression uses, and whether the
/// conversion can fail (the function then returns a `Result`).
struct Converted {
    ty: String,
    out: String,
    helper: Option<String>,
    fallible: bool,
}

/// The core's result `ty` of the expression `call`, as the binding returns it.
/// A `DependencyConfig` is a new `Dependency` holding it.
fn result(ty: &str, call: &str) -> Option<Converted> {
    if ty == "DependencyConfig" {
        let out = format!("std::sync::Arc::new(Dependency(rp::Dependency::new(&{call})?))");
        let helper = Some("controls::Dependency".to_owned());
        return Some(Converted { ty: "std::sync::Arc<Dependency>".into(), out, helper, fallible: true });
    }
    let (ty, out, helper) = match ty {
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
    };
    Some(Converted { ty, out, helper, fallible: false })
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
        assert_eq!(check.unwrap(), ("    let now_ms = ms_in(\"now_ms\", now_ms)?;\n".to_owned(), "ms_in".to_owned()));
        let (_, _, check) = parameter("timeout_ns", "u64", &[]).unwrap();
        assert_eq!(check.unwrap().0, "    let timeout_ns = ns_in(\"timeout_ns\", timeout_ns)?;\n");
    }

    #[test]
    fn a_dependency_config_is_returned_as_a_new_dependency() {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let text = &outputs(&root, &tables).unwrap()[0].text;
        let expected = "pub fn aws_standard_dependency() -> Result<std::sync::Arc<Dependency>> {\n    \
                        Ok(std::sync::Arc::new(Dependency(rp::Dependency::new(&rp::dialects::aws::standard_dependency())?)))\n}\n";
        assert!(text.contains(expected), "{text}");
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
