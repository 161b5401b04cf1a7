package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.Event
import dev.retryplan.GaveUpException
import dev.retryplan.GiveUpReason
import dev.retryplan.Policy
import dev.retryplan.Stats
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retrying
import dev.retryplan.retrying
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.runBlocking
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.InterruptedIOException
import java.util.Collections
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import dev.retryplan.blocking.retrying as retryingBlocking

/**
 * A fatal error an attempt throws (Failures.kt's `isFatal`: the JVM's own
 * trouble, as Arrow's `NonFatal` names it) ends the operation at once
 * (`cancelled`, every other attempt cancelled) and propagates as it is:
 * never retried, never wrapped in the typed ending. Before the fix each was
 * an unknown error, retried to the last attempt and raised inside a
 * `GaveUpException`. Every other `Error` stays an attempt's error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FatalErrorsTest {
    private val policy = Policy.fromJson(
        """{"max_attempts": 3, "total_timeout_ms": 30000, "jitter": {"kind": "none"},
            "backoff": {"kind": "constant", "base_ms": 1, "multiplier": 1.0, "cap_ms": 1}}""",
    )

    @AfterEach
    fun close() = policy.close()

    private fun fatal(): List<Throwable> = listOf(
        OutOfMemoryError("simulated"),
        StackOverflowError(),
        NoClassDefFoundError("simulated/Missing"),
        ExceptionInInitializerError("simulated"),
        InterruptedException("simulated"),
        @Suppress("DEPRECATION")
        ThreadDeath(),
    )

    @Test
    fun `a fatal error ends the suspend retrying at once, as it is, the operation cancelled`() {
        for (error in fatal()) {
            val ran = AtomicInteger()
            val seen = Collections.synchronizedList(mutableListOf<Event>())
            val stats = Stats()
            val thrown = runCatching { runBlocking { retrying<Int>(policy, stats = stats, onDecision = { seen += it }) { ran.incrementAndGet().let { throw error } } } }.exceptionOrNull()
            assertSame(error, thrown, "$error propagates as it is")
            assertEquals(1, ran.get(), "$error: never retried")
            assertEquals(GiveUpReason.CANCELLED, (seen.last().decision as Decision.GaveUp).reason)
            assertEquals(1L, stats.snapshot().gaveUp.cancelled)
            stats.close()
        }
    }

    @Test
    fun `a fatal error ends the blocking retrying at once, as it is`() {
        for (error in fatal()) {
            val ran = AtomicInteger()
            val thrown = runCatching { retryingBlocking<Int>(policy) { ran.incrementAndGet().let { throw error } } }.exceptionOrNull()
            assertSame(error, thrown, "$error propagates as it is")
            assertEquals(1, ran.get(), "$error: never retried")
            Thread.interrupted() // an InterruptedException keeps no flag on this thread; clear any, to be sure
        }
    }

    @Test
    fun `a fatal error in one attempt cancels the others`() {
        val hedged = Policy.fromJson(
            """{"max_attempts": 2, "total_timeout_ms": 30000, "attempt_timeout": {"fixed_ms": 20000}, "jitter": {"kind": "none"},
                "hedging": {"delay_ms": 1, "max_hedged_attempts": 1}}""",
        )
        val firstCancelled = CountDownLatch(1)
        val firstRunning = CountDownLatch(1)
        val oom = OutOfMemoryError("simulated")
        val thrown = runCatching {
            runBlocking {
                hedged.use { policy ->
                    retrying<Int>(policy) { attempt ->
                        if (attempt.attempt == 1) {
                            try {
                                firstRunning.countDown()
                                CompletableDeferred<Int>().await()
                            } finally {
                                firstCancelled.countDown()
                            }
                        }
                        firstRunning.await()
                        throw oom
                    }
                }
            }
        }.exceptionOrNull()
        assertSame(oom, thrown)
        assertTrue(firstCancelled.await(10, TimeUnit.SECONDS), "the other running attempt was cancelled")
    }

    @Test
    fun `any other Error is an attempt's error, retried as an unknown one`() {
        for (error in listOf(AssertionError("bug"), NotImplementedError("TODO"))) {
            val ran = AtomicInteger()
            val thrown = runCatching { runBlocking { retrying<Int>(policy) { ran.incrementAndGet().let { throw error } } } }.exceptionOrNull()
            assertTrue(thrown is GaveUpException, "$error: the typed ending: $thrown")
            assertSame(error, thrown!!.cause)
            assertEquals(3, ran.get())
        }
    }

    @Test
    fun `a fatal error reaches the OkHttp caller as it is, never wrapped, never retried`() {
        val ran = AtomicInteger()
        val oom = OutOfMemoryError("simulated")
        val throwing = Interceptor { ran.incrementAndGet().let { throw oom } }
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).addInterceptor(throwing).build()
        try {
            val thrown = runCatching { client.newCall(Request.Builder().url("http://127.0.0.1:9/orders").build()).execute() }.exceptionOrNull()
            assertSame(oom, thrown)
            assertEquals(1, ran.get())
        } finally {
            client.dispatcher().executorService().shutdown()
        }
    }

    @Test
    fun `an attempt's InterruptedException reaches the OkHttp caller as OkHttp's InterruptedIOException, the flag set`() {
        val ran = AtomicInteger()
        val interrupted = InterruptedException("simulated")
        val throwing = Interceptor { ran.incrementAndGet().let { throw interrupted } }
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).addInterceptor(throwing).build()
        try {
            val thrown = runCatching { client.newCall(Request.Builder().url("http://127.0.0.1:9/orders").build()).execute() }.exceptionOrNull()
            assertTrue(thrown is InterruptedIOException, "$thrown")
            assertSame(interrupted, thrown!!.cause)
            assertTrue(Thread.interrupted(), "the flag is set (and cleared here)")
            assertEquals(1, ran.get())
        } finally {
            assertFalse(Thread.interrupted())
            client.dispatcher().executorService().shutdown()
        }
    }
}
