//! Python: `_enums.py` whole (the public `str` enums) and `_config_types.pyi`
//! (a `Literal` of each table's names, and a `TypedDict` per configuration
//! shape so that `Policy(**fields: Unpack[PolicyFields])` is checked by mypy).
//!
//! The `TypedDict`s describe what the constructors accept, from the schema's
//! shapes (which are what `to_dict` writes): every key optional (the core
//! fills defaults and names a missing one at run time), a `oneOf` of objects
//! merged into one dict of all their keys, and each set of names widened to
//! the smallest core table holding them (the schema lists only the
//! non-default names a policy writes; a caller may pass any); names of no
//! table (the HTTP methods the core accepts) are a `Literal` of the schema's
//! list, which the core checks again. A `kind` keeps
//! the schema's names: it picks the shape.

use std::collections::BTreeSet;

use crate::output::{Output, HEADER};
use crate::python_prose::python_prose;
use crate::schema::{name_set, NameSet, Object, Property, Schema, Shape};
use crate::tables::{Py, Table};

pub const ENUMS: &str = "bindings-python/python/retryplan/_enums.py";
pub const CONFIG_TYPES: &str = "bindings-python/python/retryplan/_config_types.pyi";

/// The configurations the constructors take as keyword arguments: `$defs` name and `TypedDict` name
/// (a part before the whole, which reuses it).
const CONFIGS: [(&str, &str); 4] = [
    ("policyConfig", "PolicyFields"),
    ("budgetConfig", "BudgetFields"),
    ("breakerConfig", "BreakerFields"),
    ("dependencyConfig", "DependencyFields"),
];

pub fn outputs(tables: &[Table], schema: &Schema) -> Result<Vec<Output>, String> {
    Ok(vec![
        Output { path: ENUMS, text: enums(tables) },
        Output { path: CONFIG_TYPES, text: config_types(tables, schema)? },
    ])
}

/// A docstring literal for `text` (the core's Rust names as Python spells them, backticks as reST literals).
fn docstring(text: &str, indent: &str) -> String {
    let text = python_prose(text).replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"").replace('`', "``");
    format!("{indent}\"\"\"{text}\"\"\"\n")
}

fn enums(tables: &[Table]) -> String {
    let enums: Vec<&Table> = tables.iter().filter(|table| table.mirrors.py == Py::Enum).collect();
    let mut all: Vec<&str> = enums.iter().map(|table| table.ident).collect();
    all.sort_unstable();
    let mut text = format!(
        "# {HEADER}\n\"\"\"String enums for the engine's stable snake_case names.\n\n\
         Every member is also a ``str`` equal to the engine's name, so plain strings\n\
         work wherever a member is accepted, and members compare equal to strings.\n\"\"\"\n\n\
         from enum import Enum\n\n__all__ = [{}]\n\n\n\
         class _StrEnum(str, Enum):\n    \"\"\"A str-valued Enum whose ``str()`` is its value on every Python version.\"\"\"\n\n\
         \x20   def __str__(self) -> str:\n        return str(self.value)\n",
        all.iter().map(|name| format!("\"{name}\"")).collect::<Vec<_>>().join(", ")
    );
    for table in enums {
        text.push_str(&format!("\n\nclass {}(_StrEnum):\n", table.ident));
        text.push_str(&docstring(&table.doc, "    "));
        text.push('\n');
        for variant in &table.variants {
            text.push_str(&format!("    {} = \"{}\"\n", variant.name.to_uppercase(), variant.name));
            if !variant.doc.is_empty() {
                text.push_str(&docstring(&variant.doc, "    "));
            }
        }
    }
    text
}

/// What the `TypedDict`s are built from, and what they have used.
struct Writer<'a> {
    tables: &'a [Table],
    /// Tables whose `Literal` alias the dicts use.
    used: BTreeSet<&'static str>,
    /// Every `TypedDict` written: its name and its (merged) object.
    dicts: Vec<(String, Object)>,
    text: String,
}

impl Writer<'_> {
    /// The Python type of `shape`, at property `key` of the dict `context`.
    fn type_of(&mut self, shape: &Shape, key: &str, context: &str) -> String {
        match shape {
            Shape::Integer { .. } => "int".into(),
            Shape::Number => "float".into(),
            Shape::Boolean | Shape::True => "bool".into(),
            Shape::String => "str".into(),
            Shape::Any => "Any".into(),
            Shape::Names(names) => match name_set(names, self.tables) {
                // A `kind` picks the shape: its names are the schema's, never widened.
                NameSet::Within(_) if key == "kind" => literal(names),
                NameSet::Table(table) | NameSet::Within(table) => {
                    let (ident, py) = (table.ident, table.mirrors.py);
                    self.used.insert(ident);
                    if py == Py::Enum {
                        format!("Union[{ident}Name, {ident}]")
                    } else {
                        format!("{ident}Name")
                    }
                }
                // Names the core has no table for (a `kind`, the HTTP methods of `retry_methods`): the
                // schema's own list, which the reader refuses any other name than.
                NameSet::Listed => literal(names),
            },
            Shape::Array(items) => format!("Sequence[{}]", self.type_of(items, key, context)),
            Shape::Object(object) => self.dict(object.clone(), &format!("{context}{}", camel(key))),
            Shape::OneOf(variants) => {
                let objects: Vec<&Object> =
                    variants.iter().filter_map(|v| if let Shape::Object(o) = v { Some(o) } else { None }).collect();
                if objects.len() == variants.len() {
                    self.dict(merge(&objects), &format!("{context}{}", camel(key)))
                } else {
                    let types: Vec<String> = variants.iter().map(|v| self.type_of(v, key, context)).collect();
                    format!("Union[{}]", types.join(", "))
                }
            }
        }
    }

    /// Writes (once per distinct object) a `TypedDict` named `name`; returns its name.
    fn dict(&mut self, object: Object, name: &str) -> String {
        if let Some((existing, _)) = self.dicts.iter().find(|(_, written)| *written == object) {
            return existing.clone();
        }
        let mut body = String::new();
        for property in &object.properties {
            if let Some(description) = &property.description {
                body.push_str(&format!("    # {description}\n"));
            }
            let ty = self.type_of(&property.shape, &property.name, name);
            body.push_str(&format!("    {}: {ty}\n", property.name));
        }
        if body.is_empty() {
            body.push_str("    pass\n");
        }
        self.text.push_str(&format!("\nclass {name}(TypedDict, total=False):\n{body}"));
        self.dicts.push((name.to_owned(), object));
        name.to_owned()
    }
}

