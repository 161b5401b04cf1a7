//! Python: `_values.py`, the plain values the engine hands back (`classify`,
//! `admit`, `redeliver`, `explain`), each typed from the core's type it
//! serializes: a property per field (with the field's doc), `kind` reading
//! an enum's serde tag (a `Literal` of its variants' names), a field not in
//! every variant optional. The base classes and what a class adds beyond
//! its fields (an admission's `admitted`, a timeline's warnings in words)
//! are the package's own (`_data.py`).
//!
//! A field of a type with no Python type here fails the generator, naming it.

use std::path::Path;

use crate::docs::{self, Field};
use crate::output::{Output, HEADER};
use crate::python_prose::{python_prose, snake};
use crate::python_records::docstring;
use crate::tables::Table;

pub const VALUES: &str = "bindings-python/python/retryplan/_values.py";

/// Each value: the core's type, its file, its Python name and its base in `_data.py`.
const VALUES_MIRRORED: [(&str, &str, &str, &str); 4] = [
    ("Admission", "core/src/ground/deadline.rs", "Admission", "AdmissionData"),
    ("Class", "core/src/outcomes/classify.rs", "Classification", "Data"),
    ("Redelivery", "core/src/engine/redelivery.rs", "Redelivery", "Data"),
    ("Timeline", "core/src/tools/timeline.rs", "Timeline", "TimelineData"),
];

/// One class: its doc, the serde tag and variant names of an enum, its fields (each with `optional`).
struct Class {
    name: &'static str,
    base: &'static str,
    doc: String,
    tag: Option<(String, Vec<String>)>,
    fields: Vec<(Field, bool)>,
}

pub fn output(root: &Path, tables: &[Table]) -> Result<Output, String> {
    let mut classes = Vec::new();
    for (ident, source, name, base) in VALUES_MIRRORED {
        let path = root.join(source);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{source}: {e}"))?;
        let file = syn::parse_file(&text).map_err(|e| format!("{source}: {e}"))?;
        let skipped = skipped_when_empty(&file, ident);
        let class = match serde_tag(&file, ident) {
            Some(tag) => {
                let variants = docs::enum_records(&path, ident)?;
                let names = variants.iter().map(|variant| snake(&variant.ident)).collect();
                let mut fields: Vec<(Field, bool)> = Vec::new();
                for field in variants.iter().flat_map(|variant| &variant.fields) {
                    if fields.iter().all(|(known, _)| known.name != field.name) {
                        let with = |variant: &&docs::Record| variant.fields.iter().any(|f| f.name == field.name);
                        let carriers: Vec<String> =
                            variants.iter().filter(with).map(|v| format!("`{}`", snake(&v.ident))).collect();
                        let always = carriers.len() == variants.len();
                        let doc = if always {
                            field.doc.clone()
                        } else {
                            format!("{} ({} only).", field.doc.trim_end_matches('.'), carriers.join(", "))
                        };
                        let optional = !always || skipped.contains(&field.name);
                        fields.push((Field { doc, ..field.clone() }, optional));
                    }
                }
                let doc = docs::enum_docs(&path, ident)?.summary;
                Class { name, base, doc, tag: Some((tag, names)), fields }
            }
            None => {
                let record = docs::struct_record(&path, ident)?;
                let fields = record.fields.into_iter().map(|field| {
                    let optional = skipped.contains(&field.name);
                    (field, optional)
                });
                let fields = fields.collect();
                Class { name, base, doc: record.doc, tag: None, fields }
            }
        };
        classes.push(class);
    }
    Ok(Output { path: VALUES, text: text(&classes, tables)? })
}

/// The fields of enum or struct `ident` that serde leaves out when empty
/// (`skip_serializing_if`): a dict read from the core may lack them, so they
/// are optional in Python wherever they appear.
fn skipped_when_empty(file: &syn::File, ident: &str) -> Vec<String> {
    let fields: Vec<&syn::Field> = file
        .items
        .iter()
        .flat_map(|item| match item {
            syn::Item::Enum(item) if item.ident == ident => item.variants.iter().flat_map(|v| &v.fields).collect(),
            syn::Item::Struct(item) if item.ident == ident => item.fields.iter().collect(),
            _ => Vec::new(),
        })
        .collect();
    let skips = |attr: &syn::Attribute| {
        let mut found = false;
        if attr.path().is_ident("serde") {
            let _ = attr.parse_nested_meta(|meta| {
                found |= meta.path.is_ident("skip_serializing_if");
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                }
                Ok(())
            });
        }
        found
    };
    fields
        .into_iter()
        .filter(|field| field.attrs.iter().any(skips))
        .filter_map(|field| field.ident.as_ref().map(ToString::to_string))
        .collect()
}

/// The `tag` of `#[serde(tag = "...")]` on enum `ident`, if it is a tagged enum.
fn serde_tag(file: &syn::File, ident: &str) -> Option<String> {
    let item = file.items.iter().find_map(|item| match item {
        syn::Item::Enum(item) if item.ident == ident => Some(item),
        _ => None,
    })?;
    let mut tag = None;
    for attr in item.attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") {
                tag = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::LitStr>()?;
            }
            Ok(())
        });
    }
    tag
}

