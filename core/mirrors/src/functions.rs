//! The core's free functions a host calls as they are (the header readers,
//! the grpc-timeout codec, deadline arithmetic, the AWS error code, the
//! telemetry mapping): one table, read against the core's source, from which
//! every binding's exports are written: Kotlin's (`uniffi_functions`),
//! Python's (`functions_python`) and JS's, both entries (`functions_js`).
//!
//! An entry names where the core defines the function and which bindings
//! export it under which name; the parameters, their types, the result and
//! the doc are the core's own, read with `syn`. Each writer converts a type
//! the same way for every function, and fails naming the function when it
//! meets one it has no conversion for.

use std::fs;
use std::path::Path;

use crate::docs::{plain_links, summary, type_name};

/// A binding (or one of JS's entries) that exports free functions from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    Kotlin,
    Python,
    /// JS's default entry (`retryplan`), in every build of its wasm (Node's and the browser runtimes).
    Js,
    /// JS's tools entry (`retryplan/tools`), in the tools' wasm alone.
    JsTools,
}

use Host::{Js, JsTools, Kotlin, Python};

/// One exported function: where the core defines it, its path from the
/// core's root, the bindings' name (snake_case; JS spells it in camelCase),
/// the bindings' names of its parameters where they differ from the core's,
/// the bindings exporting it, and the parameters a caller may leave out (the
/// core's type's `Default` then: Python and JS; uniffi defaults only literals,
/// so Kotlin's callers pass them, and the core's defaulted twin, as
/// `parse_retry_after`, is its own entry).
pub struct Function {
    pub file: &'static str,
    pub path: &'static str,
    pub ident: &'static str,
    pub renames: &'static [(&'static str, &'static str)],
    pub hosts: &'static [Host],
    pub defaulted: &'static [&'static str],
}

const fn function(file: &'static str, path: &'static str, ident: &'static str) -> Function {
    Function { file, path, ident, renames: &[], hosts: &[Kotlin, Python, JsTools], defaulted: &[] }
}

const RETRY_AFTER: &str = "core/src/headers/retry_after.rs";
const RATE_LIMIT: &str = "core/src/headers/rate_limit.rs";
const GRPC_TIMEOUT: &str = "core/src/headers/grpc_timeout.rs";
const DEADLINE: &str = "core/src/ground/deadline.rs";

/// Every free function a binding exports from the core, in the order each binding writes them.
pub const FUNCTIONS_TABLE: [Function; 19] = [
    Function {
        hosts: &[Kotlin],
        ..function(RETRY_AFTER, "headers::retry_after::parse_retry_after", "parse_retry_after")
    },
    Function {
        hosts: &[Kotlin],
        ..function(RETRY_AFTER, "headers::retry_after::parse_retry_after_with", "parse_retry_after_with")
    },
    // Python's and JS's `parse_retry_after`: the reading defaults to the core's (strict).
    Function {
        hosts: &[Python, Js],
        defaulted: &["reading"],
        ..function(RETRY_AFTER, "headers::retry_after::parse_retry_after_with", "parse_retry_after")
    },
    Function {
        defaulted: &["reading"],
        ..function(RETRY_AFTER, "headers::retry_after::parse_http_date", "parse_http_date")
    },
    Function {
        hosts: &[Kotlin, Python, Js],
        ..function(RETRY_AFTER, "headers::retry_after::parse_retry_after_ms_header", "parse_retry_after_ms_header")
    },
    function(RETRY_AFTER, "headers::retry_after::parse_grpc_pushback", "parse_grpc_pushback"),
    Function {
        renames: &[("rate_limit", "value"), ("rate_limit_policy", "policy_value")],
        hosts: &[Kotlin, Python, Js],
        ..function(RATE_LIMIT, "headers::rate_limit::parse_rate_limit", "parse_rate_limit")
    },
    Function {
        hosts: &[Kotlin, Python, Js],
        ..function(RATE_LIMIT, "headers::rate_limit::parse_rate_limit_reset", "parse_rate_limit_reset")
    },
    function(GRPC_TIMEOUT, "headers::grpc_timeout::encode_grpc_timeout", "encode_grpc_timeout"),
    function(GRPC_TIMEOUT, "headers::grpc_timeout::parse_grpc_timeout", "parse_grpc_timeout"),
    // Not in JS's default entry.
    Function {
        hosts: &[Kotlin, Python, JsTools],
        ..function(GRPC_TIMEOUT, "headers::grpc_timeout::encode_grpc_timeout_ns", "encode_grpc_timeout_ns")
    },
    function(GRPC_TIMEOUT, "headers::grpc_timeout::parse_grpc_timeout_ns", "parse_grpc_timeout_ns"),
    function(DEADLINE, "ground::deadline::remaining_ms", "remaining_ms"),
    function(DEADLINE, "ground::deadline::admit", "admit"),
    function(
        "core/src/config/error_code.rs",
        "dialects::aws::error_code_from_response",
        "aws_error_code_from_response",
    ),
    // How the HTTP helpers name their request in endings, logs and spans (`url.full`: the conventions' sensitive
    // query values redacted), in every language: JS's default entry too, since the redaction is one decision.
    Function {
        hosts: &[Kotlin, Python, Js],
        ..function("core/src/outcomes/http.rs", "outcomes::http::request_name", "request_name")
    },
    // Python's and JS's telemetry hand each signal over in their own shapes
    // (tuples, arrays read by `lib/otel.js`), beside their events.
    Function {
        hosts: &[Kotlin],
        ..function("core/src/driver/telemetry/mod.rs", "telemetry::signals", "telemetry_signals")
    },
    // The AWS standard mode's retry quotas, each a `Dependency` of its own.
    Function {
        hosts: &[Kotlin, Python],
        ..function("core/src/dialects/aws.rs", "dialects::aws::standard_dependency", "aws_standard_dependency")
    },
    Function {
        hosts: &[Kotlin, Python],
        ..function(
            "core/src/dialects/aws.rs",
            "dialects::aws::standard_2026_dependency",
            "aws_standard_2026_dependency",
        )
    },
];

