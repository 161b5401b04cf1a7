package dev.retryplan.http

import dev.retryplan.Attempt
import dev.retryplan.Decision
import dev.retryplan.Dependency
import dev.retryplan.Event
import dev.retryplan.Handoff
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
import dev.retryplan.description
import dev.retryplan.eachRequestHeader
import dev.retryplan.followedRedirect
import dev.retryplan.headerNameOption
import dev.retryplan.httpFailureOf
import dev.retryplan.joinedLines
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException

/** The last response of a [RetryingHttpClient] call, with how the operation ended. */
data class RetriedResponse<T>(val decision: Decision, val response: HttpResponse<T>, val idempotencyKey: String)

/**
 * `java.net.http.HttpClient` with the core's retries (JVM only: Android has no
 * `java.net.http`): an adapter over the same host loop as `retrying`. Each
 * attempt is a copy of the request with the attempt's timeout (the request's
 * own `timeout` where that is shorter), a fresh request id under
 * [requestIdHeader] (`X-Request-Id`; null leaves it out, an empty name is
 * refused when the client is made) and, when the plan says so, the key under
 * [idempotencyKeyHeader] (`Idempotency-Key`; a key the caller set under it is
 * the operation's key; null: neither read nor sent, and a reconcile's message
 * names no key); attempts
 * run concurrently under a hedging policy, and an aborted one is cancelled.
 * The method decides what may be repeated (RFC 9110; `idempotent` overrides
 * it per request); the status and guidance headers are read by the core.
 * Returns the last response (see [send]); every other response's body is
 * closed when it is an [AutoCloseable] (use `BodyHandlers.ofInputStream()` to
 * let the status decide before the body is read: a handler that reads the
 * body reads it inside the attempt's window). A failed response it returns
 * is readable until its attempt's abort time, when an [AutoCloseable] body is
 * closed; a success's body is the caller's. Redirects are the client's
 * (`followRedirects`; the JDK's default, `NEVER`, returns the 3xx), followed
 * inside the attempt: a response got through one (a 3xx among its
 * `previousResponse()`s; an `Authenticator`'s answer to a 401 or 407 is the
 * same attempt, not a redirect) is handed to the core as redirected, which reads its retryable failure as
 * ambiguous (an earlier hop may have processed the request), so a POST
 * answered 303 whose target answers 503 ends reconcile unless keyed.
 */
