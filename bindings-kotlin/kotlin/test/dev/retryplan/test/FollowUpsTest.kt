package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.Policy
import dev.retryplan.ReconcileRequiredException
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import okhttp3.Credentials
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.net.Authenticator
import java.net.PasswordAuthentication
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit

/**
 * The follow-ups a client makes inside one attempt that are not redirects: OkHttp's own resend of a 503 carrying
 * `Retry-After: 0` (its RetryAndFollowUpInterceptor), and either client's answer to an authentication challenge. The
 * response the helper gets is the attempt's, and it is read as redirected only when a 3xx is among the responses
 * before it: an unkeyed POST whose 503 OkHttp resent by itself is retried (nothing says an earlier hop processed it),
 * one whose 303 OkHttp followed still reconciles. Only [LocalServer] on loopback is called.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FollowUpsTest {
    private fun policy() = Policy.fromJson(
        """{"max_attempts": 3, "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}""",
    )

    private val unavailableNow = LocalServer.Reply.Status(503, mapOf("Retry-After" to "0"))

    private fun post(server: LocalServer) = Request.Builder().url(server.uri.toString()).post(RequestBody.create(MediaType.parse("text/plain"), "order")).build()

    /** Runs [body] with an OkHttp client whose first interceptor is a [RetryInterceptor] over [policy]. */
    private fun <T> okHttp(policy: Policy, builder: OkHttpClient.Builder = OkHttpClient.Builder(), body: (OkHttpClient) -> T): T {
        val client = builder.retrying(RetryInterceptor(policy)).build()
        return try {
            body(client)
        } finally {
            client.dispatcher().executorService().shutdown()
            client.connectionPool().evictAll()
        }
    }

    @Test
    fun `OkHttp's own resend of a 503 with Retry-After 0 is one attempt, not a redirect - the POST is retried`() {
        // Requests 1 and 2 are attempt 1 (OkHttp resends the first 503 itself); request 3 is attempt 2.
        LocalServer { n -> if (n <= 2) unavailableNow else LocalServer.Reply.Status(200) }.use { server ->
            policy().use { policy ->
                okHttp(policy) { client ->
                    client.newCall(post(server)).execute().use { response ->
                        assertEquals(200, response.code())
                        assertEquals(Decision.Succeeded(2, 2, emptyList()), response.retryDecision)
                    }
                }
            }
            assertEquals(3, server.seen.size)
        }
    }

    @Test
    fun `a 303 before OkHttp's resend of a 503 is still a redirect - the unkeyed POST reconciles`() {
        LocalServer { n ->
            when (n) {
                1 -> LocalServer.Reply.Status(303, mapOf("Location" to "/orders/7"))
                2, 3 -> unavailableNow
                else -> LocalServer.Reply.Status(200)
            }
        }.use { server ->
            policy().use { policy ->
                okHttp(policy) { client ->
                    val ended = assertThrows(ReconcileRequiredException::class.java) { client.newCall(post(server)).execute().close() }
                    assertEquals(1, ended.attempts)
                }
            }
            assertEquals(3, server.seen.size)
        }
    }

    @Test
    fun `OkHttp's answer to a 401 challenge is one attempt, not a redirect - the POST is retried`() {
        val challenge = LocalServer.Reply.Status(401, mapOf("WWW-Authenticate" to "Basic realm=\"orders\""))
        LocalServer { n ->
            when (n) {
                1 -> challenge
                2 -> LocalServer.Reply.Status(503)
                else -> LocalServer.Reply.Status(200)
            }
        }.use { server ->
            policy().use { policy ->
                val signingIn = OkHttpClient.Builder().authenticator { _, response ->
                    if (response.request().header("Authorization") != null) null else response.request().newBuilder().header("Authorization", Credentials.basic("shop", "secret")).build()
                }
                okHttp(policy, signingIn) { client ->
                    client.newCall(post(server)).execute().use { response ->
                        assertEquals(200, response.code())
                        assertEquals(Decision.Succeeded(2, 2, emptyList()), response.retryDecision)
                    }
                }
            }
            assertEquals(3, server.seen.size)
        }
    }

    @Test
    fun `java-net-http's answer to a 401 challenge is one attempt, not a redirect - the POST is retried`() {
        var challenged = 0
        LocalServer { n ->
            when (n) {
                1 -> LocalServer.Reply.Status(401, mapOf("WWW-Authenticate" to "Basic realm=\"orders\""))
                2 -> LocalServer.Reply.Status(503)
                else -> LocalServer.Reply.Status(200)
            }
        }.use { server ->
            policy().use { policy ->
                val signingIn = object : Authenticator() {
                    override fun getPasswordAuthentication(): PasswordAuthentication {
                        challenged++
                        return PasswordAuthentication("shop", "secret".toCharArray())
                    }
                }
                val client = RetryingHttpClient(HttpClient.newBuilder().authenticator(signingIn).build(), policy)
                val request = HttpRequest.newBuilder(server.uri).POST(HttpRequest.BodyPublishers.ofString("order"))
                val sent = client.send(request, HttpResponse.BodyHandlers.discarding())
                assertEquals(200, sent.response.statusCode())
                assertEquals(Decision.Succeeded(2, 2, emptyList()), sent.decision)
            }
            assertTrue(challenged >= 1, "the client answered the challenge")
            assertEquals(3, server.seen.size)
        }
    }
}
