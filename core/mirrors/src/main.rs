//! The bindings' mirrors of the core, generated instead of written: the
//! TypeScript name unions and configuration types, the Python enums and
//! configuration `TypedDict`s, and the Kotlin (uniffi) enum definitions and
//! configuration records. Every name comes from the core's own tables (the [`retryplan::config::value::Named`] enums, read at run time), every
//! configuration shape from `tests/conformance/schema.json`, every doc from
//! the core's doc comments (read from its source) or the schema's
//! `description`s.
//!
//! From the core's source and its public tables too:
//! - the wire's constants and name tables, for JS (`js_wire`) and Kotlin
//!   (`kotlin_wire`), and JS's reader of the decision record (`js_records`);
//! - JS's message table (`js_rules`): the core's rules, without the
//!   templates of those no JS entry raises;
//! - Kotlin's HTTP header names (`kotlin_http`);
//! - the error types from `retryplan::Error`: Python's exception classes
//!   (`python_errors`) and Kotlin's `RetryplanError` with the `code`,
//!   `description` and `blame` of any `RetryplanException` (`uniffi_errors`);
//! - records: Python's `Decision` and `Action` subclasses, `Stats` counters
//!   (`python_records`) and values (`python_values`); JS's `Stats` counters
//!   (`js_stats`); Kotlin's uniffi
//!   records with their conversions (`uniffi_records`);
//! - the core's free functions, from one table (`functions`) and their
//!   signatures: Kotlin's (`uniffi_functions`), Python's with their stubs
//!   (`functions_python`) and JS's, both entries (`functions_js`).
//! - the methods of exported classes, from one definition (`methods`: the
//!   shared controls), as pyo3 classes with their stub, uniffi objects, and
//!   JS's wasm exports with the classes calling them; and the engine's
//!   `Operation` and `Driver` (`methods::ENGINE`, `methods::DRIVER`): Python's
//!   and Kotlin's exports, JS's class methods (`methods_js_engine`) and the
//!   TypeScript declarations of their methods (`typescript_methods`); and the
//!   `Policy`'s methods whose logic is the core's (`methods::POLICY`): Kotlin's,
//!   and JS's tools entry's exports, methods and declarations (`methods_js_tools`).
//!
//! Python's `stubtest` allowlist comes from the stub it writes (`python_allowlist`).
//!
//! It also writes the vectors' schema (the policy's shapes from the core's
//! `policy/schema.json`) and the case counts of the vectors' README.
//!
//! `cargo run -p retryplan-mirrors` rewrites the files; `-- --check` writes
//! nothing and fails, naming each file, when a committed one differs.
//!
//! One module per output; `tables` is the registry of what each
//! language mirrors, and `python_prose`, `kotlin_prose` and `js_prose` how
//! Python's, Kotlin's and JS's docs spell the core's Rust names (`rust_prose`
//! what they share).

mod bindings_methods;
mod docs;
mod functions;
mod functions_js;
mod functions_python;
mod js_outcomes;
mod js_prose;
mod js_records;
mod js_rules;
mod js_stats;
mod js_wire;
mod kotlin_http;
mod kotlin_prose;
mod kotlin_wire;
mod methods;
mod methods_js;
mod methods_js_engine;
mod methods_js_tools;
mod methods_kotlin;
mod methods_kotlin_engine;
mod methods_python;
mod methods_python_stub;
mod output;
mod propagation_names;
mod python;
mod python_allowlist;
mod python_errors;
mod python_prose;
mod python_records;
mod python_values;
mod rust_prose;
mod schema;
mod tables;
mod telemetry;
mod typescript;
mod typescript_methods;
mod uniffi;
mod uniffi_config;
mod uniffi_errors;
mod uniffi_functions;
mod uniffi_records;
mod vectors_readme;
mod vectors_schema;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use output::Output;

/// Every generated file, from the registry, the core's source and the schema under `root`.
/// The vectors' schema comes first (the policy's shapes written in from the
/// core), and every other file from it.
fn generate(root: &Path) -> Result<Vec<Output>, String> {
    let tables = tables::registry(root)?;
    let vectors = vectors_schema::output(root)?;
    let schema = schema::Schema::parse(&vectors.text).map_err(|e| format!("{}: {e}", vectors.path))?;
    let mut outputs = vec![vectors, vectors_readme::output(root)?];
    outputs.extend(generate_from(&tables, &schema)?);
    outputs.extend(python_records::outputs(root)?);
    outputs.extend(python_errors::outputs(root, &tables)?);
    outputs.push(python_values::output(root, &tables)?);
    outputs.extend(uniffi_records::outputs(root, &tables)?);
    outputs.extend(uniffi_functions::outputs(root, &tables)?);
    outputs.extend(uniffi_errors::outputs(root)?);
    outputs.push(kotlin_http::output());
    outputs.push(kotlin_wire::output(root, &tables)?);
    bindings_methods::extend(root, &mut outputs)?;
    outputs.push(typescript_methods::output(root, &[&methods::DRIVER, &methods::ENGINE])?);
    functions_python::extend(root, &tables, &mut outputs)?;
    outputs.extend(functions_js::outputs(root, &tables)?);
    outputs.push(js_rules::output(root)?);
    outputs.extend(js_stats::outputs(root)?);
    outputs.extend(telemetry::outputs());
    outputs.extend(propagation_names::outputs());
    // Last: from the stub as every section above has written it.
    let stub = outputs.iter().find(|output| output.path == python_records::NATIVE_STUB);
    let stub = stub.ok_or_else(|| format!("{}: not among the outputs", python_records::NATIVE_STUB))?;
    outputs.push(python_allowlist::output(&stub.text));
    Ok(outputs)
}

