package dev.retryplan.test

import com.sun.net.httpserver.HttpServer
import dev.retryplan.Decision
import dev.retryplan.GaveUpException
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RetryplanException
import dev.retryplan.examples.Busy
import dev.retryplan.examples.CountingHook
import dev.retryplan.examples.ProfileApi
import dev.retryplan.examples.Quote
import dev.retryplan.examples.compiledPolicy
import dev.retryplan.examples.controls
import dev.retryplan.examples.countedCall
import dev.retryplan.examples.form
import dev.retryplan.examples.latestQuote
import dev.retryplan.examples.loadProfile
import dev.retryplan.examples.loadProfileBlocking
import dev.retryplan.examples.nightlyExport
import dev.retryplan.examples.placeOrder
import dev.retryplan.examples.postOrder
import dev.retryplan.examples.profiles
import dev.retryplan.examples.propagatingService
import dev.retryplan.examples.readPolicy
import dev.retryplan.examples.refusal
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.InetSocketAddress
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.Collections

/**
 * Runs the README's Kotlin examples (kotlin/examples/, the README's code as
 * check-examples.py proves) that need no host of their own: the engine loop,
 * suspend and blocking `retrying`, and `RetryingHttpClient` against
 * tests/helpers/server.py. The OkHttp example (`pay`) names its host in the
 * code, so it is compiled, not run; the interceptor runs every helper scenario
 * in HelperScenariosTest.
 */
class ReadmeExamplesTest {
    @Test
    fun `the compiled example reads its base64 line back as the policy, and names a refusal's code`() {
        val line = java.util.Base64.getEncoder().encodeToString(form)
        val expected = Policy.profile("checkout").use { it.toJson() }
        assertEquals(expected, compiledPolicy(line).use { it.toJson() })
        assertEquals("rpp", String(form.copyOf(3)))
        assertEquals(4L, dev.retryplan.Dependency.fromCompiled(controls).use { d -> d.retrySlots()!!.use { it.capacity() } })
        assertEquals(null, refusal(form))
        assertEquals("not_a_compiled_form", refusal(line.toByteArray()))
        assertEquals("compiled_form_kind", refusal(controls))
    }

    @Test
    fun `the engine loop retries a 503 and ends with the success`() {
        val seen = mutableListOf<Triple<Long, String, String>>()
        val ending = placeOrder { timeoutMs, idempotencyKey, requestId ->
            seen += Triple(timeoutMs, idempotencyKey, requestId)
            if (seen.size == 1) Outcome.HttpStatus(503, null) else Outcome.Success
        }
        assertTrue(ending is Decision.Succeeded, "$ending")
        assertEquals(2, seen.size)
        assertEquals(listOf("order-5001", "order-5001"), seen.map { it.second })
        assertTrue(seen[0].third != seen[1].third, "a fresh request id per attempt: $seen")
        assertTrue(seen.all { it.first in 1..200 }, "the checkout profile's 200 ms attempts: $seen")
    }

    /** The results example, under a policy of three attempts and no backoff (nothing sleeps). */
    @Test
    fun `the results example retries a busy reply, and gives the last one back when every attempt was busy`() = runBlocking {
        val policy = Policy.fromJson(
            """{"max_attempts": 3, "jitter": {"kind": "none"}, "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}""",
        )
        policy.use {
            var calls = 0
            assertEquals(Quote(42), latestQuote(policy) { if (++calls < 3) Quote(null) else Quote(42) })
            val replies = mutableListOf<Quote>()
            val last = latestQuote(policy) { Quote(null).also { replies += it } }
            assertEquals(3, replies.size)
            assertSame(replies.last(), last)
        }
    }

    @Test
    fun `the coroutines example retries what outcomeOfError calls retryable`() = runBlocking {
        var calls = 0
        val api = object : ProfileApi {
            override suspend fun profile(userId: String, requestId: String): String {
                calls++
                if (calls == 1) throw Busy()
                return "profile $userId"
            }
        }
        assertEquals("profile 7", loadProfile(api, "7"))
        assertEquals(2, calls)
    }

    /**
     * Issue 25: the README's first example with the blocking call people
     * write (`withContext(Dispatchers.IO) { call.execute() }`, which no
     * cancellation stops) against a server that answers after 6 s: the
     * `read` profile's 2 s total timeout still holds (it took 4 s, and 6 s here,
     * when `retrying` waited for its aborted attempts). The bound is the
     * scenarios' kind: the total timeout plus a margin for a loaded machine.
     */
    @Test
    fun `the coroutines example with a blocking call gives up within its total timeout`() {
        LocalServer { LocalServer.Reply.Stall(6_000) }.use { server ->
            val client = OkHttpClient()
            val api = object : ProfileApi {
                override suspend fun profile(userId: String, requestId: String): String = withContext(Dispatchers.IO) {
                    client.newCall(Request.Builder().url(server.uri.toString()).build()).execute().use { "profile $userId" }
                }
            }
            readPolicy // the examples' top-level values (the library, their clients) are made before the clock
            val started = System.nanoTime()
            val error = runCatching { runBlocking { loadProfile(api, "7") } }.exceptionOrNull()
            val elapsedMs = (System.nanoTime() - started) / 1_000_000
            client.dispatcher().executorService().shutdown()
            assertTrue(error is GaveUpException, "the typed ending, got $error")
            assertTrue(elapsedMs in 0..2_500, "the read profile's 2000 ms total timeout held: $elapsedMs ms")
        }
    }

