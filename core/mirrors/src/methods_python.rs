//! Python (pyo3): `bindings-python/src/controls_generated.rs`, the classes
//! of `methods::CONTROLS` as `#[pyclass]`es, included by `controls.rs`,
//! which keeps what they call (`config_value`, `Source`, `GrantClass`,
//! `grant_arg`, `take_grant`). How each kind is spelt: a clock reading is
//! `now` (seconds, positional) or `now_ms` (keyword); a flag, an optional
//! grant and any argument after one default; a count is read by `u32_arg`; a
//! snapshot is the JSON-shaped dict; an error goes through `Fault`. The
//! Python-only families are written the same way: `Operation` into
//! `engine_generated.rs`, `Driver` into `driver_generated.rs` (a one-off
//! part, such as the driver's own options, is a call to a helper the
//! including file keeps).

use crate::methods::{
    class_named, kept_fact, Arg, Class, Fact, Family, Method, Ret, Shape, Through, COMPILE_DEPENDENCY,
};
use crate::output::{Output, HEADER};
use crate::python_records::python_rust_doc as doc;

pub const CONTROLS: &str = "bindings-python/src/controls_generated.rs";
/// The engine's classes (`methods::ENGINE`), included by `operation.rs`, which keeps what they call
/// (`options`, `repr`).
pub const ENGINE: &str = "bindings-python/src/engine_generated.rs";
/// The driver's class (`methods::DRIVER`), included by `driver.rs`, which keeps what it calls (`start`,
/// `hand_in`, `hand_in_response`, `held_token`, `words_arg`, the conversions of actions, receipts and events).
pub const DRIVER: &str = "bindings-python/src/driver_generated.rs";

/// `engine_generated.rs`, from the engine's family.
pub fn engine_output(family: &Family) -> Result<Output, String> {
    family_output(family, ENGINE, "the engine's classes", "operation.rs")
}

/// `driver_generated.rs`, from the driver's family.
pub fn driver_output(family: &Family) -> Result<Output, String> {
    family_output(family, DRIVER, "the driver's class", "driver.rs")
}

/// The classes of a Python-only `family` at `path`, included by `includer`.
fn family_output(family: &Family, path: &'static str, what: &str, includer: &str) -> Result<Output, String> {
    if !family.python {
        let names: Vec<&str> = family.classes.iter().map(|class| class.name).collect();
        return Err(format!("{}: Python keeps this family by hand (its `python` flag is off)", names.join(", ")));
    }
    let mut text = format!(
        "// {HEADER}\n// From the definition of {what} (core/mirrors/src/methods/table.rs), included by {includer}.\n"
    );
    for class in family.classes {
        text.push_str(&class_text(family.classes, class)?);
    }
    Ok(Output { path, text })
}

pub fn output(classes: &[Class]) -> Result<Output, String> {
    let mut text = format!(
        "// {HEADER}\n// From the definition of the shared controls (core/mirrors/src/methods/table.rs), included by controls.rs.\n"
    );
    for class in classes {
        text.push_str(&class_text(classes, class)?);
    }
    text.push_str(&format!(
        "\n{}#[pyfunction]\n#[pyo3(signature = (config = None, **fields))]\npub(crate) fn compile_dependency<'py>(\n    \
         py: Python<'py>,\n    config: Arg,\n    fields: Option<&Bound<'_, PyDict>>,\n) -> Res<Bound<'py, PyBytes>> {{\n    \
         let config = rp::DependencyConfig::from_value(&config_value(rp::config::error::ConfigKind::Dependency, config, fields)?)?;\n    \
         Ok(PyBytes::new(py, &config.to_compiled()?))\n}}\n",
        doc(COMPILE_DEPENDENCY, "")
    ));
    Ok(Output { path: CONTROLS, text })
}

