package dev.retryplan.test

import dev.retryplan.IDEMPOTENCY_KEY_HEADER
import dev.retryplan.Policy
import dev.retryplan.ReconcileRequiredException
import dev.retryplan.RetryplanException
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retrying
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit

/**
 * `idempotencyKeyHeader`, as JS's `idempotencyKeyHeader` and Python's `idempotency_key_header`: the header the key
 * goes under (`Idempotency-Key` by default) and a caller's own key is read from, renamed, or with null neither read
 * nor sent (a reconcile's message then names no key); an empty name is refused when the helper is made. No request
 * leaves the process except to [LocalServer] on loopback.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IdempotencyKeyHeaderTest {
    /** A keyed write policy: a POST carries the key and is retried (503, then 201). */
    private fun keyed() = Policy.fromJson(
        """{"max_attempts": 2, "idempotency": "keyed", "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}""",
    )

    /** An unkeyed POST's policy: a 500 may have been processed, so the operation reconciles. */
    private fun unsafe() = Policy.fromJson(
        """{"max_attempts": 2, "idempotency": "unsafe", "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}""",
    )

    private fun okHttp(policy: Policy, header: String?) = OkHttpClient.Builder().retrying(RetryInterceptor(policy, idempotencyKeyHeader = header)).build()

    private fun OkHttpClient.post(server: LocalServer, ownKey: Pair<String, String>? = null) = try {
        val builder = Request.Builder().url(server.uri.toString()).post(RequestBody.create(MediaType.parse("text/plain"), "x"))
        ownKey?.let { (name, value) -> builder.header(name, value) }
        newCall(builder.build()).execute().use { it.code() }
    } finally {
        dispatcher().executorService().shutdown()
        connectionPool().evictAll()
    }

    private fun httpClientPost(policy: Policy, header: String?, server: LocalServer, ownKey: Pair<String, String>? = null): Int {
        val builder = HttpRequest.newBuilder(server.uri).POST(HttpRequest.BodyPublishers.ofString("x"))
        ownKey?.let { (name, value) -> builder.header(name, value) }
        return RetryingHttpClient(HttpClient.newHttpClient(), policy, idempotencyKeyHeader = header).send(builder, HttpResponse.BodyHandlers.discarding()).response.statusCode()
    }

    /** What [LocalServer] saw under [name] (lower case) for each attempt of a keyed POST answered 503 then 201. */
    private fun keyedPost(name: String, send: (LocalServer, Policy) -> Int): List<List<String>?> = LocalServer { attempt -> LocalServer.Reply.Status(if (attempt == 1) 503 else 201) }.use { server ->
        keyed().use { policy -> assertEquals(201, send(server, policy)) }
        assertEquals(2, server.seen.size, "two attempts")
        server.seen.map { it.headers[name] }
    }

    private fun viaOkHttp(header: String?, ownKey: Pair<String, String>? = null) = { server: LocalServer, policy: Policy -> okHttp(policy, header).post(server, ownKey) }
    private fun viaHttpClient(header: String?, ownKey: Pair<String, String>? = null) = { server: LocalServer, policy: Policy -> httpClientPost(policy, header, server, ownKey) }

    @Test
    fun `by default the key goes as Idempotency-Key, the same on every attempt`() {
        assertEquals("Idempotency-Key", IDEMPOTENCY_KEY_HEADER)
        for (send in listOf(viaOkHttp(IDEMPOTENCY_KEY_HEADER), viaHttpClient(IDEMPOTENCY_KEY_HEADER))) {
            val sent = keyedPost("idempotency-key", send)
            assertTrue(sent.all { it != null && it.size == 1 && it[0].isNotEmpty() }, "$sent")
            assertEquals(sent[0], sent[1])
        }
    }

    @Test
    fun `a renamed header carries the key, and a caller's own key is read from it`() {
        for (send in listOf(viaOkHttp("X-Key"), viaHttpClient("X-Key"))) {
            val sent = keyedPost("x-key", send)
            assertTrue(sent.all { it != null && it.size == 1 }, "$sent")
            assertEquals(listOf(null, null), keyedPost("idempotency-key", send))
        }
        for (send in listOf(viaOkHttp("X-Key", "X-Key" to "order-77"), viaHttpClient("X-Key", "X-Key" to "order-77"))) {
            assertEquals(listOf(listOf("order-77"), listOf("order-77")), keyedPost("x-key", send))
        }
    }

    @Test
    fun `a null header sends no key, and a reconcile's message names none`() {
        for (send in listOf(viaOkHttp(null), viaHttpClient(null))) assertEquals(listOf(null, null), keyedPost("idempotency-key", send))
        val reconciles = listOf(
            { server: LocalServer, policy: Policy -> okHttp(policy, null).post(server) },
            { server: LocalServer, policy: Policy -> httpClientPost(policy, null, server) },
            { server: LocalServer, policy: Policy -> okHttp(policy, IDEMPOTENCY_KEY_HEADER).post(server) },
        )
        for ((index, send) in reconciles.withIndex()) {
            LocalServer { LocalServer.Reply.Status(500) }.use { server ->
                val reconcile = unsafe().use { policy -> assertThrows(ReconcileRequiredException::class.java) { send(server, policy) } }
                val message = reconcile.message!!
                if (index < 2) {
                    assertTrue(message.contains("look it up (reconcile it) by other means: no idempotency key was sent with it"), message)
                    assertFalse(message.contains(reconcile.idempotencyKey), message)
                    assertEquals(null, server.seen.single().headers["idempotency-key"])
                } else {
                    assertTrue(message.contains("by its idempotency key \"${reconcile.idempotencyKey}\""), message)
                }
            }
        }
    }

    @Test
    fun `an empty idempotencyKeyHeader is refused when the helper is made, naming it`() {
        keyed().use { policy ->
            val refusals = listOf(
                assertThrows(RetryplanException.InvalidArgument::class.java) { RetryInterceptor(policy, idempotencyKeyHeader = "") },
                assertThrows(RetryplanException.InvalidArgument::class.java) { RetryingHttpClient(HttpClient.newHttpClient(), policy, idempotencyKeyHeader = "") },
            )
            for (refused in refusals) assertEquals("idempotencyKeyHeader", refused.field)
        }
    }
}
