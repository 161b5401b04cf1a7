package dev.retryplan

import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.Future
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/*
 * The host side of the engine's loop: it does the I/O and the sleeping the
 * decisions ask for, and nothing else. Every rule (how long to wait, whether
 * to try again or hedge, why to stop) is decided by the compiled core.
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
    /** True for a hedge started beside a running attempt. */
    val hedge: Boolean,
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
 * of the deciding attempt (the winner when it succeeded, else the last one
 * reported), its outcome, and the idempotency key (to reconcile by).
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
 * Without hedging, [block] runs on the calling thread, one attempt at a time.
 * With a hedging policy, attempts run on worker threads so a hedge can start
 * while an earlier attempt is still running; the attempts the engine says to
 * abort (and any attempt still running at its `abortAtMs`, reported as timed
 * out) are interrupted.
 *
 * Cancellation: interrupting the calling thread (while it sleeps or waits, or
 * when [block] throws `InterruptedException` on it) reports cancellation to
 * the engine, which ends with `GaveUp(reason = CANCELLED)`; the interrupt
 * flag is restored. Any other exception from [block] cancels the operation
 * and propagates. [stats], if given, counts every decision.
 */
fun <T> retrying(
    policy: Policy,
    options: OperationOptions = OperationOptions(),
    stats: Stats? = null,
    clock: MonotonicClock = MonotonicClock.SYSTEM,
    block: (Attempt) -> Reported<T>,
): RetryResult<T> = Operation(policy, clock.nowMs(), options).use { operation ->
    val loop = Loop(operation, stats, clock, block)
    if (policy.hasHedging()) loop.runConcurrently() else loop.runInline()
}

private class Loop<T>(
    val operation: Operation,
    val stats: Stats?,
    val clock: MonotonicClock,
    val block: (Attempt) -> Reported<T>,
) {
    val key = operation.idempotencyKey()
    val results = mutableMapOf<Int, Reported<T>>()
    var last: Reported<T>? = null

    fun record(decision: Decision): Decision = decision.also { stats?.record(it) }

    fun attempt(start: Decision.StartAttempt) = Attempt(
        start.attempt, start.timeoutMs, start.abortAtMs, start.requestId, key, start.remainingBudgetMs, start.hedge,
    )

    fun report(attempt: Int, reported: Reported<T>): Decision {
        results[attempt] = reported
        last = reported
        return record(operation.onOutcome(clock.nowMs(), attempt, reported.outcome))
    }

    fun cancel(): Decision = record(operation.cancel(clock.nowMs()))

    fun end(ending: Decision): RetryResult<T> {
        val decisive = (ending as? Decision.Succeeded)?.let { results[it.winner] } ?: last
        return RetryResult(ending, decisive?.value, decisive?.outcome, key, operation.attemptsStarted())
    }

    /** Sleeps until [untilMs]; false when interrupted (the flag is restored). */
    fun sleepUntil(untilMs: Long): Boolean = try {
        val remaining = untilMs - clock.nowMs()
        if (remaining > 0) Thread.sleep(remaining)
        true
    } catch (interrupted: InterruptedException) {
        Thread.currentThread().interrupt()
        false
    }

    fun runInline(): RetryResult<T> {
        var decision = record(operation.poll(clock.nowMs()))
        while (true) {
            decision = when (val d = decision) {
                is Decision.StartAttempt -> {
                    val reported = if (Thread.currentThread().isInterrupted) {
                        Reported(Outcome.Cancelled, null)
                    } else {
                        try {
                            block(attempt(d))
                        } catch (interrupted: InterruptedException) {
                            Thread.currentThread().interrupt()
                            Reported(Outcome.Cancelled, null)
                        } catch (error: Throwable) {
                            cancel()
                            throw error
                        }
                    }
                    report(d.attempt, reported)
                }
                is Decision.Wait -> if (sleepUntil(d.untilMs)) record(operation.poll(clock.nowMs())) else cancel()
                // One attempt at a time: its outcome is always reported before the next poll.
                is Decision.AwaitOutcome -> error("no attempt should be running: $d")
                is Decision.Succeeded, is Decision.GaveUp, is Decision.Reconcile, is Decision.Restart -> return end(d)
            }
        }
    }

    private class Done<T>(val attempt: Int, val reported: Reported<T>?, val error: Throwable?)

    fun runConcurrently(): RetryResult<T> {
        val pool: ExecutorService = Executors.newCachedThreadPool { r -> Thread(r, "retrying-attempt").apply { isDaemon = true } }
        val done = LinkedBlockingQueue<Done<T>>()
        val running = mutableMapOf<Int, Pair<Future<*>, Long>>() // attempt -> (task, abortAtMs)
        fun abort(attempts: Collection<Int>) = attempts.forEach { running.remove(it)?.first?.cancel(true) }
        try {
            var decision = record(operation.poll(clock.nowMs()))
            while (true) {
                decision = when (val d = decision) {
                    is Decision.StartAttempt -> {
                        val attempt = attempt(d)
                        running[d.attempt] = pool.submit {
                            done.put(
                                try {
                                    Done(d.attempt, block(attempt), null)
                                } catch (interrupted: InterruptedException) {
                                    Done(d.attempt, Reported(Outcome.Cancelled, null), null)
                                } catch (error: Throwable) {
                                    Done(d.attempt, null, error)
                                },
                            )
                        } to d.abortAtMs
                        record(operation.poll(clock.nowMs()))
                    }
                    is Decision.AwaitOutcome -> {
                        val now = clock.nowMs()
                        val overdue = running.filterValues { (_, abortAt) -> abortAt <= now }.keys.minOrNull()
                        if (overdue != null) {
                            // The engine said to abort it at its abortAtMs: it timed out.
                            abort(listOf(overdue))
                            report(overdue, Reported(Outcome.Transport(TransportFailure.TIMED_OUT), null))
                        } else {
                            var interrupted = false
                            val next = try {
                                done.poll(maxOf(0, d.untilMs - now), TimeUnit.MILLISECONDS)
                            } catch (e: InterruptedException) {
                                Thread.currentThread().interrupt()
                                interrupted = true
                                null
                            }
                            when {
                                interrupted -> cancel()
                                next == null -> record(operation.poll(clock.nowMs()))
                                // An attempt aborted as timed out may still finish: already reported.
                                running.remove(next.attempt) == null -> record(operation.poll(clock.nowMs()))
                                next.error != null -> {
                                    cancel()
                                    throw next.error
                                }
                                else -> report(next.attempt, next.reported!!)
                            }
                        }
                    }
                    is Decision.Wait -> if (sleepUntil(d.untilMs)) record(operation.poll(clock.nowMs())) else cancel()
                    is Decision.Succeeded -> return end(d).also { abort(d.abortAttempts) }
                    is Decision.GaveUp -> return end(d).also { abort(d.abortAttempts) }
                    is Decision.Reconcile -> return end(d).also { abort(d.abortAttempts) }
                    is Decision.Restart -> return end(d).also { abort(d.abortAttempts) }
                }
            }
        } finally {
            abort(running.keys.toList())
            pool.shutdownNow()
        }
    }
}
