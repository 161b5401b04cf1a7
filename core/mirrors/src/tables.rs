//! The registry: every name table the bindings mirror, read from the core at
//! run time, and which language mirrors it how. A table added to the core
//! reaches the bindings by one line here.

use std::fmt::Debug;
use std::path::Path;

use retryplan::config::value::Named;

use crate::docs;

/// One name: the Rust variant (its `Debug`, which for a unit variant is its
/// ident), the snake_case name every language uses, and its doc summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub ident: String,
    pub name: String,
    pub doc: String,
}

/// How the TypeScript declarations carry a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ts {
    /// Not at all.
    No,
    /// A string-union type that `index.d.ts` re-exports.
    Exported,
    /// A string-union type `index.d.ts` uses in its own declarations only.
    Internal,
}

/// How the Python package carries a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Py {
    /// Not at all.
    No,
    /// A public `str` enum in `_enums.py` (and its `Literal` of names in the stubs).
    Enum,
    /// A `Literal` of its names in the stubs only.
    Literal,
}

/// Which mirrors a table has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mirrors {
    pub ts: Ts,
    pub py: Py,
    /// A `#[uniffi::remote(Enum)]` definition for the Kotlin (and Swift) binding.
    pub kotlin: bool,
}

/// One table: the type's name, its public Rust path, its doc summary and its variants in the core's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub ident: &'static str,
    pub rust_path: &'static str,
    pub doc: String,
    pub variants: Vec<Variant>,
    pub mirrors: Mirrors,
}

impl Table {
    /// Every snake_case name, in order.
    pub fn names(&self) -> Vec<&str> {
        self.variants.iter().map(|variant| variant.name.as_str()).collect()
    }
}

