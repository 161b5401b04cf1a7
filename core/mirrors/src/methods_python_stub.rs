//! Python's stubs of the methods definition's classes: the `_native.pyi`
//! sections (the shared controls, the engine's `Operation`, the `Driver`)
//! declaring what `methods_python` writes for run time, with the same docs.

use crate::methods::{Arg, Class, Fact, Method, Ret, Shape};
use crate::methods_python::{python_doc, HOSTING};
use crate::python_records::{docstring, WIDTH};

/// What the stub's markers name.
pub const STUB_SECTION: &str = "the shared controls (core/mirrors/src/methods/table.rs)";
/// What the stub's markers of the engine's classes name.
pub const ENGINE_STUB_SECTION: &str = "the engine's classes (core/mirrors/src/methods/table.rs)";
/// What the stub's markers of the driver's class name.
pub const DRIVER_STUB_SECTION: &str = "the driver's class (core/mirrors/src/methods/table.rs)";

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
            let (decorator, def, params) = match (index, constructor.args) {
                (0, [Arg::Config]) => {
                    let kind = class.config.ok_or_else(|| format!("{name}: a configuration with no kind"))?;
                    let config = "config: Optional[Mapping[str, _JsonValue]] = None".to_owned();
                    ("", "__new__", vec!["cls".to_owned(), config, format!("**fields: Unpack[{kind}Fields]")])
                }
                (0, [Arg::Count(count)]) => ("", "__new__", vec!["cls".to_owned(), format!("{count}: int")]),
                (0, [Arg::Instance { name: lent, class: of }, Arg::Now, Arg::Options]) => {
                    text.push_str(&engine_new_stub(name, lent, of, &python_doc(constructor), false));
                    continue;
                }
                (0, [Arg::Instance { name: lent, class: of }, Arg::Now, Arg::Options, Arg::Hosting]) => {
                    text.push_str(&engine_new_stub(name, lent, of, &python_doc(constructor), true));
                    continue;
                }
                (_, [Arg::Json]) => ("    @staticmethod\n", "from_json", vec!["json: str".to_owned()]),
                (_, [Arg::Compiled]) => (
                    "    @staticmethod\n",
                    "from_compiled",
                    vec!["form: Union[bytes, bytearray, memoryview]".to_owned()],
                ),
                (_, other) => return Err(format!("{name}.{}: no stub for {other:?}", constructor.name)),
            };
            text.push_str(&format!(
                "{decorator}{}\n{}",
                def_line(def, &params, name, ":"),
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

/// The two `__new__` overloads of an engine object: started at `now` (seconds) or `now_ms`; with a
/// driver's own options (`hosting`) too.
fn engine_new_stub(name: &str, lent: &str, of: &str, doc: &str, hosting: bool) -> String {
    let mut options = "        seed: Optional[int] = None,\n        idempotency_key: Optional[str] = None,\n        \
                       deadline: Optional[float] = None,\n        deadline_ms: Optional[int] = None,\n        \
                       dependency: Optional[Dependency] = None,\n"
        .to_owned();
    let (mut positional, mut keyword) = (String::new(), String::new());
    if hosting {
        positional.push_str("        concurrency: Optional[ConcurrencyName] = None,\n");
        keyword.push_str("        concurrency: Optional[ConcurrencyName] = None,\n");
        for (name, ty, _) in HOSTING {
            let default = if ty == "bool" { "False" } else { "None" };
            options.push_str(&format!("        {name}: {ty} = {default},\n"));
        }
    }
    format!(
        "    @overload\n    def __new__(\n        cls,\n        {lent}: {of},\n        now: float,\n{positional}        *,\n{options}    ) -> {name}:\n{}\
         \x20   @overload\n    def __new__(\n        cls,\n        {lent}: {of},\n        *,\n{keyword}        now_ms: int,\n{options}    ) -> {name}: ...\n",
        docstring(doc, "        ")
    )
}

fn method_stub(method: &Method) -> Result<String, String> {
    let name = method.name;
    let returned = match method.ret {
        Ret::Unit | Ret::UnitOrError | Ret::StepsOrError | Ret::Steps => "None".to_owned(),
        Ret::ActionOrError => "Action".to_owned(),
        Ret::ReceiptOrError => "ReceiptName".to_owned(),
        Ret::HeadersOrError | Ret::Headers => "Dict[str, str]".to_owned(),
        Ret::Event => "Optional[Event]".to_owned(),
        Ret::Record => "List[int]".to_owned(),
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
        other => return Err(format!("{name}: no Python stub of {other:?}")),
    };
    let doc = docstring(&python_doc(method), "        ");
    if method.getter {
        return Ok(format!("    @property\n    def {name}(self) -> {returned}:\n{doc}"));
    }
    let (mut positional, mut keywords, mut clocks) = (vec!["self".to_owned()], vec!["self".to_owned()], Vec::new());
    for arg in method.args {
        let params = match *arg {
            Arg::Now | Arg::NowUnix => {
                let clock = if *arg == Arg::Now { "now" } else { "now_unix" };
                positional.push(format!("{clock}: float"));
                if clocks.is_empty() {
                    // What comes before the first clock reading stays positional in both overloads.
                    keywords.push("*".to_owned());
                }
                clocks.push(format!("{clock}_ms: int"));
                continue;
            }
            Arg::Value { name: value, class } => vec![format!("{value}: {class}")],
            Arg::HeldToken => {
                vec!["token: Optional[int] = None".to_owned(), "held: Optional[HeldName] = None".to_owned()]
            }
            Arg::Token => vec!["token: Optional[int] = None".to_owned()],
            Arg::Response => vec!["status: int".to_owned(), "headers: _Headers".to_owned()],
            Arg::Protocol => vec!["protocol: Optional[ProtocolName] = None".to_owned()],
            Arg::Words => vec!["words: Sequence[int]".to_owned()],
            Arg::Flag(flag) => vec![format!("{flag}: bool = False")],
            Arg::Count(count) => vec![format!("{count}: int")],
            Arg::Grant { name: grant, class, optional: true } => vec![format!("{grant}: Optional[{class}] = None")],
            Arg::Grant { name: grant, class, optional: false } => vec![format!("{grant}: {class}")],
            Arg::Instance { name: lent, class } => vec![format!("{lent}: {class}")],
            other => return Err(format!("{name}: no stub for {other:?}")),
        };
        positional.extend(params.iter().cloned());
        keywords.extend(params);
    }
    if clocks.is_empty() {
        return Ok(format!("{}\n{doc}", def_line(name, &positional, &returned, ":")));
    }
    keywords.extend(clocks);
    let deprecated = match method.call {
        Some(renamed) if method.deprecated => format!("    @deprecated(\"renamed {renamed}\")\n"),
        _ => String::new(),
    };
    Ok(format!(
        "    @overload\n{deprecated}{}\n{doc}    @overload\n{deprecated}{}\n",
        def_line(name, &positional, &returned, ":"),
        def_line(name, &keywords, &returned, ": ...")
    ))
}

/// A method's `def` line ending in `tail` (`:`, or `: ...` for a body-less overload), one parameter a line when
/// they do not fit on one of at most `WIDTH` characters (as ruff writes it).
fn def_line(name: &str, params: &[String], returned: &str, tail: &str) -> String {
    let line = format!("    def {name}({}) -> {returned}{tail}", params.join(", "));
    if line.len() <= WIDTH {
        return line;
    }
    let params: String = params.iter().map(|param| format!("        {param},\n")).collect();
    format!("    def {name}(\n{params}    ) -> {returned}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `def` line that fits only without its tail (`: ...`) is wrapped like a longer one: no line of
    /// `_native.pyi` passes the width.
    #[test]
    fn a_def_line_wraps_when_its_tail_passes_the_width() {
        let params = ["self".to_owned(), format!("attempt: {}", "x".repeat(WIDTH - 34))];
        assert_eq!(def_line("f", &params, "int", ":").len(), WIDTH);
        let wrapped = def_line("f", &params, "int", ": ...");
        assert!(wrapped.starts_with("    def f(\n        self,\n        attempt: "), "{wrapped}");
        assert!(wrapped.ends_with(",\n    ) -> int: ..."), "{wrapped}");
        assert!(wrapped.lines().all(|line| line.len() <= WIDTH), "{wrapped}");
    }
}
