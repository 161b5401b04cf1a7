//! JS's tools entry (`retryplan/tools`): what the methods definition holds
//! that only the tools entry has. The shared controls' snapshots and
//! constructors reading JSON text (`methods::CONTROLS`: the methods
//! `methods_js::in_tools` leaves to this writer, and `Dependency.fromJson`,
//! read as the tools read any JSON text: `tools::json_value`), and the policy's methods that call a core function given the
//! policy first (`methods::POLICY`, its `js` flag on; JS keeps by hand what
//! `BY_HAND` names, and what the family does not hold: `fromJson`,
//! `toConfig`, the default entry's getters). Each is a wasm export
//! (`bindings-js/src/tools_generated.rs`, included by `src/tools.rs`), the JS
//! calling it (a method of its class, or a function of the policy first where
//! `FUNCTIONS_OF_POLICY` says: the generated sections of `lib/tools.js`) and
//! its declaration (the sections of `lib/tools.d.ts`, one per class).
//!
//! How each kind is spelt, as the tools' hand-written exports spell it: the
//! export takes each argument as a `JsValue` and checks it, named in
//! camelCase: a count a whole number (`args::whole`, up to `u32::MAX`), a time
//! in ms a number (`args::ms`), one that may be absent `undefined` or `null`
//! (`args::optional_ms`), an outcome an outcome object (`args::outcome`); the
//! arguments are read before the object. JS cannot leave out an argument and
//! give a later one, so a time after one that may be absent may be absent
//! too, 0 then. A value or a snapshot comes back as a plain object with
//! camelCase keys (`tools::to_js`), time spans as an array of numbers, an
//! error of the core thrown as the `RetryplanError`.

use std::path::Path;

use crate::methods::{Arg, Class, Family, Method, Ret, Shape, Through};
use crate::methods_js::{camel, in_tools, prefix_of};
use crate::methods_js_engine::{js_doc, wrapped};
use crate::output::{splice_section, Output, HEADER};
use crate::python_records::rust_doc;

pub const RUST: &str = "bindings-js/src/tools_generated.rs";
pub const TOOLS_JS: &str = "bindings-js/lib/tools.js";
pub const TOOLS_DTS: &str = "bindings-js/lib/tools.d.ts";

/// What the markers of the sections of `lib/tools.js` name: the exports imported, the methods, the functions of
/// the policy (those of `lib/tools.d.ts` too, whose methods are one section per class, `class_section`).
const IMPORTS: &str = "the tools' exports (core/mirrors/src/methods/table.rs)";
const METHODS: &str = "the tools' methods (core/mirrors/src/methods/table.rs)";
const FUNCTIONS: &str = "the tools' functions (core/mirrors/src/methods/table.rs)";

/// What the markers of the section of class `name` in `lib/tools.d.ts` name.
fn class_section(name: &str) -> String {
    format!("{name}'s tools (core/mirrors/src/methods/table.rs)")
}

/// The methods (`Class.name`) of the policy's family JS keeps by hand, and why.
pub(crate) const BY_HAND: &[(&str, &str)] = &[
    ("Policy.sends_idempotency_key", "the default entry's getter, read with the policy's facts (`_policyInfo`)"),
    ("Policy.to_json", "JS's own JSON text of the configuration (`JSON.stringify`, numbers as JS prints them)"),
    ("Policy.to_compiled", "`compilePolicy`, which reads a configuration or JSON text first"),
];

/// The methods (`Class.name`) JS exports as a function of the policy, first (`redeliver(policy, ...)`).
const FUNCTIONS_OF_POLICY: &[&str] = &["Policy.redeliver"];

/// One method as the four files spell it.
struct Spelt {
    class: &'static str,
    rust: String,
    export: String,
    js: String,
    dts: String,
    function: bool,
    /// A constructor: on the class, not its prototype.
    constructor: bool,
}

