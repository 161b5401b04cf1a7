//! Python (pyo3): `bindings-python/src/controls_generated.rs`, the classes
//! of `methods::CONTROLS` as `#[pyclass]`es, included by `controls.rs`,
//! which keeps what they call (`config_value`, `Source`, `GrantClass`,
//! `grant_arg`, `take_grant`). How each kind is spelt: a clock reading is
//! `now` (seconds, positional) or `now_ms` (keyword); a flag, an optional
//! grant and any argument after one default; a count is read by `u32_arg`; a
//! snapshot is the JSON-shaped dict; an error goes through `Fault`.

use crate::methods::{class_named, kept_fact, Arg, Class, Fact, Family, Method, Ret, Shape, COMPILE_DEPENDENCY};
use crate::output::{Output, HEADER};
use crate::python_records::{docstring, python_rust_doc as doc};

pub const CONTROLS: &str = "bindings-python/src/controls_generated.rs";
/// The engine's classes (`methods::ENGINE`), included by `operation.rs`, which keeps what they call
/// (`options`, `repr`).
pub const ENGINE: &str = "bindings-python/src/engine_generated.rs";

/// `engine_generated.rs`, from the engine's family.
pub fn engine_output(family: &Family) -> Result<Output, String> {
    let mut text = format!(
        "// {HEADER}\n// From the definition of the engine's classes (core/mirrors/src/methods.rs), included by operation.rs.\n"
    );
    for class in family.classes {
        text.push_str(&class_text(family.classes, class)?);
    }
    Ok(Output { path: ENGINE, text })
}

pub fn output(classes: &[Class]) -> Result<Output, String> {
    let mut text = format!(
        "// {HEADER}\n// From the definition of the shared controls (core/mirrors/src/methods.rs), included by controls.rs.\n"
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
        Shape::Engine { core } => {
            text.push_str(&format!("pub(crate) struct Py{name} {{\n    inner: rp::{core},\n}}\n"));
            methods.push_str("    fn __repr__(&self) -> String {\n        self.repr()\n    }\n");
        }
    }
    for (index, constructor) in class.constructors.iter().enumerate() {
        methods.push_str(&constructor_text(class, constructor, index == 0)?);
    }
    for method in class.methods {
        methods.push_str(&method_text(classes, class, method)?);
    }
    text.push_str(&format!(
        "\n#[pymethods]\nimpl Py{name} {{\n{}}}\n",
        methods.trim_end_matches('\n').to_owned() + "\n"
    ));
    Ok(text)
}

