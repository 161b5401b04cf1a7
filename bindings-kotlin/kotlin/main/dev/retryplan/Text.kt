package dev.retryplan

/**
 * Text across the boundary: a `String` holding a lone surrogate (UTF-16 that
 * is no Unicode text, so no UTF-8 can carry it) is refused as the Python and
 * JS bindings refuse it, an [RetryplanException.InvalidArgument] naming the
 * argument or record field, never a `MalformedInputException` and never a
 * silent replacement. `build.sh` wires these into uniffi's generated lowering.
 */
internal const val LONE_SURROGATE = "must be text without lone surrogates (U+D800 to U+DFFF)"

internal fun loneSurrogate(name: String): RetryplanException.InvalidArgument = RetryplanException.InvalidArgument(name, LONE_SURROGATE, "invalid_argument", Blame.CALLER, "invalid argument `$name`: $LONE_SURROGATE")

/** Lowers text held by `name`; the innermost name wins (a record field over the argument holding the record). */
internal inline fun <T> uniffiText(name: String, lower: () -> T): T = try {
    lower()
} catch (error: RetryplanException.InvalidArgument) {
    throw if (error.field == "text" && error.description.endsWith(LONE_SURROGATE)) loneSurrogate(name) else error
}
