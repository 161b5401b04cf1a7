//! Kotlin: `bindings-kotlin/kotlin/main/dev/retryplan/HttpHeaders.kt`, the
//! HTTP conventions' header names as the core states them (`retryplan::http`):
//! constants, so no helper asks the library for them at load. They share
//! `Http.kt`'s class (`HttpKt`), where they were written before.

use crate::output::{Output, HEADER};

pub const HTTP_HEADERS: &str = "bindings-kotlin/kotlin/main/dev/retryplan/HttpHeaders.kt";

pub fn output() -> Output {
    let guidance: Vec<String> =
        retryplan::outcomes::http::GUIDANCE_HEADERS.iter().map(|name| format!("\"{name}\"")).collect();
    let text = format!(
        "// {HEADER}\n@file:JvmName(\"HttpKt\")\n@file:JvmMultifileClass\n\npackage dev.retryplan\n\n\
         /** The header carrying the operation's idempotency key (`{key}`). */\n\
         val IDEMPOTENCY_KEY_HEADER: String = \"{key}\"\n\n\
         /** The header carrying each attempt's request id (`{id}`). */\n\
         val REQUEST_ID_HEADER: String = \"{id}\"\n\n\
         /**\n * Every response header the core reads for guidance, lower case, in the order\n \
         * it consults them. Hand the engine a lookup over these with [outcomeFromHttpResponse];\n \
         * never pick one yourself.\n */\n\
         val GUIDANCE_HEADERS: List<String> = listOf(\n    {},\n)\n",
        guidance.join(",\n    "),
        key = retryplan::outcomes::http::IDEMPOTENCY_KEY_HEADER,
        id = retryplan::outcomes::http::REQUEST_ID_HEADER,
    );
    Output { path: HTTP_HEADERS, text }
}
