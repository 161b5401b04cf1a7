package dev.retryplan.bench

import dev.retryplan.Decision
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy

/*
 * What one decision call costs from Kotlin through the jar, against a pure-Kotlin
 * loop making the same decisions (KotlinFloor), in one JVM after a warm-up. Not
 * a test (timings are not assertions): run it with bench.sh. Every row prints
 * the median of several rounds in ns per call, and the ratio to the floor.
 */

private const val SEED = 7L
private const val DELAY_MS = 10L
private const val POLICY = """{"max_attempts": 100, "total_budget_ms": 100000000, "attempt_timeout": {"fixed_ms": 1000},
    "response_reserve_ms": 50, "minimum_useful_attempt_ms": 100, "jitter": {"kind": "none"},
    "backoff": {"kind": "constant", "base_ms": 10, "multiplier": 1.0, "cap_ms": 10}}"""

/** The two implementations the bench drives the same way. */
private interface Decider {
    fun poll(nowMs: Long): Decision
    fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome.HttpStatus): Decision
    fun close() {}
}

private class NativeDecider(policy: Policy) : Decider {
    val op = Operation(policy, 0, OperationOptions(seed = SEED))
    override fun poll(nowMs: Long) = op.poll(nowMs)
    override fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome.HttpStatus) = op.onOutcome(nowMs, attempt, outcome)
    override fun close() = op.close()
}

private fun native(policy: Policy): Decider = NativeDecider(policy)

private fun floor(): Decider = object : Decider {
    val loop = KotlinFloor(100, 100_000_000, 1000, 50, 100, DELAY_MS, SEED, 0)
    override fun poll(nowMs: Long) = loop.poll(nowMs)
    override fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome.HttpStatus) = loop.onOutcome(nowMs, attempt, outcome)
}

private val UNAVAILABLE = Outcome.HttpStatus(503, null)
private val OK = Outcome.HttpStatus(200, null)

/**
 * One operation of [cycles] retry cycles: `poll` starts an attempt, `onOutcome(503)`
 * answers Wait; the last attempt succeeds. Returns every decision, and adds the
 * time spent in the decision calls alone (not creating or closing) to [spent].
 */
private fun run(decider: Decider, cycles: Int, spent: LongArray?, out: MutableList<Decision>?): Int {
    var now = 0L
    var sink = 0
    val start = System.nanoTime()
    for (cycle in 1..cycles) {
        val started = decider.poll(now) as Decision.StartAttempt
        now += 1
        val next = decider.onOutcome(now, started.attempt, if (cycle == cycles) OK else UNAVAILABLE)
        out?.add(started)
        out?.add(next)
        sink += started.attempt + next.hashCode()
        now += DELAY_MS
    }
    if (spent != null) spent[0] += System.nanoTime() - start
    return sink
}

private class Row(val label: String, val native: Double, val floor: Double)

/**
 * The median of [rounds] rounds of `measure(n)` (ns per call), with `n` grown
 * first until one round takes about [roundNs]: slow and fast calls get rounds
 * of the same length. `measure` runs `n` units and returns ns per call.
 */
private fun timed(rounds: Int, roundNs: Long, measure: (Int) -> Double): Double {
    var n = 1
    while (true) {
        val start = System.nanoTime()
        measure(n)
        val took = System.nanoTime() - start
        if (took >= roundNs / 4) {
            n = maxOf(1, (n.toLong() * roundNs / maxOf(1, took)).toInt())
            break
        }
        n *= 4
    }
    measure(n) // warm-up at full size: the JIT and the library's first calls
    return List(rounds) { measure(n) }.sorted()[rounds / 2]
}

fun main(args: Array<String>) {
    val rounds = args.getOrNull(0)?.toInt() ?: 7
    val roundNs = (args.getOrNull(1)?.toDouble() ?: 0.5).let { (it * 1e9).toLong() }
    var sink = 0
    Policy.fromJson(POLICY).use { policy ->
        // The floor is only a floor if it decides the same: compare one whole operation first.
        val expected = mutableListOf<Decision>().also { val d = native(policy); run(d, 100, null, it); d.close() }
        val actual = mutableListOf<Decision>().also { run(floor(), 100, null, it) }
        check(expected == actual) { "the floor decides differently:\n$expected\n$actual" }
        fun waiting(decider: Decider) = decider.also { d ->
            val start = d.poll(0) as Decision.StartAttempt
            check(d.onOutcome(1, start.attempt, UNAVAILABLE) is Decision.Wait)
        }
        val nativeWaiting = waiting(native(policy))
        val floorWaiting = waiting(floor())

        /** ns per decision call over [operations] operations of 100 retry cycles (creating and closing excluded). */
        fun perCall(decider: () -> Decider, operations: Int): Double {
            val spent = LongArray(1)
            repeat(operations) { val d = decider(); sink += run(d, 100, spent, null); d.close() }
            return spent[0].toDouble() / (operations * 200)
        }
        fun polls(decider: Decider, calls: Int): Double {
            val start = System.nanoTime()
            // Before the wait ends (at 11): a Wait each time, read at a varying time so nothing is hoisted.
            for (i in 0 until calls) sink += decider.poll((i and 7).toLong()).hashCode()
            return (System.nanoTime() - start).toDouble() / calls
        }
        /** ns per operation: create, 5 retry cycles (10 decisions), close. */
        fun wholeOperations(decider: () -> Decider, operations: Int): Double {
            val start = System.nanoTime()
            repeat(operations) { val d = decider(); sink += run(d, 5, null, null); d.close() }
            return (System.nanoTime() - start).toDouble() / operations
        }
        val rows = listOf(
            Row("poll answering Wait (one waiting operation)",
                timed(rounds, roundNs) { polls(nativeWaiting, it) }, timed(rounds, roundNs) { polls(floorWaiting, it) }),
            Row("poll / onOutcome in retry cycles, per call",
                timed(rounds, roundNs) { perCall({ native(policy) }, it) }, timed(rounds, roundNs) { perCall(::floor, it) }),
            Row("whole operation: new, 10 decisions, close",
                timed(rounds, roundNs) { wholeOperations({ native(policy) }, it) },
                timed(rounds, roundNs) { wholeOperations(::floor, it) }),
        )
        // For reference: a getter that returns a plain Long through uniffi's generated call.
        val op = (nativeWaiting as NativeDecider).op
        val getter = timed(rounds, roundNs) { calls ->
            val start = System.nanoTime()
            repeat(calls) { sink += op.deadlineMs().toInt() }
            (System.nanoTime() - start).toDouble() / calls
        }
        nativeWaiting.close()
        println("%-46s %12s %13s %8s".format("median of $rounds rounds", "binding", "pure Kotlin", "ratio"))
        for (r in rows) {
            println("%-46s %9.0f ns %10.1f ns %7.0fx".format(r.label, r.native, r.floor, r.native / r.floor))
        }
        println("%-46s %9.0f ns".format("deadlineMs() (a Long, uniffi's generated call)", getter))
        if (sink == 42) println()
    }
}
