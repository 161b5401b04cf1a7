package dev.retryplan.test

import dev.retryplan.Action
import dev.retryplan.Answer
import dev.retryplan.Driver
import dev.retryplan.NativeDriver
import dev.retryplan.NativeDriverInterface
import dev.retryplan.NativeOperation
import dev.retryplan.NativeOperationInterface
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Policy
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.function.Executable
import java.lang.invoke.MethodHandles
import java.lang.invoke.MethodType
import java.lang.reflect.Modifier

/**
 * [Driver] and [Operation] are lean wrappers: made through the wire, `NoHandle` to uniffi, every typed call
 * reaching the engine object through `Driver.withNative` / `Lean.typed`. A call that bypasses it (a generated
 * method the wrapper does not override, or the wrapper handed to uniffi as its object) raises the clear
 * `IllegalStateException` of `noEngineObject`, changes nothing, and never reaches Rust with the empty handle.
 */
class LeanWrapperTest {
    private val json = """{"jitter": {"kind": "none"}, "max_attempts": 2}"""

    private fun driver(policy: Policy) = Driver(policy, 0, OperationOptions(seed = 1))

    private fun refusedClearly(call: () -> Any?) {
        val error = assertThrows(IllegalStateException::class.java, Executable { call() })
        val message = error.message!!
        assertTrue(message.contains("Driver.withNative") && message.contains("lean wrapper"), message)
    }

    /** A generated method the wrapper does not override, as a future uniffi method would be: uniffi's own body. */
    private fun uniffisOwn(wrapper: Class<*>, generated: Class<*>, name: String, returns: Class<*>) = MethodHandles
        .privateLookupIn(wrapper, MethodHandles.lookup())
        .findSpecial(generated, name, MethodType.methodType(returns), wrapper)

    @Test
    fun `a generated driver method reached without withNative raises the clear error and changes nothing`() {
        Policy.fromJson(json).use { policy ->
            driver(policy).use { driver ->
                val isEnded = uniffisOwn(Driver::class.java, NativeDriver::class.java, "isEnded", Boolean::class.javaPrimitiveType!!)
                refusedClearly { isEnded.invokeWithArguments(driver) }
                assertEquals(false, driver.isEnded())
                assertTrue(driver.pollAction(0) is Action.StartAttempt)
            }
        }
    }

    @Test
    fun `a driver handed to uniffi as its object without withNative raises the clear error`() {
        Policy.fromJson(json).use { policy ->
            driver(policy).use { driver ->
                Answer().use { answer -> refusedClearly { answer.record(driver) } }
                assertTrue(driver.pollAction(0) is Action.StartAttempt)
            }
        }
    }

    @Test
    fun `a generated operation method reached directly raises the same error`() {
        Policy.fromJson(json).use { policy ->
            Operation(policy, 0, OperationOptions(seed = 1)).use { operation ->
                val started = uniffisOwn(Operation::class.java, NativeOperation::class.java, "attemptsStarted", Int::class.javaPrimitiveType!!)
                val error = assertThrows(IllegalStateException::class.java, Executable { started.invokeWithArguments(operation) })
                assertTrue(error.message!!.contains("this Operation is the wire's lean wrapper"), error.message)
                assertEquals(0, operation.attemptsStarted())
            }
        }
    }

    /** Every typed method uniffi generates is the wrapper's own, so none of today's reaches the guard. */
    @Test
    fun `the wrappers override every generated method`() {
        for ((wrapper, generated) in listOf(
            Driver::class.java to NativeDriverInterface::class.java,
            Operation::class.java to NativeOperationInterface::class.java,
        )) {
            val typed = generated.methods.filter { !Modifier.isStatic(it.modifiers) && !it.isSynthetic }
            val missing = typed.filter { method -> wrapper.getMethod(method.name, *method.parameterTypes).declaringClass != wrapper }
            assertEquals(emptyList<String>(), missing.map { it.name }, "${wrapper.simpleName} leaves these to uniffi's NoHandle body")
            assertTrue(typed.size >= 10, "${generated.simpleName}: ${typed.map { it.name }}")
        }
    }
}
