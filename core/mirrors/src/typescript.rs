//! TypeScript: `bindings-js/lib/generated/names.d.ts`, a string-union type
//! per table, each name with its doc, and `config.d.ts`, the configuration
//! types the schema describes exactly (keys camelCase). `index.d.ts` imports
//! them and re-exports the ones the package exports. Every doc names the
//! core's items as JS spells them (`js_prose`).

use std::collections::BTreeSet;
use std::path::Path;

use crate::docs;
use crate::js_prose::{doc_comment, js_prose};
use crate::output::{Output, HEADER};
use crate::schema::{name_set, NameSet, Object, Schema, Shape};
use crate::tables::{Mirrors, Py, Table, Ts, Variant};

pub const NAMES: &str = "bindings-js/lib/generated/names.d.ts";
pub const CONFIG: &str = "bindings-js/lib/generated/config.d.ts";

/// The configuration types, each a `$defs` entry or one property of it, by
/// the name `index.d.ts` exports. A shape equal to one of them is written by
/// that name wherever it appears. `PolicyConfig`, what a caller writes, is
/// [`INPUTS`]': the same shape with every key optional (the core fills
/// defaults and names a missing one at run time) and each set of names
/// widened to its table (the schema lists only the names written, a caller
/// may write the default too).
const CONFIGS: [(&str, Option<&str>, &str); 10] = [
    ("policyConfig", Some("attempt_timeout"), "AttemptTimeoutConfig"),
    ("policyConfig", Some("jitter"), "JitterConfig"),
    ("policyConfig", Some("hedging"), "HedgingConfig"),
    ("policyConfig", Some("redelivery"), "RedeliveryConfig"),
    ("policyConfig", Some("retry_limits"), "RetryLimitsConfig"),
    ("policyConfig", None, "ResolvedPolicyConfig"),
    ("budgetConfig", None, "BudgetConfig"),
    ("breakerConfig", Some("trip"), "TripConfig"),
    ("breakerConfig", None, "BreakerConfig"),
    ("dependencyConfig", None, "DependencyConfig"),
];

/// The configurations a caller writes: `$defs` name, the name `index.d.ts`
/// exports, and its doc.
const INPUTS: [(&str, &str, &str); 1] = [(
    "policyConfig",
    "PolicyConfig",
    "A policy as written. Every field is optional: the core's defaults fill the rest.",
)];

pub fn outputs(tables: &[Table], schema: &Schema) -> Result<Vec<Output>, String> {
    Ok(vec![names(tables)?, config(tables, schema)?])
}

fn names(tables: &[Table]) -> Result<Output, String> {
    let mut text = format!(
        "// {HEADER}\n// The core's name tables as string unions (snake_case, the same in every language);\n\
         // lib/index.d.ts re-exports them.\n"
    );
    for table in tables.iter().filter(|table| table.mirrors.ts != Ts::No) {
        text.push('\n');
        text.push_str(&union(table));
    }
    text.push('\n');
    text.push_str(&union(&compiled_form_codes(&crate::workspace_root())?));
    Ok(Output { path: NAMES, text })
}

/// The codes of a refused compiled form (`CompiledFormError::CODES`, the
/// codes besides `Error::CODES` a binding's error carries), each documented
/// by the variant of `CompiledFormError` whose doc names it ("Code `...`").
fn compiled_form_codes(root: &Path) -> Result<Table, String> {
    let source = root.join("core/src/policy/compiled/error.rs");
    let error = docs::enum_docs(&source, "CompiledFormError")?;
    let mut variants = Vec::new();
    for code in retryplan::CompiledFormError::CODES {
        let named = format!("Code `{code}`");
        let found = error.variants.iter().find(|(_, doc)| doc.contains(&named));
        let (ident, doc) =
            found.ok_or_else(|| format!("{}: no CompiledFormError variant says {named}", source.display()))?;
        variants.push(Variant { ident: ident.clone(), name: code.to_owned(), doc: doc.clone() });
    }
    Ok(Table {
        ident: "CompiledFormErrorCode",
        rust_path: "retryplan::CompiledFormError::CODES",
        doc: "Every code `CompiledFormError::code` returns: a compiled form refused (not one, of another version, \
              damaged, or of the other kind), compiled again with the retryplan that loads it."
            .to_owned(),
        variants,
        mirrors: Mirrors { ts: Ts::Exported, py: Py::No, kotlin: false },
    })
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

/// A named configuration type: its name, shape and doc.
struct Named {
    name: &'static str,
    shape: Shape,
    doc: Option<String>,
}

fn config(tables: &[Table], schema: &Schema) -> Result<Output, String> {
    let mut named = Vec::new();
    for (def, property, name) in CONFIGS {
        let (shape, doc) = match property {
            None => (schema.def(def)?, schema.def_title(def)),
            Some(key) => {
                let Shape::Object(object) = schema.def(def)? else {
                    return Err(format!("$defs.{def} is not an object"));
                };
                let property = object.properties.into_iter().find(|p| p.name == key);
                let property = property.ok_or_else(|| format!("$defs.{def} has no property {key}"))?;
                (property.shape, property.title)
            }
        };
        named.push(Named { name, shape, doc });
    }
    let mut writer = Writer { tables, named: &named, used: BTreeSet::new(), input: false };
    let mut body = String::new();
    for item in &named {
        body.push('\n');
        body.push_str(&doc_comment(item.doc.as_deref().unwrap_or(""), ""));
        match &item.shape {
            Shape::Object(object) => {
                body.push_str(&format!("export interface {} {}\n", item.name, writer.object(object, item.name, "")));
            }
            Shape::OneOf(variants) => {
                body.push_str(&format!("export type {} =\n", item.name));
                for (index, variant) in variants.iter().enumerate() {
                    if let Shape::Object(Object { description: Some(doc), .. }) = variant {
                        body.push_str(&doc_comment(doc, "  "));
                    }
                    let end = if index + 1 == variants.len() { ";" } else { "" };
                    body.push_str(&format!("  | {}{end}\n", writer.inline(variant, "", item.name)));
                }
            }
            other => return Err(format!("{} is neither an object nor a oneOf: {other:?}", item.name)),
        }
    }
    writer.input = true;
    for (def, name, doc) in INPUTS {
        let Shape::Object(object) = schema.def(def)? else { return Err(format!("$defs.{def} is not an object")) };
        body.push('\n');
        body.push_str(&doc_comment(doc, ""));
        body.push_str(&format!("export interface {name} {}\n", writer.object(&object, name, "")));
    }
    let mut text = format!(
        "// {HEADER}\n// The configuration types tests/conformance/schema.json describes, keys camelCase;\n\
         // lib/index.d.ts re-exports them.\n"
    );
    if !writer.used.is_empty() {
        let used: Vec<&str> = writer.used.iter().copied().collect();
        text.push_str(&format!("\nimport type {{ {} }} from './names.js';\n", used.join(", ")));
    }
    text.push_str(&body);
    Ok(Output { path: CONFIG, text })
}

struct Writer<'a> {
    tables: &'a [Table],
    named: &'a [Named],
    /// The name tables the types use.
    used: BTreeSet<&'static str>,
    /// Writing what a caller writes: every key optional, names widened to their table.
    input: bool,
}

