package dev.retryplan

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch
import kotlinx.coroutines.withTimeoutOrNull
import java.util.concurrent.TimeoutException
import kotlin.coroutines.coroutineContext

/**
 * What a helper does with its runtime's I/O: how a value an attempt returned
 * reads as an outcome, which of its errors its failure table names (the
 * binding's [failureOf], plus what the helper knows of its client), which
 * errors mean the request itself is invalid (rethrown unchanged), and how to
 * release a value it will not return.
 */
internal class Io<T>(
    val outcomeOf: (T) -> Outcome,
    val failureOf: (Throwable) -> Failure?,
    val invalid: (Throwable) -> Boolean,
    val dispose: (T) -> Unit,
)

/** How an operation ended: the decision, and the last result's outcome, value (if any) and error as the host kept them. */
internal class Ended<T>(
    val decision: Decision,
    val key: String,
    val lastOutcome: Outcome?,
    val value: T?,
    val hasValue: Boolean,
    val error: Throwable?,
) {
    /** The typed ending (null for a success). */
    fun exception(): OperationFailedException? = endingException(decision, key, lastOutcome, error)
}

private val NOT_RETRYABLE = Outcome.Application(Verdict.NOT_RETRYABLE)

/**
 * The one host loop every Kotlin helper runs: the core's [Driver] decides when
 * attempts start, time out, hedge, wait and end; this carries out each action
 * and hands each attempt's result in as it arrives (from the attempt's own
 * coroutine). Attempts are child coroutines of the caller's scope: aborting
 * one cancels it; cancelling the caller cancels the operation (the driver's
 * `handleCancel`) and every attempt, and the CancellationException
 * propagates. It keeps no bookkeeping of late attempts: a result the driver
 * discards is disposed of at once, and so is a kept value a newer one replaces.
 */
