package dev.retryplan

import java.io.IOException

/**
 * An operation that ended without a result to return: the typed ending a
 * helper throws. It is an [IOException], as an OkHttp interceptor must throw,
 * so the same classes serve every helper. Its message is the core's, the same
 * words in every language ([endingMessage]): the operation, what happened
 * and what to do, and after an error nothing classified (the last outcome
 * [unknownErrorVerdict]) the hint naming `outcomeOfError` ([unknownErrorHint]);
 * never after a value ([lastValue]: the hint speaks of an error). A helper's
 * ending takes the whole message from its driver ([Driver.endingMessage]),
 * which also names the status of the last response when it was no HTTP status
 * (outside 100..=599) or an interim 1xx but 101, read as a malformed response.
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
    /**
     * What the last attempt the core took into account returned, when the
     * ending is raised with a value (`retrying`'s `outcomeOfResult` judged it
     * a failure); null otherwise, and [cause] is null when this is set. The
     * value is the caller's now: the helper does not pass it to `onDiscard`,
     * so close it when it holds a resource.
     */
    val lastValue: Any? = null,
) : IOException(endingMessage(decision, operation, idempotencyKey, lastOutcome, lastValue != null) ?: decision.toString(), cause) {
    /** The whole message as the helper's driver gave it ([Driver.endingMessage]: the status of a malformed response too), when it did. */
    internal var coreMessage: String? = null

    override val message: String? get() = coreMessage ?: super.message
}

/** The operation gave up: [reason] says why (`ATTEMPTS_EXHAUSTED`, `DEADLINE_INSUFFICIENT`, ...). */
class GaveUpException @JvmOverloads constructor(
    decision: Decision.GaveUp,
    idempotencyKey: String,
    lastOutcome: Outcome?,
    cause: Throwable?,
    operation: String = OPERATION,
    lastValue: Any? = null,
) : OperationFailedException(decision, idempotencyKey, lastOutcome, cause, operation, decision.attempts, lastValue) {
    val reason: GiveUpReason = decision.reason
}

/** An unsafe write may have happened: look it up by [idempotencyKey], never repeat it blindly. */
class ReconcileRequiredException @JvmOverloads constructor(
    decision: Decision.Reconcile,
    idempotencyKey: String,
    lastOutcome: Outcome?,
    cause: Throwable?,
    operation: String = OPERATION,
    lastValue: Any? = null,
) : OperationFailedException(decision, idempotencyKey, lastOutcome, cause, operation, decision.attempts, lastValue)

/** A conflict: re-read, recompute, and start a new operation before [deadlineMs]. */
class RestartRequiredException @JvmOverloads constructor(
    decision: Decision.Restart,
    idempotencyKey: String,
    lastOutcome: Outcome?,
    cause: Throwable?,
    operation: String = OPERATION,
    lastValue: Any? = null,
) : OperationFailedException(decision, idempotencyKey, lastOutcome, cause, operation, decision.attempts, lastValue) {
    val deadlineMs: Long = decision.deadlineMs
}

/** How an ending names an operation with no name of its own (a lambda), as in every language. */
internal const val OPERATION = "operation"

/**
 * The typed ending of an ending decision other than `Succeeded` (null for a success), naming [operation], raised with
 * [cause] or [lastValue]; its message is [coreMessage], the driver's ([Driver.endingMessage]).
 */
internal fun endingException(decision: Decision, key: String, lastOutcome: Outcome?, cause: Throwable?, operation: String, lastValue: Any?, coreMessage: String?): OperationFailedException? = when (decision) {
    is Decision.GaveUp -> GaveUpException(decision, key, lastOutcome, cause, operation, lastValue)
    is Decision.Reconcile -> ReconcileRequiredException(decision, key, lastOutcome, cause, operation, lastValue)
    is Decision.Restart -> RestartRequiredException(decision, key, lastOutcome, cause, operation, lastValue)
    else -> null
}?.also { it.coreMessage = coreMessage }

/** How the endings name a block: a function reference's name (`::placeOrder`), else "operation" (a lambda has none). */
internal fun operationName(block: Any): String = (block as? kotlin.reflect.KFunction<*>)?.name ?: OPERATION
