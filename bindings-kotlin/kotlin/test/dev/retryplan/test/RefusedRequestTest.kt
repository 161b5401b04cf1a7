package dev.retryplan.test

import dev.retryplan.IDEMPOTENCY_KEY_HEADER
import dev.retryplan.Policy
import dev.retryplan.RetryplanException
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.RetryInterceptorException
import dev.retryplan.okhttp.retrying
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.IOException
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse

/**
 * A request the core refuses (its own `Idempotency-Key` empty or malformed),
 * and a hook that throws, through the HTTP helpers: `RetryInterceptor` throws
 * only `IOException`s, as OkHttp's interceptors must (on OkHttp 3 anything
 * else reaches neither of `enqueue`'s callbacks), the typed error its cause;
 * `RetryingHttpClient` throws an invalid request's `IllegalArgumentException`.
 * No request leaves the process: the URL's port is never connected to.
 */
class RefusedRequestTest {
    private val policy = Policy.fromJson("""{"max_attempts": 2, "jitter": {"kind": "none"}}""")
    private val url = "http://127.0.0.1:9/orders"

    /** Keys the core refuses that both clients let through: empty, and with a control character (a tab) inside. */
    private val refusedKeys = listOf("", "order\t5001")

    @AfterEach
    fun close() = policy.close()

    private fun client(interceptor: RetryInterceptor = RetryInterceptor(policy)) = OkHttpClient.Builder().retrying(interceptor).build()

    private fun post(key: String) = Request.Builder().url(url).post(okhttp3.RequestBody.create(null, "{}")).header(IDEMPOTENCY_KEY_HEADER, key).build()

    /** The core's refusal of [key], as the interceptor throws it: an IOException, the typed error its cause, naming the header. */
    private fun assertRefusal(key: String, error: Throwable) {
        assertTrue(error is RetryInterceptorException, "${key.quoted()}: $error")
        val cause = error.cause
        assertTrue(cause is RetryplanException.InvalidArgument, "${key.quoted()}: the cause is ${error.cause}")
        assertTrue(error.message!!.contains("Idempotency-Key"), "${key.quoted()}: ${error.message}")
        assertTrue(error.message!!.startsWith("retryplan: POST $url: "), "${key.quoted()}: ${error.message}")
    }

    private fun String.quoted() = "\"" + replace("\t", "\\t") + "\""

    @Test
    fun `enqueue with a malformed Idempotency-Key calls onFailure with an IOException whose cause is the core's refusal`() {
        val client = client()
        for (key in refusedKeys) assertRefusal(key, failureOfEnqueued(client, post(key)))
    }

    @Test
    fun `execute with a malformed Idempotency-Key throws an IOException whose cause is the core's refusal`() {
        val client = client()
        for (key in refusedKeys) assertRefusal(key, assertThrows(IOException::class.java) { client.newCall(post(key)).execute() })
    }

    @Test
    fun `a hook that throws reaches enqueue's onFailure as an IOException whose cause is its exception`() {
        val thrown = IllegalStateException("the hook's own bug")
        val client = client(RetryInterceptor(policy, onDecision = { throw thrown }))
        val error = failureOfEnqueued(client, Request.Builder().url(url).build())
        assertTrue(error is RetryInterceptorException, "$error")
        assertSame(thrown, error.cause)
        assertEquals("retryplan: GET $url: $thrown", error.message)
    }

    @Test
    fun `RetryingHttpClient refuses a malformed Idempotency-Key as an invalid request, the core's refusal its cause`() {
        val http = RetryingHttpClient(HttpClient.newHttpClient(), policy)
        for (key in refusedKeys) {
            val request = HttpRequest.newBuilder(URI(url)).header(IDEMPOTENCY_KEY_HEADER, key).POST(HttpRequest.BodyPublishers.ofString("{}"))
            val error = assertThrows(IllegalArgumentException::class.java) { http.send(request, HttpResponse.BodyHandlers.discarding()) }
            assertTrue(error.cause is RetryplanException.InvalidArgument, "${key.quoted()}: the cause is ${error.cause}")
            assertTrue(error.message!!.startsWith("retryplan: POST $url: "), "${key.quoted()}: ${error.message}")
            assertTrue(error.message!!.contains("Idempotency-Key"), "${key.quoted()}: ${error.message}")
        }
    }
}
