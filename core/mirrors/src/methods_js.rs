//! JS (wasm-bindgen): `bindings-js/src/controls_generated.rs`, the wasm
//! exports of `methods::CONTROLS` (included by `controls.rs`, which keeps
//! `control`, `take` and the dependency's readers), and `lib/controls.js`,
//! the classes calling them. Each object is a handle of the wasm's table
//! (`src/objects.rs`, its variant in `VARIANTS`), and calls are merged so
//! that the wasm carries few exports: the methods handing a grant back are
//! one `_{p}Settle(handle, now, grant, which)` per class (`which` the
//! method's index; a grant-making method taking nothing rides it, one past
//! the last), a class's control getters one `_{p}Control(handle, which)`,
//! its count getters one `_{p}State` (numbers through `crate::wire::numbers`),
//! every outstanding-grant getter one `_grantsOutstanding`.
//!
//! How each kind is spelt: a clock reading `nowMs` (`ms`), a flag an
//! optional boolean (false when left out), a count a whole number, a grant
//! its object (`handleOf`: 0 when an optional one is absent), a
//! configuration a camelCase object (`decidedConfig`), a compiled form bytes;
//! an error comes back as a value, thrown by `decided`. Snapshots are in JS's
//! tools entry (`methods_js_tools`), and so is JSON text (`src/tools.rs`);
//! `Dependency#clone` and the deprecated names are JS's own.

use crate::js_prose::js_prose;
use crate::methods::{class_named, Arg, Class, Fact, Method, Ret, Shape};
use crate::output::{Output, HEADER};
use crate::python_records::rust_doc;

pub const RUST: &str = "bindings-js/src/controls_generated.rs";
pub const JS: &str = "bindings-js/lib/controls.js";

/// Each class's variant of `Object` (`src/objects.rs`), after which its
/// exports (`_budgetNew`), its accessor and its grant's readers are named.
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

