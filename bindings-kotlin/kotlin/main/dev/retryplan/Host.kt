package dev.retryplan

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.launch
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import kotlin.coroutines.coroutineContext
import dev.retryplan.WireWords as W

/**
 * A response as the core reads it: the status exactly as the platform gave it, whether the client followed a
 * redirect inside the attempt to get it (the core then reads its retryable failure as ambiguous), and a lookup of
 * its headers.
 */
internal class HttpReading(val status: Long, val redirected: Boolean, val header: (String) -> String?)

/**
 * A response header as the core reads it: all its field lines (the client's lookup by name, in any case), joined by
 * ", " in the order received, as every binding reads a repeated header; null when it is absent. Not the JDK's
 * `firstValue` nor OkHttp's `header` (the last line): `Retry-After: 5` and `Retry-After: 60` read "5, 60".
 */
internal fun joinedLines(lines: List<String>): String? = if (lines.isEmpty()) null else lines.joinToString(", ")

/**
 * What a helper does with its runtime's I/O: how a value an attempt returned
 * is read (null: a function's value, judged by [outcomeOfResult]; else a
 * response, read by the core), which of its errors its failure table names
 * (the binding's [failureOf], plus what the helper knows of its client),
 * which errors mean the request itself is invalid (rethrown unchanged, as is
 * misuse of retryplan itself: [isMisuse]), how
 * to release a value it will not return (never called with null; a
 * function's value goes to the caller's `onDiscard`, whose exception ends the
 * operation, a response is closed quietly), and what a function's value means
 * (`retrying`'s `outcomeOfResult`: an outcome, null for a success; no hook:
 * every value is a success).
 */
internal class Io<T>(
    val response: ((T) -> HttpReading)?,
    val failureOf: (Throwable) -> Failure?,
    val invalid: (Throwable) -> Boolean,
    val dispose: (T) -> Unit,
    val outcomeOfResult: ((T) -> Outcome?)? = null,
)

/**
 * How an operation ended: [returned] the value the core chose to return
 * (held under the ending's token), else [valueOrThrow] throws the typed
 * ending, raised with what the ending's token held: an error as its cause,
 * a function's [value] as its `lastValue` (the caller's from then on: never
 * released). [decision] is read from the driver (the typed finish) while it
 * is open, and so is the typed ending's message (the core's, given how the
 * helper names the operation: [Driver.endingMessage]).
 */
internal class Ended<T>(
    val returned: Boolean,
    val value: T?,
    private val typed: () -> Ending,
    private val driver: Driver,
    private val cause: Throwable?,
    private val key: String,
    /** What is left of the time the returned value is readable in (the core's `readable_until_ms` less now), in ms; null: no limit. */
    internal val windowLeftMs: Long? = null,
) {
    val decision: Decision by lazy { typed().decision }

    /**
     * A failed response returned at the end is the caller's to read only
     * until the time the core says (its attempt's abort time), as in every
     * language (issue 29 item 6): [cut] runs then, ending a body still
     * streaming (a read that fails). A success's body is the caller's,
     * unbounded (the core gives it no limit).
     */
    @Suppress("UNCHECKED_CAST")
    fun cutFailedBodyAtAbort(cut: (T) -> Unit) {
        val left = windowLeftMs ?: return
        val value = value as T
        windowEnds.schedule({ runCatching { cut(value) } }, left.coerceAtLeast(0), java.util.concurrent.TimeUnit.MILLISECONDS)
    }

    /**
     * The value, or the typed ending (naming [operation]) thrown, raised with the held error (its cause) or value (its
     * `lastValue`), if any. [keySent] false: the helper sent no idempotency key, so a reconcile's words name none.
     */
    @Suppress("UNCHECKED_CAST")
    fun valueOrThrow(operation: String, keySent: Boolean = true): T {
        if (returned) return value as T
        val ending = typed()
        throw endingException(ending.decision, key, ending.lastResult?.outcome, cause, operation, value, driver.endingMessage(operation, keySent)) ?: IllegalStateException("retryplan: succeeded without a value to return")
    }
}

