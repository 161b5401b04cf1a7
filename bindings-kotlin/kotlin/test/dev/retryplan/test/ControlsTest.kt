package dev.retryplan.test

import dev.retryplan.BreakerConfig
import dev.retryplan.BreakerState
import dev.retryplan.BudgetConfig
import dev.retryplan.BudgetSnapshot
import dev.retryplan.CircuitBreaker
import dev.retryplan.ConcurrencyLimit
import dev.retryplan.Decision
import dev.retryplan.Dependency
import dev.retryplan.DependencyConfig
import dev.retryplan.RetryBudget
import dev.retryplan.RetrySlots
import dev.retryplan.RetryplanException
import dev.retryplan.TripConfig
import dev.retryplan.inFlight
import dev.retryplan.probesInFlight
import dev.retryplan.serverDelayMs
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.function.Executable
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * The control handles: a dependency's budget, breaker and retry slots, the
 * grants each issues (single use, owned by the control that issued them, as
 * in the core's `grant` module) and the counters of grants still out. The
 * same surface, names and errors as the Python binding (`test_controls.py`).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControlsTest {
    private val quota = BudgetConfig.Quota(capacity = 20, retryCost = 5, timeoutRetryCost = 5, successIncrement = 1)
    private val breakerConfig = BreakerConfig(TripConfig.Consecutive(1), openMs = 1000, halfOpenProbes = 2)

    private fun refused(name: String, call: () -> Any?) {
        val error = assertThrows(RetryplanException.InvalidArgument::class.java, Executable { call() })
        assertEquals("invalid_argument" to name, error.code to error.field, error.description)
    }

    private fun available(budget: RetryBudget, nowMs: Long = 0) = (budget.snapshot(nowMs) as BudgetSnapshot.Quota).available

    @Test
    fun `a dependency exposes its three controls under the core's names`() {
        Dependency(DependencyConfig(budget = quota, breaker = breakerConfig, retrySlots = 2)).use { dependency ->
            val slots = dependency.retrySlots()!!
            assertEquals(0L to 2L, slots.inUse() to slots.capacity())
            val slot = slots.tryAcquire()!!
            assertEquals(1L, dependency.snapshot(0).retrySlotsInUse, "the handle is the dependency's own retry slots")
            val charge = dependency.budget()!!.tryRetry(0, false)!!
            assertEquals(15L, (dependency.snapshot(0).budget as BudgetSnapshot.Quota).available)
            slots.release(slot)
            dependency.budget()!!.onSuccess(1, charge)
            assertEquals(20L, (dependency.snapshot(1).budget as BudgetSnapshot.Quota).available)
            assertNotNull(dependency.breaker()!!.tryAcquire(0))
        }
        Dependency(DependencyConfig()).use { empty ->
            assertNull(empty.budget())
            assertNull(empty.breaker())
            assertNull(empty.retrySlots())
        }
    }

    @Test
    fun `a permit reported twice is refused and counts once`() {
        CircuitBreaker(breakerConfig).use { breaker ->
            breaker.onFailure(0, breaker.tryAcquire(0)!!)
            val first = breaker.tryAcquire(1000)!!
            val second = breaker.tryAcquire(1000)!!
            assertEquals(2L, breaker.permitsOutstanding())
            breaker.onSuccess(1010, first)
            refused("permit") { breaker.onSuccess(1020, first) }
            refused("permit") { breaker.onFailure(1020, first) }
            refused("permit") { breaker.release(first) }
            val snapshot = breaker.snapshot(1020)
            assertEquals(BreakerState.HALF_OPEN to 1L, snapshot.state to snapshot.probesRunning)
            @Suppress("DEPRECATION")
            val old = snapshot.probesInFlight
            assertEquals(1L, old, "the old name, kept for one release")
            breaker.onSuccess(1030, second)
            assertEquals(BreakerState.CLOSED, breaker.snapshot(1030).state)
            assertEquals(0L, breaker.permitsOutstanding())
        }
    }

    @Test
    fun `a charge is settled once by a refund, a failure or a spend`() {
        RetryBudget(quota).use { budget ->
            val charges = List(3) { budget.tryRetry(0, false)!! }
            assertEquals(listOf(5L, 5L, 5L), charges.map { it.cost() })
            assertEquals(3L, budget.chargesOutstanding())
            budget.onSuccess(1, charges[0])
            budget.onFailure(1, charges[1])
            budget.spend(charges[2])
            assertEquals(0L, budget.chargesOutstanding())
            assertEquals(10L, available(budget, 1))
            for (charge in charges) {
                refused("charge") { budget.onSuccess(2, charge) }
                refused("charge") { budget.onFailure(2, charge) }
                refused("charge") { budget.spend(charge) }
            }
            assertEquals(10L, available(budget, 2), "no refund went through twice")
        }
    }

    @Test
    @Suppress("DEPRECATION")
    fun `the old names are read for one release`() {
        ConcurrencyLimit(2).use { old ->
            val slots: RetrySlots = old
            assertEquals(2L, slots.capacity())
        }
        Dependency(DependencyConfig(maxConcurrentRetries = 2)).use { assertEquals(2L, it.retrySlots()!!.capacity()) }
        Dependency.fromJson("""{"max_concurrent_retries": 3}""").use { assertEquals(3L, it.retrySlots()!!.capacity()) }
        val both = assertThrows(RetryplanException.InvalidConfig::class.java) {
            Dependency(DependencyConfig(retrySlots = 2, maxConcurrentRetries = 2))
        }
        assertEquals("max_concurrent_retries", both.field)
        assertTrue("both `retry_slots` and its old name `max_concurrent_retries`" in both.description, both.description)
    }

    @Test
    fun `a slot released twice is refused`() {
        RetrySlots(1).use { slots ->
            val slot = slots.tryAcquire()!!
            assertNull(slots.tryAcquire())
            slots.release(slot)
            val other = slots.tryAcquire()!!
            refused("slot") { slots.release(slot) }
            assertEquals(1L, slots.inUse(), "the second release did not free the slot another holder took")
            slots.release(other)
            assertEquals(0L, slots.inUse())
        }
    }

    @Test
    fun `a grant of another control is refused and changes neither`() {
        val (breakerA, breakerB) = CircuitBreaker(breakerConfig) to CircuitBreaker(breakerConfig)
        val permit = breakerA.tryAcquire(0)!!
        refused("permit") { breakerB.onFailure(0, permit) }
        assertEquals(BreakerState.CLOSED, breakerB.snapshot(0).state)
        assertEquals(0L, breakerA.permitsOutstanding(), "the refused permit went back to A")
        refused("permit") { breakerA.onFailure(0, permit) }

        val (budgetA, budgetB) = RetryBudget(quota) to RetryBudget(quota)
        budgetB.tryRetry(0, false)
        val charge = budgetA.tryRetry(0, false)!!
        refused("charge") { budgetB.onSuccess(1, charge) }
        assertEquals(15L to 15L, available(budgetA, 1) to available(budgetB, 1), "B refunded nothing")
        assertEquals(0L, budgetA.chargesOutstanding())

        val (slotsA, slotsB) = RetrySlots(1) to RetrySlots(1)
        val slot = slotsA.tryAcquire()!!
        val held = slotsB.tryAcquire()!!
        refused("slot") { slotsB.release(slot) }
        assertEquals(0L to 1L, slotsA.inUse() to slotsB.inUse())
        slotsB.release(held)

        val dependencyA = Dependency(DependencyConfig(retrySlots = 1))
        val dependencyB = Dependency(DependencyConfig(retrySlots = 1))
        refused("slot") { dependencyB.retrySlots()!!.release(dependencyA.retrySlots()!!.tryAcquire()!!) }
        listOf(breakerA, breakerB, budgetA, budgetB, slotsA, slotsB, dependencyA, dependencyB).forEach { it.close() }
    }

    @Test
    fun `a grant destroyed unsettled is given back, and refused afterwards`() {
        Dependency(DependencyConfig(budget = quota, breaker = breakerConfig, retrySlots = 1)).use { dependency ->
            val (budget, breaker, slots) = Triple(dependency.budget()!!, dependency.breaker()!!, dependency.retrySlots()!!)
            val charge = budget.tryRetry(0, false)!!
            val permit = breaker.tryAcquire(0)!!
            val slot = slots.tryAcquire()!!
            charge.close()
            permit.destroy()
            slot.close()
            assertEquals(Triple(0L, 0L, 0L), Triple(budget.chargesOutstanding(), breaker.permitsOutstanding(), slots.inUse()))
            assertEquals(15L, available(budget), "a charge dropped unsettled stays spent")
            for (reuse in listOf({ budget.onSuccess(1, charge) }, { breaker.onSuccess(1, permit) }, { slots.release(slot) })) {
                val error = assertThrows(IllegalStateException::class.java, Executable { reuse() })
                assertTrue(error.message!!.contains("destroyed"), error.message)
            }
            assertEquals(15L, available(budget), "a destroyed charge refunds nothing")
        }
    }

    /** The configuration reader takes up to 4294967295 units and slots; they come back as Long, never clamped to Int. */
    @Test
    fun `counts above Int MAX_VALUE come back as they are`() {
        val big = 3_000_000_000L
        val json = """{"budget":{"kind":"quota","capacity":$big,"retry_cost":5,"timeout_retry_cost":10,"success_increment":1},"retry_slots":$big}"""
        Dependency.fromJson(json).use { dependency ->
            assertEquals(BudgetSnapshot.Quota(big, big), dependency.snapshot(0).budget)
            val slots = dependency.retrySlots()!!
            assertEquals(big, slots.capacity())
            assertTrue(dependency.budget()!!.acquire(big - 1))
            assertEquals(BudgetSnapshot.Quota(1, big), dependency.snapshot(0).budget)
        }
        RetrySlots(4_294_967_295L).use { assertEquals(4_294_967_295L, it.capacity()) }
        refused("capacity") { RetrySlots(4_294_967_296L) }
        RetryBudget(quota).use { budget -> refused("amount") { budget.acquire(4_294_967_296L) } }
    }

    @Test
    fun `the raw quota amounts are the AWS acquire and release only`() {
        RetryBudget(quota).use { budget ->
            assertTrue(budget.acquire(19))
            assertTrue(!budget.acquire(2))
            budget.release(100)
            assertEquals(20L, available(budget), "never above capacity")
            refused("amount") { budget.acquire(-1) }
        }
        val methods = RetryBudget::class.java.methods.map { it.name }.toSet()
        assertTrue("refund" !in methods && "charge" !in methods, "no amount outside the AWS calls")
        assertTrue(Dependency::class.java.methods.none { it.name.startsWith("budgetOn") }, "no conformance-only calls")
    }

    @Test
    fun `threads settling one grant succeed exactly once`() {
        val pool = Executors.newFixedThreadPool(4)
        try {
            repeat(20) {
                Dependency(DependencyConfig(budget = quota, breaker = breakerConfig, retrySlots = 1)).use { dependency ->
                    val (budget, breaker, slots) = Triple(dependency.budget()!!, dependency.breaker()!!, dependency.retrySlots()!!)
                    val charge = budget.tryRetry(0, false)!!
                    val permit = breaker.tryAcquire(0)!!
                    val slot = slots.tryAcquire()!!
                    val settled = ConcurrentLinkedQueue<String>()
                    val barrier = CyclicBarrier(4)
                    val jobs = List(4) {
                        pool.submit {
                            barrier.await()
                            for ((name, call) in listOf<Pair<String, () -> Unit>>(
                                "charge" to { budget.onSuccess(1, charge) },
                                "permit" to { breaker.onSuccess(1, permit) },
                                "slot" to { slots.release(slot) },
                            )) {
                                try {
                                    call()
                                    settled += name
                                } catch (error: RetryplanException.InvalidArgument) {
                                    assertEquals(name, error.field)
                                }
                            }
                        }
                    }
                    jobs.forEach { it.get() }
                    assertEquals(listOf("charge", "permit", "slot"), settled.sorted())
                    assertEquals(20L, available(budget, 1), "refunded once, not four times")
                    assertEquals(Triple(0L, 0L, 0L), Triple(budget.chargesOutstanding(), breaker.permitsOutstanding(), slots.inUse()))
                }
            }
        } finally {
            pool.shutdownNow()
        }
    }

    @Test
    fun `threads sharing a dependency never exceed its retry slots and leak nothing`() {
        val threads = 4
        val pool = Executors.newFixedThreadPool(threads)
        Dependency(DependencyConfig(budget = quota, breaker = breakerConfig, retrySlots = 2)).use { dependency ->
            val (budget, breaker, slots) = Triple(dependency.budget()!!, dependency.breaker()!!, dependency.retrySlots()!!)
            val peaks = ConcurrentLinkedQueue<Long>()
            val barrier = CyclicBarrier(threads)
            val jobs = List(threads) {
                pool.submit {
                    barrier.await()
                    repeat(200) {
                        val slot = slots.tryAcquire() ?: return@repeat
                        peaks += slots.inUse()
                        val permit = breaker.tryAcquire(0)
                        budget.tryRetry(0, false)?.let { budget.onSuccess(0, it) }
                        permit?.let { breaker.onSuccess(0, it) }
                        slots.release(slot)
                    }
                }
            }
            jobs.forEach { it.get() }
            pool.shutdown()
            assertTrue(peaks.isNotEmpty() && peaks.max() <= 2, "peak ${peaks.maxOrNull()}")
            assertEquals(Triple(0L, 0L, 0L), Triple(budget.chargesOutstanding(), breaker.permitsOutstanding(), slots.inUse()))
            assertEquals(20L, available(budget))
        }
    }

    @Test
    @Suppress("DEPRECATION")
    fun `a decision's renamed fields keep their old names for one release`() {
        assertEquals(40L, Decision.Wait(0, 50, 90, 40L, 900).serverDelayMs)
        assertEquals(null, Decision.Wait(0, 50, 90, null, 900).serverDelayMs)
        assertEquals(2, Decision.AwaitOutcome(2, 90).inFlight)
    }
}
