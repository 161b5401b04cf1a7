package dev.retryplan.test

import dev.retryplan.Policy
import dev.retryplan.REQUEST_ID_HEADER
import dev.retryplan.RetryplanException
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retrying
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit

/**
 * `requestIdHeader`, as JS's `requestIdHeader` and Python's `request_id_header`: the header each attempt's fresh
 * request id goes under (`X-Request-Id` by default), renamed, or left out with null; an empty name is refused when
 * the helper is made. No request leaves the process except to [LocalServer] on loopback.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RequestIdHeaderTest {
    private fun policy() = Policy.fromJson(
        """{"max_attempts": 2, "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}""",
    )

    /** What [LocalServer] saw of each attempt under [name] (lower case), answering 503 then 200, after [send] ran. */
    private fun sentUnder(name: String, send: (LocalServer, Policy) -> Unit): List<List<String>?> = LocalServer { attempt -> LocalServer.Reply.Status(if (attempt == 1) 503 else 200) }.use { server ->
        policy().use { policy -> send(server, policy) }
        assertEquals(2, server.seen.size, "two attempts")
        server.seen.map { it.headers[name] }
    }

    private fun viaOkHttp(requestIdHeader: String?) = { server: LocalServer, policy: Policy ->
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy, requestIdHeader = requestIdHeader)).build()
        try {
            client.newCall(Request.Builder().url(server.uri.toString()).build()).execute().use { assertEquals(200, it.code()) }
        } finally {
            client.dispatcher().executorService().shutdown()
            client.connectionPool().evictAll()
        }
    }

    private fun viaHttpClient(requestIdHeader: String?) = { server: LocalServer, policy: Policy ->
        val client = RetryingHttpClient(HttpClient.newHttpClient(), policy, requestIdHeader = requestIdHeader)
        assertEquals(200, client.send(HttpRequest.newBuilder(server.uri), HttpResponse.BodyHandlers.discarding()).response.statusCode())
    }

    /** Each attempt carried one fresh 16-hex-digit id. */
    private fun assertFreshIds(sent: List<List<String>?>) {
        assertTrue(sent.all { it != null && it.size == 1 && Regex("[0-9a-f]{16}").matches(it[0]) }, "$sent")
        assertNotEquals(sent[0], sent[1])
    }

    @Test
    fun `by default each attempt's id goes as X-Request-Id`() {
        assertEquals("X-Request-Id", REQUEST_ID_HEADER)
        assertFreshIds(sentUnder("x-request-id", viaOkHttp(REQUEST_ID_HEADER)))
        assertFreshIds(sentUnder("x-request-id", viaHttpClient(REQUEST_ID_HEADER)))
    }

    @Test
    fun `a requestIdHeader renames it, and X-Request-Id is not sent`() {
        for (send in listOf(viaOkHttp("Trace-Id"), viaHttpClient("Trace-Id"))) {
            assertFreshIds(sentUnder("trace-id", send))
            assertEquals(listOf(null, null), sentUnder("x-request-id", send))
        }
    }

    @Test
    fun `a null requestIdHeader leaves the id out`() {
        for (send in listOf(viaOkHttp(null), viaHttpClient(null))) assertEquals(listOf(null, null), sentUnder("x-request-id", send))
    }

    @Test
    fun `an empty requestIdHeader is refused when the helper is made, naming it`() {
        policy().use { policy ->
            val refusals = listOf(
                assertThrows(RetryplanException.InvalidArgument::class.java) { RetryInterceptor(policy, requestIdHeader = "") },
                assertThrows(RetryplanException.InvalidArgument::class.java) { RetryingHttpClient(HttpClient.newHttpClient(), policy, requestIdHeader = "") },
            )
            for (refused in refusals) {
                assertEquals("requestIdHeader", refused.field)
                assertEquals("invalid argument `requestIdHeader`: must be a header name (a non-empty string), or null to leave the header out, got \"\"", refused.message)
            }
        }
    }
}