/** Runs the cuts of returned bodies at their windows' ends: one daemon thread, made on first use. */
private val windowEnds by lazy {
    java.util.concurrent.Executors.newSingleThreadScheduledExecutor { task -> Thread(task, "retryplan-window-end").apply { isDaemon = true } }
}

/** Close the responses the host loop drops ([Host.release]): daemon threads, made as needed, kept a minute when idle. */
private val responseClosers by lazy {
    java.util.concurrent.Executors.newCachedThreadPool { task -> Thread(task, "retryplan-release").apply { isDaemon = true } }
}

/** What an attempt ended with, on its way from the attempt's coroutine to the loop. */
private class Settled(val attempt: Int, val value: Any?, val error: Throwable?)

/** An attempt's Job that fails is dropped (see [Host.run]): one handler for every operation, it keeps nothing. */
private val IGNORE_FAILED_ATTEMPTS = CoroutineExceptionHandler { _, _ -> }

/** What an error nothing classified means: the core's one default for every language (`AMBIGUOUS`); asked on first need. */
private val UNKNOWN_ERROR by lazy { Outcome.Application(unknownErrorVerdict()) }

/**
 * The one host loop every Kotlin helper runs: the core's [Driver] decides when
 * attempts start, time out, hedge, wait and end, and which result the caller
 * gets; this carries out each action through the core's wire. Attempts are
 * coroutines in the caller's context (see [run]) that post what they ended
 * with to the loop, which hands it in with a token (its key in [held]): the driver
 * says which token to drop (a discarded receipt, `release`) and which the
 * ending returns or raises with. So the loop keeps no "latest result", and a
 * late or aborted attempt's value or error can never reach the caller.
 * Aborting an attempt cancels it; cancelling the caller cancels the operation
 * (`cancel` on the wire) and every attempt, and the CancellationException
 * propagates. So does a cancellation an attempt raises of its own ([isCancellation]).
 */
