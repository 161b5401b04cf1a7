//! JS (wasm-bindgen): `bindings-js/src/controls_generated.rs`, the wasm
//! exports of `methods::CONTROLS` (included by `controls.rs`, which keeps
//! `control`, `take` and the dependency's readers), and `lib/controls.js`,
//! the classes that call them. No wasm-bindgen class: each object is a
//! handle of the wasm's table (`src/objects.rs`, variant `VARIANTS`), and
//! calls are merged so the wasm carries few exports:
//! - the methods handing a grant back (`on_success`, `on_failure`, `spend`,
//!   `release`) are one export per class, `_{p}Settle(handle, now, grant,
//!   which)`, `which` the method's index; a grant-making method that takes
//!   nothing (`RetrySlots.try_acquire`) rides it too, one past the last;
//! - a class's getters of a control (`Dependency.budget`, ...) are one
//!   `_{p}Control(handle, which)`, its count getters one `_{p}State(handle)`
//!   (numbers through `crate::wire::numbers`), and every class's
//!   outstanding-grant getter one `_grantsOutstanding(handle)`.
//!
//! How each kind is spelt: a clock reading is `nowMs` (checked by `ms`), a
//! flag an optional boolean (`flag`, false when left out), a count a whole
//! number (`whole`), a grant its object (`handleOf`: its handle, 0 when an
//! optional one is absent), a configuration a camelCase object read by the
//! core's one reader (`decidedConfig`), a compiled form bytes
//! (`compiledForm`); an error comes back as a value and is thrown by
//! `decided`. JS carries a snapshot and JSON text in its tools entry
//! (`src/tools.rs`, `lib/tools.js`), not here; `Dependency#clone` (another
//! handle on the same controls) and the deprecated names are JS's own.

use crate::methods::{Arg, Class, Fact, Method, Ret, Shape};
use crate::output::{Output, HEADER};
use crate::python_records::rust_doc;

pub const RUST: &str = "bindings-js/src/controls_generated.rs";
pub const JS: &str = "bindings-js/lib/controls.js";

/// Each class's variant of `Object` (`src/objects.rs`); its exports are
/// named after it (`_budgetNew`), and so are its accessor, its grant's
/// reader and the name a stale handle is refused with (`charge`).
const VARIANTS: [(&str, &str); 7] = [
    ("Dependency", "Dependency"),
    ("RetryBudget", "Budget"),
    ("RetryCharge", "Charge"),
    ("CircuitBreaker", "Breaker"),
    ("BreakerPermit", "Permit"),
    ("RetrySlots", "Slots"),
    ("RetrySlot", "Slot"),
];

/// Old names kept for one release: `(old, class)`.
const DEPRECATED: [(&str, &str); 1] = [("ConcurrencyLimit", "RetrySlots")];

/// The wasm's exports and the JS classes calling them, from the definition.
pub fn outputs(classes: &[Class]) -> Result<[Output; 2], String> {
    let mut rust = format!(
        "// {HEADER}\n// From the definition of the shared controls (core/mirrors/src/methods.rs), included by controls.rs.\n"
    );
    let mut js = JsText::default();
    let mut outstanding = Vec::new();
    for class in classes {
        let plan = Plan::of(classes, class)?;
        rust.push_str(&plan.rust()?);
        js.class(&plan)?;
        if let Some(getter) = plan.outstanding {
            outstanding.push((plan.variant, getter));
        }
    }
    if !outstanding.is_empty() {
        rust.push_str(&outstanding_export(classes, &outstanding)?);
    }
    Ok([Output { path: RUST, text: rust }, Output { path: JS, text: js.finish() }])
}

/// `try_retry` -> `tryRetry`; `now` -> `nowMs` (JS's clock readings say their unit).
fn camel(name: &str) -> String {
    if name == "now" {
        return "nowMs".to_owned();
    }
    retryplan::value::camel_case(name)
}

