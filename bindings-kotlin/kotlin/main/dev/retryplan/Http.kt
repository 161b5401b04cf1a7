package dev.retryplan

/*
 * The HTTP conventions every HTTP helper follows, as the core states them
 * (`retryplan::http`): the header names, the guidance headers and which one
 * wins, method safety. Read once from the core; nothing is decided here.
 */

/** The header carrying the operation's idempotency key (`Idempotency-Key`). */
val IDEMPOTENCY_KEY_HEADER: String = idempotencyKeyHeader()

/** The header carrying each attempt's request id (`X-Request-Id`). */
val REQUEST_ID_HEADER: String = requestIdHeader()

/**
 * Every response header the core reads for guidance, lower case, in the order
 * it consults them (`retry-after-ms`, `x-ms-retry-after-ms`, `retry-after`,
 * ...). Hand the engine a lookup over these with [outcomeFromHttpResponse];
 * never pick one yourself.
 */
val GUIDANCE_HEADERS: List<String> = guidanceHeaders()

/** The guidance headers a lookup finds, by their lower-case names. */
internal fun guidance(header: (String) -> String?): Map<String, String> {
    val found = HashMap<String, String>(4)
    for (name in GUIDANCE_HEADERS) header(name)?.let { found[name] = it }
    return found
}

/**
 * An HTTP outcome from a response's [status] and a lookup of its headers by
 * the lower-case names in [GUIDANCE_HEADERS] ([header] returns null for an
 * absent one), read by the core the one way every language reads them: which
 * header wins, Retry-After as delta-seconds or an HTTP-date (against the wall
 * clock [nowUnixMs], read as [reading] says), an unreadable value as no
 * guidance, and a status outside 100..=599 as `malformed_response` (never an error).
 */
fun outcomeFromHttpResponse(
    status: Int,
    nowUnixMs: Long = System.currentTimeMillis(),
    reading: RetryAfterReading = RetryAfterReading.STRICT,
    header: (String) -> String?,
): Outcome = outcomeFromHttpResponse(status, guidance(header), nowUnixMs, reading)

/**
 * A response's outcome as every HTTP helper reads it: [outcomeFromHttpResponse]
 * with `Retry-After` read as this operation's policy says
 * (`server_guidance.retry_after_reading`).
 */
fun Driver.readResponse(status: Int, nowUnixMs: Long = System.currentTimeMillis(), header: (String) -> String?): Outcome =
    readResponse(status, guidance(header), nowUnixMs)

private val failureOutcomes: Map<Failure, Outcome> = Failure.entries.associateWith(::failureOutcome)

/** What this failure means to the engine (`not_sent`, `connection_lost`, `timed_out` or cancelled), as the core says. */
val Failure.outcome: Outcome get() = failureOutcomes.getValue(this)
