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

/// The docs of enum `ident` in the Rust file `path`.
pub fn enum_docs(path: &Path, ident: &str) -> Result<EnumDocs, String> {
    let source = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
    find_enum(&file.items, ident)
        .map(|item| EnumDocs {
            summary: summary(&item.attrs),
            variants: item.variants.iter().map(|v| (v.ident.to_string(), summary(&v.attrs))).collect(),
        })
        .ok_or_else(|| format!("{}: no enum {ident}", path.display()))
}

/// The summary of the `const` (or `static`) `ident` in the Rust file `path`.
pub fn const_summary(path: &Path, ident: &str) -> Result<String, String> {
    let source = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
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
    let source = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
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
fn summary(attrs: &[syn::Attribute]) -> String {
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
