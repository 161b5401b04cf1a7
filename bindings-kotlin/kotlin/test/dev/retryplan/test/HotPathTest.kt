package dev.retryplan.test

import dev.retryplan.AbortReason
import dev.retryplan.Action
import dev.retryplan.Decision
import dev.retryplan.Driver
import dev.retryplan.DriverOptions
import dev.retryplan.Failure
import dev.retryplan.GiveUpReason
import dev.retryplan.GrpcCode
import dev.retryplan.Held
import dev.retryplan.NativeOperation
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.Pushback
import dev.retryplan.Receipt
import dev.retryplan.RetryplanException
import dev.retryplan.TransportFailure
import dev.retryplan.Verdict
import dev.retryplan.wireTables
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.function.Executable

/**
 * `Operation.poll`, `onOutcome` and `cancel` cross the core's wire (an input
 * record in, the decision record out); [NativeOperation] is uniffi's generated path. Run side by
 * side with the same seed, they must answer alike for every outcome and every
 * enum value (the two sides agree on ordinals), every decision kind, and
 * attempt numbers in both halves of the abort set; errors stay typed.
 */
class HotPathTest {
    private fun policy(json: String) = Policy.fromJson(json)

    /** Runs [steps] on a hot and a uniffi operation and checks every answer (or exception) is equal. */
    private fun sideBySide(policy: Policy, steps: (call: ((Operation) -> Decision, (NativeOperation) -> Decision) -> Decision) -> Unit) {
        Operation(policy, 0, OperationOptions(seed = 11)).use { hot ->
            NativeOperation(policy, 0, OperationOptions(seed = 11)).use { native ->
                steps { onHot, onNative ->
                    val expected = runCatching { onNative(native) }
                    val actual = runCatching { onHot(hot) }
                    assertEquals(expected.exceptionOrNull()?.javaClass, actual.exceptionOrNull()?.javaClass)
                    assertEquals(expected.exceptionOrNull()?.toString(), actual.exceptionOrNull()?.toString())
                    assertEquals(expected.getOrNull(), actual.getOrNull())
                    actual.getOrThrow()
                }
            }
        }
    }

    private val outcomes: List<Outcome> = listOf(Outcome.Success, Outcome.Cancelled) +
        listOf(200, 409, 429, 500, 503).flatMap { listOf(Outcome.HttpStatus(it, null), Outcome.HttpStatus(it, 1500)) } +
        // A service error code is a string: that outcome takes uniffi's path inside Operation.
        listOf(Outcome.HttpStatus(400, null, "SlowDown"), Outcome.HttpStatus(503, 200, "ThrottlingException")) +
        GrpcCode.entries.flatMap {
            listOf(Outcome.GrpcStatus(it, null), Outcome.GrpcStatus(it, Pushback.RetryAfterMs(700)), Outcome.GrpcStatus(it, Pushback.DoNotRetry))
        } +
        TransportFailure.entries.map { Outcome.Transport(it) } + Verdict.entries.map { Outcome.Application(it) }

    @Test
    fun `every outcome and enum value gets the answer uniffi's path gives`() {
        for (idempotency in listOf("safe", "unsafe")) {
            policy("""{"max_attempts": 3, "jitter": {"kind": "none"}, "idempotency": "$idempotency"}""").use { policy ->
                for (outcome in outcomes) {
                    sideBySide(policy) { call ->
                        val start = call({ it.poll(0) }, { it.poll(0) }) as Decision.StartAttempt
                        when (call({ it.onOutcome(10, start.attempt, outcome) }, { it.onOutcome(10, start.attempt, outcome) })) {
                            is Decision.Wait -> call({ it.poll(5_000) }, { it.poll(5_000) })
                            else -> {}
                        }
                    }
                }
            }
        }
    }

