//! Kotlin (and Swift), through uniffi: `bindings-kotlin/src/generated.rs`,
//! the `#[uniffi::remote(Enum)]` definitions of the core's unit enums.
//! uniffi needs a remote type restated variant by variant (and checks the
//! restatement against the real type when it compiles); this writes it from
//! the tables, with the core's docs, which uniffi carries into Kotlin.

use crate::kotlin_prose::doc_line as doc;
use crate::output::{Output, HEADER};
use crate::tables::Table;

pub const GENERATED: &str = "bindings-kotlin/src/generated.rs";

pub fn outputs(tables: &[Table]) -> Vec<Output> {
    let kotlin: Vec<&Table> = tables.iter().filter(|table| table.mirrors.kotlin).collect();
    let mut text = format!(
        "// {HEADER}\n//! The core's unit enums, restated for uniffi (`#[uniffi::remote(Enum)]`):\n\
         //! uniffi exports the core's own types, no copy and no conversion.\n\n"
    );
    let mut paths: Vec<&str> = kotlin.iter().map(|table| table.rust_path).collect();
    // rustfmt's order: a lower-case segment (a module) before an upper-case one (a type).
    paths
        .sort_by_key(|path| path.chars().map(|c| (c.is_ascii_uppercase(), c.to_ascii_lowercase())).collect::<Vec<_>>());
    for path in paths {
        text.push_str(&format!("use {path};\n"));
    }
    for table in kotlin {
        text.push('\n');
        text.push_str(&doc("", &table.doc));
        text.push_str(&format!("#[uniffi::remote(Enum)]\npub enum {} {{\n", table.ident));
        for variant in &table.variants {
            text.push_str(&doc("    ", &variant.doc));
            text.push_str(&format!("    {},\n", variant.ident));
        }
        text.push_str("}\n");
    }
    vec![Output { path: GENERATED, text }]
}