fn class_text(classes: &[Class], class: &Class) -> Result<String, String> {
    let name = class.name;
    // An engine object is stepped (`&mut`): its class is not frozen.
    let frozen = if matches!(class.shape, Shape::Engine { .. }) { "" } else { ", frozen" };
    let mut text = format!("\n{}#[pyclass(module = \"retryplan\", name = \"{name}\"{frozen})]\n", doc(class.doc, ""));
    let mut methods = String::new();
    match class.shape {
        Shape::Bundle => {
            text.push_str(&format!("pub(crate) struct Py{name} {{\n    pub(crate) inner: Arc<rp::{name}>,\n}}\n"));
            text.push_str(&format!(
                "\nimpl Py{name} {{\n    fn control(&self) -> Res<&rp::{name}> {{\n        Ok(&self.inner)\n    }}\n}}\n"
            ));
        }
        Shape::Control { core, field } => {
            text.push_str(&format!("pub(crate) struct Py{name} {{\n    inner: Source<rp::{core}>,\n}}\n"));
            text.push_str(&format!(
                "\nimpl Py{name} {{\n    fn control(&self) -> Res<&rp::{core}> {{\n        \
                 self.inner.get(\"{field}\", rp::Dependency::{field})\n    }}\n}}\n"
            ));
        }
        Shape::Grant { core, fact } => {
            let (field, init) = kept_fact(fact);
            text.push_str(&format!(
                "pub(crate) struct Py{name} {{\n{field}    cell: rp::config::grant::GrantCell<rp::{core}>,\n}}\n\n\
                 impl Py{name} {{\n    fn new(grant: rp::{core}) -> Self {{\n        \
                 Py{name} {{ {init}cell: rp::config::grant::GrantCell::new(grant) }}\n    }}\n}}\n\n\
                 impl GrantClass for Py{name} {{\n    type Core = rp::{core};\n    fn cell(&self) -> &rp::config::grant::GrantCell<rp::{core}> {{\n        \
                 &self.cell\n    }}\n}}\n"
            ));
            let repr = match fact {
                Some(Fact { name: fact, ty: "bool", .. }) => {
                    format!("if self.{fact} {{ \"True\" }} else {{ \"False\" }}")
                }
                Some(Fact { name: fact, .. }) => format!("self.{fact}"),
                None => "if self.cell.is_settled() { \"True\" } else { \"False\" }".to_owned(),
            };
            if let Some(Fact { name: fact, doc: fact_doc, ty, .. }) = fact {
                methods.push_str(&format!(
                    "{}    #[getter]\n    fn {fact}(&self) -> {ty} {{\n        self.{fact}\n    }}\n\n",
                    doc(fact_doc, "    ")
                ));
            }
            let shown = fact.map_or("settled", |fact| fact.name);
            methods.push_str(&format!(
                "    fn __repr__(&self) -> String {{\n        format!(\"{name}({shown}={{}})\", {repr})\n    }}\n"
            ));
        }
        Shape::Engine { core, boxed: false } => {
            text.push_str(&format!("pub(crate) struct Py{name} {{\n    inner: rp::{core},\n}}\n"));
            methods.push_str("    fn __repr__(&self) -> String {\n        self.repr()\n    }\n");
        }
        Shape::Engine { core, boxed: true } => {
            text.push_str(&format!(
                "pub(crate) struct Py{name} {{\n    /// Boxed: a {} is a few KB, moved once instead of at every step of making its \
                 Python object.\n    pub(crate) inner: Box<rp::{core}>,\n}}\n",
                name.to_lowercase()
            ));
        }
        Shape::Value { .. } => return Err(format!("{name}: Python keeps its value classes by hand")),
    }
    for (index, constructor) in class.constructors.iter().enumerate() {
        methods.push_str(&constructor_text(class, constructor, index == 0)?);
    }
    for method in class.methods {
        methods.push_str(&method_text(classes, class, method)?);
    }
    text.push_str(&format!("\n#[pymethods]\nimpl Py{name} {{\n{}}}\n", methods.trim_matches('\n').to_owned() + "\n"));
    Ok(text)
}

/// The keywords of `Arg::Hosting` after `concurrency`, in order, with their stub type and what the doc says of
/// each; a flag (`bool`) is false when left out, the others None.
pub(crate) const HOSTING: [(&str, &str, &str); 8] = [
    (
        "method",
        "Optional[str]",
        "the HTTP request's method (a method that is not idempotent (RFC 9110 §9.2.2; RFC 10008's QUERY is) makes a safe or idempotent policy \
         unsafe)",
    ),
    ("idempotent", "Optional[bool]", "the caller's word for this request"),
    (
        "request_idempotency_key",
        "Optional[str]",
        "the value of the request's own `Idempotency-Key` header, which makes it keyed by that exact key (the \
         core's `http_request` rule; an empty or malformed one is `Error::InvalidArgument` naming \
         `Idempotency-Key`)",
    ),
    ("stats", "Optional[Stats]", "counted as decisions are made"),
    ("record_events", "bool", "keep each decision for `poll_event`"),
    ("returns_responses", "bool", "the host returns the last response (the HTTP helpers; `Ending.result` says which)"),
    ("one_shot_body", "bool", "the request's body can be sent once (a retry it would need ends `body_not_replayable`)"),
    (
        "incoming",
        "Optional[IncomingContext]",
        "the context of the request this operation serves (`IncomingContext.read`): the operation ends by the \
         caller's deadline less `propagation.reserve_ms`, runs under the caller's key, and makes one attempt when \
         the caller retries (`propagation.retry_layer` `outermost`)",
    ),
];

