//! Kotlin (and Swift), through uniffi: `bindings-kotlin/src/config.rs`, the
//! configuration records (`#[derive(uniffi::Record)]`, `uniffi::Enum` for a
//! `oneOf`) from the shapes of `tests/conformance/schema.json`, field for
//! field the JSON a configuration is written as (snake_case in Rust,
//! camelCase in Kotlin). They derive serde's `Serialize` and `Deserialize` in
//! that same JSON shape, so the binding converts them to and from the core's
//! configuration types through the core's one reader and writer, never field
//! by field.
//!
//! Types: an integer whose maximum is above `u32::MAX` (a time in ms) is
//! `i64` (Kotlin `Long`), any other `i32`; a set of names is the core's enum
//! (a uniffi remote enum of `generated.rs`), the HTTP methods of
//! `retry_methods` excepted (`String`, as `Policy.httpRequest` takes a
//! method), and names of no core enum are refused; a shape named in [`RECORDS`] is
//! that record wherever it appears. A property the schema does not require is
//! nullable (absent: the core's default or the enclosing section's value),
//! unless the schema gives its `default` (an empty list, false, `{}`, a
//! name): then it has that type's `Default`, which must be the schema's.

use std::collections::BTreeSet;

use crate::kotlin_prose::doc_line as doc;
use crate::output::{Output, HEADER};
use serde_json::Value;

use crate::schema::{name_set, NameSet, Object, Property, Schema, Shape};
use crate::tables::Table;

pub const CONFIG: &str = "bindings-kotlin/src/config.rs";

/// The records: `$defs` name, path of a property within it (`a.b`, `[]` for
/// a list's items) or none for the whole, and the record's name. A shape no
/// entry names and that is no scalar is refused: a new nested object needs
/// its line here.
const RECORDS: [(&str, &str, &str); 15] = [
    ("policyConfig", "", "PolicyConfig"),
    ("policyConfig", "attempt_timeout", "AttemptTimeoutConfig"),
    ("policyConfig", "backoff", "BackoffConfig"),
    ("policyConfig", "retry_on", "RetryOnConfig"),
    ("statusSet", "", "StatusSetConfig"),
    ("policyConfig", "server_guidance", "ServerGuidanceConfig"),
    ("policyConfig", "server_guidance.statuses[]", "StatusGuidanceConfig"),
    ("policyConfig", "retry_limits", "RetryLimitsConfig"),
    ("policyConfig", "hedging", "HedgingConfig"),
    ("policyConfig", "redelivery", "RedeliveryConfig"),
    ("policyConfig", "propagation", "PropagationConfig"),
    ("budgetConfig", "", "BudgetConfig"),
    ("breakerConfig", "trip", "TripConfig"),
    ("breakerConfig", "", "BreakerConfig"),
    ("dependencyConfig", "", "DependencyConfig"),
];

/// Shapes uniffi exports as the core's own type, restated here as a
/// `#[uniffi::remote(Enum)]` (uniffi checks the restatement against the real
/// type when it compiles): the path and the core's type. Numbers keep the
/// core's types (`u64` for a time, `u32` for a count).
const CORE_TYPES: [(&str, &str, &str, &str); 1] =
    [("policyConfig", "jitter", "JitterConfig", "retryplan::policy::JitterConfig")];

struct Named {
    name: &'static str,
    shape: Shape,
    doc: Option<String>,
    /// The core's own type's path (restated as a remote enum), or none: a record of the binding's.
    core: Option<&'static str>,
}

/// The shape at `path` within `$defs.<def>`, and its title.
fn at(schema: &Schema, def: &str, path: &str) -> Result<(Shape, Option<String>), String> {
    let mut shape = schema.def(def)?;
    let mut doc = schema.def_title(def);
    for step in path.split('.').filter(|step| !step.is_empty()) {
        let (key, items) = match step.strip_suffix("[]") {
            Some(key) => (key, true),
            None => (step, false),
        };
        let Shape::Object(object) = shape else { return Err(format!("$defs.{def}.{path}: {key} is not in an object")) };
        let property = object.properties.into_iter().find(|p| p.name == key);
        let property = property.ok_or_else(|| format!("$defs.{def} has no property {path}"))?;
        doc = property.title;
        shape = property.shape;
        if items {
            let Shape::Array(item) = shape else { return Err(format!("$defs.{def}.{path}: {key} is not a list")) };
            shape = *item;
            doc = None;
        }
    }
    Ok((shape, doc))
}