/// One object of every key of `objects` (a key in several: its shapes as a `oneOf`).
fn merge(objects: &[&Object]) -> Object {
    let mut properties: Vec<Property> = Vec::new();
    for property in objects.iter().flat_map(|object| &object.properties) {
        match properties.iter_mut().find(|p| p.name == property.name) {
            None => properties.push(property.clone()),
            Some(existing) if existing.shape == property.shape => {}
            Some(existing) => {
                let mut names: Vec<String> = Vec::new();
                for shape in [&existing.shape, &property.shape] {
                    if let Shape::Names(more) = shape {
                        names.extend(more.iter().cloned());
                    }
                }
                existing.shape = if names.is_empty() {
                    Shape::OneOf(vec![existing.shape.clone(), property.shape.clone()])
                } else {
                    Shape::Names(names)
                };
            }
        }
    }
    Object { properties, required: Vec::new(), description: None }
}

/// The stubs' name of a table's `Literal`: its ident and `Name` (`VerdictName`), or its ident when that is already
/// a name's (`ProfileName`, names without a Rust enum).
fn literal_name(ident: &str) -> String {
    if ident.ends_with("Name") {
        ident.to_owned()
    } else {
        format!("{ident}Name")
    }
}

fn literal(names: &[String]) -> String {
    format!("Literal[{}]", names.iter().map(|name| format!("\"{name}\"")).collect::<Vec<_>>().join(", "))
}

/// `retry_on` -> `RetryOn`.
fn camel(key: &str) -> String {
    key.split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

fn config_types(tables: &[Table], schema: &Schema) -> Result<String, String> {
    let mut writer = Writer { tables, used: BTreeSet::new(), dicts: Vec::new(), text: String::new() };
    for (def, name) in CONFIGS {
        let shape = schema.def(def)?;
        let object = match shape {
            Shape::Object(object) => object,
            Shape::OneOf(variants) => {
                let objects: Vec<&Object> =
                    variants.iter().filter_map(|v| if let Shape::Object(o) = v { Some(o) } else { None }).collect();
                merge(&objects)
            }
            other => return Err(format!("$defs.{def} is not an object: {other:?}")),
        };
        // The top-level name is fixed: a nested copy of the same shape reuses it.
        let mut nested =
            Writer { tables, used: BTreeSet::new(), dicts: std::mem::take(&mut writer.dicts), text: String::new() };
        let written = nested.dict(object, name);
        if written != name {
            return Err(format!("$defs.{def} has the same shape as {written}"));
        }
        writer.dicts = nested.dicts;
        writer.used.extend(nested.used);
        writer.text.push_str(&nested.text);
    }
    let mut text = format!(
        "# {HEADER}\n\"\"\"Types of the engine's names and of the configurations its constructors take.\n\n\
         Stubs only (no module at run time): ``_native.pyi`` types ``Policy(**fields)``\n\
         and the controls' constructors with them.\n\"\"\"\n\n\
         from typing import Any, Literal, Sequence, TypedDict, Union\n\n"
    );
    let enum_classes: Vec<&str> =
        tables.iter().filter(|t| t.mirrors.py == Py::Enum && writer.used.contains(t.ident)).map(|t| t.ident).collect();
    if !enum_classes.is_empty() {
        text.push_str(&format!("from ._enums import {}\n\n", enum_classes.join(", ")));
    }
    for table in tables.iter().filter(|t| t.mirrors.py != Py::No || writer.used.contains(t.ident)) {
        let names: Vec<String> = table.names().iter().map(|name| (*name).to_owned()).collect();
        text.push_str(&format!("{} = {}\n", literal_name(table.ident), literal(&names)));
        text.push_str(&docstring(&table.doc, ""));
    }
    text.push_str(&writer.text);
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_of_merges_its_keys_and_joins_their_names() {
        let property = |name: &str, shape: Shape| Property {
            name: name.into(),
            shape,
            description: None,
            title: None,
            deprecated: false,
            default: None,
        };
        let object = |properties| Object { properties, required: Vec::new(), description: None };
        let a = object(vec![property("kind", Shape::Names(vec!["a".into()]))]);
        let b = object(vec![property("kind", Shape::Names(vec!["b".into()])), property("ratio", Shape::Number)]);
        let merged = merge(&[&a, &b]);
        assert_eq!(merged.properties.len(), 2);
        assert_eq!(merged.properties[0].shape, Shape::Names(vec!["a".into(), "b".into()]));
        assert_eq!(camel("retry_on"), "RetryOn");
    }
}
