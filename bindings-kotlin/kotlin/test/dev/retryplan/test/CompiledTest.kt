package dev.retryplan.test

import dev.retryplan.Blame
import dev.retryplan.BudgetConfig
import dev.retryplan.Dependency
import dev.retryplan.DependencyConfig
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RetryplanException
import dev.retryplan.blame
import dev.retryplan.code
import dev.retryplan.compileDependency
import dev.retryplan.description
import dev.retryplan.profileNames
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.util.Base64

/**
 * Compiled policies and dependencies: `Policy.toCompiled` / `Policy.fromCompiled`, `compileDependency` /
 * `Dependency.fromCompiled`, and a refused form's `RetryplanException.CompiledForm` with the core's code
 * (core/src/policy/compiled/form.md). ConformanceTest runs every vector again through compiled forms.
 */
class CompiledTest {
    private val root: File = File(System.getProperty("retryplan.vectors") ?: System.getenv("RETRYPLAN_VECTORS") ?: "../tests/conformance")
        .absoluteFile.parentFile.parentFile

    /**
     * What `retryplan compile examples/policies/checkout.json` and `retryplan compile examples/checkout.json --dependency`
     * print: tests/compiled/\*.b64, which cli/test.sh checks against the CLI (and says how to write them again when the
     * form changes). The Python suite reads the same files.
     */
    private val cliCheckoutPolicy: String = File(root, "tests/compiled/checkout.policy.b64").readText().trim()
    private val cliCheckoutDependency: String = File(root, "tests/compiled/checkout.dependency.b64").readText().trim()

    private fun refused(call: () -> Unit): RetryplanException.CompiledForm = assertThrows(RetryplanException.CompiledForm::class.java) { call() }

    @Test
    fun `every profile reads back as itself`() {
        for (name in profileNames()) {
            Policy.profile(name).use { policy ->
                val form = policy.toCompiled()
                assertEquals("rpp", String(form.copyOf(3)), name)
                Policy.fromCompiled(form).use { assertEquals(policy.toJson(), it.toJson(), name) }
            }
        }
    }

    @Test
    fun `a compiled policy decides as its JSON does`() {
        val json = """{"max_attempts": 4, "total_timeout_ms": 2000, "jitter": {"kind": "full"}}"""
        fun decisions(policy: Policy) = policy.use {
            Operation(it, 0, OperationOptions(seed = 7)).use { op ->
                val first = op.poll(0)
                val wait = op.onOutcome(40, 1, Outcome.HttpStatus(503, null))
                listOf(first, wait, op.poll(2000))
            }
        }
        val fromJson = decisions(Policy.fromJson(json))
        val compiled = decisions(Policy.fromCompiled(Policy.fromJson(json).use { it.toCompiled() }))
        assertEquals(fromJson, compiled)
        assertTrue(fromJson[1] is dev.retryplan.Decision.Wait, "$fromJson")
    }

    /** What `retryplan compile` prints for the repository's checkout policy and its plan's dependency (cli/README.md). */
    @Test
    fun `the CLI's compiled lines load as their JSON does`() {
        val form = Base64.getDecoder().decode(cliCheckoutPolicy)
        val json = File(root, "examples/policies/checkout.json").readText()
        Policy.fromJson(json).use { policy ->
            assertEquals(policy.toJson(), Policy.fromCompiled(form).use { it.toJson() })
            assertArrayEquals(form, policy.toCompiled(), "Kotlin writes the bytes the CLI writes")
        }
        val dependency = Base64.getDecoder().decode(cliCheckoutDependency)
        val config = DependencyConfig(budget = BudgetConfig.Ratio(0.1, 5, 10_000))
        assertArrayEquals(dependency, compileDependency(config))
        val expected = Dependency(config).use { it.snapshot(0) }
        assertEquals(expected, Dependency.fromCompiled(dependency).use { it.snapshot(0) })
    }

    @Test
    fun `a refused form throws its code in the core's words`() {
        val form = Policy.profile("checkout").use { it.toCompiled() }

        val notForm = refused { Policy.fromCompiled("""{"max_attempts": 3}""".toByteArray()) }
        assertEquals("not_a_compiled_form", notForm.code)
        assertTrue(notForm.description.startsWith("not a compiled policy: 19 bytes"), notForm.description)
        assertEquals(Blame.CONFIGURATION, notForm.blame)
        assertEquals("not_a_compiled_form", refused { Policy.fromCompiled(Base64.getEncoder().encode(form)) }.code)

        val version = (form[3] + 1).toByte()
        val otherVersion = form.copyOf().also { it[3] = version }
        val versionError = refused { Policy.fromCompiled(otherVersion) }
        assertEquals("compiled_form_version", versionError.code)
        assertEquals(
            "the compiled policy is form version $version and this retryplan reads version ${form[3]}: compile the policy again with this version",
            versionError.toString(),
        )

        val damaged = form.copyOf().also { it[it.size - 1] = (it[it.size - 1].toInt() xor 1).toByte() }
        assertEquals("compiled_form_damaged", refused { Policy.fromCompiled(damaged) }.code)
        assertEquals("compiled_form_damaged", refused { Policy.fromCompiled(form.copyOf(form.size - 1)) }.code)

        val kind = refused { Dependency.fromCompiled(form) }
        assertEquals("compiled_form_kind", kind.code)
        assertEquals("expected a compiled dependency, got a compiled policy", kind.description)
        val controls = compileDependency(DependencyConfig(retrySlots = 1))
        assertEquals("compiled_form_kind", refused { Policy.fromCompiled(controls) }.code)
    }

    @Test
    fun `an invalid dependency is not compiled`() {
        val error = assertThrows(RetryplanException.ConfigViolations::class.java) {
            compileDependency(DependencyConfig(budget = BudgetConfig.TokenBucket(0, 0.1)))
        }
        assertEquals(listOf("budget.max_tokens"), error.violations.map { it.field })
    }
}