/// The generated file and the two files holding generated sections, under `root`.
pub fn outputs(root: &Path, controls: &[Class], policy: &Family) -> Result<[Output; 3], String> {
    let mut spelt = Vec::new();
    for class in controls {
        for constructor in class.constructors.iter().filter(|constructor| constructor.args == [Arg::Json]) {
            spelt.push(json_constructor_spelt(class, constructor)?);
        }
        for method in class.methods.iter().filter(|method| in_tools(method)) {
            spelt.push(method_spelt(class, method)?);
        }
    }
    spelt.extend(policy_spelt(policy)?);
    let read = |path: &str| std::fs::read_to_string(root.join(path)).map_err(|e| format!("{path}: {e}"));
    let joined = |list: &[&Spelt], part: fn(&Spelt) -> &str, between: &str| {
        list.iter().map(|spelt| part(spelt)).collect::<Vec<_>>().join(between)
    };
    let (methods, functions): (Vec<&Spelt>, Vec<&Spelt>) = spelt.iter().partition(|spelt| !spelt.function);
    let mut classes: Vec<&str> = methods.iter().map(|spelt| spelt.class).collect();
    classes.dedup();
    let (mut assigned, mut dts) = (Vec::new(), read(TOOLS_DTS)?);
    for class in classes {
        let of: Vec<&Spelt> = methods.iter().copied().filter(|spelt| spelt.class == class).collect();
        for (constructors, on) in [(true, class.to_owned()), (false, format!("{class}.prototype"))] {
            let members: Vec<&Spelt> = of.iter().copied().filter(|spelt| spelt.constructor == constructors).collect();
            if !members.is_empty() {
                assigned.push(format!("Object.assign({on}, {{\n{}}});\n", joined(&members, |s| &s.js, "")));
            }
        }
        dts = splice_section(&dts, TOOLS_DTS, "//", &class_section(class), &joined(&of, |s| &s.dts, ""))?;
    }
    let dts = splice_section(&dts, TOOLS_DTS, "//", FUNCTIONS, &joined(&functions, |s| &s.dts, ""))?;
    let mut exports: Vec<&str> = spelt.iter().map(|spelt| spelt.export.as_str()).collect();
    exports.sort_unstable();
    let import = format!(
        "import {{\n{}}} from '../wasm/retryplan_js.js';\n",
        exports.iter().map(|e| format!("  {e},\n")).collect::<String>()
    );
    let js = splice_section(&read(TOOLS_JS)?, TOOLS_JS, "//", IMPORTS, &import)?;
    let js = splice_section(&js, TOOLS_JS, "//", METHODS, &assigned.join("\n"))?;
    let js = splice_section(&js, TOOLS_JS, "//", FUNCTIONS, &joined(&functions, |s| &s.js, "\n"))?;
    let rust = format!(
        "// {HEADER}\n// From the definition of the controls' and the policy's methods (core/mirrors/src/methods/table.rs), \
         included by tools.rs.\n{}",
        joined(&spelt.iter().collect::<Vec<_>>(), |s| &s.rust, "")
    );
    Ok([Output { path: RUST, text: rust }, Output { path: TOOLS_JS, text: js }, Output { path: TOOLS_DTS, text: dts }])
}

/// Each method of the policy's family JS writes (not `BY_HAND`), spelt.
fn policy_spelt(family: &Family) -> Result<Vec<Spelt>, String> {
    if !family.js {
        return Err("Policy: JS keeps this family by hand (its `js` flag is off)".to_owned());
    }
    let [class @ Class { shape: Shape::Value { .. }, .. }] = family.classes else {
        return Err("JS's tools writer writes a policy's family of one value class".to_owned());
    };
    let mut all = Vec::new();
    for method in class.methods {
        let key = format!("{}.{}", class.name, method.name);
        if !BY_HAND.iter().any(|(name, _)| *name == key) {
            all.push(method_spelt(class, method)?);
        }
    }
    Ok(all)
}

