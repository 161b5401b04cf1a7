//! Doc text from the core's doc comments: the source parsed with `syn`, an
//! enum found by its ident, each variant's doc by the variant's ident.
//!
//! A mirror carries the first paragraph of each doc (the summary), with
//! rustdoc's links reduced to their text: `` [`Policy`](crate::Policy) `` reads
//! "`Policy`" in every language.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// An enum's summary and each variant's, by variant ident.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnumDocs {
    pub summary: String,
    pub variants: BTreeMap<String, String>,
}

/// A record of named fields (a struct, or an enum's variant): its summary and its fields, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub ident: String,
    pub doc: String,
    pub fields: Vec<Field>,
}

/// One named field: its name, its Rust type as written (`Option<u64>`) and its summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub ty: String,
    pub doc: String,
}

/// The Rust file `path`, parsed.
fn parse(path: &Path) -> Result<syn::File, String> {
    let source = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))
}

/// Each variant of enum `ident` in the Rust file `path` as a record (a unit variant: no fields).
pub fn enum_records(path: &Path, ident: &str) -> Result<Vec<Record>, String> {
    let file = parse(path)?;
    let item = find_enum(&file.items, ident).ok_or_else(|| format!("{}: no enum {ident}", path.display()))?;
    Ok(item.variants.iter().map(|v| record(&v.ident, &v.attrs, &v.fields)).collect())
}

/// The struct `ident` in the Rust file `path` as a record.
pub fn struct_record(path: &Path, ident: &str) -> Result<Record, String> {
    let file = parse(path)?;
    file.items
        .iter()
        .find_map(|item| match item {
            syn::Item::Struct(item) if item.ident == ident => Some(record(&item.ident, &item.attrs, &item.fields)),
            _ => None,
        })
        .ok_or_else(|| format!("{}: no struct {ident}", path.display()))
}

fn record(ident: &syn::Ident, attrs: &[syn::Attribute], fields: &syn::Fields) -> Record {
    let fields = fields
        .iter()
        .filter(|field| !serde_skipped(&field.attrs))
        .filter_map(|field| {
            let name = field.ident.as_ref()?.to_string();
            Some(Field { name, ty: type_name(&field.ty), doc: summary(&field.attrs) })
        })
        .collect();
    Record { ident: ident.to_string(), doc: summary(attrs), fields }
}

/// Whether a field is `#[serde(skip)]`: not in the record's serialized form, so
/// not in any binding's mirror of it (the core's own bookkeeping, such as
/// `EndingResult::held`, which the host knows already).
pub(crate) fn serde_skipped(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|attr| attr.path().is_ident("serde")).any(|attr| {
        let mut skipped = false;
        let _ = attr.parse_nested_meta(|meta| {
            skipped |= meta.path.is_ident("skip");
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?; // another setting's value (`skip_serializing_if = ".."`)
            }
            Ok(())
        });
        skipped
    })
}

/// A type as written, without spaces or leading path: `Option<u64>`, `AttemptSet`, `&str`; `?` for another type.
pub(crate) fn type_name(ty: &syn::Type) -> String {
    if let syn::Type::Reference(reference) = ty {
        return format!("&{}", type_name(&reference.elem));
    }
    let syn::Type::Path(path) = ty else { return "?".to_owned() };
    let Some(last) = path.path.segments.last() else { return "?".to_owned() };
    let mut name = last.ident.to_string();
    if let syn::PathArguments::AngleBracketed(generics) = &last.arguments {
        let arguments: Vec<String> = generics
            .args
            .iter()
            .map(|argument| match argument {
                syn::GenericArgument::Type(ty) => type_name(ty),
                _ => "?".to_owned(),
            })
            .collect();
        name.push_str(&format!("<{}>", arguments.join(", ")));
    }
    name
}

/// The docs of enum `ident` in the Rust file `path`.
pub fn enum_docs(path: &Path, ident: &str) -> Result<EnumDocs, String> {
    let file = parse(path)?;
    find_enum(&file.items, ident)
        .map(|item| EnumDocs {
            summary: summary(&item.attrs),
            variants: item.variants.iter().map(|v| (v.ident.to_string(), summary(&v.attrs))).collect(),
        })
        .ok_or_else(|| format!("{}: no enum {ident}", path.display()))
}

/// The summary of the `const` (or `static`) `ident` in the Rust file `path`.
pub fn const_summary(path: &Path, ident: &str) -> Result<String, String> {
    let file = parse(path)?;
    file.items
        .iter()
        .find_map(|item| match item {
            syn::Item::Const(item) if item.ident == ident => Some(summary(&item.attrs)),
            _ => None,
        })
        .ok_or_else(|| format!("{}: no const {ident}", path.display()))
}

