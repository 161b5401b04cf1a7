//! Kotlin (and Swift), through uniffi: `bindings-kotlin/src/records.rs`, the
//! core's records and enums with data that cross the boundary (outcomes,
//! decisions, the driver's actions and endings, the controls' snapshots, the
//! counters, the timeline), read from the core's source with `syn`: one
//! uniffi type per core type, field for field in the core's order with the
//! core's docs, and its conversion from the core's type (and back, for what a
//! caller hands in: [`Mirror::into_core`]). An enum uniffi exports as the
//! core's own type ([`Mirror::remote`]: `Class`, `Repeatability`) is restated
//! as it is, with the core's docs, for `#[uniffi::remote(Enum)]`.
//!
//! Only the number types change at the boundary, each by one helper of the
//! binding ([`conversion`]): `u64` is `i64` (`long_out`; `ms_in` on the way
//! in, which refuses what the core cannot hold), `u32` is `i32` (an attempt
//! number or a count of attempts, at most 128) or, for a quantity a
//! configuration bounds ([`QUANTITIES`]), `i64` (never clamped), a status
//! `u16` is `i32`, a request id is its 16 hex digits, an attempt set a list.
//! A core field of a type with no conversion here fails the generator,
//! naming it: add it to [`conversion`] (and its helper to the binding).
//!
//! The file is not formatted by rustfmt (`#[rustfmt::skip] mod records;`).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::docs::{summary, type_name};
use crate::kotlin_prose::kotlin_prose;
use crate::output::{Output, HEADER};
use crate::tables::Table;

pub const RECORDS: &str = "bindings-kotlin/src/records.rs";

/// One core type the binding mirrors.
struct Mirror {
    /// The core source file that defines it.
    file: &'static str,
    /// Its ident in the core.
    core: &'static str,
    /// The binding's type.
    ident: &'static str,
    /// Also converted back to the core's type (a caller hands it in).
    into_core: bool,
    /// The name of the one field of a tuple variant, by variant.
    tuple_fields: &'static [(&'static str, &'static str)],
    /// A field added to every variant: the core's text for the value (its `Display`).
    text_field: Option<&'static str>,
    /// Optional fields are optional in Kotlin too (`#[uniffi(default)]`: null when not given).
    default_nulls: bool,
    /// Exported as the core's own type, restated for uniffi (`#[uniffi::remote(Enum)]`, its fields of the
    /// core's types, no conversion); `ident` is the core's.
    remote: bool,
    /// The module that publishes it, when its file's module is private (`dialects::grpc`).
    floor: Option<&'static str>,
}

const fn mirror(file: &'static str, core: &'static str) -> Mirror {
    Mirror {
        file,
        core,
        ident: core,
        into_core: false,
        tuple_fields: &[],
        text_field: None,
        default_nulls: false,
        remote: false,
        floor: None,
    }
}

/// Every mirrored type, a type before those that hold it.
const MIRRORS: [Mirror; 25] = [
    mirror("core/src/config/error.rs", "Violation"),
    Mirror { floor: Some("dialects::grpc"), ..mirror("core/src/dialects/grpc/findings.rs", "ConfigWarning") },
    Mirror { remote: true, ..mirror("core/src/outcomes/classify.rs", "Class") },
    Mirror { remote: true, ..mirror("core/src/outcomes/http.rs", "Repeatability") },
    Mirror {
        into_core: true,
        tuple_fields: &[("RetryAfterMs", "ms")],
        ..mirror("core/src/headers/retry_after.rs", "Pushback")
    },
    Mirror { into_core: true, default_nulls: true, ..mirror("core/src/outcomes/classify.rs", "Outcome") },
    Mirror { into_core: true, ..mirror("core/src/outcomes/decision.rs", "Decision") },
    mirror("core/src/outcomes/action.rs", "AttemptPlan"),
    Mirror { into_core: true, ..mirror("core/src/outcomes/action.rs", "AttemptResult") },
    mirror("core/src/outcomes/action.rs", "EndingResult"),
    mirror("core/src/outcomes/action.rs", "Ending"),
    Mirror {
        tuple_fields: &[("StartAttempt", "plan"), ("Finish", "ending")],
        ..mirror("core/src/outcomes/action.rs", "Action")
    },
    Mirror { into_core: true, ..mirror("core/src/outcomes/action.rs", "Event") },
    mirror("core/src/controls/budget/mod.rs", "BudgetSnapshot"),
    mirror("core/src/controls/breaker/mod.rs", "BreakerSnapshot"),
    mirror("core/src/controls/dependency.rs", "DependencySnapshot"),
    mirror("core/src/engine/stats.rs", "GiveUpCounts"),
    Mirror { ident: "StatsSnapshot", ..mirror("core/src/engine/stats.rs", "Stats") },
    mirror("core/src/ground/deadline.rs", "Admission"),
    mirror("core/src/engine/redelivery.rs", "Redelivery"),
    mirror("core/src/tools/timeline.rs", "TimelineStep"),
    Mirror { text_field: Some("text"), ..mirror("core/src/tools/timeline.rs", "Warning") },
    mirror("core/src/tools/timeline.rs", "Timeline"),
    Mirror {
        ident: "TelemetryErrorType",
        tuple_fields: &[("Status", "status"), ("Named", "identifier")],
        ..mirror("core/src/driver/telemetry/mod.rs", "ErrorType")
    },
    Mirror { ident: "TelemetrySignal", ..mirror("core/src/driver/telemetry/mod.rs", "Signal") },
];

