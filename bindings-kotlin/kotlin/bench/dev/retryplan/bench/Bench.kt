package dev.retryplan.bench

import dev.retryplan.Decision
import dev.retryplan.Driver
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.Verdict
import dev.retryplan.retrying
import dev.retryplan.wireTables
import kotlinx.coroutines.runBlocking

/*
 * What one decision call costs from Kotlin through the jar, against a pure-Kotlin
 * loop making the same decisions (KotlinFloor), in one JVM after a warm-up. Not
 * a test (timings are not assertions): run it with bench.sh. Every row prints
 * the median of several rounds in ns per call, and the ratio to the floor.
 */

private const val SEED = 7L
private const val DELAY_MS = 10L
private const val POLICY = """{"max_attempts": 100, "total_timeout_ms": 100000000, "attempt_timeout": {"fixed_ms": 1000},
    "response_reserve_ms": 50, "minimum_useful_attempt_ms": 100, "jitter": {"kind": "none"},
    "backoff": {"kind": "constant", "base_ms": 10, "multiplier": 1.0, "cap_ms": 10}}"""

/** The two implementations the bench drives the same way. */
private interface Decider {
    fun poll(nowMs: Long): Decision
    fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome.HttpStatus): Decision
    fun close() {}
}

private class NativeDecider(policy: Policy, options: OperationOptions = OperationOptions(seed = SEED)) : Decider {
    val op = Operation(policy, 0, options)
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
 * answers Wait; the last attempt succeeds. Returns a value the JIT cannot drop,
 * and adds every decision to [out] when given.
 */
private fun run(decider: Decider, cycles: Int, out: MutableList<Decision>? = null): Int {
    var now = 0L
    var sink = 0
    for (cycle in 1..cycles) {
        val started = decider.poll(now) as Decision.StartAttempt
        now += 1
        val next = decider.onOutcome(now, started.attempt, if (cycle == cycles) OK else UNAVAILABLE)
        out?.add(started)
        out?.add(next)
        sink += started.attempt + next.hashCode()
        now += DELAY_MS
    }
    return sink
}

/** The core's wire tables, read once (as the helpers' Wire.kt reads them). */
private val TABLES = wireTables()
private fun List<String>.word(name: String) = indexOf(name).also { check(it >= 0) }
private val IN_KIND = TABLES.inputFields.word("input_kind")
private val IN_NOW = TABLES.inputFields.word("now_ms")
private val IN_ATTEMPT = TABLES.inputFields.word("attempt")
private val IN_OUTCOME_KIND = TABLES.inputFields.word("outcome_kind")
private val IN_OUTCOME_CODE = TABLES.inputFields.word("outcome_code")
private val OUT_ACTION = TABLES.outputFields.word("action_kind")
private val OUT_ATTEMPT = TABLES.outputFields.word("attempt")
private val OUT_UNTIL = TABLES.outputFields.word("until_ms")
private val POLL = TABLES.inputKinds.word("poll").toLong()
private val RESULT = TABLES.inputKinds.word("result").toLong()
private val HTTP_STATUS = TABLES.outcomeKinds.word("http_status").toLong()
private val SLEEP = TABLES.actionKinds.word("sleep").toLong()

/**
 * One operation of [cycles] retry cycles through the driver's wire, as a
 * helper's loop steps it: a `poll` record starts an attempt, a `result`
 * record (503) answers its receipt and the next action (a sleep), and the
 * next poll is at its end; the last attempt succeeds. Two wire calls per
 * cycle (the floor's cycle is two calls too).
 */
private fun driverCycles(policy: Policy, cycles: Int): Int {
    var sink = 0
    val input = LongArray(TABLES.inputFields.size)
    val out = LongArray(TABLES.outputFields.size)
    Driver(policy, 0, OperationOptions(seed = SEED)).use { driver ->
        var now = 0L
        for (cycle in 1..cycles) {
            input.fill(TABLES.none)
            input[IN_KIND] = POLL
            input[IN_NOW] = now
            driver.exchangeInto(input, out) // a start
            now += 1
            input[IN_KIND] = RESULT
            input[IN_NOW] = now
            input[IN_ATTEMPT] = out[OUT_ATTEMPT]
            input[IN_OUTCOME_KIND] = HTTP_STATUS
            input[IN_OUTCOME_CODE] = if (cycle == cycles) 200 else 503
            driver.exchangeInto(input, out) // the receipt and the next action
            sink += out[OUT_ACTION].toInt()
            if (out[OUT_ACTION] == SLEEP) now = out[OUT_UNTIL]
        }
    }
    return sink
}

/** The workload of issue 11: zero delay, ten attempts, each failing with an application error the hook calls retryable. */
private const val TEN_TRIES = """{"max_attempts": 10, "total_timeout_ms": 100000, "attempt_timeout": {"fixed_ms": 10000},
    "response_reserve_ms": 0, "minimum_useful_attempt_ms": 1, "jitter": {"kind": "none"},
    "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0}}"""
private val RETRYABLE = Outcome.Application(Verdict.RETRYABLE)
private class Flaky : Exception(null, null, false, false)
private val FLAKY = Flaky()

/** The hand-written loop a user would write instead of `retrying`: up to ten tries, retrying every error. */
private inline fun <T> handLoop(block: (Int) -> T): T {
    var attempt = 1
    while (true) {
        try {
            return block(attempt)
        } catch (e: Exception) {
            if (attempt == 10) throw e
        }
        attempt += 1
    }
}

/** Wall-clock and CPU ns per unit: CPU counts every thread of the JVM (JNA's cleaner, the GC) but not waiting for a core. */
private class Cost(val wallNs: Double, val cpuNs: Double) {
    operator fun minus(other: Cost) = Cost(wallNs - other.wallNs, cpuNs - other.cpuNs)
    operator fun div(by: Int) = Cost(wallNs / by, cpuNs / by)
}

private val os = java.lang.management.ManagementFactory.getOperatingSystemMXBean() as com.sun.management.OperatingSystemMXBean

/**
 * The median cost of one unit over [rounds] rounds of `work(n)` (n units), with
 * `n` grown first until a round takes about [roundNs], so slow and fast calls
 * get rounds of the same length. Medians of wall and CPU time are taken apart.
 */
private fun timed(rounds: Int, roundNs: Long, work: (Int) -> Unit): Cost {
    // Warm up one round's time first: sized by a cold first call (class loading, the JIT), a round would hold a few units.
    val warm = System.nanoTime()
    while (System.nanoTime() - warm < roundNs) work(1)
    var n = 1
    while (true) {
        val start = System.nanoTime()
        work(n)
        val took = System.nanoTime() - start
        if (took >= roundNs / 4 || n > Int.MAX_VALUE / 16) {
            n = (n.toLong() * roundNs / maxOf(1, took)).coerceIn(1, Int.MAX_VALUE.toLong()).toInt()
            break
        }
        n *= 4
    }
    work(n) // warm-up at full size: the JIT and the library's first calls
    val costs = List(rounds) {
        val wall = System.nanoTime()
        val cpu = os.processCpuTime
        work(n)
        Cost((System.nanoTime() - wall).toDouble() / n, (os.processCpuTime - cpu).toDouble() / n)
    }
    return Cost(costs.map { it.wallNs }.sorted()[rounds / 2], costs.map { it.cpuNs }.sorted()[rounds / 2])
}

fun main(args: Array<String>) {
    val rounds = args.getOrNull(0)?.toInt() ?: 7
    val roundNs = (args.getOrNull(1)?.toDouble() ?: 0.5).let { (it * 1e9).toLong() }
    var sink = 0
    Policy.fromJson(POLICY).use { policy ->
        // The floor is only a floor if it decides the same: compare one whole operation first.
        val expected = mutableListOf<Decision>().also {
            val d = native(policy)
            run(d, 100, it)
            d.close()
        }
        val actual = mutableListOf<Decision>().also { run(floor(), 100, it) }
        check(expected == actual) { "the floor decides differently:\n$expected\n$actual" }
        fun waiting(decider: Decider) = decider.also { d ->
            val start = d.poll(0) as Decision.StartAttempt
            check(d.onOutcome(1, start.attempt, UNAVAILABLE) is Decision.Wait)
        }
        val nativeWaiting = waiting(native(policy))
        val floorWaiting = waiting(floor())

        fun polls(decider: Decider, calls: Int) {
            // Before the wait ends (at 11): a Wait each time, read at a varying time so nothing is hoisted.
            for (i in 0 until calls) sink += decider.poll((i and 7).toLong()).hashCode()
        }
        fun operations(make: () -> Decider, cycles: Int) = { n: Int ->
            repeat(n) {
                val d = make()
                sink += run(d, cycles)
                d.close()
            }
        }
        fun compare(make: () -> Decider, waiting: Decider) = listOf(
            timed(rounds, roundNs) { polls(waiting, it) },
            // Per decision call: 100 retry cycles (200 calls) less creating and closing, over 200.
            (timed(rounds, roundNs, operations(make, 100)) - timed(rounds, roundNs, operations(make, 0))) / 200,
            timed(rounds, roundNs, operations(make, 5)),
            timed(rounds, roundNs, operations(make, 0)),
        )
        val binding = compare({ native(policy) }, nativeWaiting)
        val pure = compare(::floor, floorWaiting)
        val labels = listOf(
            "poll answering Wait (one waiting operation)",
            "poll / onOutcome in retry cycles, per call",
            "whole operation: new, 10 decisions, close",
            "new + close (no decision)",
        )
        // For reference: a getter that returns a plain Long through uniffi's generated call.
        val op = (nativeWaiting as NativeDecider).op
        val getter = timed(rounds, roundNs) { calls -> repeat(calls) { sink += op.deadlineMs().toInt() } }
        nativeWaiting.close()
        println("median of $rounds rounds, ns per call or operation: wall clock / CPU (all JVM threads)")
        println("%-44s %21s %17s %11s".format("", "binding", "pure Kotlin", "ratio (CPU)"))
        for (i in labels.indices) {
            val (b, f) = binding[i] to pure[i]
            println("%-44s %10.0f / %8.0f %8.1f / %6.1f %10.0fx".format(labels[i], b.wallNs, b.cpuNs, f.wallNs, f.cpuNs, b.cpuNs / f.cpuNs))
        }
        println("%-44s %10.0f / %8.0f".format("deadlineMs() (a Long, uniffi's generated call)", getter.wallNs, getter.cpuNs))
        // The workload users have: seed and key from the OS, as the README makes an operation.
        val osSeeded = timed(rounds, roundNs, operations({ NativeDecider(policy, OperationOptions()) }, 5))
        println(
            "%-44s %10.0f / %8.0f %8.1f / %6.1f %10.0fx".format(
                "  the same, seed and key from the OS",
                osSeeded.wallNs,
                osSeeded.cpuNs,
                pure[2].wallNs,
                pure[2].cpuNs,
                osSeeded.cpuNs / pure[2].cpuNs,
            ),
        )

        // The driver (what every helper's loop calls): a retry cycle, against the floor's poll + onOutcome.
        val cycle = (
            timed(rounds, roundNs) { n -> repeat(n) { sink += driverCycles(policy, 100) } } -
                timed(rounds, roundNs) { n -> repeat(n) { sink += driverCycles(policy, 0) } }
            ) / 100
        val floorCycle = pure[1].let { Cost(it.wallNs * 2, it.cpuNs * 2) }
        println()
        println(
            "%-44s %10.0f / %8.0f %8.1f / %6.1f %10.0fx".format(
                "driver retry cycle (2 wire calls) vs floor (2)",
                cycle.wallNs,
                cycle.cpuNs,
                floorCycle.wallNs,
                floorCycle.cpuNs,
                cycle.cpuNs / floorCycle.cpuNs,
            ),
        )
        println("%-44s %10.0f / %8.0f".format("  per wire call", cycle.wallNs / 2, cycle.cpuNs / 2))
    }
    // The helper as users call it: a fresh operation per call (seed and key from the OS), in one coroutine.
    Policy.fromJson(TEN_TRIES).use { policy ->
        val happy = timed(rounds, roundNs) { n -> runBlocking { repeat(n) { sink += retrying(policy) { it.attempt } } } }
        val happyHand = timed(rounds, roundNs) { n -> repeat(n) { sink += handLoop { it } } }
        val hook: (Throwable) -> Outcome = { RETRYABLE }
        val ten = timed(rounds, roundNs) { n ->
            runBlocking {
                repeat(n) { sink += runCatching { retrying<Int>(policy, outcomeOfError = hook) { throw FLAKY } }.exceptionOrNull().hashCode() }
            }
        }
        val tenHand = timed(rounds, roundNs) { n -> repeat(n) { sink += runCatching { handLoop<Int> { throw FLAKY } }.exceptionOrNull().hashCode() } }
        println()
        println("%-44s %21s %17s %11s".format("suspend retrying {} per operation", "retrying", "hand loop", "ratio (CPU)"))
        for ((label, pair) in listOf("one attempt, succeeds" to (happy to happyHand), "ten attempts, each throws (hook: retryable)" to (ten to tenHand))) {
            val (b, f) = pair
            println("%-44s %10.0f / %8.0f %8.1f / %6.1f %10.0fx".format(label, b.wallNs, b.cpuNs, f.wallNs, f.cpuNs, b.cpuNs / f.cpuNs))
        }
    }
    if (sink == 42) println()
}
