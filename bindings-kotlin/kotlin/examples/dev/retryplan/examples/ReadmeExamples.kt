// The Kotlin examples of bindings-kotlin/README.md, compiled with the test
// classes by build.sh (so CI fails when the README's code stops compiling)
// and run, where they need no server, by ReadmeExamplesTest. Each block is the
// README's, without its import lines: check-examples.py compares them both ways.
package dev.retryplan.examples

import dev.retryplan.Decision
import dev.retryplan.Dependency
import dev.retryplan.DependencyConfig
import dev.retryplan.GaveUpException
import dev.retryplan.MonotonicClock
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.REQUEST_ID_HEADER
import dev.retryplan.RetryplanException
import dev.retryplan.code
import dev.retryplan.compileDependency
import dev.retryplan.ReconcileRequiredException
import dev.retryplan.Stats
import dev.retryplan.Verdict
import dev.retryplan.blocking.interruptible
import dev.retryplan.http.RetriedResponse
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.Idempotent
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import dev.retryplan.retrying
import dev.retryplan.Served
import dev.retryplan.serving
import dev.retryplan.Event
import dev.retryplan.Telemetry
import dev.retryplan.TelemetrySignal
import dev.retryplan.telemetrySignals
import com.sun.net.httpserver.HttpServer
import kotlinx.coroutines.runBlocking
import java.net.InetSocketAddress
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import java.io.InputStream
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.Base64

/** Stand-ins for an app's own code. */
interface ProfileApi {
    suspend fun profile(userId: String, requestId: String): String
}

class Busy : Exception()

fun log(message: Any?) = println(message)

// README: coroutines
val readPolicy = Policy.profile("read") // immutable: share one

suspend fun loadProfile(api: ProfileApi, userId: String): String =
    retrying(readPolicy, outcomeOfError = { if (it is Busy) Outcome.Application(Verdict.RETRYABLE) else null }) { attempt ->
        // A suspend call; an IOException it throws is read by the failure table
        // (refused, DNS, timeouts, resets), anything else by outcomeOfError; what
        // that leaves (null) is the core's verdict for an unknown error, AMBIGUOUS.
        api.profile(userId, requestId = attempt.requestId)
    }
// README: end

// README: results
/** The service's answer: a price, or "busy, try again" as a value rather than an exception. */
data class Quote(val price: Long?, val busy: Boolean = price == null)

suspend fun latestQuote(policy: Policy, fetch: suspend (requestId: String) -> Quote): Quote = try {
    retrying(policy, outcomeOfResult = { quote: Quote -> if (quote.busy) Outcome.Application(Verdict.RETRYABLE) else null }) { attempt ->
        fetch(attempt.requestId)
    }
} catch (gaveUp: GaveUpException) {
    // Busy on every attempt: the ending carries the last reply as lastValue (and no cause: nothing was thrown).
    gaveUp.lastValue as Quote
}
// README: end

// README: blocking_call
val profiles = OkHttpClient()

suspend fun loadProfileBlocking(url: String): String =
    retrying(readPolicy) { attempt ->
        val call = profiles.newCall(Request.Builder().url(url).header(REQUEST_ID_HEADER, attempt.requestId).build())
        // A blocking call: interruptible runs it on a thread of its own and, when the attempt
        // is aborted at its deadline, cancels the call and interrupts the thread.
        interruptible(onCancel = call::cancel) { call.execute().use { it.body()!!.string() } }
    }
// README: end

// README: okhttp
val payments = Dependency.fromJson("""{"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}}""")
val stats = Stats()
val client: OkHttpClient = OkHttpClient.Builder()
    .retrying(RetryInterceptor(Policy.profile("checkout"), payments, stats, onDecision = { event -> log(event.decision) }))
    .build()

fun pay(order: String): String? {
    val request = Request.Builder().url("https://payments.example/charges")
        .post(RequestBody.create(MediaType.parse("application/json"), order))
        .build()
    return try {
        client.newCall(request).execute().use { response ->
            log(response.retryDecision) // Succeeded, or GaveUp with the last response (a 503, a 404, ...)
            if (response.isSuccessful) response.body()?.string() else null
        }
    } catch (reconcile: ReconcileRequiredException) {
        log("the charge may have happened: look it up by ${reconcile.idempotencyKey}")
        null
    } catch (gaveUp: GaveUpException) {
        log("no response: ${gaveUp.reason}, caused by ${gaveUp.cause}")
        null
    }
}

/** A POST the server deduplicates by other means may be repeated: say so per request. */
fun idempotentPost(url: String, body: RequestBody): Request =
    Request.Builder().url(url).post(body).tag(Idempotent::class.java, Idempotent(true)).build()
// README: end

// README: blocking
fun nightlyExport(policy: Policy): Int = dev.retryplan.blocking.retrying(policy) { attempt ->
    // Runs on a thread of its own: interrupted when the attempt is aborted.
    attempt.attempt
}
// README: end