/// The summary of the associated const `ident` in an `impl {self_type}` block of the Rust file `path`.
pub fn associated_const_summary(path: &Path, self_type: &str, ident: &str) -> Result<String, String> {
    let file = parse(path)?;
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Impl(block) if block.trait_.is_none() => Some(block),
            _ => None,
        })
        .filter(|block| matches!(&*block.self_ty, syn::Type::Path(p) if p.path.is_ident(self_type)))
        .flat_map(|block| &block.items)
        .find_map(|item| match item {
            syn::ImplItem::Const(item) if item.ident == ident => Some(summary(&item.attrs)),
            _ => None,
        })
        .ok_or_else(|| format!("{}: no const {self_type}::{ident}", path.display()))
}

fn find_enum<'a>(items: &'a [syn::Item], ident: &str) -> Option<&'a syn::ItemEnum> {
    items.iter().find_map(|item| match item {
        syn::Item::Enum(item) if item.ident == ident => Some(item),
        syn::Item::Mod(module) => module.content.as_ref().and_then(|(_, items)| find_enum(items, ident)),
        _ => None,
    })
}

/// The first paragraph of the `///` lines among `attrs`, on one line.
pub(crate) fn summary(attrs: &[syn::Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        if let syn::Meta::NameValue(syn::MetaNameValue {
            value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }),
            ..
        }) = &attr.meta
        {
            lines.push(text.value());
        }
    }
    let text: Vec<&str> = lines
        .iter()
        .map(|line| line.trim())
        .skip_while(|line| line.is_empty())
        .take_while(|line| !line.is_empty())
        .collect();
    plain_links(&text.join(" "))
}

/// rustdoc links reduced to their text: `[text](target)` and `[text]` read `text`.
pub fn plain_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let label = &after[..close];
        let tail = &after[close + 1..];
        let linked_target = tail.strip_prefix('(').and_then(|t| t.find(')').map(|end| &t[end + 1..]));
        if let Some(after_target) = linked_target {
            out.push_str(label);
            rest = after_target;
        } else if label.starts_with('`') && label.ends_with('`') && label.len() > 1 {
            out.push_str(label);
            rest = tail;
        } else {
            out.push('[');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_read_as_their_text() {
        assert_eq!(plain_links("A policy ([`PolicyConfig`](crate::PolicyConfig))."), "A policy (`PolicyConfig`).");
        assert_eq!(plain_links("See [`Blame`] and [the table](x)."), "See `Blame` and the table.");
        assert_eq!(plain_links("In [0, 1] or 1..=4"), "In [0, 1] or 1..=4");
    }

    #[test]
    fn a_record_has_its_fields_types_as_written_and_docs() {
        let file = syn::parse_file(
            "/// A kind.\nenum K {\n/// Waits.\nWait {\n/// Until.\nuntil_ms: Option<u64>,\nset: crate::AttemptSet,\n},\nEnd,\n}",
        )
        .unwrap();
        let item = find_enum(&file.items, "K").unwrap();
        let records: Vec<Record> = item.variants.iter().map(|v| record(&v.ident, &v.attrs, &v.fields)).collect();
        assert_eq!((records[0].ident.as_str(), records[0].doc.as_str()), ("Wait", "Waits."));
        let field = |name: &str, ty: &str, doc: &str| Field { name: name.into(), ty: ty.into(), doc: doc.into() };
        assert_eq!(records[0].fields, [field("until_ms", "Option<u64>", "Until."), field("set", "AttemptSet", "")]);
        assert!(records[1].fields.is_empty());
    }

    #[test]
    fn a_field_serde_skips_is_not_in_the_record() {
        let file = syn::parse_file(
            "struct S {\n#[serde(skip)]\nheld: Held,\n#[serde(skip_serializing_if = \"Option::is_none\")]\n\
             until_ms: Option<u64>,\n#[serde(rename = \"k\", skip)]\nkey: u64,\ntoken: u64,\n}",
        )
        .unwrap();
        let syn::Item::Struct(item) = &file.items[0] else { panic!("a struct") };
        let names: Vec<String> =
            record(&item.ident, &item.attrs, &item.fields).fields.into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["until_ms", "token"]);
    }

    #[test]
    fn the_summary_is_the_first_paragraph_of_an_enum_and_its_variants() {
        let file = syn::parse_file(
            "mod inner {\n/// Who acts:\n/// the caller.\n///\n/// More, not in the summary.\n\
             enum Blame {\n/// Misuse of [`Api`](crate::Api).\nCaller,\nServer,\n}\n}",
        )
        .unwrap();
        let item = find_enum(&file.items, "Blame").unwrap();
        assert_eq!(summary(&item.attrs), "Who acts: the caller.");
        assert_eq!(summary(&item.variants[0].attrs), "Misuse of `Api`.");
        assert_eq!(summary(&item.variants[1].attrs), "");
    }
}
