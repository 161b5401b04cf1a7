package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.GiveUpReason
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.Reported
import dev.retryplan.RetryEndedException
import dev.retryplan.Stats
import dev.retryplan.Verdict
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.retrying
import dev.retryplan.test.LocalServer.Reply
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference

/** The `retrying {}` helper and the HttpClient example against a real local server. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RetryingTest {
    private val policy = Policy.fromJson(
        """{"max_attempts": 4, "total_budget_ms": 5000, "attempt_timeout": {"fixed_ms": 300},
            "response_reserve_ms": 0, "minimum_useful_attempt_ms": 50,
            "backoff": {"kind": "exponential", "base_ms": 20, "multiplier": 2.0, "cap_ms": 100},
            "jitter": {"kind": "none"}, "idempotency": "keyed",
            "server_guidance": {"honor": true, "cap_ms": 2000, "above_cap": "give_up"}}""",
    )
    private val client: HttpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()

    @AfterAll
    fun close() = policy.close()

    private fun get(server: LocalServer) = HttpRequest.newBuilder(server.uri).GET()

    private fun elapsedMs(startNanos: Long) = (System.nanoTime() - startNanos) / 1_000_000

    @Test
    fun `succeeds on attempt n with one key and a fresh request id per attempt`() {
        val stats = Stats()
        LocalServer { n -> if (n < 3) Reply.Status(503) else Reply.Status(200, body = "ok") }.use { server ->
            val result = RetryingHttpClient(client, policy, stats).send(get(server), HttpResponse.BodyHandlers.ofString())
            assertEquals(3, (result.ending as Decision.Succeeded).attempts)
            assertEquals("ok", result.getOrThrow()?.body())
            assertEquals(3, server.seen.size)
            assertEquals(setOf(result.idempotencyKey), server.seen.map { it.idempotencyKey }.toSet())
            assertEquals(3, server.seen.map { it.requestId }.toSet().size)
            assertTrue(server.seen.all { it.requestId!!.matches(Regex("[0-9a-f]{16}")) })
        }
        val counts = stats.snapshot()
        assertEquals(listOf(1L, 3L, 2L, 1L), listOf(counts.operations, counts.attempts, counts.retries, counts.succeeded))
        stats.close()
    }

    @Test
    fun `a safe read sends no idempotency key, and a caller's own key is kept`() {
        val read = Policy.fromJson("""{"idempotency": "safe", "jitter": {"kind": "none"}}""")
        assertFalse(read.sendsIdempotencyKey())
        LocalServer { Reply.Status(200) }.use { server ->
            RetryingHttpClient(client, read).send(get(server), HttpResponse.BodyHandlers.discarding())
            assertEquals(listOf<String?>(null), server.seen.map { it.idempotencyKey })
        }
        read.close()
        LocalServer { n -> if (n == 1) Reply.Status(503) else Reply.Status(200) }.use { server ->
            val request = get(server).header("Idempotency-Key", "order-5001")
            val result = RetryingHttpClient(client, policy).send(request, HttpResponse.BodyHandlers.discarding())
            assertEquals("order-5001", result.idempotencyKey)
            assertEquals(listOf<String?>("order-5001", "order-5001"), server.seen.map { it.idempotencyKey })
        }
    }

    @Test
    fun `honors Retry-After from a 503`() {
        LocalServer { n -> if (n == 1) Reply.Status(503, mapOf("Retry-After" to "1")) else Reply.Status(200) }.use { server ->
            val result = RetryingHttpClient(client, policy).send(get(server), HttpResponse.BodyHandlers.discarding())
            assertEquals(2, (result.ending as Decision.Succeeded).attempts)
            val waitedMs = (server.seen[1].atNanos - server.seen[0].atNanos) / 1_000_000
            assertTrue(waitedMs >= 990, "waited $waitedMs ms for Retry-After: 1")
        }
    }

    @Test
    fun `a Retry-After above the cap gives up at once instead of sleeping`() {
        LocalServer { Reply.Status(503, mapOf("Retry-After" to "30")) }.use { server ->
            val start = System.nanoTime()
            val result = RetryingHttpClient(client, policy).send(get(server), HttpResponse.BodyHandlers.discarding())
            val ending = result.ending as Decision.GaveUp
            assertEquals(GiveUpReason.RETRY_AFTER_ABOVE_CAP, ending.reason)
            assertEquals(30_000L, ending.refusedDelayMs)
            assertEquals(503, result.value?.statusCode())
            assertTrue(elapsedMs(start) < 1000)
            assertThrows(RetryEndedException::class.java) { result.getOrThrow() }
        }
    }

    @Test
    fun `a stalled attempt times out at the engine's timeout and the next one succeeds`() {
        LocalServer { n -> if (n == 1) Reply.Stall(3000) else Reply.Status(200) }.use { server ->
            val start = System.nanoTime()
            val result = RetryingHttpClient(client, policy).send(get(server), HttpResponse.BodyHandlers.discarding())
            assertEquals(2, (result.ending as Decision.Succeeded).attempts)
            val elapsed = elapsedMs(start)
            assertTrue(elapsed in 300..2000, "took $elapsed ms")
        }
    }

    @Test
    fun `interrupting the thread while it waits is reported as cancelled`() {
        LocalServer { Reply.Status(503, mapOf("Retry-After" to "2")) }.use { server ->
            val outcome = AtomicReference<Pair<Decision, Boolean>>()
            val worker = Thread {
                val result = RetryingHttpClient(client, policy).send(get(server), HttpResponse.BodyHandlers.discarding())
                outcome.set(result.ending to Thread.currentThread().isInterrupted)
            }
            val start = System.nanoTime()
            worker.start()
            while (server.seen.isEmpty()) Thread.sleep(5)
            Thread.sleep(100)
            worker.interrupt()
            worker.join(5000)
            val (ending, interrupted) = outcome.get()
            assertEquals(GiveUpReason.CANCELLED, (ending as Decision.GaveUp).reason)
            assertEquals(1, ending.attempts)
            assertTrue(interrupted, "the interrupt flag is restored")
            assertTrue(elapsedMs(start) < 1500)
            assertEquals(1, server.seen.size)
        }
    }

    @Test
    fun `interrupting the thread during an attempt is reported as cancelled`() {
        LocalServer { Reply.Stall(2000) }.use { server ->
            val slow = Policy.fromJson("""{"attempt_timeout": {"fixed_ms": 5000}, "jitter": {"kind": "none"}}""")
            val ending = AtomicReference<Decision>()
            val worker = Thread {
                ending.set(RetryingHttpClient(client, slow).send(get(server), HttpResponse.BodyHandlers.discarding()).ending)
            }
            worker.start()
            while (server.seen.isEmpty()) Thread.sleep(5)
            worker.interrupt()
            worker.join(5000)
            assertEquals(GiveUpReason.CANCELLED, (ending.get() as Decision.GaveUp).reason)
            slow.close()
        }
    }

    @Test
    fun `retrying runs a plain block and sleeps as the engine says`() {
        val seen = mutableListOf<Pair<Int, Long>>()
        val start = System.nanoTime()
        val result = retrying(policy, OperationOptions(seed = 7, idempotencyKey = "order-1")) { attempt ->
            seen += attempt.number to attempt.timeoutMs
            assertEquals("order-1", attempt.idempotencyKey)
            if (attempt.number < 3) attempt.outcome(Outcome.Application(Verdict.RETRYABLE)) else attempt.success("done")
        }
        assertEquals(listOf(1 to 300L, 2 to 300L, 3 to 300L), seen)
        assertEquals("done", result.getOrThrow())
        assertEquals(Outcome.Success, result.lastOutcome)
        assertTrue(elapsedMs(start) >= 20 + 40, "the 20 ms and 40 ms waits were slept")
    }

    @Test
    fun `a non-retryable outcome ends at once with its value`() {
        val result = retrying(policy) { attempt -> attempt.outcome(Outcome.HttpStatus(404), "missing") }
        assertEquals(GiveUpReason.NOT_RETRYABLE, (result.ending as Decision.GaveUp).reason)
        assertEquals("missing", result.value)
        assertFalse(result.succeeded)
    }

    @Test
    fun `an exception from the block cancels the operation and propagates`() {
        val stats = Stats()
        val thrown = assertThrows(IllegalStateException::class.java) {
            retrying<Unit>(policy, stats = stats) { throw IllegalStateException("bug in the caller") }
        }
        assertEquals("bug in the caller", thrown.message)
        assertEquals(1L, stats.snapshot().gaveUp.cancelled)
        stats.close()
    }

    @Test
    fun `a hedge runs beside a slow attempt and the loser is interrupted`() {
        val hedged = Policy.fromJson(
            """{"max_attempts": 3, "total_budget_ms": 5000, "attempt_timeout": {"fixed_ms": 2000},
                "response_reserve_ms": 0, "minimum_useful_attempt_ms": 50, "jitter": {"kind": "none"},
                "hedging": {"delay_ms": 100, "max_hedged_attempts": 1}}""",
        )
        LocalServer { n -> if (n == 1) Reply.Stall(3000) else Reply.Status(200, body = "fast") }.use { server ->
            val start = System.nanoTime()
            val result = RetryingHttpClient(client, hedged).send(get(server), HttpResponse.BodyHandlers.ofString())
            val ending = result.ending as Decision.Succeeded
            assertEquals(2, ending.winner)
            assertEquals(listOf(1), ending.abortAttempts)
            assertEquals("fast", result.value?.body())
            assertTrue(elapsedMs(start) in 100..1500, "took ${elapsedMs(start)} ms")
            assertEquals(1, server.seen.map { it.idempotencyKey }.toSet().size)
        }
        hedged.close()
    }

    @Test
    fun `an unsafe write that may have happened is reconciled, not repeated`() {
        val strict = Policy.profile("write_strict")
        var calls = 0
        val result = retrying(strict) { attempt ->
            calls++
            Reported(Outcome.HttpStatus(502), attempt.idempotencyKey)
        }
        assertTrue(result.ending is Decision.Reconcile)
        assertEquals(1, calls)
        assertEquals(result.idempotencyKey, result.value)
        strict.close()
    }
}
