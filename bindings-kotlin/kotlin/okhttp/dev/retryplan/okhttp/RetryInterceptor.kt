package dev.retryplan.okhttp

import dev.retryplan.Attempt
import dev.retryplan.Decision
import dev.retryplan.Dependency
import dev.retryplan.Event
import dev.retryplan.Failure
import dev.retryplan.Helper
import dev.retryplan.HttpReading
import dev.retryplan.IDEMPOTENCY_KEY_HEADER
import dev.retryplan.Io
import dev.retryplan.MonotonicClock
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.REQUEST_ID_HEADER
import dev.retryplan.RequestContext
import dev.retryplan.RetryplanException
import dev.retryplan.Stats
import dev.retryplan.blocking.blocking
import dev.retryplan.blocking.interruptible
import dev.retryplan.description
import dev.retryplan.eachRequestHeader
import dev.retryplan.followedRedirect
import dev.retryplan.headerNameOption
import dev.retryplan.httpFailureOf
import dev.retryplan.joinedLines
import okhttp3.Call
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import okhttp3.Response
import java.io.IOException
import java.io.InterruptedIOException
import java.net.ProtocolException
import java.util.Collections
import java.util.IdentityHashMap
import java.util.concurrent.TimeUnit

/** Tag a request with `Idempotent(true)` to let it be repeated whatever its method, or `false` to forbid it. */
class Idempotent(val value: Boolean)

/** How an operation ended, on each attempt's request: read it from the response with [retryDecision]. */
class RetryTag internal constructor(val idempotencyKey: String) {
    @Volatile var decision: Decision? = null
        internal set
}

/** The ending decision of the operation that returned this response (null when no RetryInterceptor ran). */
val Response.retryDecision: Decision? get() = request().tag(RetryTag::class.java)?.decision

/**
 * An OkHttp application interceptor running the core's retries: an adapter
 * over the same host loop as `retrying`. Add it first among the application
 * interceptors: each attempt is a call of its own (a clone of the intercepted
 * call, which this interceptor lets through to the rest of the chain), so an
 * attempt can be aborted at its timeout and hedges run concurrently.
 *
 * Per attempt it bounds the chain's connect, read and write timeouts by the
 * attempt's window (each phase keeps the client's own timeout, or one an
 * interceptor before this one set, where that is shorter), sends a fresh
 * request id under [requestIdHeader] (`X-Request-Id`; null leaves it out, an
 * empty name is refused when the interceptor is made) and, when the plan says so,
 * the key under [idempotencyKeyHeader] (`Idempotency-Key`; a key the caller set
 * under it is the operation's key; null: neither read nor sent, and a
 * reconcile's message names no key). The
 * method says what may be repeated (RFC 9110; tag the request [Idempotent] to
 * say otherwise); the status (as OkHttp gives it) and the guidance headers
 * are read by the core. A one-shot or duplex body is sent once, never hedged,
 * and the operation ends `gave_up body_not_replayable` where a retry was
 * wanted. OkHttp follows redirects inside the attempt, under its window; a
 * response got through one (a 3xx among its `priorResponse()`s) is handed to the core as
 * redirected (OkHttp's other follow-ups, its own resend of a 503 with
 * `Retry-After: 0` and an `Authenticator`'s answer to a 401 or 407, are the same
 * attempt, not a redirect), which reads its retryable failure as ambiguous (an earlier hop
 * may have processed the request), so a POST answered 303 whose target
 * answers 503 ends reconcile unless keyed. It
 * returns the response the core chooses (the last one, unless reconcile; the
 * ending in [retryDecision]) and closes every other (a failed one it returns
 * is readable until its attempt's abort time, when its call is cancelled; a
 * success's body is the caller's); else it
 * throws the typed ending (an `IOException`). `call.cancel()` cancels the operation and every attempt
 * (`IOException("Canceled")`, as OkHttp throws); so does interrupting the calling thread (`InterruptedIOException`,
 * as OkHttp throws, the thread's interrupt flag left set; also when it is set before `execute()`). The operation's
 * loop runs on the calling thread itself: a call made from a `Dispatchers.Default` thread (every one of them
 * at once) ends as any other. It throws only
 * `IOException`s, as OkHttp's interceptors must, on `execute()` and
 * `enqueue()` alike: any other exception (the core's refusal of a request
 * whose own `Idempotency-Key` is empty or malformed, a hook's exception,
 * OkHttp's `IllegalArgumentException` for an invalid request) arrives as a
 * [RetryInterceptorException] whose cause it is (an `Error` propagates as it
 * is: a fatal one an attempt throws, `OutOfMemoryError` or `StackOverflowError`, ends the operation at once and is
 * never retried; an attempt's `InterruptedException`, fatal too, arrives as OkHttp's `InterruptedIOException`), as does a success `outcomeOfError` answers for a thrown error (there
 * is no response to return: its cause is that error). A call made inside a request
 * being served carries its [RequestContext] as its tag ([within],
 * [withAmbientContext]): the driver starts from the caller's context, each
 * attempt carries the core's outgoing headers, and a give-up decides the
 * request's answer headers.
 */