/// A named field (a tuple variant's one field gets its name from the table).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Field {
    name: String,
    ty: String,
    doc: String,
}

/// A variant: its ident, doc, fields, and whether the core's is a tuple variant.
struct Variant {
    ident: String,
    doc: String,
    fields: Vec<Field>,
    tuple: bool,
}

/// A core type as read: a struct's fields, or an enum's variants.
enum Body {
    Struct(Vec<Field>),
    Enum(Vec<Variant>),
}

pub fn outputs(root: &Path, tables: &[Table]) -> Result<Vec<Output>, String> {
    let mut read = Vec::new();
    for mirror in &MIRRORS {
        let path = root.join(mirror.file);
        let source = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
        let (doc, body) = find(&file.items, mirror)?.ok_or_else(|| format!("{}: no {}", mirror.file, mirror.core))?;
        read.push((mirror, doc, body));
    }
    let mut writer = Writer { tables, helpers: BTreeSet::new(), enums: BTreeSet::new() };
    let mut body = String::new();
    for (mirror, doc, read) in &read {
        body.push_str(&writer.item(mirror, doc, read)?);
    }
    let mut text = format!(
        "// {HEADER}\n//! The core's records and enums with data, restated for uniffi with `i64`\n\
         //! milliseconds, `i32` counts of attempts, `i64` quantities, and their conversions (core/mirrors/src/uniffi_records.rs).\n\n\
         use retryplan as rp;\n"
    );
    for path in &writer.enums {
        text.push_str(&format!("use {path};\n"));
    }
    let helpers: Vec<String> = writer.helpers.iter().map(|helper| format!("{helper},")).collect();
    text.push_str(&format!("\nuse crate::{{\n{}}};\n", wrap("    ", helpers.iter().map(String::as_str))));
    text.push_str(&body);
    Ok(vec![Output { path: RECORDS, text }])
}

/// A variant's ident, and each of its fields' name and binding type: [`variant_fields`].
pub(crate) type VariantFields = (String, Vec<(String, String)>);

/// The variants of the mirrored enum `core` as the binding declares them:
/// each variant's ident, and each of its fields' name and binding type
/// (`i32`, `i64`, `Option<i64>`, `String`, ...), in the core's order (what
/// `kotlin_wire` reads the decision record into).
pub(crate) fn variant_fields(root: &Path, tables: &[Table], core: &str) -> Result<Vec<VariantFields>, String> {
    let mirror = MIRRORS.iter().find(|mirror| mirror.core == core).ok_or(format!("{core}: not mirrored"))?;
    let path = root.join(mirror.file);
    let source = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| format!("{}: {e}", path.display()))?;
    let Some((_, Body::Enum(variants))) = find(&file.items, mirror)? else {
        return Err(format!("{}: no enum {core}", mirror.file));
    };
    let mut writer = Writer { tables, helpers: BTreeSet::new(), enums: BTreeSet::new() };
    let mut out = Vec::new();
    for variant in variants {
        let mut fields = Vec::new();
        for field in &variant.fields {
            fields.push((field.name.clone(), writer.conversion(field, "")?.ty));
        }
        out.push((variant.ident, fields));
    }
    Ok(out)
}

