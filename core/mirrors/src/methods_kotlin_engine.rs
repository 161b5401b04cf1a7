//! Kotlin (and Swift), through uniffi: the engine's classes of a family of the
//! methods definition whose `kotlin` flag is on (`methods::DRIVER`:
//! `bindings-kotlin/src/driver_generated.rs`; `methods::ENGINE`:
//! `bindings-kotlin/src/operation_generated.rs`; `methods::POLICY`:
//! `bindings-kotlin/src/policy_generated.rs`, a shared value called without a
//! lock, a core function given it first), each the `#[uniffi::export]`
//! block of its methods, included by the file that keeps the object itself
//! (the core's object behind a lock, registered for the wire's C path), what
//! the block calls (`start`, and a `Through::Binding` function such as
//! `hand_in`) and Kotlin's own methods, in a block of their own.
//!
//! How each kind is spelt beside the controls' (`methods_kotlin`): a clock
//! reading is `now_ms: i64` (a wall-clock one `now_unix_ms`), read by `ms_in`
//! before the lock is taken; a value is its generated record
//! (`crate::records`, imported by the includer), converted by `try_into` (and lent, `&`, where the
//! definition lends an object: Kotlin's `Outcome` is a record); a token `Option<i64>`
//! (`opt_ms_in`), and with what it holds defaulted to none; a response its
//! `status: i64` and `headers: HashMap<String, String>`; a wire record
//! `input: Vec<i64>` in, the output record's words out; headers the
//! `HeaderField`s in order (`fields`); a time `i64` (`long_out`), a count `i32`
//! (`count_out`); a copy of the core's value a new object of the binding's
//! class (`Policy::shared`). A method is fallible (`Result`) when it reads an argument or
//! the core's call can fail, so an infallible one throws nothing in Kotlin.
//!
//! The definition lists a method's arguments in Python's order, which puts a
//! defaulted token last; Kotlin takes them in the core's, a token before the
//! response it holds (`Driver::handle_response`). A deprecated alias is one of
//! Python's old names: Kotlin never had it, and it is not written.
//!
//! Kotlin's public `Driver` and `Operation` (`Driver.kt`, `Operation.kt`) are
//! lean wrappers made through the wire, with no uniffi handle of their own:
//! each forwards every method written here to its engine object by hand, and
//! `LeanWrapperTest` fails for one it does not.

use crate::methods::{Arg, Class, Family, Method, Ret, Shape, Through};
use crate::methods_kotlin::doc;
use crate::output::{Output, HEADER};

pub const DRIVER: &str = "bindings-kotlin/src/driver_generated.rs";
pub const OPERATION: &str = "bindings-kotlin/src/operation_generated.rs";
pub const POLICY: &str = "bindings-kotlin/src/policy_generated.rs";

/// The definition's classes Kotlin has as records (values, `crate::records`), not objects.
const KOTLIN_RECORDS: [&str; 1] = ["Outcome"];

/// The core's types uniffi takes as they are (remote types): a value of one crosses without a conversion.
const KOTLIN_AS_CORE: [&str; 1] = ["Class"];

/// `driver_generated.rs`, from the driver's family.
pub fn driver_output(family: &Family) -> Result<Output, String> {
    family_output(family, DRIVER, "the driver's class", "driver.rs")
}

/// `operation_generated.rs`, from the engine's family.
pub fn engine_output(family: &Family) -> Result<Output, String> {
    family_output(family, OPERATION, "the engine's classes", "operation.rs")
}

/// `policy_generated.rs`, from the policy's family.
pub fn policy_output(family: &Family) -> Result<Output, String> {
    family_output(family, POLICY, "the policy's methods", "policy.rs")
}

/// The `#[uniffi::export]` blocks of `family` at `path`, included by `includer`.
fn family_output(family: &Family, path: &'static str, what: &str, includer: &str) -> Result<Output, String> {
    if !family.kotlin {
        let names: Vec<&str> = family.classes.iter().map(|class| class.name).collect();
        return Err(format!("{}: Kotlin keeps this family by hand (its `kotlin` flag is off)", names.join(", ")));
    }
    let mut text = format!(
        "// {HEADER}\n// From the definition of {what} (core/mirrors/src/methods/table.rs), included by {includer}.\n"
    );
    for class in family.classes {
        text.push_str(&class_text(class)?);
    }
    Ok(Output { path, text })
}

