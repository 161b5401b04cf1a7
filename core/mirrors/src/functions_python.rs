//! Python (pyo3): `bindings-python/src/functions_generated.rs`, the entries
//! of the shared table (`functions`) that Python exports, as
//! `#[pyfunction]`s with `register`, and their section of `_native.pyi`.
//!
//! How each of the core's types is spelt, for every function alike:
//! - `&str` is a `str` (`str_arg`), `Option<&str>` one that defaults to None;
//! - a clock reading (`now_ms`, `now_unix_ms`, `deadline_ms`) is a pair:
//!   float seconds under the name without `_ms` (positional, as `time.time()`
//!   gives it) or int ms under the core's name (keyword), one of them
//!   required (`args::Clock`);
//! - any other `u64` in ms (`reserve_ms`) is an int ms (`ms_arg`: the core's
//!   one range), in nanoseconds (`_ns`) any int a `u64` holds (`u64_arg`);
//!   after a clock reading it is keyword-only, as Python requires;
//! - one of the core's named enums is its name (`by_name`); a defaulted one
//!   defaults to None, the core's default;
//! - a `HeaderError` raises `InvalidHeaderError`, through `Fault`;
//! - `Pushback` is the `Pushback` class, `Admission` the `retryplan._values`
//!   record, `Option<ErrorCode>` the code's text, a `DependencyConfig` a new
//!   `Dependency` holding it.

use std::path::Path;

use crate::functions::{read, Host, Param, Read};
use crate::output::{Output, HEADER};
use crate::python_prose::python_prose;
use crate::python_records::{docstring, rust_doc, wrap};
use crate::tables::Table;

pub const FUNCTIONS: &str = "bindings-python/src/functions_generated.rs";

/// What the stub's markers name.
pub const STUB_SECTION: &str = "the core's free functions (core/mirrors/src/functions.rs)";

/// The clock readings: the core's name (ms), the seconds' name and the `args::Clock` reading them.
const CLOCKS: [(&str, &str, &str); 3] =
    [("now_ms", "now", "NOW"), ("now_unix_ms", "now_unix", "NOW_UNIX"), ("deadline_ms", "deadline", "DEADLINE")];

/// The file of the functions Python exports from the core under `root`
/// among `outputs`, and their section spliced into the stub there (which
/// `python_records` writes).
pub fn extend(root: &Path, tables: &[Table], outputs: &mut Vec<Output>) -> Result<(), String> {
    let (file, section) = written(&read(root, Host::Python)?, tables)?;
    let stub = outputs
        .iter_mut()
        .find(|output| output.path == crate::python_records::NATIVE_STUB)
        .ok_or_else(|| format!("{}: not among the outputs", crate::python_records::NATIVE_STUB))?;
    stub.text = crate::python_records::splice(&stub.text, STUB_SECTION, &section)?;
    outputs.push(file);
    Ok(())
}

fn written(functions: &[Read], tables: &[Table]) -> Result<(Output, String), String> {
    let mut text = format!(
        "// {HEADER}\n//! The core's free functions Python calls as they are, from their signatures (the table:\n\
         //! core/mirrors/src/functions.rs).\n\n\
         use pyo3::prelude::*;\n\n\
         use crate::args::{{by_name, ms_arg, str_arg, u64_arg, Arg, DEADLINE, NOW, NOW_UNIX}};\n\
         use crate::controls::PyDependency;\n\
         use crate::data::typed;\n\
         use crate::fault::Res;\n\
         use crate::outcome::PyPushback;\n\n\
         /// Adds every function below to the module.\n\
         pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {{\n"
    );
    for function in functions {
        text.push_str(&format!("    m.add_function(wrap_pyfunction!({}, m)?)?;\n", function.function.ident));
    }
    text.push_str("    Ok(())\n}\n");
    let mut stub = String::new();
    for function in functions {
        let shape = Shape::of(function, tables)?;
        text.push_str(&rust(function, &shape));
        stub.push_str(&shape.stub(function));
    }
    Ok((Output { path: FUNCTIONS, text }, stub))
}