/// A field's annotation and its `field(...)` arguments after the doc.
fn python(field: &Field, optional: bool, tables: &[Table]) -> Result<(String, String), String> {
    let named = tables.iter().any(|table| table.ident == field.ty);
    let (annotation, read) = match field.ty.as_str() {
        "u32" | "u64" => ("int", ""),
        "bool" => ("bool", ""),
        "Option<u64>" => ("Optional[int]", ""),
        "Decision" => ("Decision", ", read=\"decision\""),
        ty if ty.starts_with("Vec<") => ("List[Dict[str, Any]]", ", read=\"copy\""),
        _ if named => ("str", ""),
        other => return Err(format!("value field `{}`: no Python type for `{other}` (python_values)", field.name)),
    };
    let optional = optional || annotation.starts_with("Optional");
    Ok(match (optional, annotation) {
        (true, "bool") => ("bool".to_owned(), format!(", default=False{read}")),
        (true, annotation) if !annotation.starts_with("Optional") => {
            (format!("Optional[{annotation}]"), format!(", default=None{read}"))
        }
        (true, annotation) => (annotation.to_owned(), format!(", default=None{read}")),
        (false, annotation) => (annotation.to_owned(), read.to_owned()),
    })
}

/// `name: annotation = field(doc, ...)`, on one line when it fits, else the doc in pieces of a few words.
fn declaration(name: &str, annotation: &str, doc: &str, arguments: &str) -> String {
    let doc = python_prose(doc).replace('\\', "\\\\").replace('"', "\\\"").replace('`', "``");
    let line = format!("    {name}: {annotation} = field(\"{doc}\"{arguments})\n");
    if line.len() <= 121 {
        return line;
    }
    let mut pieces = vec![String::new()];
    for word in doc.split(' ') {
        let piece = pieces.last_mut().filter(|piece| piece.len() + word.len() < 100);
        match piece {
            Some(piece) => piece.push_str(&format!("{word} ")),
            None => pieces.push(format!("{word} ")),
        }
    }
    let last = pieces.len() - 1;
    let mut text = format!("    {name}: {annotation} = field(\n");
    for (index, piece) in pieces.iter().enumerate() {
        match index == last {
            true => text.push_str(&format!("        \"{}\",\n", piece.trim_end())),
            false => text.push_str(&format!("        \"{piece}\"\n")),
        }
    }
    let arguments = arguments.trim_start_matches(", ");
    if !arguments.is_empty() {
        text.push_str(&format!("        {arguments},\n"));
    }
    text.push_str("    )\n");
    text
}

fn text(classes: &[Class], tables: &[Table]) -> Result<String, String> {
    let mut names: Vec<&str> = classes.iter().map(|class| class.name).collect();
    names.sort_unstable();
    let all: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    let mut text = format!(
        "# {HEADER}\n\"\"\"Values the engine hands back that hold no engine state, typed from the core's: \
         their JSON form, frozen,\ncompared by their fields, ``to_dict()`` returning the JSON form again. \
         The engine builds them (``classify``,\n``admit``, ``redeliver``, ``explain``); there is nothing to \
         construct by hand.\n\"\"\"\n\nfrom __future__ import annotations\n\n\
         from ._data import AdmissionData, Data, TimelineData, field\n\nTYPE_CHECKING = False\n\
         if TYPE_CHECKING:  # pragma: no cover\n    from typing import Any, Dict, List, Literal, Optional\n\n    \
         from ._native import Decision\n\n__all__ = [{}]\n",
        all.join(", ")
    );
    for class in classes {
        text.push_str(&format!("\n\nclass {}({}):\n", class.name, class.base));
        text.push_str(&docstring(&class.doc, "    "));
        text.push_str("\n    __slots__ = ()\n");
        if let Some((tag, variants)) = &class.tag {
            let quoted: Vec<String> = variants.iter().map(|name| format!("\"{name}\"")).collect();
            let doc = format!("Which: {}.", variants.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", "));
            let annotation = format!("Literal[{}]", quoted.join(", "));
            text.push_str(&format!("    _tag = \"{tag}\"\n"));
            text.push_str(&declaration("kind", &annotation, &doc, &format!(", \"{tag}\"")));
        }
        for (field_, optional) in &class.fields {
            let (annotation, arguments) = python(field_, *optional, tables)?;
            text.push_str(&declaration(&field_.name, &annotation, &field_.doc, &arguments));
        }
    }
    let names = names.join(", ");
    text.push_str(&format!("\n\nfor _class in ({names}):\n    _class.__module__ = \"retryplan\"\n"));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field serde leaves out when empty is found on a struct and on an
    /// enum's variants, and no other field is.
    #[test]
    fn fields_left_out_when_empty_are_found() {
        let file: syn::File = syn::parse_str(
            "struct S { #[serde(default, skip_serializing_if = \"Option::is_none\")] a: Option<u64>, #[serde(default)] b: u64 }
             enum E { V { #[serde(skip_serializing_if = \"is_false\")] c: bool, d: u64 }, W }",
        )
        .unwrap();
        assert_eq!(skipped_when_empty(&file, "S"), ["a"]);
        assert_eq!(skipped_when_empty(&file, "E"), ["c"]);
        assert!(skipped_when_empty(&file, "Missing").is_empty());
    }

    /// A field in some variants only is optional, named with them; a field of a type with no Python type
    /// stops the generator, naming it.
    #[test]
    fn each_class_has_its_core_types_fields() {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let text = output(&root, &tables).unwrap().text;
        let reject =
            "    minimum_useful_ms: Optional[int] = field(\"The least time the work needs (``reject`` only).\"";
        assert!(text.contains(reject), "{text}");
        assert!(text.contains(
            "    kind: Literal[\"admit\", \"reject\"] = field(\"Which: ``admit``, ``reject``.\", \"type\")\n"
        ));
        let field = |ty: &str| Field { name: "jitter_ms".into(), ty: ty.into(), doc: "Drawn.".into() };
        assert_eq!(python(&field("u64"), false, &tables).unwrap().0, "int");
        let optional = ("Optional[int]".to_owned(), ", default=None".to_owned());
        assert_eq!(python(&field("u64"), true, &tables).unwrap(), optional);
        assert!(python(&field("Instant"), false, &tables).unwrap_err().contains("`Instant`"));
    }
}
