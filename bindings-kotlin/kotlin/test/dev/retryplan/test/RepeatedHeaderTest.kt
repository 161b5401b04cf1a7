package dev.retryplan.test

import dev.retryplan.Policy
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retrying
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit

/**
 * A guidance header sent as two field lines (`Retry-After: 5` and `Retry-After: 60`) is read by both HTTP helpers as
 * every binding reads it: its lines joined by ", " ("5, 60", which asks for no wait), not its first line (the JDK's
 * `firstValue`: 5 s) nor its last (OkHttp's `header`: 60 s). Either wait is longer than the policy's 3 s, so a
 * helper that read one line would give up after one request; read as no guidance, the 503 is retried at once.
 * Only [LocalServer] on loopback is called.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RepeatedHeaderTest {
    private fun policy() = Policy.fromJson(
        """{"max_attempts": 2, "total_timeout_ms": 3000, "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}""",
    )

    /** Request 1: a 503 whose Retry-After comes as two lines (the server folds the names' case into one header); then 200. */
    private fun server() = LocalServer { n -> if (n == 1) LocalServer.Reply.Status(503, mapOf("Retry-After" to "5", "retry-after" to "60")) else LocalServer.Reply.Status(200) }

    @Test
    fun `java-net-http joins a repeated header's lines`() {
        server().use { server ->
            policy().use { policy ->
                val client = RetryingHttpClient(HttpClient.newHttpClient(), policy)
                val answered = client.send(HttpRequest.newBuilder(server.uri).GET(), HttpResponse.BodyHandlers.discarding())
                assertEquals(200, answered.response.statusCode())
            }
            assertEquals(2, server.seen.size)
        }
    }

    @Test
    fun `OkHttp joins a repeated header's lines`() {
        server().use { server ->
            policy().use { policy ->
                val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
                try {
                    client.newCall(Request.Builder().url(server.uri.toString()).build()).execute().use { assertEquals(200, it.code()) }
                } finally {
                    client.dispatcher().executorService().shutdown()
                    client.connectionPool().evictAll()
                }
            }
            assertEquals(2, server.seen.size)
        }
    }
}