/// Every generated file, from these tables and this schema.
fn generate_from(tables: &[tables::Table], schema: &schema::Schema) -> Result<Vec<Output>, String> {
    let mut outputs = Vec::new();
    outputs.extend(typescript::outputs(tables, schema)?);
    outputs.extend(python::outputs(tables, schema)?);
    outputs.extend(uniffi::outputs(tables));
    outputs.extend(uniffi_config::outputs(tables, schema)?);
    outputs.push(js_wire::output()?);
    outputs.push(js_records::output()?);
    outputs.push(js_outcomes::output()?);
    Ok(outputs)
}

/// The workspace root: two levels above this crate.
fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = match args.as_slice() {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => {
            eprintln!("usage: retryplan-mirrors [--check]");
            return ExitCode::from(2);
        }
    };
    let root = workspace_root();
    let outputs = match generate(&root) {
        Ok(outputs) => outputs,
        Err(error) => {
            eprintln!("retryplan-mirrors: {error}");
            return ExitCode::FAILURE;
        }
    };
    if check {
        let stale = output::stale(&root, &outputs);
        if stale.is_empty() {
            println!("retryplan-mirrors: {} generated files are up to date", outputs.len());
            return ExitCode::SUCCESS;
        }
        for path in &stale {
            eprintln!("stale: {path} (regenerate: cargo run -p retryplan-mirrors)");
        }
        return ExitCode::FAILURE;
    }
    match output::write(&root, &outputs) {
        Ok(written) => {
            for path in written {
                println!("wrote {path}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("retryplan-mirrors: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("retryplan-mirrors-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// The committed files are what the generator writes (what CI's `--check` asserts).
    #[test]
    fn the_committed_files_are_up_to_date() {
        let root = workspace_root();
        let outputs = generate(&root).unwrap();
        assert_eq!(output::stale(&root, &outputs), Vec::<&str>::new());
    }

    /// A table that changes (a new variant, a renamed one, a changed doc) makes `--check` name each file it reaches.
    #[test]
    fn a_changed_table_makes_the_check_name_each_stale_file() {
        let root = workspace_root();
        let mut tables = tables::registry(&root).unwrap();
        let schema =
            schema::Schema::parse(&std::fs::read_to_string(root.join(vectors_schema::SCHEMA)).unwrap()).unwrap();
        let dir = temp_dir("check");
        let written = output::write(&dir, &generate_from(&tables, &schema).unwrap()).unwrap();
        assert_eq!(written.len(), 9, "{written:?}");
        assert!(output::stale(&dir, &generate_from(&tables, &schema).unwrap()).is_empty());

        let give_up = tables.iter_mut().find(|table| table.ident == "GiveUpReason").unwrap();
        give_up.variants.push(tables::Variant { ident: "Bored".into(), name: "bored".into(), doc: "Tired.".into() });
        let stale = output::stale(&dir, &generate_from(&tables, &schema).unwrap());
        assert_eq!(stale, [typescript::NAMES, python::ENUMS, python::CONFIG_TYPES, uniffi::GENERATED]);

        // A doc alone: only the files that carry it.
        let mut tables = tables::registry(&root).unwrap();
        let breaker = tables.iter_mut().find(|table| table.ident == "BreakerState").unwrap();
        breaker.variants[0].doc.push_str(" Reworded.");
        let stale = output::stale(&dir, &generate_from(&tables, &schema).unwrap());
        assert_eq!(stale, [typescript::NAMES, uniffi::GENERATED]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A schema field added to a policy reaches the Python keyword types.
    #[test]
    fn a_new_policy_field_in_the_schema_makes_the_python_types_stale() {
        let root = workspace_root();
        let tables = tables::registry(&root).unwrap();
        let text = std::fs::read_to_string(root.join("tests/conformance/schema.json")).unwrap();
        let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
        value["$defs"]["policyConfig"]["properties"]["max_retries"] = serde_json::json!({"type": "integer"});
        let changed = schema::Schema::parse(&value.to_string()).unwrap();
        let outputs = generate_from(&tables, &changed).unwrap();
        assert_eq!(output::stale(&root, &outputs), [typescript::CONFIG, python::CONFIG_TYPES, uniffi_config::CONFIG]);
        let types = &outputs.iter().find(|o| o.path == python::CONFIG_TYPES).unwrap().text;
        assert!(types.contains("    max_retries: int\n"), "{types}");
    }

    /// A property added to the core's policy schema reaches the vectors'
    /// schema and, through it, every language's configuration types.
    #[test]
    fn a_new_field_in_the_policy_schema_reaches_every_mirror() {
        let root = workspace_root();
        let tables = tables::registry(&root).unwrap();
        let read = |path: &str| -> serde_json::Value {
            serde_json::from_str(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap()
        };
        let mut policy = read(vectors_schema::POLICY_SCHEMA);
        policy["$defs"]["policyConfig"]["properties"]["backoff"]["properties"]["jitter_first"] =
            serde_json::json!({"const": true, "default": false, "description": "Written only when true."});
        let text = vectors_schema::splice(read(vectors_schema::SCHEMA), &policy).unwrap();
        let schema = schema::Schema::parse(&text).unwrap();
        let mut outputs = vec![Output { path: vectors_schema::SCHEMA, text }];
        outputs.extend(generate_from(&tables, &schema).unwrap());
        let stale = output::stale(&root, &outputs);
        assert_eq!(stale, [vectors_schema::SCHEMA, typescript::CONFIG, python::CONFIG_TYPES, uniffi_config::CONFIG]);
        let kotlin = &outputs.iter().find(|o| o.path == uniffi_config::CONFIG).unwrap().text;
        assert!(
            kotlin.contains("    #[serde(default)]\n    #[uniffi(default)]\n    pub jitter_first: bool,\n"),
            "{kotlin}"
        );
    }
}
