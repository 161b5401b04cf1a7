//! JS: the public `Driver`'s typed methods (`lib/driver.js`), from the
//! driver's family of the methods definition (`methods::DRIVER`, its `js`
//! flag on), written between two marker lines inside the class: the file
//! keeps by hand what is JS's own around them (`newDriver`, which the
//! helpers share and which reads the options; `Running`, the getters a
//! `Driver` and an `Operation` both have; the helpers' wire fast path in
//! `lib/host.js`). The wasm exports they call stay by hand in
//! `src/driver.rs` and `src/propagation.rs`: JS's transport (an action and
//! an event stored as the wire's records, a receipt as its number), shared
//! with the helpers where they call the same (`_driverResponse`).
//!
//! How each kind is spelt beside the controls' (`methods_js`): a clock
//! reading `nowMs`, always the first parameter (`ms`), an attempt's number
//! `attempt` (`attemptOf`), both read first, in JS's parameter order, when a
//! method takes more than one argument; an outcome the object itself (the
//! wasm reads it); what the host holds `options` (`{token, held}`, read by
//! `holding`), a response `status, headers` (`anyStatus`, and `guidance`
//! reading the headers the core names) and its token and wall clock one
//! `options` (`{token, nowUnixMs}`); a protocol an optional name
//! (`protocolOf`). The wasm takes them in the core's order (a token before
//! the response it holds). A receipt comes back as its number, named by
//! `NAMES.receipts`; headers as an object (`headerObject`); an action or an
//! event through the reader of its record (`lib/records.js`).

use std::path::Path;

use crate::methods::{Arg, Class, Family, Method, Ret, Shape};
use crate::methods_js::{camel, jsdoc};
use crate::output::Output;

pub const DRIVER_JS: &str = "bindings-js/lib/driver.js";

/// What the markers of the generated section of `lib/driver.js` name.
pub const SECTION: &str = "the driver's methods (core/mirrors/src/methods.rs)";

/// What each method calls (`Class.name`) when it is not the export `_driver{Name}`: the short names of the
/// wasm exports (each name crosses in the glue, which the size gate counts), or the reader of a record in
/// `lib/records.js`.
const JS_CALLS: [(&str, &str); 7] = [
    ("Driver.poll_action", "pollAction"),
    ("Driver.handle_result", "_driverResultOf"),
    ("Driver.handle_response", "_driverResponse"),
    ("Driver.outgoing_headers", "_driverOutgoing"),
    ("Driver.answer_headers", "_driverAnswer"),
    ("Driver.handle_cancel", "_driverCancel"),
    ("Driver.poll_event", "nextEvent"),
];

/// The methods of the family (`Class.name`) JS's `Driver` does not have: the wire exchange is the helpers'
/// own fast path (`_driverExchange`, lib/host.js), and JS does not read the running attempts. Once JS's
/// `Driver` has one, its entry goes.
pub(crate) const NOT_EXPOSED: [&str; 2] = ["Driver.exchange", "Driver.running_attempts"];

/// `lib/driver.js` under `root` with its generated section written from `family`.
pub fn driver_output(root: &Path, family: &Family) -> Result<Output, String> {
    let text = std::fs::read_to_string(root.join(DRIVER_JS)).map_err(|e| format!("{DRIVER_JS}: {e}"))?;
    let section = driver_section(family, &text)?;
    Ok(Output { path: DRIVER_JS, text: crate::output::splice_section(&text, DRIVER_JS, "//", SECTION, &section)? })
}