fn method_spelt(class: &Class, method: &Method) -> Result<Spelt, String> {
    let key = format!("{}.{}", class.name, method.name);
    let function = FUNCTIONS_OF_POLICY.contains(&key.as_str());
    let (name, js_name) = (method.name, camel(method.name, false));
    let p = match class.shape {
        Shape::Value { .. } => "policy".to_owned(),
        _ => prefix_of(class.name)?,
    };
    let export = format!("_{p}{}", camel(method.name, true));
    let (mut params, mut reads, mut args, mut names, mut types) =
        (vec!["handle: u32".to_owned()], String::new(), Vec::new(), Vec::new(), Vec::new());
    let mut optional = false;
    for arg in method.args {
        let (rust_name, js) = match *arg {
            Arg::Now => ("now_ms", "nowMs".to_owned()),
            Arg::Count(name) | Arg::Ms(name) | Arg::OptionalMs(name) | Arg::Instance { name, .. } => {
                (name, camel(name, false))
            }
            other => return Err(format!("{key}: no JS argument for {other:?}")),
        };
        let read = match *arg {
            Arg::Count(_) => format!("crate::args::whole(\"{js}\", {rust_name}, f64::from(u32::MAX))? as u32"),
            Arg::Now | Arg::Ms(_) if optional => {
                format!("crate::args::optional_ms(\"{js}\", {rust_name})?.unwrap_or(0)")
            }
            Arg::Now | Arg::Ms(_) => format!("crate::args::ms(\"{js}\", {rust_name})?"),
            Arg::OptionalMs(_) => format!("crate::args::optional_ms(\"{js}\", {rust_name})?"),
            Arg::Instance { class: "Outcome", .. } => format!("crate::args::outcome({rust_name})?"),
            other => return Err(format!("{key}: no JS argument for {other:?}")),
        };
        optional |= matches!(arg, Arg::OptionalMs(_));
        let ty = match *arg {
            Arg::Instance { class, .. } => class,
            _ => "number",
        };
        types.push(format!("{js}{}: {ty}", if optional { "?" } else { "" }));
        params.push(format!("{rust_name}: &JsValue"));
        reads.push_str(&format!("    let {rust_name} = {read};\n"));
        args.push(if matches!(arg, Arg::Instance { .. }) { format!("&{rust_name}") } else { rust_name.to_owned() });
        names.push(js);
    }
    // The object the method is called on, and the call: the core's function given the policy, or the method of
    // the dependency or control the handle names (the control's accessor of `controls_generated.rs` lends it).
    let (fetch, call) = match (class.shape, method.through) {
        (Shape::Value { .. }, Some(Through::Function { path, .. })) => (
            "    let policy = crate::objects::policy(handle)?;\n".to_owned(),
            format!("rp::{path}({})", ["&policy".to_owned()].into_iter().chain(args).collect::<Vec<_>>().join(", ")),
        ),
        (Shape::Bundle, None) => (
            format!("    let {p} = crate::controls::{p}(handle)?;\n"),
            format!("{p}.{}({})", method.call.unwrap_or(name), args.join(", ")),
        ),
        (Shape::Control { .. }, None) => {
            (String::new(), format!("control.{}({})", method.call.unwrap_or(name), args.join(", ")))
        }
        _ => {
            return Err(format!(
                "{key}: JS's tools writer writes a core function given the policy, or a control's own method"
            ))
        }
    };
    let (ty, body, ts) = match method.ret {
        Ret::ValueOrError(value) => ("Result<JsValue, JsValue>", format!("to_js(&{call}.map_err(js_error)?)"), value),
        Ret::Snapshot(value) => ("Result<JsValue, JsValue>", format!("to_js(&{call})"), value),
        Ret::SpansOrError => (
            "Result<js_sys::Array, JsValue>",
            format!("Ok({call}.map_err(js_error)?.into_iter().map(|ms| JsValue::from_f64(num(ms))).collect())"),
            "number[]",
        ),
        other => return Err(format!("{key}: no JS result for {other:?}")),
    };
    let body = match class.shape {
        Shape::Control { .. } => format!("crate::controls::{p}(handle, |control| {body})"),
        _ => body,
    };
    let rust = format!(
        "\n{}#[wasm_bindgen(js_name = {export})]\npub fn {p}_{name}({}) -> {ty} {{\n{reads}{fetch}    {body}\n}}\n",
        rust_doc(method.doc, ""),
        params.join(", ")
    );
    // A time made optional by its place says what it is when left out.
    let mut text = js_doc(method);
    for (arg, js) in method.args.iter().zip(&names).skip_while(|(arg, _)| !matches!(arg, Arg::OptionalMs(_))) {
        if matches!(arg, Arg::Now | Arg::Ms(_)) {
            text.push_str(&format!(" `{js}` may be left out too (0)."));
        }
    }
    let js_doc = wrapped(&text);
    let given = names.join(", ");
    if function {
        let typed: Vec<String> = ["policy: Policy".to_owned()].into_iter().chain(types).collect();
        let (doc, dts) = (dedent(&js_doc), declaration(&format!("export function {js_name}"), &typed, ts, ""));
        return Ok(Spelt {
            class: class.name,
            constructor: false,
            rust,
            export: export.clone(),
            js: format!(
                "{doc}export function {js_name}(policy, {given}) {{\n  return {export}(handleOf('policy', policy, \
                 Policy), {given});\n}}\n"
            ),
            dts: format!("{doc}{dts}"),
            function,
        });
    }
    let js = format!("{js_doc}  {js_name}({given}) {{\n    return {export}(handle(this), {given});\n  }},\n");
    let dts = format!("{js_doc}{}", declaration(&format!("  {js_name}"), &types, ts, "  "));
    Ok(Spelt { class: class.name, rust, export, js, dts, function, constructor: false })
}

