package dev.retryplan

/*
 * The value helper, on coroutines: an adapter from a suspend block to the one
 * host loop (Host.kt) over the core's driver. It decides nothing.
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
    /** Which attempt this is: 1 for the first (the name Python's `AttemptPlan.attempt` and JS's `attempt` use). */
    val attempt: Int,
    /** The effective timeout: give the I/O at most this long. */
    val timeoutMs: Long,
    /** When the attempt is aborted (and counted as timed out), on the helper's clock. */
    val abortAtMs: Long,
    /** A fresh id for this attempt's request (16 hex digits): send it as [REQUEST_ID_HEADER]. */
    val requestId: String,
    /** The same key on every attempt of the operation. */
    val idempotencyKey: String,
    /** Time left at the start, after the response reserve: propagate it downstream as a deadline. */
    val remainingMs: Long,
    /** True for a hedge started beside a running attempt. */
    val hedge: Boolean,
    /** True when the request carries [idempotencyKey] as [IDEMPOTENCY_KEY_HEADER] (a keyed or unsafe operation). */
    val sendIdempotencyKey: Boolean,
    /**
     * The headers this attempt's request carries to the next hop: the core's
     * `outgoing_headers` (its remaining time, its number, the key when it is
     * sent, whether a layer above retries), written at the attempt's start.
     * The HTTP helpers send them on every attempt; `retrying {}` fills them
     * inside a request being served ([RequestContext]) and leaves them empty
     * outside one.
     */
    val propagationHeaders: List<HeaderField> = java.util.Collections.emptyList(),
) {
    /** The old name of [attempt]; kept for one release. */
    @Deprecated("renamed to attempt, the name every binding uses", ReplaceWith("attempt"))
    val number: Int get() = attempt
}

/** Closes a value the helper will not return, when it is [AutoCloseable]; the default `onDiscard`. */
fun closeIfCloseable(value: Any?) {
    (value as? AutoCloseable)?.close()
}

/**
 * The options every helper takes besides the operation's own: the policy, the
 * dependency called, the stats, the hooks and the clock. [operate] runs one
 * operation under them; `retrying` (both), `RetryingHttpClient` and
 * `RetryInterceptor` all go through it.
 */
internal class Helper(
    val policy: Policy,
    val dependency: Dependency?,
    val stats: Stats?,
    val onDecision: ((Event) -> Unit)?,
    val outcomeOfError: ((Throwable) -> Outcome?)?,
    val clock: MonotonicClock,
) {
    /**
     * Runs [body] over the host loop of one operation, its driver closed after:
     * [io] is the helper's I/O, [request] the request being served (the core
     * starts the driver from the caller's context), [http] an HTTP helper's
     * request (its responses are returned values the core reads), [oneShot]
     * its body can be sent once.
     */
    inline fun <T, R> operate(
        io: Io<T>,
        request: RequestContext?,
        http: HttpRequest? = null,
        oneShot: Boolean = false,
        idempotencyKey: String? = null,
        deadlineMs: Long? = null,
        seed: Long? = null,
        body: (Host<T>) -> R,
    ): R {
        // The wire binds its native functions and checks the library's version on first use: before the clock
        // starts, so a process's first operation does not spend its total timeout on that.
        Wire.ready()
        val options = OperationOptions(seed, idempotencyKey, deadlineMs, dependency, null, oneShot, http)
        val driverOptions = DriverOptions(stats = stats, recordEvents = onDecision != null, returnsResponses = http != null)
        val driver = if (request != null) Driver(policy, clock.nowMs(), options, driverOptions, request.incoming) else Driver(policy, clock.nowMs(), options, driverOptions)
        return driver.use { body(Host(it, clock, io, onDecision, outcomeOfError, request)) }
    }

    /**
     * [retrying] under these options, its endings naming the operation
     * [operation], inside the request being served [context] (blocking code
     * passes it) or else the calling coroutine's, as `RetryingHttpClient` does.
     */
    suspend fun <T> retryingNamed(
        operation: String,
        idempotencyKey: String?,
        deadlineMs: Long?,
        seed: Long?,
        outcomeOfResult: ((T) -> Outcome?)?,
        onDiscard: (T) -> Unit,
        context: RequestContext?,
        block: suspend (Attempt) -> T,
    ): T {
        // A lambda, not `::failureOf`: a function reference loads Kotlin's reflection classes on a process's first call.
        val io = Io(null, { failureOf(it) }, { false }, onDiscard, outcomeOfResult)
        val served = context ?: RequestContext.current()
        return operate(io, served, idempotencyKey = idempotencyKey, deadlineMs = deadlineMs, seed = seed) { it.run(block).valueOrThrow(operation) }
    }
}