/// The generated members of JS's `Driver`, from `family`; `hand` is `lib/driver.js`, whose `Running` has
/// each getter.
pub fn driver_section(family: &Family, hand: &str) -> Result<String, String> {
    if !family.js {
        let names: Vec<&str> = family.classes.iter().map(|class| class.name).collect();
        return Err(format!("{}: JS keeps this family by hand (its `js` flag is off)", names.join(", ")));
    }
    let [class @ Class { name: "Driver", shape: Shape::Engine { .. }, .. }] = family.classes else {
        return Err("methods::DRIVER: JS's writer writes one class, `Driver`".to_owned());
    };
    let running = hand.split("\nexport class Running ").nth(1).and_then(|rest| rest.split("\n}\n").next());
    let running = running.ok_or_else(|| format!("{DRIVER_JS}: no class `Running`"))?;
    let mut members = Vec::new();
    for method in class.methods.iter().filter(|method| !method.deprecated) {
        let key = format!("Driver.{}", method.name);
        if NOT_EXPOSED.contains(&key.as_str()) {
            continue;
        }
        let js_name = camel(method.name, false);
        if method.getter {
            // A getter a Driver and an Operation both have: `Running`'s, by hand.
            if !running.contains(&format!("  get {js_name}() {{\n")) {
                return Err(format!("{key}: no getter `{js_name}` in `Running` ({DRIVER_JS})"));
            }
            continue;
        }
        members.push(method_text(&key, method)?);
    }
    Ok(members.join("\n"))
}

/// The definition's doc of `method` as JS's `Driver` takes it: its clock readings `nowMs` and `nowUnixMs`,
/// nothing `undefined`, and what JS's shapes add (a token in `holding` or `options`, a headers lookup, headers
/// by lower-case name), as `methods_python::python_doc` and `methods_kotlin_engine::kotlin_doc` do for theirs.
fn js_doc(method: &Method) -> String {
    let mut text = method.doc.replace(", or none", ", or undefined");
    if method.args.contains(&Arg::Now) {
        text = text.replace("`now`", "`nowMs`");
    }
    if method.args.contains(&Arg::NowUnix) {
        text = text.replace("`now_unix`", "`nowUnixMs`");
    }
    let mut add = |words: &str| {
        text.push(' ');
        text.push_str(words);
    };
    for arg in method.args {
        match arg {
            Arg::HeldToken => add("JS takes the token and what it holds as `holding`: `{token, held}`."),
            Arg::Protocol => add("`protocol`: `Protocol::Http` (default) or `Protocol::Grpc`."),
            Arg::Response => add(
                "`headers`: a function of the lower-case name, or a `Headers` or `Map`; `token` and `nowUnixMs` (0 \
                 by default) in `options`.",
            ),
            _ => {}
        }
    }
    match method.ret {
        Ret::Headers | Ret::HeadersOrError => add("By lower-case name, in the core's order."),
        // JS's name of the core's `Event` (index.d.ts), which no table maps: a bare name is no path.
        Ret::Event => text = text.replace("`Event`", "`DecisionEvent`"),
        _ => {}
    }
    text
}

