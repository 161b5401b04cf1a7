package dev.retryplan

/**
 * The host side of the engine's loop: it does the I/O and the sleeping the
 * decisions ask for, and nothing else. Every rule (how long to wait, whether
 * to try again, why to stop) is decided by the compiled core.
 */

/** A monotonic clock in milliseconds (any origin, never negative). */
fun interface MonotonicClock {
    fun nowMs(): Long

    companion object {
        private val origin = System.nanoTime()

        /** `System.nanoTime()` in ms since this class was loaded (never negative, never jumps). */
        val SYSTEM = MonotonicClock { (System.nanoTime() - origin) / 1_000_000 }
    }
}

/** What one attempt gets: send the request with these values. */
data class Attempt(
    /** 1 for the first attempt. */
    val number: Int,
    /** The effective timeout: give the I/O at most this long. */
    val timeoutMs: Long,
    /** When to abort, on the helper's clock. */
    val abortAtMs: Long,
    /** A fresh id for this attempt's request (16 hex digits). */
    val requestId: String,
    /** The same key on every attempt of the operation. */
    val idempotencyKey: String,
    /** Budget left at the start, after the response reserve. */
    val remainingBudgetMs: Long,
) {
    /** This attempt succeeded with [value]. */
    fun <T> success(value: T): Reported<T> = Reported(Outcome.Success, value)

    /** This attempt ended with [outcome] (the engine classifies it); [value] is kept as the last value seen. */
    fun <T> outcome(outcome: Outcome, value: T? = null): Reported<T> = Reported(outcome, value)
}

/** What an attempt saw, and the value it produced (a response, for example). */
data class Reported<out T>(val outcome: Outcome, val value: T?)

/**
 * How a [retrying] run ended: the engine's final [ending] decision, the value
 * of the last attempt (the successful one when it succeeded), its outcome, and
 * the idempotency key (to reconcile by, after a `Reconcile`).
 */
data class RetryResult<out T>(
    val ending: Decision,
    val value: T?,
    val lastOutcome: Outcome?,
    val idempotencyKey: String,
    val attempts: Int,
) {
    val succeeded: Boolean get() = ending is Decision.Succeeded

    /** The value when the operation succeeded; otherwise throws [RetryEndedException]. */
    fun getOrThrow(): T? = if (succeeded) value else throw RetryEndedException(this)
}

/** Thrown by [RetryResult.getOrThrow] for an ending other than success. */
class RetryEndedException(val result: RetryResult<*>) : RuntimeException("operation ended: ${result.ending}")

/**
 * Runs [block] once per attempt the engine starts, sleeping between attempts
 * as it says, until it answers an ending. Blocking; call it on a worker thread.
 *
 * Cancellation: interrupting the thread (while it sleeps, or when [block]
 * throws `InterruptedException`) reports cancellation to the engine, which
 * ends with `GaveUp(reason = CANCELLED)`; the interrupt flag is restored.
 * Any other exception from [block] cancels the operation and propagates.
 *
 * [stats], if given, counts every decision (it may be shared by many threads).
 */
fun <T> retrying(
    policy: Policy,
    options: OperationOptions = OperationOptions(),
    stats: Stats? = null,
    clock: MonotonicClock = MonotonicClock.SYSTEM,
    block: (Attempt) -> Reported<T>,
): RetryResult<T> = Operation(policy, clock.nowMs(), options).use { operation ->
    val key = operation.idempotencyKey()
    var last: Reported<T>? = null
    fun end(ending: Decision): RetryResult<T> =
        RetryResult(ending, last?.value, last?.outcome, key, operation.attemptsStarted())

    var decision = operation.poll(clock.nowMs())
    while (true) {
        stats?.record(decision)
        decision = when (val current = decision) {
            is Decision.StartAttempt -> {
                if (Thread.currentThread().isInterrupted) {
                    operation.onOutcome(clock.nowMs(), current.attempt, Outcome.Cancelled)
                } else {
                    val attempt = Attempt(
                        current.attempt, current.timeoutMs, current.abortAtMs,
                        current.requestId, key, current.remainingBudgetMs,
                    )
                    val reported = try {
                        block(attempt)
                    } catch (interrupted: InterruptedException) {
                        Thread.currentThread().interrupt()
                        Reported(Outcome.Cancelled, null)
                    } catch (error: Throwable) {
                        stats?.record(operation.cancel(clock.nowMs()))
                        throw error
                    }
                    last = reported
                    operation.onOutcome(clock.nowMs(), current.attempt, reported.outcome)
                }
            }
            is Decision.Wait -> {
                val remaining = current.untilMs - clock.nowMs()
                try {
                    if (remaining > 0) Thread.sleep(remaining)
                    operation.poll(clock.nowMs())
                } catch (interrupted: InterruptedException) {
                    Thread.currentThread().interrupt()
                    operation.cancel(clock.nowMs())
                }
            }
            // This loop reports every attempt's outcome before polling, so the
            // engine never has an attempt running when it polls.
            is Decision.AwaitOutcome -> throw IllegalStateException("no attempt should be running: $current")
            is Decision.Succeeded, is Decision.GaveUp, is Decision.Reconcile, is Decision.Restart -> return@use end(current)
        }
    }
    @Suppress("UNREACHABLE_CODE")
    error("unreachable")
}
