package dev.retryplan

/**
 * The core's stable error code (`config_violations`, `operation_ended`, ...) on
 * any [RetryplanException]: every subclass carries it; this reads it without
 * knowing the subclass. Exhaustive, so a new error kind breaks this build.
 */
val RetryplanException.code: String
    get() = when (this) {
        is RetryplanException.ConfigViolations -> code
        is RetryplanException.InvalidConfig -> code
        is RetryplanException.UnknownProfile -> code
        is RetryplanException.OperationEnded -> code
        is RetryplanException.AttemptNotRunning -> code
        is RetryplanException.InvalidArgument -> code
        is RetryplanException.Unsupported -> code
        is RetryplanException.InvalidHeader -> code
        is RetryplanException.EntropyUnavailable -> code
    }

/** The core's message on any [RetryplanException] (also its `toString()`). */
val RetryplanException.description: String
    get() = when (this) {
        is RetryplanException.ConfigViolations -> description
        is RetryplanException.InvalidConfig -> description
        is RetryplanException.UnknownProfile -> description
        is RetryplanException.OperationEnded -> description
        is RetryplanException.AttemptNotRunning -> description
        is RetryplanException.InvalidArgument -> description
        is RetryplanException.Unsupported -> description
        is RetryplanException.InvalidHeader -> description
        is RetryplanException.EntropyUnavailable -> description
    }

/**
 * Who must act on any [RetryplanException] (the core's `Error::blame()`):
 * [Blame.CALLER], [Blame.CONFIGURATION], [Blame.SERVER] or [Blame.ENVIRONMENT];
 * its `name` lowercased is the snake_case name every binding uses.
 */
val RetryplanException.blame: Blame
    get() = when (this) {
        is RetryplanException.ConfigViolations -> blame
        is RetryplanException.InvalidConfig -> blame
        is RetryplanException.UnknownProfile -> blame
        is RetryplanException.OperationEnded -> blame
        is RetryplanException.AttemptNotRunning -> blame
        is RetryplanException.InvalidArgument -> blame
        is RetryplanException.Unsupported -> blame
        is RetryplanException.InvalidHeader -> blame
        is RetryplanException.EntropyUnavailable -> blame
    }

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
