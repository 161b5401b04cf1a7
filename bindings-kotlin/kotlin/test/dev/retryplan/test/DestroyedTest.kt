package dev.retryplan.test

import dev.retryplan.Action
import dev.retryplan.BreakerConfig
import dev.retryplan.BreakerState
import dev.retryplan.CircuitBreaker
import dev.retryplan.Decision
import dev.retryplan.Dependency
import dev.retryplan.DependencyConfig
import dev.retryplan.Driver
import dev.retryplan.DriverOptions
import dev.retryplan.Failure
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RetryplanException
import dev.retryplan.Stats
import dev.retryplan.TripConfig
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.function.Executable
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * A destroyed object (after `destroy()`, `close()` or `use { }`) is refused
 * wherever it goes: as the receiver of a call and as an argument, also while
 * another thread destroys it. Refused means `IllegalStateException`, the
 * exception uniffi raises for a call on a destroyed object, and nothing changed;
 * never an answer computed from freed memory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DestroyedTest {
    private val json = """{"total_timeout_ms": 1000, "attempt_timeout": {"fixed_ms": 200}, "response_reserve_ms": 0,
        "jitter": {"kind": "none"}}"""
    private val options = OperationOptions(seed = 1)

    private fun refused(call: () -> Any?) {
        val error = assertThrows(IllegalStateException::class.java, Executable { call() })
        assertTrue(error.message!!.contains("destroyed"), error.message)
    }

    @Test
    fun `a destroyed policy is refused as an argument`() {
        val destroyed = Policy.fromJson(json).also { it.destroy() }
        refused { Operation(destroyed, 0, options) }
        val closedByUse = Policy.fromJson(json).use { it }
        refused { Operation(closedByUse, 0, options) }
    }

    @Test
    fun `a destroyed dependency is refused inside the options`() {
        Policy.fromJson(json).use { policy ->
            val dependency = Dependency(DependencyConfig(retrySlots = 1)).also { it.close() }
            refused { Operation(policy, 0, OperationOptions(seed = 1, dependency = dependency)) }
        }
    }

    @Test
    fun `a destroyed permit is refused and the breaker is unchanged`() {
        CircuitBreaker(BreakerConfig(TripConfig.Consecutive(1), 1000, 1)).use { breaker ->
            val permit = breaker.tryAcquire(0)!!
            permit.destroy()
            refused { breaker.onFailure(0, permit) }
            refused { breaker.onSuccess(0, permit) }
            refused { breaker.release(permit) }
            val snapshot = breaker.snapshot(0)
            assertEquals(BreakerState.CLOSED, snapshot.state)
            assertEquals(0L, snapshot.consecutiveFailures)
        }
    }

    @Test
    fun `a destroyed operation refuses every call`() {
        Policy.fromJson(json).use { policy ->
            val operation = Operation(policy, 0, options)
            val start = operation.poll(0) as Decision.StartAttempt
            operation.close()
            operation.close() // twice is harmless
            refused { operation.poll(10) }
            refused { operation.onOutcome(10, start.attempt, Outcome.Success) }
            refused { operation.cancel(10) }
            refused { operation.deadlineMs() }
        }
    }

    @Test
    fun `a destroyed driver refuses every call, and a destroyed policy or stats is refused as its argument`() {
        Policy.fromJson(json).use { policy ->
            val driver = Driver(policy, 0, options, DriverOptions(recordEvents = true))
            val start = driver.pollAction(0) as Action.StartAttempt
            driver.close()
            driver.close()
            refused { driver.pollAction(10) }
            refused { driver.handleResult(10, start.plan.attempt, Outcome.Success) }
            refused { driver.handleFailure(10, start.plan.attempt, Failure.CONNECTION_LOST) }
            refused { driver.handleCancel(10) }
            refused { driver.pollEvent() }
            refused { driver.idempotencyKey() }
            val stats = Stats().also { it.close() }
            refused { Driver(policy, 0, options, DriverOptions(stats = stats)) }
        }
        val closed = Policy.fromJson(json).also { it.close() }
        refused { Driver(closed, 0, options) }
    }

    /** [rounds] times: [threads] threads call [use] while the main thread destroys the object [make] gave. */
    private fun <T : AutoCloseable> race(rounds: Int, threads: Int, make: () -> T, use: (T) -> Unit): Pair<Int, Int> {
        val pool = Executors.newFixedThreadPool(threads + 1)
        val succeeded = AtomicInteger()
        val refusals = AtomicInteger()
        try {
            repeat(rounds) {
                val target = make()
                val barrier = CyclicBarrier(threads + 1)
                val users = (0 until threads).map {
                    pool.submit {
                        barrier.await()
                        repeat(20) {
                            try {
                                use(target)
                                succeeded.incrementAndGet()
                            } catch (destroyed: IllegalStateException) {
                                refusals.incrementAndGet()
                            }
                        }
                    }
                }
                barrier.await()
                target.close()
                users.forEach { it.get() }
            }
        } finally {
            pool.shutdownNow()
        }
        return succeeded.get() to refusals.get()
    }

    @Test
    fun `operations started while another thread destroys their policy are whole or refused`() {
        val (started, refusals) = race(200, 3, { Policy.fromJson(json) }) { policy ->
            Operation(policy, 0, options).use { operation ->
                // A policy read after it was freed gave deadlines such as 753344884927262580.
                assertEquals(1000L, operation.deadlineMs())
                assertEquals(200L, (operation.poll(0) as Decision.StartAttempt).timeoutMs)
            }
        }
        println("operations started $started, refused $refusals")
        assertTrue(refusals > 0, "every round destroys the policy while threads still use it")
    }

    @Test
    fun `an operation polled while another thread closes it answers or refuses`() {
        Policy.fromJson(json).use { policy ->
            val (answered, refusals) = race(200, 3, { Operation(policy, 0, options) }) { operation ->
                when (val decision = operation.poll(0)) {
                    is Decision.StartAttempt -> assertEquals(200L, decision.timeoutMs)
                    is Decision.AwaitOutcome -> assertEquals(1, decision.running)
                    else -> throw AssertionError("unexpected $decision")
                }
            }
            println("polls answered $answered, refused $refusals")
            assertTrue(refusals > 0, "every round closes the operation while threads still poll it")
        }
    }

    @Test
    fun `a permit reported while another thread destroys it is counted once or refused`() {
        CircuitBreaker(BreakerConfig(TripConfig.Consecutive(1_000_000), 1000, 1)).use { breaker ->
            val (reported, refusals) = race(300, 1, { breaker.tryAcquire(0)!! }) { permit ->
                try {
                    breaker.onFailure(0, permit)
                } catch (settled: RetryplanException.InvalidArgument) {
                    // A permit is single-use: reported again, it is refused (and not counted).
                    throw IllegalStateException(settled.message, settled)
                }
            }
            assertEquals(reported.toLong(), breaker.snapshot(0).consecutiveFailures, "each report counted exactly once")
            println("permits reported $reported, refused $refusals")
        }
    }
}