/// One [`Named`] enum of the registry, before its docs are read: its idents, its file and its variants
/// (each variant's ident, its `Debug`, and its snake_case name).
struct Entry {
    ident: &'static str,
    rust_path: &'static str,
    source: &'static str,
    mirrors: Mirrors,
    variants: Vec<(String, &'static str)>,
}

/// The entry of the [`Named`] enum `T`, its docs to come from the enum `ident` in `source`.
fn named<T: Named + Debug>(
    ident: &'static str,
    rust_path: &'static str,
    source: &'static str,
    mirrors: Mirrors,
) -> Entry {
    let variants = T::ALL.iter().map(|variant| (format!("{variant:?}"), variant.name())).collect();
    Entry { ident, rust_path, source, mirrors, variants }
}

/// The table of `entry`, its docs read under `root`.
fn table(root: &Path, entry: Entry) -> Result<Table, String> {
    let Entry { ident, rust_path, source, mirrors, variants } = entry;
    let docs = docs::enum_docs(&root.join(source), ident)?;
    let variants = variants
        .into_iter()
        .map(|(variant_ident, name)| {
            let doc = docs
                .variants
                .get(&variant_ident)
                .cloned()
                .ok_or_else(|| format!("{source}: enum {ident} has no variant {variant_ident}"))?;
            Ok(Variant { ident: variant_ident, name: name.to_owned(), doc })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Table { ident, rust_path, doc: docs.summary, variants, mirrors })
}

/// The snake_case name of each variant of each [`Named`] enum of the registry, by the enum's ident and the
/// variant's (`("RetryAfterReading", "Strict")` -> `"strict"`), with how Python carries the enum: what
/// Python's docs write for the core's `RetryAfterReading::Strict` (`python_prose`). No docs are read.
pub fn variant_names() -> Vec<(&'static str, String, &'static str, Py)> {
    entries()
        .into_iter()
        .flat_map(|entry| {
            let (ident, py) = (entry.ident, entry.mirrors.py);
            entry.variants.into_iter().map(move |(variant, name)| (ident, variant, name, py))
        })
        .collect()
}

const fn mirrors(ts: Ts, py: Py, kotlin: bool) -> Mirrors {
    Mirrors { ts, py, kotlin }
}

/// Every table, in the order the generated files list them.
pub fn registry(root: &Path) -> Result<Vec<Table>, String> {
    let mut tables = entries().into_iter().map(|entry| table(root, entry)).collect::<Result<Vec<_>, String>>()?;
    tables.push(profile_names(root)?);
    tables.push(error_codes(root)?);
    Ok(tables)
}

/// The [`Named`] enums of the registry, in order.
fn entries() -> Vec<Entry> {
    use retryplan as rp;
    use Py::{Enum, Literal};
    use Ts::{Exported, Internal};
    vec![
        named::<rp::Blame>("Blame", "retryplan::Blame", "core/src/config/error.rs", mirrors(Exported, Py::No, true)),
        named::<rp::config::error::ConfigKind>(
            "ConfigKind",
            "retryplan::config::error::ConfigKind",
            "core/src/config/error.rs",
            mirrors(Exported, Py::No, true),
        ),
        named::<rp::GiveUpReason>(
            "GiveUpReason",
            "retryplan::GiveUpReason",
            "core/src/outcomes/decision.rs",
            mirrors(Exported, Enum, true),
        ),
        named::<rp::ground::codes::GrpcCode>(
            "GrpcCode",
            "retryplan::ground::codes::GrpcCode",
            "core/src/ground/codes.rs",
            mirrors(Exported, Enum, true),
        ),
        named::<rp::ground::codes::TransportFailure>(
            "TransportFailure",
            "retryplan::ground::codes::TransportFailure",
            "core/src/ground/codes.rs",
            mirrors(Exported, Enum, true),
        ),
        named::<rp::Verdict>(
            "Verdict",
            "retryplan::Verdict",
            "core/src/outcomes/classify.rs",
            mirrors(Exported, Enum, true),
        ),
        named::<rp::dialects::aws::ErrorCodeTable>(
            "ErrorCodeTable",
            "retryplan::dialects::aws::ErrorCodeTable",
            "core/src/config/error_code.rs",
            mirrors(Exported, Py::No, true),
        ),
        named::<rp::policy::BackoffKind>(
            "BackoffKind",
            "retryplan::policy::BackoffKind",
            "core/src/policy/config.rs",
            mirrors(Exported, Py::No, true),
        ),
        named::<rp::Idempotency>(
            "Idempotency",
            "retryplan::Idempotency",
            "core/src/policy/config.rs",
            mirrors(Exported, Enum, true),
        ),
        named::<rp::policy::AboveCap>(
            "AboveCap",
            "retryplan::policy::AboveCap",
            "core/src/policy/config.rs",
            mirrors(Internal, Py::No, true),
        ),
        named::<rp::policy::GuidanceMode>(
            "GuidanceMode",
            "retryplan::policy::GuidanceMode",
            "core/src/policy/config.rs",
            mirrors(Internal, Py::No, true),
        ),
        named::<rp::policy::RetryLayer>(
            "RetryLayer",
            "retryplan::policy::RetryLayer",
            "core/src/policy/config.rs",
            mirrors(Internal, Py::No, true),
        ),
        named::<rp::policy::HeaderFamily>(
            "HeaderFamily",
            "retryplan::policy::HeaderFamily",
            "core/src/policy/config.rs",
            mirrors(Internal, Py::No, true),
        ),
        named::<rp::policy::GuidanceHeaders>(
            "GuidanceHeaders",
            "retryplan::policy::GuidanceHeaders",
            "core/src/policy/config.rs",
            mirrors(Internal, Py::No, true),
        ),
        named::<rp::headers::retry_after::RetryAfterReading>(
            "RetryAfterReading",
            "retryplan::headers::retry_after::RetryAfterReading",
            "core/src/headers/retry_after.rs",
            mirrors(Exported, Literal, true),
        ),
        named::<rp::Failure>(
            "Failure",
            "retryplan::Failure",
            "core/src/outcomes/failure.rs",
            mirrors(Exported, Enum, true),
        ),
        named::<rp::AbortReason>(
            "AbortReason",
            "retryplan::AbortReason",
            "core/src/outcomes/action.rs",
            mirrors(Exported, Literal, true),
        ),
        named::<rp::propagation::Protocol>(
            "Protocol",
            "retryplan::propagation::Protocol",
            "core/src/propagation/outgoing.rs",
            mirrors(Ts::No, Py::Literal, true),
        ),
        named::<rp::Held>("Held", "retryplan::Held", "core/src/outcomes/action.rs", mirrors(Exported, Literal, true)),
        named::<rp::Concurrency>(
            "Concurrency",
            "retryplan::Concurrency",
            "core/src/driver/mod.rs",
            mirrors(Exported, Literal, true),
        ),
        named::<rp::Receipt>(
            "Receipt",
            "retryplan::Receipt",
            "core/src/outcomes/action.rs",
            mirrors(Exported, Literal, true),
        ),
        named::<rp::engine::redelivery::DeadLetterReason>(
            "DeadLetterReason",
            "retryplan::engine::redelivery::DeadLetterReason",
            "core/src/engine/redelivery.rs",
            mirrors(Exported, Py::No, true),
        ),
        named::<rp::controls::breaker::BreakerState>(
            "BreakerState",
            "retryplan::controls::breaker::BreakerState",
            "core/src/controls/breaker/mod.rs",
            mirrors(Exported, Py::No, true),
        ),
        named::<rp::telemetry::Metric>(
            "Metric",
            "retryplan::telemetry::Metric",
            "core/src/driver/telemetry/mod.rs",
            mirrors(Ts::No, Py::No, true),
        ),
    ]
}

/// Every error code (`Error::CODES`), each documented by its `Error` variant
/// (the code is the variant's name in snake_case), and after each the code it
/// replaced in this release (`Error::RENAMED_CODES`), deprecated.
fn error_codes(root: &Path) -> Result<Table, String> {
    let source = root.join("core/src/config/error.rs");
    let doc = docs::associated_const_summary(&source, "Error", "CODES")?;
    let error = docs::enum_docs(&source, "Error")?;
    let mut variants = Vec::new();
    for code in retryplan::Error::CODES {
        let ident = upper_camel(code);
        let doc = error
            .variants
            .get(&ident)
            .cloned()
            .ok_or_else(|| format!("core/src/config/error.rs: no Error::{ident}"))?;
        variants.push(Variant { ident, name: code.to_owned(), doc });
        for (old, _) in retryplan::Error::RENAMED_CODES.iter().filter(|(_, new)| *new == code) {
            let doc =
                format!("@deprecated Renamed `{code}` in this release and no longer produced; listed for one release.");
            variants.push(Variant { ident: upper_camel(old), name: (*old).to_owned(), doc });
        }
    }
    Ok(Table {
        ident: "ErrorCode",
        rust_path: "retryplan::Error::CODES",
        doc,
        variants,
        mirrors: mirrors(Ts::Exported, Py::No, false),
    })
}

/// `config_violations` -> `ConfigViolations`.
fn upper_camel(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// The built-in profiles' names (`profiles::NAMES`): names without a Rust enum.
fn profile_names(root: &Path) -> Result<Table, String> {
    let doc = docs::const_summary(&root.join("core/src/dialects/profiles.rs"), "NAMES")?;
    let variants = retryplan::dialects::profiles::NAMES
        .iter()
        .map(|name| Variant { ident: (*name).to_owned(), name: (*name).to_owned(), doc: String::new() })
        .collect();
    Ok(Table {
        ident: "ProfileName",
        rust_path: "retryplan::dialects::profiles::NAMES",
        doc,
        variants,
        mirrors: mirrors(Ts::Exported, Py::Literal, false),
    })
}