class RetryInterceptor @JvmOverloads constructor(
    policy: Policy,
    dependency: Dependency? = null,
    stats: Stats? = null,
    onDecision: ((Event) -> Unit)? = null,
    outcomeOfError: ((Throwable) -> Outcome?)? = null,
    clock: MonotonicClock = MonotonicClock.SYSTEM,
    requestIdHeader: String? = REQUEST_ID_HEADER,
    idempotencyKeyHeader: String? = IDEMPOTENCY_KEY_HEADER,
) : Interceptor {
    private val helper = Helper(policy, dependency, stats, onDecision, outcomeOfError, clock)

    /** The header carrying each attempt's request id, or null to send none. */
    private val requestIdHeader = headerNameOption("requestIdHeader", requestIdHeader)

    /** The header the key is read from (a caller's own) and sent under, or null: neither read nor sent. */
    private val idempotencyKeyHeader = headerNameOption("idempotencyKeyHeader", idempotencyKeyHeader)

    /** The attempt calls this interceptor made, and their request and timeout: let through, not retried again. */
    private val attempts = Collections.synchronizedMap(IdentityHashMap<Call, Pair<Request, Int>>())

    override fun intercept(chain: Interceptor.Chain): Response {
        attempts[chain.call()]?.let { (request, timeoutMs) ->
            // The chain's timeouts are the client's, or an earlier interceptor's: the window only shortens them.
            return chain.withConnectTimeout(tighter(chain.connectTimeoutMillis(), timeoutMs), TimeUnit.MILLISECONDS)
                .withReadTimeout(tighter(chain.readTimeoutMillis(), timeoutMs), TimeUnit.MILLISECONDS)
                .withWriteTimeout(tighter(chain.writeTimeoutMillis(), timeoutMs), TimeUnit.MILLISECONDS).proceed(request)
        }
        val request = chain.request()
        val operation = dev.retryplan.requestName(request.method(), request.url().toString())
        return try {
            operate(chain.call(), request, operation)
        } catch (error: Exception) {
            // OkHttp's contract: an interceptor throws IOException (on OkHttp 3 anything else reaches neither of enqueue's
            // callbacks). An attempt's InterruptedException (fatal: isFatal) is OkHttp's own interrupt, the flag set again.
            if (error is InterruptedException) throw InterruptedIOException("interrupted").apply { initCause(error) }.also { Thread.currentThread().interrupt() }
            throw error as? IOException ?: RetryInterceptorException(refusalMessage(operation, error), error)
        }
    }

    /** Runs [request]'s operation for [call], its endings naming it [operation]. */
    private fun operate(call: Call, request: Request, operation: String): Response {
        if (call.isCanceled) throw IOException("Canceled")
        // A key the caller set makes the request keyed by that exact key: the core's rule (Policy.httpRequest).
        val http = helper.policy.httpRequest(request.method(), request.tag(Idempotent::class.java)?.value, idempotencyKeyHeader?.let(request::header))
        // OkHttp follows redirects inside the attempt's call: a response with a 3xx among its prior ones is a redirect
        // target's answer (a prior 503 or 401 is OkHttp's own resend of the same request: the same attempt).
        val io = Io<Response>({ HttpReading(it.code().toLong(), followedRedirect(priorStatuses(it))) { name -> joinedLines(it.headers(name)) } }, ::okHttpFailureOf, ::invalidRequest, Response::close)
        // The request being served, carried as the call's tag (OkHttpClient.within): no ThreadLocal.
        return helper.operate(io, request.tag(RequestContext::class.java), http, isOneShot(request.body())) { host ->
            val tag = RetryTag(host.key)
            val calls = Collections.synchronizedList(ArrayList<Call>())

            /** Which attempt call each response came from: the returned one's call is the one left running. */
            val callOf = Collections.synchronizedMap(IdentityHashMap<Response, Call>())

            var returned: Call? = null
            try {
                // `call.cancel()`: OkHttp's IOException("Canceled"); an interrupt: its InterruptedIOException, the flag kept set.
                val ended = blocking(call::isCanceled, { IOException("Canceled") }, { InterruptedIOException("interrupted") }) {
                    host.run { attempt -> send(call, request, attempt, tag, calls, callOf) }
                }
                tag.decision = ended.decision
                returned = ended.value?.let(callOf::get)
                // Cancelling the attempt's call at its abort time ends a failed body still streaming then.
                ended.cutFailedBodyAtAbort { callOf[it]?.cancel() }
                // A success returns its response: the core refused an error outcomeOfError called a success.
                ended.valueOrThrow(operation, keySent = idempotencyKeyHeader != null)
            } finally {
                // The loop does not wait for aborted attempts: cancel their calls before they stop being
                // attempts here, so one that starts late cannot run as an operation of its own.
                synchronized(calls) {
                    calls.forEach { if (it !== returned) it.cancel() }
                    calls.forEach { attempts.remove(it) }
                }
            }
        }
    }

    private suspend fun send(
        call: Call,
        request: Request,
        attempt: Attempt,
        tag: RetryTag,
        calls: MutableList<Call>,
        callOf: MutableMap<Response, Call>,
    ): Response {
        val builder = request.newBuilder().tag(RetryTag::class.java, tag)
        attempt.eachRequestHeader(requestIdHeader, idempotencyKeyHeader) { name, value -> builder.header(name, value) }
        val timeoutMs = attempt.timeoutMs.coerceIn(1, Int.MAX_VALUE.toLong()).toInt() // 0 is "no timeout" to OkHttp
        val own = call.clone()
        calls += own
        attempts[own] = builder.build() to timeoutMs
        return interruptible(Response::close, own::cancel) { own.execute().also { callOf[it] = own } }
    }
}

