package dev.retryplan

import java.util.concurrent.ConcurrentHashMap

/**
 * What each attempt of an HTTP helper's operation threw, by attempt number.
 * When `outcomeOfError` calls a thrown error a success, the operation
 * succeeds with no value (`retrying` returns null, as JS and Python return
 * no value); an HTTP helper has no response to return then, and refuses it
 * with [noResponse], the winning attempt's error as the cause.
 */
internal class AttemptErrors {
    /** The error each attempt threw, by its number (written only when one throws). */
    val byAttempt = ConcurrentHashMap<Int, Throwable>()

    /** Runs [attempt]'s I/O ([run]), recording what it throws. */
    inline fun <T> recording(attempt: Attempt, run: () -> T): T = try {
        run()
    } catch (error: Throwable) {
        byAttempt[attempt.attempt] = error
        throw error
    }

    /**
     * The refusal of a success with no response, made by [refusal] from its
     * message (naming [operation] and `outcomeOfError`) and its cause: the
     * error of the attempt that won ([decision]).
     */
    fun <E : Throwable> noResponse(operation: String, decision: Decision, refusal: (String, Throwable) -> E): E {
        val winner = (decision as? Decision.Succeeded)?.winner
        val error = byAttempt[winner] ?: IllegalStateException("retryplan: no attempt's error recorded for attempt $winner")
        return refusal(
            "retryplan: $operation: outcomeOfError answered Outcome.Success for a thrown error, so the operation succeeded " +
                "without a response to return (the error is the cause): answer a failure for it, or null",
            error,
        )
    }
}
