package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.GaveUpException
import dev.retryplan.OperationFailedException
import dev.retryplan.Policy
import dev.retryplan.ReconcileRequiredException
import dev.retryplan.RestartRequiredException
import dev.retryplan.RetryplanException
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance
import java.io.IOException
import java.net.ServerSocket
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.Timer
import kotlin.concurrent.schedule

/**
 * The shared helper scenarios (`tests/helpers/`) against `server.py`, with
 * the OkHttp interceptor and with the `java.net.http` adapter, through their
 * public API as a user calls them. Both run attempts concurrently and follow
 * redirects inside the attempt, so every scenario's `expect` applies (not
 * `expect_sequential` nor `expect_hop_by_hop`).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HelperScenariosTest {
    private lateinit var server: ScenarioServer
    private val port get() = server.port

    @BeforeAll
    fun start() {
        server = ScenarioServer()
        // Load and warm the helpers once (the native library, OkHttp, the coroutine threads), untimed.
        val warmUp = server.scenarios.first { it["id"] == "not_found_is_not_retried" }
        Policy.fromJson(Json.write(warmUp["policy"])).use { policy ->
            repeat(3) {
                okhttp(Run(warmUp, policy, null, false, null))
                httpClient(Run(warmUp, policy, null, false, null))
            }
        }
    }

    @AfterAll
    fun stop() = server.close()

    @Suppress("UNCHECKED_CAST")
    private fun obj(value: Any?) = value as Map<String, Any?>

    private fun url(scenario: Map<String, Any?>): String {
        val id = scenario["id"] as String
        return when (val host = obj(scenario["request"])["host"]) {
            null, "server" -> server.url(id)
            "invalid_dns" -> "http://retryplan-test.invalid:$port/s/$id"
            "closed_port" -> "http://127.0.0.1:${ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1")).use { it.localPort }}/s/$id"
            else -> error("unknown host $host")
        }
    }

    /** What a helper did: a response (status, ending, body: cut when reading it failed), a typed ending, a cancellation or a refusal. */
    private sealed interface Seen {
        data class Returned(val status: Int, val decision: Decision?, val body: String, val cut: Throwable? = null) : Seen
        data class Raised(val error: Throwable) : Seen
    }

    /** One run of a scenario: made before the clock starts (a 16 MiB body included). */
    private class Run(val scenario: Map<String, Any?>, val policy: Policy, val cancelAfterMs: Long?, val readBody: Boolean, val body: ByteArray?)

    @TestFactory
    fun scenarios(): List<DynamicTest> = server.scenarios.flatMap { scenario ->
        listOf(
            DynamicTest.dynamicTest("okhttp: ${scenario["id"]}") { check(scenario, ::okhttp) },
            DynamicTest.dynamicTest("httpclient: ${scenario["id"]}") { check(scenario, ::httpClient) },
        )
    }

    /** The request body a scenario sends: `body` (text) or `body_bytes` (that many `x`). */
    private fun bodyOf(request: Map<String, Any?>): ByteArray? = (request["body"] as String?)?.toByteArray() ?: (request["body_bytes"] as Long?)?.let { ByteArray(it.toInt()) { 'x'.code.toByte() } }

    /** Reads [stream] to its end, or until reading fails (the helper cut the body): the text read, and the error. */
    private fun readAll(stream: java.io.InputStream): Pair<String, Throwable?> {
        val read = java.io.ByteArrayOutputStream()
        val buffer = ByteArray(8192)
        val error = try {
            while (true) {
                val n = stream.read(buffer)
                if (n < 0) break
                read.write(buffer, 0, n)
            }
            null
        } catch (error: IOException) {
            error
        }
        return read.toString(Charsets.UTF_8) to error
    }

    private fun okhttp(run: Run): Seen {
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(run.policy)).build()
        val request = obj(run.scenario["request"])
        val body = run.body?.let { RequestBody.create(MediaType.parse("text/plain"), it) }
        val built = Request.Builder().url(url(run.scenario)).method(request["method"] as String, body)
        (request["headers"] as Map<*, *>?)?.forEach { (name, value) -> built.header(name as String, value as String) }
        val call = client.newCall(built.build())
        val timer = run.cancelAfterMs?.let { ms -> Timer(true).apply { schedule(ms) { call.cancel() } } }
        return try {
            call.execute().use { response ->
                val (text, cut) = if (run.readBody) readAll(response.body()!!.byteStream()) else "" to null
                Seen.Returned(response.code(), response.retryDecision, text, cut)
            }
        } catch (error: IOException) {
            Seen.Raised(error)
        } catch (error: RetryplanException) {
            Seen.Raised(error)
        } finally {
            timer?.cancel()
            client.dispatcher().executorService().shutdown()
            client.connectionPool().evictAll()
        }
    }

    /**
     * The `java.net.http` adapter with a client that follows redirects
     * (`Redirect.NORMAL`, as the README says: the JDK's default, `NEVER`,
     * returns the 3xx itself), so a redirect is followed inside the attempt.
     */
    private fun httpClient(run: Run): Seen {
        val request = obj(run.scenario["request"])
        val publisher = run.body?.let(HttpRequest.BodyPublishers::ofByteArray) ?: HttpRequest.BodyPublishers.noBody()
        val builder = HttpRequest.newBuilder(URI(url(run.scenario))).method(request["method"] as String, publisher)
        (request["headers"] as Map<*, *>?)?.forEach { (name, value) -> builder.header(name as String, value as String) }
        val client = RetryingHttpClient(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build(), run.policy)
        val caller = Thread.currentThread()
        val timer = run.cancelAfterMs?.let { ms -> Timer(true).apply { schedule(ms) { caller.interrupt() } } }
        return try {
            val result = client.send(builder, HttpResponse.BodyHandlers.ofInputStream())
            result.response.body().use {
                val (text, cut) = if (run.readBody) readAll(it) else "" to null
                Seen.Returned(result.response.statusCode(), result.decision, text, cut)
            }
        } catch (error: Exception) {
            Seen.Raised(error)
        } finally {
            timer?.cancel()
            Thread.interrupted()
        }
    }

    private fun endingName(decision: Decision?): String? = when (decision) {
        is Decision.Succeeded -> "succeeded"
        is Decision.GaveUp -> "gave_up"
        is Decision.Reconcile -> "reconcile"
        is Decision.Restart -> "restart"
        else -> null
    }

    private fun check(scenario: Map<String, Any?>, helper: (Run) -> Seen) {
        val id = scenario["id"] as String
        val expect = obj(scenario["expect"])
        server.reset()
        val cancelAfter = (scenario["caller"] as Map<*, *>?)?.get("cancel_after_ms") as Long?
        val body = bodyOf(obj(scenario["request"]))
        // The whole call is timed, and with `read_body` the read of the returned body too (read also when `body` is checked).
        val (seen, elapsedMs) = Policy.fromJson(Json.write(scenario["policy"])).use { policy ->
            val run = Run(scenario, policy, cancelAfter, "body" in expect || expect["read_body"] == true, body)
            val started = System.nanoTime()
            helper(run) to (System.nanoTime() - started) / 1_000_000
        }
        val result = obj(expect["result"])
        obj(result["returns"] ?: emptyMap<String, Any?>()).takeIf { it.isNotEmpty() }?.let { returns ->
            assertTrue(seen is Seen.Returned, "$id: expected a response, got $seen")
            seen as Seen.Returned
            assertEquals(returns["status"], seen.status.toLong(), "$id: status")
            assertEquals(returns["ending"], endingName(seen.decision), "$id: ending")
            returns["reason"]?.let { assertEquals(it, (seen.decision as Decision.GaveUp).reason.name.lowercase(), "$id: reason") }
            expect["body"]?.let {
                assertEquals(it, seen.body, "$id: body")
                assertTrue(seen.cut == null, "$id: the body was cut: ${seen.cut}")
            }
        }
        (result["raises"] as Map<*, *>?)?.let { raises ->
            assertTrue(seen is Seen.Raised, "$id: expected an error, got $seen")
            val error = (seen as Seen.Raised).error
            when {
                raises["cancelled"] == true -> assertTrue(
                    (error is IOException && error !is OperationFailedException && error.message == "Canceled") || error is InterruptedException,
                    "$id: expected the platform's cancellation, got $error",
                )

                raises["error"] != null -> {
                    assertTrue(error is RetryplanException.Unsupported, "$id: expected unsupported, got $error")
                    assertEquals(raises["field"], (error as RetryplanException.Unsupported).field, "$id: field")
                }

                else -> {
                    val ending = when (error) {
                        is GaveUpException -> "gave_up"
                        is ReconcileRequiredException -> "reconcile"
                        is RestartRequiredException -> "restart"
                        else -> throw AssertionError("$id: expected a typed ending, got $error", error)
                    }
                    assertEquals(raises["ending"], ending, "$id: ending")
                    raises["reason"]?.let { assertEquals(it, (error as GaveUpException).reason.name.lowercase(), "$id: reason") }
                }
            }
        }
        val log = server.log(id)
        val requests = expect["requests"].let { if (it is Long) mapOf("min" to it, "max" to it) else obj(it) }
        assertTrue(log.size.toLong() in (requests["min"] as Long)..(requests["max"] as Long), "$id: ${log.size} requests seen by the server, expected ${expect["requests"]} ($log)")
        (expect["methods"] as List<*>?)?.let { assertEquals(it, log.map { entry -> entry["method"] }, "$id: the methods the server saw") }
        // A redirect the platform follows within one attempt keeps that attempt's id: a request may carry the id of
        // the one before it when that one was answered with a redirect (tests/helpers/README.md).
        val entries = scenario["server"] as List<*>
        fun redirected(index: Int): Boolean {
            val entry = obj(entries[minOf(index, entries.size - 1)])
            return (entry["status"] as Long?)?.let { it in 300..399 } == true && (entry["headers"] as Map<*, *>?)?.containsKey("Location") == true
        }
        val ids = log.map { it["request_id"] }
        val repeats = ids.filterIndexed { index, it -> ids.indexOf(it) != index && !(ids[index - 1] == it && redirected(index - 1)) }
        assertTrue(ids.all { it is String } && repeats.isEmpty(), "$id: request ids present and distinct: $ids")
        when (expect["idempotency_key"]) {
            "absent" -> assertTrue(log.all { it["idempotency_key"] == null }, "$id: no idempotency key: $log")

            "same" -> assertTrue(log.map { it["idempotency_key"] }.toSet().let { it.size == 1 && null !in it }, "$id: one key: $log")

            is Map<*, *> -> (expect["idempotency_key"] as Map<*, *>)["exactly"].let { exactly ->
                assertTrue(log.isNotEmpty() && log.all { it["idempotency_key"] == exactly }, "$id: $exactly on every request: $log")
            }
        }
        val elapsed = obj(expect["elapsed_ms"])
        assertTrue(elapsedMs in (elapsed["min"] as Long)..(elapsed["max"] as Long), "$id: elapsed $elapsedMs ms, expected $elapsed")
    }
}
