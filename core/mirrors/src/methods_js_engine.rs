//! JS: the public `Driver`'s typed methods (`lib/driver.js`) and the public
//! `Operation`'s (`lib/operation.js`), from the driver's and the engine's
//! families of the methods definition (`methods::DRIVER`, `methods::ENGINE`,
//! their `js` flags on), written between two marker lines inside each class:
//! the files keep by hand what is JS's own around them (`newDriver`, which
//! the helpers share and which reads the options; `Running`, the getters a
//! `Driver` and an `Operation` both have, and the `Operation`'s own two; the
//! helpers' wire fast path in `lib/host.js`). The wasm exports they call stay
//! by hand in `src/driver.rs`, `src/operation.rs` and `src/propagation.rs`:
//! JS's transport (an action and an event stored as the wire's records, a
//! receipt as its number, a decision as the wire's record read by
//! `decisionOf`, a request id as two words), shared with the helpers where
//! they call the same (`_driverResponse`); how each class's differs is its
//! `Spelling`. A deprecated alias calls the method it is the old name of.
//!
//! How each kind is spelt beside the controls' (`methods_js`): a clock
//! reading `nowMs`, always the first parameter (`ms`), an attempt's number
//! `attempt` (`attemptOf`), both read first, in JS's parameter order, when a
//! method takes more than one argument; an outcome the object itself (the
//! driver's wasm reads it) or its wire words (the operation's: `read`);
//! what the host holds `options` (`{token, held}`, read by `holding`), a
//! response `status, headers` (`anyStatus`, and `guidance` reading the
//! headers the core names) and its token, wall clock and flag one `options`
//! (`{token, nowUnixMs, redirected}`); a protocol an optional name
//! (`protocolOf`). The wasm takes them in the core's order (a token before
//! the response it holds). A receipt comes back as its number, named by
//! `NAMES.receipts`; headers as an object (`headerObject`); an action or an
//! event through the reader of its record (`lib/records.js`).

use std::path::Path;

use crate::methods::{Arg, Class, Family, Method, Ret, Shape};
use crate::methods_js::{camel, jsdoc};
use crate::output::Output;

pub const DRIVER_JS: &str = "bindings-js/lib/driver.js";

/// The file of JS's `Operation`, whose getters it shares with a `Driver` (`Running`, in `DRIVER_JS`).
pub const OPERATION_JS: &str = "bindings-js/lib/operation.js";

/// What the markers of the generated section of `lib/driver.js` name.
pub const SECTION: &str = "the driver's methods (core/mirrors/src/methods/table.rs)";

/// What the markers of the generated section of `lib/operation.js` name.
pub const OPERATION_SECTION: &str = "the operation's methods (core/mirrors/src/methods/table.rs)";

/// How JS's class of a family crosses to its wasm exports (`src/driver.rs`, `src/operation.rs`, by hand).
struct Spelling {
    /// The class (the family's one class) and the file defining it.
    class: &'static str,
    file: &'static str,
    section: &'static str,
    /// The export a method calls when no entry of `calls` names it: this, then its name in CamelCase.
    prefix: &'static str,
    /// What a method (`Class.name`) calls instead: a wasm export's short name (each name crosses in the glue,
    /// which the size gate counts), or the reader of a record in `lib/records.js`.
    calls: &'static [(&'static str, &'static str)],
    /// Methods sharing one export, told apart by its last argument (`Class.name`, that argument).
    which: &'static [(&'static str, &'static str)],
    /// Methods reading the operation's state view (`state` in `lib/driver.js`, at this index) and no export.
    state: &'static [(&'static str, usize)],
    /// The methods (`Class.name`) JS's class does not have; once it has one, its entry goes.
    not_exposed: &'static [&'static str],
    /// An outcome crosses as the core's wire words (`read` of `lib/outcomes.js`), not as the object.
    outcome_words: bool,
    /// A result that cannot fail comes back as it is, not as `either`'s (no `decided`).
    plain_values: bool,
}