pub fn outputs(tables: &[Table], schema: &Schema) -> Result<Vec<Output>, String> {
    let mut named = Vec::new();
    for (def, path, name) in RECORDS {
        let (shape, doc) = at(schema, def, path)?;
        named.push(Named { name, shape, doc, core: None });
    }
    for (def, path, name, rust_path) in CORE_TYPES {
        let (shape, _) = at(schema, def, path)?;
        named.push(Named { name, shape, doc: None, core: Some(rust_path) });
    }
    let mut writer = Writer { tables, named: &named, used: BTreeSet::new() };
    let mut body = String::new();
    for item in &named {
        body.push('\n');
        body.push_str(&doc("", item.doc.as_deref().unwrap_or("")));
        body.push_str(&match item.core {
            None => writer.item(item)?,
            Some(path) => {
                writer.used.insert(path);
                writer.remote(item)?
            }
        });
    }
    let mut text = format!(
        "// {HEADER}\n//! The configuration records, field for field the JSON shapes of\n\
         //! tests/conformance/schema.json; serde reads and writes them in that shape, and\n\
         //! the binding converts them through the core's one reader (see `policy.rs`).\n\n\
         use serde::{{Deserialize, Serialize}};\n\n"
    );
    let mut used: Vec<&str> = writer.used.iter().copied().collect();
    used.sort_by_key(|path| path.chars().map(|c| (c.is_ascii_uppercase(), c.to_ascii_lowercase())).collect::<Vec<_>>());
    for path in used {
        text.push_str(&format!("use {path};\n"));
    }
    text.push_str(&body);
    Ok(vec![Output { path: CONFIG, text }])
}

struct Writer<'a> {
    tables: &'a [Table],
    named: &'a [Named],
    /// The Rust paths of the core types the records use.
    used: BTreeSet<&'static str>,
}

/// How a property reads when absent.
enum Absent {
    /// Required.
    No,
    /// `Option`, `None`.
    Null,
    /// The type's `Default` (an empty list, false, the core enum's default).
    Default { uniffi: bool },
}