/// A dependency's constructor reading JSON text (the only class of the controls with one), as the tools read any
/// JSON text (`tools::json_value`: the host parses it, the core's reader reads it).
fn json_constructor_spelt(class: &Class, constructor: &Method) -> Result<Spelt, String> {
    let (key, name) = (format!("{}.{}", class.name, constructor.name), constructor.name);
    let (Shape::Bundle, Some(kind)) = (class.shape, class.config) else {
        return Err(format!("{key}: JS's tools writer reads JSON text into the dependency's controls alone"));
    };
    let (p, js_name) = (prefix_of(class.name)?, camel(name, false));
    let export = format!("_{p}{}", camel(name, true));
    let rust = format!(
        "\n{}#[wasm_bindgen(js_name = {export})]\npub fn {p}_{name}(json: &JsValue) -> JsValue {{\n    \
         crate::policy::handle_js(json_value(json, rp::config::error::ConfigKind::{kind}).and_then(|value| {{\n        \
         crate::controls::keep_{p}_config(&rp::{kind}Config::from_value(&value).map_err(js_error)?)\n    }}))\n}}\n",
        rust_doc(constructor.doc, "")
    );
    let doc = wrapped(&format!(
        "{} The text is in the shared snake_case schema (a key it repeats is refused, as in every language); throws \
         \"invalid_config\" or \"config_violations\".",
        js_doc(constructor)
    ));
    Ok(Spelt {
        class: class.name,
        js: format!("{doc}  {js_name}(json) {{\n    return make(this, {export}(json));\n  }},\n"),
        dts: format!("{doc}  static {js_name}(json: string): {};\n", class.name),
        rust,
        export,
        function: false,
        constructor: true,
    })
}

/// `{head}(a: T, b: U): R;` on one line when it fits Biome's width, else one parameter a line at `indent`.
fn declaration(head: &str, types: &[String], ret: &str, indent: &str) -> String {
    let line = format!("{head}({}): {ret};\n", types.join(", "));
    if line.len() <= 121 {
        return line;
    }
    let params: String = types.iter().map(|ty| format!("{indent}  {ty},\n")).collect();
    format!("{head}(\n{params}{indent}): {ret};\n")
}

/// A method's JSDoc (at two spaces) at the top level.
fn dedent(text: &str) -> String {
    text.lines().map(|line| format!("{}\n", line.strip_prefix("  ").unwrap_or(line))).collect()
}

#[cfg(test)]
mod tests {
    use crate::methods::{method, Arg, Family, Method, Ret, Through, CONTROLS, POLICY};

    /// The policy's family with `added` among its methods.
    fn with(added: Method) -> Family {
        let mut classes = POLICY.classes.to_vec();
        classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
        Family { classes: Box::leak(classes.into_boxed_slice()), ..POLICY }
    }

    fn texts(family: &Family) -> Result<[String; 3], String> {
        Ok(super::outputs(&crate::workspace_root(), &CONTROLS, family)?.map(|output| output.text))
    }

    /// Each method of the family JS writes is an export reading its arguments before the policy, a method of
    /// `Policy` (or a function of the policy first) calling it, and its declaration; a time after one that may be
    /// absent may be absent too, in JS and in TypeScript.
    #[test]
    fn the_policy_methods_reach_the_tools_entry() {
        let [rust, js, dts] = texts(&POLICY).unwrap();
        assert!(
            rust.contains(
                "    let first_attempt_at_ms = crate::args::optional_ms(\"firstAttemptAtMs\", first_attempt_at_ms)?.unwrap_or(0);\n    \
                 let policy = crate::objects::policy(handle)?;\n    to_js(&rp::explain(&policy, deadline_ms, first_attempt_at_ms).map_err(js_error)?)\n"
            ),
            "{rust}"
        );
        assert!(
            js.contains("  classify(outcome) {\n    return _policyClassify(handle(this), outcome);\n  },\n"),
            "{js}"
        );
        assert!(
            js.contains(
                "export function redeliver(policy, attempts, firstSeenMs, nowMs, outcome) {\n  return \
                 _policyRedeliver(handleOf('policy', policy, Policy), attempts, firstSeenMs, nowMs, outcome);\n}\n"
            ),
            "{js}"
        );
        assert!(dts.contains("  explain(deadlineMs?: number, firstAttemptAtMs?: number): Timeline;\n"), "{dts}");
        assert!(dts.contains("export function redeliver(\n  policy: Policy,\n  attempts: number,\n"), "{dts}");
        // What JS keeps by hand is not written.
        for (key, _) in super::BY_HAND {
            let name = key.trim_start_matches("Policy.");
            assert!(!rust.contains(&format!("pub fn policy_{name}(")), "{key}");
        }
    }

