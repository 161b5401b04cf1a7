package dev.retryplan.test

import dev.retryplan.Action
import dev.retryplan.Driver
import dev.retryplan.Failure
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.TransportFailure
import dev.retryplan.outcome
import dev.retryplan.outcomeFromHttpResponse
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * How a response's status and header map are read (`outcomeFromHttpResponse`, `Driver.readResponse`,
 * `Driver.handleResponse`): the lines of one header, its names in any case, joined by ", " in one order that does not
 * depend on the map's, as Python and JS read them; any status, none refused, one outside 100..=599 (or an interim 1xx but 101) a malformed response.
 */
class ResponseReadingTest {
    private val policyJson = """{"max_attempts": 3, "total_timeout_ms": 120000, "jitter": {"kind": "none"}}"""

    /** One header sent as two lines whose names differ in case, each asking for a different wait. */
    private val twoLines = mapOf("Retry-After" to "5", "retry-after" to "60")

    /** The same lines as one joined by hand, sorted by name: "5, 60", no guidance (a list is no Retry-After value). */
    private val joined = mapOf("retry-after" to "5, 60")

    private fun <T> withDriver(use: (Driver) -> T): T = Policy.fromJson(policyJson).use { policy ->
        Driver(policy, 0, OperationOptions(seed = 7)).use { driver ->
            assertEquals(1, (driver.pollAction(0) as Action.StartAttempt).plan.attempt)
            use(driver)
        }
    }

    /** What the driver does next after attempt 1 answered 503 with [headers]. */
    private fun afterResponse(headers: Map<String, String>): Action = withDriver { driver ->
        driver.handleResponse(10, 1, null, 503, headers, 0, false)
        driver.pollAction(10)
    }

    @Test
    fun `the lines of one header, names in any case, are joined in one order`() {
        val reference = outcomeFromHttpResponse(503, joined, 0)
        assertEquals(Outcome.HttpStatus(503, null, null), reference, "\"5, 60\" asks for no wait")
        // A HashMap's order differs from map to map: every call must read the same.
        repeat(32) {
            assertEquals(reference, outcomeFromHttpResponse(503, twoLines, 0), "outcomeFromHttpResponse")
            assertEquals(reference, withDriver { it.readResponse(503, twoLines, 0) }, "Driver.readResponse")
            assertEquals(afterResponse(joined), afterResponse(twoLines), "Driver.handleResponse")
        }
        val three = mapOf("retry-after" to "60", "RETRY-AFTER" to "5", "Retry-After" to "7")
        assertEquals(outcomeFromHttpResponse(503, mapOf("retry-after" to "5, 7, 60"), 0), outcomeFromHttpResponse(503, three, 0), "sorted by name")
        assertEquals(Outcome.HttpStatus(503, 5000, null), outcomeFromHttpResponse(503, mapOf("RETRY-after" to "5"), 0), "one line, any case")
    }

    @Test
    fun `a status outside 100 to 599 is a malformed response, never an error`() {
        val malformed = Failure.MALFORMED_RESPONSE.outcome
        assertEquals(Outcome.Transport(TransportFailure.CONNECTION_LOST, null), malformed, "what Python gives")
        for (status in listOf(-1, 0, 99, 600, 65536, 70000, Int.MIN_VALUE, Int.MAX_VALUE)) {
            assertEquals(malformed, outcomeFromHttpResponse(status, emptyMap(), 0), "outcomeFromHttpResponse($status)")
            assertEquals(malformed, withDriver { it.readResponse(status, emptyMap(), 0) }, "Driver.readResponse($status)")
        }
        assertTrue(outcomeFromHttpResponse(599, emptyMap(), 0) is Outcome.HttpStatus)
    }
}
