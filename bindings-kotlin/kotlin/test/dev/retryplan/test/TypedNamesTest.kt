package dev.retryplan.test

import dev.retryplan.HeaderFamily
import dev.retryplan.Policy
import dev.retryplan.PropagationConfig
import dev.retryplan.RetryLayer
import dev.retryplan.defaultPolicyConfig
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/** The schema's names that are the core's enums take those enums in the typed records, not strings. */
class TypedNamesTest {
    @Test
    fun `a propagation section of RetryLayer and HeaderFamily is the policy its JSON form gives, written back as the same names`() {
        val json = """{"propagation": {"retry_layer": "every", "read_headers": ["grpc", "retryplan"]}}"""
        val propagation = PropagationConfig(retryLayer = RetryLayer.EVERY, readHeaders = listOf(HeaderFamily.GRPC, HeaderFamily.RETRYPLAN))
        Policy(defaultPolicyConfig().copy(propagation = propagation)).use { typed ->
            Policy.fromJson(json).use { fromJson ->
                assertEquals(fromJson.toJson(), typed.toJson())
                assertArrayEquals(fromJson.toCompiled(), typed.toCompiled())
                assertEquals(fromJson.toConfig(), typed.toConfig())
                val back = typed.toConfig().propagation
                assertEquals(RetryLayer.EVERY, back?.retryLayer)
                assertEquals(listOf(HeaderFamily.GRPC, HeaderFamily.RETRYPLAN), back?.readHeaders)
                // At the JSON edge the names stay snake_case strings.
                val written = Regex("\\s").replace(typed.toJson(), "")
                assertEquals(true, written.contains(""""retry_layer":"every","read_headers":["grpc","retryplan"]"""), written)
            }
        }
    }
}
