package dev.retryplan.test

import dev.retryplan.Action
import dev.retryplan.Decision
import dev.retryplan.Driver
import dev.retryplan.DriverOptions
import dev.retryplan.Ended
import dev.retryplan.Held
import dev.retryplan.Host
import dev.retryplan.HttpReading
import dev.retryplan.Io
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * How long a response returned at the end stays readable is the core's word
 * (`EndingResult.readable_until_ms`): a failed response's attempt's abort
 * time, a success's without limit. The host keeps no abort time of its own.
 * Driven with a fake clock: nothing sleeps, nothing is timed.
 */
class ReadableUntilTest {
    private val json = """{"max_attempts": 1, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 300},
        "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10, "jitter": {"kind": "none"}}"""

    /** A response: its status only. */
    private class Response(val status: Int)

    /** How the host ended (read while its driver is open), and the attempt's abort time. */
    private class Seen(val returned: Boolean, val decision: Decision, val windowLeftMs: Long?, val abortAtMs: Long)

    /** One attempt answering [status] 40 ms after it starts at 1000 ms (fake clock). */
    private fun ended(status: Int): Seen = Policy.fromJson(json).use { policy ->
        var now = 1_000L
        var abortAtMs = -1L
        val driver = Driver(policy, now, OperationOptions(seed = 1), DriverOptions(returnsResponses = true))
        driver.use {
            val io = Io<Response>({ HttpReading(it.status.toLong(), false) { null } }, { null }, { false }, {})
            val ended: Ended<Response> = runBlocking {
                Host(driver, { now }, io, null, null).run { attempt ->
                    abortAtMs = attempt.abortAtMs
                    now += 40
                    Response(status)
                }
            }
            Seen(ended.returned, ended.decision, ended.windowLeftMs, abortAtMs)
        }
    }

    @Test
    fun `a failed response returned at the end is readable until its attempt's abort time`() {
        val seen = ended(503)
        assertTrue(seen.returned && seen.decision is Decision.GaveUp, "${seen.decision}")
        assertEquals(1_300L, seen.abortAtMs)
        assertEquals(seen.abortAtMs - 1_040L, seen.windowLeftMs, "the rest of the attempt's window")
    }

    @Test
    fun `a successful response is the caller's without limit`() {
        val seen = ended(200)
        assertTrue(seen.returned && seen.decision is Decision.Succeeded, "${seen.decision}")
        assertNull(seen.windowLeftMs)
    }

    @Test
    fun `the typed ending carries the same time`() = Policy.fromJson(json).use { policy ->
        Driver(policy, 0, OperationOptions(seed = 1), DriverOptions(returnsResponses = true)).use { driver ->
            val start = driver.pollAction(0) as Action.StartAttempt
            driver.handleResult(40, start.plan.attempt, Outcome.HttpStatus(503), 7, Held.VALUE)
            val ending = (driver.pollAction(40) as Action.Finish).ending
            assertEquals(7L, ending.result?.token)
            assertEquals(start.plan.abortAtMs, ending.result?.readableUntilMs)
        }
    }
}