/// The JSDoc of `method` (`js_doc`), on one line or wrapped.
pub(crate) fn doc(method: &Method) -> String {
    let text = jsdoc(&js_doc(method), "  ");
    // One line while it fits in 140 columns (Biome leaves comments alone), else wrapped at 80, never
    // inside backticks.
    if text.len() <= 141 {
        return text;
    }
    let words = text.trim_start_matches("  /** ").trim_end_matches(" */\n");
    let (mut body, mut line, mut quoted) = (String::new(), String::new(), false);
    for word in words.split(' ') {
        if !quoted && !line.is_empty() && line.len() + word.len() > 75 {
            body.push_str(&format!("   * {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        quoted ^= word.matches('`').count() % 2 == 1;
    }
    format!("  /**\n{body}   * {line}\n   */\n")
}

fn method_text(key: &str, method: &Method) -> Result<String, String> {
    let unspelt = |arg: &Arg| format!("{key}: no JS argument for {arg:?}");
    let call = JS_CALLS
        .iter()
        .find(|(name, _)| *name == key)
        .map_or_else(|| format!("_driver{}", camel(method.name, true)), |(_, call)| (*call).to_owned());
    // Each clock reading and attempt's number read first (in JS's order) when there is more to read.
    let first = method.args.len() > 1;
    let (mut params, mut reads) = (Vec::new(), Vec::new());
    if method.args.contains(&Arg::Now) {
        params.push("nowMs".to_owned());
        if first {
            reads.push("const now = ms('nowMs', nowMs);".to_owned());
        }
    }
    let mut given = vec!["handle(this)".to_owned()];
    let mut options_read = false;
    // The wasm's order, the core's: a token before the response it holds.
    let mut order = method.args.to_vec();
    if let (Some(response), Some(token)) =
        (order.iter().position(|arg| *arg == Arg::Response), order.iter().position(|arg| *arg == Arg::Token))
    {
        let token = order.remove(token);
        order.insert(response, token);
    }
    for arg in method.args {
        match *arg {
            Arg::Now => {}
            Arg::Count("attempt") => {
                params.push("attempt".to_owned());
                if first {
                    reads.push("const at = attemptOf(attempt);".to_owned());
                }
            }
            Arg::Value { name, .. } | Arg::Instance { name, .. } => params.push(camel(name, false)),
            Arg::HeldToken => {
                params.push("options".to_owned());
                reads.push("const [token, held] = holding(options);".to_owned());
            }
            Arg::Response => {
                params.extend(["status".to_owned(), "headers".to_owned()]);
                reads.push("anyStatus(status);".to_owned());
            }
            // `{token, nowUnixMs}`: one options object, its token read first.
            Arg::Token | Arg::NowUnix if !options_read => {
                options_read = true;
                params.push("options".to_owned());
                if method.args.contains(&Arg::Token) {
                    reads.push(
                        "const [token] = holding(options === undefined ? undefined : { token: options?.token });"
                            .to_owned(),
                    );
                }
                if method.args.contains(&Arg::NowUnix) {
                    reads.push("const nowUnixMs = ms('nowUnixMs', options?.nowUnixMs ?? 0);".to_owned());
                }
            }
            Arg::Token | Arg::NowUnix => {}
            Arg::Protocol => params.push("protocol".to_owned()),
            other => return Err(unspelt(&other)),
        }
    }
    for arg in &order {
        given.push(match *arg {
            Arg::Now if first => "now".to_owned(),
            Arg::Now => "ms('nowMs', nowMs)".to_owned(),
            Arg::Count(_) if first => "at".to_owned(),
            Arg::Count(_) => "attemptOf(attempt)".to_owned(),
            Arg::Value { name, .. } | Arg::Instance { name, .. } => camel(name, false),
            Arg::HeldToken => "token, held".to_owned(),
            Arg::Response => "status, guidance(headers, RESPONSE_HEADERS)".to_owned(),
            Arg::Token => "token".to_owned(),
            Arg::NowUnix => "nowUnixMs".to_owned(),
            Arg::Protocol => "protocolOf(protocol)".to_owned(),
            other => return Err(unspelt(&other)),
        });
    }
    let called = format!("{call}({})", given.join(", "));
    let body = match method.ret {
        Ret::ActionOrError | Ret::Event => format!("return {called};"),
        Ret::ReceiptOrError => format!("return NAMES.receipts[decided({called})];"),
        Ret::HeadersOrError | Ret::Headers => format!("return headerObject(decided({called}));"),
        Ret::Steps | Ret::Unit | Ret::UnitOrError => format!("decided({called});"),
        Ret::Ms | Ret::Count | Ret::Bool | Ret::BoolOrError => format!("return decided({called});"),
        other => return Err(format!("{key}: no JS result for {other:?}")),
    };
    reads.push(body);
    let mut lines = String::new();
    for read in reads {
        // Biome's width: a call too long for one line is one argument a line.
        if read.len() + 4 > 120 {
            lines.push_str(&wrap_call(&read)?);
        } else {
            lines.push_str(&format!("    {read}\n"));
        }
    }
    Ok(format!("{}  {}({}) {{\n{lines}  }}\n", doc(method), camel(method.name, false), params.join(", ")))
}

/// `return NAMES.receipts[decided(f(a, b))];` as Biome writes it when too long: the index on a line of its own.
fn wrap_call(read: &str) -> Result<String, String> {
    let index = read.strip_prefix("return NAMES.receipts[").and_then(|rest| rest.strip_suffix("];"));
    let index = index.ok_or_else(|| format!("`{read}`: too long for one line, and not a receipt"))?;
    Ok(format!("    return NAMES.receipts[\n      {index}\n    ];\n"))
}

#[cfg(test)]
mod tests {
    use crate::methods::{method, Arg, Family, Ret, DRIVER};

    /// The driver's JSDoc speaks JS: no Python or Rust words of the definition, and JS's own shapes said.
    #[test]
    fn js_docs_speak_js() {
        let hand = std::fs::read_to_string(crate::workspace_root().join(super::DRIVER_JS)).unwrap();
        let section = super::driver_section(&DRIVER, &hand).unwrap();
        for line in section.lines().filter(|line| line.trim_start().starts_with('*') || line.contains("/**")) {
            for foreign in ["dict", " int ", "=True", "None", "keyword", "::", "`now`", "`now_unix`", "`Event`"] {
                assert!(!line.contains(foreign), "{foreign}: {line}");
            }
        }
        for js in ["`holding`: `{token, held}`", "a `Headers` or `Map`", "`DecisionEvent`", "`\"http\"` (default)"] {
            assert!(section.contains(js), "{js}: {section}");
        }
    }

    /// A method added to the driver's family is one entry: it reaches JS's `Driver` (its clock reading and
    /// attempt read first, then the wasm's export of its name called), as it reaches Python's and Kotlin's.
    #[test]
    fn a_new_driver_method_reaches_js() {
        let hand = std::fs::read_to_string(crate::workspace_root().join(super::DRIVER_JS)).unwrap();
        let mut classes = DRIVER.classes.to_vec();
        let added = method("remaining_ms", "Time left at `now`, in ms.", &[Arg::Now, Arg::Count("attempt")], Ret::Ms);
        classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), js: true, ..DRIVER };
        let js = super::driver_section(&family, &hand).unwrap();
        assert!(
            js.contains(
                "  /** Time left at `nowMs`, in ms. */\n  remainingMs(nowMs, attempt) {\n    \
                 const now = ms('nowMs', nowMs);\n    const at = attemptOf(attempt);\n    \
                 return decided(_driverRemainingMs(handle(this), now, at));\n  }\n"
            ),
            "{js}"
        );
        // Every method of JS's public `Driver` (lib/index.d.ts) is written from the family, and only those.
        let types = std::fs::read_to_string(crate::workspace_root().join("bindings-js/lib/index.d.ts")).unwrap();
        let class = types.split("\nexport class Driver {\n").nth(1).unwrap().split("\n}\n").next().unwrap();
        let mut declared: Vec<&str> = class
            .lines()
            .filter_map(|line| line.strip_prefix("  ")?.split_once('(').map(|(name, _)| name))
            .filter(|name| name.chars().all(char::is_alphanumeric) && !["constructor", "free"].contains(name))
            .collect();
        let section = super::driver_section(&DRIVER, &hand).unwrap();
        let mut written: Vec<&str> = section
            .lines()
            .filter_map(|line| line.strip_prefix("  ")?.split_once('(').map(|(name, _)| name))
            .filter(|name| name.chars().all(char::is_alphanumeric))
            .collect();
        declared.sort_unstable();
        written.sort_unstable();
        assert_eq!(written, declared);
        // A getter JS's `Running` lacks stops the generator, naming it.
        let getter = crate::methods::getter("started_at_ms", "When it started.", Ret::Ms);
        let mut classes = DRIVER.classes.to_vec();
        classes[0].methods = Box::leak([classes[0].methods, &[getter]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), js: true, ..DRIVER };
        let error = super::driver_section(&family, &hand).unwrap_err();
        assert!(error.contains("Driver.started_at_ms: no getter `startedAtMs`"), "{error}");
    }
}