/// A control's accessor: `$P` the prefix, `$C` the core type, `$V` the variant, `$F` its field, `$K` its JS name.
const ACCESSOR: &str = "
/// Runs `use_control` on the $N `handle` names.
pub(crate) fn $P<T>(handle: u32, use_control: impl FnOnce(&rp::$C) -> Result<T, JsValue>) -> Result<T, JsValue> {
    let pick: fn(&Object) -> Option<&Control<_>> =
        |object| if let Object::$V(control) = object { Some(control) } else { None };
    control(handle, \"$K\", pick, rp::Dependency::$F, use_control)
}
";

/// A grant's reader (taken) and keeper: `$G` the pattern of its cell, `$K` what is kept beside it.
const GRANT: &str = "
/// The $N `handle` names, taken (a second take is the core's `invalid_argument`); none for handle 0.
fn take_$P(handle: u32) -> Result<Option<rp::$C>, JsValue> {
    if handle == 0 {
        return Ok(None);
    }
    take(handle, |object| match object {
        Object::$V($G) => Some(cell),
        _ => None,
    })
    .map(Some)
}

/// A $N granted, kept: its handle; 0 for none.
fn keep_$P(grant: Option<rp::$C>) -> Result<u32, JsValue> {
    grant.map_or(Ok(0), |grant| objects::insert(Object::$V($Krp::config::grant::GrantCell::new(grant))))
}
";

/// The fact a grant keeps: `$F` its name, `$T` its type.
const FACT: &str = "$D#[wasm_bindgen(js_name = $E)]
pub fn $P_$F(handle: u32) -> Result<$T, JsValue> {
    objects::with(handle, \"$P\", |object| match object {
        Object::$V(fact, _) => Ok(*fact),
        _ => Err(objects::freed(\"$P\")),
    })
}
";

const FROM_CONFIG: &str = "$D#[cfg(feature = \"config\")]
#[wasm_bindgen(js_name = $E)]
pub fn $P_$F(config: &JsValue) -> JsValue {
    handle_js(config_value(config, rp::config::error::ConfigKind::$K).and_then(|value| {
        let made = rp::$KConfig::from_value(&value).and_then(|config| rp::$C::new(&config));
        objects::insert($O)
    }))
}
";

const HEAD: &str = "$D#[wasm_bindgen(js_name = $E)]\npub fn $P_$F($A) -> JsValue {\n";

/// A class's control getters as one export: `$A` the arms of `which`.
const CONTROLS_EXPORT: &str = "
/// A handle on the $N's control `which` ($W), 0 when it has none.
#[wasm_bindgen(js_name = $E)]
pub fn $P_control(handle: u32, which: u32) -> JsValue {
    handle_js($P(handle).and_then(|shared| {
        let object = match which {
$A            _ => return Ok(0),
        };
        objects::insert(object)
    }))
}
";

/// The methods handing a grant back as one export: `$M` a grant-making method riding it, `$T` the grant taken.
const SETTLE: &str = "$D#[wasm_bindgen(js_name = $E)]
pub fn $P_settle(handle: u32,$A grant: u32, which: u32) -> JsValue {
$M    let grant = $P(handle, |_| Ok(())).and_then(|()| $T);
    either(grant.and_then(|grant| {
        $P(handle, |control| {
            let settled = $S;
            settled.map(|()| JsValue::UNDEFINED).map_err(js_error)
        })
    }))
}
";

const OUTSTANDING: &str = "
/// The grants of a control still out ($W).
#[wasm_bindgen(js_name = _grantsOutstanding)]
pub fn grants_outstanding(handle: u32) -> Result<u32, JsValue> {
    objects::with(handle, \"control\", |object| {
        let count = match object {
$A            _ => return Err(objects::freed(\"control\")),
        };
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    })
}
";

const JS_HEAD: &str = "import { compiledForm, flag, ms, whole } from './args.js';
import { decided } from './convert.js';
import { notConstructed } from './error.js';
import { decidedConfig } from './spelling.js';
import { BRAND, Held, handle, handleOf, make } from './objects.js';
import { numbers } from './wire.js';

const U32 = 2 ** 32 - 1;

/** The control a `_{p}Control` export `found` (its handle, 0 for none), as a `Class`, or undefined. */
function control(found, Class) {
  const control = decided(found);
  return control === 0 ? undefined : make(Class, control);
}
";

const JS_BUNDLE: &str = "  /** Not how a $L is made: `unsupported`, naming the functions that make one. */
  constructor() {
    throw notConstructed(
      '$N',
      '$M',
    );
  }

  /** Checked by lib/driver.js (see BRAND in lib/objects.js). */
  get [BRAND.$N]() {
    return true;
  }
";

/// `template` with each `$X` of `pairs` replaced (every key one letter: none begins another).
fn fill(template: &str, pairs: &[(&str, &str)]) -> String {
    pairs.iter().fold(template.to_owned(), |text, (key, value)| text.replace(key, value))
}

/// `try_retry` -> `tryRetry`, `now` -> `nowMs`; `upper`: `TryRetry`.
pub(crate) fn camel(name: &str, upper: bool) -> String {
    let camel = if name == "now" { "nowMs".to_owned() } else { retryplan::config::value::camel_case(name) };
    if !upper {
        return camel;
    }
    camel.get(..1).unwrap_or_default().to_ascii_uppercase() + camel.get(1..).unwrap_or_default()
}

/// A one-line JSDoc at `indent`, the core's Rust names as JS spells them (`js_prose`), each backticked
/// snake_case name (and `now`) in camelCase.
pub(crate) fn jsdoc(text: &str, indent: &str) -> String {
    let parts: Vec<String> = js_prose(text)
        .split('`')
        .enumerate()
        .map(|(index, part)| {
            let name = index % 2 == 1 && part.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            if name {
                camel(part, false)
            } else {
                part.to_owned()
            }
        })
        .collect();
    format!("{indent}/** {} */\n", parts.join("`"))
}

fn variant_of(name: &str) -> Result<&'static str, String> {
    let found = VARIANTS.iter().find(|(class, _)| *class == name).map(|(_, variant)| *variant);
    found.ok_or_else(|| format!("{name}: no variant of JS's `Object` (methods_js::VARIANTS)"))
}

/// A method only JS's tools entry has (`methods_js_tools` writes it, and the constructors reading JSON text): a
/// snapshot.
pub(crate) fn in_tools(method: &Method) -> bool {
    matches!(method.ret, Ret::Snapshot(_))
}

/// `Budget` -> `budget`.
pub(crate) fn prefix_of(name: &str) -> Result<String, String> {
    let variant = variant_of(name)?;
    Ok(variant[..1].to_ascii_lowercase() + &variant[1..])
}

/// Both files as they are written, and the exports lib/controls.js imports.
#[derive(Default)]
struct Texts {
    rust: String,
    js: String,
    imports: Vec<String>,
    /// `_grantsOutstanding`'s arms and the getters they answer.
    outstanding: (String, Vec<&'static str>),
}

impl Texts {
    /// The export `_{prefix}{what}`, imported by lib/controls.js.
    fn export(&mut self, prefix: &str, what: &str) -> String {
        let export = format!("_{prefix}{what}");
        if !self.imports.contains(&export) {
            self.imports.push(export.clone());
        }
        export
    }
}

/// The wasm's exports and the JS classes calling them, from the definition.
pub fn outputs(classes: &[Class]) -> Result<[Output; 2], String> {
    let mut texts = Texts::default();
    for class in classes {
        class_texts(classes, class, &mut texts)?;
    }
    let mut rust = format!("// {HEADER}\n// From the definition of the shared controls (core/mirrors/src/methods/table.rs), included by controls.rs.\n{}", texts.rust);
    let (arms, getters) = texts.outstanding;
    if !arms.is_empty() {
        rust.push_str(&fill(OUTSTANDING, &[("$W", &getters.join(", ")), ("$A", &arms)]));
        texts.imports.push("_grantsOutstanding".to_owned());
    }
    texts.imports.sort();
    let mut js = format!("// {HEADER}\n// The shared controls, from their definition (core/mirrors/src/methods/table.rs): each class holds\n// a handle of the wasm's table and calls the exports of src/controls_generated.rs.\nimport {{\n");
    js.extend(texts.imports.iter().map(|export| format!("  {export},\n")));
    js.push_str(&format!("}} from '../wasm/retryplan_js.js';\n{JS_HEAD}{}", texts.js));
    for (old, class) in DEPRECATED {
        js.push_str(&format!(
            "\n/** @deprecated The old name of `{class}`, kept for one release. */\nexport const {old} = {class};\n"
        ));
    }
    Ok([Output { path: RUST, text: rust }, Output { path: JS, text: js }])
}

/// A JS argument, checked as its kind says.
fn js_arg(arg: &Arg) -> Result<String, String> {
    Ok(match *arg {
        Arg::Now => "ms('nowMs', nowMs)".to_owned(),
        Arg::Flag(flag) => format!("flag('{0}', {0}) ?? false", camel(flag, false)),
        Arg::Count(count) => format!("whole('{0}', {0}, U32)", camel(count, false)),
        Arg::Grant { name, class, optional } => {
            format!("handleOf('{0}', {0}, {class}{1})", camel(name, false), if optional { ", true" } else { "" })
        }
        other => return Err(format!("no JS argument for {other:?}")),
    })
}

/// `const slot = decided(call); return slot === 0 ? undefined : make(RetrySlot, slot);`
fn js_made(grant: &str, call: &str) -> Result<String, String> {
    let kind = prefix_of(grant)?;
    let line = format!("    const {kind} = decided({call});\n");
    let line = if line.len() > 121 { format!("    const {kind} = decided(\n      {call},\n    );\n") } else { line };
    Ok(format!("{line}    return {kind} === 0 ? undefined : make({grant}, {kind});\n"))
}

fn class_texts(classes: &[Class], class: &Class, texts: &mut Texts) -> Result<(), String> {
    let (name, variant, p) = (class.name, variant_of(class.name)?, prefix_of(class.name)?);
    let core = match class.shape {
        Shape::Control { core, .. } | Shape::Grant { core, .. } => core,
        Shape::Bundle => name,
        Shape::Engine { .. } | Shape::Value { .. } => {
            return Err(format!(
                "{name}: no JS class for an engine object or a value (`methods_js_engine` writes the driver's methods)"
            ))
        }
    };
    let kept = |made: &str| match class.shape {
        Shape::Bundle => format!("Object::{variant}({made})"),
        _ => format!("Object::{variant}(Control::Own({made}))"),
    };
    let base = [("$N", name), ("$P", p.as_str()), ("$C", core), ("$V", variant)];
    let with = |pairs: &[(&str, &str)], template: &str| {
        let mut all = pairs.to_vec();
        all.extend(base);
        fill(template, &all)
    };
    let mut members: Vec<String> = Vec::new();
    match class.shape {
        Shape::Control { field, .. } => {
            texts.rust.push_str(&with(&[("$F", field), ("$K", &camel(field, false))], ACCESSOR));
        }
        Shape::Grant { fact, .. } => {
            let (cell, kept) = match fact {
                Some(Fact { call, .. }) => ("_, cell", format!("grant.{call}(), ")),
                None => ("cell", String::new()),
            };
            texts.rust.push_str(&with(&[("$G", cell), ("$K", &kept)], GRANT));
            if let Some(Fact { name: fact, doc, ty, .. }) = fact {
                let export = texts.export(&p, &camel(fact, true));
                let pairs = [("$D", rust_doc(doc, "")), ("$E", export.clone()), ("$F", fact.to_owned())];
                let pairs: Vec<(&str, &str)> = pairs.iter().map(|(key, value)| (*key, value.as_str())).collect();
                texts.rust.push('\n');
                texts.rust.push_str(&with(&[pairs.as_slice(), &[("$T", ty)]].concat(), FACT));
                members
                    .push(format!("{}  get {fact}() {{\n    return {export}(handle(this));\n  }}\n", jsdoc(doc, "  ")));
            }
        }
        Shape::Bundle => {
            let export = texts.export(&p, "Share");
            texts.rust.push_str(&format!(
                "\n/// Another handle on the same {name} (JS's `clone`).\n#[wasm_bindgen(js_name = {export})]\n\
                 pub fn {p}_share(handle: u32) -> JsValue {{\n    \
                 handle_js({p}(handle).and_then(|shared| objects::insert(Object::{variant}(shared))))\n}}\n"
            ));
            let mut makers: Vec<String> = class
                .constructors
                .iter()
                .filter(|constructor| constructor.args == [Arg::Compiled])
                .map(|constructor| format!("{name}.{}(form)", camel(constructor.name, false)))
                .collect();
            makers.push(format!("or {name}.fromConfig(config) outside the browser runtime"));
            members.push(fill(JS_BUNDLE, &[("$L", &p), ("$N", name), ("$M", &makers.join(", "))]));
            members.push(format!(
                "  /** Another handle on the same shared controls (free each handle on its own). */\n  clone() {{\n    \
                 return make(this.constructor, {export}(handle(this)));\n  }}\n"
            ));
        }
        Shape::Engine { .. } | Shape::Value { .. } => {}
    }
    for constructor in class.constructors {
        let (doc, js_doc) = (rust_doc(constructor.doc, ""), jsdoc(constructor.doc, "  "));
        let bundle = matches!(class.shape, Shape::Bundle);
        match constructor.args {
            [Arg::Config] => {
                let kind = class.config.ok_or_else(|| format!("{name}: a configuration with no kind"))?;
                let (what, function) = if bundle { ("FromConfig", "from_config") } else { ("New", "new") };
                let export = texts.export(&p, what);
                let pairs = [("$D", doc.as_str()), ("$E", &export), ("$F", function), ("$K", kind)];
                texts.rust.push('\n');
                texts
                    .rust
                    .push_str(&with(&[&pairs[..], &[("$O", &kept("made.map_err(js_error)?"))]].concat(), FROM_CONFIG));
                members.push(if bundle {
                    format!("{js_doc}  static fromConfig(config) {{\n    return make(this, decidedConfig({export}(config), config));\n  }}\n")
                } else {
                    format!("{js_doc}  constructor(config) {{\n    super(decidedConfig({export}(config), config));\n  }}\n")
                });
            }
            [Arg::Compiled] if bundle => {
                let export = texts.export(&p, &camel(constructor.name, true));
                let head =
                    with(&[("$D", &doc), ("$E", &export), ("$F", constructor.name), ("$A", "form: &[u8]")], HEAD);
                texts.rust.push_str(&format!(
                    "\n{head}    let made = rp::{core}::{}(form).map_err(compiled_error);\n    \
                     handle_js(made.and_then(|made| objects::insert({})))\n}}\n",
                    constructor.name,
                    kept("made")
                ));
                members.push(format!(
                    "{js_doc}  static {}(form) {{\n    return make(this, {export}(compiledForm('form', form)));\n  }}\n",
                    camel(constructor.name, false)
                ));
            }
            [arg @ Arg::Count(count)] if !bundle => {
                let export = texts.export(&p, "New");
                let head =
                    with(&[("$D", &doc), ("$E", &export), ("$F", "new"), ("$A", &format!("{count}: u32"))], HEAD);
                let made = kept(&format!("rp::{core}::new({count})"));
                texts.rust.push_str(&format!("\n{head}    handle_js(objects::insert({made}))\n}}\n"));
                members.push(format!(
                    "{js_doc}  constructor({}) {{\n    super(decided({export}({})));\n  }}\n",
                    camel(count, false),
                    js_arg(arg)?
                ));
            }
            // JSON text: in JS's tools entry (`methods_js_tools`).
            [Arg::Json] => {}
            other => return Err(format!("{name}.{}: no JS constructor for {other:?}", constructor.name)),
        }
    }
    methods(classes, class, &p, texts, &mut members)?;
    let body = if members.is_empty() { "}\n".to_owned() } else { format!("\n{}}}\n", members.join("\n")) };
    texts.js.push_str(&format!("\n{}export class {name} extends Held {{{body}", jsdoc(class.doc, "")));
    Ok(())
}

fn methods(
    classes: &[Class],
    class: &Class,
    p: &str,
    texts: &mut Texts,
    members: &mut Vec<String>,
) -> Result<(), String> {
    let name = class.name;
    let hands_back = |method: &Method| method.args.iter().any(|arg| matches!(arg, Arg::Grant { .. }));
    let settle: Vec<&Method> = class.methods.iter().filter(|method| hands_back(method)).collect();
    let maker = class
        .methods
        .iter()
        .find(|method| !settle.is_empty() && method.args.is_empty() && matches!(method.ret, Ret::Grant(_)));
    let getters = |ret: fn(&Ret) -> bool| -> Vec<&Method> {
        class.methods.iter().filter(|method| method.getter && ret(&method.ret)).collect()
    };
    let (controls, counts) = (getters(|ret| matches!(ret, Ret::Control(_))), getters(|ret| *ret == Ret::Count));
    let settle_now = settle.iter().any(|method| method.args.contains(&Arg::Now));
    let (mut control_arms, mut control_names, mut reads) = (String::new(), Vec::new(), Vec::new());
    for method in class.methods {
        let (js_name, call) = (camel(method.name, false), method.call.unwrap_or(method.name));
        let params: Vec<String> = method
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Flag(name) | Arg::Count(name) | Arg::Grant { name, .. } => camel(name, false),
                _ => "nowMs".to_owned(),
            })
            .collect();
        let head = if method.getter { format!("get {js_name}()") } else { format!("{js_name}({})", params.join(", ")) };
        let mut js_args = vec!["handle(this)".to_owned()];
        for arg in method.args.iter().filter(|arg| !matches!(arg, Arg::Grant { .. })) {
            js_args.push(js_arg(arg).map_err(|error| format!("{name}.{}: {error}", method.name))?);
        }
        let body = if let Some(which) = settle.iter().position(|settled| std::ptr::eq(*settled, method)) {
            let grant = method.args.iter().find(|arg| matches!(arg, Arg::Grant { .. })).ok_or("no grant")?;
            if settle_now && !method.args.contains(&Arg::Now) {
                js_args.push("0".to_owned());
            }
            js_args.extend([js_arg(grant)?, which.to_string()]);
            format!("    decided({}({}));\n", texts.export(p, "Settle"), js_args.join(", "))
        } else if maker.is_some_and(|maker| std::ptr::eq(maker, method)) {
            let Ret::Grant(grant) = method.ret else { return Err(format!("{name}.{}: not a maker", method.name)) };
            let export = texts.export(p, "Settle");
            js_made(
                grant,
                &format!("{export}(handle(this), {}0, {})", if settle_now { "0, " } else { "" }, settle.len()),
            )?
        } else if let Some(which) = controls.iter().position(|control| std::ptr::eq(*control, method)) {
            let Ret::Control(control) = method.ret else {
                return Err(format!("{name}.{}: not a control", method.name));
            };
            let Shape::Control { .. } = class_named(classes, control)?.shape else {
                return Err(format!("{name}.{}: {control} is not a control", method.name));
            };
            let variant = variant_of(control)?;
            control_arms.push_str(&format!(
                "            {which} if shared.{call}().is_some() => Object::{variant}(Control::Shared(shared)),\n"
            ));
            control_names.push(format!("{which} `{}`", method.name));
            format!("    return control({}(handle(this), {which}), {control});\n", texts.export(p, "Control"))
        } else if let Some(which) = counts.iter().position(|count| std::ptr::eq(*count, method)) {
            reads.push(format!("f64::from(control.{call}())"));
            format!("    return numbers({}(handle(this)))[{which}];\n", texts.export(p, "State"))
        } else if method.getter && method.ret == Ret::Outstanding {
            let Shape::Control { field, .. } = class.shape else {
                return Err(format!("{name}.{}: grants outstanding of what is not a control", method.name));
            };
            let (arms, getters) = &mut texts.outstanding;
            arms.push_str(&format!(
                "            Object::{}(control) => control.get(rp::Dependency::{field})?.{call}(),\n",
                variant_of(name)?
            ));
            getters.push(method.name);
            "    return _grantsOutstanding(handle(this));\n".to_owned()
        } else if in_tools(method) {
            continue;
        } else {
            let export = texts.export(p, &camel(method.name, true));
            own_export(class, method, p, &export, texts)?;
            let call = format!("{export}({})", js_args.join(", "));
            match method.ret {
                Ret::Grant(grant) => js_made(grant, &call)?,
                Ret::BoolOrError => format!("    return decided({call});\n"),
                _ => format!("    decided({call});\n"),
            }
        };
        members.push(format!("{}  {head} {{\n{body}  }}\n", jsdoc(method.doc, "  ")));
    }
    if !control_arms.is_empty() {
        let export = texts.export(p, "Control");
        let pairs = [
            ("$W", control_names.join(", ")),
            ("$A", control_arms),
            ("$E", export),
            ("$N", name.to_owned()),
            ("$P", p.to_owned()),
        ];
        texts.rust.push_str(&fill(
            CONTROLS_EXPORT,
            &pairs.iter().map(|(key, value)| (*key, value.as_str())).collect::<Vec<_>>(),
        ));
    }
    if !reads.is_empty() {
        let export = texts.export(p, "State");
        let names: Vec<&str> = counts.iter().map(|method| method.name).collect();
        texts.rust.push_str(&format!(
            "\n/// `[{}]` as numbers (`crate::wire::numbers`), or the `RetryplanError`.\n#[wasm_bindgen(js_name = {export})]\n\
             pub fn {p}_state(handle: u32) -> JsValue {{\n    either({p}(handle, |control| {{\n        \
             Ok(crate::wire::numbers(&[{}]))\n    }}))\n}}\n",
            names.join(", "),
            reads.join(", ")
        ));
    }
    if !settle.is_empty() {
        settle_export(class, p, &settle, maker, settle_now, texts)?;
    }
    Ok(())
}

/// A method of its own export.
fn own_export(class: &Class, method: &Method, p: &str, export: &str, texts: &mut Texts) -> Result<(), String> {
    let (mut params, mut args) = (vec!["handle: u32".to_owned()], Vec::new());
    for arg in method.args {
        let (param, read) = match *arg {
            Arg::Now => ("now_ms: f64".to_owned(), "now_ms as u64".to_owned()),
            Arg::Flag(name) => (format!("{name}: bool"), name.to_owned()),
            Arg::Count(name) => (format!("{name}: u32"), name.to_owned()),
            other => return Err(format!("{}.{}: no JS argument for {other:?}", class.name, method.name)),
        };
        params.push(param);
        args.push(read);
    }
    let call = format!("control.{}({})", method.call.unwrap_or(method.name), args.join(", "));
    let body = match method.ret {
        Ret::Unit => {
            format!("either({p}(handle, |control| {{\n        {call};\n        Ok(JsValue::UNDEFINED)\n    }}))")
        }
        Ret::UnitOrError | Ret::StepsOrError => {
            format!("either({p}(handle, |control| {call}.map(|()| JsValue::UNDEFINED).map_err(js_error)))")
        }
        Ret::BoolOrError => format!("either({p}(handle, |control| {call}.map(JsValue::from_bool).map_err(js_error)))"),
        Ret::Grant(grant) => {
            format!("handle_js({p}(handle, |control| Ok({call})).and_then(keep_{}))", prefix_of(grant)?)
        }
        other => return Err(format!("{}.{}: no JS export for {other:?}", class.name, method.name)),
    };
    let doc = rust_doc(method.doc, "");
    let head = fill(HEAD, &[("$D", &doc), ("$E", export), ("$P", p), ("$F", method.name), ("$A", &params.join(", "))]);
    texts.rust.push_str(&format!("\n{head}    {body}\n}}\n"));
    Ok(())
}

/// The methods handing a grant back, as one export (and the maker riding it).
fn settle_export(
    class: &Class,
    p: &str,
    settle: &[&Method],
    maker: Option<&Method>,
    now: bool,
    texts: &mut Texts,
) -> Result<(), String> {
    let mut grants = settle.iter().flat_map(|method| method.args).filter_map(|arg| match arg {
        Arg::Grant { class, .. } => Some(*class),
        _ => None,
    });
    let grant = grants.next().ok_or("no grant")?;
    let kind = prefix_of(grant)?;
    let optional =
        settle.iter().flat_map(|method| method.args).any(|arg| matches!(arg, Arg::Grant { optional: true, .. }));
    if grants.any(|other| other != grant) {
        return Err(format!("{}: a second grant class handed back", class.name));
    }
    // When every method needs the grant, it is required once, before the choice.
    let required = format!("grant.ok_or_else(|| objects::freed(\"{kind}\"))");
    let taken = if optional {
        format!("take_{kind}(grant)")
    } else {
        format!("take_{kind}(grant)?.ok_or_else(|| objects::freed(\"{kind}\"))")
    };
    let mut calls = Vec::new();
    for method in settle {
        let args: Vec<String> = method
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Grant { optional: false, .. } if optional => Ok(format!("{required}?")),
                Arg::Grant { .. } => Ok("grant".to_owned()),
                Arg::Now => Ok("now_ms".to_owned()),
                other => Err(format!("{}.{}: no JS settle argument for {other:?}", class.name, method.name)),
            })
            .collect::<Result<_, _>>()?;
        calls.push(format!("control.{}({})", method.call.unwrap_or(method.name), args.join(", ")));
    }
    let settled = match calls.as_slice() {
        [call] => call.clone(),
        _ => {
            let arms: Vec<String> = calls
                .iter()
                .enumerate()
                .map(|(which, call)| {
                    let pattern = if which + 1 == calls.len() { "_".to_owned() } else { which.to_string() };
                    format!("                {pattern} => {call},\n")
                })
                .collect();
            format!("match which {{\n{}            }}", arms.concat())
        }
    };
    let mut whiches: Vec<String> =
        settle.iter().enumerate().map(|(which, method)| format!("{which} `{}`", method.name)).collect();
    let mut ride = String::new();
    if let Some(method @ Method { ret: Ret::Grant(made), .. }) = maker {
        let which = settle.len();
        whiches.push(format!("{which} `{}` (a grant's handle, 0 when none; `grant` unread)", method.name));
        ride = format!(
            "    if which == {which} {{\n        return handle_js({p}(handle, |control| Ok(control.{}())).and_then(keep_{}));\n    }}\n",
            method.call.unwrap_or(method.name),
            prefix_of(made)?
        );
    }
    if now {
        ride.push_str("    let now_ms = now_ms as u64;\n");
    }
    let doc = rust_doc(
        &format!(
            "Hands back the {grant} `grant` names (0 for none) to the {0} `handle` names: `which` {1}. The {0} is checked \
             before the grant is taken: one handed to a freed handle stays unsettled, for a live one to settle.",
            class.name,
            whiches.join(", ")
        ),
        "",
    );
    let export = texts.export(p, "Settle");
    let pairs = [
        ("$D", doc.as_str()),
        ("$E", &export),
        ("$P", p),
        ("$A", if now { " now_ms: f64," } else { "" }),
        ("$M", &ride),
        ("$T", &taken),
        ("$S", &settled),
    ];
    texts.rust.push('\n');
    texts.rust.push_str(&fill(SETTLE, &pairs));
    Ok(())
}
