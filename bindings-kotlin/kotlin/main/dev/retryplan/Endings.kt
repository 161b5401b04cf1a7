package dev.retryplan

import java.io.IOException

/**
 * An operation that ended without a result to return: the typed ending a
 * helper throws. It is an [IOException], as an OkHttp interceptor must throw,
 * so the same classes serve every helper.
 */
sealed class OperationFailedException(
    message: String,
    /** The ending decision (`GaveUp`, `Reconcile` or `Restart`). */
    val decision: Decision,
    /** The operation's idempotency key (the same on every attempt): reconcile by it. */
    val idempotencyKey: String,
    /** How the last attempt the core took into account ended, if one did. */
    val lastOutcome: Outcome?,
    /** What that attempt threw, if it threw. */
    cause: Throwable?,
) : IOException(message, cause) {
    /** Attempts started, hedges included. */
    abstract val attempts: Int
}

/** The core's hint after an error nothing classified (the last outcome `AMBIGUOUS`), naming `outcomeOfError`. */
private fun hint(lastOutcome: Outcome?): String =
    if (lastOutcome == Outcome.Application(unknownErrorVerdict())) "; ${unknownErrorHint()}" else ""

/** The operation gave up: [reason] says why (`ATTEMPTS_EXHAUSTED`, `DEADLINE_INSUFFICIENT`, ...). */
class GaveUpException(decision: Decision.GaveUp, idempotencyKey: String, lastOutcome: Outcome?, cause: Throwable?) :
    OperationFailedException(
        "retryplan: gave up after ${decision.attempts} attempt${if (decision.attempts == 1) "" else "s"}: " +
            decision.reason.name.lowercase() + hint(lastOutcome),
        decision, idempotencyKey, lastOutcome, cause,
    ) {
    val reason: GiveUpReason = decision.reason
    override val attempts: Int = decision.attempts
}

/** An unsafe write may have happened: look it up by [idempotencyKey], never repeat it blindly. */
class ReconcileRequiredException(decision: Decision.Reconcile, idempotencyKey: String, lastOutcome: Outcome?, cause: Throwable?) :
    OperationFailedException(
        "retryplan: the write may have happened; reconcile it by its idempotency key $idempotencyKey" + hint(lastOutcome),
        decision, idempotencyKey, lastOutcome, cause,
    ) {
    override val attempts: Int = decision.attempts
}

/** A conflict: re-read, recompute, and start a new operation before [deadlineMs]. */
class RestartRequiredException(decision: Decision.Restart, idempotencyKey: String, lastOutcome: Outcome?, cause: Throwable?) :
    OperationFailedException("retryplan: a conflict: restart the unit of work", decision, idempotencyKey, lastOutcome, cause) {
    val deadlineMs: Long = decision.deadlineMs
    override val attempts: Int = decision.attempts
}

/** The typed ending of an ending decision other than `Succeeded` (null for a success). */
internal fun endingException(decision: Decision, key: String, lastOutcome: Outcome?, cause: Throwable?): OperationFailedException? =
    when (decision) {
        is Decision.GaveUp -> GaveUpException(decision, key, lastOutcome, cause)
        is Decision.Reconcile -> ReconcileRequiredException(decision, key, lastOutcome, cause)
        is Decision.Restart -> RestartRequiredException(decision, key, lastOutcome, cause)
        else -> null
    }
