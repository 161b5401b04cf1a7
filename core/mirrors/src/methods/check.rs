//! The definition read against the core: every method and function it
//! names exists in the core's source with the arguments it says.

use std::path::Path;

use super::{class_named, Arg, Class, Ret, Shape, Through};
use crate::docs::type_name;

/// The core type a class crosses as.
fn core_of(class: &Class) -> &'static str {
    match class.shape {
        Shape::Bundle => class.name,
        Shape::Control { core, .. }
        | Shape::Grant { core, .. }
        | Shape::Engine { core, .. }
        | Shape::Value { core } => core,
    }
}

/// The methods of the core type `core` in its files `sources`: each one's
/// name, number of arguments and result type.
fn core_methods(root: &Path, core: &str, sources: &[&str]) -> Result<Vec<(String, usize, String)>, String> {
    let mut methods = Vec::new();
    for source in sources {
        let text = std::fs::read_to_string(root.join(source)).map_err(|e| format!("{source}: {e}"))?;
        let file = syn::parse_file(&text).map_err(|e| format!("{source}: {e}"))?;
        let functions = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Impl(block) if block.trait_.is_none() && type_name(&block.self_ty) == core => Some(block),
                _ => None,
            })
            .flat_map(|block| block.items.iter())
            .filter_map(|item| if let syn::ImplItem::Fn(function) = item { Some(function) } else { None });
        for function in functions {
            let inputs = function.sig.inputs.iter().filter(|input| matches!(input, syn::FnArg::Typed(_))).count();
            let returned = match &function.sig.output {
                syn::ReturnType::Default => "()".to_owned(),
                syn::ReturnType::Type(_, ty) => type_name(ty),
            };
            methods.push((function.sig.ident.to_string(), inputs, returned));
        }
    }
    Ok(methods)
}

/// The core's free function at `path` (its last segment is its name) in `source`: its number of arguments and
/// result type.
fn core_function(root: &Path, path: &str, source: &str) -> Result<(usize, String), String> {
    let name = path.rsplit("::").next().unwrap_or(path);
    let text = std::fs::read_to_string(root.join(source)).map_err(|e| format!("{source}: {e}"))?;
    let file = syn::parse_file(&text).map_err(|e| format!("{source}: {e}"))?;
    let function = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Fn(function) if function.sig.ident == name => Some(function),
            _ => None,
        })
        .ok_or_else(|| format!("no `fn {name}` in {source}"))?;
    let returned = match &function.sig.output {
        syn::ReturnType::Default => "()".to_owned(),
        syn::ReturnType::Type(_, ty) => type_name(ty),
    };
    Ok((function.sig.inputs.len(), returned))
}

/// How many of the core's arguments an argument is.
fn core_arguments(arg: &Arg) -> usize {
    match arg {
        Arg::HeldToken | Arg::Response => 2,
        _ => 1,
    }
}

/// Each method's kinds read against the core's own signature (the method of
/// the class's core type in its `sources`, or of the object it lends): a
/// definition that drifts from the core stops the generator, naming the
/// method, before a binding fails to build.
pub fn check(root: &Path, classes: &[Class]) -> Result<(), String> {
    for class in classes {
        let own = (core_of(class), class.sources);
        let own_methods = core_methods(root, own.0, own.1)?;
        let signature = |(core, sources): (&str, &[&str]), name: &str| -> Result<(usize, String), String> {
            let lent;
            let methods = if core == own.0 {
                &own_methods
            } else {
                lent = core_methods(root, core, sources)?;
                &lent
            };
            let (_, inputs, returned) = methods
                .iter()
                .find(|(function, ..)| function == name)
                .ok_or_else(|| format!("{}.{name}: no `{core}::{name}` in {}", class.name, sources.join(", ")))?;
            Ok((*inputs, returned.clone()))
        };
        let core = own.0;
        if let Shape::Grant { fact: Some(fact), .. } = class.shape {
            let (_, returned) = signature(own, fact.call)?;
            if returned != fact.ty {
                return Err(format!(
                    "{}.{}: the core's `{core}::{}` returns `{returned}`",
                    class.name, fact.name, fact.call
                ));
            }
        }
        for method in class.methods {
            let call = method.call.unwrap_or(method.name);
            let lent_source;
            let (core, sources): (&str, &[&str]) = match method.through {
                Some(Through::Lent { core, source, .. }) => {
                    lent_source = [source];
                    (core, &lent_source)
                }
                _ => own,
            };
            // The core's free function is given the object first: one argument the definition does not list.
            let (called, given_first, (inputs, returned)) = match method.through {
                Some(Through::Function { path, source }) => {
                    (format!("`{path}` (given the {} first)", class.name), 1, core_function(root, path, source)?)
                }
                _ => (format!("`{core}::{call}`"), 0, signature((core, sources), call)?),
            };
            let crosses =
                |name: &str| -> Result<String, String> { Ok(core_of(class_named(classes, name)?).to_owned()) };
            let fits = match method.ret {
                Ret::Unit | Ret::Steps => returned == "()",
                // `()` is no path: `type_name` spells it `?`.
                Ret::UnitOrError | Ret::StepsOrError | Ret::Record => returned.starts_with("Result<?"),
                Ret::BoolOrError => returned.starts_with("Result<bool"),
                Ret::Count => returned == "u32",
                Ret::Outstanding => returned == "usize",
                Ret::Grant(grant) => returned == format!("Option<{}>", crosses(grant)?),
                Ret::Snapshot(_) => returned.ends_with("Snapshot"),
                Ret::Control(control) => returned == format!("Option<&{}>", crosses(control)?),
                Ret::DecisionOrError => returned == "Result<Decision, Error>",
                Ret::Ms => returned == "u64",
                Ret::OptionalMs => returned == "Option<u64>",
                Ret::Bool => returned == "bool",
                Ret::Text(ty) => returned == ty || returned == format!("&{ty}"),
                Ret::Attempts => returned == "AttemptSet",
                Ret::Object(ty) => returned == format!("&{ty}"),
                Ret::ActionOrError => returned == "Result<Action, Error>",
                Ret::ReceiptOrError => returned == "Result<Receipt, Error>",
                Ret::HeadersOrError => returned == "Result<HeaderList, Error>",
                Ret::Headers => returned == "HeaderList",
                Ret::Event => returned == "Option<Event>",
                Ret::Compiled => returned == "Vec<u8>",
                Ret::SpansOrError => returned == "Result<Vec<u64>, Error>",
                Ret::ValueOrError(ty) => returned == format!("Result<{ty}, Error>"),
            };
            // A record out is filled in place: one more of the core's arguments.
            let args = method.args.iter().map(core_arguments).sum::<usize>()
                + usize::from(method.ret == Ret::Record)
                + given_first;
            if inputs != args || !fits {
                return Err(format!(
                    "{}.{}: the core's {called} takes {inputs} arguments and returns `{returned}`, \
                     not the {args} arguments and {:?} the definition says",
                    class.name, method.name, method.ret
                ));
            }
        }
    }
    Ok(())
}
