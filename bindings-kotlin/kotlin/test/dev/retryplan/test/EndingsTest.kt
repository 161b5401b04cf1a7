package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.GaveUpException
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.ReconcileRequiredException
import dev.retryplan.RestartRequiredException
import dev.retryplan.TransportFailure
import dev.retryplan.Verdict
import dev.retryplan.endingMessage
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retrying
import dev.retryplan.requestName
import dev.retryplan.retrying
import dev.retryplan.unknownErrorHint
import dev.retryplan.unknownErrorVerdict
import kotlinx.coroutines.runBlocking
import okhttp3.HttpUrl
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import dev.retryplan.blocking.retrying as retryingBlocking

private class Busy : Exception("busy")

private suspend fun fetchStock(): Int = throw Busy()

private fun saveCart(): Int = throw Busy()

private fun reconcile(key: String) = "the write may have happened; do not repeat it blindly: look it up (reconcile it) by its idempotency key \"$key\""

/**
 * Each typed ending's message is the core's (`endingMessage`), the same words
 * in every language: the operation (the block's name or "operation", a
 * request's method and URL without user info or fragment), what happened and
 * what to do.
 */
@Timeout(30)
class EndingsTest {
    private fun policy(extra: String = "") = Policy.fromJson(
        """{"max_attempts": 3, "total_timeout_ms": 5000, "jitter": {"kind": "none"},
            "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}$extra}""",
    )

    @Test
    fun `gave up after one attempt, and after three, a lambda being the operation`() {
        policy().use { policy ->
            val once = assertThrows(GaveUpException::class.java) {
                // A lambda: no name of its own. Called not retryable (an unknown error is retried, its ending
                // adding the hook's hint: tested in SuspendRetryingTest).
                runBlocking { retrying<Int>(policy, outcomeOfError = { Outcome.Application(Verdict.NOT_RETRYABLE) }) { throw Busy() } }
            }
            assertEquals("retryplan: operation: gave up after 1 attempt: not_retryable", once.message)
            val thrice = assertThrows(GaveUpException::class.java) {
                runBlocking { retrying(policy, outcomeOfError = { Outcome.Application(Verdict.RETRYABLE) }, block = { fetchStock() }) }
            }
            assertEquals("retryplan: operation: gave up after 3 attempts: attempts_exhausted", thrice.message)
            val named = assertThrows(GaveUpException::class.java) {
                retryingBlocking(policy, outcomeOfError = { Outcome.Application(Verdict.RETRYABLE) }, block = { _ -> saveCart() })
            }
            assertEquals(3, named.attempts)
            assertEquals("retryplan: operation: gave up after 3 attempts: attempts_exhausted", named.message)
        }
    }

    @Test
    fun `a function reference names the operation, in the suspend and the blocking helper`() {
        policy().use { policy ->
            val conflict = { _: Throwable -> Outcome.Application(Verdict.CONFLICT) }
            val suspended = assertThrows(RestartRequiredException::class.java) {
                runBlocking { retrying(policy, outcomeOfError = conflict, block = ::fetchStockAttempt) }
            }
            assertEquals(
                "retryplan: fetchStockAttempt: a conflict: re-read the current state, recompute the change and restart the unit of work within its deadline",
                suspended.message,
            )
            val blocking = assertThrows(GaveUpException::class.java) {
                retryingBlocking(policy, outcomeOfError = { Outcome.Application(Verdict.RETRYABLE) }, block = ::saveCartAttempt)
            }
            assertEquals("retryplan: saveCartAttempt: gave up after 3 attempts: attempts_exhausted", blocking.message)
        }
    }

    @Test
    fun `the name is the core's requestName of the URL as the client gives it`() {
        // One rule in every language: the text as given, minus user info (up to the authority's last '@') and
        // fragment. OkHttp's name is now its HttpUrl's text, no longer HttpUrl.uri()'s, which percent-encoded
        // characters such as '|' in a query again.
        assertEquals("GET HTTP://API.Example:80/a@b?c=@", requestName("GET", "HTTP://u:p@API.Example:80/a@b?c=@#x"))
        assertEquals("GET http://[::1]:8080/p?a|b", requestName("GET", "http://u@[::1]:8080/p?a|b"))
        assertEquals("GET /orders", requestName("GET", "/orders#new"))
        assertEquals("GET ", requestName("GET", "#"))
        val okHttp = HttpUrl.parse("http://shop:secret@127.0.0.1:8080/checkout?a|b#x")!!
        assertEquals("GET http://127.0.0.1:8080/checkout?a|b", requestName("GET", okHttp.toString()))
    }

