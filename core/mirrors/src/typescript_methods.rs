//! TypeScript: the declarations of the methods of the public `Driver` and
//! `Operation` (`lib/index.d.ts`), from the same families of the methods
//! definition (`methods::DRIVER`, `methods::ENGINE`) and with the same JSDoc
//! as JS's writer (`methods_js_engine`) gives `lib/driver.js` and
//! `lib/operation.js`, written between two marker lines inside each class: a
//! method added to a family reaches the class and its declaration at once.
//! The file keeps by hand what is not from the definition: the constructors
//! (with `DriverOptions`, `OperationOptions`), the getters (whose JS is by
//! hand too, `Running` in `lib/driver.js`) and `free()`.
//!
//! How each kind is typed, as JS's writer spells it: a clock reading
//! `nowMs: number`, always first; a count and a wall clock a `number`; a
//! value or an instance its class; what the host holds `holding?: Holding`;
//! a response `status` and `headers` (a function of the lower-case name, or
//! anything with a `get`, as `Headers` and `Map` are), its token and wall
//! clock one `options` object; a protocol an optional `Protocol`. A receipt
//! is a `Receipt`, headers a `Record<string, string>`, an action an
//! `Action`, an event a `DecisionEvent` or undefined, a decision a
//! `Decision` (or, where the core's doc says which, one kind: `NARROWED`),
//! a clock reading or none `number | undefined`, text a `string`. A
//! deprecated alias is declared as the method it calls, its JSDoc JS's.

use std::path::Path;

use crate::methods::{Arg, Class, Family, Method, Ret, Shape};
use crate::methods_js::camel;
use crate::methods_js_engine::{alias_doc, doc, DRIVER_NOT_EXPOSED, OPERATION_NOT_EXPOSED, OPERATION_SECTION, SECTION};
use crate::output::Output;

/// The types of the default entry, hand-written around the generated sections of `Driver` and `Operation`.
pub const INDEX_DTS: &str = "bindings-js/lib/index.d.ts";

/// Biome's line width (`bindings-js/biome.json`): a longer signature has one parameter a line.
const LINE_WIDTH: usize = 120;

/// Each class declared: its name, what the markers of its section name (those of its JS, `methods_js_engine`)
/// and the methods (`Class.name`) JS's class does not have.
const CLASSES: &[(&str, &str, &[&str])] =
    &[("Driver", SECTION, DRIVER_NOT_EXPOSED), ("Operation", OPERATION_SECTION, OPERATION_NOT_EXPOSED)];

/// The decisions TypeScript types as one kind, where the core's doc says it is the only one (its Rust type is
/// `Decision`): `Operation::cancel` gives up.
const NARROWED: &[(&str, &str)] = &[("Operation.cancel", "GaveUp")];

/// `lib/index.d.ts` under `root` with the generated section of each class of `families` written from it.
pub fn output(root: &Path, families: &[&Family]) -> Result<Output, String> {
    let mut text = std::fs::read_to_string(root.join(INDEX_DTS)).map_err(|e| format!("{INDEX_DTS}: {e}"))?;
    for family in families {
        let (_, marker, _) = declared(family)?;
        text = crate::output::splice_section(&text, INDEX_DTS, "//", marker, &section(family)?)?;
    }
    Ok(Output { path: INDEX_DTS, text })
}