/// The doc Kotlin shows for `method`: the definition's, a clock reading named as Kotlin takes it (`now_ms`,
/// `now_unix_ms`; Python's `now` is seconds) and an absent value `null`, then what its kinds mean in Kotlin,
/// which the shared words cannot say.
fn kotlin_doc(method: &Method) -> String {
    let mut text = method.doc_spelt("null", "now_ms", "now_unix_ms");
    let mut add = |words: &str| {
        text.push(' ');
        text.push_str(words);
    };
    for arg in method.args {
        match arg {
            Arg::Response => add("`headers`: by name, in any case (those `guidanceHeaders()` names suffice)."),
            Arg::Words => add("The helpers step a driver through the C path instead (`Driver.exchangeInto`)."),
            _ => {}
        }
    }
    if let Ret::Headers | Ret::HeadersOrError = method.ret {
        add("In order.");
    }
    text
}

fn class_text(class: &Class) -> Result<String, String> {
    let name = class.name;
    let (Shape::Engine { .. } | Shape::Value { .. }) = class.shape else {
        return Err(format!("{name}: not an engine object or a value (the controls are methods_kotlin's)"));
    };
    let mut methods = String::new();
    for constructor in class.constructors {
        methods.push_str(&constructor_text(class, constructor)?);
    }
    for method in class.methods.iter().filter(|method| !method.deprecated) {
        methods.push_str(&method_text(class, method)?);
    }
    Ok(format!("\n#[uniffi::export]\nimpl {name} {{\n{}}}\n", methods.trim_start_matches('\n')))
}

/// One argument as Kotlin takes it: its parameters, the `let` reading it (none when it crosses as it is), and
/// what the call is given.
struct Param {
    params: Vec<String>,
    read: Option<String>,
    given: String,
}

impl Param {
    fn plain(param: String, given: &str) -> Param {
        Param { params: vec![param], read: None, given: given.to_owned() }
    }

    fn read(name: &str, ty: &str, reader: &str) -> Param {
        Param {
            params: vec![format!("{name}: {ty}")],
            read: Some(format!("let {name} = {reader}(\"{name}\", {name})?;")),
            given: name.to_owned(),
        }
    }
}

fn param(owner: &str, arg: &Arg) -> Result<Param, String> {
    Ok(match *arg {
        Arg::Now => Param::read("now_ms", "i64", "ms_in"),
        Arg::NowUnix => Param::read("now_unix_ms", "i64", "ms_in"),
        Arg::Count(count) => Param::read(count, "i32", "u32_in"),
        Arg::Ms(name) => Param::read(name, "i64", "ms_in"),
        Arg::OptionalMs(name) => Param::read(name, "Option<i64>", "opt_ms_in"),
        Arg::Token => Param::read("token", "Option<i64>", "opt_ms_in"),
        Arg::Flag(flag) => Param::plain(format!("{flag}: bool"), flag),
        Arg::Protocol => Param::plain("protocol: Protocol".to_owned(), "protocol"),
        Arg::Words => Param::plain("input: Vec<i64>".to_owned(), "&input"),
        Arg::Instance { name, class } | Arg::Value { name, class } if KOTLIN_RECORDS.contains(&class) => Param {
            params: vec![format!("{name}: {class}")],
            read: Some(format!("let {name}: rp::{class} = {name}.try_into()?;")),
            given: if matches!(arg, Arg::Instance { .. }) { format!("&{name}") } else { name.to_owned() },
        },
        Arg::Instance { name, class } => Param::plain(format!("{name}: Arc<{class}>"), &format!("&{name}.0")),
        Arg::HeldToken => Param {
            params: vec!["token: Option<i64>".to_owned(), "held: Option<rp::Held>".to_owned()],
            read: Some("let token = opt_ms_in(\"token\", token)?;".to_owned()),
            given: "token, held".to_owned(),
        },
        Arg::Response => Param {
            params: vec!["status: i64".to_owned(), "headers: HashMap<String, String>".to_owned()],
            read: None,
            given: "status, headers".to_owned(),
        },
        Arg::Options => Param {
            params: vec!["options: OperationOptions".to_owned()],
            read: Some("let options = options.into_core()?;".to_owned()),
            given: "options".to_owned(),
        },
        Arg::Hosting => Param::plain("driver_options: DriverOptions".to_owned(), "driver_options"),
        other => return Err(format!("{owner}: no Kotlin argument for {other:?} on an engine object")),
    })
}

/// `args` in Kotlin's order (a token before the response it holds, as the core takes them), as `Param`s.
fn params(owner: &str, args: &[Arg]) -> Result<Vec<Param>, String> {
    let mut args = args.to_vec();
    if let (Some(response), Some(token)) =
        (args.iter().position(|arg| *arg == Arg::Response), args.iter().position(|arg| *arg == Arg::Token))
    {
        if token > response {
            let token = args.remove(token);
            args.insert(response, token);
        }
    }
    args.iter().map(|arg| param(owner, arg)).collect()
}

