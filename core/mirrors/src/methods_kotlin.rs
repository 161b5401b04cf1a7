//! Kotlin (and Swift), through uniffi: `bindings-kotlin/src/controls_generated.rs`,
//! the classes of `methods::CONTROLS` as `uniffi::Object`s, included by
//! `controls.rs`, which keeps `Source` (a control of its own or a
//! dependency's). How each kind is spelt: a clock reading is `now_ms: i64`
//! (refused by `ms_in` when the core cannot hold it); a count (units, slots: a
//! quantity a configuration bounds, up to 4294967295) is an `i64` (`quantity_in`,
//! which refuses what a `u32` cannot hold, and `quantity_out`, which never clamps); a grant is an `Arc` of its object, taken from its
//! cell; a configuration is its generated record (`record_in`); a snapshot
//! its generated record; an error the core's, through `RetryplanError`.

use retryplan::config::value::camel_case;

use crate::kotlin_prose::kotlin_prose;
use crate::methods::{class_named, kept_fact, Arg, Class, Fact, Method, Ret, Shape, COMPILE_DEPENDENCY};
use crate::output::{Output, HEADER};
use crate::python_records::rust_doc;

pub const CONTROLS: &str = "bindings-kotlin/src/controls_generated.rs";

/// A doc comment as Kotlin shows it: uniffi copies it onto the Kotlin (and
/// Swift) declarations, where the core's names are Kotlin's (`kotlin_prose`)
/// and a method or an argument is `tryRetry`, not `try_retry`.
pub(crate) fn doc(text: &str, indent: &str) -> String {
    rust_doc(&kotlin_names(&kotlin_prose(text)), indent)
}