impl Writer<'_> {
    /// The type of `shape` at key `key`, within the type `defining` (never written by its own name).
    fn ty(&mut self, shape: &Shape, key: &str, defining: &str, indent: &str) -> String {
        if let Some(named) = self.named.iter().find(|named| named.shape == *shape && named.name != defining) {
            return named.name.to_owned();
        }
        match shape {
            Shape::Integer { .. } | Shape::Number => "number".into(),
            Shape::Boolean => "boolean".into(),
            Shape::True if self.input => "boolean".into(),
            Shape::True => "true".into(),
            Shape::String => "string".into(),
            Shape::Any => "unknown".into(),
            Shape::Names(names) => match name_set(names, self.tables) {
                NameSet::Table(table) => {
                    self.used.insert(table.ident);
                    table.ident.to_owned()
                }
                NameSet::Within(table) if self.input && key != "kind" => {
                    self.used.insert(table.ident);
                    table.ident.to_owned()
                }
                NameSet::Within(_) => literals(names),
                // Names the core has no table for (a `kind`, the HTTP methods of `retry_methods`): the
                // schema's own list, which the reader refuses any other name than.
                NameSet::Listed => literals(names),
            },
            Shape::Array(items) => {
                let item = self.ty(items, key, defining, indent);
                if item.contains(" | ") {
                    format!("({item})[]")
                } else {
                    format!("{item}[]")
                }
            }
            Shape::Object(object) => self.object(object, defining, indent),
            Shape::OneOf(variants) => {
                let types: Vec<String> = variants.iter().map(|v| self.inline(v, indent, defining)).collect();
                types.join(" | ")
            }
        }
    }

    /// An object type on one line: `{ kind: 'ratio'; windowMs: number }`.
    fn inline(&mut self, shape: &Shape, indent: &str, defining: &str) -> String {
        let Shape::Object(object) = shape else { return self.ty(shape, "", defining, indent) };
        let fields: Vec<String> = object
            .properties
            .iter()
            .map(|property| {
                let doc =
                    property.description.as_deref().map(|d| format!("/** {} */ ", js_prose(d))).unwrap_or_default();
                let optional = if object.required.contains(&property.name) { "" } else { "?" };
                let ty = self.ty(&property.shape, &property.name, defining, indent);
                format!("{doc}{}{optional}: {ty}", camel(&property.name))
            })
            .collect();
        format!("{{ {} }}", fields.join("; "))
    }

    /// An object type, one field a line, each with its doc.
    fn object(&mut self, object: &Object, defining: &str, indent: &str) -> String {
        let inner = format!("{indent}  ");
        let mut text = String::from("{\n");
        for property in &object.properties {
            let doc = match (&property.description, property.deprecated) {
                (Some(d), true) => format!("@deprecated {d}"),
                (None, true) => "@deprecated".to_owned(),
                (Some(d), false) => d.clone(),
                (None, false) => String::new(),
            };
            text.push_str(&doc_comment(&doc, &inner));
            let optional = if object.required.contains(&property.name) && !self.input { "" } else { "?" };
            let ty = self.ty(&property.shape, &property.name, defining, &inner);
            text.push_str(&format!("{inner}{}{optional}: {ty};\n", camel(&property.name)));
        }
        text.push_str(indent);
        text.push('}');
        text
    }
}

fn literals(names: &[String]) -> String {
    names.iter().map(|name| format!("'{name}'")).collect::<Vec<_>>().join(" | ")
}

/// `retry_after_ms` -> `retryAfterMs`, as the JS binding spells its keys.
fn camel(key: &str) -> String {
    retryplan::config::value::camel_case(key)
}
