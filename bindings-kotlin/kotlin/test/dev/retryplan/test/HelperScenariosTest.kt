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
 * public API as a user calls them. Both run attempts concurrently, so every
 * scenario's `expect` applies (not `expect_sequential`).
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
            repeat(3) { okhttp(warmUp, policy, null, false); httpClient(warmUp, policy, null, false) }
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

    /** What a helper did: a response (status, ending, body), a typed ending, a cancellation or a refusal. */
    private sealed interface Seen {
        data class Returned(val status: Int, val decision: Decision?, val body: String) : Seen
        data class Raised(val error: Throwable) : Seen
    }

    @TestFactory
    fun scenarios(): List<DynamicTest> = server.scenarios.flatMap { scenario ->
        listOf(
            DynamicTest.dynamicTest("okhttp: ${scenario["id"]}") { check(scenario, ::okhttp) },
            DynamicTest.dynamicTest("httpclient: ${scenario["id"]}") { check(scenario, ::httpClient) },
        )
    }

    private fun okhttp(scenario: Map<String, Any?>, policy: Policy, cancelAfterMs: Long?, readBody: Boolean): Seen {
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
        val request = obj(scenario["request"])
        val body = (request["body"] as String?)?.let { RequestBody.create(MediaType.parse("text/plain"), it) }
        val built = Request.Builder().url(url(scenario)).method(request["method"] as String, body)
        (request["headers"] as Map<*, *>?)?.forEach { (name, value) -> built.header(name as String, value as String) }
        val call = client.newCall(built.build())
        val timer = cancelAfterMs?.let { ms -> Timer(true).apply { schedule(ms) { call.cancel() } } }
        return try {
            call.execute().use { response ->
                Seen.Returned(response.code(), response.retryDecision, if (readBody) response.body()!!.string() else "")
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

    private fun httpClient(scenario: Map<String, Any?>, policy: Policy, cancelAfterMs: Long?, readBody: Boolean): Seen {
        val request = obj(scenario["request"])
        val publisher = (request["body"] as String?)?.let(HttpRequest.BodyPublishers::ofString) ?: HttpRequest.BodyPublishers.noBody()
        val builder = HttpRequest.newBuilder(URI(url(scenario))).method(request["method"] as String, publisher)
        (request["headers"] as Map<*, *>?)?.forEach { (name, value) -> builder.header(name as String, value as String) }
        val client = RetryingHttpClient(HttpClient.newHttpClient(), policy)
        val caller = Thread.currentThread()
        val timer = cancelAfterMs?.let { ms -> Timer(true).apply { schedule(ms) { caller.interrupt() } } }
        return try {
            val result = client.send(builder, HttpResponse.BodyHandlers.ofInputStream())
            result.response.body().use {
                Seen.Returned(result.response.statusCode(), result.decision, if (readBody) String(it.readBytes()) else "")
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

    private fun check(scenario: Map<String, Any?>, helper: (Map<String, Any?>, Policy, Long?, Boolean) -> Seen) {
        val id = scenario["id"] as String
        val expect = obj(scenario["expect"])
        server.reset()
        val cancelAfter = (scenario["caller"] as Map<*, *>?)?.get("cancel_after_ms") as Long?
        // The whole call is timed (a body is read only when the scenario checks it).
        val (seen, elapsedMs) = Policy.fromJson(Json.write(scenario["policy"])).use { policy ->
            val started = System.nanoTime()
            helper(scenario, policy, cancelAfter, "body" in expect) to (System.nanoTime() - started) / 1_000_000
        }
        val result = obj(expect["result"])
        obj(result["returns"] ?: emptyMap<String, Any?>()).takeIf { it.isNotEmpty() }?.let { returns ->
            assertTrue(seen is Seen.Returned, "$id: expected a response, got $seen")
            seen as Seen.Returned
            assertEquals(returns["status"], seen.status.toLong(), "$id: status")
            assertEquals(returns["ending"], endingName(seen.decision), "$id: ending")
            returns["reason"]?.let { assertEquals(it, (seen.decision as Decision.GaveUp).reason.name.lowercase(), "$id: reason") }
            expect["body"]?.let { assertEquals(it, seen.body, "$id: body") }
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
        assertEquals(expect["requests"], log.size.toLong(), "$id: requests seen by the server ($log)")
        val ids = log.map { it["request_id"] }
        assertTrue(ids.all { it is String } && ids.toSet().size == ids.size, "$id: request ids present and distinct: $ids")
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