class RetryingHttpClient(
    private val client: HttpClient,
    policy: Policy,
    dependency: Dependency? = null,
    stats: Stats? = null,
    onDecision: ((Event) -> Unit)? = null,
    outcomeOfError: ((Throwable) -> Outcome?)? = null,
    clock: MonotonicClock = MonotonicClock.SYSTEM,
    requestIdHeader: String? = REQUEST_ID_HEADER,
    idempotencyKeyHeader: String? = IDEMPOTENCY_KEY_HEADER,
) {
    private val helper = Helper(policy, dependency, stats, onDecision, outcomeOfError, clock)

    /** The header carrying each attempt's request id, or null to send none. */
    private val requestIdHeader = headerNameOption("requestIdHeader", requestIdHeader)

    /** The header the key is read from (a caller's own) and sent under, or null: neither read nor sent. */
    private val idempotencyKeyHeader = headerNameOption("idempotencyKeyHeader", idempotencyKeyHeader)

    /**
     * Sends [request] (copied per attempt) until the core answers an ending,
     * blocking the calling thread (interrupt it to cancel: `InterruptedException`).
     * Returns the last response with the ending, when there is one and the
     * ending is not reconcile; otherwise throws the typed ending (an
     * `IOException`). An invalid request is an `IllegalArgumentException`,
     * never retried: the client's own, rethrown unchanged, or the core's
     * refusal of the request's own `Idempotency-Key` (empty or malformed),
     * whose cause is the typed `RetryplanException.InvalidArgument`. An
     * exception a hook throws propagates as it is. A success `outcomeOfError`
     * answers for a thrown error leaves no response to return: an
     * `IllegalStateException` naming the request, whose cause is the core's
     * refusal (`RetryplanException.InvalidArgument` naming `outcome_of_error`,
     * whose cause is that error). Inside a request being served, pass its
     * [context]: the driver starts from the caller's context, each attempt
     * carries the core's outgoing headers, a give-up decides the answer's headers.
     */
    fun <T> send(
        request: HttpRequest.Builder,
        bodyHandler: HttpResponse.BodyHandler<T>,
        idempotent: Boolean? = null,
        context: RequestContext? = null,
    ): RetriedResponse<T> = blocking { sendAwait(request, bodyHandler, idempotent, context) }

    /**
     * [send] as a suspend function: cancelling the caller cancels the operation and every attempt.
     * [context] defaults to the calling coroutine's [RequestContext].
     */
    suspend fun <T> sendAwait(
        request: HttpRequest.Builder,
        bodyHandler: HttpResponse.BodyHandler<T>,
        idempotent: Boolean? = null,
        context: RequestContext? = null,
    ): RetriedResponse<T> {
        val served = context ?: RequestContext.current()
        val template = request.copy().build()
        // A key the caller already set makes the request keyed by that exact key: the core's rule (Policy.httpRequest).
        val callerKey = idempotencyKeyHeader?.let { template.headers().firstValue(it).orElse(null) }
        val operation = dev.retryplan.requestName(template.method(), template.uri().toString())
        val http = try {
            helper.policy.httpRequest(template.method(), idempotent, callerKey)
        } catch (refused: RetryplanException) {
            // An invalid request, as the client's own refusal is: an IllegalArgumentException, the core's words, the typed cause.
            throw IllegalArgumentException("retryplan: $operation: ${refused.description}", refused)
        }
        // A client that follows redirects does so inside the attempt: a response with a 3xx among its previous ones is a
        // redirect target's answer (a previous 401 or 407 is the client's answer to a challenge: the same attempt).
        val read = { response: HttpResponse<T> ->
            val previous = generateSequence(response.previousResponse().orElse(null)) { it.previousResponse().orElse(null) }
            HttpReading(response.statusCode().toLong(), followedRedirect(previous.map { it.statusCode() })) { joinedLines(response.headers().allValues(it)) }
        }
        return helper.operate(Io<HttpResponse<T>>(read, ::httpFailureOf, { it is IllegalArgumentException }, ::closeBody), served, http) { host ->
            val ownTimeout = template.timeout().orElse(null)
            val ended = try {
                host.run { attempt -> client.sendAsync(copy(request, ownTimeout, attempt), bodyHandler).await(::closeBody) }
            } catch (refused: RetryplanException.InvalidArgument) {
                // The core's refusal of an error outcomeOfError called a success (there is no response to return),
                // unchecked for Java's callers, naming the request as every refusal of this client does.
                if (refused.field != "outcome_of_error") throw refused
                throw IllegalStateException("retryplan: $operation: ${refused.description}", refused)
            }
            ended.cutFailedBodyAtAbort(::closeBody)
            // A success returns its response: the core refused an error outcomeOfError called a success.
            RetriedResponse(ended.decision, ended.valueOrThrow(operation, keySent = idempotencyKeyHeader != null), host.key)
        }
    }

    /** The attempt's request: its timeout is the attempt's window, or the request's own ([ownTimeout]) where that is shorter. */
    private fun copy(request: HttpRequest.Builder, ownTimeout: Duration?, attempt: Attempt): HttpRequest {
        val window = Duration.ofMillis(attempt.timeoutMs)
        val builder = request.copy().timeout(if (ownTimeout != null && ownTimeout < window) ownTimeout else window)
        attempt.eachRequestHeader(requestIdHeader, idempotencyKeyHeader) { name, value -> builder.setHeader(name, value) }
        return builder.build()
    }
}

private fun closeBody(response: HttpResponse<*>) {
    (response.body() as? AutoCloseable)?.close()
}

/** Waits for the future; cancelling the caller cancels it (aborting the exchange), a late value goes to [dispose]. */
private suspend fun <T> CompletableFuture<T>.await(dispose: (T) -> Unit): T {
    val handoff = Handoff(dispose)
    whenComplete { value, error -> if (error != null) handoff.fail((error as? CompletionException)?.cause ?: error) else handoff.succeed(value) }
    return handoff.await { cancel(true) }
}
