//! Propagation's header names as the core states them
//! (`retryplan::propagation`), so no binding spells or asks for them:
//! - JS: `lib/generated/propagation.js`, the request headers the incoming
//!   reader takes (`REQUEST_HEADERS`, in its order) and the response header
//!   of a next hop's "do not retry" (`RETRYABLE_HEADER`);
//! - Kotlin: `PropagationHeaders.kt`, that response header
//!   (`DECLINED_RETRY_HEADER`), in `Http.kt`'s class (`HttpKt`).
//!
//! (Python's `ProtocolName` is the `Protocol` table's `Literal`, `tables`.)

use retryplan::propagation::{REQUEST_HEADERS, RETRYPLAN_RETRYABLE};

use crate::output::{Output, HEADER};

pub const JS: &str = "bindings-js/lib/generated/propagation.js";
pub const KOTLIN: &str = "bindings-kotlin/kotlin/main/dev/retryplan/PropagationHeaders.kt";

pub fn outputs() -> Vec<Output> {
    let names: Vec<String> = REQUEST_HEADERS.iter().map(|name| format!("  '{name}',\n")).collect();
    let js = format!(
        "// {HEADER}\n\n\
         /** The request headers `IncomingContext.read` hands the core, lower case, in the order it takes their values. */\n\
         export const REQUEST_HEADERS = Object.freeze([\n{}]);\n\n\
         /** The response header of a next hop's \"do not retry\" (`?0`), which the driver reads from every response. */\n\
         export const RETRYABLE_HEADER = '{RETRYPLAN_RETRYABLE}';\n",
        names.concat()
    );
    let kotlin = format!(
        "// {HEADER}\n@file:JvmName(\"HttpKt\")\n@file:JvmMultifileClass\n\npackage dev.retryplan\n\n\
         /** The header of a response's \"do not retry\" (`{RETRYPLAN_RETRYABLE}`), which the driver reads from every response: a helper's lookup must include it. */\n\
         val DECLINED_RETRY_HEADER: String = \"{RETRYPLAN_RETRYABLE}\"\n"
    );
    vec![Output { path: JS, text: js }, Output { path: KOTLIN, text: kotlin }]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_names_are_the_cores() {
        let outputs = super::outputs();
        assert!(
            outputs[0].text.contains("  'grpc-timeout',\n  'x-envoy-expected-rq-timeout-ms',\n"),
            "{}",
            outputs[0].text
        );
        assert!(outputs[0].text.contains("RETRYABLE_HEADER = 'retryplan-retryable';"));
        assert!(outputs[1].text.contains("val DECLINED_RETRY_HEADER: String = \"retryplan-retryable\""));
    }
}