/// The reads of `params`, one `let` a line at the body's indent.
fn reads(params: &[Param]) -> String {
    params.iter().filter_map(|param| param.read.as_ref()).map(|read| format!("        {read}\n")).collect()
}

fn constructor_text(class: &Class, constructor: &Method) -> Result<String, String> {
    let name = class.name;
    let owner = format!("{name}.{}", constructor.name);
    let params = params(&owner, constructor.args)?;
    let given: Vec<&str> = params.iter().map(|param| param.given.as_str()).collect();
    Ok(format!(
        "\n{}    #[uniffi::constructor]\n{}\n{}        {name}::start({})\n    }}\n",
        doc(&kotlin_doc(constructor), "    "),
        head(constructor.name, None, &params, &format!(" -> Result<Arc<{name}>>")),
        reads(&params),
        given.join(", "),
    ))
}

/// A function's first line (`receiver` first, when it has one), one parameter a line when they do not fit on one,
/// as rustfmt writes them.
fn head(name: &str, receiver: Option<&str>, params: &[Param], returned: &str) -> String {
    let declared: Vec<&str> =
        receiver.into_iter().chain(params.iter().flat_map(|param| param.params.iter().map(String::as_str))).collect();
    let head = format!("    pub fn {name}({}){returned} {{", declared.join(", "));
    if head.len() <= 120 {
        return head;
    }
    let lines: String = declared.iter().map(|param| format!("        {param},\n")).collect();
    format!("    pub fn {name}(\n{lines}    ){returned} {{")
}