fn constructor_text(class: &Class, constructor: &Method, own: bool) -> Result<String, String> {
    let name = class.name;
    let core = match class.shape {
        Shape::Control { core, .. } => core,
        _ => name,
    };
    let attribute = if own { "    #[new]\n" } else { "    #[staticmethod]\n" };
    if let (
        Shape::Engine { core, .. },
        [Arg::Instance { name: lent, class: of }, Arg::Now, Arg::Options, hosting @ ..],
    ) = (class.shape, constructor.args)
    {
        if let [] | [Arg::Hosting] = hosting {
            let doc = doc(&python_doc(constructor), "    ");
            let text = engine_constructor(name, core, lent, of, !hosting.is_empty(), constructor.name);
            return Ok(format!("\n{doc}{attribute}{text}"));
        }
    }
    let (signature, params, read, made) = match constructor.args {
        [Arg::Config] => {
            let kind = class.config.ok_or_else(|| format!("{name}: a configuration with no kind"))?;
            (
                "    #[pyo3(signature = (config = None, **fields))]\n",
                "config: Arg, fields: Option<&Bound<'_, PyDict>>".to_owned(),
                format!(
                    "        let config = rp::{kind}Config::from_value(&config_value(rp::config::error::ConfigKind::{kind}, config, fields)?)?;\n"
                ),
                format!("rp::{core}::new(&config)?"),
            )
        }
        // `json`, as every binding names it; `text`, Python's old name, warns for one release (args::json_arg).
        [Arg::Json] => (
            "    #[pyo3(signature = (json = None, *, text = None), text_signature = \"(json)\")]\n",
            "json: Arg, text: Arg".to_owned(),
            String::new(),
            format!("rp::{core}::from_json(&json_arg(json, text)?)?"),
        ),
        [Arg::Compiled] => (
            "",
            "form: &Bound<'_, PyAny>".to_owned(),
            String::new(),
            format!("rp::{core}::from_compiled(&bytes_arg(\"form\", form)?)?"),
        ),
        [Arg::Count(count)] => (
            "",
            format!("{count}: &Bound<'_, PyAny>"),
            String::new(),
            format!("rp::{core}::new(u32_arg(\"{count}\", {count})?)"),
        ),
        other => return Err(format!("{name}.{}: no Python constructor for {other:?}", constructor.name)),
    };
    let kept = match class.shape {
        Shape::Bundle => made,
        _ => format!("Source::Own(Box::new({made}))"),
    };
    Ok(format!(
        "\n{}{attribute}{signature}    fn {}({params}) -> Res<Self> {{\n{read}        Ok(Py{name} {{ inner: {kept} }})\n    }}\n",
        doc(&python_doc(constructor), "    "),
        constructor.name
    ))
}