/**
 * What [RetryInterceptor] throws in place of an exception that is not an
 * `IOException`, since an OkHttp interceptor throws only `IOException`s (on
 * OkHttp 3 anything else reaches neither of `enqueue`'s callbacks: the caller
 * would wait forever). Its [cause] is that exception, as it was: the core's
 * refusal of the request (`RetryplanException.InvalidArgument` naming the
 * `Idempotency-Key` header when the request's own key is empty or malformed),
 * or the core's refusal of an error `outcomeOfError` called a success
 * (`RetryplanException.InvalidArgument` naming `outcome_of_error`, whose
 * cause is that error: an interceptor has no response to return then), an
 * exception a hook (`onDecision`, `outcomeOfError`) threw, or OkHttp's
 * `IllegalArgumentException` for an invalid request. Its message names the
 * request (method and URL) and the cause's words (a `RetryplanException`'s
 * `description`).
 */
class RetryInterceptorException internal constructor(message: String, cause: Throwable) : IOException(message, cause)

/** The message of a [RetryInterceptorException]: the request, and the core's words for its error, else the exception. */
private fun refusalMessage(operation: String, cause: Exception) = "retryplan: $operation: ${if (cause is RetryplanException) cause.description else cause.toString()}"

/** The statuses of the responses OkHttp followed up to get [response] (its `priorResponse()` chain), the latest first. */
private fun priorStatuses(response: Response): Sequence<Int> = generateSequence(response.priorResponse(), Response::priorResponse).map(Response::code)