/// The type `mirror.core` among `items` (inline modules searched too): its doc and body.
fn find(items: &[syn::Item], mirror: &Mirror) -> Result<Option<(String, Body)>, String> {
    for item in items {
        match item {
            syn::Item::Struct(item) if item.ident == mirror.core => {
                return Ok(Some((summary(&item.attrs), Body::Struct(fields(&item.fields, mirror, "")?.0))));
            }
            syn::Item::Enum(item) if item.ident == mirror.core => {
                let mut variants = Vec::new();
                for variant in &item.variants {
                    let ident = variant.ident.to_string();
                    let (fields, tuple) = fields(&variant.fields, mirror, &ident)?;
                    variants.push(Variant { doc: summary(&variant.attrs), ident, fields, tuple });
                }
                return Ok(Some((summary(&item.attrs), Body::Enum(variants))));
            }
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &module.content {
                    if let Some(found) = find(items, mirror)? {
                        return Ok(Some(found));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(None)
}

/// The fields of a struct or variant, and whether they are a tuple's (named from the table).
fn fields(fields: &syn::Fields, mirror: &Mirror, variant: &str) -> Result<(Vec<Field>, bool), String> {
    let tuple = matches!(fields, syn::Fields::Unnamed(_));
    let mut out = Vec::new();
    for field in fields.iter().filter(|field| !crate::docs::serde_skipped(&field.attrs)) {
        let name = match &field.ident {
            Some(ident) => ident.to_string(),
            None => {
                let named = mirror.tuple_fields.iter().find(|(of, _)| *of == variant).filter(|_| fields.len() == 1);
                let (_, name) = named
                    .ok_or_else(|| format!("{}::{variant}: name its field in MIRRORS.tuple_fields", mirror.core))?;
                (*name).to_owned()
            }
        };
        out.push(Field { name, ty: type_name(&field.ty), doc: summary(&field.attrs) });
    }
    Ok((out, tuple))
}

/// How one field crosses: the binding's type, the expression out of the core's
/// value `v`, and the expression back (none: not handed in).
/// The `u32` fields that are quantities, bounded by a configuration (a quota's units, retry slots, half-open probes,
/// failures in a row: up to 4294967295), not by the attempt limit (128) as attempt numbers and counts of attempts are:
/// they cross as `i64` (`quantity_out`), so none is clamped to `Int.MAX_VALUE`.
const QUANTITIES: &[&str] = &["available", "capacity", "consecutive_failures", "probes_running", "retry_slots_in_use"];

struct Conversion {
    ty: String,
    out: String,
    back: Option<String>,
    /// The binding's helpers the expressions call.
    helpers: &'static [&'static str],
}

/// The conversion of a field `name` of the core's type `ty`, read from `v` (the name
/// itself where a pattern bound it); `mirrored` are the binding's mirrors (the core's
/// ident, the binding's), `enums` the core's unit enums uniffi exports as themselves.
fn conversion(name: &str, v: &str, ty: &str, mirrored: &[(&str, &str)], enums: &[&str]) -> Result<Conversion, String> {
    let c = |ty: &str, out: String, back: Option<String>, helpers| Conversion { ty: ty.to_owned(), out, back, helpers };
    let quantity = QUANTITIES.contains(&name);
    let binding = |core: &str| mirrored.iter().find(|(of, _)| *of == core).map(|(_, ident)| *ident);
    if let Some(ident) = binding(ty) {
        return Ok(c(ident, format!("{v}.into()"), Some(format!("{v}.try_into()?")), &[]));
    }
    Ok(match ty {
        "bool" => c("bool", v.into(), Some(v.into()), &[]),
        "u16" => c("i32", format!("{v}.into()"), Some(format!("status_in(\"{name}\", {v})?")), &["status_in"]),
        "u32" if quantity => c(
            "i64",
            format!("quantity_out({v})"),
            Some(format!("quantity_in(\"{name}\", {v})?")),
            &["quantity_out", "quantity_in"],
        ),
        "Option<u32>" if quantity => c("Option<i64>", format!("{v}.map(quantity_out)"), None, &["quantity_out"]),
        "u32" => {
            c("i32", format!("count_out({v})"), Some(format!("u32_in(\"{name}\", {v})?")), &["count_out", "u32_in"])
        }
        "u64" => c("i64", format!("long_out({v})"), Some(format!("ms_in(\"{name}\", {v})?")), &["long_out", "ms_in"]),
        "Option<u32>" => c("Option<i32>", format!("{v}.map(count_out)"), None, &["count_out"]),
        "Option<u16>" => c("Option<i32>", format!("{v}.map(i32::from)"), None, &[]),
        "&str" => c("String", format!("{v}.to_owned()"), None, &[]),
        "String" => c("String", v.into(), None, &[]),
        "Message" => c("String", format!("{v}.to_string()"), None, &[]),
        "Option<&str>" => c("Option<String>", format!("{v}.map(str::to_owned)"), None, &[]),
        "Option<u64>" => c(
            "Option<i64>",
            format!("{v}.map(long_out)"),
            Some(format!("opt_ms_in(\"{name}\", {v})?")),
            &["long_out", "opt_ms_in"],
        ),
        "RequestId" => c(
            "String",
            format!("{v}.to_string()"),
            Some(format!("request_id_in(\"{name}\", {v})?")),
            &["request_id_in"],
        ),
        "AttemptSet" => c(
            "Vec<i32>",
            format!("attempts_out({v})"),
            Some(format!("attempts_in(\"{name}\", {v})?")),
            &["attempts_in", "attempts_out"],
        ),
        "Option<ErrorCode>" => c(
            "Option<String>",
            format!("{v}.map(|code| code.as_str().to_owned())"),
            Some(format!("error_code_in({v})?")),
            &["error_code_in"],
        ),
        ty if enums.contains(&ty) => c(ty, v.into(), Some(v.into()), &[]),
        _ => {
            let inner = |wrapper: &str| ty.strip_prefix(wrapper).and_then(|rest| rest.strip_suffix('>'));
            match (inner("Option<").and_then(binding), inner("Vec<").and_then(binding)) {
                (Some(item), _) => c(
                    &format!("Option<{item}>"),
                    format!("{v}.map(Into::into)"),
                    Some(format!("{v}.map(TryInto::try_into).transpose()?")),
                    &[],
                ),
                (_, Some(item)) => {
                    c(&format!("Vec<{item}>"), format!("{v}.into_iter().map(Into::into).collect()"), None, &[])
                }
                _ => return Err(format!("field `{name}`: no conversion for `{ty}` (uniffi_records::conversion)")),
            }
        }
    })
}

struct Writer<'a> {
    tables: &'a [Table],
    /// The binding's helpers the conversions call.
    helpers: BTreeSet<&'static str>,
    /// The core's enums the records use or restate, by their paths.
    enums: BTreeSet<String>,
}

impl Writer<'_> {
    /// `field`'s conversion, its value read from `of` (`value.`) or, with `of` empty, bound by its name.
    fn conversion(&mut self, field: &Field, of: &str) -> Result<Conversion, String> {
        let mirrored: Vec<(&str, &str)> = MIRRORS.iter().map(|mirror| (mirror.core, mirror.ident)).collect();
        let enums: Vec<&str> =
            self.tables.iter().filter(|table| table.mirrors.kotlin).map(|table| table.ident).collect();
        let value = format!("{of}{}", field.name);
        let conversion = conversion(&field.name, &value, &field.ty, &mirrored, &enums)?;
        if let Some(table) = self.tables.iter().find(|table| table.ident == conversion.ty && table.mirrors.kotlin) {
            self.enums.insert(table.rust_path.to_owned());
        }
        Ok(conversion)
    }

    /// The type's definition and its conversions.
    fn item(&mut self, mirror: &Mirror, doc: &str, body: &Body) -> Result<String, String> {
        let mut text = format!("\n{}", docs("", doc));
        if mirror.remote {
            return Ok(text + &self.remote(mirror, body)?);
        }
        match body {
            Body::Struct(fields) => {
                text.push_str(&format!(
                    "#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]\npub struct {} {{\n",
                    mirror.ident
                ));
                text.push_str(&self.definitions(mirror, fields, "    ", "pub ")?);
                text.push_str("}\n");
                text.push_str(&format!(
                    "\nimpl From<rp::{core}> for {ident} {{\n    fn from(value: rp::{core}) -> Self {{\n        \
                     {ident} {{\n{}        }}\n    }}\n}}\n",
                    self.outs(fields, "            ", "value.")?,
                    core = core_path(mirror),
                    ident = mirror.ident,
                ));
                if mirror.into_core {
                    text.push_str(&self.struct_back(mirror, fields)?);
                }
            }
            Body::Enum(variants) => {
                text.push_str(&format!(
                    "#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]\npub enum {} {{\n",
                    mirror.ident
                ));
                for variant in variants {
                    text.push_str(&docs("    ", &variant.doc));
                    let mut fields = self.definitions(mirror, &variant.fields, "        ", "")?;
                    if let Some(name) = mirror.text_field {
                        fields.push_str(&format!("        /// The core's text for it.\n        {name}: String,\n"));
                    }
                    if fields.is_empty() {
                        text.push_str(&format!("    {},\n", variant.ident));
                    } else {
                        text.push_str(&format!("    {} {{\n{fields}    }},\n", variant.ident));
                    }
                }
                text.push_str("}\n");
                text.push_str(&self.enum_out(mirror, variants)?);
                if mirror.into_core {
                    text.push_str(&self.enum_back(mirror, variants)?);
                }
            }
        }
        Ok(text)
    }

    /// The fields' definitions, one a line, each with its doc.
    fn definitions(&mut self, mirror: &Mirror, fields: &[Field], indent: &str, vis: &str) -> Result<String, String> {
        let mut text = String::new();
        for field in fields {
            let ty = self.conversion(field, "")?.ty;
            text.push_str(&docs(indent, &field.doc));
            if mirror.default_nulls && ty.starts_with("Option<") {
                text.push_str(&format!("{indent}#[uniffi(default)]\n"));
            }
            text.push_str(&format!("{indent}{vis}{}: {ty},\n", field.name));
        }
        Ok(text)
    }

    /// `name: expression,` lines out of the core's values (`name,` where it is the value itself).
    /// `of` is what a field's name is read from (`value.` for a struct; nothing for a variant's bound fields).
    fn outs(&mut self, fields: &[Field], indent: &str, of: &str) -> Result<String, String> {
        let mut text = String::new();
        for field in fields {
            let conversion = self.conversion(field, of)?;
            self.helpers.extend(conversion.helpers.iter().filter(|helper| !helper.ends_with("_in")));
            text.push_str(&field_line(indent, &field.name, &conversion.out));
        }
        Ok(text)
    }

    /// The core's enum itself, restated for uniffi variant for variant, field for field, with its docs.
    fn remote(&mut self, mirror: &Mirror, body: &Body) -> Result<String, String> {
        let Body::Enum(variants) = body else { return Err(format!("{}: only an enum is restated", mirror.core)) };
        self.enums.insert(format!("retryplan::{}", core_path(mirror)));
        let mut text = format!("#[uniffi::remote(Enum)]\npub enum {} {{\n", mirror.core);
        for variant in variants {
            text.push_str(&docs("    ", &variant.doc));
            if variant.tuple {
                return Err(format!("{}::{}: a tuple variant is not restated", mirror.core, variant.ident));
            }
            let fields: String = variant
                .fields
                .iter()
                .map(|field| format!("{}        {}: {},\n", docs("        ", &field.doc), field.name, field.ty))
                .collect();
            match fields.is_empty() {
                true => text.push_str(&format!("    {},\n", variant.ident)),
                false => text.push_str(&format!("    {} {{\n{fields}    }},\n", variant.ident)),
            }
        }
        text.push_str("}\n");
        Ok(text)
    }

    fn enum_out(&mut self, mirror: &Mirror, variants: &[Variant]) -> Result<String, String> {
        let (core, ident) = (core_path(mirror), mirror.ident);
        let mut text = format!("\nimpl From<rp::{core}> for {ident} {{\n    fn from(value: rp::{core}) -> Self {{\n");
        if let Some(name) = mirror.text_field {
            text.push_str(&format!("        let {name} = value.to_string();\n"));
        }
        text.push_str("        match value {\n");
        for variant in variants {
            let mut outs = self.outs(&variant.fields, "                ", "")?;
            if let Some(name) = mirror.text_field {
                outs.push_str(&format!("                {name},\n"));
            }
            let pattern = pattern(&format!("rp::{core}::{}", variant.ident), variant, variant.tuple);
            if outs.is_empty() {
                text.push_str(&format!("            {pattern} => {ident}::{},\n", variant.ident));
            } else {
                text.push_str(&format!(
                    "            {pattern} => {ident}::{} {{\n{outs}            }},\n",
                    variant.ident
                ));
            }
        }
        text.push_str("        }\n    }\n}\n");
        Ok(text)
    }

    /// The fields' conversions back (each refused, named, when the core cannot hold it).
    fn backs(&mut self, mirror: &Mirror, fields: &[Field]) -> Result<Vec<(String, String)>, String> {
        let mut backs = Vec::new();
        for field in fields {
            let conversion = self.conversion(field, "")?;
            let back = conversion.back.ok_or_else(|| format!("{}.{}: cannot be handed in", mirror.core, field.name))?;
            self.helpers.extend(conversion.helpers.iter().filter(|helper| helper.ends_with("_in")));
            backs.push((field.name.clone(), back));
        }
        Ok(backs)
    }

    fn struct_back(&mut self, mirror: &Mirror, fields: &[Field]) -> Result<String, String> {
        let (core, ident) = (core_path(mirror), mirror.ident);
        self.helpers.extend(["Result", "RetryplanError"]);
        let names: Vec<&str> = fields.iter().map(|field| field.name.as_str()).collect();
        let lines: String =
            self.backs(mirror, fields)?.iter().map(|(name, back)| field_line("            ", name, back)).collect();
        Ok(format!(
            "\nimpl TryFrom<{ident}> for rp::{core} {{\n    type Error = RetryplanError;\n    \
             fn try_from(value: {ident}) -> Result<Self> {{\n        let {ident} {{ {} }} = value;\n        \
             Ok(rp::{core} {{\n{lines}        }})\n    }}\n}}\n",
            names.join(", ")
        ))
    }

    fn enum_back(&mut self, mirror: &Mirror, variants: &[Variant]) -> Result<String, String> {
        let (core, ident) = (core_path(mirror), mirror.ident);
        self.helpers.extend(["Result", "RetryplanError"]);
        let mut text = format!(
            "\nimpl TryFrom<{ident}> for rp::{core} {{\n    type Error = RetryplanError;\n    \
             fn try_from(value: {ident}) -> Result<Self> {{\n        Ok(match value {{\n"
        );
        for variant in variants {
            let backs = self.backs(mirror, &variant.fields)?;
            let pattern = pattern(&format!("{ident}::{}", variant.ident), variant, false);
            let target = format!("rp::{core}::{}", variant.ident);
            let built = match (variant.tuple, backs.as_slice()) {
                (_, []) => target,
                (true, [(_, back)]) => format!("{target}({back})"),
                _ => {
                    let lines: String =
                        backs.iter().map(|(name, back)| field_line("                ", name, back)).collect();
                    format!("{target} {{\n{lines}            }}")
                }
            };
            text.push_str(&format!("            {pattern} => {built},\n"));
        }
        text.push_str("        })\n    }\n}\n");
        Ok(text)
    }
}

/// The core's type, by the path of the floor module that defines it (its
/// file: `core/src/headers/retry_after.rs` is `headers::retry_after::`), or publishes it (`floor`).
fn core_path(mirror: &Mirror) -> String {
    let module = mirror.file.trim_start_matches("core/src/").trim_end_matches(".rs").trim_end_matches("/mod");
    format!("{}::{}", mirror.floor.map_or(module.replace('/', "::"), str::to_owned), mirror.core)
}

/// A pattern binding every field of `variant` by its name (a tuple's one field positionally), at
/// the match arms' indent; its fields on lines of their own when one line would be long.
fn pattern(path: &str, variant: &Variant, tuple: bool) -> String {
    let names: Vec<&str> = variant.fields.iter().map(|field| field.name.as_str()).collect();
    match (names.is_empty(), tuple) {
        (true, _) => path.to_owned(),
        (false, true) => format!("{path}({})", names.join(", ")),
        (false, false) if path.len() + names.join(", ").len() < 70 => format!("{path} {{ {} }}", names.join(", ")),
        (false, false) => {
            let names: Vec<String> = names.iter().map(|name| format!("{name},")).collect();
            format!("{path} {{\n{}            }}", wrap("                ", names.iter().map(String::as_str)))
        }
    }
}

/// `name: expression,` (`name,` when the expression is the name) at `indent`.
fn field_line(indent: &str, name: &str, expression: &str) -> String {
    if expression == name {
        format!("{indent}{name},\n")
    } else {
        format!("{indent}{name}: {expression},\n")
    }
}

/// `///` lines of `text` at `indent`, wrapped at the workspace's width (120), the core's Rust names as Kotlin
/// spells them (`kotlin_prose`: uniffi makes these docs the Kotlin's).
pub(crate) fn docs(indent: &str, text: &str) -> String {
    wrap(&format!("{indent}/// "), kotlin_prose(text).split_whitespace())
}

/// `words` after `prefix` in lines of at most 120 characters (a longer word alone on its line).
fn wrap<'a>(prefix: &str, words: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::new();
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && line.len() + 1 + word.len() > 120 {
            text.push_str(line.trim_end());
            text.push('\n');
            line.clear();
        }
        if line.is_empty() {
            line.push_str(prefix);
        } else {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field of a type the binding has no conversion for stops the generator, naming it.
    #[test]
    fn a_field_without_a_conversion_is_named() {
        let error = conversion("at", "at", "Instant", &[], &[]).err().unwrap();
        assert!(error.contains("`Instant`"), "{error}");
        let back = conversion("token", "token", "Option<u32>", &[], &[]).unwrap();
        assert_eq!((back.ty.as_str(), back.back), ("Option<i32>", None));
    }

    /// A decision's fields: a count out and back, named; a tuple variant's field by its name from the table.
    #[test]
    fn each_field_is_converted_out_and_back() {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let text = &outputs(&root, &tables).unwrap()[0].text;
        assert!(text.contains("    Wait {\n"), "{text}");
        assert!(text.contains("                retry: count_out(retry),\n"), "{text}");
        assert!(text.contains("                retry: u32_in(\"retry\", retry)?,\n"), "{text}");
        assert!(text.contains(
            "            Pushback::RetryAfterMs { ms } => rp::headers::retry_after::Pushback::RetryAfterMs(ms_in(\"ms\", ms)?),\n"
        ));
        // A type of a private module is named by the floor that publishes it.
        assert!(text.contains("impl From<rp::dialects::grpc::ConfigWarning> for ConfigWarning {\n"), "{text}");
        // A violation's message is the core's text.
        assert!(
            text.contains("            field: value.field,\n            message: value.message.to_string(),\n"),
            "{text}"
        );
    }

    /// An enum exported as the core's own (`Class`) is restated from its source, variant for variant with the
    /// core's field types and docs, and used from its floor: no binding type, no conversion.
    #[test]
    fn a_remote_enum_is_restated_from_the_core() {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let text = &outputs(&root, &tables).unwrap()[0].text;
        assert!(text.contains("use retryplan::outcomes::classify::Class;\n"), "{text}");
        assert!(text.contains(
            "#[uniffi::remote(Enum)]\npub enum Class {\n    /// The operation succeeded.\n    Success,\n    \
             /// Another attempt may help.\n    Retryable {\n        /// The request may have been processed.\n        \
             ambiguous: bool,\n"
        ));
        assert!(text.contains("    NotRetried {\n        /// Whether the method is idempotent (RFC 9110 §9.2.2, and RFC 10008's QUERY).\n        idempotent: bool,\n    },\n"));
        assert!(!text.contains("impl From<rp::outcomes::classify::Class>"), "{text}");
    }

    /// A struct handed back (an `Event`, for `telemetry_signals`) refuses what the core cannot hold, by field;
    /// a type is named by its floor's path, under the binding's name.
    #[test]
    fn a_struct_is_converted_back_and_a_renamed_mirror_keeps_its_path() {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let text = &outputs(&root, &tables).unwrap()[0].text;
        assert!(text.contains("impl TryFrom<Event> for rp::outcomes::action::Event {"), "{text}");
        assert!(text.contains("            at_ms: ms_in(\"at_ms\", at_ms)?,\n"), "{text}");
        assert!(text.contains("            after: after.map(TryInto::try_into).transpose()?,\n"), "{text}");
        assert!(text.contains("impl From<rp::driver::telemetry::Signal> for TelemetrySignal {"), "{text}");
        assert!(text.contains("        error_type: Option<TelemetryErrorType>,\n"), "{text}");
        assert!(text.contains("use retryplan::telemetry::Metric;\n"), "{text}");
    }
}