/// The methods (`Class.name`) of the driver's family JS's `Driver` does not have (its declarations in
/// `lib/index.d.ts` leave them out too, `typescript_methods`): the wire exchange is the helpers' own fast path
/// (`_driverExchange`, lib/host.js), and JS does not read the running attempts.
pub(crate) const DRIVER_NOT_EXPOSED: &[&str] = &["Driver.exchange", "Driver.running_attempts"];

/// JS's `Driver` (what it lacks: `DRIVER_NOT_EXPOSED`).
const DRIVER_SPELLING: Spelling = Spelling {
    class: "Driver",
    file: DRIVER_JS,
    section: SECTION,
    prefix: "_driver",
    calls: &[
        ("Driver.poll_action", "pollAction"),
        ("Driver.handle_result", "_driverResultOf"),
        ("Driver.handle_response", "_driverResponse"),
        ("Driver.outgoing_headers", "_driverOutgoing"),
        ("Driver.answer_headers", "_driverAnswer"),
        ("Driver.handle_cancel", "_driverCancel"),
        ("Driver.poll_event", "nextEvent"),
    ],
    which: &[],
    state: &[],
    not_exposed: DRIVER_NOT_EXPOSED,
    outcome_words: false,
    plain_values: false,
};

/// The methods (`Class.name`) of the engine's family JS's `Operation` does not have (nor its declarations,
/// `typescript_methods`): JS's class does not show its policy.
pub(crate) const OPERATION_NOT_EXPOSED: &[&str] = &["Operation.policy"];

/// JS's `Operation`: a poll and a cancel are one export (`_operationPoll`, cancelling or not), the next wakeup
/// is read from the state view, and JS's class does not show its policy.
const OPERATION_SPELLING: Spelling = Spelling {
    class: "Operation",
    file: OPERATION_JS,
    section: OPERATION_SECTION,
    prefix: "_operation",
    calls: &[
        ("Operation.poll", "_operationPoll"),
        ("Operation.on_outcome", "_operationOutcome"),
        ("Operation.cancel", "_operationPoll"),
        ("Operation.remaining_ms", "_operationRemaining"),
    ],
    which: &[("Operation.poll", "false"), ("Operation.cancel", "true")],
    state: &[("Operation.next_wakeup_ms", 0)],
    not_exposed: OPERATION_NOT_EXPOSED,
    outcome_words: true,
    plain_values: true,
};

/// `lib/driver.js` under `root` with its generated section written from `family`.
pub fn driver_output(root: &Path, family: &Family) -> Result<Output, String> {
    output(root, &DRIVER_SPELLING, family)
}

/// `lib/operation.js` under `root` with its generated section written from `family` (the engine's).
pub fn operation_output(root: &Path, family: &Family) -> Result<Output, String> {
    output(root, &OPERATION_SPELLING, family)
}

fn output(root: &Path, spelling: &Spelling, family: &Family) -> Result<Output, String> {
    let read = |path: &str| std::fs::read_to_string(root.join(path)).map_err(|e| format!("{path}: {e}"));
    let (text, running) = (read(spelling.file)?, read(DRIVER_JS)?);
    let section = section(spelling, family, &running, &text)?;
    let text = crate::output::splice_section(&text, spelling.file, "//", spelling.section, &section)?;
    Ok(Output { path: spelling.file, text })
}

/// The body of class `name` in `text` (up to its closing line), if it is there.
fn class_body<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.split(&format!("\nexport class {name} ")).nth(1).and_then(|rest| rest.split("\n}\n").next())
}