/// The constructor `fn_name` of engine class `name` (making an `rp::{core}` from the `{of}` it is lent as
/// `{lent}`), after its doc and attribute: started at `now` (seconds) or `now_ms`, with an operation's options;
/// with `hosting`, a driver's own options too (`concurrency` positional, the others keywords), which the
/// including file's `Self::start` reads.
fn engine_constructor(name: &str, core: &str, lent: &str, of: &str, hosting: bool, fn_name: &str) -> String {
    let (positional, positional_param, keywords, keyword_params, made) = if hosting {
        let signature: Vec<String> = HOSTING
            .iter()
            .map(|&(name, ty, _)| format!(", {name} = {}", if ty == "bool" { "false" } else { "None" }))
            .collect();
        let params: String = HOSTING
            .iter()
            .map(|&(name, ty, _)| format!("        {name}: {},\n", if ty == "bool" { "bool" } else { "Arg" }))
            .collect();
        let names: Vec<&str> = HOSTING.iter().map(|&(name, ..)| name).collect();
        let made = format!(
            "let hosting = Hosting {{ concurrency, {} }};\n        Self::start({lent}, now, options, hosting)",
            names.join(", ")
        );
        ("concurrency = None, ", "        concurrency: Arg,\n", signature.concat(), params, made)
    } else {
        let made = format!("Ok(Py{name} {{ inner: rp::{core}::new({lent}, now, options) }})");
        ("", "", String::new(), String::new(), made)
    };
    format!(
        "    #[pyo3(signature = ({lent}, now = None, {positional}*, now_ms = None, seed = None, idempotency_key = None, \
         deadline = None, deadline_ms = None, dependency = None{keywords}))]\n    #[allow(clippy::too_many_arguments)]\n    \
         fn {fn_name}(\n        {lent}: &Bound<'_, PyAny>,\n        now: Arg,\n{positional_param}        now_ms: Arg,\n        \
         seed: Arg,\n        idempotency_key: Arg,\n        deadline: Arg,\n        deadline_ms: Arg,\n        dependency: Arg,\n\
         {keyword_params}    ) -> Res<Self> {{\n        \
         let {lent} = &class_arg::<Py{of}>(\"{lent}\", {lent})?.inner;\n        let now = NOW.read(now, now_ms)?;\n        \
         let options = options(seed, idempotency_key, (deadline, deadline_ms), dependency)?;\n        {made}\n    }}\n"
    )
}

