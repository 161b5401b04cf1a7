//! TypeScript: `bindings-js/lib/generated/names.d.ts`, a string-union type
//! per table, each name with its doc. `index.d.ts` imports them and
//! re-exports the ones the package exports.

use crate::output::{Output, HEADER};
use crate::tables::{Table, Ts};

pub const NAMES: &str = "bindings-js/lib/generated/names.d.ts";

pub fn outputs(tables: &[Table]) -> Vec<Output> {
    let mut text = format!(
        "// {HEADER}\n// The core's name tables as string unions (snake_case, the same in every language);\n\
         // lib/index.d.ts re-exports them.\n"
    );
    for table in tables.iter().filter(|table| table.mirrors.ts != Ts::No) {
        text.push('\n');
        text.push_str(&union(table));
    }
    vec![Output { path: NAMES, text }]
}

/// `export type Ident = | 'a' | 'b';`, each with its doc comment.
fn union(table: &Table) -> String {
    let mut text = doc_comment(&table.doc, "");
    text.push_str(&format!("export type {} =\n", table.ident));
    for (index, variant) in table.variants.iter().enumerate() {
        text.push_str(&doc_comment(&variant.doc, "  "));
        let end = if index + 1 == table.variants.len() { ";" } else { "" };
        text.push_str(&format!("  | '{}'{end}\n", variant.name));
    }
    text
}

/// `/** doc */` on its own line, indented; nothing for an empty doc.
pub fn doc_comment(doc: &str, indent: &str) -> String {
    if doc.is_empty() {
        return String::new();
    }
    format!("{indent}/** {} */\n", doc.replace("*/", "*\\/"))
}
