package dev.retryplan.test

import dev.retryplan.IDEMPOTENCY_KEY_HEADER
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RetryplanException
import dev.retryplan.blocking.retrying
import dev.retryplan.description
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.RetryInterceptorException
import dev.retryplan.okhttp.retrying
import okhttp3.Interceptor
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Protocol
import okhttp3.Request
import okhttp3.Response
import okhttp3.ResponseBody
import okio.Buffer
import okio.BufferedSource
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.IOException
import java.net.ProtocolException
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.Collections
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * What the HTTP helpers owe their callers whatever the hooks answer and
 * however slowly a dropped body arrives: a response or an exception (never
 * null: `outcomeOfError` answering success for a thrown error is refused,
 * the error as the cause), messages in the core's words, and a dropped
 * response closed without holding up the next attempt. No request leaves
 * the process except to [LocalServer] on loopback.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class HttpHelperContractTest {
    private val policy = Policy.fromJson("""{"max_attempts": 2, "jitter": {"kind": "none"}}""")
    private val url = "http://127.0.0.1:9/orders"

    /** Calls the thrown error a success: the operation succeeds with no value. */
    private val successForErrors: (Throwable) -> Outcome? = { Outcome.Success }

    @AfterEach
    fun close() = policy.close()

    /** An application interceptor after RetryInterceptor whose every attempt throws [error] (not an IOException). */
    private fun clientThrowing(error: RuntimeException) = OkHttpClient.Builder()
        .retrying(RetryInterceptor(policy, outcomeOfError = successForErrors))
        .addInterceptor(Interceptor { throw error })
        .build()

    /** The core's refusal of an error called a success (every language's): naming `outcome_of_error`, its cause the attempt's error. */
    private fun assertRefused(refusal: Throwable?, thrown: Throwable) {
        assertTrue(refusal is RetryplanException.InvalidArgument, "$refusal")
        refusal as RetryplanException.InvalidArgument
        assertEquals("outcome_of_error", refusal.field)
        assertTrue(refusal.rule.startsWith("answered a success for a thrown error"), refusal.rule)
        assertSame(thrown, refusal.cause, "the refusal's cause is the attempt's error: $refusal")
    }

    /** The interceptor's: the refusal as the cause of an IOException naming the request. */
    private fun assertNoResponse(error: Throwable, thrown: Throwable, method: String = "GET") {
        assertTrue(error.message!!.startsWith("retryplan: $method $url: "), error.message)
        assertTrue(error.message!!.contains("outcome_of_error"), error.message)
        assertRefused(error.cause, thrown)
    }

    @Test
    fun `the blocking retrying returns null when outcomeOfError calls the error a success`() {
        // The rule every language keeps (Python's test_an_error_the_hook_calls_a_success_returns_no_value).
        val value: Int? = retrying(policy, outcomeOfError = successForErrors) { throw IllegalStateException("not found") }
        assertNull(value)
    }

    @Test
    fun `OkHttp execute refuses a success with no response as a RetryInterceptorException`() {
        val thrown = IllegalStateException("the attempt's own error")
        val client = clientThrowing(thrown)
        try {
            val error = assertThrows(RetryInterceptorException::class.java) { client.newCall(Request.Builder().url(url).build()).execute().close() }
            assertNoResponse(error, thrown)
        } finally {
            client.dispatcher().executorService().shutdown()
        }
    }

    @Test
    fun `OkHttp enqueue calls onFailure for a success with no response`() {
        val thrown = IllegalStateException("the attempt's own error")
        val client = clientThrowing(thrown)
        try {
            val error = failureOfEnqueued(client, Request.Builder().url(url).build())
            assertTrue(error is RetryInterceptorException, "$error")
            assertNoResponse(error, thrown)
        } finally {
            client.dispatcher().executorService().shutdown()
        }
    }

    @Test
    fun `RetryingHttpClient refuses a success with no response as an IllegalStateException, the core's refusal its cause`() {
        val thrown = IllegalStateException("the body handler's own error")
        LocalServer { LocalServer.Reply.Status(200) }.use { server ->
            val http = RetryingHttpClient(HttpClient.newHttpClient(), policy, outcomeOfError = successForErrors)
            val failing = HttpResponse.BodyHandler<String> { throw thrown }
            val error = assertThrows(IllegalStateException::class.java) { http.send(HttpRequest.newBuilder(server.uri), failing) }
            assertTrue(error.message!!.startsWith("retryplan: GET ${server.uri}: "), error.message)
            assertRefused(error.cause, thrown)
        }
    }

    @Test
    fun `OkHttp's end of a redirect loop is rethrown unchanged, never retried, as Python's clients and JS raise theirs`() {
        LocalServer { LocalServer.Reply.Status(302, mapOf("Location" to "/loop")) }.use { server ->
            val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
            try {
                val request = Request.Builder().url(server.uri.toString()).build()
                val error = assertThrows(ProtocolException::class.java) { client.newCall(request).execute() }
                assertEquals("Too many follow-up requests: 21", error.message)
                assertEquals(21, server.seen.size, "one attempt: the request and its 20 follow-ups")
            } finally {
                client.dispatcher().executorService().shutdown()
            }
        }
    }

    @Test
    fun `the helpers' refusal of a request says the core's words, not the error's fields`() {
        val post = Request.Builder().url(url).post(okhttp3.RequestBody.create(null, "{}")).header(IDEMPOTENCY_KEY_HEADER, "").build()
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
        try {
            val viaOkHttp = assertThrows(RetryInterceptorException::class.java) { client.newCall(post).execute() }
            val cause = viaOkHttp.cause as RetryplanException.InvalidArgument
            assertEquals("retryplan: POST $url: ${cause.description}", viaOkHttp.message)
        } finally {
            client.dispatcher().executorService().shutdown()
        }
        val http = RetryingHttpClient(HttpClient.newHttpClient(), policy)
        val request = HttpRequest.newBuilder(URI(url)).header(IDEMPOTENCY_KEY_HEADER, "").POST(HttpRequest.BodyPublishers.ofString("{}"))
        val viaHttpClient = assertThrows(IllegalArgumentException::class.java) { http.send(request, HttpResponse.BodyHandlers.discarding()) }
        val cause = viaHttpClient.cause as RetryplanException.InvalidArgument
        assertEquals("retryplan: POST $url: ${cause.description}", viaHttpClient.message)
        assertFalse(viaHttpClient.message!!.contains("code="), viaHttpClient.message)
    }

    /**
     * A dropped failed response is closed off the loop's thread: each 503's
     * body, when closed, waits (as OkHttp's discard of a body still arriving
     * does, up to 100 ms) until the third attempt has been sent. Closed on the
     * loop's thread, the first 503's close (when the second 503 replaces it)
     * would hold the loop that starts that attempt, and wait out its bound.
     */
    @Test
    fun `closing a dropped response does not hold up the next attempt`() {
        val statuses = listOf(503, 503, 200)
        val sent = AtomicInteger()
        val thirdSent = CountDownLatch(1)
        val closes = CountDownLatch(2)
        val waitedOut = Collections.synchronizedList(ArrayList<Int>())

        /** A body still arriving: its close waits for the third attempt (bounded only so a regression fails, not hangs). */
        fun slowBody(attempt: Int) = object : ResponseBody() {
            override fun contentType(): MediaType? = null

            override fun contentLength(): Long = 100

            override fun source(): BufferedSource = Buffer()

            override fun close() {
                if (!thirdSent.await(20, TimeUnit.SECONDS)) waitedOut += attempt
                closes.countDown()
            }
        }
        val answering = Interceptor { chain ->
            val attempt = sent.incrementAndGet()
            if (attempt == 3) thirdSent.countDown()
            val status = statuses[attempt - 1]
            Response.Builder().request(chain.request()).protocol(Protocol.HTTP_1_1).code(status).message("X")
                .body(if (status == 503) slowBody(attempt) else ResponseBody.create(null, "ok")).build()
        }
        Policy.fromJson(
            """{"max_attempts": 3, "total_timeout_ms": 60000, "attempt_timeout": {"fixed_ms": 30000}, "response_reserve_ms": 0,
                "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 1, "multiplier": 1.0, "cap_ms": 1}}""",
        ).use { retries ->
            val client = OkHttpClient.Builder().retrying(RetryInterceptor(retries)).addInterceptor(answering).build()
            try {
                client.newCall(Request.Builder().url(url).build()).execute().use { assertEquals(200, it.code()) }
                closes.await()
                assertEquals(emptyList<Int>(), waitedOut.toList(), "the close of these attempts' responses held up attempt 3")
            } finally {
                client.dispatcher().executorService().shutdown()
            }
        }
    }
}
