package dev.retryplan.test

import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import dev.retryplan.Attempt
import dev.retryplan.Blame
import dev.retryplan.Decision
import dev.retryplan.GaveUpException
import dev.retryplan.GiveUpReason
import dev.retryplan.MALFORMED_PROPAGATION_STATUS
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RequestContext
import dev.retryplan.RetryplanException
import dev.retryplan.Served
import dev.retryplan.Verdict
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retrying
import dev.retryplan.okhttp.withAmbientContext
import dev.retryplan.okhttp.within
import dev.retryplan.retrying
import dev.retryplan.serving
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.IOException
import java.net.InetSocketAddress
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.Collections
import java.util.concurrent.Executors
import dev.retryplan.blocking.retrying as retryingBlocking

/**
 * Issue 27 on the JVM, against real servers on 127.0.0.1: a service (the
 * JDK's `HttpServer`, served through the plain-JVM [serving]) reads its
 * caller's context, calls a next hop with each helper, and answers with the
 * core's answer headers; two hops show one deadline, one key and retries at
 * one layer. Every expected value is the core's: the tests read bounds only
 * (no wall-clock assertion).
 */
class PropagationTest {
    private val policy = Policy.fromJson(
        """{"max_attempts": 3, "backoff": {"kind": "exponential", "base_ms": 5, "multiplier": 2.0, "cap_ms": 20}, "jitter": {"kind": "none"}}""",
    )
    private val closing = mutableListOf<AutoCloseable>()

    @AfterEach
    fun close() {
        closing.reversed().forEach { it.close() }
        policy.close()
    }

    private fun <T : AutoCloseable> T.closed(): T = also { closing += it }

    /** A server on 127.0.0.1 whose [handle] answers every request (its threads are daemons). */
    private class Server(handle: (HttpExchange) -> Unit) : AutoCloseable {
        private val pool = Executors.newCachedThreadPool { r -> Thread(r).apply { isDaemon = true } }
        private val server = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0).apply {
            createContext("/") { exchange -> exchange.use { handle(it) } }
            executor = pool
            start()
        }
        val uri: URI get() = URI("http://127.0.0.1:${server.address.port}/orders")

