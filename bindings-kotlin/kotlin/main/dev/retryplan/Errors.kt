package dev.retryplan

/**
 * What every [RetryplanException] carries, whatever its subclass: the core's
 * stable [code], its [description] and who must act ([blame]). Exhaustive, so
 * a new error kind breaks this build.
 */
private val RetryplanException.common: Triple<String, String, Blame>
    get() = when (this) {
        is RetryplanException.ConfigViolations -> Triple(code, description, blame)
        is RetryplanException.InvalidConfig -> Triple(code, description, blame)
        is RetryplanException.UnknownProfile -> Triple(code, description, blame)
        is RetryplanException.OperationEnded -> Triple(code, description, blame)
        is RetryplanException.AttemptNotRunning -> Triple(code, description, blame)
        is RetryplanException.InvalidArgument -> Triple(code, description, blame)
        is RetryplanException.Unsupported -> Triple(code, description, blame)
        is RetryplanException.InvalidHeader -> Triple(code, description, blame)
        is RetryplanException.EntropyUnavailable -> Triple(code, description, blame)
        is RetryplanException.CompiledForm -> Triple(code, description, blame)
    }

/** The core's stable error code (`config_violations`, `operation_ended`, ...) on any [RetryplanException]. */
val RetryplanException.code: String get() = common.first

/** The core's message on any [RetryplanException] (also its `toString()`). */
val RetryplanException.description: String get() = common.second

/**
 * Who must act on any [RetryplanException] (the core's `Error::blame()`):
 * [Blame.CALLER], [Blame.CONFIGURATION], [Blame.SERVER] or [Blame.ENVIRONMENT];
 * its `name` lowercased is the snake_case name every binding uses.
 */
val RetryplanException.blame: Blame get() = common.third

/**
 * `RetryplanException.InvalidPolicyJson` (code `invalid_policy_json`) is
 * renamed [RetryplanException.InvalidConfig] (code `invalid_config`) in this
 * release: it was raised for every configuration (a dependency, a budget, a
 * breaker, a gRPC service config, a typed record), not only a policy's JSON.
 * This alias of the new class is kept for one release. It is top-level, not
 * nested in [RetryplanException]: nested type aliases need Kotlin 2.3, and the
 * binding compiles for Kotlin 2.0.
 */
@Deprecated(
    "Renamed RetryplanException.InvalidConfig (code invalid_config); its config says which configuration",
    ReplaceWith("RetryplanException.InvalidConfig"),
)
typealias InvalidPolicyJson = RetryplanException.InvalidConfig

/**
 * `RetryplanException.InvalidPolicy` (code `invalid_policy`) is renamed
 * [RetryplanException.ConfigViolations] (code `config_violations`) in this
 * release: it was raised for every configuration (a dependency, a budget, a
 * breaker, a gRPC service config), not only a policy; its `config` says which,
 * and each violation's path is from that configuration. This alias of the new
 * class is kept for one release, top-level for the same reason as
 * [InvalidPolicyJson].
 */
@Deprecated(
    "Renamed RetryplanException.ConfigViolations (code config_violations); its config says which configuration",
    ReplaceWith("RetryplanException.ConfigViolations"),
)
typealias InvalidPolicy = RetryplanException.ConfigViolations