/// One parameter as Python spells it.
enum Spelling {
    /// The core's type as is: its Rust parameter, the reading of it, and its stub type.
    Plain { read: String, stub: String },
    /// A clock reading: its seconds' name and its `args::Clock`.
    Clock { seconds: &'static str, clock: &'static str },
}

/// A function's parameters as Python spells them, its result and where each parameter goes.
struct Shape<'a> {
    params: Vec<(&'a Param, Spelling, Place)>,
    result: (String, String, String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Positional,
    Keyword,
}

impl<'a> Shape<'a> {
    fn of(function: &'a Read, tables: &[Table]) -> Result<Shape<'a>, String> {
        let path = function.function.path;
        let mut params = Vec::new();
        let (mut place, mut clocked) = (Place::Positional, false);
        for param in &function.params {
            let spelling = spelling(param, tables).ok_or_else(|| {
                format!("{path}({}): no Python spelling for `{}` (functions_python::spelling)", param.core, param.ty)
            })?;
            // Positional up to the first parameter after a clock reading (which defaults), keyword-only from there.
            let clock = matches!(spelling, Spelling::Clock { .. });
            if !clock && clocked {
                place = Place::Keyword;
            }
            clocked |= clock;
            params.push((param, spelling, place));
        }
        let result = result(&function.value)
            .ok_or_else(|| format!("{path}: no Python result for `{}` (functions_python::result)", function.value))?;
        Ok(Shape { params, result })
    }

    /// Whether a parameter may be left out (in the pyo3 signature).
    fn optional(param: &Param, spelling: &Spelling) -> bool {
        param.defaulted || param.ty.starts_with("Option<") || matches!(spelling, Spelling::Clock { .. })
    }

    /// The pyo3 signature's entries, in Python's order: positional, then the
    /// keyword-only ones required, the clocks' ms, the others.
    fn signature(&self) -> Vec<(String, bool)> {
        let mut entries = Vec::new();
        for (param, spelling, place) in &self.params {
            if *place == Place::Positional {
                let name = match spelling {
                    Spelling::Clock { seconds, .. } => (*seconds).to_owned(),
                    Spelling::Plain { .. } => param.name.clone(),
                };
                entries.push((name, Self::optional(param, spelling)));
            }
        }
        let keywords = self.params.iter().filter(|(_, _, place)| *place == Place::Keyword);
        let required = keywords.clone().filter(|(param, spelling, _)| !Self::optional(param, spelling));
        entries.extend(required.map(|(param, _, _)| (param.name.clone(), false)));
        let clocks = self.params.iter().filter(|(_, spelling, _)| matches!(spelling, Spelling::Clock { .. }));
        entries.extend(clocks.map(|(param, _, _)| (param.name.clone(), true)));
        let optional = keywords.filter(|(param, spelling, _)| {
            Self::optional(param, spelling) && !matches!(spelling, Spelling::Clock { .. })
        });
        entries.extend(optional.map(|(param, _, _)| (param.name.clone(), true)));
        entries
    }

    /// How many of `signature()`'s entries are positional.
    fn positional(&self) -> usize {
        self.params.iter().filter(|(_, _, place)| *place == Place::Positional).count()
    }

    /// The stub: with a clock reading among the parameters, one overload
    /// with the seconds (positional) and one with the ms (keyword-only).
    fn stub(&self, function: &Read) -> String {
        let name = function.function.ident;
        let returned = &self.result.2;
        let doc = docstring_paragraphs(&python_doc(function, self), "    ");
        let find = |entry: &str| {
            self.params.iter().find(|(param, _, _)| param.name == entry || clock_seconds(param) == Some(entry))
        };
        let typed = |entry: &str, seconds: bool| -> Option<String> {
            let (param, spelling, _) = find(entry)?;
            Some(match spelling {
                Spelling::Clock { seconds: name, .. } if seconds => format!("{name}: float"),
                Spelling::Clock { .. } => format!("{}: int", param.name),
                Spelling::Plain { stub, .. } if param.defaulted => {
                    format!("{}: {stub} = \"{}\"", param.name, default_name(&param.ty).unwrap_or_default())
                }
                Spelling::Plain { stub, .. } if param.ty.starts_with("Option<") => {
                    format!("{}: {stub} = None", param.name)
                }
                Spelling::Plain { stub, .. } => format!("{}: {stub}", param.name),
            })
        };
        let signature = self.signature();
        let (positional, keywords) = signature.split_at(self.positional());
        let line = |seconds: bool| {
            let is_clock = |entry: &str| matches!(find(entry), Some((_, Spelling::Clock { .. }, _)));
            let mut entries: Vec<String> = positional
                .iter()
                .filter(|(entry, _)| seconds || !is_clock(entry))
                .filter_map(|(entry, _)| typed(entry, seconds))
                .collect();
            let keywords: Vec<String> = keywords
                .iter()
                .filter(|(entry, _)| !seconds || !is_clock(entry))
                .filter_map(|(entry, _)| typed(entry, seconds))
                .collect();
            if !keywords.is_empty() {
                entries.push("*".to_owned());
                entries.extend(keywords);
            }
            entries.join(", ")
        };
        if !self.params.iter().any(|(_, spelling, _)| matches!(spelling, Spelling::Clock { .. })) {
            return format!("def {name}({}) -> {returned}:\n{doc}\n", line(true));
        }
        format!(
            "@overload\ndef {name}({}) -> {returned}:\n{doc}\n@overload\ndef {name}({}) -> {returned}: ...\n",
            line(true),
            line(false)
        )
    }
}

/// The seconds' name of a clock reading.
fn clock_seconds(param: &Param) -> Option<&'static str> {
    CLOCKS.iter().find(|(ms, _, _)| param.ty == "u64" && *ms == param.name).map(|(_, seconds, _)| *seconds)
}

/// The Python spelling of `param`, or None for a type Python has none for.
fn spelling(param: &Param, tables: &[Table]) -> Option<Spelling> {
    let name = &param.name;
    Some(match param.ty.as_str() {
        "&str" => Spelling::Plain { read: format!("&str_arg(\"{name}\", {name})?"), stub: "str".into() },
        "Option<&str>" => Spelling::Plain {
            read: format!("{name}.map(|value| str_arg(\"{name}\", value)).transpose()?.as_deref()"),
            stub: "Optional[str]".into(),
        },
        "u64" => match CLOCKS.iter().find(|(ms, _, _)| ms == name) {
            Some((_, seconds, clock)) => Spelling::Clock { seconds, clock },
            None if name.ends_with("_ms") => {
                Spelling::Plain { read: format!("ms_arg(\"{name}\", {name})?"), stub: "int".into() }
            }
            None if name.ends_with("_ns") => {
                Spelling::Plain { read: format!("u64_arg(\"{name}\", {name})?"), stub: "int".into() }
            }
            None => return None,
        },
        ty => {
            let table = tables.iter().find(|table| table.ident == ty)?;
            let stub = format!("{}Name", table.ident);
            let read = if param.defaulted {
                format!("{name}.map(|value| by_name(\"{name}\", value)).transpose()?.unwrap_or_default()")
            } else {
                format!("by_name(\"{name}\", {name})?")
            };
            if param.defaulted && default_name(ty).is_none() {
                return None;
            }
            Spelling::Plain { read, stub }
        }
    })
}

/// The name of the core's default of the named enum `ty` (an enum a caller
/// may leave out needs its default here).
fn default_name(ty: &str) -> Option<&'static str> {
    use retryplan::config::value::Named;
    match ty {
        "RetryAfterReading" => Some(retryplan::headers::retry_after::RetryAfterReading::default().name()),
        _ => None,
    }
}