fn method_text(classes: &[Class], class: &Class, method: &Method) -> Result<String, String> {
    let name = method.name;
    // The core's call that steps its object takes it `&mut`.
    let steps = matches!(
        method.ret,
        Ret::DecisionOrError
            | Ret::Steps
            | Ret::StepsOrError
            | Ret::ActionOrError
            | Ret::ReceiptOrError
            | Ret::Event
            | Ret::Record
    );
    let receiver = if steps { "&mut self" } else { "&self" };
    let (mut signature, mut params, mut args) = (Vec::new(), vec![receiver.to_owned()], Vec::new());
    // The keyword-only clock readings, after `*`.
    let mut keywords: Vec<&str> = Vec::new();
    let mut defaulted = false;
    // Each argument's name, for a call too long for one line (read into `let`s first, in order).
    let names: Vec<&str> = method
        .args
        .iter()
        .map(|arg| match *arg {
            Arg::Flag(name)
            | Arg::Count(name)
            | Arg::Grant { name, .. }
            | Arg::Instance { name, .. }
            | Arg::Value { name, .. } => name,
            Arg::HeldToken | Arg::Token => "token",
            Arg::Response => "head",
            Arg::NowUnix => "now_unix",
            Arg::Protocol => "protocol",
            Arg::Words => "words",
            _ => "now",
        })
        .collect();
    // A required argument: positional until one is defaulted, then defaulted too and required by the binding
    // (naming it); its parameter, and the object read (`given`).
    let required = |signature: &mut Vec<String>, params: &mut Vec<String>, name: &str, defaulted: bool| {
        if defaulted {
            signature.push(format!("{name} = None"));
            params.push(format!("{name}: Arg"));
            format!("given(\"{name}\", {name})?")
        } else {
            signature.push(name.to_owned());
            params.push(format!("{name}: &Bound<'_, PyAny>"));
            name.to_owned()
        }
    };
    for arg in method.args {
        match *arg {
            Arg::Now => {
                signature.push("now = None".to_owned());
                params.push("now: Arg".to_owned());
                args.push("NOW.read(now, now_ms)?".to_owned());
                keywords.push("now_ms");
                defaulted = true;
            }
            Arg::NowUnix => {
                signature.push("now_unix = None".to_owned());
                params.push("now_unix: Arg".to_owned());
                args.push("NOW_UNIX.read(now_unix, now_unix_ms)?".to_owned());
                keywords.push("now_unix_ms");
                defaulted = true;
            }
            Arg::Flag(flag) => {
                signature.push(format!("{flag} = false"));
                params.push(format!("{flag}: bool"));
                args.push(flag.to_owned());
                defaulted = true;
            }
            Arg::Count(count) => {
                let given = required(&mut signature, &mut params, count, defaulted);
                args.push(format!("u32_arg(\"{count}\", {given})?"));
            }
            Arg::Instance { name: lent, class: of } => {
                let given = required(&mut signature, &mut params, lent, defaulted);
                args.push(format!("&class_arg::<Py{of}>(\"{lent}\", {given})?.inner"));
            }
            Arg::Value { name: value, class: of } => {
                let given = required(&mut signature, &mut params, value, defaulted);
                args.push(format!("class_arg::<Py{of}>(\"{value}\", {given})?.inner"));
            }
            Arg::Response => {
                let status = required(&mut signature, &mut params, "status", defaulted);
                let headers = required(&mut signature, &mut params, "headers", defaulted);
                args.push(format!("&ResponseHead::read({status}, {headers})?"));
            }
            Arg::Words => {
                let given = required(&mut signature, &mut params, "words", defaulted);
                args.push(format!("&words_arg({given})?"));
            }
            Arg::Grant { name: grant, class, optional } => {
                let read = if optional { "grant_arg" } else { "take_grant" };
                if optional || defaulted {
                    signature.push(format!("{grant} = None"));
                    params.push(format!("{grant}: Arg"));
                    args.push(format!("{read}::<Py{class}>(\"{grant}\", {grant})?"));
                    defaulted = true;
                } else {
                    signature.push(grant.to_owned());
                    params.push(format!("{grant}: &Bound<'_, PyAny>"));
                    args.push(format!("{read}::<Py{class}>(\"{grant}\", Some({grant}))?"));
                }
            }
            Arg::Token => {
                signature.push("token = None".to_owned());
                params.push("token: Arg".to_owned());
                args.push("token.map(|token| u64_arg(\"token\", token)).transpose()?".to_owned());
                defaulted = true;
            }
            Arg::HeldToken => {
                signature.extend(["token = None".to_owned(), "held = None".to_owned()]);
                params.extend(["token: Arg".to_owned(), "held: Arg".to_owned()]);
                args.push("held_token(token, held)?".to_owned());
                defaulted = true;
            }
            Arg::Protocol => {
                signature.push("protocol = None".to_owned());
                params.push("protocol: Arg".to_owned());
                args.push("protocol_arg(protocol)?".to_owned());
                defaulted = true;
            }
            other => return Err(format!("{name}: no Python argument for {other:?}")),
        }
    }
    if !keywords.is_empty() {
        signature.push("*".to_owned());
    }
    for keyword in keywords {
        signature.push(format!("{keyword} = None"));
        params.push(format!("{keyword}: Arg"));
    }
    let engine = matches!(class.shape, Shape::Engine { .. });
    let (target, function) = match method.through {
        Some(Through::Binding(function)) => ("self".to_owned(), function),
        Some(Through::Lent { accessor, .. }) => (format!("self.inner.{accessor}()"), method.call.unwrap_or(name)),
        Some(Through::Function { .. }) => {
            return Err(format!("{}.{name}: no Python call of the core's free function", class.name))
        }
        None if engine => ("self.inner".to_owned(), method.call.unwrap_or(name)),
        None => ("self.control()?".to_owned(), method.call.unwrap_or(name)),
    };
    // A record out is filled in place, in `output`.
    let output: Vec<String> = if method.ret == Ret::Record { vec!["&mut output".to_owned()] } else { Vec::new() };
    let mut call = format!("{target}.{function}({})", [args.as_slice(), &output].concat().join(", "));
    let mut reads = String::new();
    // Only on an engine object: a control is found before its arguments are read (a grant is taken then).
    if call.len() > 80 && engine {
        // An argument that is its own parameter (a flag) needs no `let`.
        for (name, read) in names.iter().zip(&args).filter(|(name, read)| **name != read.as_str()) {
            reads.push_str(&format!("let {name} = {read};\n        "));
        }
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        call = format!("{target}.{function}({})", [names.as_slice(), &output].concat().join(", "));
    }
    let py = "py: Python<'_>".to_owned();
    let py_lent = "py: Python<'py>".to_owned();
    let (lifetime, returned, body) = match method.ret {
        Ret::Unit | Ret::Steps => ("", "Res<()>".to_owned(), format!("{call};\n        Ok(())")),
        Ret::UnitOrError
        | Ret::StepsOrError
        | Ret::BoolOrError
        | Ret::Count
        | Ret::Outstanding
        | Ret::Ms
        | Ret::OptionalMs
        | Ret::Bool => (
            "",
            format!("Res<{}>", rust_type(method.ret)),
            format!("Ok({call}{})", if ends(method.ret) { "?" } else { "" }),
        ),
        Ret::Grant(grant) => ("", format!("Res<Option<Py{grant}>>"), format!("Ok({call}.map(Py{grant}::new))")),
        Ret::Snapshot(_) => {
            params.insert(1, py_lent);
            ("<'py>", "Res<Bound<'py, PyAny>>".to_owned(), format!("serialized(py, &{call})"))
        }
        Ret::DecisionOrError => {
            params.insert(1, py);
            ("", "Res<Py<PyAny>>".to_owned(), format!("Ok(decision_to_py(py, {call}?)?)"))
        }
        Ret::ActionOrError => {
            params.insert(1, py);
            ("", "Res<Py<PyAny>>".to_owned(), format!("Ok(action_to_py(py, {call}?)?)"))
        }
        Ret::ReceiptOrError => {
            params.insert(1, py_lent);
            ("<'py>", "Res<Bound<'py, PyString>>".to_owned(), format!("Ok(receipt_to_py(py, {call}?))"))
        }
        Ret::HeadersOrError | Ret::Headers => {
            params.insert(1, py_lent);
            let fails = if method.ret == Ret::HeadersOrError { "?" } else { "" };
            ("<'py>", "Res<Bound<'py, PyDict>>".to_owned(), format!("Ok(headers_to_py(py, &{call}{fails})?)"))
        }
        Ret::Event => {
            params.insert(1, py);
            ("", "Res<Py<PyAny>>".to_owned(), format!("Ok({call}.into_field(py)?)"))
        }
        Ret::Record => {
            params.insert(1, py_lent);
            (
                "<'py>",
                "Res<Bound<'py, PyList>>".to_owned(),
                format!(
                    "let mut output = [rp::wire::NONE; rp::wire::OUTPUT_WORDS];\n        {call}?;\n        \
                     Ok(PyList::new(py, output)?)"
                ),
            )
        }
        Ret::Text(_) => ("", "Res<String>".to_owned(), format!("Ok({call}.to_string())")),
        Ret::Attempts => {
            params.insert(1, py);
            ("", "Res<Py<PyAny>>".to_owned(), format!("Ok({call}.into_field(py)?)"))
        }
        Ret::Object(of) => ("", format!("Res<Py{of}>"), format!("Ok(Py{of} {{ inner: (*{call}).into() }})")),
        Ret::Compiled | Ret::SpansOrError | Ret::ValueOrError(_) => {
            return Err(format!("{}.{name}: no Python result for {:?}", class.name, method.ret))
        }
        Ret::Control(control) => {
            let Shape::Control { field, .. } = class_named(classes, control)?.shape else {
                return Err(format!("{name}: {control} is not a control"));
            };
            (
                "",
                format!("Option<Py{control}>"),
                format!(
                    "self.inner.{field}().map(|_| Py{control} {{ inner: Source::Dependency(Arc::clone(&self.inner)) }})"
                ),
            )
        }
    };
    let body = format!("{reads}{body}");
    let body = match method.call {
        Some(renamed) if method.deprecated => {
            if !params.iter().any(|param| param.starts_with("py:")) {
                params.insert(1, "py: Python<'_>".to_owned());
            }
            format!(
                "let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();\n        \
                 PyErr::warn(py, &category, c\"retryplan: {0}.{name} is renamed {0}.{renamed}\", 1)?;\n        {body}",
                class.name
            )
        }
        _ => body,
    };
    let mut text = format!("\n{}", doc(&python_doc(method), "    "));
    if method.getter {
        text.push_str("    #[getter]\n");
    }
    if signature.iter().any(|param| param.contains('=')) {
        text.push_str(&format!("    #[pyo3(signature = ({}))]\n", signature.join(", ")));
    }
    if params.len() > 7 {
        text.push_str("    #[allow(clippy::too_many_arguments)]\n");
    }
    let mut head = format!("    fn {name}{lifetime}({}) -> {returned} {{", params.join(", "));
    // One parameter a line when they do not fit on one, as rustfmt writes them.
    if head.len() > 120 {
        let params: String = params.iter().map(|param| format!("        {param},\n")).collect();
        head = format!("    fn {name}{lifetime}(\n{params}    ) -> {returned} {{");
    }
    text.push_str(&format!("{head}\n        {body}\n    }}\n"));
    Ok(text)
}