/// The generated members of JS's class of `family` as `spelling` spells it; `running` is `lib/driver.js` (its
/// `Running`) and `hand` the file defining the class: one of the two has each getter.
fn section(spelling: &Spelling, family: &Family, running: &str, hand: &str) -> Result<String, String> {
    let name = spelling.class;
    if !family.js {
        let names: Vec<&str> = family.classes.iter().map(|class| class.name).collect();
        return Err(format!("{}: JS keeps this family by hand (its `js` flag is off)", names.join(", ")));
    }
    let [class @ Class { shape: Shape::Engine { .. }, .. }] = family.classes else {
        return Err(format!("{name}: JS's writer writes a family of one class"));
    };
    if class.name != name {
        return Err(format!("{}: JS's writer writes `{name}` here", class.name));
    }
    let running = class_body(running, "Running").ok_or_else(|| format!("{DRIVER_JS}: no class `Running`"))?;
    let own = class_body(hand, name).ok_or_else(|| format!("{}: no class `{name}`", spelling.file))?;
    let mut members = Vec::new();
    for method in class.methods {
        let key = format!("{name}.{}", method.name);
        if spelling.not_exposed.contains(&key.as_str()) {
            continue;
        }
        let js_name = camel(method.name, false);
        if method.getter {
            // A getter by hand: `Running`'s (a Driver and an Operation both have it), or the class's own.
            let getter = format!("  get {js_name}() {{\n");
            if !running.contains(&getter) && !own.contains(&getter) {
                return Err(format!("{key}: no getter `{js_name}` in `Running` ({DRIVER_JS}) or `{name}`"));
            }
            continue;
        }
        if method.deprecated {
            members.push(alias_text(&key, method)?);
            continue;
        }
        members.push(method_text(spelling, &key, method)?);
    }
    Ok(members.join("\n"))
}

/// A deprecated alias: JSDoc's `@deprecated`, calling the method it is the old name of, as the host calls it.
fn alias_text(key: &str, method: &Method) -> Result<String, String> {
    let call = method.call.ok_or_else(|| format!("{key}: a deprecated alias names its `call`"))?;
    let params = match method.args {
        [] => "",
        [Arg::Now] => "nowMs",
        _ => return Err(format!("{key}: JS's aliases take a clock reading or nothing")),
    };
    let (doc, name, call) = (alias_doc(method), camel(method.name, false), camel(call, false));
    Ok(format!("{doc}  {name}({params}) {{\n    return this.{call}({params});\n  }}\n"))
}

/// The JSDoc of a deprecated alias: the definition's "Deprecated alias of ...", whose first word JSDoc's tag says.
pub(crate) fn alias_doc(method: &Method) -> String {
    let text = js_doc(method);
    let text = text.strip_prefix("Deprecated a").map_or(text.clone(), |rest| format!("A{rest}"));
    wrapped(&format!("@deprecated {text}"))
}

/// The definition's doc of `method` as JS's `Driver` or `Operation` takes it: its clock readings `nowMs` and
/// `nowUnixMs`, nothing `undefined`, and what JS's shapes add (a token in `holding` or `options`, a headers
/// lookup, headers by lower-case name), as `methods_python::python_doc` and `methods_kotlin_engine::kotlin_doc`
/// do for theirs.
pub(crate) fn js_doc(method: &Method) -> String {
    let mut text = method.doc_spelt("undefined", "nowMs", "nowUnixMs");
    let mut add = |words: &str| {
        text.push(' ');
        text.push_str(words);
    };
    for arg in method.args {
        match arg {
            Arg::HeldToken => add("JS takes the token and what it holds as `holding`: `{token, held}`."),
            Arg::Protocol => add("`protocol`: `Protocol::Http` (default) or `Protocol::Grpc`."),
            Arg::Response => {
                add("`headers`: a function of the lower-case name, or a `Headers` or `Map`; `token`, `nowUnixMs` (the \
                 wall clock, `Date.now()`, by default: a Retry-After date is read against it) and `redirected` (false \
                 by default) in `options`.")
            }
            _ => {}
        }
    }
    match method.ret {
        Ret::Headers | Ret::HeadersOrError => add("By lower-case name, in the core's order."),
        // JS's name of the core's `Event` (index.d.ts), which no table maps: a bare name is no path.
        Ret::Event => text = text.replace("`Event`", "`DecisionEvent`"),
        _ => {}
    }
    // A platform's fact, not a kind's: a page serves no request, so its wasm carries no answer side.
    if method.name == "answer_headers" {
        text.push_str(" The browser runtime throws `\"unsupported\"` here (README, \"Propagation\").");
    }
    text
}

/// The JSDoc of `method` (`js_doc`), on one line or wrapped.
pub(crate) fn doc(method: &Method) -> String {
    wrapped(&js_doc(method))
}