/// The core's result `ty`: the Rust type returned (in a `Res`), the function's body from `call`, and the stub's type.
fn result(ty: &str) -> Option<(String, String, String)> {
    let (rust, out, stub) = match ty {
        "u64" | "i64" | "String" => (ty, "Ok({call})", if ty == "String" { "str" } else { "int" }),
        "Option<u64>" => ("Option<u64>", "Ok({call})", "Optional[int]"),
        "Option<ErrorCode>" => ("Option<String>", "Ok({call}.map(|code| code.as_str().to_owned()))", "Optional[str]"),
        "Pushback" => ("PyPushback", "Ok(PyPushback { inner: {call} })", "Pushback"),
        "Admission" => ("Bound<'py, PyAny>", "typed(py, \"Admission\", &{call}, None)", "Admission"),
        "DependencyConfig" => {
            ("PyDependency", "Ok(PyDependency { inner: retryplan::Dependency::new(&{call})? })", "Dependency")
        }
        _ => return None,
    };
    Some((rust.to_owned(), out.to_owned(), stub.to_owned()))
}

/// The doc's paragraphs: the core's summary and prose (its Rust names as Python spells them), and how the
/// clock readings are spelt.
fn python_doc(function: &Read, shape: &Shape) -> Vec<String> {
    let mut doc = vec![python_prose(&function.doc)];
    doc.extend(function.prose.iter().map(|paragraph| python_prose(paragraph)));
    let clocks: Vec<String> = shape
        .params
        .iter()
        .filter_map(|(param, spelling, _)| match spelling {
            Spelling::Clock { seconds, .. } => {
                Some(format!("`{seconds}` is float seconds (`time.time()`), or `{}` int milliseconds.", param.name))
            }
            Spelling::Plain { .. } => None,
        })
        .collect();
    if !clocks.is_empty() {
        doc.push(clocks.join(" "));
    }
    doc
}