/// The Rust type a plain result crosses as.
fn rust_type(ret: Ret) -> &'static str {
    match ret {
        Ret::BoolOrError | Ret::Bool => "bool",
        Ret::Count => "u32",
        Ret::Outstanding => "usize",
        Ret::Ms => "u64",
        Ret::OptionalMs => "Option<u64>",
        _ => "()",
    }
}

/// True when the core's call returns a `Result` (its error goes through `Fault`).
fn ends(ret: Ret) -> bool {
    matches!(ret, Ret::UnitOrError | Ret::StepsOrError | Ret::BoolOrError | Ret::DecisionOrError)
}

/// Python's words for `Arg::Hosting`'s positional `concurrency` (its keywords' are `HOSTING`'s).
const CONCURRENCY: &str = "`concurrency`: `Concurrency::Concurrent` (default), `Concurrency::Sequential` or \
     `Concurrency::SequentialWithoutHedging`.";

/// Python's words for a wire record (`Arg::Words`).
const WORDS: &str = "The records are ints (a sequence in, a list out), their words and kinds by the positions and \
     names of `wire_tables()`.";

/// A method's doc as Python shows it (the stub and `help()` alike): the
/// definition's words, then what its kinds mean in Python, which the shared
/// words cannot say (a dict, an int, `None`, a keyword, a default, the
/// exception a refusal raises).
pub(crate) fn python_doc(method: &Method) -> String {
    // Python's clock readings keep the definition's names (`now` in seconds, or `now_ms`).
    let mut text = method.doc_spelt("None", "now", "now_unix");
    let mut add = |words: &str| {
        text.push(' ');
        text.push_str(words);
    };
    match method.args {
        [Arg::Config] => add("Takes one dict, or keyword arguments, shaped like the JSON configuration."),
        [Arg::Compiled] => add("Raises a `CompiledFormError` for a form it refuses."),
        _ => {}
    }
    for arg in method.args {
        match arg {
            Arg::Hosting => {
                add(CONCURRENCY);
                for (name, _, words) in HOSTING {
                    add(&format!("`{name}`: {words}."));
                }
            }
            Arg::HeldToken | Arg::Token => add("`token`: an int."),
            Arg::Response => add(
                "`headers`: a dict (its names in any letter case), or a mapping whose `get` finds lower-case names.",
            ),
            Arg::Protocol => add("`protocol`: `Protocol::Http` (default) or `Protocol::Grpc`."),
            Arg::Words => add(WORDS),
            _ => {}
        }
    }
    match method.ret {
        Ret::Snapshot(_) => add("A JSON-shaped dict."),
        Ret::Headers | Ret::HeadersOrError => add("A dict by lower-case name."),
        _ => {}
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::DRIVER as DRIVER_FAMILY;

    /// The definition's words are the same for every binding; Python's docs add what its kinds are in Python: a
    /// keyword and what it means, a default, an int, a dict.
    #[test]
    fn python_adds_its_own_words_for_its_kinds() {
        // Its doc lines, joined.
        let python = driver_output(&DRIVER_FAMILY).unwrap().text.replace("\n    /// ", " ");
        for words in [
            "`concurrency`: `\"concurrent\"` (default), `\"sequential\"` or",
            "`record_events`: keep each decision for `poll_event`.",
            "a `Release` action, or the `Ending.result`. `token`: an int.",
            "`headers`: a dict (its names in any letter case), or a mapping whose `get` finds lower-case names.",
            "`protocol`: `\"http\"` (default) or `\"grpc\"`.",
            "`wire_tables()`.",
        ] {
            assert!(python.contains(words), "{words}: {python}");
        }
    }

    /// A family whose `python` flag is off (the policy's: Python keeps its `Policy` by hand) is refused, naming
    /// its class, rather than written over the class Python keeps.
    #[test]
    fn a_family_python_keeps_by_hand_is_refused() {
        let error = engine_output(&crate::methods::POLICY).unwrap_err();
        assert!(error.contains("Policy: Python keeps this family by hand"), "{error}");
    }
}