    /** The interruptible form beside it: on time too, and the aborted attempts' calls are cancelled (their threads freed). */
    @Test
    fun `the interruptible example gives up within its total timeout and cancels its calls`() {
        LocalServer { LocalServer.Reply.Stall(6_000) }.use { server ->
            readPolicy // the examples' top-level values (the library, their clients) are made before the clock
            val started = System.nanoTime()
            val error = runCatching { runBlocking { loadProfileBlocking(server.uri.toString()) } }.exceptionOrNull()
            val elapsedMs = (System.nanoTime() - started) / 1_000_000
            assertTrue(error is GaveUpException, "the typed ending, got $error")
            assertTrue(elapsedMs in 0..2_500, "the read profile's 2000 ms total timeout held: $elapsedMs ms")
            // Every call of the operation was cancelled: none is still running on the client.
            repeat(100) { if (profiles.dispatcher().runningCallsCount() > 0) Thread.sleep(20) }
            assertEquals(0, profiles.dispatcher().runningCallsCount(), "calls still running after the ending")
            assertTrue(server.seen.size >= 2, "more than one attempt: ${server.seen}")
        }
    }

    /** The README's first line with a typo in the profile's name, or in a policy's field: refused loudly, naming it, before any call. */
    @Test
    fun `the coroutines example's policy with a typo is refused, naming it`() {
        val profile = runCatching { Policy.profile("raed") }.exceptionOrNull()
        assertTrue(profile is RetryplanException.UnknownProfile, "got $profile")
        profile as RetryplanException.UnknownProfile
        assertEquals("raed", profile.profile)
        assertTrue("read" in profile.known, "the known names: ${profile.known}")
        val field = runCatching { Policy.fromJson("""{"max_attemps": 3}""") }.exceptionOrNull()
        assertTrue(field is RetryplanException.InvalidConfig, "got $field")
        assertEquals("max_attemps", (field as RetryplanException.InvalidConfig).field)
    }

    @Test
    fun `the blocking example returns the first attempt's number`() {
        assertEquals(1, nightlyExport(Policy.profile("read")))
    }

    @Test
    fun `the HttpClient example posts an order and retries the 503 first`() {
        ScenarioServer("tests/helpers/readme-hosts.json").use { server ->
            server.reset()
            val id = "shop.example/orders"
            val result = postOrder(URI(server.url(id)), HttpRequest.BodyPublishers.ofString("""{"cart": 41}"""))
            result.response.body().close()
            assertEquals(201, result.response.statusCode())
            assertTrue(result.decision is Decision.Succeeded, "${result.decision}")
            val seen = server.log(id)
            assertEquals(2, seen.size, "$seen")
            assertEquals(setOf(result.idempotencyKey), seen.map { it["idempotency_key"] }.toSet())
        }
    }

    @Test
    fun `the serving example answers a malformed header 400 and passes the caller's deadline and key on`() {
        val seen = Collections.synchronizedList(mutableListOf<Pair<String?, String?>>())
        val nextHop = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0).apply {
            createContext("/") { exchange ->
                exchange.use {
                    seen += it.requestHeaders.getFirst("retryplan-timeout-ms") to it.requestHeaders.getFirst("idempotency-key")
                    it.sendResponseHeaders(200, -1)
                }
            }
            start()
        }
        val service = propagatingService(Policy.profile("read"), URI("http://127.0.0.1:${nextHop.address.port}/"))
        try {
            val client = HttpClient.newHttpClient()
            fun send(vararg headers: String) = client.send(
                HttpRequest.newBuilder(URI("http://127.0.0.1:${service.address.port}/")).headers(*headers).build(),
                HttpResponse.BodyHandlers.ofString(),
            )
            fun get(name: String, value: String) = send(name, value, "idempotency-key", "order-1").statusCode()
            val refused = send("grpc-timeout", "1.5S", "idempotency-key", "order-1")
            assertEquals(400, refused.statusCode())
            assertTrue("grpc-timeout" in refused.body(), "the 400 names the header: ${refused.body()}")
            // A header sent twice is every line joined: refused, never read from its first line (a looser deadline,
            // another key), as Python and Node refuse it.
            assertEquals(400, send("retryplan-timeout-ms", "5000", "retryplan-timeout-ms", "100").statusCode())
            assertEquals(400, send("idempotency-key", "\"a\"", "idempotency-key", "\"b\"").statusCode())
            assertEquals(0, seen.size, "the handler ran for a malformed header")
            assertEquals(200, get("grpc-timeout", "1S"))
            val (timeout, key) = seen.single()
            assertEquals("order-1", key)
            // At most the caller's 1000 ms less the 20 ms way back and the profile's response reserve.
            assertTrue(timeout!!.toLong() in 1..980, "retryplan-timeout-ms $timeout")
        } finally {
            service.stop(0)
            nextHop.stop(0)
        }
    }

    @Test
    fun `the telemetry example counts what the core's mapping names, by attribute`() = runBlocking {
        val policy = Policy.fromJson(
            """{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 1000}, "jitter": {"kind": "none"},
                "backoff": {"kind": "constant", "base_ms": 1, "multiplier": 1.0, "cap_ms": 1}}""",
        )
        val hook = CountingHook()
        val value = policy.use { countedCall(it, hook) { attempt -> if (attempt < 3) throw java.net.ConnectException("refused") else "ok" } }
        assertEquals("ok", value)
        assertEquals(
            mapOf(
                "retryplan.attempts{retryplan.attempt.kind=first}" to 1L,
                "retryplan.attempts{retryplan.attempt.kind=retry}" to 2L,
                "retryplan.retries" to 2L,
                "retryplan.operations{retryplan.operation.ending=succeeded}" to 1L,
            ),
            hook.counts.toMap(),
        )
    }
}
