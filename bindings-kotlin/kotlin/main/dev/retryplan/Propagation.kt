package dev.retryplan

import kotlinx.coroutines.CoroutineScope
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.coroutineContext

/*
 * The server side of propagation (issue 27), plain JVM: the incoming
 * request's context read by the core through a header lookup, kept as the
 * request's ambient context (a coroutine context element, or the value
 * passed explicitly in blocking code), and the request's [Answer], which the
 * core decides from the endings of the helpers inside the request. Nothing
 * here computes a deadline, a count or a header value.
 */

/**
 * Reads the incoming request's headers through [header] (a lookup by lower-case name: every line of the header
 * joined with `", "`, as RFC 9110 §5.3 joins them; null when absent).
 */
@Throws(RetryplanException::class)
fun IncomingContext.Companion.read(policy: Policy, nowMs: Long, header: (String) -> String?): IncomingContext = IncomingContext.read(
    policy,
    nowMs,
    object : HeaderLookup {
        override fun header(name: String): String? = header(name)
    },
)

/** The HTTP status a server answers a request whose propagation headers the core refused with: 400 (the core's docs). */
const val MALFORMED_PROPAGATION_STATUS = 400

/**
 * The ambient context of one request being served: the [incoming] context
 * the core read from it and the answer's headers the endings of the helpers
 * inside the request decide ([answerHeaders]). It is a
 * coroutine context element (`withContext(requestContext) { ... }`, or
 * [serving]), which `retrying {}` and `RetryingHttpClient.sendAwait` pick up;
 * blocking code passes it explicitly (`RetryingHttpClient.send(..., context)`,
 * the blocking `retrying(..., context)`, OkHttp's request tag:
 * `OkHttpClient.within(context)`), no `ThreadLocal`.
 */
class RequestContext(
    /** The context the core read from the incoming request. */
    val incoming: IncomingContext,
    /** What this server answers in, which decides the answer's headers. */
    val protocol: Protocol = Protocol.HTTP,
) : AbstractCoroutineContextElement(RequestContext) {
    private val answer = Answer()

    /**
     * The headers this server adds to its answer, as the core's [Answer]
     * decides them from the endings of the helpers inside this request (the
     * last give-up decides: "do not retry" after overload or an exhausted
     * budget; none otherwise, and none when no helper gave up).
     */
    fun answerHeaders(): List<HeaderField> = answer.headers(protocol)

    /** A helper's operation inside this request ended: its [driver]'s ending is recorded (the core's `Answer` judges it). */
    internal fun ended(driver: Driver) = driver.withNative { answer.record(it) }

    companion object Key : CoroutineContext.Key<RequestContext> {
        /**
         * Reads the incoming request's headers through [header] at [nowMs] on
         * [clock] as [policy]'s `propagation` section says. A malformed
         * propagation header raises the core's `InvalidRequestHeader` (blame
         * `CALLER`; or `InvalidArgument` naming `Idempotency-Key`): answer it with
         * [MALFORMED_PROPAGATION_STATUS].
         */
        @Throws(RetryplanException::class)
        fun read(policy: Policy, clock: MonotonicClock = MonotonicClock.SYSTEM, protocol: Protocol = Protocol.HTTP, header: (String) -> String?): RequestContext = RequestContext(IncomingContext.read(policy, clock.nowMs(), header), protocol)

        /** The ambient request context of the calling coroutine, if any. */
        suspend fun current(): RequestContext? = coroutineContext[RequestContext]
    }
}

/** How a request was served by [serving]: the handler's value and the answer's headers, or the 400 of a malformed header. */
sealed class Served<out T> {
    /** The handler ran: answer with [value] and add [answerHeaders]. */
    class Answered<T>(val value: T, val answerHeaders: List<HeaderField>) : Served<T>()

    /** The core refused a propagation header ([error] names it): answer [status] (400), the handler did not run. */
    class Malformed(val error: RetryplanException) : Served<Nothing>() {
        val status: Int get() = MALFORMED_PROPAGATION_STATUS
    }
}

/**
 * Serves one request from any server framework: reads its propagation
 * headers through [header] ([RequestContext.read]), runs [handler] with the
 * context as its coroutine context element, and returns its value with the
 * answer's headers to add; a refused header is [Served.Malformed] (answer 400,
 * naming the header: the error's message).
 *
 * [header] gives a header's field value by lower-case name, every line of it
 * joined with `", "` as RFC 9110 §5.3 joins them (`exchange.requestHeaders[name]?.joinToString(", ")`),
 * null when absent: the core then refuses a header sent twice, where the
 * first line alone would pass a looser deadline or another key.
 *
 * [handler] runs in the request's coroutine scope: a coroutine it starts
 * (`async {}`, `launch {}`) is its child, with the request's context too.
 */
suspend fun <T> serving(
    policy: Policy,
    header: (String) -> String?,
    clock: MonotonicClock = MonotonicClock.SYSTEM,
    protocol: Protocol = Protocol.HTTP,
    handler: suspend CoroutineScope.(RequestContext) -> T,
): Served<T> {
    val context = try {
        RequestContext.read(policy, clock, protocol, header)
    } catch (refused: RetryplanException) {
        return Served.Malformed(refused)
    }
    val value = kotlinx.coroutines.withContext(context) { handler(context) }
    return Served.Answered(value, context.answerHeaders())
}
