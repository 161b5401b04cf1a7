package dev.retryplan.test

import dev.retryplan.AttemptTimeoutConfig
import dev.retryplan.BreakerConfig
import dev.retryplan.BudgetConfig
import dev.retryplan.BudgetSnapshot
import dev.retryplan.CircuitBreaker
import dev.retryplan.Dependency
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RetryBudget
import dev.retryplan.RetrySlots
import dev.retryplan.RetryplanException
import dev.retryplan.TripConfig
import dev.retryplan.code
import dev.retryplan.defaultPolicyConfig
import dev.retryplan.description
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import java.io.File

/**
 * What bad input gets: one row per kind of bad input, each a typed error with
 * the core's code and the argument or field it names, the same code and field
 * the Python binding gives for the same input (`tests/test_bad_input.py`).
 * The README's "What bad input gets" table is these rows: a test below reads
 * it and compares.
 */
class BadInputTest {
    private class Row(val label: String, val error: String, val code: String, val field: String, val call: () -> Unit)

    private val policyJson = """{"jitter": {"kind": "none"}}"""
    private val breakerConfig = BreakerConfig(TripConfig.Consecutive(1), openMs = 1000, halfOpenProbes = 1)
    private val huge = "x".repeat(10_000_000)

    private fun <T> withOperation(use: (Operation) -> T): T = Policy.fromJson(policyJson).use { policy ->
        Operation(policy, 0, OperationOptions(seed = 1)).use { operation ->
            operation.poll(0)
            use(operation)
        }
    }

    private fun clockBackwards() = withOperation { operation ->
        operation.onOutcome(500, 1, Outcome.HttpStatus(503))
        assertEquals(operation.poll(500), operation.poll(300), "the earlier reading counts as no time: 500 ms")
    }

    private fun clockFarAhead() {
        CircuitBreaker(breakerConfig).use { breaker ->
            breaker.onFailure(1_700_000_000_000, breaker.tryAcquire(100)!!)
            assertNull(breaker.tryAcquire(200), "open for the 1000 ms it had left")
            assertNotNull(breaker.tryAcquire(1200), "not for 55 years")
        }
        RetryBudget(BudgetConfig.Ratio(retryRatio = 0.5, minRetriesPerSecond = 0, windowMs = 1000)).use { budget ->
            budget.onRequest((1L shl 53) - 1)
            budget.onRequest(0)
            assertEquals(2L, (budget.snapshot(0) as BudgetSnapshot.Ratio).requests, "the clock restarted at 0 with both counts")
            assertEquals(0L, (budget.snapshot(1000) as BudgetSnapshot.Ratio).requests, "they leave the window 1000 ms later")
        }
    }