    /// A control's snapshot is read by its accessor, the dependency's from the dependency, each a method of its
    /// class in the tools entry alone (the default entry's classes have none: `methods_js::in_tools`); the
    /// dependency's constructor from JSON text is a static method there, read as the tools read JSON text.
    #[test]
    fn the_controls_tools_reach_the_tools_entry() {
        let [rust, js, dts] = texts(&POLICY).unwrap();
        assert!(
            rust.contains(
                "pub fn budget_snapshot(handle: u32, now_ms: &JsValue) -> Result<JsValue, JsValue> {\n    \
                 let now_ms = crate::args::ms(\"nowMs\", now_ms)?;\n    \
                 crate::controls::budget(handle, |control| to_js(&control.snapshot(now_ms)))\n}\n"
            ),
            "{rust}"
        );
        assert!(rust.contains(
            "    let dependency = crate::controls::dependency(handle)?;\n    to_js(&dependency.snapshot(now_ms))\n"
        ));
        assert!(js.contains("Object.assign(CircuitBreaker.prototype, {\n  /** The breaker's state at `nowMs`. */\n  snapshot(nowMs) {\n"));
        assert!(dts.contains("  snapshot(nowMs: number): DependencySnapshot;\n"), "{dts}");
        assert!(rust.contains(
            "pub fn dependency_from_json(json: &JsValue) -> JsValue {\n    \
             crate::policy::handle_js(json_value(json, rp::config::error::ConfigKind::Dependency)"
        ));
        assert!(js.contains("Object.assign(Dependency, {\n  /**\n"), "{js}");
        assert!(js.contains("  fromJson(json) {\n    return make(this, _dependencyFromJson(json));\n  },\n"), "{js}");
        assert!(dts.contains("  static fromJson(json: string): Dependency;\n"), "{dts}");
        let [controls, _] = crate::methods_js::outputs(&CONTROLS).unwrap().map(|output| output.text);
        assert!(!controls.contains("_budgetSnapshot"), "{controls}");
    }

    /// A method added to the family is one entry: it reaches the tools' export, `Policy` and its declaration.
    #[test]
    fn a_new_policy_method_reaches_js() {
        let through = Some(Through::Function {
            path: "engine::backoff::backoff_ceilings_ms",
            source: "core/src/engine/backoff/mod.rs",
        });
        let added = Method {
            through,
            ..method(
                "ceilings_again",
                "The ceilings of `retries` retries.",
                &[Arg::Count("retries")],
                Ret::SpansOrError,
            )
        };
        let [rust, js, dts] = texts(&with(added)).unwrap();
        assert!(
            rust.contains(
                "#[wasm_bindgen(js_name = _policyCeilingsAgain)]\npub fn policy_ceilings_again(handle: u32, retries: \
                 &JsValue) -> Result<js_sys::Array, JsValue> {\n    let retries = crate::args::whole(\"retries\", retries, \
                 f64::from(u32::MAX))? as u32;\n"
            ),
            "{rust}"
        );
        assert!(js.contains("  ceilingsAgain(retries) {\n    return _policyCeilingsAgain(handle(this), retries);\n"));
        assert!(js.contains("  _policyCeilingsAgain,\n  _policyClassify,\n"), "{js}");
        assert!(
            dts.contains("  /** The ceilings of `retries` retries. */\n  ceilingsAgain(retries: number): number[];\n")
        );
    }

    /// A kind JS's writer cannot spell, or a method not through a core function, stops it, naming the method;
    /// and every method JS keeps by hand is one of the family's.
    #[test]
    fn what_js_cannot_write_is_named() {
        let through = Some(Through::Function { path: "explain", source: "core/src/tools/timeline.rs" });
        let added = Method { through, ..method("load", "Loads.", &[Arg::Compiled], Ret::ValueOrError("Timeline")) };
        assert!(texts(&with(added)).unwrap_err().contains("Policy.load: no JS argument for Compiled"));
        let added = method("again", "Its own.", &[], Ret::Bool);
        assert!(texts(&with(added)).unwrap_err().contains("Policy.again: JS's tools writer writes a core function"));
        assert!(texts(&Family { js: false, ..POLICY }).unwrap_err().contains("JS keeps this family by hand"));
        for (key, _) in
            super::BY_HAND.iter().map(|(key, why)| (*key, why)).chain([(super::FUNCTIONS_OF_POLICY[0], &"")])
        {
            let name = key.trim_start_matches("Policy.");
            assert!(POLICY.classes[0].methods.iter().any(|method| method.name == name), "{key}: not in the family");
        }
    }
}