    @Test
    fun `hedges, awaited outcomes and aborts above attempt 64 come out alike`() {
        val json = """{"max_attempts": 100, "total_timeout_ms": 1000000, "jitter": {"kind": "none"},
            "attempt_timeout": {"fixed_ms": 1000}, "minimum_useful_attempt_ms": 1,
            "backoff": {"kind": "constant", "base_ms": 0, "multiplier": 1.0, "cap_ms": 0},
            "hedging": {"delay_ms": 50, "max_hedged_attempts": 1}, "idempotency": "idempotent"}"""
        policy(json).use { policy ->
            sideBySide(policy) { call ->
                var now = 0L
                var decision = call({ it.poll(now) }, { it.poll(now) })
                // 65 attempts fail one at a time; attempt 66 runs.
                while (decision !is Decision.StartAttempt || decision.attempt < 66) {
                    now += 1
                    decision = when (val d = decision) {
                        is Decision.StartAttempt -> call(
                            { it.onOutcome(now, d.attempt, Outcome.HttpStatus(503)) },
                            { it.onOutcome(now, d.attempt, Outcome.HttpStatus(503)) },
                        )

                        else -> call({ it.poll(now) }, { it.poll(now) })
                    }
                }
                assertEquals(Decision.AwaitOutcome::class.java, call({ it.poll(now + 10) }, { it.poll(now + 10) }).javaClass)
                val hedge = call({ it.poll(now + 50) }, { it.poll(now + 50) }) as Decision.StartAttempt
                assertEquals(67 to true, hedge.attempt to hedge.hedge)
                val ending = call({ it.onOutcome(now + 60, 67, Outcome.Success) }, { it.onOutcome(now + 60, 67, Outcome.Success) })
                assertEquals(Decision.Succeeded(67, 67, listOf(66)), ending)
            }
        }
    }

    @Test
    fun `cancel and every error of the hot path are uniffi's, and change nothing`() {
        policy("""{"jitter": {"kind": "none"}}""").use { policy ->
            sideBySide(policy) { call ->
                assertThrows(
                    RetryplanException.AttemptNotRunning::class.java,
                    Executable {
                        call({ it.onOutcome(0, 1, Outcome.Success) }, { it.onOutcome(0, 1, Outcome.Success) })
                    },
                )
                assertThrows(RetryplanException.InvalidArgument::class.java, Executable { call({ it.poll(-1) }, { it.poll(-1) }) })
                call({ it.poll(0) }, { it.poll(0) })
                for (bad in listOf(
                    Outcome.HttpStatus(42),
                    Outcome.HttpStatus(-503),
                    Outcome.HttpStatus(503, -1),
                    Outcome.GrpcStatus(GrpcCode.UNAVAILABLE, Pushback.RetryAfterMs(-1)),
                )) {
                    assertThrows(
                        RetryplanException.InvalidArgument::class.java,
                        Executable {
                            call({ it.onOutcome(5, 1, bad) }, { it.onOutcome(5, 1, bad) })
                        },
                    )
                }
                assertThrows(
                    RetryplanException.InvalidArgument::class.java,
                    Executable {
                        call({ it.onOutcome(5, -1, Outcome.Success) }, { it.onOutcome(5, -1, Outcome.Success) })
                    },
                )
                // Nothing changed: attempt 1 still runs.
                call({ it.poll(6) }, { it.poll(6) }) as Decision.AwaitOutcome
                call({ it.cancel(7) }, { it.cancel(7) }) as Decision.GaveUp
                assertThrows(RetryplanException.OperationEnded::class.java, Executable { call({ it.poll(8) }, { it.poll(8) }) })
                assertThrows(RetryplanException.OperationEnded::class.java, Executable { call({ it.cancel(8) }, { it.cancel(8) }) })
            }
        }
    }

    /**
     * The library is mapped from its copy in the user's cache (Library.kt),
     * named by the jar entry's CRC and size, not extracted by JNA again.
     */
    @Test
    fun `the library is loaded from its copy in the user's cache`() {
        Policy.profile("read").close()
        val resource = javaClass.classLoader.getResource("linux-x86-64/libretryplan_uniffi.so")!!
        val entry = (resource.openConnection() as java.net.JarURLConnection).jarEntry
        val cache = System.getenv("XDG_CACHE_HOME") ?: java.io.File(System.getProperty("user.home"), ".cache").path
        val cached = java.io.File(cache, "retryplan/native/${java.lang.Long.toHexString(entry.crc)}-${entry.size}-libretryplan_uniffi.so")
        // Another build's process (a second worktree's tests) may have replaced
        // this copy since it was mapped: a mapping outlives its file's removal.
        if (cached.exists()) assertEquals(entry.size, cached.length())
        val maps = java.io.File("/proc/self/maps").readText()
        assertEquals(true, maps.contains(cached.absolutePath), "not mapped: $cached")
    }