/// One parameter as a binding sees it: the core's name, the binding's, the
/// core's type as written (`&str`, `u64`, `RetryAfterReading`) and whether a
/// caller may leave it out.
pub struct Param {
    pub core: String,
    pub name: String,
    pub ty: String,
    pub defaulted: bool,
}

/// A function of the table read against the core's source.
pub struct Read<'a> {
    pub function: &'a Function,
    pub params: Vec<Param>,
    /// The core's result, without its `Result<_, HeaderError>` when it has one.
    pub value: String,
    /// Whether the core returns a `HeaderError`.
    pub header_error: bool,
    /// The core's summary.
    pub doc: String,
    /// The core's paragraphs after the summary, up to its first example or heading.
    pub prose: Vec<String>,
}

/// The functions `host` exports, read against the core's source under `root`, in the table's order.
pub fn read(root: &Path, host: Host) -> Result<Vec<Read<'static>>, String> {
    FUNCTIONS_TABLE
        .iter()
        .filter(|function| function.hosts.contains(&host))
        .map(|function| read_one(root, function))
        .collect()
}

fn read_one(root: &Path, function: &'static Function) -> Result<Read<'static>, String> {
    let path = root.join(function.file);
    let source = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
    let core = function.path.rsplit("::").next().unwrap_or(function.path);
    let item = file.items.iter().find_map(|item| match item {
        syn::Item::Fn(item) if item.sig.ident == core => Some(item),
        _ => None,
    });
    let item = item.ok_or_else(|| format!("{}: no fn {core}", function.file))?;
    let mut params = Vec::new();
    for input in &item.sig.inputs {
        let syn::FnArg::Typed(typed) = input else { return Err(format!("{}: a method", function.path)) };
        let syn::Pat::Ident(pat) = &*typed.pat else { return Err(format!("{}: a pattern parameter", function.path)) };
        let core_name = pat.ident.to_string();
        let name = function.renames.iter().find(|(from, _)| *from == core_name).map_or(&*core_name, |(_, to)| to);
        let defaulted = function.defaulted.contains(&name);
        params.push(Param { name: name.to_owned(), ty: type_name(&typed.ty), defaulted, core: core_name });
    }
    for defaulted in function.defaulted {
        if !params.iter().any(|param| param.name == *defaulted) {
            return Err(format!("{}: no parameter `{defaulted}` to default", function.path));
        }
    }
    let returned = match &item.sig.output {
        syn::ReturnType::Type(_, ty) => type_name(ty),
        syn::ReturnType::Default => return Err(format!("{}: returns nothing", function.path)),
    };
    let (value, header_error) = match returned.strip_prefix("Result<").and_then(|rest| rest.split_once(", ")) {
        Some((value, "HeaderError>")) => (value.to_owned(), true),
        Some((_, error)) => return Err(format!("{}: an error `{error}` with no conversion", function.path)),
        None => (returned, false),
    };
    // A summary leading into a list (`...:`) ends there.
    let doc = summary(&item.attrs);
    let doc = doc.strip_suffix(':').map_or_else(|| doc.clone(), |doc| format!("{doc}."));
    Ok(Read { function, params, value, header_error, doc, prose: prose(&item.attrs) })
}

/// The paragraphs of a doc after its summary, up to its first example (```` ``` ````) or heading (`#`), links as their text.
fn prose(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        if let syn::Meta::NameValue(syn::MetaNameValue {
            value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }),
            ..
        }) = &attr.meta
        {
            lines.push(text.value().trim().to_owned());
        }
    }
    let lines = lines.iter().take_while(|line| !line.starts_with("```") && !line.starts_with('#'));
    let text: Vec<&str> = lines.map(String::as_str).collect();
    let paragraphs = text.split(|line| line.is_empty()).filter(|paragraph| !paragraph.is_empty());
    paragraphs.skip(1).map(|paragraph| plain_links(&paragraph.join(" "))).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The functions `host` exports, the first with a parameter of a type no binding converts
    /// (`at: Instant`), and the registry.
    pub(crate) fn with_an_instant(host: Host) -> (Vec<Read<'static>>, Vec<crate::tables::Table>) {
        let root = crate::workspace_root();
        let mut functions = read(&root, host).unwrap();
        functions[0].params.push(Param {
            core: "at".into(),
            name: "at".into(),
            ty: "Instant".into(),
            defaulted: false,
        });
        (functions, crate::tables::registry(&root).unwrap())
    }

    #[test]
    fn every_entry_is_exported_by_some_binding_and_reads_against_the_core() {
        let root = crate::workspace_root();
        for function in &FUNCTIONS_TABLE {
            assert!(!function.hosts.is_empty(), "{}", function.path);
            read_one(&root, function).unwrap();
        }
    }

    #[test]
    fn a_defaulted_parameter_the_core_lacks_is_refused() {
        let root = crate::workspace_root();
        let function = Box::leak(Box::new(Function {
            defaulted: &["when"],
            ..function(DEADLINE, "ground::deadline::admit", "admit")
        }));
        assert!(read_one(&root, function).err().unwrap().contains("no parameter `when`"));
    }
}
