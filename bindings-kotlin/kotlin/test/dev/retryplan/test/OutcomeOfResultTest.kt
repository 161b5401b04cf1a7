package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.Event
import dev.retryplan.GaveUpException
import dev.retryplan.GiveUpReason
import dev.retryplan.MonotonicClock
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.ReconcileRequiredException
import dev.retryplan.Verdict
import dev.retryplan.retrying
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.Closeable
import java.util.Collections
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import dev.retryplan.blocking.retrying as retryingBlocking

/** A value an attempt returns that holds a resource: closed by the default `onDiscard`. */
private class Reply(val text: String) : Closeable {
    @Volatile var closed = false

    override fun close() {
        closed = true
    }

    override fun toString() = text
}

/** An exception the result hook throws. */
private class HookFailed : RuntimeException("the hook failed")

/** An exception `onDiscard` throws, naming the value it was releasing. */
private class DiscardFailed(text: String) : RuntimeException(text)

/** What the hook says of a nullable value: null is worth retrying, anything else a success. */
private val nullIsRetryable: (String?) -> Outcome? = { if (it == null) Outcome.Application(Verdict.RETRYABLE) else null }

/** What the hook says of a reply: "busy" is worth retrying, anything else a success (null). */
private val busyIsRetryable: (Reply) -> Outcome? = { if (it.text.startsWith("busy")) Outcome.Application(Verdict.RETRYABLE) else null }

/**
 * `retrying`'s `outcomeOfResult` (suspend and blocking): a returned value the
 * hook judges is handed to the core as a thrown error is, under its token; the
 * core says whether it is returned, dropped (`onDiscard`) or raised with, and
 * an ending raised with it carries it as `lastValue` (never closed, no cause).
 * The clock is fake and the backoff 0: nothing sleeps, nothing is timed.
 */
@Timeout(30)
class OutcomeOfResultTest {
    /** The fake clock: moved only by the attempts themselves. */
    private val now = AtomicLong(1_000)
    private val clock = MonotonicClock { now.get() }

    private fun policy(extra: String = "") = Policy.fromJson(
        """{"max_attempts": 3, "total_timeout_ms": 60000, "attempt_timeout": {"fixed_ms": 10000}, "response_reserve_ms": 0,
            "minimum_useful_attempt_ms": 10, "jitter": {"kind": "none"},
            "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}$extra}""",
    )

    @Test
    fun `a value retried until the attempts run out ends in GaveUpException carrying it as lastValue, not closed`() = runBlocking {
        val replies = Collections.synchronizedList(mutableListOf<Reply>())
        val judged = AtomicInteger()
        val ending = assertThrows(GaveUpException::class.java) {
            runBlocking {
                policy().use { policy ->
                    retrying(policy, clock = clock, outcomeOfResult = { reply: Reply -> judged.incrementAndGet().let { busyIsRetryable(reply) } }) { attempt ->
                        Reply("busy ${attempt.attempt}").also { replies += it }
                    }
                }
            }
        }
        assertEquals(GiveUpReason.ATTEMPTS_EXHAUSTED, ending.reason)
        assertEquals(3, ending.attempts)
        assertEquals(3, judged.get(), "the hook is called once with each value")
        assertSame(replies.last(), ending.lastValue)
        assertNull(ending.cause, "a value, not an error: no cause")
        assertEquals(Outcome.Application(Verdict.RETRYABLE), ending.lastOutcome)
        assertEquals(listOf(true, true, false), replies.map { it.closed }, "the dropped values are closed, the one the ending carries is the caller's")
    }

    @Test
    fun `a value the hook judges ambiguous ends without the hint about an unknown error, which speaks of an error`() {
        val ambiguous: (String) -> Outcome? = { Outcome.Application(Verdict.AMBIGUOUS) }
        val suspended = assertThrows(GaveUpException::class.java) {
            runBlocking { policy().use { policy -> retrying(policy, clock = clock, outcomeOfResult = ambiguous) { "pending" } } }
        }
        val blocking = assertThrows(GaveUpException::class.java) {
            policy().use { policy -> retryingBlocking(policy, clock = clock, outcomeOfResult = ambiguous) { "pending" } }
        }
        for (ending in listOf(suspended, blocking)) {
            assertEquals("pending", ending.lastValue)
            assertEquals(Outcome.Application(Verdict.AMBIGUOUS), ending.lastOutcome)
            assertTrue(ending.message!!.startsWith("retryplan: "), ending.message)
            assertTrue("outcomeOfError" !in ending.message!!, ending.message)
        }
    }