fn constructor_text(class: &Class, constructor: &Method, own: bool) -> Result<String, String> {
    let name = class.name;
    let core = match class.shape {
        Shape::Control { core, .. } => core,
        _ => name,
    };
    let attribute = if own { "    #[new]\n" } else { "    #[staticmethod]\n" };
    if let (Shape::Engine { core }, [Arg::Instance { name: lent, class: of }, Arg::Now, Arg::Options]) =
        (class.shape, constructor.args)
    {
        return Ok(format!(
            "\n{}{attribute}    #[pyo3(signature = ({lent}, now = None, *, now_ms = None, seed = None, idempotency_key = None, \
             deadline = None, deadline_ms = None, dependency = None))]\n    #[allow(clippy::too_many_arguments)]\n    \
             fn {}(\n        {lent}: &Bound<'_, PyAny>,\n        now: Arg,\n        now_ms: Arg,\n        seed: Arg,\n        \
             idempotency_key: Arg,\n        deadline: Arg,\n        deadline_ms: Arg,\n        dependency: Arg,\n    ) -> Res<Self> {{\n        \
             let {lent} = &class_arg::<Py{of}>(\"{lent}\", {lent})?.inner;\n        let now = NOW.read(now, now_ms)?;\n        \
             let options = options(seed, idempotency_key, (deadline, deadline_ms), dependency)?;\n        \
             Ok(Py{name} {{ inner: rp::{core}::new({lent}, now, options) }})\n    }}\n",
            doc(&python_doc(constructor), "    "),
            constructor.name
        ));
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

fn method_text(classes: &[Class], class: &Class, method: &Method) -> Result<String, String> {
    let name = method.name;
    // The core's call that steps its object takes it `&mut`.
    let receiver = if method.ret == Ret::DecisionOrError { "&mut self" } else { "&self" };
    let (mut signature, mut params, mut args) = (Vec::new(), vec![receiver.to_owned()], Vec::new());
    let mut defaulted = false;
    // Each argument's name, for a call too long for one line (read into `let`s first, in order).
    let names: Vec<&str> = method
        .args
        .iter()
        .map(|arg| match *arg {
            Arg::Flag(name) | Arg::Count(name) | Arg::Grant { name, .. } | Arg::Instance { name, .. } => name,
            _ => "now",
        })
        .collect();
    for arg in method.args {
        match *arg {
            Arg::Now => {
                signature.push("now = None".to_owned());
                params.push("now: Arg".to_owned());
                args.push("NOW.read(now, now_ms)?".to_owned());
                defaulted = true;
            }
            Arg::Flag(flag) => {
                signature.push(format!("{flag} = false"));
                params.push(format!("{flag}: bool"));
                args.push(flag.to_owned());
                defaulted = true;
            }
            Arg::Count(count) if !defaulted => {
                signature.push(count.to_owned());
                params.push(format!("{count}: &Bound<'_, PyAny>"));
                args.push(format!("u32_arg(\"{count}\", {count})?"));
            }
            // After a defaulted argument: defaulted too, and required by the binding (naming it).
            Arg::Count(count) => {
                signature.push(format!("{count} = None"));
                params.push(format!("{count}: Arg"));
                args.push(format!("u32_arg(\"{count}\", given(\"{count}\", {count})?)?"));
            }
            Arg::Instance { name: lent, class: of } if !defaulted => {
                signature.push(lent.to_owned());
                params.push(format!("{lent}: &Bound<'_, PyAny>"));
                args.push(format!("&class_arg::<Py{of}>(\"{lent}\", {lent})?.inner"));
            }
            Arg::Instance { name: lent, class: of } => {
                signature.push(format!("{lent} = None"));
                params.push(format!("{lent}: Arg"));
                args.push(format!("&class_arg::<Py{of}>(\"{lent}\", given(\"{lent}\", {lent})?)?.inner"));
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
            other => return Err(format!("{name}: no Python argument for {other:?}")),
        }
    }
    if method.args.contains(&Arg::Now) {
        signature.push("*".to_owned());
        signature.push("now_ms = None".to_owned());
        params.push("now_ms: Arg".to_owned());
    }
    let target = if matches!(class.shape, Shape::Engine { .. }) { "self.inner" } else { "self.control()?" };
    let mut call = format!("{target}.{}({})", method.call.unwrap_or(name), args.join(", "));
    let mut reads = String::new();
    // Only on an engine object: a control is found before its arguments are read (a grant is taken then).
    if call.len() > 80 && matches!(class.shape, Shape::Engine { .. }) {
        for (name, read) in names.iter().zip(&args) {
            reads.push_str(&format!("let {name} = {read};\n        "));
        }
        call = format!("{target}.{}({})", method.call.unwrap_or(name), names.join(", "));
    }
    let py = "py: Python<'_>".to_owned();
    let (lifetime, returned, body) = match method.ret {
        Ret::Unit => ("", "Res<()>".to_owned(), format!("{call};\n        Ok(())")),
        Ret::UnitOrError | Ret::BoolOrError | Ret::Count | Ret::Outstanding | Ret::Ms | Ret::OptionalMs | Ret::Bool => {
            (
                "",
                format!("Res<{}>", rust_type(method.ret)),
                format!("Ok({call}{})", if ends(method.ret) { "?" } else { "" }),
            )
        }
        Ret::Grant(grant) => ("", format!("Res<Option<Py{grant}>>"), format!("Ok({call}.map(Py{grant}::new))")),
        Ret::Snapshot(_) => {
            params.insert(1, "py: Python<'py>".to_owned());
            ("<'py>", "Res<Bound<'py, PyAny>>".to_owned(), format!("serialized(py, &{call})"))
        }
        Ret::DecisionOrError => {
            params.insert(1, py);
            ("", "Res<Py<PyAny>>".to_owned(), format!("Ok(decision_to_py(py, {call}?)?)"))
        }
        Ret::Text(_) => ("", "Res<String>".to_owned(), format!("Ok({call}.to_string())")),
        Ret::Attempts => {
            params.insert(1, py);
            ("", "Res<Py<PyAny>>".to_owned(), format!("Ok({call}.into_field(py)?)"))
        }
        Ret::Object(of) => ("", format!("Res<Py{of}>"), format!("Ok(Py{of} {{ inner: *{call} }})")),
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
    text.push_str(&format!(
        "    fn {name}{lifetime}({}) -> {returned} {{\n        {body}\n    }}\n",
        params.join(", ")
    ));
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
    matches!(ret, Ret::UnitOrError | Ret::BoolOrError | Ret::DecisionOrError)
}

/// A method's doc as Python shows it (the stub and `help()` alike): the
/// definition's words, then what its kinds mean in Python, which the shared
/// words cannot say (a dict, `None`, the exception a refusal raises).
fn python_doc(method: &Method) -> String {
    let mut text = method.doc.replace(", or none", ", or None");
    let mut add = |words: &str| {
        text.push(' ');
        text.push_str(words);
    };
    match method.args {
        [Arg::Config] => add("Takes one dict, or keyword arguments, shaped like the JSON configuration."),
        [Arg::Compiled] => add("Raises a `CompiledFormError` for a form it refuses."),
        _ => {}
    }
    if let Ret::Snapshot(_) = method.ret {
        add("A JSON-shaped dict.");
    }
    text
}

/// What the stub's markers name.
pub const STUB_SECTION: &str = "the shared controls (core/mirrors/src/methods.rs)";
/// What the stub's markers of the engine's classes name.
pub const ENGINE_STUB_SECTION: &str = "the engine's classes (core/mirrors/src/methods.rs)";

/// The `_native.pyi` section declaring `classes`, as the classes above define them at run time.
pub fn stub(classes: &[Class]) -> Result<String, String> {
    let mut text = String::new();
    for class in classes {
        let name = class.name;
        text.push_str(&format!("@final\nclass {name}:\n{}", docstring(class.doc, "    ")));
        let fact = matches!(class.shape, Shape::Grant { fact: Some(_), .. });
        if fact || !class.constructors.is_empty() || !class.methods.is_empty() {
            text.push('\n');
        }
        if let Shape::Grant { fact: Some(Fact { name: fact, doc, ty, .. }), .. } = class.shape {
            let ty = if ty == "bool" { "bool" } else { "int" };
            text.push_str(&format!("    @property\n    def {fact}(self) -> {ty}:\n{}", docstring(doc, "        ")));
        }
        for (index, constructor) in class.constructors.iter().enumerate() {
            let (decorator, head, params) = match (index, constructor.args) {
                (0, [Arg::Config]) => {
                    let kind = class.config.ok_or_else(|| format!("{name}: a configuration with no kind"))?;
                    (
                        "",
                        "__new__(cls, ",
                        format!("config: Optional[Mapping[str, _JsonValue]] = None, **fields: Unpack[{kind}Fields]"),
                    )
                }
                (0, [Arg::Count(count)]) => ("", "__new__(cls, ", format!("{count}: int")),
                (0, [Arg::Instance { name: lent, class: of }, Arg::Now, Arg::Options]) => {
                    text.push_str(&engine_new_stub(name, lent, of, &python_doc(constructor)));
                    continue;
                }
                (_, [Arg::Json]) => ("    @staticmethod\n", "from_json(", "json: str".to_owned()),
                (_, [Arg::Compiled]) => {
                    ("    @staticmethod\n", "from_compiled(", "form: Union[bytes, bytearray, memoryview]".to_owned())
                }
                (_, other) => return Err(format!("{name}.{}: no stub for {other:?}", constructor.name)),
            };
            text.push_str(&format!(
                "{decorator}    def {head}{params}) -> {name}:\n{}",
                docstring(&python_doc(constructor), "        ")
            ));
        }
        for method in class.methods {
            text.push_str(&method_stub(method)?);
        }
        text.push('\n');
    }
    Ok(text)
}

/// The two `__new__` overloads of an engine object: started at `now` (seconds) or `now_ms`.
fn engine_new_stub(name: &str, lent: &str, of: &str, doc: &str) -> String {
    let options = "        seed: Optional[int] = None,\n        idempotency_key: Optional[str] = None,\n        \
                   deadline: Optional[float] = None,\n        deadline_ms: Optional[int] = None,\n        \
                   dependency: Optional[Dependency] = None,\n";
    format!(
        "    @overload\n    def __new__(\n        cls,\n        {lent}: {of},\n        now: float,\n        *,\n{options}    ) -> {name}:\n{}\
         \x20   @overload\n    def __new__(\n        cls,\n        {lent}: {of},\n        *,\n        now_ms: int,\n{options}    ) -> {name}: ...\n",
        docstring(doc, "        ")
    )
}

fn method_stub(method: &Method) -> Result<String, String> {
    let name = method.name;
    let returned = match method.ret {
        Ret::Unit | Ret::UnitOrError => "None".to_owned(),
        Ret::BoolOrError => "bool".to_owned(),
        Ret::Count | Ret::Outstanding => "int".to_owned(),
        Ret::Grant(class) | Ret::Control(class) => format!("Optional[{class}]"),
        Ret::Snapshot(_) => "Dict[str, _JsonValue]".to_owned(),
        Ret::DecisionOrError => "Decision".to_owned(),
        Ret::Ms => "int".to_owned(),
        Ret::OptionalMs => "Optional[int]".to_owned(),
        Ret::Bool => "bool".to_owned(),
        Ret::Text(_) => "str".to_owned(),
        Ret::Attempts => "Tuple[int, ...]".to_owned(),
        Ret::Object(class) => class.to_owned(),
    };
    let doc = docstring(&python_doc(method), "        ");
    if method.getter {
        return Ok(format!("    @property\n    def {name}(self) -> {returned}:\n{doc}"));
    }
    let (mut positional, mut keywords, mut defaulted) =
        (vec!["self".to_owned()], vec!["self".to_owned(), "*".to_owned()], false);
    for arg in method.args {
        let param = match *arg {
            Arg::Now => {
                positional.push("now: float".to_owned());
                defaulted = true;
                continue;
            }
            Arg::Flag(flag) => format!("{flag}: bool = False"),
            Arg::Count(count) => format!("{count}: int"),
            Arg::Grant { name: grant, class, optional: true } => format!("{grant}: Optional[{class}] = None"),
            Arg::Grant { name: grant, class, optional: false } => format!("{grant}: {class}"),
            Arg::Instance { name: lent, class } => format!("{lent}: {class}"),
            other => return Err(format!("{name}: no stub for {other:?}")),
        };
        positional.push(param.clone());
        keywords.push(param);
    }
    if !defaulted {
        return Ok(format!("    def {name}({}) -> {returned}:\n{doc}", positional.join(", ")));
    }
    keywords.push("now_ms: int".to_owned());
    let deprecated = match method.call {
        Some(renamed) if method.deprecated => format!("    @deprecated(\"renamed {renamed}\")\n"),
        _ => String::new(),
    };
    Ok(format!(
        "    @overload\n{deprecated}    def {name}({}) -> {returned}:\n{doc}    @overload\n{deprecated}    def {name}({}) -> {returned}: ...\n",
        positional.join(", "),
        keywords.join(", ")
    ))
}
