package dev.retryplan

/**
 * The core's stable error code (`invalid_policy`, `operation_ended`, ...) on
 * any [RetryplanException]: every subclass carries it; this reads it without
 * knowing the subclass. Exhaustive, so a new error kind breaks this build.
 */
val RetryplanException.code: String
    get() = when (this) {
        is RetryplanException.InvalidPolicy -> code
        is RetryplanException.InvalidPolicyJson -> code
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
        is RetryplanException.InvalidPolicy -> description
        is RetryplanException.InvalidPolicyJson -> description
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
        is RetryplanException.InvalidPolicy -> blame
        is RetryplanException.InvalidPolicyJson -> blame
        is RetryplanException.UnknownProfile -> blame
        is RetryplanException.OperationEnded -> blame
        is RetryplanException.AttemptNotRunning -> blame
        is RetryplanException.InvalidArgument -> blame
        is RetryplanException.Unsupported -> blame
        is RetryplanException.InvalidHeader -> blame
        is RetryplanException.EntropyUnavailable -> blame
    }