/**
 * Runs [block] once per attempt the core starts and returns the winner's value.
 *
 * - Attempts are child coroutines of the caller; waits are `delay`-like and
 *   cancellable. With a hedging policy a hedge starts beside a running attempt;
 *   when one wins, the others are cancelled and their values (if they still
 *   produce one) passed to [onDiscard] (by default closed when [AutoCloseable]).
 * - An attempt still running at its `abortAtMs` is cancelled and counted as
 *   `timed_out`.
 * - An attempt that throws is read by the failure table ([failureOf]), else by
 *   [outcomeOfError] (an [Outcome], or null for the default: the core's verdict
 *   for an unknown error, `AMBIGUOUS`, retried unless the policy is `unsafe`).
 *   When it answers [Outcome.Success] for an error, the operation succeeds
 *   with no value and `retrying` returns null (as JS returns `undefined` and
 *   Python `None`; never the error as if the block had returned it): declare
 *   `T` nullable (or `Unit`) when the hook may do that.
 * - [deadlineMs] is a time on [clock] (by default [MonotonicClock.SYSTEM]:
 *   milliseconds since that class loaded, not `System.nanoTime()` itself):
 *   read it there, e.g. `MonotonicClock.SYSTEM.nowMs() + 600`. The deadline
 *   and each attempt's abort hold when [block] suspends (a suspending client,
 *   `delay`) or moves blocking work off its thread (`withContext(Dispatchers.IO)`,
 *   `dev.retryplan.blocking.interruptible`): a block that blocks its own
 *   thread (`Thread.sleep`, a blocking call) cannot be cancelled, and
 *   `retrying` returns only once it does.
 * - A value an attempt returns is a success, unless [outcomeOfResult] (called
 *   once with each value handed to the core) answers an [Outcome] for it: then
 *   the core judges it as that (e.g. `Outcome.Application(Verdict.RETRYABLE)`
 *   for a "try again" answer), holds it as a thrown error is held, and says
 *   whether it is returned, dropped ([onDiscard]) or raised with. An exception
 *   the hook throws propagates as it is (the operation ends, every attempt is
 *   cancelled, the value is passed to [onDiscard]).
 * - Cancelling the calling coroutine cancels the operation (it gives up,
 *   `cancelled`) and every running attempt; the CancellationException propagates.
 *   A caller already cancelled when an attempt would start (when it calls
 *   `retrying`, or between attempts) starts none: the operation gives up.
 * - A fatal error an attempt throws (a `VirtualMachineError` such as
 *   `OutOfMemoryError` or `StackOverflowError`, a `ThreadDeath`, a
 *   `LinkageError`, an `InterruptedException`: Arrow's `NonFatal`) ends the
 *   operation at once (`cancelled`, every other attempt cancelled) and
 *   propagates as it is, never retried nor wrapped. Any other `Error`
 *   (`AssertionError`, `NotImplementedError`) is an attempt's error.
 * - A cancellation an attempt raises of its own ([block] throws a
 *   `CancellationException`, `java.util.concurrent`'s on the JVM, or cancels
 *   its own coroutine) is never an attempt's failure (structured concurrency:
 *   a cancellation is not swallowed): the operation ends (`cancelled`), every
 *   other running attempt is cancelled, and it propagates unchanged. Not so
 *   the attempt the helper cancels at its `abortAtMs` (`timed_out`, retried),
 *   nor a `TimeoutCancellationException` a `withTimeout` inside [block]
 *   throws (the block's own timeout, which kotlinx.coroutines throws for the
 *   code around `withTimeout` to catch): the failure table's
 *   `attempt_timed_out`, retried.
 * - Ends without a value throw [GaveUpException], [ReconcileRequiredException]
 *   or [RestartRequiredException], with the last attempt's error as the cause,
 *   or, when the last attempt returned a value [outcomeOfResult] judged a
 *   failure, that value as [OperationFailedException.lastValue] (and no cause).
 *   That value is the caller's: it is not passed to [onDiscard]; every other
 *   value the operation does not return is.
 * - [onDiscard] is never called with null (nothing to release). An exception
 *   it throws while the operation runs ends `retrying` with that exception, as
 *   a hook's does: the operation gives up (`cancelled`), running attempts are
 *   cancelled, the other values held still go to [onDiscard], and an
 *   exception one of those throws is dropped (the first is raised). A value
 *   that arrives after the end (an aborted attempt that ignored its
 *   cancellation) still goes to [onDiscard]; an exception it throws then
 *   reaches nobody and is dropped.
 * - [onDecision] sees each decision as the core makes it; [stats] are counted by the core.
 * - Inside a request being served (a [RequestContext] in the coroutine
 *   context: [serving]), the driver starts from the caller's context (its
 *   deadline, key and retrying layer), each [Attempt.propagationHeaders]
 *   holds the headers to send, and a give-up decides the request's answer headers.
 */
suspend fun <T> retrying(
    policy: Policy,
    dependency: Dependency? = null,
    idempotencyKey: String? = null,
    deadlineMs: Long? = null,
    stats: Stats? = null,
    onDecision: ((Event) -> Unit)? = null,
    outcomeOfError: ((Throwable) -> Outcome?)? = null,
    outcomeOfResult: ((T) -> Outcome?)? = null,
    onDiscard: (T) -> Unit = { closeIfCloseable(it) },
    clock: MonotonicClock = MonotonicClock.SYSTEM,
    seed: Long? = null,
    block: suspend (Attempt) -> T,
): T = Helper(policy, dependency, stats, onDecision, outcomeOfError, clock).retryingNamed(operationName(block), idempotencyKey, deadlineMs, seed, outcomeOfResult, onDiscard, null, block)