    @Test
    fun `an HTTP ending names the request by method and URL, port and query kept, user info and fragment dropped`() {
        LocalServer { LocalServer.Reply.Status(500) }.use { server ->
            policy().use { policy ->
                val url = URI("${server.uri}?cart=41#summary")
                val expected = { key: String -> "retryplan: POST http://127.0.0.1:${server.uri.port}/checkout?cart=41: ${reconcile(key)}" }
                // java.net.http: a POST without a key of its own is unsafe (one with its own key is keyed by it and
                // retried), so a 500 is never repeated: reconcile by the operation's key.
                val builder = HttpRequest.newBuilder(url).POST(HttpRequest.BodyPublishers.ofString("order"))
                val viaHttpClient = assertThrows(ReconcileRequiredException::class.java) {
                    RetryingHttpClient(HttpClient.newHttpClient(), policy).send(builder, HttpResponse.BodyHandlers.discarding())
                }
                assertEquals(expected(viaHttpClient.idempotencyKey), viaHttpClient.message)
                // OkHttp, with user info in the URL as well.
                val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
                try {
                    val withUser = "http://shop:secret@127.0.0.1:${server.uri.port}/checkout?cart=41#summary"
                    val body = RequestBody.create(MediaType.parse("text/plain"), "order")
                    val request = Request.Builder().url(withUser).post(body).build()
                    val viaOkHttp = assertThrows(ReconcileRequiredException::class.java) { client.newCall(request).execute().close() }
                    assertEquals(expected(viaOkHttp.idempotencyKey), viaOkHttp.message)
                    assertFalse(viaOkHttp.message!!.contains("secret"))
                } finally {
                    client.dispatcher().executorService().shutdown()
                    client.connectionPool().evictAll()
                }
            }
        }
    }

    @Test
    fun `a presigned URL's secrets are REDACTED in both helpers' endings and in the name a span's url_full takes`() {
        // The OpenTelemetry conventions' url.full list, applied by the core's requestName: the value goes, the key stays.
        LocalServer { LocalServer.Reply.Status(500) }.use { server ->
            policy().use { policy ->
                val query = "seq=200&X-Amz-Signature=SECRET&sig=abc"
                val named = "POST http://127.0.0.1:${server.uri.port}/checkout?seq=200&X-Amz-Signature=REDACTED&sig=REDACTED"
                val builder = HttpRequest.newBuilder(URI("${server.uri}?$query")).POST(HttpRequest.BodyPublishers.ofString("order"))
                val viaHttpClient = assertThrows(ReconcileRequiredException::class.java) {
                    RetryingHttpClient(HttpClient.newHttpClient(), policy).send(builder, HttpResponse.BodyHandlers.discarding())
                }
                assertEquals("retryplan: $named: ${reconcile(viaHttpClient.idempotencyKey)}", viaHttpClient.message)
                val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
                try {
                    val withUser = "http://user:pw@127.0.0.1:${server.uri.port}/checkout?$query"
                    val body = RequestBody.create(MediaType.parse("text/plain"), "order")
                    val request = Request.Builder().url(withUser).post(body).build()
                    val viaOkHttp = assertThrows(ReconcileRequiredException::class.java) { client.newCall(request).execute().close() }
                    assertEquals("retryplan: $named: ${reconcile(viaOkHttp.idempotencyKey)}", viaOkHttp.message)
                    // A span's url.full (README, "Observing") is the name after its method.
                    val full = requestName("GET", withUser).removePrefix("GET ")
                    assertEquals("http://127.0.0.1:${server.uri.port}/checkout?seq=200&X-Amz-Signature=REDACTED&sig=REDACTED", full)
                } finally {
                    client.dispatcher().executorService().shutdown()
                    client.connectionPool().evictAll()
                }
            }
        }
    }

