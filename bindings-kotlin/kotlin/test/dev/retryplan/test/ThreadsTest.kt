package dev.retryplan.test

import dev.retryplan.BreakerConfig
import dev.retryplan.BreakerState
import dev.retryplan.BudgetConfig
import dev.retryplan.BudgetSnapshot
import dev.retryplan.CircuitBreaker
import dev.retryplan.Decision
import dev.retryplan.Dependency
import dev.retryplan.DependencyConfig
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RetryBudget
import dev.retryplan.Stats
import dev.retryplan.TripConfig
import dev.retryplan.blocking.retrying
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** Several JVM threads sharing one policy, one set of counters, one operation. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThreadsTest {
    private val policyJson = """{"max_attempts": 3, "total_timeout_ms": 1000, "attempt_timeout": {"fixed_ms": 100},
        "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10, "jitter": {"kind": "none"},
        "backoff": {"kind": "constant", "base_ms": 50, "multiplier": 1.0, "cap_ms": 50}}"""

    @Test
    fun `threads share one policy and one Stats without losing an update`() {
        val threads = 8
        val operationsPerThread = 500
        Policy.fromJson(policyJson).use { policy ->
            Stats().use { stats ->
                val pool = Executors.newFixedThreadPool(threads)
                val barrier = CyclicBarrier(threads)
                val endings = ConcurrentLinkedQueue<Decision>()
                val jobs = (0 until threads).map { t ->
                    pool.submit {
                        barrier.await()
                        repeat(operationsPerThread) { i ->
                            Operation(policy, 0, OperationOptions(seed = (t * operationsPerThread + i).toLong())).use { op ->
                                val first = op.poll(0).also(stats::record) as Decision.StartAttempt
                                val wait = op.onOutcome(100, first.attempt, Outcome.HttpStatus(503)).also(stats::record)
                                assertEquals(150L, (wait as Decision.Wait).untilMs)
                                val second = op.poll(150).also(stats::record) as Decision.StartAttempt
                                endings += op.onOutcome(160, second.attempt, Outcome.Success).also(stats::record)
                            }
                        }
                    }
                }
                jobs.forEach { it.get() }
                pool.shutdown()
                val total = (threads * operationsPerThread).toLong()
                val counts = stats.snapshot()
                assertEquals(total, counts.operations)
                assertEquals(2 * total, counts.attempts)
                assertEquals(total, counts.retries)
                assertEquals(total, counts.succeeded)
                assertEquals(List(total.toInt()) { Decision.Succeeded(2, 2, emptyList()) }, endings.toList())
            }
        }
    }

    @Test
    fun `threads racing on one operation, exactly one of them starts the attempt`() {
        val threads = 8
        Policy.fromJson(policyJson).use { policy ->
            repeat(50) { round ->
                Operation(policy, 0, OperationOptions(seed = round.toLong())).use { op ->
                    val first = op.poll(0) as Decision.StartAttempt
                    op.onOutcome(100, first.attempt, Outcome.HttpStatus(503))
                    val barrier = CyclicBarrier(threads)
                    val pool = Executors.newFixedThreadPool(threads)
                    val answers = (0 until threads).map {
                        pool.submit<Decision> {
                            barrier.await()
                            op.poll(150)
                        }
                    }.map { it.get() }
                    pool.shutdown()
                    assertEquals(1, answers.count { it is Decision.StartAttempt }, "round $round: $answers")
                    assertEquals(threads - 1, answers.count { it == Decision.AwaitOutcome(1, 250) })
                    assertEquals(2, op.attemptsStarted())
                }
            }
        }
    }

    private fun onThreads(threads: Int, work: (Int) -> Unit) {
        val pool = Executors.newFixedThreadPool(threads)
        val barrier = CyclicBarrier(threads)
        (0 until threads).map { t ->
            pool.submit {
                barrier.await()
                work(t)
            }
        }.forEach { it.get() }
        pool.shutdown()
    }

    @Test
    fun `threads share one retry budget and one breaker without losing an update`() {
        val threads = 8
        val each = 250
        val granted = AtomicInteger()
        RetryBudget(BudgetConfig.Ratio(0.5, 0, 60_000)).use { budget ->
            CircuitBreaker(BreakerConfig(TripConfig.Consecutive(1_000_000), 1_000, 1)).use { breaker ->
                onThreads(threads) {
                    repeat(each) {
                        budget.onRequest(0)
                        if (budget.tryRetry(0, false) != null) granted.incrementAndGet()
                        breaker.tryAcquire(0)!!.use { permit -> breaker.onFailure(0, permit) }
                    }
                }
                val total = (threads * each).toLong()
                val ratio = budget.snapshot(0) as BudgetSnapshot.Ratio
                assertEquals(total, ratio.requests)
                assertEquals(granted.get().toLong(), ratio.retries)
                val snapshot = breaker.snapshot(0)
                assertEquals(BreakerState.CLOSED, snapshot.state)
                assertEquals(total, snapshot.consecutiveFailures)
            }
        }
    }

    @Test
    fun `threads run operations through one shared dependency`() {
        val threads = 8
        val each = 100
        val config = DependencyConfig(
            budget = BudgetConfig.Quota(1_000_000, 5, 10, 1),
            breaker = BreakerConfig(TripConfig.Consecutive(1_000_000), 1_000, 1),
            retrySlots = 1_000,
        )
        val zeroWait = """{"max_attempts": 3, "total_timeout_ms": 60000, "attempt_timeout": {"fixed_ms": 1000},
            "response_reserve_ms": 0, "minimum_useful_attempt_ms": 1, "jitter": {"kind": "none"},
            "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}"""
        fun operation(policy: Policy, dependency: Dependency, stats: Stats) {
            val unavailable = IllegalStateException("503")
            val winner = retrying(policy, dependency, stats = stats, outcomeOfError = { Outcome.HttpStatus(503) }) { attempt ->
                if (attempt.attempt == 1) throw unavailable else attempt.attempt
            }
            assertEquals(2, winner)
        }
        Policy.fromJson(zeroWait).use { policy ->
            val shared = Dependency(config)
            val alone = Dependency(config)
            Stats().use { stats ->
                onThreads(threads) { repeat(each) { operation(policy, shared, stats) } }
                val total = (threads * each).toLong()
                val counts = stats.snapshot()
                assertEquals(
                    listOf(total, 2 * total, total, total),
                    listOf(counts.operations, counts.attempts, counts.retries, counts.succeeded),
                )
            }
            Stats().use { stats -> repeat(threads * each) { operation(policy, alone, stats) } }
            // The same operations on one thread leave the controls exactly where the threads left them.
            assertEquals(alone.snapshot(0), shared.snapshot(0))
            assertEquals(0L, shared.snapshot(0).retrySlotsInUse)
            shared.close()
            alone.close()
        }
    }
}
