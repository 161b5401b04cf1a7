package dev.retryplan.test

import dev.retryplan.Action
import dev.retryplan.Driver
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * The facts [Driver] and [Operation] read from their operation (the attempts started, those running, the policy it
 * runs), forwarded by each lean wrapper to its engine object: the values the core holds as the operation steps.
 */
class EngineFactsTest {
    /** Attempt 1 at 0 ms, its hedge (attempt 2) at 100 ms. */
    private val hedging = """{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 1000},
        "jitter": {"kind": "none"}, "hedging": {"delay_ms": 100, "max_hedged_attempts": 1}}"""

    private fun facts(driver: Driver) = driver.attemptsStarted() to driver.runningAttempts()

    @Test
    fun `a driver counts the attempts it started and names those running`() {
        Policy.fromJson(hedging).use { policy ->
            Driver(policy, 0, OperationOptions(seed = 7)).use { driver ->
                assertEquals(0 to emptyList<Int>(), facts(driver))
                assertEquals(1, (driver.pollAction(0) as Action.StartAttempt).plan.attempt)
                assertEquals(1 to listOf(1), facts(driver))
                assertEquals(2, (driver.pollAction(100) as Action.StartAttempt).plan.attempt)
                assertEquals(2 to listOf(1, 2), facts(driver))
                driver.handleResult(150, 2, Outcome.Success)
                assertEquals(2 to emptyList<Int>(), facts(driver), "attempt 2 succeeded: the operation has ended")
            }
        }
    }

    @Test
    fun `an operation gives back the policy it runs, as an object of its own`() {
        Policy.fromJson(hedging).use { policy ->
            val runs = Operation(policy, 0, OperationOptions(seed = 7)).use { operation -> operation.policy() }
            runs.use {
                assertEquals(policy.toJson(), it.toJson(), "read after the operation was closed")
                assertTrue(it.hasHedging())
            }
        }
    }
}
