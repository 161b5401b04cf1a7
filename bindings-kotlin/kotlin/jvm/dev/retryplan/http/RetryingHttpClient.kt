package dev.retryplan.http

import dev.retryplan.MonotonicClock
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.Reported
import dev.retryplan.RetryResult
import dev.retryplan.Stats
import dev.retryplan.TransportFailure
import dev.retryplan.outcomeFromHttp
import dev.retryplan.retrying
import java.io.IOException
import java.net.ConnectException
import java.net.http.HttpClient
import java.net.http.HttpConnectTimeoutException
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.time.Duration

/**
 * An example `java.net.http.HttpClient` wrapper: each attempt gets the
 * engine's timeout, the operation's idempotency key and a fresh request id as
 * headers; the response status and its Retry-After go back to the engine,
 * which decides everything else. With a hedging policy, hedges are sent
 * concurrently and the losers interrupted. Blocking; interrupt the thread to cancel.
 */
class RetryingHttpClient(
    private val client: HttpClient,
    private val policy: Policy,
    private val stats: Stats? = null,
    private val clock: MonotonicClock = MonotonicClock.SYSTEM,
    private val idempotencyKeyHeader: String = "Idempotency-Key",
    private val requestIdHeader: String = "X-Request-Id",
) {
    /**
     * Sends [request] (copied per attempt) until the engine answers an ending.
     * The result's value is the last response received, if any.
     */
    fun <T> send(
        request: HttpRequest.Builder,
        bodyHandler: HttpResponse.BodyHandler<T>,
        options: OperationOptions = OperationOptions(),
    ): RetryResult<HttpResponse<T>> {
        // A key the caller already set is the operation's key: never replace it.
        val callerKey = request.copy().build().headers().firstValue(idempotencyKeyHeader).orElse(null)
        val sendsKey = policy.sendsIdempotencyKey()
        return retrying(policy, options.copy(idempotencyKey = options.idempotencyKey ?: callerKey), stats, clock) { attempt ->
            val builder = request.copy()
                .timeout(Duration.ofMillis(attempt.timeoutMs))
                .setHeader(requestIdHeader, attempt.requestId)
            if (sendsKey) builder.setHeader(idempotencyKeyHeader, attempt.idempotencyKey)
            send(builder.build(), bodyHandler)
        }
    }

    private fun <T> send(sent: HttpRequest, bodyHandler: HttpResponse.BodyHandler<T>): Reported<HttpResponse<T>> = try {
        val response = client.send(sent, bodyHandler)
        Reported(outcomeOf(response), response)
    } catch (timeout: HttpConnectTimeoutException) {
        Reported(Outcome.Transport(TransportFailure.NOT_SENT), null)
    } catch (refused: ConnectException) {
        Reported(Outcome.Transport(TransportFailure.NOT_SENT), null)
    } catch (timeout: HttpTimeoutException) {
        Reported(Outcome.Transport(TransportFailure.TIMED_OUT), null)
    } catch (lost: IOException) {
        Reported(Outcome.Transport(TransportFailure.CONNECTION_LOST), null)
    }
}

/**
 * A response as the engine's outcome: its status, with `Retry-After` (any
 * form) and `Retry-After-Ms` read by the core exactly as every binding reads
 * them (`outcomeFromHttp`). Usable with an [dev.retryplan.Operation] held directly.
 */
fun outcomeOf(response: HttpResponse<*>): Outcome = outcomeFromHttp(
    response.statusCode(),
    response.headers().firstValue("Retry-After").orElse(null),
    response.headers().firstValue("Retry-After-Ms").or { response.headers().firstValue("X-Ms-Retry-After-Ms") }.orElse(null),
    System.currentTimeMillis(),
)
