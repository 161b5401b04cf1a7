//! TypeScript: the declarations of the public `Driver`'s methods
//! (`lib/index.d.ts`), from the same family of the methods definition
//! (`methods::DRIVER`) and with the same JSDoc as JS's writer
//! (`methods_js_engine`) gives `lib/driver.js`, written between two marker
//! lines inside `export class Driver`: a method added to the family reaches
//! the class and its declaration at once. The file keeps by hand the
//! constructor (with `DriverOptions`), the getters and `free()`.
//!
//! How each kind is typed, as JS's writer spells it: a clock reading
//! `nowMs: number`, always first; a count and a wall clock a `number`; a
//! value or an instance its class; what the host holds `holding?: Holding`;
//! a response `status` and `headers` (a function of the lower-case name, or
//! anything with a `get`, as `Headers` and `Map` are), its token and wall
//! clock one `options` object; a protocol an optional `Protocol`. A receipt
//! is a `Receipt`, headers a `Record<string, string>`, an action an
//! `Action`, an event a `DecisionEvent` or undefined.

use std::path::Path;

use crate::methods::{Arg, Class, Family, Method, Ret, Shape};
use crate::methods_js::camel;
use crate::methods_js_engine::{doc, DRIVER_NOT_EXPOSED, SECTION};
use crate::output::Output;

/// The types of the default entry, hand-written around the generated section of `Driver`.
pub const INDEX_DTS: &str = "bindings-js/lib/index.d.ts";

/// Biome's line width (`bindings-js/biome.json`): a longer signature has one parameter a line.
const LINE_WIDTH: usize = 120;

/// `lib/index.d.ts` under `root` with its generated section of `Driver` written from `family`.
pub fn driver_output(root: &Path, family: &Family) -> Result<Output, String> {
    let text = std::fs::read_to_string(root.join(INDEX_DTS)).map_err(|e| format!("{INDEX_DTS}: {e}"))?;
    let section = driver_section(family)?;
    Ok(Output { path: INDEX_DTS, text: crate::output::splice_section(&text, INDEX_DTS, "//", SECTION, &section)? })
}

/// The declarations of the methods of JS's `Driver` (those `methods_js_engine` writes), from `family`.
pub fn driver_section(family: &Family) -> Result<String, String> {
    if !family.js {
        let names: Vec<&str> = family.classes.iter().map(|class| class.name).collect();
        return Err(format!("{}: JS keeps this family by hand (its `js` flag is off)", names.join(", ")));
    }
    let [class @ Class { name: "Driver", shape: Shape::Engine { .. }, .. }] = family.classes else {
        return Err("methods::DRIVER: the TypeScript writer writes one class, `Driver`".to_owned());
    };
    let mut members = String::new();
    for method in class.methods.iter().filter(|method| !method.deprecated && !method.getter) {
        let key = format!("Driver.{}", method.name);
        if !DRIVER_NOT_EXPOSED.contains(&key.as_str()) {
            members.push_str(&doc(method));
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
            // `{token, nowUnixMs}`: one options object.
            Arg::Token | Arg::NowUnix if !options_typed => {
                options_typed = true;
                let fields: Vec<&str> = [(Arg::Token, "token?: number"), (Arg::NowUnix, "nowUnixMs?: number")]
                    .into_iter()
                    .filter(|(kind, _)| method.args.contains(kind))
                    .map(|(_, field)| field)
                    .collect();
                params.push(format!("options?: {{ {} }}", fields.join("; ")));
            }
            Arg::Token | Arg::NowUnix => {}
            Arg::Protocol => params.push("protocol?: Protocol".to_owned()),
            other => return Err(format!("{key}: no TypeScript type for the argument {other:?}")),
        }
    }
    let ret = match method.ret {
        Ret::ActionOrError => "Action",
        Ret::ReceiptOrError => "Receipt",
        Ret::HeadersOrError | Ret::Headers => "Record<string, string>",
        Ret::Event => "DecisionEvent | undefined",
        Ret::Steps | Ret::Unit | Ret::UnitOrError => "void",
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
    use crate::methods::{method, Arg, Family, Ret, DRIVER};
    use crate::methods_js::camel;

    /// A method added to the driver's family reaches the declarations of JS's `Driver` with its types and the
    /// JSDoc `lib/driver.js` gets.
    #[test]
    fn a_new_driver_method_reaches_the_declarations() {
        let mut classes = DRIVER.classes.to_vec();
        let added = method("remaining_ms", "Time left at `now`, in ms.", &[Arg::Now, Arg::Count("attempt")], Ret::Ms);
        classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), ..DRIVER };
        let types = super::driver_section(&family).unwrap();
        assert!(
            types.contains(
                "  /** Time left at `nowMs`, in ms. */\n  remainingMs(nowMs: number, attempt: number): number;\n"
            ),
            "{types}"
        );
        // A kind with no TypeScript type stops the generator, naming the method.
        let mut classes = DRIVER.classes.to_vec();
        let added = method("load", "Loads a form.", &[Arg::Compiled], Ret::Unit);
        classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), ..DRIVER };
        let error = super::driver_section(&family).unwrap_err();
        assert!(error.contains("Driver.load: no TypeScript type for the argument Compiled"), "{error}");
    }

    /// Every method JS's `Driver` has (`lib/driver.js`'s generated section) is declared, with its JSDoc, between
    /// the markers of the committed `lib/index.d.ts`, and nothing else is declared there.
    #[test]
    fn every_driver_method_is_declared_in_the_committed_types() {
        let root = crate::workspace_root();
        let types = std::fs::read_to_string(root.join(super::INDEX_DTS)).unwrap();
        let begin = format!("// {}: {}\n", crate::output::HEADER, super::SECTION);
        let end = format!("// end of what core/mirrors writes: {}\n", super::SECTION);
        let class = types.split("\nexport class Driver {\n").nth(1).unwrap().split("\n}\n").next().unwrap();
        let section = class.split(&begin).nth(1).unwrap().split(&end).next().unwrap();
        let driver_js = crate::methods_js_engine::driver_output(&root, &DRIVER).unwrap().text;
        let js = driver_js.split(&begin).nth(1).unwrap().split(&end).next().unwrap().to_owned();
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
        assert_eq!(members(section, "index.d.ts"), members(&js, "driver.js"));
        // JS's spelling, no Rust's (the rest of the file is hand-written).
        for rust in ["::", "Option<", "Vec<"] {
            assert!(!section.contains(rust), "{rust} in {section}");
        }
        for method in DRIVER.classes[0].methods.iter().filter(|method| !method.getter) {
            let name = camel(method.name, false);
            if crate::methods_js_engine::DRIVER_NOT_EXPOSED.contains(&format!("Driver.{}", method.name).as_str()) {
                assert!(!section.contains(&format!("  {name}(")), "{name}: JS's Driver has no such method");
                continue;
            }
            let declared = format!("{}  {name}(", super::doc(method));
            assert!(section.contains(&declared), "{name}: not declared with its JSDoc in {}", super::INDEX_DTS);
        }
    }
}