        override fun close() {
            server.stop(0)
            pool.shutdownNow()
        }
    }

    /** The last hop: answers [status] (with [headers]) and records each request's headers by lower-case name. */
    private fun nextHop(status: Int, headers: Map<String, String> = emptyMap()): Pair<Server, MutableList<Map<String, String>>> {
        val seen = Collections.synchronizedList(mutableListOf<Map<String, String>>())
        val server = Server { exchange ->
            seen += exchange.requestHeaders.entries.associate { (name, values) -> name.lowercase() to values.joinToString(", ") }
            headers.forEach { (k, v) -> exchange.responseHeaders.add(k, v) }
            exchange.sendResponseHeaders(status, -1)
        }.closed()
        return server to seen
    }

    /**
     * The service under test, plain JVM: [serving] reads the request's
     * context (400 for a header the core refuses), [call] reaches the next
     * hop from inside it and gives the status to answer, and the core's
     * answer headers are added after the handler.
     */
    private fun service(call: suspend (RequestContext) -> Int): Server = Server { exchange ->
        val served = runBlocking { serving(policy, { exchange.requestHeaders.getFirst(it) }) { context -> call(context) } }
        when (served) {
            is Served.Malformed -> {
                val body = served.error.message.orEmpty().toByteArray()
                exchange.sendResponseHeaders(served.status, body.size.toLong())
                exchange.responseBody.write(body)
            }

            is Served.Answered -> {
                served.answerHeaders.forEach { exchange.responseHeaders.add(it.name, it.value) }
                exchange.sendResponseHeaders(served.value, -1)
            }
        }
    }.closed()

    private val plain: HttpClient = HttpClient.newHttpClient()

    /** One plain request (no retries) to [uri] with [headers]. */
    private fun get(uri: URI, vararg headers: Pair<String, String>): HttpResponse<String> {
        val request = HttpRequest.newBuilder(uri).apply { headers.forEach { (k, v) -> header(k, v) } }.build()
        return plain.send(request, HttpResponse.BodyHandlers.ofString())
    }

    private fun timeoutMs(headers: Map<String, String>) = headers.getValue("retryplan-timeout-ms").toLong()

    @Test
    fun `a malformed propagation header is answered 400 naming it, and the handler does not run`() {
        val (hop, seen) = nextHop(200)
        val retrying = RetryingHttpClient(plain, policy)
        val service = service { retrying.sendAwait(HttpRequest.newBuilder(hop.uri), HttpResponse.BodyHandlers.discarding()).response.statusCode() }
        for ((name, value) in listOf("grpc-timeout" to "1.5S", "retryplan-attempt" to "0", "retryplan-caller-retries" to "yes")) {
            val answer = get(service.uri, name to value)
            assertEquals(MALFORMED_PROPAGATION_STATUS, answer.statusCode(), "$name: $value")
            assertTrue(answer.body().contains(name), "the 400's text names $name: ${answer.body()}")
        }
        assertEquals(0, seen.size, "the handler ran")
    }

    @Test
    fun `a coroutine the handler starts is the request's child and has its context, as Python's tasks and Node's promises do`() {
        val served = runBlocking {
            serving(policy, { name -> if (name == "retryplan-caller-retries") "?1" else null }) { context ->
                // `async` in the handler: the request's scope, not the caller's runBlocking (which has no context).
                val child = async { RequestContext.current() }
                val launched = CompletableDeferred<RequestContext?>()
                launch { launched.complete(RequestContext.current()) }
                listOf(child.await(), launched.await()).map { it === context }
            }
        }
        served as Served.Answered
        assertEquals(listOf(true, true), served.value)
    }

    @Test
    fun `RequestContext read refuses a malformed header with the core's typed error naming it, the caller's to fix`() {
        val refused = runCatching { RequestContext.read(policy) { if (it == "retryplan-timeout-ms") "12ms" else null } }.exceptionOrNull()
        assertTrue(refused is RetryplanException.InvalidRequestHeader, "$refused")
        refused as RetryplanException.InvalidRequestHeader
        assertEquals("retryplan-timeout-ms", refused.header)
        assertEquals("invalid_request_header" to Blame.CALLER, refused.code to refused.blame)
    }

    @Test
    fun `RetryingHttpClient inside a served request, the caller's deadline bounds the next hop's, the key goes on unchanged`() {
        val (hop, seen) = nextHop(200)
        val retrying = RetryingHttpClient(plain, policy)
        val service = service { retrying.sendAwait(HttpRequest.newBuilder(hop.uri), HttpResponse.BodyHandlers.discarding()).response.statusCode() }
        val answer = get(service.uri, "retryplan-timeout-ms" to "1000", "idempotency-key" to "order-5001")
        assertEquals(200, answer.statusCode())
        assertTrue(answer.headers().firstValue("retryplan-retryable").isEmpty, "no give-up, no answer header")
        val headers = seen.single()
        assertEquals("order-5001", headers["idempotency-key"])
        assertEquals("1", headers["retryplan-attempt"])
        // At most the caller's 1000 ms less the 20 ms reserve for the way back and the 50 ms response reserve.
        assertTrue(timeoutMs(headers) in 1..930, "retryplan-timeout-ms ${timeoutMs(headers)}")
    }

    @Test
    fun `the blocking send takes the request's context explicitly`() {
        val (hop, seen) = nextHop(200)
        val retrying = RetryingHttpClient(plain, policy)
        val service = Server { exchange ->
            val context = RequestContext.read(policy) { exchange.requestHeaders.getFirst(it) }
            val status = retrying.send(HttpRequest.newBuilder(hop.uri), HttpResponse.BodyHandlers.discarding(), context = context).response.statusCode()
            exchange.sendResponseHeaders(status, -1)
        }.closed()
        assertEquals(200, get(service.uri, "grpc-timeout" to "800m", "idempotency-key" to "order-7").statusCode())
        val headers = seen.single()
        assertEquals("order-7", headers["idempotency-key"])
        assertTrue(timeoutMs(headers) in 1..730, "retryplan-timeout-ms ${timeoutMs(headers)}")
    }

    @Test
    fun `OkHttp within the request's context, a caller that retries gets one attempt, and no do-not-retry answer`() {
        val (hop, seen) = nextHop(503)
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
        val service = service { context ->
            client.within(context).newCall(Request.Builder().url(hop.uri.toURL()).build()).execute().use { it.code() }
        }
        val answer = get(service.uri, "retryplan-caller-retries" to "?1", "retryplan-timeout-ms" to "2000")
        assertEquals(503, answer.statusCode())
        assertEquals(1, seen.size, "the layer above retries: this one makes one attempt")
        assertTrue(answer.headers().firstValue("retryplan-retryable").isEmpty, "one attempt exhausted is no overload answer")
        assertTrue(timeoutMs(seen.single()) in 1..1930)
    }

    @Test
    fun `OkHttp from the coroutine's context, a next hop's do-not-retry is answered upward as do-not-retry`() {
        val (hop, seen) = nextHop(503, mapOf("retryplan-retryable" to "?0"))
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
        val service = service { client.withAmbientContext().newCall(Request.Builder().url(hop.uri.toURL()).build()).execute().use { it.code() } }
        val answer = get(service.uri, "retryplan-timeout-ms" to "2000")
        assertEquals(503, answer.statusCode())
        assertEquals(1, seen.size, "the next hop said do not retry")
        assertEquals("?0", answer.headers().firstValue("retryplan-retryable").orElse(null))
    }

    @Test
    fun `two hops, the outer client retries, the service makes one attempt per request, one key throughout`() {
        val (hop, seen) = nextHop(503)
        val inner = RetryingHttpClient(plain, policy)
        val service = service { inner.sendAwait(HttpRequest.newBuilder(hop.uri), HttpResponse.BodyHandlers.discarding()).response.statusCode() }
        val outer = RetryingHttpClient(plain, policy)
        val ended = outer.send(HttpRequest.newBuilder(service.uri).POST(HttpRequest.BodyPublishers.ofString("{}")), HttpResponse.BodyHandlers.discarding())
        val decision = ended.decision
        assertTrue(decision is Decision.GaveUp && decision.reason == GiveUpReason.ATTEMPTS_EXHAUSTED, "$decision")
        // Three attempts in all (the outer policy's), not 3 x 3.
        assertEquals(3, seen.size, "the last hop saw ${seen.size} requests")
        assertEquals(listOf("1", "1", "1"), seen.map { it["retryplan-attempt"] }, "each outer attempt: one inner attempt")
        assertEquals(setOf(ended.idempotencyKey), seen.map { it["idempotency-key"] }.toSet())
        seen.forEach { assertEquals("?1", it["retryplan-caller-retries"]) }
    }

    @Test
    fun `retrying inside a served request, the driver starts from the caller's context and fills each attempt's headers`() {
        val (hop, seen) = nextHop(200)
        val service = service { context ->
            retrying<Int>(policy) { attempt ->
                val request = HttpRequest.newBuilder(hop.uri).apply { attempt.propagationHeaders.forEach { header(it.name, it.value) } }
                assertEquals(context.incoming.idempotencyKey(), attempt.idempotencyKey)
                plain.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode()
            }
        }
        assertEquals(200, get(service.uri, "x-envoy-expected-rq-timeout-ms" to "1500", "idempotency-key" to "order-9").statusCode())
        val headers = seen.single()
        assertEquals("order-9", headers["idempotency-key"])
        assertTrue(timeoutMs(headers) in 1..1430, "retryplan-timeout-ms ${timeoutMs(headers)}")
    }

    @Test
    fun `the blocking retrying takes the request's context explicitly, the caller's deadline bounds the next hop's, the key goes on`() {
        val (hop, seen) = nextHop(200)
        val keys = Collections.synchronizedList(mutableListOf<String>())
        val service = Server { exchange ->
            val context = RequestContext.read(policy) { exchange.requestHeaders.getFirst(it) }
            val status = retryingBlocking(policy, context = context) { attempt ->
                keys += attempt.idempotencyKey
                val request = HttpRequest.newBuilder(hop.uri).apply { attempt.propagationHeaders.forEach { header(it.name, it.value) } }
                plain.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode()
            }
            exchange.sendResponseHeaders(status, -1)
        }.closed()
        assertEquals(200, get(service.uri, "grpc-timeout" to "800m", "idempotency-key" to "order-8").statusCode())
        assertEquals(listOf("order-8"), keys.toList())
        val headers = seen.single()
        assertEquals("order-8", headers["idempotency-key"])
        assertEquals("1", headers["retryplan-attempt"])
        // At most the caller's 800 ms less the 20 ms reserve for the way back and the 50 ms response reserve.
        assertTrue(timeoutMs(headers) in 1..730, "retryplan-timeout-ms ${timeoutMs(headers)}")
    }

    @Test
    fun `the blocking retrying inside a request whose caller retries makes one attempt, within the caller's deadline`() {
        val incoming = mapOf("retryplan-caller-retries" to "?1", "retryplan-timeout-ms" to "2000")
        val context = RequestContext.read(policy) { incoming[it] }
        val attempts = Collections.synchronizedList(mutableListOf<Attempt>())
        val ended = assertThrows(GaveUpException::class.java) {
            retryingBlocking<Int>(policy, outcomeOfError = { Outcome.Application(Verdict.RETRYABLE) }, context = context) { attempt ->
                attempts += attempt
                throw IOException("the next hop is down")
            }
        }
        assertEquals(GiveUpReason.ATTEMPTS_EXHAUSTED, ended.reason)
        assertEquals(1, attempts.size, "the layer above retries: this one makes one attempt")
        val attempt = attempts.single()
        assertTrue(attempt.remainingMs in 1..1930, "remainingMs ${attempt.remainingMs}")
        assertTrue(attempt.timeoutMs in 1..1930, "timeoutMs ${attempt.timeoutMs}")
        assertEquals("?1", attempt.propagationHeaders.single { it.name == "retryplan-caller-retries" }.value)
        assertTrue(context.answerHeaders().isEmpty(), "one attempt exhausted is no overload answer")
    }

    @Test
    fun `retrying outside a served request makes no outgoing headers`() {
        val headers = runBlocking { retrying(policy) { it.propagationHeaders } }
        assertEquals(emptyList<Any>(), headers)
        assertNull(runBlocking { RequestContext.current() })
    }
}