fn method_text(class: &Class, method: &Method) -> Result<String, String> {
    let owner = format!("{}.{}", class.name, method.name);
    let params = params(&owner, method.args)?;
    let mut given: Vec<&str> = params.iter().map(|param| param.given.as_str()).collect();
    // A record out is filled in place: the core's last argument.
    if method.ret == Ret::Record {
        given.push("&mut output");
    }
    let core = method.call.unwrap_or(method.name);
    // An engine object is behind a lock; a value is shared as it is.
    let object = if matches!(class.shape, Shape::Value { .. }) { "self.0" } else { "lock(&self.0)" };
    let call = match method.through {
        None => format!("{object}.{core}({})", given.join(", ")),
        Some(Through::Lent { accessor, .. }) => format!("{object}.{accessor}().{core}({})", given.join(", ")),
        Some(Through::Binding(function)) => format!("self.{function}({})", given.join(", ")),
        Some(Through::Function { path, .. }) => {
            format!("rp::{path}({})", ["&self.0"].iter().chain(&given).copied().collect::<Vec<_>>().join(", "))
        }
    };
    let reads = reads(&params);
    let fails = matches!(
        method.ret,
        Ret::UnitOrError
            | Ret::StepsOrError
            | Ret::BoolOrError
            | Ret::DecisionOrError
            | Ret::ActionOrError
            | Ret::ReceiptOrError
            | Ret::HeadersOrError
            | Ret::Record
            | Ret::SpansOrError
            | Ret::ValueOrError(_)
    );
    // A copy of the core's value crosses as a new object of the binding's class of its name.
    let object = if let Ret::Object(of) = method.ret { format!("Arc<{of}>") } else { String::new() };
    // What the method returns, and its value.
    let (returned, value) = match method.ret {
        Ret::Unit | Ret::Steps => ("()", format!("{call};\n        ()")),
        Ret::UnitOrError | Ret::StepsOrError => ("()", format!("{call}?")),
        Ret::BoolOrError | Ret::Bool => ("bool", format!("{call}{}", if fails { "?" } else { "" })),
        Ret::DecisionOrError => ("Decision", format!("{call}?.into()")),
        Ret::ActionOrError => ("Action", format!("{call}?.into()")),
        Ret::ReceiptOrError => ("rp::Receipt", format!("{call}?")),
        Ret::HeadersOrError => ("Vec<HeaderField>", format!("fields(&{call}?)")),
        Ret::Headers => ("Vec<HeaderField>", format!("fields(&{call})")),
        Ret::Record => (
            "Vec<i64>",
            format!(
                "let mut output = [rp::wire::NONE; rp::wire::OUTPUT_WORDS];\n        {call}?;\n        output.to_vec()"
            ),
        ),
        Ret::Event => ("Option<Event>", format!("{call}.map(Into::into)")),
        // Text the core writes as a `String` is already Kotlin's.
        Ret::Text("String") => ("String", call),
        Ret::Text(_) => ("String", format!("{call}.to_string()")),
        Ret::Compiled => ("Vec<u8>", call),
        Ret::SpansOrError => ("Vec<i64>", format!("{call}?.into_iter().map(long_out).collect()")),
        Ret::ValueOrError(ty) => {
            let converted = if KOTLIN_AS_CORE.contains(&ty) { "" } else { ".into()" };
            (ty, format!("{call}?{converted}"))
        }
        Ret::Ms => ("i64", format!("long_out({call})")),
        Ret::OptionalMs => ("Option<i64>", format!("{call}.map(long_out)")),
        Ret::Count => ("i32", format!("count_out({call})")),
        Ret::Attempts => ("Vec<i32>", format!("attempts_out({call})")),
        Ret::Object(of) => (object.as_str(), format!("{of}::shared(*{call})")),
        other => return Err(format!("{owner}: no Kotlin result for {other:?} on an engine object")),
    };
    let (returned, body) = if fails || !reads.is_empty() {
        // The last line of a value is what it is: `Ok(...)` around it.
        let body = match value.rsplit_once("\n        ") {
            Some((before, "()")) => format!("{before}\n        Ok(())"),
            Some((before, last)) => format!("{before}\n        Ok({last})"),
            None => format!("Ok({value})"),
        };
        (format!("Result<{returned}>"), body)
    } else {
        (returned.to_owned(), value.replace(";\n        ()", ";"))
    };
    let returned = if returned == "()" { String::new() } else { format!(" -> {returned}") };
    let mut text = format!("\n{}", doc(&kotlin_doc(method), "    "));
    // A token and what it holds default to none (the first result of an attempt holds nothing), a flag to false.
    let mut defaults: Vec<String> = Vec::new();
    if method.args.contains(&Arg::HeldToken) {
        defaults.extend(["token = None".to_owned(), "held = None".to_owned()]);
    }
    defaults.extend(method.args.iter().filter_map(|arg| match *arg {
        Arg::Flag(flag) => Some(format!("{flag} = false")),
        _ => None,
    }));
    if !defaults.is_empty() {
        text.push_str(&format!("    #[uniffi::method(default({}))]\n", defaults.join(", ")));
    }
    // Clippy's bound (seven, the receiver counted): a method taking more crosses the core's arguments as they are.
    if 1 + params.iter().map(|param| param.params.len()).sum::<usize>() > 7 {
        text.push_str("    #[allow(clippy::too_many_arguments)]\n");
    }
    let head = head(method.name, Some("&self"), &params, &returned);
    text.push_str(&format!("{head}\n{reads}        {body}\n    }}\n"));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::{DRIVER, ENGINE, POLICY};

    /// Every method of the driver's family reaches Kotlin's block, as a method of its own.
    #[test]
    fn every_driver_method_reaches_kotlin() {
        let kotlin = driver_output(&DRIVER).unwrap().text;
        let class = &DRIVER.classes[0];
        for method in class.constructors.iter().chain(class.methods) {
            assert!(kotlin.contains(&format!("    pub fn {}(", method.name)), "{}: {kotlin}", method.name);
        }
    }

    /// The definition's words speak no binding's API, so Kotlin's docs read them as they are, with Kotlin's own
    /// words for its kinds: never a dict, an int handle, a Python literal or keyword.
    #[test]
    fn kotlin_docs_speak_no_python() {
        let driver = driver_output(&DRIVER).unwrap().text;
        for kotlin in [&driver, &engine_output(&ENGINE).unwrap().text] {
            for line in kotlin.lines().filter(|line| line.trim_start().starts_with("///")) {
                for python in ["dict", " int ", " int,", "=True", "`\"", "None", "keyword"] {
                    assert!(!line.contains(python), "{python}: {line}");
                }
            }
        }
        assert!(driver.contains("`headers`: by name, in any case"), "{driver}");
    }

    /// Kotlin takes a token before the response it holds, as the core does (Python takes it last), and the flag
    /// after it, false when left out.
    #[test]
    fn a_token_comes_before_the_response() {
        let kotlin = driver_output(&DRIVER).unwrap().text;
        assert!(
            kotlin.contains(
                "        now_ms: i64,\n        attempt: i32,\n        token: Option<i64>,\n        status: i64,\n        \
                 headers: HashMap<String, String>,\n        now_unix_ms: i64,\n        redirected: bool,\n    ) -> \
                 Result<rp::Receipt> {\n"
            ),
            "{kotlin}"
        );
        // A flag is false when left out.
        assert!(
            kotlin.contains(
                "    #[uniffi::method(default(redirected = false))]\n    #[allow(clippy::too_many_arguments)]\n    pub fn \
                 handle_response("
            ),
            "{kotlin}"
        );
    }

    /// A family whose `kotlin` flag is off is refused, naming its class, rather than written where Kotlin keeps
    /// its own.
    #[test]
    fn a_family_kotlin_keeps_by_hand_is_refused() {
        let family = Family { kotlin: false, ..ENGINE };
        assert!(engine_output(&family).unwrap_err().contains("Operation"));
    }

    /// Every method of the engine's family reaches Kotlin's `Operation` but the deprecated alias (Python's old
    /// name); an outcome is Kotlin's record, converted and lent; the policy a new `Policy` object.
    #[test]
    fn every_operation_method_reaches_kotlin() {
        let kotlin = engine_output(&ENGINE).unwrap().text;
        let class = &ENGINE.classes[0];
        for method in class.constructors.iter().chain(class.methods) {
            let written = kotlin.contains(&format!("    pub fn {}(", method.name));
            assert!(written != method.deprecated, "{}: {kotlin}", method.name);
        }
        assert!(
            kotlin.contains(
                "    pub fn policy(&self) -> Arc<Policy> {\n        Policy::shared(*lock(&self.0).policy())\n"
            ),
            "{kotlin}"
        );
        assert!(
            kotlin.contains(
                "        let outcome: rp::Outcome = outcome.try_into()?;\n        \
                 Ok(lock(&self.0).on_outcome(now_ms, attempt, &outcome)?.into())\n"
            ),
            "{kotlin}"
        );
        assert!(
            kotlin.contains("    /// When to poll next, in ms on the caller's clock, or null once ended.\n"),
            "{kotlin}"
        );
        assert!(kotlin.contains("    /// Time left at `nowMs` before the deadline"), "{kotlin}");
    }

    /// Every method of the policy's family reaches Kotlin's block, called on the shared core value (no lock);
    /// a core function is given the policy first, a core value Kotlin has a record of is converted, one uniffi
    /// takes as the core's is not.
    #[test]
    fn every_policy_method_reaches_kotlin() {
        let kotlin = policy_output(&POLICY).unwrap().text;
        for method in POLICY.classes[0].methods {
            assert!(kotlin.contains(&format!("    pub fn {}(&self", method.name)), "{}: {kotlin}", method.name);
        }
        assert!(!kotlin.contains("lock("), "{kotlin}");
        assert!(kotlin.contains("        Ok(rp::outcomes::classify::classify(&self.0, &outcome)?)\n"), "{kotlin}");
        assert!(kotlin.contains("        Ok(rp::explain(&self.0, deadline_ms, first_attempt_at_ms)?.into())\n"));
        assert!(kotlin.contains("`Policy.fromCompiled`"), "{kotlin}");
    }

    /// A method added to the policy's family is one entry: its arguments read, the core's method or function
    /// called on the policy, its value converted.
    #[test]
    fn a_new_policy_method_reaches_kotlin() {
        use crate::methods::{getter, method};
        let mut classes = POLICY.classes.to_vec();
        let added = [
            getter("max_attempts", "Attempts allowed in all, the first included.", Ret::Count),
            Method {
                through: Some(Through::Function { path: "engine::backoff::backoff_ceiling_ms", source: "" }),
                ..method(
                    "backoff_ceiling_ms",
                    "The ceiling of retry `retry` after `elapsed_ms`.",
                    &[Arg::Count("retry"), Arg::Ms("elapsed_ms")],
                    Ret::SpansOrError,
                )
            },
        ];
        classes[0].methods = Box::leak([classes[0].methods, &added].concat().into_boxed_slice());
        let family = Family { classes: Box::leak(classes.into_boxed_slice()), ..POLICY };
        let kotlin = policy_output(&family).unwrap().text;
        assert!(
            kotlin.contains(
                "    /// Attempts allowed in all, the first included.\n    pub fn max_attempts(&self) -> i32 {\n        \
                 count_out(self.0.max_attempts())\n    }\n"
            ),
            "{kotlin}"
        );
        assert!(
            kotlin.contains(
                "    pub fn backoff_ceiling_ms(&self, retry: i32, elapsed_ms: i64) -> Result<Vec<i64>> {\n        \
                 let retry = u32_in(\"retry\", retry)?;\n        let elapsed_ms = ms_in(\"elapsed_ms\", elapsed_ms)?;\n        \
                 Ok(rp::engine::backoff::backoff_ceiling_ms(&self.0, retry, elapsed_ms)?.into_iter().map(long_out).collect())\n"
            ),
            "{kotlin}"
        );
    }
}