// README: api
val checkout = Policy.profile("checkout") // 800 ms, up to 3 attempts of at most 200 ms, keyed writes
// or: Policy.fromJson("""{"max_attempts": 3, "total_timeout_ms": 800, "attempt_timeout": {"fixed_ms": 200}}""")
// or: Policy(defaultPolicyConfig().copy(maxAttempts = 5))   // defaults and rules come from the core

/** One operation: `send` makes one attempt with its timeout, the idempotency key and its request id. */
fun placeOrder(send: (timeoutMs: Long, idempotencyKey: String, requestId: String) -> Outcome): Decision {
    val clock = MonotonicClock.SYSTEM                      // ms since MonotonicClock loaded: read every time here
    Operation(checkout, clock.nowMs(), OperationOptions(idempotencyKey = "order-5001")).use { op ->
        var decision = op.poll(clock.nowMs())
        while (true) {
            decision = when (decision) {
                is Decision.StartAttempt -> {
                    val outcome = send(decision.timeoutMs, op.idempotencyKey(), decision.requestId)
                    op.onOutcome(clock.nowMs(), decision.attempt, outcome)
                }
                is Decision.Wait -> { Thread.sleep(maxOf(0L, decision.untilMs - clock.nowMs())); op.poll(clock.nowMs()) }
                is Decision.AwaitOutcome -> error("not with one attempt at a time")
                is Decision.Succeeded, is Decision.GaveUp, is Decision.Reconcile, is Decision.Restart -> return decision
            }
        }
    }
}
// README: end

// README: compiled
/** The line `retryplan compile policy.json` printed (base64), as the policy: no JSON read at run time. */
fun compiledPolicy(line: String): Policy = Policy.fromCompiled(Base64.getDecoder().decode(line))

val form: ByteArray = checkout.toCompiled()                                 // the same bytes in every language
val controls: ByteArray = compileDependency(DependencyConfig(retrySlots = 4)) // Dependency.fromCompiled(controls)

/** Why a form is refused: `not_a_compiled_form`, `compiled_form_version`, `compiled_form_damaged` or `compiled_form_kind`. */
fun refusal(bytes: ByteArray): String? = try {
    Policy.fromCompiled(bytes).close()
    null
} catch (e: RetryplanException.CompiledForm) {
    e.code
}
// README: end

// README: httpclient
// Redirect.NORMAL: redirects are followed inside each attempt's window (the JDK's default, NEVER, returns the 3xx),
// to any host, with every header the request sets (see below before sending credentials).
val http = RetryingHttpClient(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build(), Policy.profile("checkout"))

fun postOrder(uri: URI, body: HttpRequest.BodyPublisher): RetriedResponse<InputStream> =
    http.send(HttpRequest.newBuilder(uri).POST(body), HttpResponse.BodyHandlers.ofInputStream())
// README: end

// README: propagation
fun propagatingService(policy: Policy, nextHop: URI): HttpServer = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0).apply {
    val client = RetryingHttpClient(HttpClient.newHttpClient(), policy)
    createContext("/") { exchange ->
        exchange.use {
            // The caller's deadline, attempt count and key, read by the core: the request's ambient context.
            val served = runBlocking {
                // Every line of a header, joined as RFC 9110 joins them: a header sent twice is refused, never its first line.
                serving(policy, { name -> exchange.requestHeaders[name]?.joinToString(", ") }) {
                    // sendAwait picks the context up: its driver starts from it, each attempt sends the core's headers.
                    runCatching { client.sendAwait(HttpRequest.newBuilder(nextHop), HttpResponse.BodyHandlers.discarding()).response.statusCode() }
                        .getOrDefault(502)
                }
            }
            when (served) {
                is Served.Malformed -> { // 400, naming the refused header in the core's words
                    val words = "${served.error.message}\n".toByteArray()
                    exchange.sendResponseHeaders(served.status, words.size.toLong())
                    exchange.responseBody.write(words)
                }
                is Served.Answered -> {
                    // "Do not retry" when a helper inside gave up for overload or its budget: the core's answer.
                    served.answerHeaders.forEach { exchange.responseHeaders.add(it.name, it.value) }
                    exchange.sendResponseHeaders(served.value, -1)
                }
            }
        }
    }
    start()
}
// README: end

// README: telemetry
/** What a meter would record: each counter the core names, by its data point's attribute. */
class CountingHook : (Event) -> Unit {
    val counts = java.util.concurrent.ConcurrentHashMap<String, Long>()

    override fun invoke(event: Event) {
        for (signal in telemetrySignals(event)) {
            if (signal !is TelemetrySignal.Count) continue
            val counter = Telemetry.metric(signal.metric)
            val key = if (counter.attribute == null) counter.name else "${counter.name}{${counter.attribute}=${signal.value}}"
            counts.merge(key, 1L, Long::plus)
        }
    }
}

suspend fun countedCall(policy: Policy, hook: CountingHook, call: suspend (Int) -> String): String =
    retrying(policy, onDecision = hook) { attempt -> call(attempt.attempt) }
// README: end