/// The JSDoc of `text`, on one line or wrapped.
pub(crate) fn wrapped(text: &str) -> String {
    let text = jsdoc(text, "  ");
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

fn method_text(spelling: &Spelling, key: &str, method: &Method) -> Result<String, String> {
    let unspelt = |arg: &Arg| format!("{key}: no JS argument for {arg:?}");
    let entry = |table: &[(&str, &'static str)]| table.iter().find(|(name, _)| *name == key).map(|(_, value)| *value);
    let call =
        entry(spelling.calls).map_or_else(|| format!("{}{}", spelling.prefix, camel(method.name, true)), str::to_owned);
    if let Some((_, index)) = spelling.state.iter().find(|(name, _)| *name == key) {
        // A reading of the state view: no export, no argument.
        let (Ret::OptionalMs, []) = (method.ret, method.args) else {
            return Err(format!("{key}: JS reads only a clock reading or none of the state view"));
        };
        let name = camel(method.name, false);
        return Ok(format!(
            "{}  {name}() {{\n    const next = state(this)[{index}];\n    return next < 0 ? undefined : next;\n  }}\n",
            doc(method)
        ));
    }
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
            Arg::Instance { name, class: "Outcome" } if spelling.outcome_words => {
                params.push(camel(name, false));
                reads.push(format!("read({});", camel(name, false)));
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
            // `{token, nowUnixMs, redirected}`: one options object (not an object refused, naming `options` and
            // `token`; a key it does not have refused, naming the key: a misspelt `redirect` is never read as
            // false), its token read first, a flag false when left out.
            Arg::Token | Arg::NowUnix | Arg::Flag(_) if !options_read => {
                options_read = true;
                params.push("options".to_owned());
                let keys: Vec<String> = method
                    .args
                    .iter()
                    .filter_map(|arg| match *arg {
                        Arg::Token => Some("token: true".to_owned()),
                        Arg::NowUnix => Some("nowUnixMs: true".to_owned()),
                        Arg::Flag(flag) => Some(format!("{}: true", camel(flag, false))),
                        _ => None,
                    })
                    .collect();
                reads.push(format!(
                    "only(optionsOf(options, 'token'), {{ __proto__: null, {} }}, 'function');",
                    keys.join(", ")
                ));
                if method.args.contains(&Arg::Token) {
                    reads.push("const [token] = holding(options && { token: options.token });".to_owned());
                }
                if method.args.contains(&Arg::NowUnix) {
                    reads.push("const nowUnixMs = ms('nowUnixMs', options?.nowUnixMs ?? Date.now());".to_owned());
                }
                for arg in method.args {
                    if let Arg::Flag(flag) = *arg {
                        let name = camel(flag, false);
                        reads.push(format!("const {name} = flag('{name}', options?.{name}) ?? false;"));
                    }
                }
            }
            Arg::Token | Arg::NowUnix | Arg::Flag(_) => {}
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
            Arg::Instance { class: "Outcome", .. } if spelling.outcome_words => {
                "words.kind, words.code, words.delay, words.errorCode".to_owned()
            }
            Arg::Value { name, .. } | Arg::Instance { name, .. } => camel(name, false),
            Arg::HeldToken => "token, held".to_owned(),
            Arg::Response => "status, values".to_owned(),
            Arg::Token => "token".to_owned(),
            Arg::NowUnix => "nowUnixMs".to_owned(),
            Arg::Flag(flag) => camel(flag, false),
            Arg::Protocol => "protocolOf(protocol)".to_owned(),
            other => return Err(unspelt(&other)),
        });
    }
    if method.args.contains(&Arg::Response) {
        // The headers the core names, read last (after the options), so that the call fits its line.
        reads.push("const values = guidance(headers, RESPONSE_HEADERS);".to_owned());
    }
    given.extend(entry(spelling.which).map(str::to_owned));
    let called = format!("{call}({})", given.join(", "));
    let body = match method.ret {
        Ret::DecisionOrError => format!("return decisionOf({called});"),
        Ret::Ms | Ret::Count | Ret::Bool if spelling.plain_values => format!("return {called};"),
        // A request id crosses as its two 32-bit words.
        Ret::Text("RequestId") => format!("const id = numbers({called});\n    return requestIdText(id[0], id[1]);"),
        Ret::ActionOrError | Ret::Event => format!("return {called};"),
        Ret::ReceiptOrError => format!("return NAMES.receipts[decided({called})];"),
        Ret::HeadersOrError | Ret::Headers => format!("return headerObject(decided({called}));"),
        Ret::Steps | Ret::Unit | Ret::UnitOrError | Ret::StepsOrError => format!("decided({called});"),
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

/// `return NAMES.receipts[decided(f(a, b))];` or `return decisionOf(f(a, b));` as Biome writes it when too long:
/// the index or the argument on a line of its own (an argument with Biome's trailing comma).
fn wrap_call(read: &str) -> Result<String, String> {
    let too_long = || format!("`{read}`: too long for one line, and not a receipt or a decision");
    let (open, inner, close) =
        if let Some(index) = read.strip_prefix("return NAMES.receipts[").and_then(|rest| rest.strip_suffix("];")) {
            ("return NAMES.receipts[", index.to_owned(), "];")
        } else {
            let argument = read.strip_prefix("return decisionOf(").and_then(|rest| rest.strip_suffix(");"));
            ("return decisionOf(", format!("{},", argument.ok_or_else(too_long)?), ");")
        };
    if inner.len() + 6 > 120 {
        return Err(too_long());
    }
    Ok(format!("    {open}\n      {inner}\n    {close}\n"))
}

#[cfg(test)]
mod tests {
    use crate::methods::{method, Arg, Family, Ret, DRIVER, ENGINE};

    /// Every method of JS's public class `name` (lib/index.d.ts) is in `section`, written from its family, and
    /// only those.
    fn assert_all_declared_written(name: &str, section: &str) {
        let types = std::fs::read_to_string(crate::workspace_root().join("bindings-js/lib/index.d.ts")).unwrap();
        let class = types.split(&format!("\nexport class {name} {{\n")).nth(1).unwrap().split("\n}\n").next();
        let mut declared: Vec<&str> = class
            .unwrap()
            .lines()
            .filter_map(|line| line.strip_prefix("  ")?.split_once('(').map(|(name, _)| name))
            .filter(|name| name.chars().all(char::is_alphanumeric) && !["constructor", "free"].contains(name))
            .collect();
        let mut written: Vec<&str> = section
            .lines()
            .filter_map(|line| line.strip_prefix("  ")?.split_once('(').map(|(name, _)| name))
            .filter(|name| name.chars().all(char::is_alphanumeric))
            .collect();
        declared.sort_unstable();
        written.sort_unstable();
        assert_eq!(written, declared, "{name}");
    }

    /// `lib/driver.js` and `lib/operation.js`, as they are.
    fn hand() -> (String, String) {
        let read = |path: &str| std::fs::read_to_string(crate::workspace_root().join(path)).unwrap();
        (read(super::DRIVER_JS), read(super::OPERATION_JS))
    }

    /// The driver's and the operation's JSDoc speak JS: no Python or Rust words of the definition, and JS's
    /// own shapes said.
    #[test]
    fn js_docs_speak_js() {
        let (hand, operation) = hand();
        let section = super::section(&super::DRIVER_SPELLING, &DRIVER, &hand, &hand).unwrap()
            + &super::section(&super::OPERATION_SPELLING, &ENGINE, &hand, &operation).unwrap();
        for line in section.lines().filter(|line| line.trim_start().starts_with('*') || line.contains("/**")) {
            for foreign in ["dict", " int ", "=True", "None", "keyword", "::", "`now`", "`now_unix`", "`Event`"] {
                assert!(!line.contains(foreign), "{foreign}: {line}");
            }
        }
        // A wrapped JSDoc read as one text.
        let text = section.replace("\n   * ", " ");
        for js in ["`holding`: `{token, held}`", "a `Headers` or `Map`", "`DecisionEvent`", "`\"http\"` (default)"] {
            assert!(text.contains(js), "{js}: {section}");
        }
    }

    /// A method added to the engine's family is one entry: it reaches JS's `Operation` (its clock reading and
    /// attempt read first, the outcome read into its wire words, the decision read from its record), as it
    /// reaches Python's and Kotlin's; every method of JS's public `Operation` is written from the family, its
    /// deprecated alias calling the new name, and each getter is `Running`'s or the class's own.
    #[test]
    fn a_new_engine_method_reaches_js() {
        const OUTCOME: Arg = Arg::Instance { name: "outcome", class: "Outcome" };
        let (driver, operation) = hand();
        let section = super::section(&super::OPERATION_SPELLING, &ENGINE, &driver, &operation).unwrap();
        assert_all_declared_written("Operation", &section);
        assert!(
            section.contains("  remainingBudgetMs(nowMs) {\n    return this.remainingMs(nowMs);\n  }\n"),
            "{section}"
        );
        assert!(section.contains("  /** @deprecated Alias of `remainingMs` for one release"), "{section}");
        let mut classes = ENGINE.classes.to_vec();
        let added = method(
            "on_outcome_again",
            "Reports an outcome once more.",
            &[Arg::Now, Arg::Count("attempt"), OUTCOME],
            Ret::DecisionOrError,
        );
        classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), ..ENGINE };
        let js = super::section(&super::OPERATION_SPELLING, &family, &driver, &operation).unwrap();
        assert!(
            js.contains(
                "  /** Reports an outcome once more. */\n  onOutcomeAgain(nowMs, attempt, outcome) {\n    \
                 const now = ms('nowMs', nowMs);\n    const at = attemptOf(attempt);\n    read(outcome);\n    \
                 return decisionOf(\n      _operationOnOutcomeAgain(handle(this), now, at, words.kind, words.code, \
                 words.delay, words.errorCode),\n    );\n  }\n"
            ),
            "{js}"
        );
        // A getter neither `Running` nor JS's `Operation` has stops the generator, naming it; so does the
        // family with its `js` flag off.
        let mut classes = ENGINE.classes.to_vec();
        let getter = crate::methods::getter("ended_at_ms", "When it ended.", Ret::Ms);
        classes[0].methods = Box::leak([classes[0].methods, &[getter]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), ..ENGINE };
        let error = super::section(&super::OPERATION_SPELLING, &family, &driver, &operation).unwrap_err();
        assert!(error.contains("Operation.ended_at_ms: no getter `endedAtMs`"), "{error}");
        let off = Family { js: false, ..ENGINE };
        let error = super::section(&super::OPERATION_SPELLING, &off, &driver, &operation).unwrap_err();
        assert!(error.contains("Operation: JS keeps this family by hand"), "{error}");
    }

    /// A method added to the driver's family is one entry: it reaches JS's `Driver` (its clock reading and
    /// attempt read first, then the wasm's export of its name called), as it reaches Python's and Kotlin's.
    #[test]
    fn a_new_driver_method_reaches_js() {
        let (hand, _) = hand();
        let mut classes = DRIVER.classes.to_vec();
        let added = method("remaining_ms", "Time left at `now`, in ms.", &[Arg::Now, Arg::Count("attempt")], Ret::Ms);
        classes[0].methods = Box::leak([classes[0].methods, &[added]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), js: true, ..DRIVER };
        let js = super::section(&super::DRIVER_SPELLING, &family, &hand, &hand).unwrap();
        assert!(
            js.contains(
                "  /** Time left at `nowMs`, in ms. */\n  remainingMs(nowMs, attempt) {\n    \
                 const now = ms('nowMs', nowMs);\n    const at = attemptOf(attempt);\n    \
                 return decided(_driverRemainingMs(handle(this), now, at));\n  }\n"
            ),
            "{js}"
        );
        let section = super::section(&super::DRIVER_SPELLING, &DRIVER, &hand, &hand).unwrap();
        assert_all_declared_written("Driver", &section);
        // A getter JS's `Running` lacks stops the generator, naming it.
        let getter = crate::methods::getter("started_at_ms", "When it started.", Ret::Ms);
        let mut classes = DRIVER.classes.to_vec();
        classes[0].methods = Box::leak([classes[0].methods, &[getter]].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), js: true, ..DRIVER };
        let error = super::section(&super::DRIVER_SPELLING, &family, &hand, &hand).unwrap_err();
        assert!(error.contains("Driver.started_at_ms: no getter `startedAtMs`"), "{error}");
    }
}