internal class Host<T>(
    private val driver: Driver,
    private val clock: MonotonicClock,
    private val io: Io<T>,
    private val onDecision: ((Event) -> Unit)?,
    private val outcomeOfError: ((Throwable) -> Outcome?)?,
    /** The request this operation serves, if any: its attempts carry the core's outgoing headers, its give-up decides the answer. */
    private val request: RequestContext? = null,
) {
    val key: String = driver.idempotencyKey()

    /**
     * Whether each attempt gets the core's outgoing headers: always for the HTTP
     * helpers (each attempt is a request to a next hop, which reads its deadline,
     * count and whether a layer above retries), and for `retrying {}` inside a
     * request being served (outside one it makes no call for them).
     */
    private val propagates = request != null || io.response != null
    private val input = LongArray(W.IN_WORDS)
    private val out = LongArray(W.OUT_WORDS)

    /** What attempts ended with, not yet handed in; closed at the end. */
    private val inbox = java.util.ArrayDeque<Settled>()
    private var closed = false

    @Volatile private var wake: CompletableDeferred<Unit>? = null

    /** The loop's attempts by number, from their start; an aborted one is taken out (the loop's thread only). */
    private val running = HashMap<Int, Job>()

    /** What the loop holds for the driver, by token: a value or an error. */
    private val held = HashMap<Long, Settled>()
    private var nextToken = 0L

    /**
     * Runs the operation. Attempts run in the caller's context under a
     * supervisor of their own, which the loop never joins: the caller gets the
     * ending as soon as the driver says it (an aborted attempt that ignores its
     * cancellation, a blocking call, is abandoned, and what it still produces
     * is released), and an attempt's Job that fails (coroutines 1.0 fails a
     * cancelled coroutine's Job with an exception resuming it late: see
     * [Handoff]) is dropped: the driver already counted that attempt. The
     * caller's cancellation reaches them through the loop, not through the
     * supervisor (no parent: the caller never joins an abandoned attempt):
     * checked before each attempt starts, it ends the loop's next wait, and
     * the loop then cancels them all.
     */
    suspend fun run(attempt: suspend (Attempt) -> T): Ended<T> {
        val attempts = SupervisorJob()
        val scope = CoroutineScope(coroutineContext + attempts + IGNORE_FAILED_ATTEMPTS)
        try {
            return loop(scope, attempt)
        } finally {
            attempts.cancel()
        }
    }

    private suspend fun loop(scope: CoroutineScope, attempt: suspend (Attempt) -> T): Ended<T> {
        try {
            callerActive()
            step(W.INPUT_POLL)
            while (true) {
                observe()
                when (out[W.OUT_ACTION_KIND]) {
                    W.ACTION_START_ATTEMPT -> {
                        // A caller cancelled before (or while) the loop starts its attempt never runs it: an attempt
                        // launched on a pool runs at once, under the attempts' own supervisor, not the caller's Job.
                        callerActive()
                        val entry = attemptOf(out)
                        running[entry.attempt] = scope.launch { settle(entry, attempt) }
                        step(W.INPUT_POLL)
                    }

                    W.ACTION_ABORT_ATTEMPT -> {
                        running.remove(out[W.OUT_ATTEMPT].toInt())?.cancel()
                        step(W.INPUT_POLL)
                    }

                    W.ACTION_RELEASE -> {
                        release(held.remove(out[W.OUT_TOKEN]))
                        step(W.INPUT_POLL)
                    }

                    W.ACTION_SLEEP -> {
                        // Attempts launched in the caller's context have not run yet on a one-thread dispatcher
                        // (runBlocking, Main): let them run once before arming a timer, so an attempt that ends
                        // without suspending is handed in with no timeout job made. Only a dispatch: the wait
                        // below still holds the driver's time, and a cancelled caller is cancelled here too.
                        var settled = take()
                        if (settled == null) {
                            yield()
                            settled = take()
                        }
                        var timerEnded = false
                        if (settled == null) {
                            val signal = CompletableDeferred<Unit>()
                            wake = signal
                            val ms = out[W.OUT_UNTIL_MS] - clock.nowMs()
                            settled = take() ?: if (ms > 0) {
                                timerEnded = withTimeoutOrNull(ms) { signal.await() } == null
                                take()
                            } else {
                                null
                            }
                        }
                        // A timer that ran out: the driver judges whether the clock moved through the wait (a clock
                        // that did not is refused naming `clock`: the wait would be armed again forever), then polls.
                        if (settled != null) handIn(settled) else step(if (timerEnded) W.INPUT_TIMER_ENDED else W.INPUT_POLL)
                    }

                    W.ACTION_FINISH -> return finish()

                    else -> throw IllegalStateException("retryplan: unknown action kind ${out[W.OUT_ACTION_KIND]}")
                }
            }
        } catch (error: Throwable) {
            // The caller cancelled, or the helper failed: the operation gives up, every attempt is cancelled.
            runCatching { step(W.INPUT_CANCEL) }
            runCatching(::observe) // a hook that throws does not hide the error being raised
            close()
            throw error
        }
    }

    /**
     * Throws the caller's `CancellationException` when its Job is no longer
     * active (kotlinx's `ensureActive`, which coroutines 1.0 lacks: its
     * `yield` checks the Job first), so no attempt starts for a cancelled caller.
     */
    private suspend fun callerActive() {
        val caller = coroutineContext[Job] ?: return
        if (caller.isActive) return
        yield() // throws the caller's own cancellation
        throw CancellationException("retryplan: the caller was cancelled")
    }

    /** One wire step of [kind] (poll or cancel) at the clock's now. */
    private fun step(kind: Long) {
        driver.exchangeInto(Wire.input(kind, clock.nowMs(), input), out)
    }

    private fun observe() {
        val hook = onDecision ?: return
        while (true) hook(driver.pollEvent() ?: return)
    }

    private fun attemptOf(out: LongArray) = Attempt(
        out[W.OUT_ATTEMPT].toInt(), out[W.OUT_TIMEOUT_MS], out[W.OUT_ABORT_AT_MS], Wire.requestId(out[W.OUT_REQUEST_ID_HIGH], out[W.OUT_REQUEST_ID_LOW]), key, out[W.OUT_REMAINING_MS],
        out[W.OUT_FLAGS] and W.FLAG_HEDGE != 0L, out[W.OUT_FLAGS] and W.FLAG_SEND_IDEMPOTENCY_KEY != 0L,
        // java.util's empty list, not Kotlin's `emptyList()`: its `CollectionsKt` facade would load on a process's first attempt.
        if (propagates) driver.outgoingHeaders(out[W.OUT_ATTEMPT].toInt(), clock.nowMs(), Protocol.HTTP) else java.util.Collections.emptyList(),
    )

    /** Runs one attempt in its own coroutine and posts what it ended with to the loop. */
    private suspend fun settle(entry: Attempt, attempt: suspend (Attempt) -> T) {
        val settled = try {
            Settled(entry.attempt, attempt(entry), null)
        } catch (error: Throwable) {
            Settled(entry.attempt, null, error)
        }
        // After the end nobody reads the inbox: release what it carried (an exception then reaches nobody).
        val late = synchronized(inbox) { if (closed) settled else null.also { inbox.addLast(settled) } }
        releaseQuietly(late)
        wake?.complete(Unit)
    }

    private fun take(): Settled? = synchronized(inbox) { inbox.pollFirst() }

    /** Hands what an attempt ended with in, under a fresh token; the receipt says whether it is kept. */
    private fun handIn(settled: Settled) {
        val token = nextToken++
        val error = settled.error
        if (error == null) {
            @Suppress("UNCHECKED_CAST")
            val value = settled.value as T
            val reading = io.response?.let { read -> releasingIfThrows(settled) { read(value) } }
            if (reading != null) {
                val headers = responseHeaders(reading.header)
                val receipt = releasingIfThrows(settled) { driver.handleResponse(clock.nowMs(), settled.attempt, token, reading.status, headers, System.currentTimeMillis(), reading.redirected) }
                kept(token, settled, receipt == Receipt.DISCARDED)
                return step(W.INPUT_POLL)
            }
            // A hook that throws ends the operation with its exception; the value it was judging is released.
            val outcome = io.outcomeOfResult?.let { judge -> releasingIfThrows(settled) { judge(value) } }
            return handOutcome(token, settled, Held.VALUE, outcome ?: Outcome.Success)
        }
        // The cancellation of an attempt the loop aborted: the driver already counted it (`timed_out`, or a loser).
        if (error is CancellationException && settled.attempt !in running) return step(W.INPUT_POLL)
        // A fatal error (the JVM's trouble: isFatal), an invalid request, misuse of retryplan itself (blame caller or
        // configuration), or a cancellation: no attempt's outcome; the operation ends with it, every attempt cancelled.
        if (isFatal(error) || io.invalid(error) || error.isMisuse() || error.isCancellation()) throw error
        io.failureOf(error)?.let { return result(token, settled, Held.ERROR, W.OUTCOME_FAILURE, W.word(it)) }
        handOutcome(token, settled, Held.ERROR, outcomeOfError?.invoke(error) ?: UNKNOWN_ERROR)
    }

    /** Hands [settled] in under [token] as [outcome] (a hook's answer); then the loop has its next action. */
    private fun handOutcome(token: Long, settled: Settled, held: Held, outcome: Outcome) = when (outcome) {
        is Outcome.Success -> result(token, settled, held, W.OUTCOME_SUCCESS, 0)

        is Outcome.Application -> result(token, settled, held, W.OUTCOME_APPLICATION, W.word(outcome.verdict))

        else -> {
            // Any other outcome goes in typed (uniffi), then the loop polls.
            val receipt = releasingIfThrows(settled) { driver.handleResult(clock.nowMs(), settled.attempt, outcome, token, held) }
            kept(token, settled, receipt == Receipt.DISCARDED)
            step(W.INPUT_POLL)
        }
    }

    /** A `result` record for [settled] under [token]; its answer is the next action. */
    private fun result(token: Long, settled: Settled, held: Held, kind: Long, code: Long) {
        Wire.input(W.INPUT_RESULT, clock.nowMs(), input)
        input[W.IN_ATTEMPT] = settled.attempt.toLong()
        input[W.IN_TOKEN] = token
        input[W.IN_HELD] = W.word(held)
        input[W.IN_OUTCOME_KIND] = kind
        input[W.IN_OUTCOME_CODE] = code
        releasingIfThrows(settled) { driver.exchangeInto(input, out) }
        kept(token, settled, out[W.OUT_RECEIPT] == W.word(Receipt.DISCARDED))
    }

    private fun kept(token: Long, settled: Settled, discarded: Boolean) {
        if (discarded) release(settled) else held[token] = settled
    }

    /**
     * Reads a returned value (a response, a hook's outcome) or hands it in;
     * when that throws, the value (never held: the driver did not take it) is
     * released and the error raised.
     */
    private inline fun <R> releasingIfThrows(settled: Settled, read: () -> R): R = try {
        read()
    } catch (unreadable: Throwable) {
        releaseQuietly(settled)
        // The core's refusal of an error's result (an HTTP helper's error called a success): that error is its cause.
        settled.error?.takeIf { unreadable is RetryplanException && unreadable.cause == null }?.let { unreadable.initCause(it) }
        throw unreadable
    }

    /**
     * Releases what [settled] carried, if a value (an error or null: nothing
     * to release). A response is closed quietly, off the loop's thread
     * ([responseClosers]): closing one whose body is still arriving reads
     * what is left of it first (OkHttp's discard, up to 100 ms), which must
     * not delay the loop's next action (the root README: a failed response
     * whose body arrives slowly, the status alone decides). An exception the
     * caller's `onDiscard` throws propagates: while the loop runs it ends the
     * operation as a hook's does ([loop]'s catch).
     */
    @Suppress("UNCHECKED_CAST")
    private fun release(settled: Settled?) {
        val value = settled?.value ?: return
        if (io.response == null) io.dispose(value as T) else responseClosers.execute { runCatching { io.dispose(value as T) } }
    }

    /** [release], dropping an exception: after the end (nobody to tell), or while another error is raised (it keeps the first). */
    private fun releaseQuietly(settled: Settled?) {
        runCatching { release(settled) }
    }

    /**
     * The finish on the wire: the token's value when the ending returns it,
     * else the typed ending raised with what the token holds (an error as its
     * cause, a function's value as its `lastValue`: the caller's, not released).
     */
    @Suppress("UNCHECKED_CAST")
    private fun finish(): Ended<T> {
        val token = out[W.OUT_TOKEN]
        val returns = out[W.OUT_ENDING] and W.ENDING_RETURNS != 0L
        val readableUntilMs = out[W.OUT_ABORT_AT_MS]
        val kept = if (token == W.NONE) null else held.remove(token)
        close()
        val now = clock.nowMs()
        val typed = { (driver.pollAction(now) as Action.Finish).ending }
        request?.ended(driver)
        val windowLeftMs = if (readableUntilMs == W.NONE) null else readableUntilMs - now
        return if (returns) Ended(true, kept?.value as T?, typed, driver, null, key, windowLeftMs) else Ended(false, kept?.value as T?, typed, driver, kept?.error, key)
    }

    /** No more results: everything still held (the ending's own result was taken out) or still arriving is released. */
    private fun close() {
        val late = synchronized(inbox) {
            closed = true
            if (inbox.isEmpty()) null else ArrayList(inbox).also { inbox.clear() }
        }
        late?.forEach(::releaseQuietly)
        if (held.isNotEmpty()) held.values.forEach(::releaseQuietly)
        held.clear()
    }
}