    /**
     * Writing the cache's copy of a new version removes the copies earlier
     * versions left, and only those: an upgrade does not pile up 2 MB each.
     */
    @Test
    fun `a new copy in the cache removes the earlier versions' copies`() {
        val dir = java.nio.file.Files.createTempDirectory("retryplan-native").toFile()
        try {
            val file = "libretryplan_uniffi.so"
            val earlier = java.io.File(dir, "abc-3-$file").apply { writeText("old") }
            val unrelated = java.io.File(dir, "abc-3-libother.so").apply { writeText("old") }
            val copy = dev.retryplan.cachedCopy(dir, file, 0x1234, 4) { "new!".byteInputStream() }
            assertEquals("1234-4-$file", copy.name)
            assertEquals("new!", copy.readText())
            assertEquals(false, earlier.exists(), "the earlier version's copy is left")
            assertEquals(true, unrelated.exists(), "another library's file was removed")
            assertEquals(listOf(copy.name, unrelated.name).sorted(), dir.list()!!.sorted())
            // Present and whole: not written again (the stream is not opened).
            dev.retryplan.cachedCopy(dir, file, 0x1234, 4) { error("opened again") }
        } finally {
            dir.deleteRecursively()
        }
    }

    /** `wireTables()` is deprecated (no binding reads it; build.sh marks uniffi's function): a caller is warned. */
    @Test
    fun `wireTables is deprecated`() {
        val method = Class.forName("dev.retryplan.Retryplan_uniffiKt").getMethod("wireTables")
        val deprecated = method.getAnnotation(Deprecated::class.java)
        assertEquals(true, deprecated?.message?.contains("core/src/driver/wire.md"), "$method: $deprecated")
    }

    /**
     * The driver's wire, against its typed calls: for every failure of the
     * vocabulary and every verdict, a `result` record carrying the number the
     * core's tables give it gets the same receipt and next action as the
     * typed call (so the tables the helpers build their constants from are
     * the core's); a refused record stays typed.
     */
    @Test
    @Suppress("DEPRECATION")
    fun `the wire's tables name what the typed calls take`() {
        val tables = wireTables()
        // `WireWords.word` numbers a member by its ordinal: every vocabulary's Kotlin enum is in the core's wire order.
        assertEquals(Failure.entries, tables.failures)
        assertEquals(Verdict.entries, tables.verdicts)
        assertEquals(TransportFailure.entries, tables.transportFailures)
        assertEquals(GrpcCode.entries, tables.grpcCodes)
        assertEquals(AbortReason.entries, tables.abortReasons)
        assertEquals(GiveUpReason.entries, tables.giveUpReasons)
        assertEquals(Receipt.entries, tables.receipts)
        assertEquals(Held.entries, tables.helds)
        val options = DriverOptions(recordEvents = true)
        fun kind(action: Action) = when (action) {
            is Action.StartAttempt -> "start_attempt"
            is Action.AbortAttempt -> "abort_attempt"
            is Action.Sleep -> "sleep"
            is Action.Release -> "release"
            is Action.Finish -> "finish"
        }
        fun record(kind: String, code: Int) = listOf(
            tables.inputKinds.indexOf("result"),
            10,
            1,
            4,
            tables.helds.indexOf(Held.ERROR),
            tables.outcomeKinds.indexOf(kind),
            code,
            -1,
        ).map { it.toLong() }
        fun check(policy: Policy, typed: (Driver) -> Receipt, wire: List<Long>) = Driver(policy, 0, OperationOptions(seed = 11), options).use { a ->
            Driver(policy, 0, OperationOptions(seed = 11), options).use { b ->
                a.pollAction(0)
                b.pollAction(0)
                val receipt = typed(a)
                val out = b.exchange(wire)
                assertEquals(tables.receipts.indexOf(receipt).toLong(), out[tables.outputFields.indexOf("receipt")])
                val action = a.pollAction(10)
                assertEquals(tables.actionKinds.indexOf(kind(action)).toLong(), out[tables.outputFields.indexOf("action_kind")])
                assertEquals(action, b.pollAction(10))
            }
        }
        policy("""{"max_attempts": 2, "jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}}""").use { policy ->
            for (failure in Failure.entries) {
                check(policy, { it.handleFailure(10, 1, failure, 4, Held.ERROR) }, record("failure", tables.failures.indexOf(failure)))
            }
            for (verdict in Verdict.entries) {
                val outcome = Outcome.Application(verdict)
                check(policy, { it.handleResult(10, 1, outcome, 4, Held.ERROR) }, record("application", tables.verdicts.indexOf(verdict)))
            }
            Driver(policy, 0, OperationOptions(seed = 11), options).use { driver ->
                assertThrows(RetryplanException.AttemptNotRunning::class.java) { driver.exchange(record("failure", 0)) }
                assertThrows(RetryplanException.InvalidArgument::class.java) { driver.exchange(listOf(0L, -1L)) }
            }
        }
    }
}