    private val rows = listOf(
        Row("negative clock reading", "InvalidArgument", "invalid_argument", "now_ms") { withOperation { it.poll(-1) } },
        Row("clock reading beyond 2^53 - 1 ms", "InvalidArgument", "invalid_argument", "now_ms") {
            withOperation { it.poll(1L shl 53) }
        },
        Row("retry_after_ms beyond 2^53 - 1 ms", "InvalidArgument", "invalid_argument", "retry_after_ms") {
            withOperation { it.onOutcome(1, 1, Outcome.HttpStatus(503, Long.MAX_VALUE)) }
        },
        Row("negative count", "InvalidArgument", "invalid_argument", "capacity") { RetrySlots(-1) },
        Row("NaN in a configuration", "InvalidConfig", "invalid_config", "attempt_timeout.fraction_of_remaining") {
            Policy(defaultPolicyConfig().copy(attemptTimeout = AttemptTimeoutConfig.FractionOfRemaining(Double.NaN)))
        },
        Row("Infinity in a configuration", "InvalidConfig", "invalid_config", "attempt_timeout.fraction_of_remaining") {
            Policy(defaultPolicyConfig().copy(attemptTimeout = AttemptTimeoutConfig.FractionOfRemaining(Double.POSITIVE_INFINITY)))
        },
        Row("negative number in a configuration", "InvalidConfig", "invalid_config", "backoff.base_ms") {
            Policy(defaultPolicyConfig().let { it.copy(backoff = it.backoff.copy(baseMs = -5)) })
        },
        Row("time beyond 2^53 - 1 ms in a configuration", "ConfigViolations", "config_violations", "total_timeout_ms") {
            Policy(defaultPolicyConfig().copy(totalTimeoutMs = 1L shl 53))
        },
        Row("number beyond 2^64 in a configuration", "InvalidConfig", "invalid_config", "total_timeout_ms") {
            Policy.fromJson("""{"total_timeout_ms": 18446744073709551616}""")
        },
        Row("wrong type in a configuration", "InvalidConfig", "invalid_config", "max_attempts") {
            Policy.fromJson("""{"max_attempts": "3"}""")
        },
        Row("null in a configuration", "InvalidConfig", "invalid_config", "total_timeout_ms") {
            Policy.fromJson("""{"total_timeout_ms": null}""")
        },
        Row("unknown field", "InvalidConfig", "invalid_config", "max_attemps") {
            Policy.fromJson("""{"max_attemps": 3}""")
        },
        Row("duplicate field", "InvalidConfig", "invalid_config", "max_attempts") {
            Policy.fromJson("""{"max_attempts": 3, "max_attempts": 4}""")
        },
        Row("lone surrogate in an argument", "InvalidArgument", "invalid_argument", "idempotency_key") {
            Policy.fromJson(policyJson).use { Operation(it, 0, OperationOptions(seed = 1, idempotencyKey = "key\uD800")) }
        },
        Row("lone surrogate in JSON text", "InvalidArgument", "invalid_argument", "json") {
            Policy.fromJson("{\"idempotency\": \"\uD800\"}")
        },
        Row("huge string in a configuration (10 MB)", "InvalidConfig", "invalid_config", "idempotency") {
            Policy.fromJson("""{"idempotency": "$huge"}""")
        },
        Row("bytes that are not a compiled form", "CompiledForm", "not_a_compiled_form", NONE) {
            Policy.fromCompiled("""{"max_attempts": 3}""".toByteArray())
        },
        Row("compiled form of another version", "CompiledForm", "compiled_form_version", NONE) {
            val form = Policy.fromJson(policyJson).use { it.toCompiled() }
            form[3] = (form[3] + 1).toByte()
            Policy.fromCompiled(form)
        },
        Row("damaged compiled form", "CompiledForm", "compiled_form_damaged", NONE) {
            Policy.fromCompiled(Policy.fromJson(policyJson).use { it.toCompiled() }.let { it.copyOf(it.size - 1) })
        },
        Row("compiled form of another kind", "CompiledForm", "compiled_form_kind", NONE) {
            Dependency.fromCompiled(Policy.fromJson(policyJson).use { it.toCompiled() })
        },
        Row("clock backwards (an operation)", NONE, NONE, NONE) { clockBackwards() },
        Row("clock far ahead (a breaker, a budget)", NONE, NONE, NONE) { clockFarAhead() },
        Row("call after the end", "OperationEnded", "operation_ended", NONE) {
            withOperation {
                it.cancel(1)
                it.poll(2)
            }
        },
        Row("grant used twice", "InvalidArgument", "invalid_argument", "permit") {
            CircuitBreaker(breakerConfig).use { breaker ->
                val permit = breaker.tryAcquire(0)!!
                breaker.onSuccess(1, permit)
                breaker.onSuccess(2, permit)
            }
        },
        Row("grant of another control", "InvalidArgument", "invalid_argument", "slot") {
            RetrySlots(1).use { mine -> RetrySlots(1).use { other -> other.release(mine.tryAcquire()!!) } }
        },
        Row("destroyed object", "IllegalStateException", NONE, NONE) {
            val policy = Policy.fromJson(policyJson).also { it.close() }
            Operation(policy, 0, OperationOptions(seed = 1))
        },
    )

    @TestFactory
    fun `bad input gets a typed error with the code and field`() = rows.map { row ->
        DynamicTest.dynamicTest(row.label) {
            val error = try {
                row.call()
                null
            } catch (error: Exception) {
                error
            }
            if (row.error == NONE) {
                assertNull(error, "${row.label}: $error")
                return@dynamicTest
            }
            assertNotNull(error, "${row.label}: no error")
            assertEquals(row.error, error!!::class.simpleName, "${row.label}: $error")
            val (code, field) = when (error) {
                is RetryplanException.InvalidArgument -> error.code to error.field
                is RetryplanException.InvalidConfig -> error.code to error.field
                is RetryplanException.ConfigViolations -> error.code to error.violations.joinToString(",") { it.field }
                is RetryplanException -> error.code to NONE
                else -> NONE to NONE
            }
            assertEquals(row.code to row.field, code to field, "${row.label}: $error")
            if (error is RetryplanException) {
                assertTrue(error.description.length < 1000, "a bad value is excerpted, never copied whole")
            }
        }
    }

    @Test
    fun `a huge value is quoted as an excerpt`() {
        val error = try {
            Policy.fromJson("""{"idempotency": "$huge"}""")
            null
        } catch (error: RetryplanException.InvalidConfig) {
            error
        }
        assertTrue(error!!.description.contains("x".repeat(64)) && !error.description.contains("x".repeat(65)))
    }

    @Test
    fun `the README table is these rows`() {
        val vectors = System.getProperty("retryplan.vectors") ?: System.getenv("RETRYPLAN_VECTORS") ?: "../tests/conformance"
        val readme = File(vectors).absoluteFile.parentFile.parentFile.resolve("bindings-kotlin/README.md").readText()
        val section = readme.split("\n## What bad input gets\n", limit = 2)[1].split("\n## ", limit = 2)[0]
        val table = section.lines()
            .filter { it.startsWith("| ") }
            .map { line -> line.trim().trim('|').split("|").map { it.trim().trim('`') } }
            .filter { cells -> cells[0] != "input" && !cells[0].all { it in "-: " } }
        assertEquals(rows.map { listOf(it.label, it.error, it.code, it.field) }, table)
    }

    private companion object {
        const val NONE = "none"
    }
}