/** The smaller of a chain's own timeout ([ownMs]; 0 is no timeout in OkHttp) and the attempt's window ([attemptMs]). */
private fun tighter(ownMs: Int, attemptMs: Int): Int = if (ownMs in 1 until attemptMs) ownMs else attemptMs

/**
 * OkHttp's failure table: the HTTP helpers' ([httpFailureOf]), and a
 * `NumberFormatException`, which OkHttp 3's own follow-up step throws from
 * inside the chain on a `Retry-After` no `Int` holds: the server's malformed
 * response.
 */
private fun okHttpFailureOf(error: Throwable): Failure? = if (error is NumberFormatException) Failure.MALFORMED_RESPONSE else httpFailureOf(error)

/**
 * Rethrown unchanged, never retried: OkHttp's refusal of an invalid request (a bad URL or header,
 * IllegalArgumentException), and its end of a redirect loop past its 20 follow-ups (ProtocolException), which a
 * retry would follow again (Python's clients raise their TooManyRedirects above the helper; JS rethrows fetch's).
 */
private fun invalidRequest(error: Throwable): Boolean = (error is IllegalArgumentException && error !is NumberFormatException) ||
    (error is ProtocolException && error.message?.startsWith("Too many follow-up requests") == true)

/**
 * Adds a [RetryInterceptor] as the first application interceptor and turns
 * off OkHttp's own silent retry of failed connections (which would repeat a
 * request, a POST included, below the policy's decision).
 */
fun OkHttpClient.Builder.retrying(interceptor: RetryInterceptor): OkHttpClient.Builder = apply {
    interceptors().add(0, interceptor)
    retryOnConnectionFailure(false)
}

/**
 * True for a body that can be written once: `isOneShot()` or `isDuplex()`
 * (OkHttp 3.14 and later, called by name), or on OkHttp 3.13 and older the
 * internal markers that OkHttp itself never retries
 * (`UnrepeatableRequestBody`, `DuplexRequestBody`).
 */
private fun isOneShot(body: RequestBody?): Boolean {
    if (body == null) return false
    fun flag(name: String) = runCatching { body.javaClass.getMethod(name).invoke(body) == true }.getOrDefault(false)
    val markers = setOf("okhttp3.internal.http.UnrepeatableRequestBody", "okhttp3.internal.duplex.DuplexRequestBody")
    return flag("isOneShot") || flag("isDuplex") || generateSequence<Class<*>>(body.javaClass) { it.superclass }
        .any { type -> type.interfaces.any { it.name in markers } }
}

/**
 * A `Call.Factory` over this client whose every call serves [context]: the
 * request carries it as its tag, which [RetryInterceptor] picks up (blocking
 * code passes the request's context explicitly; no `ThreadLocal`).
 */
fun OkHttpClient.within(context: RequestContext): Call.Factory = Call.Factory { request -> newCall(request.newBuilder().tag(RequestContext::class.java, context).build()) }

/** [within] the calling coroutine's [RequestContext], or this client itself outside a request being served. */
suspend fun OkHttpClient.withAmbientContext(): Call.Factory = RequestContext.current()?.let(::within) ?: this
