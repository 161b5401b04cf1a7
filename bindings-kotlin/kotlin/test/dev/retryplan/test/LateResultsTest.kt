package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.GaveUpException
import dev.retryplan.GiveUpReason
import dev.retryplan.Policy
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import okio.BufferedSink
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse

/**
 * A late or aborted attempt's result can never reach the caller: against an
 * endpoint slower than the whole budget, with each request's own timeout
 * equal to its abort time (the helpers set both from the same plan), the
 * client's timeout exception and the driver's abort race on every run. Every
 * run must end with the typed ending, never the client's raw exception
 * (issue 23: a raw `SocketTimeoutException` from the OkHttp interceptor, a
 * raw `HttpTimeoutException` from the `HttpClient` adapter). No timing is
 * asserted: only what the caller gets.
 */
class LateResultsTest {
    private val runs = 25

    /** Two attempts of 60 ms within a 150 ms budget, against a server that answers after 400 ms. */
    private fun policy() = Policy.fromJson(
        """{"max_attempts": 2, "total_budget_ms": 150, "attempt_timeout": {"fixed_ms": 60},
            "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10,
            "backoff": {"kind": "constant", "base_ms": 1}, "jitter": {"kind": "none"}}""",
    )

    private fun slowServer() = LocalServer { LocalServer.Reply.Stall(400) }

    /** What each run ended with, as a class name: only the typed ending may appear. */
    private fun assertOnlyTypedEndings(seen: List<Throwable?>) {
        val kinds = seen.groupingBy { it?.javaClass?.name ?: "a response" }.eachCount()
        assertEquals(setOf(GaveUpException::class.java.name), kinds.keys, "what $runs runs ended with: $kinds")
    }

    @Test
    fun `okhttp never lets a timed out attempt's exception reach the caller`() {
        slowServer().use { server ->
            policy().use { policy ->
                val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
                val seen = (1..runs).map {
                    runCatching { client.newCall(Request.Builder().url(server.uri.toString()).build()).execute().close() }.exceptionOrNull()
                }
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
                val seen = (1..runs).map {
                    runCatching { client.send(HttpRequest.newBuilder(server.uri), HttpResponse.BodyHandlers.discarding()) }.exceptionOrNull()
                }
                assertOnlyTypedEndings(seen)
            }
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
