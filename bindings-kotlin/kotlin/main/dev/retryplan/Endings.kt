package dev.retryplan

import java.io.IOException

/**
 * An operation that ended without a result to return: the typed ending a
 * helper throws. It is an [IOException], as an OkHttp interceptor must throw,
 * so the same classes serve every helper. Its message is the core's, the same
 * words in every language ([endingMessage]): the operation, what happened
 * and what to do, and after an error nothing classified (the last outcome
 * [unknownErrorVerdict]) the hint naming `outcomeOfError` ([unknownErrorHint]).
 */
sealed class OperationFailedException(
    /** The ending decision (`GaveUp`, `Reconcile` or `Restart`). */
    val decision: Decision,
    /** The operation's idempotency key (the same on every attempt): reconcile by it. */
    val idempotencyKey: String,
    /** How the last attempt the core took into account ended, if one did. */
    val lastOutcome: Outcome?,
    /** What that attempt threw, if it threw. */
    cause: Throwable?,
    /** How the helper names the operation: the block's name, or an HTTP request's method and URL. */
    operation: String,
    /** Attempts started, hedges included (the ending decision's count). */
    val attempts: Int,
) : IOException(endingMessage(decision, operation, idempotencyKey, lastOutcome) ?: decision.toString(), cause)

/** The operation gave up: [reason] says why (`ATTEMPTS_EXHAUSTED`, `DEADLINE_INSUFFICIENT`, ...). */
class GaveUpException(
    decision: Decision.GaveUp,
    idempotencyKey: String,
    lastOutcome: Outcome?,
    cause: Throwable?,
    operation: String = OPERATION,
) : OperationFailedException(decision, idempotencyKey, lastOutcome, cause, operation, decision.attempts) {
    val reason: GiveUpReason = decision.reason
}

/** An unsafe write may have happened: look it up by [idempotencyKey], never repeat it blindly. */
class ReconcileRequiredException(
    decision: Decision.Reconcile,
    idempotencyKey: String,
    lastOutcome: Outcome?,
    cause: Throwable?,
    operation: String = OPERATION,
) : OperationFailedException(decision, idempotencyKey, lastOutcome, cause, operation, decision.attempts)

/** A conflict: re-read, recompute, and start a new operation before [deadlineMs]. */
class RestartRequiredException(
    decision: Decision.Restart,
    idempotencyKey: String,
    lastOutcome: Outcome?,
    cause: Throwable?,
    operation: String = OPERATION,
) : OperationFailedException(decision, idempotencyKey, lastOutcome, cause, operation, decision.attempts) {
    val deadlineMs: Long = decision.deadlineMs
}

/** How an ending names an operation with no name of its own (a lambda), as in every language. */
internal const val OPERATION = "operation"

/** The typed ending of an ending decision other than `Succeeded` (null for a success), naming [operation]. */
internal fun endingException(decision: Decision, key: String, lastOutcome: Outcome?, cause: Throwable?, operation: String): OperationFailedException? = when (decision) {
    is Decision.GaveUp -> GaveUpException(decision, key, lastOutcome, cause, operation)
    is Decision.Reconcile -> ReconcileRequiredException(decision, key, lastOutcome, cause, operation)
    is Decision.Restart -> RestartRequiredException(decision, key, lastOutcome, cause, operation)
    else -> null
}

/** How the endings name a block: a function reference's name (`::placeOrder`), else "operation" (a lambda has none). */
internal fun operationName(block: Any): String = (block as? kotlin.reflect.KFunction<*>)?.name ?: OPERATION