    @Test
    fun `the blocking retrying ends the same way, with the last value as lastValue`() {
        val replies = Collections.synchronizedList(mutableListOf<Reply>())
        val ending = assertThrows(GaveUpException::class.java) {
            policy().use { policy ->
                retryingBlocking(policy, clock = clock, outcomeOfResult = busyIsRetryable) { attempt ->
                    Reply("busy ${attempt.attempt}").also { replies += it }
                }
            }
        }
        assertEquals(3, ending.attempts)
        assertSame(replies.last(), ending.lastValue)
        assertNull(ending.cause)
        assertEquals(listOf(true, true, false), replies.map { it.closed })
    }

    @Test
    fun `a value the hook calls a success after two failures is returned, the failures discarded`() = runBlocking {
        val discarded = Collections.synchronizedList(mutableListOf<String>())
        val value = policy().use { policy ->
            retrying(policy, clock = clock, outcomeOfResult = busyIsRetryable, onDiscard = { discarded += it.text }) { attempt ->
                Reply(if (attempt.attempt < 3) "busy ${attempt.attempt}" else "ready")
            }
        }
        assertEquals("ready", value.text)
        assertTrue(!value.closed)
        assertEquals(listOf("busy 1", "busy 2"), discarded.toList())
    }

    @Test
    fun `the blocking retrying returns the value the hook answers Success for`() {
        val value = policy().use { policy ->
            retryingBlocking(policy, clock = clock, outcomeOfResult = { text: String -> if (text == "ready") Outcome.Success else Outcome.Application(Verdict.RETRYABLE) }) { attempt ->
                if (attempt.attempt < 2) "busy" else "ready"
            }
        }
        assertEquals("ready", value)
    }

    @Test
    fun `a hook that throws ends the operation with its exception, and the value is discarded`() = runBlocking {
        val failure = HookFailed()
        val calls = AtomicInteger()
        val replies = Collections.synchronizedList(mutableListOf<Reply>())
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val thrown = assertThrows(HookFailed::class.java) {
            runBlocking {
                policy().use { policy ->
                    retrying(policy, clock = clock, onDecision = { seen += it }, outcomeOfResult = { _: Reply -> throw failure }) {
                        calls.incrementAndGet()
                        Reply("any").also { replies += it }
                    }
                }
            }
        }
        assertSame(failure, thrown, "the hook's own exception, as it is")
        assertEquals(1, calls.get(), "no attempt after the hook failed")
        assertTrue(replies.single().closed, "the value never reaches the caller: discarded")
        assertEquals(GiveUpReason.CANCELLED, (seen.last().decision as Decision.GaveUp).reason, "the operation ended")
    }

    @Test
    fun `the blocking retrying propagates the hook's exception as it is`() {
        val failure = HookFailed()
        val thrown = assertThrows(HookFailed::class.java) {
            policy().use { policy -> retryingBlocking(policy, clock = clock, outcomeOfResult = { _: String -> throw failure }) { "any" } }
        }
        assertSame(failure, thrown)
    }

    @Test
    fun `with hedging, a loser's value the hook judged a failure is discarded and never surfaces`() = runBlocking {
        val discarded = Collections.synchronizedList(mutableListOf<String>())
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val hedgeStarted = CompletableDeferred<Unit>()
        val value = policy(""", "hedging": {"delay_ms": 100, "max_hedged_attempts": 1}""").use { policy ->
            retrying(policy, clock = clock, onDecision = { seen += it }, outcomeOfResult = busyIsRetryable, onDiscard = { discarded += it.text }) { attempt ->
                if (attempt.attempt == 1) {
                    // The first attempt is slow: the clock reaches the hedge's start while it runs.
                    now.addAndGet(100)
                    hedgeStarted.await()
                    Reply("busy 1")
                } else {
                    // The hedge lets the first end with its "busy" and answers after it.
                    hedgeStarted.complete(Unit)
                    yield()
                    Reply("ready ${attempt.attempt}")
                }
            }
        }
        assertEquals("ready 2", value.text)
        assertEquals(listOf("busy 1"), discarded.toList())
        val starts = seen.map { it.decision }.filterIsInstance<Decision.StartAttempt>()
        assertEquals(listOf(false, true), starts.take(2).map { it.hedge }, "the second attempt is the hedge")
        assertEquals(2, (seen.last().decision as Decision.Succeeded).winner)
    }

