package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.Event
import dev.retryplan.GaveUpException
import dev.retryplan.GiveUpReason
import dev.retryplan.IDEMPOTENCY_KEY_HEADER
import dev.retryplan.MonotonicClock
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.REQUEST_ID_HEADER
import dev.retryplan.ReconcileRequiredException
import dev.retryplan.RetryplanException
import dev.retryplan.Stats
import dev.retryplan.TransportFailure
import dev.retryplan.Verdict
import dev.retryplan.blocking.interruptible
import dev.retryplan.code
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.Idempotent
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import dev.retryplan.outcomeFromHttpResponse
import dev.retryplan.retrying
import dev.retryplan.unknownErrorHint
import dev.retryplan.unknownErrorVerdict
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import okhttp3.Response
import okhttp3.internal.http.UnrepeatableRequestBody
import okio.BufferedSink
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.io.Closeable
import java.io.IOException
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.Collections
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import dev.retryplan.blocking.retrying as retryingBlocking

/** An HTTP answer the attempt did not want, carrying the core's reading of it (for the `outcomeOfError` hook). */
private class HttpStatusException(val outcome: Outcome) : Exception("HTTP $outcome")

/**
 * `retrying` on coroutines, and its blocking layer, behaving as the root
 * README's helper contract says: cancellation, per-attempt timeouts, hedges,
 * thrown errors and the hook, typed endings, and HTTP against the shared
 * server (Retry-After, a keyed POST after a reset, an unsafe POST reconciled
 * after exactly one request).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(30)
class SuspendRetryingTest {
    private val server = ScenarioServer()

    @AfterAll
    fun stop() = server.close()

    private fun policy(extra: String = "", timeoutMs: Long = 300) = Policy.fromJson(
        """{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": $timeoutMs}, "response_reserve_ms": 0,
            "minimum_useful_attempt_ms": 10, "jitter": {"kind": "none"},
            "backoff": {"kind": "constant", "base_ms": 20, "multiplier": 1.0, "cap_ms": 20}$extra}""",
    )

    private fun events(into: MutableList<Event>): (Event) -> Unit = { into += it }

    /**
     * The reviewer's `cancelled-caller`: a coroutine cancelled before it calls
     * `retrying` gets its CancellationException and no attempt runs. Before
     * the fix the attempts' supervisor had no link to the caller's Job, so
     * an attempt launched on a dispatcher that runs it at once (`inline`
     * always; IO and Default most times) ran its block, a charge made for a
     * caller already gone, and even returned its value.
     */
    @Test
    fun `a caller cancelled before it calls retrying gets its cancellation and runs no attempt`() = runBlocking {
        // Inline runs a launched attempt at once, in the launching call: the race IO and Default lose most times, always lost.
        val inline = object : kotlinx.coroutines.CoroutineDispatcher() {
            override fun dispatch(context: kotlin.coroutines.CoroutineContext, block: Runnable) = block.run()

            override fun toString() = "Inline"
        }
        for (dispatcher in listOf(inline, kotlinx.coroutines.Dispatchers.Unconfined, kotlinx.coroutines.Dispatchers.IO, kotlinx.coroutines.Dispatchers.Default)) {
            val ran = AtomicInteger()
            val seen = Collections.synchronizedList(mutableListOf<Event>())
            var thrown: Throwable? = null
            val caller = kotlinx.coroutines.GlobalScope.launch(dispatcher) {
                coroutineContext[Job]!!.cancel()
                thrown = runCatching { policy().use { policy -> retrying(policy, onDecision = events(seen)) { ran.incrementAndGet().let { "charged" } } } }.exceptionOrNull()
            }
            caller.join()
            assertEquals(0, ran.get(), "on $dispatcher: no attempt ran")
            assertTrue(thrown is CancellationException, "on $dispatcher: the caller's cancellation propagated: $thrown")
            assertTrue(seen.none { it.decision is Decision.StartAttempt }, "on $dispatcher: no attempt started: $seen")
            assertEquals(GiveUpReason.CANCELLED, (seen.last().decision as Decision.GaveUp).reason)
        }
    }

    @Test
    fun `each attempt's number is attempt, as in Python and JS, and number is its deprecated alias`() = runBlocking {
        val seen = Collections.synchronizedList(mutableListOf<Pair<Int, Int>>())
        policy().use { policy ->
            retrying(policy, outcomeOfError = { Outcome.Application(Verdict.RETRYABLE) }) { attempt ->
                @Suppress("DEPRECATION")
                seen += attempt.attempt to attempt.number
                if (attempt.attempt < 3) throw IllegalStateException("not yet") else "third"
            }
        }
        assertEquals(listOf(1 to 1, 2 to 2, 3 to 3), seen.toList())
    }

    @Test
    fun `the winner's value comes back, with no error left from an earlier attempt`() = runBlocking {
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val value = policy().use { policy ->
            retrying(policy, onDecision = events(seen), outcomeOfError = { Outcome.Application(Verdict.RETRYABLE) }) { attempt ->
                if (attempt.attempt < 3) throw IllegalStateException("not yet") else "third"
            }
        }
        assertEquals("third", value)
        assertTrue(seen.last().decision is Decision.Succeeded, "the last event is the ending: $seen")
        assertEquals(3, seen.count { it.decision is Decision.StartAttempt })
    }

    @Test
    fun `an unrecognised error is ambiguous by default, retried, and the ending names the hook`() = runBlocking {
        val boom = IllegalStateException("boom")
        var calls = 0
        val ending = assertThrows(GaveUpException::class.java) {
            runBlocking {
                policy().use { policy ->
                    retrying<Unit>(policy, idempotencyKey = "order-7") {
                        calls++
                        throw boom
                    }
                }
            }
        }
        assertEquals(GiveUpReason.ATTEMPTS_EXHAUSTED, ending.reason)
        assertEquals(calls, ending.attempts)
        assertTrue(calls > 1, "retried: $calls")
        assertTrue(ending.message!!.contains("return an outcome from outcomeOfError"), ending.message)
        assertEquals("order-7", ending.idempotencyKey)
        assertEquals(Outcome.Application(Verdict.AMBIGUOUS), ending.lastOutcome)
        assertSame(boom, ending.cause)
        assertTrue(ending.decision is Decision.GaveUp && ending is IOException)
    }

    @Test
    fun `an unrecognised error of a non-idempotent write reconciles after one attempt`() = runBlocking {
        var calls = 0
        val ending = assertThrows(ReconcileRequiredException::class.java) {
            runBlocking {
                policy(""", "idempotency": "unsafe"""").use { policy ->
                    retrying<Unit>(policy) {
                        calls++
                        throw IllegalStateException("boom")
                    }
                }
            }
        }
        assertEquals(1, calls)
        assertEquals(unknownErrorVerdict(), (ending.lastOutcome as Outcome.Application).verdict)
        assertTrue(ending.message!!.endsWith(unknownErrorHint()), ending.message)
    }

    @Test
    fun `a platform failure goes through the failure table`() = runBlocking {
        val attempts = AtomicInteger()
        val ending = assertThrows(GaveUpException::class.java) {
            runBlocking {
                policy().use { policy ->
                    retrying<Unit>(policy) {
                        attempts.incrementAndGet()
                        throw java.net.ConnectException("Connection refused")
                    }
                }
            }
        }
        assertEquals(3, attempts.get(), "connection refused is not_sent: every attempt is tried")
        assertEquals(GiveUpReason.ATTEMPTS_EXHAUSTED, ending.reason)
        assertEquals(Outcome.Transport(TransportFailure.NOT_SENT), ending.lastOutcome)
    }

    @Test
    fun `an attempt running at its abort time is cancelled and counted as timed out`() = runBlocking {
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val cancelled = AtomicBoolean()
        val started = System.nanoTime()
        val value = policy().use { policy ->
            retrying(policy, onDecision = events(seen)) { attempt ->
                if (attempt.attempt == 1) {
                    try {
                        delay(10_000)
                    } finally {
                        cancelled.set(true)
                    }
                }
                attempt.attempt
            }
        }
        val elapsedMs = (System.nanoTime() - started) / 1_000_000
        assertEquals(2, value)
        assertTrue(cancelled.get(), "the hanging attempt was cancelled")
        assertTrue(elapsedMs in 300..2_000, "ended after the 300 ms timeout, not the 10 s hang: $elapsedMs ms")
        val afterTimeout = seen.first { it.after != null }
        assertEquals(Outcome.Transport(TransportFailure.TIMED_OUT), afterTimeout.after!!.outcome)
    }

    @Test
    fun `cancelling the caller cancels the operation and every attempt, and CancellationException propagates`() = runBlocking {
        val stats = Stats()
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val running = CountDownLatch(1)
        val attemptCancelled = AtomicBoolean()
        val job = async {
            policy().use { policy ->
                retrying(policy, stats = stats, onDecision = events(seen)) { _ ->
                    try {
                        running.countDown()
                        delay(10_000)
                    } finally {
                        attemptCancelled.set(true)
                    }
                }
            }
        }
        withContext(kotlinx.coroutines.Dispatchers.Default) { running.await(5, TimeUnit.SECONDS) }
        job.cancel()
        val thrown = try {
            job.await()
            null
        } catch (cancelled: CancellationException) {
            cancelled
        }
        assertTrue(thrown != null, "the caller's CancellationException propagated")
        assertTrue(attemptCancelled.get(), "the running attempt was cancelled")
        assertEquals(1L, stats.snapshot().gaveUp.cancelled, "the core counted the operation as cancelled")
        assertEquals(GiveUpReason.CANCELLED, (seen.last().decision as Decision.GaveUp).reason)
        stats.close()
    }

    @Test
    fun `a CancellationException an attempt throws ends the operation, cancels the other attempts and propagates unchanged`() = runBlocking {
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val calls = AtomicInteger()
        val ownCancellation = CancellationException("the block's own cancellation")
        val firstCancelled = CompletableDeferred<Unit>()
        val thrown = policy(""", "hedging": {"delay_ms": 20, "max_hedged_attempts": 1}""", timeoutMs = 2000).use { policy ->
            try {
                retrying(policy, onDecision = events(seen)) { attempt ->
                    calls.incrementAndGet()
                    if (attempt.attempt == 1) {
                        try {
                            delay(10_000)
                        } finally {
                            firstCancelled.complete(Unit)
                        }
                    }
                    throw ownCancellation // the hedge
                }
            } catch (cancelled: CancellationException) {
                cancelled
            }
        }
        assertSame(ownCancellation, thrown, "the attempt's CancellationException propagated unchanged")
        withTimeout(5_000) { firstCancelled.await() } // the running attempt was cancelled
        assertEquals(2, calls.get(), "never retried")
        assertEquals(GiveUpReason.CANCELLED, (seen.last().decision as Decision.GaveUp).reason)
    }

    @Test
    fun `an attempt that cancels its own coroutine ends the operation, and its cancellation propagates`() = runBlocking {
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val calls = AtomicInteger()
        val thrown = policy().use { policy ->
            try {
                retrying(policy, onDecision = events(seen)) { _ ->
                    calls.incrementAndGet()
                    kotlin.coroutines.coroutineContext[Job]!!.cancel()
                    yield()
                    "never"
                }
            } catch (cancelled: CancellationException) {
                cancelled
            }
        }
        assertTrue(thrown is CancellationException, "the attempt's cancellation propagated: $thrown")
        assertTrue(isActive, "the caller was not cancelled")
        assertEquals(1, calls.get(), "never retried")
        assertEquals(GiveUpReason.CANCELLED, (seen.last().decision as Decision.GaveUp).reason)
    }

    @Test
    fun `a withTimeout inside the block is the attempt's own timeout, attempt_timed_out and retried`() = runBlocking {
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val value = policy().use { policy ->
            retrying(policy, onDecision = events(seen)) { attempt ->
                if (attempt.attempt == 1) withTimeout(1) { CompletableDeferred<Unit>().await() }
                attempt.attempt
            }
        }
        assertEquals(2, value)
        assertEquals(Outcome.Transport(TransportFailure.TIMED_OUT), seen.first { it.after != null }.after!!.outcome)
    }

    @Test
    fun `a CancellationException a blocking attempt throws ends the operation and propagates unchanged`() {
        val seen = Collections.synchronizedList(mutableListOf<Decision>())
        val calls = AtomicInteger()
        val ownCancellation = java.util.concurrent.CancellationException("a cancelled Future's get()")
        val thrown = assertThrows(CancellationException::class.java) {
            policy().use { policy ->
                retryingBlocking<Unit>(policy, onDecision = { seen += it.decision }) {
                    calls.incrementAndGet()
                    throw ownCancellation
                }
            }
        }
        assertSame(ownCancellation, thrown)
        assertEquals(1, calls.get(), "never retried")
        assertEquals(GiveUpReason.CANCELLED, (seen.last() as Decision.GaveUp).reason)
    }

    @Test
    fun `a hedge runs beside a slow attempt, the loser is cancelled, not waited for, and its late value closed`() = runBlocking {
        val closed = CompletableDeferred<Unit>()
        val winnerClosed = AtomicBoolean()
        val loserMayEnd = CompletableDeferred<Unit>()
        val seen = Collections.synchronizedList(mutableListOf<Event>())
        val started = System.nanoTime()
        val winner = policy(""", "hedging": {"delay_ms": 50, "max_hedged_attempts": 1}""", timeoutMs = 2000).use { policy ->
            retrying(policy, onDecision = events(seen)) { attempt ->
                if (attempt.attempt == 1) {
                    // A slow attempt that ignores its cancellation and still produces a value: the caller does
                    // not wait for it, and its value is closed, not leaked.
                    withContext(NonCancellable) { loserMayEnd.await() }
                    Closeable { closed.complete(Unit) }
                } else {
                    Closeable { winnerClosed.set(true) }
                }
            }
        }
        val elapsedMs = (System.nanoTime() - started) / 1_000_000
        assertTrue(elapsedMs >= 50, "the hedge started after its delay: $elapsedMs ms")
        // The loser is still running (it cannot end before this): retrying returned without waiting for it.
        assertTrue(!closed.isCompleted, "the loser ended before retrying returned")
        loserMayEnd.complete(Unit)
        withTimeout(5_000) { closed.await() } // the loser's late value is closed once it comes
        val starts = seen.map { it.decision }.filterIsInstance<Decision.StartAttempt>()
        assertEquals(listOf(false, true), starts.map { it.hedge })
        assertEquals(2, (seen.last().decision as Decision.Succeeded).winner)
        assertTrue(!winnerClosed.get(), "the winner is returned, not closed")
        winner.close()
    }

    @Test
    fun `blocking retrying interrupts an attempt past its abort time and runs hedges on threads`() {
        val interrupted = AtomicBoolean()
        val value = policy().use { policy ->
            retryingBlocking(policy) { attempt ->
                if (attempt.attempt == 1) {
                    try {
                        Thread.sleep(10_000)
                    } catch (e: InterruptedException) {
                        interrupted.set(true)
                        throw e
                    }
                }
                "attempt ${attempt.attempt} on ${Thread.currentThread().name}"
            }
        }
        assertTrue(interrupted.get(), "the attempt past its timeout was interrupted")
        assertEquals("attempt 2 on retryplan-attempt", value)
    }

    @Test
    fun `interrupting a blocking caller cancels the operation and throws InterruptedException`() {
        val stats = Stats()
        val caller = Thread.currentThread()
        val timer = java.util.Timer(true).apply {
            schedule(
                object : java.util.TimerTask() {
                    override fun run() = caller.interrupt()
                },
                150,
            )
        }
        assertThrows(InterruptedException::class.java) {
            policy().use { policy -> retryingBlocking(policy, stats = stats) { Thread.sleep(10_000) } }
        }
        timer.cancel()
        Thread.interrupted()
        assertEquals(1L, stats.snapshot().gaveUp.cancelled)
        stats.close()
    }

    @Test
    fun `misuse of retryplan inside an attempt ends retrying with it, unchanged and never retried, suspend and blocking`() {
        var calls = 0
        val misuse = { _: dev.retryplan.Attempt ->
            calls++
            Policy.fromJson("""{"max_attempts": 0}""") // blame configuration: the caller's to fix
        }
        for (blocking in listOf(false, true)) {
            calls = 0
            val seen = mutableListOf<Decision>()
            val thrown = assertThrows(RetryplanException::class.java) {
                policy().use { policy ->
                    if (blocking) {
                        retryingBlocking(policy, onDecision = { seen += it.decision }, block = misuse)
                    } else {
                        runBlocking { retrying(policy, onDecision = { seen += it.decision }) { misuse(it) } }
                    }
                }
            }
            assertEquals("config_violations", thrown.code)
            assertEquals(1, calls, "never retried")
            val gaveUp = seen.last() as Decision.GaveUp
            assertEquals(GiveUpReason.CANCELLED, gaveUp.reason, "the operation ends")
        }
    }

    @Test
    fun `a request the client refuses as invalid is rethrown unchanged`() {
        val http = RetryingHttpClient(HttpClient.newHttpClient(), policy())
        val error = assertThrows(IllegalArgumentException::class.java) {
            http.send(HttpRequest.newBuilder(java.net.URI("ftp://127.0.0.1/file")), HttpResponse.BodyHandlers.discarding())
        }
        assertTrue(error.message!!.contains("ftp", ignoreCase = true), "the client's own error: $error")
    }

    // ---- HTTP inside `retrying`, against the shared server

    private val client = OkHttpClient.Builder().retryOnConnectionFailure(false).build()

    /** One attempt of a plain OkHttp call, as an app writes it: a 2xx is the value, anything else is thrown for the hook. */
    private suspend fun send(url: String, method: String, body: String?, attempt: dev.retryplan.Attempt): String {
        val builder = Request.Builder().url(url).header(REQUEST_ID_HEADER, attempt.requestId)
            .method(method, body?.let { RequestBody.create(MediaType.parse("text/plain"), it) })
        if (attempt.sendIdempotencyKey) builder.header(IDEMPOTENCY_KEY_HEADER, attempt.idempotencyKey)
        val call = client.newCall(builder.build())
        return interruptible(Response::close, call::cancel) { call.execute() }.use { response ->
            if (response.isSuccessful) return response.body()!!.string()
            throw HttpStatusException(outcomeFromHttpResponse(response.code()) { response.header(it) })
        }
    }

    private val readHttp: (Throwable) -> Outcome? = { (it as? HttpStatusException)?.outcome }

    @Test
    fun `Retry-After from a 503 is honoured`() = runBlocking {
        val id = "retry_after_seconds_then_ok"
        server.reset()
        val started = System.nanoTime()
        val body = policy(timeoutMs = 500).use { policy ->
            retrying(policy, outcomeOfError = readHttp) { attempt -> send(server.url(id), "GET", null, attempt) }
        }
        val elapsedMs = (System.nanoTime() - started) / 1_000_000
        assertEquals("ok", body)
        assertTrue(elapsedMs >= 950, "waited the 1 s the server asked for, not the 20 ms backoff: $elapsedMs ms")
        assertEquals(2, server.log(id).size)
    }

    @Test
    fun `a keyed POST reset after the server read it is retried with the same key`() = runBlocking {
        val id = "keyed_post_reset_after_read_is_retried_with_the_same_key"
        server.reset()
        val body = policy(""", "idempotency": "keyed"""").use { policy ->
            retrying(policy, outcomeOfError = readHttp) { attempt -> send(server.url(id), "POST", "order 5001", attempt) }
        }
        assertEquals("created", body)
        val log = server.log(id)
        assertEquals(2, log.size)
        assertEquals(1, log.map { it["idempotency_key"] }.toSet().size)
        assertTrue(log[0]["idempotency_key"] is String)
        assertEquals(2, log.map { it["request_id"] }.toSet().size)
    }

    @Test
    fun `an unsafe POST reset after the server read it is reconciled after exactly one request`() = runBlocking {
        val id = "post_reset_after_read_reconciles"
        server.reset()
        val ending = assertThrows(ReconcileRequiredException::class.java) {
            runBlocking {
                policy(""", "idempotency": "unsafe"""").use { policy ->
                    retrying(policy, outcomeOfError = readHttp) { attempt -> send(server.url(id), "POST", "order 5002", attempt) }
                }
            }
        }
        val log = server.log(id)
        assertEquals(1, log.size, "exactly one request: $log")
        assertEquals(ending.idempotencyKey, log[0]["idempotency_key"], "the key to reconcile by was sent")
        assertEquals(Outcome.Transport(TransportFailure.CONNECTION_LOST), ending.lastOutcome)
        assertTrue(ending.cause is IOException, "the reset is the cause: ${ending.cause}")
    }

    @Test
    fun `an outcome the core refuses from the hook ends the helper with the core's error`() = runBlocking {
        val error = assertThrows(RetryplanException.InvalidArgument::class.java) {
            runBlocking { policy().use { policy -> retrying<Unit>(policy, outcomeOfError = { Outcome.HttpStatus(42) }) { throw IllegalStateException() } } }
        }
        assertEquals("invalid_argument", error.code)
    }

    @Test
    fun `a key the caller set is the operation's key, in the interceptor and the HttpClient adapter`() {
        val id = "keyed_post_reset_after_read_is_retried_with_the_same_key"
        policy(""", "idempotency": "keyed"""", timeoutMs = 500).use { policy ->
            server.reset()
            val okhttp = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
            val request = Request.Builder().url(server.url(id)).header(IDEMPOTENCY_KEY_HEADER, "order-5001")
                .post(RequestBody.create(MediaType.parse("text/plain"), "order 5001")).build()
            okhttp.newCall(request).execute().use { assertEquals(201, it.code()) }
            assertEquals(listOf("order-5001", "order-5001"), server.log(id).map { it["idempotency_key"] })
            server.reset()
            val http = RetryingHttpClient(HttpClient.newHttpClient(), policy)
            val builder = HttpRequest.newBuilder(java.net.URI(server.url(id))).header(IDEMPOTENCY_KEY_HEADER, "order-5002")
                .POST(HttpRequest.BodyPublishers.ofString("order 5002"))
            val result = http.send(builder, HttpResponse.BodyHandlers.ofString())
            assertEquals(201 to "order-5002", result.response.statusCode() to result.idempotencyKey)
            assertEquals(listOf("order-5002", "order-5002"), server.log(id).map { it["idempotency_key"] })
        }
    }

    private fun interceptorCall(policy: Policy, request: Request): Pair<Int, Decision?> = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build().newCall(request).execute().use { it.code() to it.retryDecision }

    @Test
    fun `a one-shot body is sent once, and a POST tagged idempotent is repeated`() {
        policy(""", "idempotency": "keyed"""", timeoutMs = 500).use { keyed ->
            val id = "retry_after_seconds_then_ok"
            server.reset()
            // OkHttp 3.13 marks a body it must not resend with UnrepeatableRequestBody (isOneShot() from 3.14 on).
            val oneShot = object : RequestBody(), UnrepeatableRequestBody {
                override fun contentType() = MediaType.parse("text/plain")
                override fun writeTo(sink: BufferedSink) {
                    sink.writeUtf8("streamed once")
                }
            }
            val (status, decision) = interceptorCall(keyed, Request.Builder().url(server.url(id)).post(oneShot).build())
            assertEquals(503, status)
            // The 503 wanted a retry the body forbids: the core's one-shot option says so (no longer a silent max_attempts = 1).
            assertEquals(GiveUpReason.BODY_NOT_REPLAYABLE, (decision as Decision.GaveUp).reason)
            assertEquals(1, server.log(id).size, "sent once")
        }
        policy(timeoutMs = 500).use { safe ->
            val id = "keyed_post_reset_after_read_is_retried_with_the_same_key"
            server.reset()
            val body = RequestBody.create(MediaType.parse("text/plain"), "order 5001")
            val request = Request.Builder().url(server.url(id)).post(body).tag(Idempotent::class.java, Idempotent(true)).build()
            assertEquals(201, interceptorCall(safe, request).first)
            assertEquals(2, server.log(id).size, "the caller's word makes the POST repeatable")
        }
    }

    /**
     * A test's fake timers beside a clock they do not move (`runTest`'s virtual `delay` beside
     * `MonotonicClock.SYSTEM`, or a clock that stands still): each wait timed out with the wake time not yet come by the
     * clock and was armed again, forever with a frozen clock. It is refused, naming `clock`, in both layers.
     */
    @Test
    fun `a wait that ends while the clock stands still is refused naming clock, not armed again forever`() {
        val frozen = MonotonicClock { 1_000L }
        val policy = Policy.fromJson(
            """{"max_attempts": 3, "total_timeout_ms": 5000, "jitter": {"kind": "none"},
                "backoff": {"kind": "constant", "base_ms": 60, "multiplier": 1.0, "cap_ms": 60}}""",
        )
        val retryable: (Throwable) -> Outcome = { Outcome.Application(Verdict.RETRYABLE) }
        val words = "invalid argument `clock`: the clock moved 0 ms during a wait of 60 ms: a fake sleep or timer needs a clock that moves with it"
        val attempts = AtomicInteger()
        val suspended = assertThrows(RetryplanException.InvalidArgument::class.java) {
            runBlocking {
                retrying<Int>(policy, clock = frozen, outcomeOfError = retryable) {
                    attempts.incrementAndGet()
                    throw IOException("busy")
                }
            }
        }
        assertEquals("clock", suspended.field)
        assertEquals(words, suspended.message)
        assertEquals(1, attempts.get(), "refused at the first wait")
        val blocking = assertThrows(RetryplanException.InvalidArgument::class.java) {
            retryingBlocking<Int>(policy, clock = frozen, outcomeOfError = retryable) { throw IOException("busy") }
        }
        assertEquals(words, blocking.message)
        // Waits too short to judge one by one: refused once their timers ran the wait and a quarter of a second more.
        val short = Policy.fromJson(
            """{"max_attempts": 3, "total_timeout_ms": 5000, "jitter": {"kind": "none"},
                "backoff": {"kind": "constant", "base_ms": 10, "multiplier": 1.0, "cap_ms": 10}}""",
        )
        val shortWait = assertThrows(RetryplanException.InvalidArgument::class.java) {
            runBlocking { retrying<Int>(short, clock = frozen, outcomeOfError = retryable) { throw IOException("busy") } }
        }
        assertEquals(
            "invalid argument `clock`: the clock moved 0 ms during a wait of 10 ms: a fake sleep or timer needs a clock that moves with it",
            shortWait.message,
        )
    }
}
