package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.Policy
import dev.retryplan.blocking.retrying
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retrying
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.launch
import okhttp3.Call
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.io.IOException
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReferenceArray

/**
 * The blocking entry points called from every thread of `Dispatchers.Default`
 * at once (a WorkManager `CoroutineWorker`, `withContext(Default) { call.execute() }`):
 * each call ends. Before the fix each parked its Default thread while its loop
 * waited, queued on Default, for a free one: every call hung, past its
 * deadline and `Call.cancel()` alike. A call that hangs fails the bounded wait
 * (the loops then stay parked: the class's timeout ends the run); nothing sleeps.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StarvationTest {
    /** Default's threads: as many as CPUs, at least two (kotlinx's CORE_POOL_SIZE). */
    private val workers = maxOf(2, Runtime.getRuntime().availableProcessors())
    private val policy = Policy.fromJson("""{"max_attempts": 2, "total_timeout_ms": 30000, "jitter": {"kind": "none"}}""")
    private val server = LocalServer { LocalServer.Reply.Status(200, body = "ok") }

    @AfterAll
    fun close() {
        server.close()
        policy.close()
    }

    /**
     * Runs [call] on every thread of `Dispatchers.Default` together (each
     * enters only when all have: no Default thread is left free), and returns
     * what each returned or threw, once all have ended (at most 60 s).
     */
    private fun onEveryDefaultThread(call: (Int) -> Any?): List<Any?> {
        val inside = CountDownLatch(workers)
        val ended = CountDownLatch(workers)
        val results = AtomicReferenceArray<Any?>(workers)
        val scope = CoroutineScope(Dispatchers.Default)
        repeat(workers) { i ->
            scope.launch {
                inside.countDown()
                inside.await(30, TimeUnit.SECONDS)
                results.set(i, runCatching { call(i) }.let { it.exceptionOrNull() ?: it.getOrNull() })
                ended.countDown()
            }
        }
        assertTrue(ended.await(60, TimeUnit.SECONDS), "every call made on a Default thread ended (${workers - ended.count} of $workers)")
        return List(workers) { results.get(it) }
    }

    @Test
    fun `the blocking retrying ends on every Default thread at once`() {
        assertEquals(List(workers) { 42 }, onEveryDefaultThread { retrying(policy) { 42 } })
    }

    @Test
    fun `OkHttp execute through RetryInterceptor ends on every Default thread at once`() {
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
        try {
            val bodies = onEveryDefaultThread { client.newCall(Request.Builder().url(server.uri.toURL()).build()).execute().use { it.body()!!.string() } }
            assertEquals(List(workers) { "ok" }, bodies)
        } finally {
            client.dispatcher().executorService().shutdown()
        }
    }

    @Test
    fun `RetryingHttpClient send ends on every Default thread at once`() {
        val http = RetryingHttpClient(HttpClient.newHttpClient(), policy)
        val statuses = onEveryDefaultThread { http.send(HttpRequest.newBuilder(server.uri), HttpResponse.BodyHandlers.ofString()).response.statusCode() }
        assertEquals(List(workers) { 200 }, statuses)
    }

    /** The reviewer's `starvecancel`: calls on every Default thread whose attempts have started end at `Call.cancel()`. */
    @Test
    fun `Call cancel ends calls made on every Default thread at once`() {
        val held = CountDownLatch(1)
        val started = CountDownLatch(workers)
        val calls = CopyOnWriteArrayList<Call>()
        val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy, onDecision = { if (it.decision is Decision.StartAttempt) started.countDown() }))
            .addInterceptor { chain -> held.await().let { chain.proceed(chain.request()) } }.build()
        val canceller = Thread {
            started.await()
            calls.forEach(Call::cancel)
        }.apply { start() }
        try {
            val errors = onEveryDefaultThread { client.newCall(Request.Builder().url(server.uri.toURL()).build()).also { calls += it }.execute() }
            errors.forEach { assertTrue(it is IOException && it.message == "Canceled", "cancel() ends the call with IOException(\"Canceled\"): $it") }
        } finally {
            held.countDown()
            canceller.join()
            client.dispatcher().executorService().shutdown()
        }
    }
}
