package dev.retryplan.blocking

import dev.retryplan.Attempt
import dev.retryplan.Dependency
import dev.retryplan.Event
import dev.retryplan.Handoff
import dev.retryplan.Helper
import dev.retryplan.MonotonicClock
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RequestContext
import dev.retryplan.Stats
import dev.retryplan.closeIfCloseable
import dev.retryplan.operationName
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.launch
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext

/*
 * The blocking layer, for plain JVM code: the same host loop, run on the
 * calling thread itself (an event loop there, as `runBlocking` runs one), with
 * each attempt's blocking work on a thread of its own, interrupted when the
 * attempt is aborted. Nothing here decides anything.
 */

/** Threads that run blocking attempts (and a loop's last steps after its call returned): daemon, made as needed, kept a minute when idle. */
private val attemptThreads: ExecutorService = Executors.newCachedThreadPool { task ->
    Thread(task, "retryplan-attempt").apply { isDaemon = true }
}

/**
 * Runs blocking [work] on an attempt thread and suspends until it ends.
 * Cancelling the caller calls [onCancel] (e.g. an HTTP call's `cancel`) and
 * interrupts the thread; a value [work] still returns then goes to [dispose].
 */
suspend fun <T> interruptible(dispose: (T) -> Unit = ::closeIfCloseable, onCancel: () -> Unit = {}, work: () -> T): T {
    val handoff = Handoff(dispose)
    val task = attemptThreads.submit {
        try {
            handoff.succeed(work())
        } catch (error: Throwable) {
            handoff.fail(error)
        }
    }
    return handoff.await {
        onCancel()
        task.cancel(true)
    }
}

/**
 * The dispatcher of one [blocking] call: its coroutines' steps queue here and
 * the calling thread runs them, so the loop needs no thread of a shared pool
 * (a caller on `Dispatchers.Default`, a WorkManager `CoroutineWorker` or a
 * `withContext(Default) { call.execute() }`, parks that pool's threads; a loop
 * queued behind them would never run). Once the call has returned, a step
 * still dispatched (an abandoned attempt's coroutine ending) runs on an
 * attempt thread.
 */
private class CallerThreadLoop : CoroutineDispatcher() {
    private val steps = LinkedBlockingQueue<Runnable>()
    private var closed = false

    override fun dispatch(context: CoroutineContext, block: Runnable) {
        synchronized(this) {
            if (!closed) {
                steps.add(block)
                return
            }
        }
        attemptThreads.execute(block)
    }

    /** Runs the next step, waiting for one up to [waitMs] (null: for as long as it takes); false when none came. Interruptible. */
    fun runNext(waitMs: Long?): Boolean {
        val step = (if (waitMs == null) steps.take() else steps.poll(waitMs, TimeUnit.MILLISECONDS)) ?: return false
        step.run()
        return true
    }

    /** Runs the steps already queued (the operation's attempts ending their cancellation: an aborted call, an interrupted thread), then closes. */
    fun close() {
        while (true) {
            val step = synchronized(this) { steps.poll() ?: null.also { closed = true } } ?: return
            step.run()
        }
    }
}

/** Wakes [CallerThreadLoop.runNext] when the loop's job completes off the calling thread. */
private val NOTHING = Runnable {}

/**
 * Runs [body] (a helper's loop) on the calling thread, an event loop there
 * (as `runBlocking` runs one), until it ends: it never needs a free thread of
 * a shared pool, so a caller on `Dispatchers.Default` (every one of its
 * threads blocked here at once) still ends. Interrupting the thread, or
 * [cancelled] answering true (checked before the loop's first step, between
 * steps, and every 20 ms while it waits), cancels it; then, once the loop has
 * ended (the operation cancelled, every attempt aborted), this throws what
 * [onInterrupted] returns for an interrupt (by default what [onCancelled]
 * returns) and what [onCancelled] returns otherwise (by default
 * `InterruptedException`). An interrupt already pending when it is called
 * (the thread's flag set) throws at once, [body] never run (no attempt
 * started). Java's convention holds for the flag: an `InterruptedException`
 * thrown for an interrupt leaves it cleared, as the JDK's blocking calls do;
 * anything else (OkHttp's `InterruptedIOException`) leaves it set, as it is
 * too when [body] ends of its own after an interrupt. A cancel that lands
 * before [body] first runs ends the call the same way, [body] never run.
 */
fun <T> blocking(
    cancelled: (() -> Boolean)? = null,
    onCancelled: () -> Throwable = { InterruptedException("retryplan: the operation was cancelled") },
    onInterrupted: () -> Throwable = onCancelled,
    body: suspend () -> T,
): T {
    if (Thread.interrupted()) throw interruption(onInterrupted)
    val loop = CallerThreadLoop()
    var value: Result<T>? = null
    val job = CoroutineScope(loop).launch {
        try {
            value = Result.success(body())
        } catch (error: Throwable) {
            value = Result.failure(error)
        }
    }
    // Completes whether or not its body ran: a job cancelled before it was first dispatched never runs its body.
    job.invokeOnCompletion { loop.dispatch(EmptyCoroutineContext, NOTHING) }
    var interrupted = false
    var cancel = cancelled
    try {
        while (!job.isCompleted) {
            try {
                if (cancel != null && cancel()) {
                    cancel = null // asked no more: the loop is ending
                    job.cancel()
                }
                loop.runNext(if (cancel == null) null else 20)
            } catch (interrupt: InterruptedException) {
                interrupted = true
                job.cancel()
            }
        }
    } finally {
        loop.close()
    }
    // No value: the job was cancelled before its body ran.
    val result = value ?: throw if (interrupted) interruption(onInterrupted) else onCancelled()
    if (result.exceptionOrNull() is CancellationException && (interrupted || job.isCancelled)) {
        throw if (interrupted) interruption(onInterrupted) else onCancelled()
    }
    if (interrupted) Thread.currentThread().interrupt()
    return result.getOrThrow()
}

