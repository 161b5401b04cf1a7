package dev.retryplan.bench

import dev.retryplan.Decision
import dev.retryplan.GiveUpReason
import dev.retryplan.Outcome

/**
 * The floor the binding is measured against: the same decisions as the engine
 * for the bench's policy (constant backoff, no jitter, fixed attempt timeout,
 * no dependency), computed in plain Kotlin with no native call. It handles
 * only what the bench feeds it (HTTP statuses: 503 retryable, anything below
 * 400 success) and returns the same `Decision` objects, request ids included,
 * so the comparison is like for like; the bench checks that both give equal
 * decisions before timing either. Not a retry engine: the rules are the core's.
 */
class KotlinFloor(
    private val maxAttempts: Int,
    totalTimeoutMs: Long,
    private val timeoutMs: Long,
    private val reserveMs: Long,
    private val minimumUsefulMs: Long,
    private val delayMs: Long,
    private val seed: Long,
    startMs: Long,
) {
    private val deadlineMs = startMs + totalTimeoutMs
    private var attempts = 0
    private var running = 0
    private var waitUntilMs = startMs
    private var ended = false

    private fun remaining(nowMs: Long) = maxOf(0L, deadlineMs - nowMs - reserveMs)

    fun poll(nowMs: Long): Decision {
        check(!ended && running == 0) { "the floor runs one attempt at a time" }
        if (nowMs < waitUntilMs) {
            return Decision.Wait(attempts - 1, delayMs, waitUntilMs, null, remaining(nowMs))
        }
        val remaining = remaining(nowMs)
        if (remaining < maxOf(1L, minimumUsefulMs)) {
            ended = true
            return Decision.GaveUp(GiveUpReason.DEADLINE_INSUFFICIENT, attempts, remaining, null, emptyList())
        }
        attempts += 1
        running = attempts
        val timeout = minOf(timeoutMs, remaining)
        return Decision.StartAttempt(attempts, timeout, nowMs + timeout, requestId(attempts), remaining, false)
    }

    fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome.HttpStatus): Decision {
        check(attempt == running) { "attempt $attempt is not running" }
        running = 0
        if (outcome.status < 400) {
            ended = true
            return Decision.Succeeded(attempts, attempt, emptyList())
        }
        check(outcome.status == 503) { "the floor knows 503 only" }
        if (attempts >= maxAttempts) {
            ended = true
            return Decision.GaveUp(GiveUpReason.ATTEMPTS_EXHAUSTED, attempts, remaining(nowMs), null, emptyList())
        }
        waitUntilMs = nowMs + delayMs
        return Decision.Wait(attempts - 1, delayMs, waitUntilMs, null, remaining(nowMs))
    }

    /** The core's request id: a stateless hash of the seed and the attempt number, as 16 hex digits. */
    private fun requestId(attempt: Int): String {
        val id = finalize(seed + finalize(REQUEST_ID_STREAM + attempt.toLong() * GOLDEN_GAMMA) + GOLDEN_GAMMA)
        return hex16(id)
    }

    private companion object {
        const val GOLDEN_GAMMA = -0x61c8864680b583ebL // 0x9E3779B97F4A7C15
        const val REQUEST_ID_STREAM = 0x5245_5155_4553_5449L

        fun finalize(value: Long): Long {
            var z = value
            z = (z xor (z ushr 30)) * -0x40a7b892e31b1a47L // 0xBF58476D1CE4E5B9
            z = (z xor (z ushr 27)) * -0x6b2fb644ecceee15L // 0x94D049BB133111EB
            return z xor (z ushr 31)
        }

        fun hex16(value: Long): String {
            val text = java.lang.Long.toHexString(value)
            return if (text.length == 16) text else "0".repeat(16 - text.length) + text
        }
    }
}
