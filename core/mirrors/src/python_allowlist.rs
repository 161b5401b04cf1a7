//! Python's `stubtest` allowlist, from the stub: every function and method the
//! stub declares as overloads. Their overloads admit only the valid call forms
//! (a clock reading as float seconds, or its exact integer-ms twin keyword),
//! where at run time both are optional keywords and the binding refuses any
//! other mix, so `stubtest` cannot match them to the run-time signature.

use crate::output::{Output, HEADER};

/// The allowlist's path from the workspace root (`bindings-python/test.sh` passes it to `stubtest`).
pub const ALLOWLIST: &str = "bindings-python/stubtest-allowlist.txt";

/// The allowlist for `stub`, the whole text of `_native.pyi` as the mirrors write it.
pub fn output(stub: &str) -> Output {
    let mut text = format!(
        "# {HEADER}\n\
         # mypy.stubtest allowlist for retryplan._native: every name _native.pyi declares as overloads (a clock\n\
         # reading as float seconds, or its exact integer-ms twin keyword; at run time both are optional keywords,\n\
         # and the binding refuses any other mix).\n"
    );
    for name in overloaded(stub) {
        text.push_str(&format!("retryplan._native.{name}\n"));
    }
    text.push_str("# pyo3 modules carry an __all__ the stub need not repeat.\nretryplan._native.__all__\n");
    Output { path: ALLOWLIST, text }
}

/// The names (`function`, `Class.method`) of the overloaded definitions in `stub`, in order, once each.
fn overloaded(stub: &str) -> Vec<String> {
    let (mut names, mut class, mut overload) = (Vec::<String>::new(), None, false);
    for line in stub.lines() {
        let trimmed = line.trim_start();
        let indented = trimmed.len() < line.len();
        if !indented && !trimmed.is_empty() && !trimmed.starts_with('@') && !trimmed.starts_with('#') {
            class = trimmed.strip_prefix("class ").map(|rest| rest.split(['(', ':']).next().unwrap_or(rest).trim());
        }
        if trimmed == "@overload" {
            overload = true;
        } else if let Some(rest) = trimmed.strip_prefix("def ") {
            let function = rest.split('(').next().unwrap_or(rest).trim();
            let name = match (indented, class) {
                (true, Some(class)) => format!("{class}.{function}"),
                _ => function.to_owned(),
            };
            if overload && !names.contains(&name) {
                names.push(name);
            }
            overload = false;
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overloaded_functions_and_methods_are_listed_once_each() {
        let stub = "@overload\ndef remaining_ms(deadline: float) -> int: ...\n@overload\ndef remaining_ms(*, deadline_ms: int) -> int: ...\n\
                    def plain() -> None: ...\n\
                    @final\nclass Driver:\n    @overload\n    @deprecated(\"x\")\n    def poll_action(self, now: float) -> int: ...\n\
                    \x20   def handle_cancel(self) -> None: ...\n\
                    class Plain:\n    def poll_action(self) -> None: ...\n";
        assert_eq!(overloaded(stub), ["remaining_ms", "Driver.poll_action"]);
    }

    #[test]
    fn the_file_says_it_is_generated_and_keeps_the_module_all() {
        let text = output("@overload\ndef admit(now: float) -> int: ...\n").text;
        assert!(text.starts_with(&format!("# {HEADER}\n")), "{text}");
        assert!(
            text.contains("\nretryplan._native.admit\n") && text.ends_with("retryplan._native.__all__\n"),
            "{text}"
        );
    }
}
