package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.GaveUpException
import dev.retryplan.GiveUpReason
import dev.retryplan.Policy
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import dev.retryplan.retrying
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.suspendCancellableCoroutine
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import okio.BufferedSink
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.SocketTimeoutException
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.coroutines.resumeWithException

/**
 * A late or aborted attempt's result can never reach the caller: against an
 * endpoint slower than the whole budget, with each request's own timeout
 * equal to its abort time (the helpers set both from the same plan), the
 * client's timeout exception and the driver's abort race on every run
 * ([callers] at a time: more at once made the race rarer here, not more
 * frequent; before the fix 3-6 runs of 60 leaked per helper). Every run must end
 * with the typed ending, never the client's raw exception (issue 23: a raw
 * `SocketTimeoutException` from the OkHttp interceptor, a raw
 * `HttpTimeoutException` from the `HttpClient` adapter, on
 * kotlinx-coroutines 1.0, where an exception resuming a just-cancelled
 * coroutine failed its Job; test.sh runs this class with 1.0.1 and 1.8).
 * No timing is asserted: only what the caller gets.
 */
class LateResultsTest {
    private val runs = 80
    private val callers = 1

    /** Two attempts of 60 ms within a 150 ms total timeout, against a server that answers after 400 ms. */
    private fun policy() = Policy.fromJson(
        """{"max_attempts": 2, "total_timeout_ms": 150, "attempt_timeout": {"fixed_ms": 60},
            "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10,
            "backoff": {"kind": "constant", "base_ms": 1}, "jitter": {"kind": "none"}}""",
    )

    private fun slowServer() = LocalServer { LocalServer.Reply.Stall(400) }

    /** [runs] runs of [call], [callers] at a time: what each ended with (null: it returned). */
    private fun stress(call: () -> Unit): List<Throwable?> {
        val pool = Executors.newFixedThreadPool(callers)
        try {
            return (1..runs).map { pool.submit(Callable { runCatching(call).exceptionOrNull() }) }.map { it.get() }
        } finally {
            pool.shutdown()
        }
    }

    /** What each run ended with, as a class name: only the typed ending may appear (the first other one is the failure's cause). */
    private fun assertOnlyTypedEndings(seen: List<Throwable?>) {
        val kinds = seen.groupingBy { it?.javaClass?.name ?: "a response" }.eachCount()
        val raw = seen.firstOrNull { it !is GaveUpException }
        if (raw != null) throw AssertionError("what $runs runs ended with: $kinds", raw)
        assertEquals(runs, kinds[GaveUpException::class.java.name])
    }

    @Test
    fun `okhttp never lets a timed out attempt's exception reach the caller`() {
        slowServer().use { server ->
            policy().use { policy ->
                val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
                val seen = stress { client.newCall(Request.Builder().url(server.uri.toString()).build()).execute().close() }
                client.dispatcher().executorService().shutdown()
                assertOnlyTypedEndings(seen)
            }
        }
    }

    @Test
    fun `the HttpClient adapter never lets a timed out attempt's exception reach the caller`() {
        slowServer().use { server ->
            policy().use { policy ->
                val client = RetryingHttpClient(HttpClient.newHttpClient(), policy)
                val seen = stress { client.send(HttpRequest.newBuilder(server.uri), HttpResponse.BodyHandlers.discarding()) }
                assertOnlyTypedEndings(seen)
            }
        }
    }

    /**
     * The same race inside a user's own block: a callback API that fails the
     * attempt with its own timeout exactly at the attempt's abort time,
     * resuming the block's continuation with the error (which on coroutines
     * 1.0 fails the aborted attempt's Job when the abort came first).
     */
    @Test
    fun `retrying never lets an aborted attempt's late exception reach the caller`() {
        val timer = Executors.newScheduledThreadPool(2)
        try {
            policy().use { policy ->
                val seen = stress {
                    runBlocking {
                        retrying<Unit>(policy) { attempt ->
                            suspendCancellableCoroutine { continuation ->
                                timer.schedule({
                                    runCatching { continuation.resumeWithException(SocketTimeoutException("the client's own timeout")) }
                                }, attempt.timeoutMs, TimeUnit.MILLISECONDS)
                            }
                        }
                    }
                }
                assertOnlyTypedEndings(seen)
            }
        } finally {
            timer.shutdown()
        }
    }

    /**
     * A body OkHttp can send once is sent once and never hedged, and where a
     * retry was wanted the operation ends `body_not_replayable` (the core's
     * one-shot option), instead of silently running one attempt.
     */
    @Test
    fun `okhttp sends a one-shot body once and says why it did not retry`() {
        LocalServer { LocalServer.Reply.Status(503) }.use { server ->
            Policy.fromJson("""{"max_attempts": 3, "jitter": {"kind": "none"}}""").use { policy ->
                val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
                val body = object : RequestBody() {
                    override fun contentType() = MediaType.parse("text/plain")
                    override fun writeTo(sink: BufferedSink) {
                        sink.writeUtf8("once")
                    }

                    @Suppress("unused") // OkHttp 3.14+ calls it by name
                    fun isOneShot() = true
                }
                val (status, decision) = client.newCall(Request.Builder().url(server.uri.toString()).put(body).build()).execute()
                    .use { it.code() to it.retryDecision }
                client.dispatcher().executorService().shutdown()
                assertEquals(1, server.seen.size, "requests sent")
                // A PUT is idempotent: the 503 wanted a retry, which the body forbids; the last response is returned.
                assertEquals(503, status)
                assertEquals(GiveUpReason.BODY_NOT_REPLAYABLE, (decision as Decision.GaveUp).reason)
            }
        }
    }

    /**
     * A Retry-After no `Int` holds (26 digits) on a 503: OkHttp 3's own
     * follow-up step (below every application interceptor) throws
     * `NumberFormatException` reading it before the interceptor sees the
     * response. OkHttp's failure table reads that as the server's malformed
     * response (never the caller's invalid request): the typed ending, with
     * it as the cause, never the raw exception.
     */
    @Test
    fun `okhttp reads an unreadable Retry-After as a malformed response`() {
        LocalServer { LocalServer.Reply.Status(503, mapOf("Retry-After" to "12345678901234567890123456")) }.use { server ->
            Policy.fromJson("""{"max_attempts": 2, "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 1}}""").use { policy ->
                val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
                val error = runCatching { client.newCall(Request.Builder().url(server.uri.toString()).build()).execute().close() }.exceptionOrNull()
                client.dispatcher().executorService().shutdown()
                assertTrue(error is GaveUpException, "expected the typed ending, got $error")
                assertEquals(2, server.seen.size, "a malformed response is retried")
            }
        }
    }
}