/// Each backticked snake_case name of `text` (`` `try_retry` ``, or a class's
/// `` `Policy.from_compiled` ``) in lowerCamelCase (`` `tryRetry` ``,
/// `` `Policy.fromCompiled` ``); any other backticked text (`` `retryplan compile` ``) as it is.
fn kotlin_names(text: &str) -> String {
    let snake = |part: &str| {
        part.contains('_') && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let mut out = String::with_capacity(text.len());
    for (index, part) in text.split('`').enumerate() {
        if index > 0 {
            out.push('`');
        }
        match part.split_once('.') {
            _ if index % 2 == 0 => out.push_str(part),
            _ if snake(part) => out.push_str(&camel_case(part)),
            Some((class, name)) if class.chars().all(|c| c.is_ascii_alphanumeric()) && snake(name) => {
                out.push_str(&format!("{class}.{}", camel_case(name)));
            }
            _ => out.push_str(part),
        }
    }
    out
}

pub fn output(classes: &[Class]) -> Result<Output, String> {
    let mut text = format!(
        "// {HEADER}\n// From the definition of the shared controls (core/mirrors/src/methods/table.rs), included by controls.rs.\n"
    );
    for class in classes {
        text.push_str(&class_text(classes, class)?);
    }
    text.push_str(&format!(
        "\n{}#[uniffi::export]\npub fn compile_dependency(config: crate::config::DependencyConfig) -> Result<Vec<u8>> {{\n    \
         Ok(rp::DependencyConfig::from_value(&record_in(&config)?)?.to_compiled()?)\n}}\n",
        doc(COMPILE_DEPENDENCY, "")
    ));
    Ok(Output { path: CONTROLS, text })
}

fn class_text(classes: &[Class], class: &Class) -> Result<String, String> {
    let name = class.name;
    let mut text = format!("\n{}#[derive(Debug, uniffi::Object)]\n", doc(class.doc, ""));
    let mut methods = String::new();
    match class.shape {
        Shape::Engine { .. } | Shape::Value { .. } => {
            return Err(format!("{name}: an engine object or a value is methods_kotlin_engine's, not a control"))
        }
        Shape::Bundle => {
            text.push_str(&format!("pub struct {name}(pub(crate) Arc<rp::{name}>);\n"));
            text.push_str(&format!(
                "\nimpl {name} {{\n    fn control(&self) -> Result<&rp::{name}> {{\n        Ok(&self.0)\n    }}\n}}\n"
            ));
        }
        Shape::Control { core, field } => {
            text.push_str(&format!("pub struct {name}(Source<rp::{core}>);\n"));
            text.push_str(&format!(
                "\nimpl {name} {{\n    fn control(&self) -> Result<&rp::{core}> {{\n        self.0.get(\"{field}\")\n    }}\n}}\n"
            ));
        }
        Shape::Grant { core, fact } => {
            let (field, init) = kept_fact(fact);
            text.push_str(&format!(
                "pub struct {name} {{\n{field}    cell: rp::config::grant::GrantCell<rp::{core}>,\n}}\n\n\
                 impl {name} {{\n    fn new(grant: rp::{core}) -> Arc<Self> {{\n        \
                 Arc::new({name} {{ {init}cell: rp::config::grant::GrantCell::new(grant) }})\n    }}\n}}\n"
            ));
            if let Some(Fact { name: fact, doc: fact_doc, ty, .. }) = fact {
                let (out, value) = if ty == "u32" {
                    ("i64", format!("quantity_out(self.{fact})"))
                } else {
                    (ty, format!("self.{fact}"))
                };
                methods.push_str(&format!(
                    "{}    pub fn {fact}(&self) -> {out} {{\n        {value}\n    }}\n",
                    doc(fact_doc, "    ")
                ));
            }
        }
    }
    for constructor in class.constructors {
        methods.push_str(&constructor_text(class, constructor)?);
    }
    for method in class.methods {
        methods.push_str(&method_text(classes, method)?);
    }
    if !methods.is_empty() {
        text.push_str(&format!("\n#[uniffi::export]\nimpl {name} {{\n{}}}\n", methods.trim_start_matches('\n')));
    }
    Ok(text)
}

fn constructor_text(class: &Class, constructor: &Method) -> Result<String, String> {
    let name = class.name;
    let core = match class.shape {
        Shape::Control { core, .. } => core,
        _ => name,
    };
    let (params, read, made) = match constructor.args {
        [Arg::Config] => {
            let kind = class.config.ok_or_else(|| format!("{name}: a configuration with no kind"))?;
            (
                format!("config: crate::config::{kind}Config"),
                format!("        let config = rp::{kind}Config::from_value(&record_in(&config)?)?;\n"),
                format!("rp::{core}::new(&config)?"),
            )
        }
        [Arg::Json] => ("json: String".to_owned(), String::new(), format!("rp::{core}::from_json(&json)?")),
        [Arg::Compiled] => ("form: Vec<u8>".to_owned(), String::new(), format!("rp::{core}::from_compiled(&form)?")),
        [Arg::Count(count)] => {
            (format!("{count}: i64"), String::new(), format!("rp::{core}::new(quantity_in(\"{count}\", {count})?)"))
        }
        other => return Err(format!("{name}.{}: no Kotlin constructor for {other:?}", constructor.name)),
    };
    let kept = match class.shape {
        Shape::Bundle => made,
        _ => format!("Source::Own({made})"),
    };
    Ok(format!(
        "\n{}    #[uniffi::constructor]\n    pub fn {}({params}) -> Result<Arc<{name}>> {{\n{read}        \
         Ok(Arc::new({name}({kept})))\n    }}\n",
        doc(constructor.doc, "    "),
        constructor.name
    ))
}

fn method_text(classes: &[Class], method: &Method) -> Result<String, String> {
    let name = method.name;
    let (mut params, mut reads, mut args) = (vec!["&self".to_owned()], String::new(), Vec::new());
    for arg in method.args {
        match *arg {
            Arg::Now => {
                params.push("now_ms: i64".to_owned());
                reads.push_str("        let now_ms = ms_in(\"now_ms\", now_ms)?;\n");
                args.push("now_ms".to_owned());
            }
            Arg::Flag(flag) => {
                params.push(format!("{flag}: bool"));
                args.push(flag.to_owned());
            }
            Arg::Count(count) => {
                params.push(format!("{count}: i64"));
                reads.push_str(&format!("        let {count} = quantity_in(\"{count}\", {count})?;\n"));
                args.push(count.to_owned());
            }
            Arg::Grant { name: grant, class, optional: true } => {
                params.push(format!("{grant}: Option<Arc<{class}>>"));
                args.push(format!("{grant}.map(|grant| grant.cell.take()).transpose()?"));
            }
            Arg::Grant { name: grant, class, optional: false } => {
                params.push(format!("{grant}: Arc<{class}>"));
                args.push(format!("{grant}.cell.take()?"));
            }
            other => return Err(format!("{name}: no Kotlin argument for {other:?}")),
        }
    }
    let call = format!("{}({})", method.call.unwrap_or(name), args.join(", "));
    let (returned, body) = match method.ret {
        Ret::Unit => ("Result<()>".to_owned(), format!("control.{call};\n        Ok(())")),
        Ret::UnitOrError | Ret::StepsOrError => ("Result<()>".to_owned(), format!("Ok(control.{call}?)")),
        Ret::BoolOrError => ("Result<bool>".to_owned(), format!("Ok(control.{call}?)")),
        Ret::Count => ("Result<i64>".to_owned(), format!("Ok(quantity_out(control.{call}))")),
        Ret::Outstanding => {
            ("Result<i64>".to_owned(), format!("Ok(i64::try_from(control.{call}).unwrap_or(i64::MAX))"))
        }
        Ret::Grant(grant) => (format!("Result<Option<Arc<{grant}>>>"), format!("Ok(control.{call}.map({grant}::new))")),
        Ret::Snapshot(record) => (format!("Result<crate::records::{record}>"), format!("Ok(control.{call}.into())")),
        Ret::Control(control) => {
            let Shape::Control { core, field } = class_named(classes, control)?.shape else {
                return Err(format!("{name}: {control} is not a control"));
            };
            let text = format!(
                "\n{}    pub fn {name}(&self) -> Option<Arc<{control}>> {{\n        \
                 let of: fn(&rp::Dependency) -> Option<&rp::{core}> = rp::Dependency::{field};\n        \
                 of(&self.0).map(|_| Arc::new({control}(Source::Dependency(Arc::clone(&self.0), of))))\n    }}\n",
                doc(method.doc, "    ")
            );
            return Ok(text);
        }
        other => return Err(format!("{name}: no Kotlin result for {other:?}")),
    };
    Ok(format!(
        "\n{}    pub fn {name}({}) -> {returned} {{\n{reads}        let control = self.control()?;\n        {body}\n    }}\n",
        doc(method.doc, "    "),
        params.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::kotlin_names;

    #[test]
    fn docs_name_methods_as_kotlin_does() {
        assert_eq!(
            kotlin_names("Only `try_retry` makes one (`retryplan compile --dependency`, `now`, `x_2`)."),
            "Only `tryRetry` makes one (`retryplan compile --dependency`, `now`, `x2`)."
        );
        assert_eq!(kotlin_names("no code"), "no code");
    }
}