    @Test
    fun `outcomeOfError still judges errors beside it, and an ending after an error has its cause and no lastValue`() = runBlocking {
        val busy = IllegalStateException("busy")
        val retryable: (Throwable) -> Outcome? = { Outcome.Application(Verdict.RETRYABLE) }
        val value = policy().use { policy ->
            retrying(policy, clock = clock, outcomeOfError = retryable, outcomeOfResult = busyIsRetryable) { attempt ->
                when (attempt.attempt) {
                    1 -> throw busy
                    2 -> Reply("busy")
                    else -> Reply("ready")
                }
            }
        }
        assertEquals("ready", value.text)
        val replies = Collections.synchronizedList(mutableListOf<Reply>())
        val ending = assertThrows(GaveUpException::class.java) {
            runBlocking {
                policy().use { policy ->
                    retrying(policy, clock = clock, outcomeOfError = retryable, outcomeOfResult = busyIsRetryable) { attempt ->
                        if (attempt.attempt < 3) Reply("busy").also { replies += it } else throw busy
                    }
                }
            }
        }
        assertSame(busy, ending.cause)
        assertNull(ending.lastValue)
        assertTrue(replies.all { it.closed }, "the values before the last error are discarded")
    }

    @Test
    fun `an unsafe write whose value the hook calls ambiguous reconciles, carrying the value`() = runBlocking {
        val reply = Reply("timed out upstream")
        val ending = assertThrows(ReconcileRequiredException::class.java) {
            runBlocking {
                policy(""", "idempotency": "unsafe"""").use { policy ->
                    retrying(policy, clock = clock, outcomeOfResult = { _: Reply -> Outcome.Application(Verdict.AMBIGUOUS) }) { reply }
                }
            }
        }
        assertEquals(1, ending.attempts)
        assertSame(reply, ending.lastValue)
        assertNull(ending.cause)
        assertTrue(!reply.closed)
    }

    @Test
    fun `the caller's cancel during a wait drops the value held (onDiscard) and the call ends cancelled`() = runBlocking {
        val held = Reply("busy")
        val waiting = CompletableDeferred<Unit>()
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val slow = Policy.fromJson(
            """{"max_attempts": 3, "total_timeout_ms": 600000, "attempt_timeout": {"fixed_ms": 10000}, "response_reserve_ms": 0,
                "minimum_useful_attempt_ms": 10, "jitter": {"kind": "none"},
                "backoff": {"kind": "constant", "base_ms": 300000, "multiplier": 1.0, "cap_ms": 300000}}""",
        )
        slow.use { policy ->
            val call = launch {
                retrying(policy, clock = clock, outcomeOfResult = busyIsRetryable, onDecision = { event ->
                    seen += event
                    if (event.decision is Decision.Wait) waiting.complete(Unit)
                }) { held }
            }
            waiting.await() // the first value is held through a five-minute wait
            call.cancelAndJoin()
        }
        assertTrue(held.closed, "the value held when the caller cancelled goes to onDiscard")
        assertEquals(GiveUpReason.CANCELLED, (seen.last().decision as Decision.GaveUp).reason)
    }

    @Test
    fun `onDiscard is never called with null, a null value dropped having nothing to release`() = runBlocking {
        val discarded = Collections.synchronizedList(mutableListOf<String?>())
        val value = policy().use { policy ->
            retrying(policy, clock = clock, outcomeOfResult = nullIsRetryable, onDiscard = { discarded += it }) { attempt ->
                if (attempt.attempt < 3) null else "ready"
            }
        }
        assertEquals("ready", value)
        assertEquals(emptyList<String?>(), discarded.toList(), "the two null values dropped are not passed")
    }

