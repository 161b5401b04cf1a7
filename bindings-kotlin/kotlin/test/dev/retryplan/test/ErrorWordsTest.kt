package dev.retryplan.test

import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Policy
import dev.retryplan.RetryplanException
import dev.retryplan.description
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test

/**
 * What a `RetryplanException` says: its `message` is the core's words (its
 * `description`, as `toString()` is), not uniffi's dump of its fields; and an
 * `InvalidArgument` carries the `rule` it breaks, as the root README's Errors
 * section and Python's `InvalidArgumentError.rule` have it (generated from the
 * core's `Error`, core/mirrors/src/uniffi_errors.rs).
 */
class ErrorWordsTest {
    @Test
    fun `an error's message is the core's description, not a dump of its fields`() {
        val error = assertThrows(RetryplanException.InvalidConfig::class.java) { Policy.fromJson("""{"max_attemps": 3}""") }
        assertEquals(error.description, error.message)
        assertFalse(error.message!!.contains("code="), error.message)
        assertEquals(error.description, error.toString())
    }

    @Test
    fun `an invalid argument carries the rule it breaks, as the core words it`() {
        Policy.fromJson("""{"max_attempts": 2}""").use { policy ->
            val error = assertThrows(RetryplanException.InvalidArgument::class.java) { policy.httpRequest("POST", null, "") }
            assertEquals("Idempotency-Key", error.field)
            assertFalse(error.rule.isEmpty(), "a rule")
            assertEquals("invalid argument `Idempotency-Key`: ${error.rule}", error.description)
            assertEquals(error.description, error.message)
        }
    }

    @Test
    fun `a lone surrogate's refusal carries its rule too`() {
        Policy.fromJson("""{"max_attempts": 2}""").use { policy ->
            val error = assertThrows(RetryplanException.InvalidArgument::class.java) {
                Operation(policy, 0, OperationOptions(seed = 1, idempotencyKey = "key\uD800"))
            }
            assertEquals("idempotency_key", error.field)
            assertEquals("must be text without lone surrogates (U+D800 to U+DFFF)", error.rule)
            assertEquals("invalid argument `idempotency_key`: ${error.rule}", error.message)
        }
    }
}