/**
 * Misuse of retryplan itself, raised inside an attempt (a [RetryplanException]
 * whose blame [Blame.isMisuse], the core's `Blame::is_misuse`, such as a policy
 * built there from a bad configuration): never an attempt's outcome, so the
 * operation ends with it, unchanged, as in every language. A nested
 * operation's typed ending ([OperationFailedException]) is not misuse.
 */
private fun Throwable.isMisuse() = this is RetryplanException && blame.isMisuse

/**
 * A cancellation an attempt raised of its own (its block threw a `CancellationException`, `java.util.concurrent`'s
 * on the JVM, or cancelled its own coroutine), not the loop's abort of it: never an attempt's failure, as Kotlin's
 * structured concurrency has it (Arrow's `nonFatalOrThrow` too), so the operation ends (`cancelled`), every other
 * attempt is cancelled and it propagates unchanged.
 * Not a `TimeoutCancellationException`: `withTimeout` inside the block timed out the block's own work, an exception
 * kotlinx.coroutines documents for the caller to catch (the block's coroutine is still active), which the failure
 * table reads as `attempt_timed_out`, retried as the attempt's own timeout is.
 */
private fun Throwable.isCancellation() = this is CancellationException && this !is TimeoutCancellationException

/**
 * Whether a response came through a redirect its client followed inside the attempt, from the statuses of the
 * responses before it in the client's chain of follow-ups ([priorStatuses]: OkHttp's `priorResponse()`,
 * java.net.http's `previousResponse()`): one of them a 3xx. A client makes other follow-ups too, the same request
 * sent again to the same URL (OkHttp's resend of a 503 with `Retry-After: 0`, either client's answer to an
 * authentication challenge, 401 or 407): those are part of the one attempt, never a redirect, so a POST whose 503
 * OkHttp resent by itself is not read as possibly processed by an earlier hop.
 */