/// A docstring of `paragraphs` at `indent`: one paragraph as `docstring` writes it, several
/// separated by blank lines with the closing quotes on their own line.
fn docstring_paragraphs(paragraphs: &[String], indent: &str) -> String {
    let [summary, rest @ ..] = paragraphs else { return String::new() };
    if rest.is_empty() {
        return docstring(summary, indent);
    }
    let quoted = |text: &str| text.replace('\\', "\\\\").replace('`', "``");
    let mut lines = wrap(&quoted(summary), &format!("{indent}\"\"\""), indent);
    for paragraph in rest {
        lines.push(String::new());
        lines.extend(wrap(&quoted(paragraph), indent, indent));
    }
    lines.push(format!("{indent}\"\"\""));
    lines.join("\n") + "\n"
}

/// `///` lines of `paragraphs`, separated by `///` lines.
fn rust_doc_paragraphs(paragraphs: &[String]) -> String {
    paragraphs.iter().map(|paragraph| rust_doc(paragraph, "")).collect::<Vec<_>>().join("///\n")
}

fn rust(function: &Read, shape: &Shape) -> String {
    let name = function.function.ident;
    let (returned, out, _) = &shape.result;
    let py = returned.contains("'py");
    let signature = shape.signature();
    let mut entries: Vec<String> = signature
        .iter()
        .map(|(entry, optional)| if *optional { format!("{entry} = None") } else { entry.clone() })
        .collect();
    if signature.len() > shape.positional() {
        entries.insert(shape.positional(), "*".to_owned());
    }
    let plain = signature.iter().all(|(_, optional)| !optional) && signature.len() == shape.positional();
    let mut params: Vec<String> = if py { vec!["py: Python<'py>".to_owned()] } else { Vec::new() };
    for (entry, optional) in &signature {
        params.push(if *optional { format!("{entry}: Arg") } else { format!("{entry}: &Bound<'_, PyAny>") });
    }
    let args: Vec<String> = shape
        .params
        .iter()
        .map(|(param, spelling, _)| match spelling {
            Spelling::Plain { read, .. } => read.clone(),
            Spelling::Clock { seconds, clock } => format!("{clock}.read({seconds}, {})?", param.name),
        })
        .collect();
    let mut call = format!("retryplan::{}({})", function.function.path, args.join(", "));
    if function.header_error {
        call.push('?');
    }
    let lifetime = if py { "<'py>" } else { "" };
    let mut text = format!("\n{}#[pyfunction]\n", rust_doc_paragraphs(&python_doc(function, shape)));
    if !plain {
        text.push_str(&format!("#[pyo3(signature = ({}))]\n", entries.join(", ")));
    }
    text.push_str(&format!(
        "pub(crate) fn {name}{lifetime}({}) -> Res<{returned}> {{\n    {}\n}}\n",
        params.join(", "),
        out.replace("{call}", &call)
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::{Function, FUNCTIONS_TABLE};

    fn outputs() -> (String, String) {
        let root = crate::workspace_root();
        let tables = crate::tables::registry(&root).unwrap();
        let (file, stub) = written(&read(&root, Host::Python).unwrap(), &tables).unwrap();
        (file.text, stub)
    }

    /// A clock reading is float seconds (positional) or int ms (keyword); what follows it is keyword-only.
    #[test]
    fn a_clock_reading_is_a_pair_and_what_follows_is_keyword_only() {
        let (text, stub) = outputs();
        assert!(
            text.contains(
                "#[pyo3(signature = (deadline = None, now = None, *, reserve_ms, deadline_ms = None, now_ms = None))]\n\
                 pub(crate) fn remaining_ms(deadline: Arg, now: Arg, reserve_ms: &Bound<'_, PyAny>, deadline_ms: Arg, \
                 now_ms: Arg) -> Res<u64> {\n    Ok(retryplan::ground::deadline::remaining_ms(DEADLINE.read(deadline, \
                 deadline_ms)?, NOW.read(now, now_ms)?, ms_arg(\"reserve_ms\", reserve_ms)?))\n}\n"
            ),
            "{text}"
        );
        assert!(text.contains("    m.add_function(wrap_pyfunction!(remaining_ms, m)?)?;\n"), "{text}");
        assert!(stub.contains("@overload\ndef remaining_ms(deadline: float, now: float, *, reserve_ms: int) -> int:\n"));
        assert!(stub
            .contains("@overload\ndef remaining_ms(*, reserve_ms: int, deadline_ms: int, now_ms: int) -> int: ...\n"));
    }

    /// A defaulted enum defaults to None (the core's default), named in the stub; a header error is raised.
    #[test]
    fn a_defaulted_reading_is_optional_and_a_header_error_raises() {
        let (text, stub) = outputs();
        assert!(
            text.contains(
                "#[pyo3(signature = (value, now_unix = None, *, now_unix_ms = None, reading = None))]\n\
                 pub(crate) fn parse_retry_after(value: &Bound<'_, PyAny>, now_unix: Arg, now_unix_ms: Arg, reading: Arg) \
                 -> Res<u64> {\n    Ok(retryplan::headers::retry_after::parse_retry_after_with(&str_arg(\"value\", value)?, \
                 NOW_UNIX.read(now_unix, now_unix_ms)?, reading.map(|value| by_name(\"reading\", value)).transpose()?\
                 .unwrap_or_default())?)\n}\n"
            ),
            "{text}"
        );
        assert!(stub.contains(
            "def parse_retry_after(value: str, *, now_unix_ms: int, reading: RetryAfterReadingName = \"strict\") -> int: ...\n"
        ));
        assert!(
            stub.contains("def parse_rate_limit(value: str, policy_value: Optional[str] = None) -> Optional[int]:\n")
        );
    }

    /// A function returning a dependency's configuration returns a new `Dependency` holding it.
    #[test]
    fn a_dependency_config_is_a_new_dependency() {
        let (text, stub) = outputs();
        assert!(
            text.contains(
                "pub(crate) fn aws_standard_dependency() -> Res<PyDependency> {\n    Ok(PyDependency { inner: \
                 retryplan::Dependency::new(&retryplan::dialects::aws::standard_dependency())? })\n}\n"
            ),
            "{text}"
        );
        assert!(stub.contains("def aws_standard_2026_dependency() -> Dependency:\n"), "{stub}");
    }

    /// A parameter of a type Python has no spelling for stops the generator, naming the function.
    #[test]
    fn a_type_without_a_spelling_is_named() {
        let (functions, tables) = crate::functions::tests::with_an_instant(Host::Python);
        let error = written(&functions, &tables).err().unwrap();
        assert!(error.contains("parse_retry_after_with(at): no Python spelling for `Instant`"), "{error}");
        assert!(FUNCTIONS_TABLE.iter().any(|function: &Function| function.hosts.contains(&Host::Python)));
    }
}
