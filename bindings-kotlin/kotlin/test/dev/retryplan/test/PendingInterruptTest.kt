package dev.retryplan.test

import dev.retryplan.Policy
import dev.retryplan.blocking.blocking
import dev.retryplan.blocking.retrying
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retrying
import okhttp3.Call
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.IOException
import java.io.InterruptedIOException
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * The blocking entry points with the calling thread's interrupt flag already
 * set: each call ends with the cancellation before any attempt starts and
 * never hangs: `InterruptedException`, the flag cleared; through OkHttp its
 * `InterruptedIOException`, the flag kept set (as OkHttp does). Before the fix a cancel that landed before the loop's
 * coroutine first ran left its body unrun and the caller waiting forever (4
 * calls in 20); the timeout (its own thread, so a hung call fails the test
 * rather than hanging the suite) bounds that, and nothing here sleeps.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PendingInterruptTest {
    private val policy = Policy.fromJson("""{"max_attempts": 2, "jitter": {"kind": "none"}}""")
    private val calls = 300

    /** Port 9 (discard) on loopback: no attempt may reach it, and none does. */
    private val url = "http://127.0.0.1:9/orders"

    @AfterEach
    fun close() = policy.close()

    /** Runs [call] [calls] times, each with the interrupt flag set first; each must throw [expected] and clear the flag. */
    private fun <E : Throwable> eachInterrupted(expected: Class<E>, call: () -> Any?): List<E> = List(calls) { i ->
        Thread.currentThread().interrupt()
        val error = assertThrows(expected, { call() }, "call $i")
        assertFalse(Thread.interrupted(), "call $i: the flag is cleared, as InterruptedException clears it")
        error
    }

    @Test
    fun `the blocking retrying throws InterruptedException before attempt 1`() {
        val attempts = AtomicInteger()
        eachInterrupted(InterruptedException::class.java) { retrying(policy) { attempts.incrementAndGet() } }
        assertEquals(0, attempts.get(), "no attempt starts")
    }

    @Test
    fun `RetryingHttpClient send throws InterruptedException before attempt 1`() {
        val http = RetryingHttpClient(HttpClient.newHttpClient(), policy)
        val attempts = AtomicInteger()
        eachInterrupted(InterruptedException::class.java) {
            http.send(HttpRequest.newBuilder(URI(url)), HttpResponse.BodyHandlers.discarding()).also { attempts.incrementAndGet() }
        }
        assertEquals(0, attempts.get())
    }

    /** OkHttp's own behaviour: an interrupt ends a call with `InterruptedIOException`, the flag kept set. Before the fix: `IOException("Canceled")`, the flag cleared. */
    @Test
    fun `OkHttp execute through RetryInterceptor throws InterruptedIOException before attempt 1, the flag kept`() {
        val attempts = AtomicInteger()
        val counting = Interceptor { chain -> attempts.incrementAndGet().let { chain.proceed(chain.request()) } }
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).addInterceptor(counting).build()
        try {
            repeat(calls) { i ->
                Thread.currentThread().interrupt()
                assertThrows(InterruptedIOException::class.java, { client.newCall(Request.Builder().url(url).build()).execute().close() }, "call $i")
                assertTrue(Thread.interrupted(), "call $i: the flag is still set, as OkHttp leaves it (cleared here)")
            }
            assertEquals(0, attempts.get(), "no attempt call reached the chain")
        } finally {
            client.dispatcher().executorService().shutdown()
        }
    }

    /**
     * Interrupting (or cancelling) a call whose attempt is running, on a
     * thread of its own: the attempt is held in the chain until it is
     * interrupted, so the caller is inside the call when it is interrupted.
     */
    private fun midCall(stop: (Thread, Call) -> Unit): Pair<Throwable?, Boolean> {
        val entered = CountDownLatch(1)
        val holding = Interceptor { chain ->
            entered.countDown()
            CountDownLatch(1).await() // until the attempt is aborted (its thread interrupted)
            chain.proceed(chain.request())
        }
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).addInterceptor(holding).build()
        val pool = Executors.newSingleThreadExecutor()
        try {
            val call = client.newCall(Request.Builder().url(url).build())
            val caller = CompletableFuture<Thread>()
            val ended = pool.submit<Pair<Throwable?, Boolean>> {
                caller.complete(Thread.currentThread())
                val thrown = runCatching { call.execute().close() }.exceptionOrNull()
                thrown to Thread.interrupted()
            }
            entered.await()
            stop(caller.get(), call)
            return ended.get(10, TimeUnit.SECONDS)
        } finally {
            pool.shutdown()
            client.dispatcher().executorService().shutdown()
        }
    }

    @Test
    fun `an interrupt while an attempt runs ends the call with InterruptedIOException, the flag kept`() {
        val (thrown, flag) = midCall { thread, _ -> thread.interrupt() }
        assertTrue(thrown is InterruptedIOException, "OkHttp's type for an interrupt: $thrown")
        assertTrue(flag, "the flag is still set, as OkHttp leaves it")
    }

    @Test
    fun `Call cancel while an attempt runs ends the call with IOException Canceled, no flag set`() {
        val (thrown, flag) = midCall { _, call -> call.cancel() }
        assertTrue(thrown is IOException && thrown !is InterruptedIOException && thrown.message == "Canceled", "OkHttp's cancel: $thrown")
        assertFalse(flag)
    }

    /** A cancel that lands before the loop first runs ends the call with the cancellation, the body never run. */
    @Test
    fun `a cancel that lands before the loop first runs ends the call, the body never run`() {
        var ran = false
        assertThrows(InterruptedException::class.java) {
            blocking({ true }) { ran = true }
        }
        assertFalse(ran, "the body never ran")
    }
}