impl Writer<'_> {
    fn item(&mut self, item: &Named) -> Result<String, String> {
        match &item.shape {
            Shape::Object(object) => {
                let fields = self.fields(object, item.name, "    ", "pub ")?;
                let default = if object.required.is_empty() { "Default, " } else { "" };
                Ok(format!(
                    "#[derive(Clone, Debug, {default}PartialEq, Serialize, Deserialize, uniffi::Record)]\n\
                     pub struct {} {{\n{fields}}}\n",
                    item.name
                ))
            }
            Shape::OneOf(variants) => self.one_of(variants, item.name),
            other => Err(format!("{} is neither an object nor a oneOf: {other:?}", item.name)),
        }
    }

    /// A `oneOf` of objects: tagged by `kind` (a struct variant each), or
    /// objects of one key each (a one-value variant named after the key).
    fn one_of(&mut self, variants: &[Shape], name: &str) -> Result<String, String> {
        let objects: Vec<&Object> =
            variants.iter().filter_map(|v| if let Shape::Object(o) = v { Some(o) } else { None }).collect();
        if objects.len() != variants.len() {
            return Err(format!("{name}: a oneOf of other shapes than objects"));
        }
        let tagged = objects.iter().all(|o| o.properties.iter().any(|p| p.name == "kind"));
        let mut text = String::from("#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, uniffi::Enum)]\n");
        text.push_str(if tagged {
            "#[serde(tag = \"kind\", rename_all = \"snake_case\")]\n"
        } else {
            "#[serde(rename_all = \"snake_case\")]\n"
        });
        text.push_str(&format!("pub enum {name} {{\n"));
        for object in objects {
            text.push_str(&doc("    ", object.description.as_deref().unwrap_or("")));
            if tagged {
                let kind = object.properties.iter().find(|p| p.name == "kind");
                let Some(Property { shape: Shape::Names(kinds), .. }) = kind else {
                    return Err(format!("{name}: a kind that is not a name"));
                };
                let [kind] = kinds.as_slice() else { return Err(format!("{name}: a variant of several kinds")) };
                let rest = Object {
                    properties: object.properties.iter().filter(|p| p.name != "kind").cloned().collect(),
                    required: object.required.clone(),
                    description: None,
                };
                if rest.properties.is_empty() {
                    text.push_str(&format!("    {},\n", pascal(kind)));
                } else if let Some(line) = self.inline_variant(&pascal(kind), &rest, name)? {
                    text.push_str(&line);
                } else {
                    let fields = self.fields(&rest, name, "        ", "")?;
                    text.push_str(&format!("    {} {{\n{fields}    }},\n", pascal(kind)));
                }
            } else {
                let [property] = object.properties.as_slice() else {
                    return Err(format!("{name}: an untagged variant of several keys"));
                };
                let ty = self.ty(&property.shape, &property.name, name)?;
                text.push_str(&doc("    ", property.description.as_deref().unwrap_or("")));
                text.push_str(&format!("    {}({ty}),\n", pascal(&property.name)));
            }
        }
        text.push_str("}\n");
        Ok(text)
    }

    /// A struct variant on one line, as rustfmt writes it (this workspace's
    /// `max_width` 120 with `use_small_heuristics = "Max"`), when no field
    /// carries a doc or an attribute and the line fits.
    fn inline_variant(&mut self, variant: &str, object: &Object, defining: &str) -> Result<Option<String>, String> {
        let plain = object
            .properties
            .iter()
            .all(|p| p.description.is_none() && !p.deprecated && object.required.contains(&p.name));
        if !plain {
            return Ok(None);
        }
        let mut fields = Vec::new();
        for property in &object.properties {
            fields.push(format!("{}: {}", property.name, self.ty(&property.shape, &property.name, defining)?));
        }
        let line = format!("    {variant} {{ {} }},\n", fields.join(", "));
        Ok((line.len() <= 121).then_some(line))
    }

    /// A `oneOf` tagged by `kind` restated as the core's enum: a unit
    /// variant per name of a variant with no other key, a struct variant
    /// (fields in the core's types) per other.
    fn remote(&mut self, item: &Named) -> Result<String, String> {
        let Shape::OneOf(variants) = &item.shape else { return Err(format!("{}: not a oneOf", item.name)) };
        let mut text = format!("#[uniffi::remote(Enum)]\npub enum {} {{\n", item.name);
        for variant in variants {
            let Shape::Object(object) = variant else {
                return Err(format!("{}: a variant that is no object", item.name));
            };
            let kind = object.properties.iter().find(|p| p.name == "kind");
            let Some(Property { shape: Shape::Names(kinds), .. }) = kind else {
                return Err(format!("{}: a variant without a kind", item.name));
            };
            text.push_str(&doc("    ", object.description.as_deref().unwrap_or("")));
            let fields: Vec<String> = object
                .properties
                .iter()
                .filter(|p| p.name != "kind")
                .map(|p| {
                    let ty = match p.shape {
                        Shape::Integer { long: true } => "u64",
                        Shape::Integer { long: false } => "u32",
                        Shape::Number => "f64",
                        Shape::Boolean | Shape::True => "bool",
                        _ => return Err(format!("{}.{}: not a number or a flag", item.name, p.name)),
                    };
                    Ok(format!("{}: {ty}", p.name))
                })
                .collect::<Result<_, String>>()?;
            for kind in kinds {
                if fields.is_empty() {
                    text.push_str(&format!("    {},\n", pascal(kind)));
                } else {
                    // One field a line: what rustfmt writes for this enum.
                    let fields: String = fields.iter().map(|field| format!("        {field},\n")).collect();
                    text.push_str(&format!("    {} {{\n{fields}    }},\n", pascal(kind)));
                }
            }
        }
        text.push_str("}\n");
        Ok(text)
    }

    /// An object's fields, one a line, each with its doc and attributes.
    fn fields(&mut self, object: &Object, defining: &str, indent: &str, vis: &str) -> Result<String, String> {
        let mut text = String::new();
        for property in &object.properties {
            // An old name is no use in a record whose new name is a required
            // field: both would always be given. Such records take the new name only.
            if property.deprecated && !object.required.is_empty() {
                continue;
            }
            let mut ty = self.ty(&property.shape, &property.name, defining)?;
            let absent = if object.required.contains(&property.name) {
                Absent::No
            } else {
                match &property.default {
                    None => Absent::Null,
                    // uniffi writes Kotlin's default for these (emptyList(), false, a record of defaults), not for a name.
                    Some(Value::String(_)) => Absent::Default { uniffi: false },
                    Some(_) => Absent::Default { uniffi: true },
                }
            };
            let mut docs = property.description.clone().unwrap_or_default();
            if property.deprecated {
                docs = format!("Deprecated: {docs}");
            }
            text.push_str(&doc(indent, &docs));
            match absent {
                Absent::No => {}
                Absent::Null => {
                    ty = format!("Option<{ty}>");
                    text.push_str(&format!(
                        "{indent}#[serde(default, skip_serializing_if = \"Option::is_none\")]\n{indent}#[uniffi(default)]\n"
                    ));
                }
                Absent::Default { uniffi } => {
                    text.push_str(&format!("{indent}#[serde(default)]\n"));
                    if uniffi {
                        text.push_str(&format!("{indent}#[uniffi(default)]\n"));
                    }
                }
            }
            text.push_str(&format!("{indent}{vis}{}: {ty},\n", property.name));
        }
        Ok(text)
    }

    /// The Rust type of `shape` at property `key`, within the record `defining`.
    fn ty(&mut self, shape: &Shape, key: &str, defining: &str) -> Result<String, String> {
        if let Some(named) = self.named.iter().find(|named| named.shape == *shape && named.name != defining) {
            if let Some(path) = named.core {
                self.used.insert(path);
            }
            return Ok(named.name.to_owned());
        }
        Ok(match shape {
            Shape::Integer { long: true } => "i64".into(),
            Shape::Integer { long: false } => "i32".into(),
            Shape::Number => "f64".into(),
            Shape::Boolean | Shape::True => "bool".into(),
            Shape::String => "String".into(),
            Shape::Names(names) => match name_set(names, self.tables) {
                NameSet::Table(table) | NameSet::Within(table) if table.mirrors.kotlin => {
                    self.used.insert(table.rust_path);
                    table.ident.to_owned()
                }
                NameSet::Table(table) | NameSet::Within(table) => {
                    return Err(format!("{defining}.{key}: {} is not exported to uniffi (tables.rs)", table.ident))
                }
                // The HTTP methods of `retry_methods`: a `String`, as every other method a Kotlin user passes
                // (`Policy.httpRequest(request.method(), ...)` takes whatever OkHttp's or the JDK's request holds,
                // PROPFIND included), so one concept keeps one type; the core refuses a method it does not know.
                NameSet::Listed if names.iter().map(String::as_str).eq(retryplan::policy::RETRY_METHODS) => {
                    "String".into()
                }
                NameSet::Listed => {
                    let names = names.join(", ");
                    return Err(format!(
                        "{defining}.{key}: names of no core table ({names}): give them a core enum in tables.rs"
                    ));
                }
            },
            Shape::Array(items) => format!("Vec<{}>", self.ty(items, key, defining)?),
            Shape::Object(_) | Shape::OneOf(_) | Shape::Any => {
                return Err(format!("{defining}.{key}: a shape with no record: name it in uniffi_config.rs RECORDS"))
            }
        })
    }
}

/// `full_then_cap` -> `FullThenCap`.
fn pascal(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}