/// The family's one class, with its entry of `CLASSES`.
fn declared(family: &Family) -> Result<(&Class, &'static str, &'static [&'static str]), String> {
    if !family.js {
        let names: Vec<&str> = family.classes.iter().map(|class| class.name).collect();
        return Err(format!("{}: JS keeps this family by hand (its `js` flag is off)", names.join(", ")));
    }
    let [class @ Class { shape: Shape::Engine { .. }, .. }] = family.classes else {
        return Err("the TypeScript writer writes a family of one engine class".to_owned());
    };
    let (_, marker, not_exposed) = CLASSES
        .iter()
        .find(|(name, ..)| *name == class.name)
        .ok_or_else(|| format!("{}: the TypeScript writer writes `Driver` and `Operation`", class.name))?;
    Ok((class, marker, not_exposed))
}

/// The declarations of the methods of JS's class of `family` (those `methods_js_engine` writes).
pub fn section(family: &Family) -> Result<String, String> {
    let (class, _, not_exposed) = declared(family)?;
    let mut members = String::new();
    for method in class.methods.iter().filter(|method| !method.getter) {
        let key = format!("{}.{}", class.name, method.name);
        if !not_exposed.contains(&key.as_str()) {
            members.push_str(&if method.deprecated { alias_doc(method) } else { doc(method) });
            members.push_str(&signature(&key, method)?);
        }
    }
    Ok(members)
}

/// The declaration of `method`: its parameters in JS's order (the clock reading first), and its result.
fn signature(key: &str, method: &Method) -> Result<String, String> {
    let mut params = Vec::new();
    if method.args.contains(&Arg::Now) {
        params.push("nowMs: number".to_owned());
    }
    let mut options_typed = false;
    for arg in method.args {
        match *arg {
            Arg::Now => {}
            Arg::Count(name) => params.push(format!("{}: number", camel(name, false))),
            Arg::Value { name, class } | Arg::Instance { name, class } => {
                params.push(format!("{}: {class}", camel(name, false)));
            }
            Arg::HeldToken => params.push("holding?: Holding".to_owned()),
            Arg::Response => params.extend([
                "status: number".to_owned(),
                "headers: ((name: string) => string | null | undefined) | { get(name: string): string | null | undefined }"
                    .to_owned(),
            ]),
            // `{token, nowUnixMs, redirected}`: one options object.
            Arg::Token | Arg::NowUnix | Arg::Flag(_) if !options_typed => {
                options_typed = true;
                let mut fields: Vec<String> =
                    [(Arg::Token, "token?: number"), (Arg::NowUnix, "nowUnixMs?: number")]
                        .into_iter()
                        .filter(|(kind, _)| method.args.contains(kind))
                        .map(|(_, field)| field.to_owned())
                        .collect();
                fields.extend(method.args.iter().filter_map(|arg| match *arg {
                    Arg::Flag(flag) => Some(format!("{}?: boolean", camel(flag, false))),
                    _ => None,
                }));
                params.push(format!("options?: {{ {} }}", fields.join("; ")));
            }
            Arg::Token | Arg::NowUnix | Arg::Flag(_) => {}
            Arg::Protocol => params.push("protocol?: Protocol".to_owned()),
            other => return Err(format!("{key}: no TypeScript type for the argument {other:?}")),
        }
    }
    let narrowed = NARROWED.iter().find(|(name, _)| *name == key).map(|(_, kind)| *kind);
    let ret = match method.ret {
        Ret::DecisionOrError => narrowed.unwrap_or("Decision"),
        Ret::OptionalMs => "number | undefined",
        Ret::Text(_) => "string",
        Ret::ActionOrError => "Action",
        Ret::ReceiptOrError => "Receipt",
        Ret::HeadersOrError | Ret::Headers => "Record<string, string>",
        Ret::Event => "DecisionEvent | undefined",
        Ret::Steps | Ret::Unit | Ret::UnitOrError | Ret::StepsOrError => "void",
        Ret::Ms | Ret::Count => "number",
        Ret::Bool | Ret::BoolOrError => "boolean",
        other => return Err(format!("{key}: no TypeScript type for the result {other:?}")),
    };
    let name = camel(method.name, false);
    let line = format!("  {name}({}): {ret};\n", params.join(", "));
    if line.len() - 1 <= LINE_WIDTH {
        return Ok(line);
    }
    let params: String = params.iter().map(|param| format!("    {param},\n")).collect();
    Ok(format!("  {name}(\n{params}  ): {ret};\n"))
}

#[cfg(test)]
mod tests {
    use crate::methods::{method, Arg, Family, Ret, DRIVER, ENGINE};
    use crate::methods_js::camel;

    /// `family` with `added` among its methods.
    fn with(family: &Family, added: crate::methods::Method) -> Family {
        let mut classes = family.classes.to_vec();
        classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
        Family { classes: Box::leak(classes.into_boxed_slice()), ..*family }
    }

    /// A method added to the driver's or the engine's family reaches the declarations of JS's class with its
    /// types and the JSDoc `lib/driver.js` or `lib/operation.js` gets.
    #[test]
    fn a_new_method_reaches_the_declarations() {
        let added = method("remaining_ms", "Time left at `now`, in ms.", &[Arg::Now, Arg::Count("attempt")], Ret::Ms);
        let types = super::section(&with(&DRIVER, added)).unwrap();
        assert!(
            types.contains(
                "  /** Time left at `nowMs`, in ms. */\n  remainingMs(nowMs: number, attempt: number): number;\n"
            ),
            "{types}"
        );
        const OUTCOME: Arg = Arg::Instance { name: "outcome", class: "Outcome" };
        let added =
            method("retry", "Retries `attempt`.", &[Arg::Now, Arg::Count("attempt"), OUTCOME], Ret::DecisionOrError);
        let types = super::section(&with(&ENGINE, added)).unwrap();
        assert!(
            types.contains(
                "  /** Retries `attempt`. */\n  retry(nowMs: number, attempt: number, outcome: Outcome): Decision;\n"
            ),
            "{types}"
        );
        // The one decision the core's `cancel` makes, and the deprecated alias, declared as JS has them.
        let types = super::section(&ENGINE).unwrap();
        assert!(types.contains("  cancel(nowMs: number): GaveUp;\n"), "{types}");
        assert!(types.contains("  /** @deprecated Alias of `remainingMs`"), "{types}");
        assert!(types.contains("  remainingBudgetMs(nowMs: number): number;\n"), "{types}");
        // A kind with no TypeScript type stops the generator, naming the method; so does a family of no class it
        // declares, or with its `js` flag off.
        let error = super::section(&with(&DRIVER, method("load", "Loads a form.", &[Arg::Compiled], Ret::Unit)));
        let error = error.unwrap_err();
        assert!(error.contains("Driver.load: no TypeScript type for the argument Compiled"), "{error}");
        let error = super::section(&Family { js: false, ..ENGINE }).unwrap_err();
        assert!(error.contains("Operation: JS keeps this family by hand"), "{error}");
    }

    /// Each narrowed result names a method of the engine's or the driver's family that returns a decision.
    #[test]
    fn each_narrowed_result_is_a_decision_of_the_definition() {
        for (key, _) in super::NARROWED {
            let found = [&DRIVER, &ENGINE].iter().flat_map(|family| family.classes).any(|class| {
                class.methods.iter().any(|method| {
                    format!("{}.{}", class.name, method.name) == *key && method.ret == Ret::DecisionOrError
                })
            });
            assert!(found, "{key}: no method of the definition returning a decision");
        }
    }

    /// Every method JS's `Driver` and `Operation` have (the generated sections of `lib/driver.js` and
    /// `lib/operation.js`) is declared, with its JSDoc, between the markers of the committed `lib/index.d.ts`, and
    /// nothing else is declared there.
    #[test]
    fn every_method_is_declared_in_the_committed_types() {
        let root = crate::workspace_root();
        let types = std::fs::read_to_string(root.join(super::INDEX_DTS)).unwrap();
        let between = |text: &str, marker: &str| -> String {
            let begin = format!("// {}: {marker}\n", crate::output::HEADER);
            let end = format!("// end of what core/mirrors writes: {marker}\n");
            text.split(&begin).nth(1).unwrap().split(&end).next().unwrap().to_owned()
        };
        let members = |text: &str, tail: &str| -> Vec<String> {
            let mut names: Vec<String> = text
                .lines()
                .filter_map(|line| line.strip_prefix("  ")?.split_once('(').map(|(name, _)| name.to_owned()))
                .filter(|name| name.chars().all(char::is_alphanumeric))
                .collect();
            names.sort_unstable();
            assert!(!names.is_empty(), "no member in {tail}");
            names
        };
        let driver_js = crate::methods_js_engine::driver_output(&root, &DRIVER).unwrap().text;
        let operation_js = crate::methods_js_engine::operation_output(&root, &ENGINE).unwrap().text;
        for (family, js) in [(&DRIVER, driver_js), (&ENGINE, operation_js)] {
            let (class, marker, not_exposed) = super::declared(family).unwrap();
            let body = types.split(&format!("\nexport class {} {{\n", class.name)).nth(1).unwrap();
            let section = between(body.split("\n}\n").next().unwrap(), marker);
            assert_eq!(members(&section, "index.d.ts"), members(&between(&js, marker), class.name));
            // JS's spelling, no Rust's (the rest of the file is hand-written).
            for rust in ["::", "Option<", "Vec<"] {
                assert!(!section.contains(rust), "{rust} in {section}");
            }
            for method in class.methods.iter().filter(|method| !method.getter) {
                let name = camel(method.name, false);
                if not_exposed.contains(&format!("{}.{}", class.name, method.name).as_str()) {
                    assert!(!section.contains(&format!("  {name}(")), "{name}: JS's {} has no such method", class.name);
                    continue;
                }
                let doc = if method.deprecated { super::alias_doc(method) } else { super::doc(method) };
                let declared = format!("{doc}  {name}(");
                assert!(section.contains(&declared), "{name}: not declared with its JSDoc in {}", super::INDEX_DTS);
            }
        }
    }
}