    @Test
    fun `an HTTP ending after a status that is no HTTP status names it, in the core's words`() {
        // Each 999 is read as a malformed response (the server's fault, a lost connection: the response is closed);
        // the GET is retried, and the ending names the status as every language does (the core's Ending::message).
        val hint = "; the last response's status 999 is no HTTP status (100..=599): read as a malformed response, the server's fault"
        LocalServer { LocalServer.Reply.Status(999) }.use { server ->
            policy().use { policy ->
                val viaHttpClient = assertThrows(GaveUpException::class.java) {
                    RetryingHttpClient(HttpClient.newHttpClient(), policy).send(HttpRequest.newBuilder(server.uri), HttpResponse.BodyHandlers.discarding())
                }
                val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
                val (viaOkHttp, post) = try {
                    val get = assertThrows(GaveUpException::class.java) {
                        client.newCall(Request.Builder().url(server.uri.toString()).build()).execute().close()
                    }
                    // A POST without a key of its own is not repeated: reconcile, and the words say what came back.
                    val body = RequestBody.create(MediaType.parse("text/plain"), "order")
                    get to assertThrows(ReconcileRequiredException::class.java) {
                        client.newCall(Request.Builder().url(server.uri.toString()).post(body).build()).execute().close()
                    }
                } finally {
                    client.dispatcher().executorService().shutdown()
                    client.connectionPool().evictAll()
                }
                val gaveUp = "retryplan: GET ${server.uri}: gave up after 3 attempts: attempts_exhausted$hint"
                assertEquals(
                    listOf(gaveUp, gaveUp, "retryplan: POST ${server.uri}: ${reconcile(post.idempotencyKey)}$hint"),
                    listOf(viaHttpClient.message, viaOkHttp.message, post.message),
                )
                assertEquals(3 + 3 + 1, server.seen.size)
            }
        }
    }

    @Test
    fun `an ending names outcomeOfError after an error nothing classified, and only then`() {
        val decision = Decision.Reconcile(attempts = 1, remainingMs = 0, abortAttempts = emptyList())
        val words = endingMessage(decision, "placeOrder", "k-1")!!
        assertEquals("retryplan: placeOrder: ${reconcile("k-1")}", words)
        val unknown = Outcome.Application(unknownErrorVerdict())
        assertEquals("$words; ${unknownErrorHint()}", endingMessage(decision, "placeOrder", "k-1", unknown))
        assertEquals("$words; ${unknownErrorHint()}", ReconcileRequiredException(decision, "k-1", unknown, null, "placeOrder").message)
        for (other in listOf(null, Outcome.Application(Verdict.CONFLICT), Outcome.Transport(TransportFailure.TIMED_OUT))) {
            assertEquals(words, endingMessage(decision, "placeOrder", "k-1", other))
            assertEquals(words, ReconcileRequiredException(decision, "k-1", other, null, "placeOrder").message)
        }
        assertNull(endingMessage(Decision.Succeeded(attempts = 1, winner = 1, abortAttempts = emptyList()), "placeOrder", "k-1", unknown))
    }

    @Test
    fun `no helper composes an ending's English of its own`() {
        val vectors = File(System.getProperty("retryplan.vectors") ?: System.getenv("RETRYPLAN_VECTORS") ?: "../tests/conformance")
        val root = vectors.absoluteFile.parentFile.parentFile

        @Suppress("UNCHECKED_CAST")
        val rules = (Json.parse(File(root, "tests/messages/rules.json").readText()) as Map<String, Any?>)["rules"] as List<Map<String, Any?>>
        val endings = rules.filter { (it["id"] as String).startsWith("ending_") || it["id"] == "malformed_status" }
        val ids = listOf("ending_gave_up", "ending_reconcile", "ending_reconcile_key_not_sent", "ending_restart", "ending_with_hint", "malformed_status")
        assertEquals(ids, endings.map { it["id"] })
        val parts = endings.flatMap { (it["template"] as String).split(Regex("""\{\d+(:q)?\}""")) }
            .map { it.trim() }.filter { it.length > 3 && it != "retryplan:" }
        assertEquals(6, parts.size, parts.toString())
        val sources = listOf("main", "jvm", "okhttp").flatMap { File(root, "bindings-kotlin/kotlin/$it").walk().filter { f -> f.extension == "kt" }.toList() }
        assertFalse(sources.isEmpty())
        for (source in sources) {
            val text = source.readText()
            // The core decides when an ending carries the hint after an unknown error: no helper appends it.
            for (part in parts + listOf("gave up after", "reconcile it by", "restart the unit", "unknownErrorHint(")) {
                assertFalse(text.contains(part), "${source.path} composes ending words of its own: \"$part\"")
            }
        }
    }
}

private suspend fun fetchStockAttempt(@Suppress("UNUSED_PARAMETER") attempt: dev.retryplan.Attempt): Int = throw Busy()

private fun saveCartAttempt(@Suppress("UNUSED_PARAMETER") attempt: dev.retryplan.Attempt): Int = throw Busy()