    @Test
    fun `the blocking retrying never calls onDiscard with null either`() {
        val discarded = Collections.synchronizedList(mutableListOf<String?>())
        val value = policy().use { policy ->
            retryingBlocking(policy, clock = clock, outcomeOfResult = nullIsRetryable, onDiscard = { discarded += it }) { attempt ->
                if (attempt.attempt < 3) null else "ready"
            }
        }
        assertEquals("ready", value)
        assertEquals(emptyList<String?>(), discarded.toList())
    }

    /**
     * Three attempts, the first two values "busy": when the second arrives the
     * driver drops the first, and `onDiscard` (throwing for every value)
     * throws. The call ends with that first exception after two attempts; the
     * second value, still held, is released too, its exception dropped.
     */
    @Test
    fun `an onDiscard that throws ends the operation with its exception, and the other held values are still released`() = runBlocking {
        val calls = AtomicInteger()
        val discarded = Collections.synchronizedList(mutableListOf<String>())
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val thrown = assertThrows(DiscardFailed::class.java) {
            runBlocking {
                policy().use { policy ->
                    retrying(policy, clock = clock, onDecision = { seen += it }, outcomeOfResult = busyIsRetryable, onDiscard = { reply ->
                        discarded += reply.text
                        throw DiscardFailed(reply.text)
                    }) { attempt ->
                        calls.incrementAndGet()
                        Reply(if (attempt.attempt < 3) "busy ${attempt.attempt}" else "ready")
                    }
                }
            }
        }
        assertEquals("busy 1", thrown.message, "the first exception, not one thrown while the rest is released")
        assertEquals(2, calls.get(), "no attempt after onDiscard threw")
        assertEquals(listOf("busy 1", "busy 2"), discarded.toList(), "the value still held is released too")
        assertEquals(GiveUpReason.CANCELLED, (seen.last().decision as Decision.GaveUp).reason, "the operation ended")
    }

    @Test
    fun `the blocking retrying ends with the exception onDiscard throws, and still releases the other held values`() {
        val calls = AtomicInteger()
        val discarded = Collections.synchronizedList(mutableListOf<String>())
        val thrown = assertThrows(DiscardFailed::class.java) {
            policy().use { policy ->
                retryingBlocking(policy, clock = clock, outcomeOfResult = busyIsRetryable, onDiscard = { reply ->
                    discarded += reply.text
                    throw DiscardFailed(reply.text)
                }) { attempt ->
                    calls.incrementAndGet()
                    Reply(if (attempt.attempt < 3) "busy ${attempt.attempt}" else "ready")
                }
            }
        }
        assertEquals("busy 1", thrown.message)
        assertEquals(2, calls.get())
        assertEquals(listOf("busy 1", "busy 2"), discarded.toList())
    }

    /**
     * A hedge loser that ignores its cancellation returns after `retrying` has
     * returned the winner: its value still goes to `onDiscard`, and the
     * exception that throws then reaches nobody (the caller already has its
     * value; the attempt's coroutine is not the caller's child).
     */
    @Test
    fun `a value that arrives after the end still goes to onDiscard, and its exception is dropped`() = runBlocking {
        val hedgeStarted = CompletableDeferred<Unit>()
        val loserMayReturn = CompletableDeferred<Unit>()
        val lateDiscarded = CompletableDeferred<String>()
        val value = policy(""", "hedging": {"delay_ms": 100, "max_hedged_attempts": 1}""").use { policy ->
            retrying(policy, clock = clock, onDiscard = { reply: Reply ->
                lateDiscarded.complete(reply.text)
                throw DiscardFailed(reply.text)
            }) { attempt ->
                if (attempt.attempt == 1) {
                    now.addAndGet(100) // the clock reaches the hedge's start while the first runs
                    withContext(NonCancellable) {
                        hedgeStarted.await()
                        loserMayReturn.await()
                    }
                    Reply("late 1")
                } else {
                    hedgeStarted.complete(Unit)
                    Reply("ready ${attempt.attempt}")
                }
            }
        }
        assertEquals("ready 2", value.text)
        loserMayReturn.complete(Unit)
        assertEquals("late 1", lateDiscarded.await())
    }
}