/** What [onInterrupted] returns for an interrupt; the flag set again unless it is an `InterruptedException` (Java's convention). */
private fun interruption(onInterrupted: () -> Throwable): Throwable = onInterrupted().also {
    if (it !is InterruptedException) Thread.currentThread().interrupt()
}

/** The signature before `onInterrupted`: kept so code compiled against it still links. */
@Deprecated("kept for binary compatibility: call blocking, which takes onInterrupted", level = DeprecationLevel.HIDDEN)
fun <T> blocking(
    cancelled: (() -> Boolean)? = null,
    onCancelled: () -> Throwable = { InterruptedException("retryplan: the operation was cancelled") },
    body: suspend () -> T,
): T = blocking(cancelled, onCancelled, onCancelled, body)

/**
 * The blocking [dev.retryplan.retrying], for plain JVM code: the same loop
 * and rules, the loop run on the calling thread (so a call from every thread
 * of `Dispatchers.Default` at once still ends: [blocking]), with each attempt
 * of [block] on a thread of its own (so a hedge runs beside it and an attempt
 * past its `abortAtMs` is interrupted). A fatal error [block] throws
 * (`OutOfMemoryError`, an `InterruptedException` of its own: the suspend
 * one's rule) propagates as it is, at once.
 * Interrupting the calling thread cancels the operation (it gives up,
 * `cancelled`) and every attempt, then throws `InterruptedException`; an
 * interrupt already pending when it is called throws `InterruptedException`
 * at once, before any attempt (the flag cleared, as the JDK's blocking calls do).
 * [deadlineMs] is a time on [clock] (by default [MonotonicClock.SYSTEM]:
 * milliseconds since that class loaded, not `System.nanoTime()` itself): read
 * it there, e.g. `MonotonicClock.SYSTEM.nowMs() + 600`.
 * When [outcomeOfError] answers [Outcome.Success] for a thrown error, the
 * operation succeeds with no value and this returns null (as JS returns
 * `undefined` and Python `None`): declare `T` nullable (or `Unit`) when the
 * hook may do that.
 * A `CancellationException` [block] throws (a cancelled `Future`'s `get()`)
 * ends the operation (`cancelled`) and propagates unchanged, as in the suspend one.
 * [outcomeOfResult] judges each value an attempt returns (an [Outcome], or
 * null for a success) as in the suspend one; an ending raised with such a
 * value carries it as `lastValue`, the caller's (not passed to [onDiscard]).
 * [onDiscard] follows the suspend one's rules: never called with null; an
 * exception it throws while the operation runs ends `retrying` with it (the
 * other values held still released, a second exception dropped). A value an
 * aborted attempt's thread returns after its abort goes to [onDiscard] on that
 * thread, an exception it throws dropped.
 *
 * Inside a request being served, pass its [context] (blocking code has no
 * coroutine context to carry it; as `RetryingHttpClient.send(..., context)`):
 * the driver starts from the caller's context (its deadline, key and retrying
 * layer: one attempt when the caller retries), each `Attempt.propagationHeaders`
 * holds the headers to send, and a give-up decides the request's answer
 * headers, as the suspend one does inside `serving {}`.
 */
fun <T> retrying(
    policy: Policy,
    dependency: Dependency? = null,
    idempotencyKey: String? = null,
    deadlineMs: Long? = null,
    stats: Stats? = null,
    onDecision: ((Event) -> Unit)? = null,
    outcomeOfError: ((Throwable) -> Outcome?)? = null,
    outcomeOfResult: ((T) -> Outcome?)? = null,
    onDiscard: (T) -> Unit = ::closeIfCloseable,
    clock: MonotonicClock = MonotonicClock.SYSTEM,
    seed: Long? = null,
    context: RequestContext? = null,
    block: (Attempt) -> T,
): T = blocking {
    val helper = Helper(policy, dependency, stats, onDecision, outcomeOfError, clock)
    helper.retryingNamed(operationName(block), idempotencyKey, deadlineMs, seed, outcomeOfResult, onDiscard, context) { attempt ->
        // An aborted attempt's value its thread still returns goes to onDiscard there (never null), its exception dropped.
        interruptible({ if (it != null) onDiscard(it) }) { block(attempt) }
    }
}

/** The signature before `context`: kept so code compiled against it still links. */
@Deprecated("kept for binary compatibility: call retrying, which takes a context", level = DeprecationLevel.HIDDEN)
fun <T> retrying(
    policy: Policy,
    dependency: Dependency? = null,
    idempotencyKey: String? = null,
    deadlineMs: Long? = null,
    stats: Stats? = null,
    onDecision: ((Event) -> Unit)? = null,
    outcomeOfError: ((Throwable) -> Outcome?)? = null,
    outcomeOfResult: ((T) -> Outcome?)? = null,
    onDiscard: (T) -> Unit = ::closeIfCloseable,
    clock: MonotonicClock = MonotonicClock.SYSTEM,
    seed: Long? = null,
    block: (Attempt) -> T,
): T = retrying(policy, dependency, idempotencyKey, deadlineMs, stats, onDecision, outcomeOfError, outcomeOfResult, onDiscard, clock, seed, null, block)