internal class Host<T>(
    private val driver: Driver,
    private val clock: MonotonicClock,
    private val io: Io<T>,
    private val onDecision: ((Event) -> Unit)?,
    private val outcomeOfError: ((Throwable) -> Outcome?)?,
) {
    val key: String = driver.idempotencyKey()
    private val lock = Any()
    private var done = false
    private var failed: Throwable? = null
    private var latestAttempt = 0
    private var latestValue: T? = null
    private var hasValue = false
    private var latestError: Throwable? = null
    @Volatile private var wake: CompletableDeferred<Unit>? = null

    suspend fun run(attempt: suspend (Attempt) -> T): Ended<T> = coroutineScope { loop(this, attempt) }

    private suspend fun loop(scope: CoroutineScope, attempt: suspend (Attempt) -> T): Ended<T> {
        val running = HashMap<Int, Job>()
        try {
            while (true) {
                val signal = CompletableDeferred<Unit>()
                wake = signal
                synchronized(lock) { failed }?.let { throw it }
                val action = driver.pollAction(clock.nowMs())
                observe()
                when (action) {
                    is Action.StartAttempt -> {
                        val entry = Attempt(action.plan, key)
                        running[entry.number] = scope.launch { settle(entry, attempt) }
                    }
                    is Action.AbortAttempt -> abort(running.remove(action.attempt), action)
                    is Action.Sleep -> (action.untilMs - clock.nowMs()).let { ms -> if (ms > 0) withTimeoutOrNull(ms) { signal.await() } }
                    is Action.Finish -> return finish(action.ending)
                    // Only for results handed in with a token, which this host does not do.
                    is Action.Release -> {}
                }
            }
        } catch (error: Throwable) {
            // The caller cancelled, or the helper failed: the operation gives up, every attempt is cancelled.
            driver.handleCancel(clock.nowMs())
            running.values.forEach { it.cancel() }
            runCatching(::observe) // a hook that throws does not hide the error being raised
            finish(null)
            throw error
        }
    }

    private fun observe() {
        val hook = onDecision ?: return
        while (true) hook(driver.pollEvent() ?: return)
    }

    /** Runs one attempt in its own coroutine and hands its result in. */
    private suspend fun settle(entry: Attempt, attempt: suspend (Attempt) -> T) {
        val value = try {
            attempt(entry)
        } catch (error: Throwable) {
            // Aborted by the loop: the driver already counted it.
            if (error is CancellationException && !coroutineContext.isActive) throw error
            return threw(entry.number, error)
        }
        val outcome = try {
            io.outcomeOf(value)
        } catch (unreadable: Throwable) {
            io.dispose(value)
            return abandon(unreadable)
        }
        received(entry.number, value, true, null) { now -> driver.handleResult(now, entry.number, outcome) }
    }

    /** The failure table first, then the hook (by default: not retryable); an invalid request is rethrown. */
    private fun threw(attempt: Int, error: Throwable) {
        if (io.invalid(error)) return abandon(error)
        val failure = io.failureOf(error)
        if (failure != null) return received(attempt, null, false, error) { now -> driver.handleFailure(now, attempt, failure) }
        val outcome = try {
            outcomeOfError?.invoke(error) ?: NOT_RETRYABLE
        } catch (hookError: Throwable) {
            return abandon(hookError)
        }
        received(attempt, null, false, error) { now -> driver.handleResult(now, attempt, outcome) }
    }

    /** Hands a result in; keeps it when accepted (releasing the value it replaces), else releases its value. */
    private inline fun received(attempt: Int, value: T?, carries: Boolean, error: Throwable?, handle: (Long) -> Receipt) {
        var release: T? = null
        var releases = false
        synchronized(lock) {
            val receipt = try {
                if (done) Receipt.DISCARDED else handle(clock.nowMs())
            } catch (refused: RetryplanException) {
                failed = failed ?: refused // an outcome the core refuses: the hook's mistake
                Receipt.DISCARDED
            }
            if (receipt == Receipt.ACCEPTED) {
                if (hasValue && latestValue !== value) {
                    release = latestValue
                    releases = true
                }
                latestAttempt = attempt
                latestValue = value
                hasValue = carries
                latestError = error
            } else if (carries) {
                release = value
                releases = true
            }
        }
        @Suppress("UNCHECKED_CAST")
        if (releases) runCatching { io.dispose(release as T) }
        wake?.complete(Unit)
    }

    private fun abandon(error: Throwable) {
        synchronized(lock) { failed = failed ?: error }
        wake?.complete(Unit)
    }

    private fun abort(job: Job?, action: Action.AbortAttempt) {
        job?.cancel()
        if (action.reason != AbortReason.TIMED_OUT) return
        // The driver counted it as timed out: that is now the latest result.
        val timeout = TimeoutException("retryplan: attempt ${action.attempt} reached its timeout")
        received(action.attempt, null, false, timeout) { Receipt.ACCEPTED }
    }

    /** Ends the host: the last result as kept, for the finish (null when the loop failed: the kept value is released). */
    private fun finish(ending: Ending?): Ended<T> {
        val (value, has, error) = synchronized(lock) {
            done = true
            val kept = ending?.lastResult?.attempt == latestAttempt
            Triple(latestValue, hasValue && kept, if (kept) latestError else null)
        }
        @Suppress("UNCHECKED_CAST")
        if (hasValue && !has) runCatching { io.dispose(value as T) }
        val decision = ending?.decision ?: Decision.AwaitOutcome(0, 0)
        return Ended(decision, key, ending?.lastResult?.outcome, if (has) value else null, has, error)
    }
}

/**
 * An HTTP helper's ending: the last response when there is one (the winner's
 * on success), except for reconcile; otherwise the typed ending, the response
 * (if any) closed first.
 */
internal fun <T> Ended<T>.responseOrThrow(dispose: (T) -> Unit): T {
    @Suppress("UNCHECKED_CAST")
    val response = value as T
    if (hasValue && decision !is Decision.Reconcile) return response
    if (hasValue) runCatching { dispose(response) }
    throw exception() ?: IllegalStateException("retryplan: succeeded without a response")
}

/** The failure table of an HTTP helper: the binding's, and any other I/O error of the client as a lost connection. */
internal fun httpFailureOf(error: Throwable): Failure? =
    failureOf(error) ?: if (error is java.io.IOException) Failure.CONNECTION_LOST else null