/// `Budget` -> `budget`.
fn lower(variant: &str) -> String {
    let mut chars = variant.chars();
    chars.next().map(|first| first.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// A doc as JS reads it: each backticked snake_case name (and `now`) in camelCase.
fn js_doc(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(index, part)| {
            let name = part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if index % 2 == 1 && name {
                camel(part)
            } else {
                part.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// A `/** ... */` comment at `indent`, wrapped at the house width.
fn jsdoc(text: &str, indent: &str) -> String {
    let text = js_doc(text);
    let one = format!("{indent}/** {text} */\n");
    if one.len() <= 121 {
        return one;
    }
    let lines = crate::python_records::wrap(&text, &format!("{indent} * "), &format!("{indent} * "));
    format!("{indent}/**\n{}\n{indent} */\n", lines.join("\n"))
}

fn variant_of(name: &str) -> Result<&'static str, String> {
    VARIANTS
        .iter()
        .find(|(class, _)| *class == name)
        .map(|(_, variant)| *variant)
        .ok_or_else(|| format!("{name}: no variant of JS's `Object` (methods_js::VARIANTS)"))
}

/// How one class's methods cross: which export each calls.
struct Plan<'a> {
    classes: &'a [Class],
    class: &'a Class,
    variant: &'static str,
    /// The export prefix and the accessor's name (`budget`).
    prefix: String,
    /// The methods handing a grant back, in `which` order.
    settle: Vec<&'a Method>,
    /// A grant-making method taking nothing, riding the settle export.
    maker: Option<&'a Method>,
    /// The getters of a control, in `which` order.
    controls: Vec<&'a Method>,
    /// The count getters, in the order of the numbers.
    counts: Vec<&'a Method>,
    outstanding: Option<&'a Method>,
    /// Every other method: one export each.
    own: Vec<&'a Method>,
}

impl<'a> Plan<'a> {
    fn of(classes: &'a [Class], class: &'a Class) -> Result<Self, String> {
        let variant = variant_of(class.name)?;
        let mut plan = Plan {
            classes,
            class,
            variant,
            prefix: lower(variant),
            settle: Vec::new(),
            maker: None,
            controls: Vec::new(),
            counts: Vec::new(),
            outstanding: None,
            own: Vec::new(),
        };
        let mut makers = Vec::new();
        for method in class.methods {
            let hands_back = method.args.iter().any(|arg| matches!(arg, Arg::Grant { .. }));
            match method.ret {
                Ret::Snapshot(_) => {}
                _ if hands_back => plan.settle.push(method),
                Ret::Control(_) if method.getter => plan.controls.push(method),
                Ret::Count if method.getter => plan.counts.push(method),
                Ret::Outstanding if method.getter => plan.outstanding = Some(method),
                Ret::Grant(_) if method.args.is_empty() => makers.push(method),
                _ => plan.own.push(method),
            }
        }
        // A maker taking nothing rides the settle export when there is one.
        for maker in makers {
            if plan.maker.is_none() && !plan.settle.is_empty() {
                plan.maker = Some(maker);
            } else {
                plan.own.push(maker);
            }
        }
        if let Some(method) = plan.settle.iter().find(|method| method.ret != Ret::UnitOrError) {
            return Err(format!(
                "{}.{}: a grant handed back with no JS export for {:?}",
                class.name, method.name, method.ret
            ));
        }
        Ok(plan)
    }

    fn export(&self, what: &str) -> String {
        format!("_{}{what}", self.prefix)
    }

    /// The grant class the settle methods hand back, and whether any takes a clock reading.
    fn settled(&self) -> Result<Option<(&'static str, bool)>, String> {
        let mut grant = None;
        let mut now = false;
        for method in &self.settle {
            for arg in method.args {
                match *arg {
                    Arg::Grant { class, .. } if grant.is_none_or(|seen| seen == class) => grant = Some(class),
                    Arg::Grant { .. } => {
                        return Err(format!("{}.{}: a second grant class", self.class.name, method.name))
                    }
                    Arg::Now => now = true,
                    other => {
                        return Err(format!("{}.{}: no JS settle argument for {other:?}", self.class.name, method.name))
                    }
                }
            }
        }
        Ok(grant.map(|grant| (grant, now)))
    }

    fn core(&self) -> &'static str {
        match self.class.shape {
            Shape::Control { core, .. } | Shape::Grant { core, .. } => core,
            Shape::Bundle => self.class.name,
        }
    }

    /// The object kept for a control made here.
    fn kept(&self, made: &str) -> String {
        match self.class.shape {
            Shape::Bundle => format!("Object::{}({made})", self.variant),
            _ => format!("Object::{}(Control::Own({made}))", self.variant),
        }
    }

    fn rust(&self) -> Result<String, String> {
        let mut text = String::new();
        let (name, variant, prefix, core) = (self.class.name, self.variant, &self.prefix, self.core());
        match self.class.shape {
            Shape::Bundle => {}
            Shape::Control { field, .. } => text.push_str(&format!(
                "\n/// Runs `use_control` on the {name} `handle` names.\n\
                 fn {prefix}<T>(handle: u32, use_control: impl FnOnce(&rp::{core}) -> Result<T, JsValue>) -> Result<T, JsValue> {{\n    \
                 let pick: fn(&Object) -> Option<&Control<_>> =\n        \
                 |object| if let Object::{variant}(control) = object {{ Some(control) }} else {{ None }};\n    \
                 control(handle, \"{}\", pick, rp::Dependency::{field}, use_control)\n}}\n",
                camel(field)
            )),
            Shape::Grant { fact, .. } => text.push_str(&grant_helpers(name, variant, core, fact)),
        }
        for constructor in self.class.constructors {
            text.push_str(&self.constructor_export(constructor)?);
        }
        if let Shape::Bundle = self.class.shape {
            text.push_str(&format!(
                "\n/// Another handle on the same {name} (JS's `clone`).\n\
                 #[wasm_bindgen(js_name = {})]\npub fn {prefix}_share(handle: u32) -> JsValue {{\n    \
                 handle_js({prefix}(handle).and_then(|shared| objects::insert(Object::{variant}(shared))))\n}}\n",
                self.export("Share")
            ));
        }
        if let Shape::Grant { fact: Some(Fact { name: fact, doc, ty, .. }), .. } = self.class.shape {
            text.push_str(&format!(
                "\n{}#[wasm_bindgen(js_name = {})]\npub fn {prefix}_{fact}(handle: u32) -> Result<{ty}, JsValue> {{\n    \
                 objects::with(handle, \"{prefix}\", |object| match object {{\n        \
                 Object::{variant}(fact, _) => Ok(*fact),\n        _ => Err(objects::freed(\"{prefix}\")),\n    }})\n}}\n",
                rust_doc(doc, ""),
                self.export(&camel_upper(fact))
            ));
        }
        if !self.controls.is_empty() {
            text.push_str(&self.controls_export()?);
        }
        for method in &self.own {
            text.push_str(&self.own_export(method)?);
        }
        if !self.settle.is_empty() {
            text.push_str(&self.settle_export()?);
        }
        if !self.counts.is_empty() {
            let reads: Vec<String> = self
                .counts
                .iter()
                .map(|method| format!("f64::from(control.{}())", method.call.unwrap_or(method.name)))
                .collect();
            let names: Vec<&str> = self.counts.iter().map(|method| method.name).collect();
            text.push_str(&format!(
                "\n/// `[{}]` as numbers (`crate::wire::numbers`), or the `RetryplanError`.\n\
                 #[wasm_bindgen(js_name = {})]\npub fn {prefix}_state(handle: u32) -> JsValue {{\n    \
                 either({prefix}(handle, |control| {{\n        Ok(crate::wire::numbers(&[{}]))\n    }}))\n}}\n",
                names.join(", "),
                self.export("State"),
                reads.join(", ")
            ));
        }
        Ok(text)
    }

    fn constructor_export(&self, constructor: &Method) -> Result<String, String> {
        let (name, prefix, core) = (self.class.name, &self.prefix, self.core());
        let doc = rust_doc(constructor.doc, "");
        Ok(match constructor.args {
            [Arg::Config] => {
                let kind = self.class.config.ok_or_else(|| format!("{name}: a configuration with no kind"))?;
                let export = if let Shape::Bundle = self.class.shape { "FromConfig" } else { "New" };
                format!(
                    "\n{doc}#[cfg(feature = \"config\")]\n#[wasm_bindgen(js_name = {})]\n\
                     pub fn {prefix}_{}(config: &JsValue) -> JsValue {{\n    \
                     handle_js(config_value(config, rp::ConfigKind::{kind}).and_then(|value| {{\n        \
                     let made = rp::{kind}Config::from_value(&value).and_then(|config| rp::{core}::new(&config));\n        \
                     objects::insert({})\n    }}))\n}}\n",
                    self.export(export),
                    snake(&lower(export)),
                    self.kept("made.map_err(js_error)?")
                )
            }
            [Arg::Compiled] => format!(
                "\n{doc}#[wasm_bindgen(js_name = {})]\npub fn {prefix}_{}(form: &[u8]) -> JsValue {{\n    \
                 let made = rp::{core}::{}(form).map_err(compiled_error);\n    \
                 handle_js(made.and_then(|made| objects::insert({})))\n}}\n",
                self.export(&camel_upper(constructor.name)),
                constructor.name,
                constructor.name,
                self.kept("made")
            ),
            [Arg::Count(count)] => format!(
                "\n{doc}#[wasm_bindgen(js_name = {})]\npub fn {prefix}_new({count}: u32) -> JsValue {{\n    \
                 handle_js(objects::insert({}))\n}}\n",
                self.export("New"),
                self.kept(&format!("rp::{core}::new({count})"))
            ),
            // JSON text: JS's tools entry (`_dependencyFromJson`).
            [Arg::Json] => String::new(),
            other => return Err(format!("{name}.{}: no JS constructor for {other:?}", constructor.name)),
        })
    }

    fn controls_export(&self) -> Result<String, String> {
        let prefix = &self.prefix;
        let mut arms = String::new();
        let mut names = Vec::new();
        for (which, method) in self.controls.iter().enumerate() {
            let Ret::Control(control) = method.ret else { unreachable!("a control getter") };
            let class = crate::methods::class_named(self.classes, control)?;
            if !matches!(class.shape, Shape::Control { .. }) {
                return Err(format!("{}.{}: {control} is not a control", self.class.name, method.name));
            }
            let call = method.call.unwrap_or(method.name);
            arms.push_str(&format!(
                "            {which} if shared.{call}().is_some() => Object::{}(Control::Shared(shared)),\n",
                variant_of(control)?
            ));
            names.push(format!("{which} `{}`", method.name));
        }
        Ok(format!(
            "\n/// A handle on the {} control `which` ({}), 0 when it has none.\n\
             #[wasm_bindgen(js_name = {})]\npub fn {prefix}_control(handle: u32, which: u32) -> JsValue {{\n    \
             handle_js({prefix}(handle).and_then(|shared| {{\n        let object = match which {{\n{arms}            \
             _ => return Ok(0),\n        }};\n        objects::insert(object)\n    }}))\n}}\n",
            self.class.name,
            names.join(", "),
            self.export("Control")
        ))
    }

    /// A method of its own export.
    fn own_export(&self, method: &Method) -> Result<String, String> {
        let (prefix, name) = (&self.prefix, method.name);
        let mut params = vec!["handle: u32".to_owned()];
        let mut args = Vec::new();
        for arg in method.args {
            match *arg {
                Arg::Now => {
                    params.push("now_ms: f64".to_owned());
                    args.push("now_ms as u64".to_owned());
                }
                Arg::Flag(flag) => {
                    params.push(format!("{flag}: bool"));
                    args.push(flag.to_owned());
                }
                Arg::Count(count) => {
                    params.push(format!("{count}: u32"));
                    args.push(count.to_owned());
                }
                other => return Err(format!("{}.{name}: no JS argument for {other:?}", self.class.name)),
            }
        }
        let call = format!("control.{}({})", method.call.unwrap_or(name), args.join(", "));
        let body = match method.ret {
            Ret::Unit => format!(
                "either({prefix}(handle, |control| {{\n        {call};\n        Ok(JsValue::UNDEFINED)\n    }}))"
            ),
            Ret::UnitOrError => {
                format!("either({prefix}(handle, |control| {call}.map(|()| JsValue::UNDEFINED).map_err(js_error)))")
            }
            Ret::BoolOrError => {
                format!("either({prefix}(handle, |control| {call}.map(JsValue::from_bool).map_err(js_error)))")
            }
            Ret::Grant(grant) => {
                format!(
                    "handle_js({prefix}(handle, |control| Ok({call})).and_then(keep_{}))",
                    lower(variant_of(grant)?)
                )
            }
            other => return Err(format!("{}.{name}: no JS export for {other:?}", self.class.name)),
        };
        Ok(format!(
            "\n{}#[wasm_bindgen(js_name = {})]\npub fn {prefix}_{name}({}) -> JsValue {{\n    {body}\n}}\n",
            rust_doc(method.doc, ""),
            self.export(&camel_upper(name)),
            params.join(", ")
        ))
    }

    /// The methods handing a grant back, as one export (and the maker riding it).
    fn settle_export(&self) -> Result<String, String> {
        let prefix = &self.prefix;
        let Some((grant, now)) = self.settled()? else { return Ok(String::new()) };
        let kind = lower(variant_of(grant)?);
        // When every method needs the grant, it is required once, before the choice.
        let required = self
            .settle
            .iter()
            .all(|method| !method.args.iter().any(|arg| matches!(arg, Arg::Grant { optional: true, .. })));
        let calls: Vec<String> = self
            .settle
            .iter()
            .map(|method| {
                let args: Vec<String> = method
                    .args
                    .iter()
                    .map(|arg| match arg {
                        Arg::Grant { optional: true, .. } => "grant".to_owned(),
                        Arg::Grant { .. } if required => "grant".to_owned(),
                        Arg::Grant { .. } => format!("grant.ok_or_else(|| objects::freed(\"{kind}\"))?"),
                        _ => "now_ms".to_owned(),
                    })
                    .collect();
                format!("control.{}({})", method.call.unwrap_or(method.name), args.join(", "))
            })
            .collect();
        let settled = match calls.as_slice() {
            [call] => {
                format!("let settled = {call};\n            settled.map(|()| JsValue::UNDEFINED).map_err(js_error)")
            }
            _ => {
                let mut arms = String::new();
                for (which, call) in calls.iter().enumerate() {
                    let pattern = if which + 1 == calls.len() { "_".to_owned() } else { which.to_string() };
                    arms.push_str(&format!("                {pattern} => {call},\n"));
                }
                format!(
                    "let settled = match which {{\n{arms}            }};\n            \
                     settled.map(|()| JsValue::UNDEFINED).map_err(js_error)"
                )
            }
        };
        let mut whiches: Vec<String> =
            self.settle.iter().enumerate().map(|(which, method)| format!("{which} `{}`", method.name)).collect();
        let mut maker = String::new();
        if let Some(method) = self.maker {
            let Ret::Grant(made) = method.ret else { unreachable!("a maker") };
            let which = self.settle.len();
            whiches.push(format!("{which} `{}` (a grant's handle, 0 when none; `grant` unread)", method.name));
            maker = format!(
                "    if which == {which} {{\n        \
                 return handle_js({prefix}(handle, |control| Ok(control.{}())).and_then(keep_{}));\n    }}\n",
                method.call.unwrap_or(method.name),
                lower(variant_of(made)?)
            );
        }
        let (now_param, now_read) = if now { (" now_ms: f64,", "    let now_ms = now_ms as u64;\n") } else { ("", "") };
        let taken = if required {
            format!("take_{kind}(grant)?.ok_or_else(|| objects::freed(\"{kind}\"))")
        } else {
            format!("take_{kind}(grant)")
        };
        let doc = rust_doc(
            &format!(
                "Hands back the {grant} `grant` names (0 for none) to the {} `handle` names: `which` {}. The {} is \
                 checked before the grant is taken: one handed to a freed handle stays unsettled, for a live one to settle.",
                self.class.name,
                whiches.join(", "),
                self.class.name
            ),
            "",
        );
        Ok(format!(
            "\n{doc}#[wasm_bindgen(js_name = {})]\npub fn {prefix}_settle(handle: u32,{now_param} grant: u32, which: u32) -> JsValue {{\n\
             {maker}{now_read}    let grant = {prefix}(handle, |_| Ok(())).and_then(|()| {taken});\n    \
             either(grant.and_then(|grant| {{\n        \
             {prefix}(handle, |control| {{\n            {settled}\n        }})\n    }}))\n}}\n",
            self.export("Settle"),
        ))
    }
}

/// `cost` -> `Cost`, `from_compiled` -> `FromCompiled`.
fn camel_upper(name: &str) -> String {
    let camel = camel(name);
    let mut chars = camel.chars();
    chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// `fromConfig` -> `from_config`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A grant class's reader of its handle (taken) and its keeper (a handle).
fn grant_helpers(name: &str, variant: &str, core: &str, fact: Option<Fact>) -> String {
    let kind = lower(variant);
    let (pattern, kept) = match fact {
        Some(Fact { call, .. }) => (
            format!("Object::{variant}(_, cell)"),
            format!("Object::{variant}(grant.{call}(), rp::GrantCell::new(grant))"),
        ),
        None => (format!("Object::{variant}(cell)"), format!("Object::{variant}(rp::GrantCell::new(grant))")),
    };
    format!(
        "\n/// The {name} `handle` names, taken (a second take is the core's `invalid_argument`); none for handle 0.\n\
         fn take_{kind}(handle: u32) -> Result<Option<rp::{core}>, JsValue> {{\n    if handle == 0 {{\n        return Ok(None);\n    }}\n    \
         take(handle, |object| match object {{\n        {pattern} => Some(cell),\n        _ => None,\n    }})\n    .map(Some)\n}}\n\
         \n/// A {name} granted, kept: its handle; 0 for none.\n\
         fn keep_{kind}(grant: Option<rp::{core}>) -> Result<u32, JsValue> {{\n    \
         grant.map_or(Ok(0), |grant| objects::insert({kept}))\n}}\n"
    )
}

/// Every class's outstanding-grant getter as one export.
fn outstanding_export(classes: &[Class], getters: &[(&str, &Method)]) -> Result<String, String> {
    let mut arms = String::new();
    for (variant, method) in getters {
        let class = classes
            .iter()
            .find(|class| variant_of(class.name).is_ok_and(|found| found == *variant))
            .ok_or_else(|| format!("{variant}: no class"))?;
        let Shape::Control { field, .. } = class.shape else {
            return Err(format!("{}.{}: grants outstanding of what is not a control", class.name, method.name));
        };
        arms.push_str(&format!(
            "            Object::{variant}(control) => control.get(rp::Dependency::{field})?.{}(),\n",
            method.call.unwrap_or(method.name)
        ));
    }
    Ok(format!(
        "\n/// The grants of a control still out (`charges_outstanding`, `permits_outstanding`, ...).\n\
         #[wasm_bindgen(js_name = _grantsOutstanding)]\npub fn grants_outstanding(handle: u32) -> Result<u32, JsValue> {{\n    \
         objects::with(handle, \"control\", |object| {{\n        let count = match object {{\n{arms}            \
         _ => return Err(objects::freed(\"control\")),\n        }};\n        Ok(u32::try_from(count).unwrap_or(u32::MAX))\n    }})\n}}\n"
    ))
}

/// `lib/controls.js`, class by class, and its imports.
#[derive(Default)]
struct JsText {
    body: String,
    wasm: Vec<String>,
    lib: Vec<(&'static str, &'static str)>,
    /// The export of the control getters, when a class has them.
    controls: Option<String>,
    u32: bool,
}

impl JsText {
    fn uses(&mut self, module: &'static str, name: &'static str) {
        if !self.lib.contains(&(module, name)) {
            self.lib.push((module, name));
        }
    }

    fn calls(&mut self, export: String) -> String {
        if !self.wasm.contains(&export) {
            self.wasm.push(export.clone());
        }
        export
    }

    /// A JS expression of `arg`, checked.
    fn arg(&mut self, arg: &Arg) -> Result<String, String> {
        Ok(match *arg {
            Arg::Now => {
                self.uses("args", "ms");
                "ms('nowMs', nowMs)".to_owned()
            }
            Arg::Flag(flag) => {
                self.uses("args", "flag");
                format!("flag('{0}', {0}) ?? false", camel(flag))
            }
            Arg::Count(count) => {
                self.uses("args", "whole");
                self.u32 = true;
                format!("whole('{0}', {0}, U32)", camel(count))
            }
            Arg::Grant { name, class, optional } => {
                self.uses("objects", "handleOf");
                format!("handleOf('{0}', {0}, {class}{1})", camel(name), if optional { ", true" } else { "" })
            }
            other => return Err(format!("no JS argument for {other:?}")),
        })
    }

    fn params(method: &Method) -> String {
        method
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Now => "nowMs".to_owned(),
                Arg::Flag(name) | Arg::Count(name) | Arg::Grant { name, .. } => camel(name),
                Arg::Config => "config".to_owned(),
                Arg::Json => "json".to_owned(),
                Arg::Compiled => "form".to_owned(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `const grant = decided(call); return grant === 0 ? undefined : make(Class, grant);`
    fn made(&mut self, grant: &str, call: &str) -> Result<String, String> {
        self.uses("convert", "decided");
        self.uses("objects", "make");
        let kind = lower(variant_of(grant)?);
        let mut made = format!("    const {kind} = decided({call});\n");
        if made.len() > 121 {
            made = format!("    const {kind} = decided(\n      {call},\n    );\n");
        }
        Ok(format!("{made}    return {kind} === 0 ? undefined : make({grant}, {kind});\n"))
    }

    fn class(&mut self, plan: &Plan) -> Result<(), String> {
        let class = plan.class;
        let name = class.name;
        self.uses("objects", "Held");
        self.uses("objects", "handle");
        let mut members = Vec::new();
        match class.shape {
            Shape::Bundle => {
                self.uses("error", "notConstructed");
                self.uses("objects", "BRAND");
                let mut makers: Vec<String> = class
                    .constructors
                    .iter()
                    .filter(|constructor| !matches!(constructor.args, [Arg::Config] | [Arg::Json]))
                    .map(|constructor| format!("{name}.{}({})", camel(constructor.name), Self::params(constructor)))
                    .collect();
                if class.constructors.iter().any(|constructor| constructor.args == [Arg::Config]) {
                    makers.push(format!("or {name}.fromConfig(config) outside the browser runtime"));
                }
                members.push(format!(
                    "  /** Not how a {0} is made: `unsupported`, naming the functions that make one. */\n  constructor() {{\n    \
                     throw notConstructed(\n      '{name}',\n      '{1}',\n    );\n  }}\n",
                    lower(name),
                    makers.join(", ")
                ));
                members.push(format!(
                    "  /** Checked by lib/driver.js (see BRAND in lib/objects.js). */\n  get [BRAND.{name}]() {{\n    return true;\n  }}\n"
                ));
            }
            Shape::Grant { fact: Some(Fact { name: fact, doc, .. }), .. } => {
                let export = self.calls(plan.export(&camel_upper(fact)));
                members
                    .push(format!("{}  get {fact}() {{\n    return {export}(handle(this));\n  }}\n", jsdoc(doc, "  ")));
            }
            Shape::Grant { fact: None, .. } | Shape::Control { .. } => {}
        }
        for constructor in class.constructors {
            let doc = jsdoc(constructor.doc, "  ");
            match (class.shape, constructor.args) {
                (_, [Arg::Json]) => {}
                (Shape::Bundle, [Arg::Config]) => {
                    self.uses("spelling", "decidedConfig");
                    self.uses("objects", "make");
                    let export = self.calls(plan.export("FromConfig"));
                    members.push(format!(
                        "{doc}  static fromConfig(config) {{\n    return make(this, decidedConfig({export}(config), config));\n  }}\n"
                    ));
                }
                (Shape::Bundle, [Arg::Compiled]) => {
                    self.uses("args", "compiledForm");
                    self.uses("objects", "make");
                    let export = self.calls(plan.export(&camel_upper(constructor.name)));
                    members.push(format!(
                        "{doc}  static {}(form) {{\n    return make(this, {export}(compiledForm('form', form)));\n  }}\n",
                        camel(constructor.name)
                    ));
                }
                (_, [Arg::Config]) if constructor.name == "new" => {
                    self.uses("spelling", "decidedConfig");
                    let export = self.calls(plan.export("New"));
                    members.push(format!(
                        "{doc}  constructor(config) {{\n    super(decidedConfig({export}(config), config));\n  }}\n"
                    ));
                }
                (_, [arg @ Arg::Count(count)]) if constructor.name == "new" => {
                    self.uses("convert", "decided");
                    let read = self.arg(arg)?;
                    let export = self.calls(plan.export("New"));
                    members.push(format!(
                        "{doc}  constructor({}) {{\n    super(decided({export}({read})));\n  }}\n",
                        camel(count)
                    ));
                }
                (_, other) => return Err(format!("{name}.{}: no JS constructor for {other:?}", constructor.name)),
            }
        }
        if let Shape::Bundle = class.shape {
            let export = self.calls(plan.export("Share"));
            members.push(format!(
                "  /** Another handle on the same shared controls (free each handle on its own). */\n  clone() {{\n    \
                 return make(this.constructor, {export}(handle(this)));\n  }}\n"
            ));
        }
        let settle = plan.settled()?.map(|(_, now)| now);
        for method in class.methods {
            let doc = jsdoc(method.doc, "  ");
            let js_name = camel(method.name);
            let params = Self::params(method);
            let call_args = |text: &mut Self| -> Result<Vec<String>, String> {
                let mut args = vec!["handle(this)".to_owned()];
                for arg in method.args {
                    args.push(text.arg(arg)?);
                }
                Ok(args)
            };
            let body = if let Ret::Snapshot(_) = method.ret {
                continue;
            } else if let Some(which) = plan.settle.iter().position(|settled| std::ptr::eq(*settled, method)) {
                self.uses("convert", "decided");
                let mut args = vec!["handle(this)".to_owned()];
                if settle == Some(true) {
                    args.push(if method.args.contains(&Arg::Now) { self.arg(&Arg::Now)? } else { "0".to_owned() });
                }
                let grant = method.args.iter().find(|arg| matches!(arg, Arg::Grant { .. })).ok_or("a grant")?;
                args.push(self.arg(grant)?);
                args.push(which.to_string());
                format!("    decided({}({}));\n", self.calls(plan.export("Settle")), args.join(", "))
            } else if plan.maker.is_some_and(|maker| std::ptr::eq(maker, method)) {
                let Ret::Grant(grant) = method.ret else { unreachable!("a maker") };
                let export = self.calls(plan.export("Settle"));
                let now = if settle == Some(true) { "0, " } else { "" };
                self.made(grant, &format!("{export}(handle(this), {now}0, {})", plan.settle.len()))?
            } else if let Some(which) = plan.controls.iter().position(|control| std::ptr::eq(*control, method)) {
                let Ret::Control(control) = method.ret else { unreachable!("a control getter") };
                self.uses("convert", "decided");
                self.uses("objects", "make");
                self.controls = Some(self.calls(plan.export("Control")));
                format!("    return control(this, {which}, {control});\n")
            } else if let Some(which) = plan.counts.iter().position(|count| std::ptr::eq(*count, method)) {
                self.uses("wire", "numbers");
                format!("    return numbers({}(handle(this)))[{which}];\n", self.calls(plan.export("State")))
            } else if plan.outstanding.is_some_and(|outstanding| std::ptr::eq(outstanding, method)) {
                format!("    return {}(handle(this));\n", self.calls("_grantsOutstanding".to_owned()))
            } else {
                let export = self.calls(plan.export(&camel_upper(method.name)));
                let call = format!("{export}({})", call_args(self)?.join(", "));
                match method.ret {
                    Ret::Unit | Ret::UnitOrError => {
                        self.uses("convert", "decided");
                        format!("    decided({call});\n")
                    }
                    Ret::BoolOrError => {
                        self.uses("convert", "decided");
                        format!("    return decided({call});\n")
                    }
                    Ret::Grant(grant) => self.made(grant, &call)?,
                    other => return Err(format!("{name}.{}: no JS method for {other:?}", method.name)),
                }
            };
            let head = if method.getter { format!("get {js_name}()") } else { format!("{js_name}({params})") };
            members.push(format!("{doc}  {head} {{\n{body}  }}\n"));
        }
        self.body.push_str(&format!("\n{}export class {name} extends Held {{", jsdoc(class.doc, "")));
        if members.is_empty() {
            self.body.push_str("}\n");
        } else {
            self.body.push_str(&format!("\n{}}}\n", members.join("\n")));
        }
        Ok(())
    }

    fn finish(mut self) -> String {
        self.wasm.sort();
        let mut text = format!(
            "// {HEADER}\n\
             // The shared controls, from their definition (core/mirrors/src/methods.rs):\n\
             // each class holds a handle of the wasm's table and calls the exports of\n\
             // src/controls_generated.rs. A grant (charge, permit, slot) is settled once,\n\
             // by the control that granted it: the core refuses anything else\n\
             // (`invalid_argument` naming it), and a grant freed unsettled is given back.\n\
             // Configurations are read by the core's one reader.\nimport {{\n"
        );
        for export in &self.wasm {
            text.push_str(&format!("  {export},\n"));
        }
        text.push_str("} from '../wasm/retryplan_js.js';\n");
        for module in ["args", "convert", "error", "spelling", "objects", "wire"] {
            let mut names: Vec<&str> = self.lib.iter().filter(|(of, _)| *of == module).map(|(_, name)| *name).collect();
            names.sort_by_key(|name| (name.starts_with(|c: char| c.is_ascii_lowercase()), *name));
            if !names.is_empty() {
                text.push_str(&format!("import {{ {} }} from './{module}.js';\n", names.join(", ")));
            }
        }
        if self.u32 {
            text.push_str("\nconst U32 = 2 ** 32 - 1;\n");
        }
        if let Some(export) = &self.controls {
            text.push_str(&format!(
                "\n/** A handle on `bundle`'s control `which` (its getter's index), as a `Class`, or undefined. */\n\
                 function control(bundle, which, Class) {{\n  \
                 const found = decided({export}(handle(bundle), which));\n  \
                 return found === 0 ? undefined : make(Class, found);\n}}\n"
            ));
        }
        text.push_str(&self.body);
        for (old, class) in DEPRECATED {
            text.push_str(&format!("\n/** @deprecated The old name of `{class}`, kept for one release. */\nexport const {old} = {class};\n"));
        }
        text
    }
}
