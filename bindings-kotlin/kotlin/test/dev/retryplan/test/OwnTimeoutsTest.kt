package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.GiveUpReason
import dev.retryplan.OperationFailedException
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.TransportFailure
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.net.SocketTimeoutException
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.time.Duration
import java.util.Collections
import java.util.concurrent.TimeUnit

/**
 * The attempt's window bounds the HTTP helpers' timeouts, never lengthens
 * them: per phase an attempt runs with the smaller of the caller's own
 * timeout (the OkHttp client's, an earlier interceptor's, a `java.net.http`
 * request's) and the attempt's window. The server holds every request
 * [STALL_MS] before answering 200, between the short and the long timeout of
 * each case, so which one applied shows in how the operation ended (and, for
 * OkHttp, in the timeouts each attempt's chain ran with), never in a time.
 */
@Timeout(60)
class OwnTimeoutsTest {
    /** Two attempts of [attemptMs] each, the retry at once, under a total timeout that holds both. */
    private fun policy(attemptMs: Long) = Policy.fromJson(
        """{"max_attempts": 2, "total_timeout_ms": 30000, "attempt_timeout": {"fixed_ms": $attemptMs},
            "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10, "jitter": {"kind": "none"},
            "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}""",
    )

    /** How an operation ended: its decision, and the typed ending thrown (null when a response was returned). */
    private class Ending(val decision: Decision, val thrown: OperationFailedException?)

    /** A GET through [RetryInterceptor] on a client [configure]d by the case; also the (connect, read, write) ms each attempt's chain ran with. */
    private fun okhttp(attemptMs: Long, configure: OkHttpClient.Builder.() -> Unit): Pair<Ending, List<List<Int>>> = LocalServer { LocalServer.Reply.Stall(STALL_MS) }.use { server ->
        policy(attemptMs).use { policy ->
            val timeouts = Collections.synchronizedList(mutableListOf<List<Int>>())
            // After the RetryInterceptor: it sees each attempt's call only, with the timeouts the attempt set.
            val record = Interceptor { chain ->
                timeouts += listOf(chain.connectTimeoutMillis(), chain.readTimeoutMillis(), chain.writeTimeoutMillis())
                chain.proceed(chain.request())
            }
            val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).apply(configure).addInterceptor(record).build()
            try {
                val ending = try {
                    client.newCall(Request.Builder().url(server.uri.toString()).build()).execute().use { Ending(it.retryDecision!!, null) }
                } catch (thrown: OperationFailedException) {
                    Ending(thrown.decision, thrown)
                }
                ending to timeouts.toList()
            } finally {
                client.dispatcher().executorService().shutdown()
                client.connectionPool().evictAll()
            }
        }
    }

    /** A GET through [RetryingHttpClient] whose request has its own [requestTimeout]. */
    private fun httpClient(attemptMs: Long, requestTimeout: Duration): Ending = LocalServer { LocalServer.Reply.Stall(STALL_MS) }.use { server ->
        policy(attemptMs).use { policy ->
            try {
                Ending(RetryingHttpClient(HttpClient.newHttpClient(), policy).send(HttpRequest.newBuilder(server.uri).timeout(requestTimeout), HttpResponse.BodyHandlers.discarding()).decision, null)
            } catch (thrown: OperationFailedException) {
                Ending(thrown.decision, thrown)
            }
        }
    }

    /** Both attempts were made and neither got the (late) 200: the operation gave up, its attempts exhausted. */
    private fun assertBothAttemptsTimedOut(ending: Ending, case: String) {
        val decision = ending.decision
        assertTrue(decision is Decision.GaveUp && decision.reason == GiveUpReason.ATTEMPTS_EXHAUSTED && decision.attempts == 2, "$case: $decision")
        assertEquals(Outcome.Transport(TransportFailure.TIMED_OUT), ending.thrown?.lastOutcome, case)
    }

    @Test
    fun `okhttp, a client's or an earlier interceptor's shorter timeout still ends each attempt`() {
        val cases = listOf<Pair<String, OkHttpClient.Builder.() -> Unit>>(
            // The connect timeout is longer than the window (the window's applies), the read shorter, the write none (0).
            "the client's" to { connectTimeout(20, TimeUnit.SECONDS).readTimeout(SHORT_MS, TimeUnit.MILLISECONDS).writeTimeout(0, TimeUnit.MILLISECONDS) },
            "an earlier interceptor's" to {
                connectTimeout(20, TimeUnit.SECONDS).readTimeout(LONG_MS, TimeUnit.MILLISECONDS).writeTimeout(0, TimeUnit.MILLISECONDS)
                // Before the RetryInterceptor: it runs again on each attempt's call, ahead of the attempt's timeouts.
                interceptors().add(0, Interceptor { chain -> chain.withReadTimeout(SHORT_MS.toInt(), TimeUnit.MILLISECONDS).proceed(chain.request()) })
            },
        )
        for ((case, configure) in cases) {
            val (ending, timeouts) = okhttp(WINDOW_MS, configure)
            assertBothAttemptsTimedOut(ending, case)
            // The read timeout ended it (the error handed in), not the attempt's abort (which hands nothing in).
            assertTrue(ending.thrown?.cause is SocketTimeoutException, "$case: ${ending.thrown?.cause}")
            val perAttempt = listOf(WINDOW_MS.toInt(), SHORT_MS.toInt(), WINDOW_MS.toInt())
            assertEquals(listOf(perAttempt, perAttempt), timeouts, "$case: each attempt's (connect, read, write) timeouts")
        }
    }

    @Test
    fun `okhttp, a window shorter than the client's timeouts still ends each attempt`() {
        val (ending, timeouts) = okhttp(SHORT_WINDOW_MS) {
            connectTimeout(LONG_MS, TimeUnit.MILLISECONDS).readTimeout(LONG_MS, TimeUnit.MILLISECONDS).writeTimeout(LONG_MS, TimeUnit.MILLISECONDS)
        }
        assertBothAttemptsTimedOut(ending, "okhttp")
        val perAttempt = List(3) { SHORT_WINDOW_MS.toInt() }
        assertEquals(listOf(perAttempt, perAttempt), timeouts, "each attempt's (connect, read, write) timeouts")
    }

    @Test
    fun `java net http, a request's shorter timeout still ends each attempt`() {
        val ending = httpClient(WINDOW_MS, Duration.ofMillis(SHORT_MS))
        assertTrue(ending.decision is Decision.GaveUp && ending.decision.attempts == 2, "${ending.decision}")
        // The request's timeout ended it (connecting or waiting for the head), not the attempt's abort.
        assertTrue(ending.thrown?.cause is HttpTimeoutException, "${ending.thrown?.cause}")
    }

    @Test
    fun `java net http, a window shorter than the request's timeout still ends each attempt`() {
        assertBothAttemptsTimedOut(httpClient(SHORT_WINDOW_MS, Duration.ofMillis(LONG_MS)), "java.net.http")
    }

    private companion object {
        /** How long the server holds each request before answering 200. */
        const val STALL_MS = 5000L

        /** The caller's short timeout: far under [STALL_MS]. */
        const val SHORT_MS = 100L

        /** The caller's long timeout: far over [STALL_MS]. */
        const val LONG_MS = 60_000L

        /** A window over [STALL_MS]: the 200 arrives inside it, unless a shorter timeout of the caller's ends the attempt. */
        const val WINDOW_MS = 10_000L

        /** A window under [STALL_MS] (room for a process's first request, which loads the client). */
        const val SHORT_WINDOW_MS = 1000L
    }
}
