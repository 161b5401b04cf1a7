package dev.retryplan

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred

/**
 * What another thread (an HTTP client's callback, an attempt thread) hands to
 * a waiting coroutine: a value or an error, always delivered as a value.
 *
 * Never `completeExceptionally`: on kotlinx-coroutines 1.0.x an exception
 * resuming a coroutine that had just been cancelled was "handled" by failing
 * the coroutine's Job with it (kotlinx.coroutines #712, changed in 1.1 by
 * #830), so a request timeout racing its attempt's abort failed the attempt's
 * Job and reached the caller raw. A value resuming a cancelled coroutine is
 * dropped in every version; here it goes to [dispose] instead.
 */
internal class Handoff<T>(private val dispose: (T) -> Unit) {
    private class Settled(val value: Any?, val error: Throwable?)

    private val box = CompletableDeferred<Settled>()

    /** The value; when the waiter has gone (cancelled), it is disposed. */
    fun succeed(value: T) {
        if (!box.complete(Settled(value, null))) runCatching { dispose(value) }
    }

    /** The error; when the waiter has gone, it is dropped (the waiter was cancelled). */
    fun fail(error: Throwable) {
        box.complete(Settled(null, error))
    }

    /** Waits for the value (or throws the error); cancelled, runs [onCancel], disposes a value that made it and rethrows. */
    @Suppress("UNCHECKED_CAST")
    suspend fun await(onCancel: () -> Unit): T {
        val settled = try {
            box.await()
        } catch (cancelled: CancellationException) {
            // Whichever completes the box first wins: a value that won is disposed here.
            if (!box.complete(Settled(null, cancelled))) box.getCompleted().let { if (it.error == null) runCatching { dispose(it.value as T) } }
            runCatching(onCancel)
            throw cancelled
        }
        settled.error?.let { throw it }
        return settled.value as T
    }
}