internal fun followedRedirect(priorStatuses: Sequence<Int>): Boolean = priorStatuses.any { it in 300..399 }

/** The failure table of an HTTP helper: the binding's, and any other I/O error of the client as a lost connection. */
internal fun httpFailureOf(error: Throwable): Failure? = failureOf(error) ?: if (error is java.io.IOException) Failure.CONNECTION_LOST else null

/**
 * Sets the headers of this attempt's request through [set]: its request id under [requestIdHeader] (none when null),
 * the key under [idempotencyKeyHeader] when the plan sends it (none when null), the core's outgoing headers.
 */
internal inline fun Attempt.eachRequestHeader(requestIdHeader: String?, idempotencyKeyHeader: String?, set: (String, String) -> Unit) {
    if (requestIdHeader != null) set(requestIdHeader, requestId)
    if (sendIdempotencyKey && idempotencyKeyHeader != null) set(idempotencyKeyHeader, idempotencyKey)
    // The core's outgoing headers carry the key too (by its default name): it travels under one name, or none.
    for (field in propagationHeaders) if (!field.name.equals(IDEMPOTENCY_KEY_HEADER, ignoreCase = true)) set(field.name, field.value)
}

/** The rule of an HTTP helper's header name options (`requestIdHeader`, `idempotencyKeyHeader`), worded as Python's. */
internal const val HEADER_NAME_RULE = "must be a header name (a non-empty string), or null to leave the header out"

/**
 * [name], the value of the header name option [field], when it is null (the header is left out) or not empty;
 * else the helper is refused when it is made, a [RetryplanException.InvalidArgument] naming [field] (Python's rule).
 */
internal fun headerNameOption(field: String, name: String?): String? {
    if (name == "") throw RetryplanException.InvalidArgument(field, HEADER_NAME_RULE, "invalid_argument", Blame.CALLER, "invalid argument `$field`: $HEADER_NAME_RULE, got \"\"")
    return name
}
