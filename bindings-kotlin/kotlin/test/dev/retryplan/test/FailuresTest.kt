package dev.retryplan.test

import dev.retryplan.Failure
import dev.retryplan.GUIDANCE_HEADERS
import dev.retryplan.IDEMPOTENCY_KEY_HEADER
import dev.retryplan.REQUEST_ID_HEADER
import dev.retryplan.failureOf
import dev.retryplan.guidanceHeaders
import dev.retryplan.idempotencyKeyHeader
import dev.retryplan.requestIdHeader
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import java.io.File
import java.net.ConnectException
import java.net.UnknownHostException
import java.nio.channels.UnresolvedAddressException

/** The failure table looks through wrapped errors exactly as deep as the core says every binding does. */
class FailuresTest {
    /** `retryplan::MAX_CAUSE_DEPTH`, read from the core's source (not from the binding's generated constant). */
    private val coreDepth: Int = run {
        val vectors = System.getProperty("retryplan.vectors") ?: System.getenv("RETRYPLAN_VECTORS") ?: "../tests/conformance"
        val source = File(vectors).absoluteFile.parentFile.parentFile.resolve("core/src/outcomes/failure.rs").readText()
        val found = Regex("""pub const MAX_CAUSE_DEPTH: usize = (\d+);""").find(source) ?: error("no MAX_CAUSE_DEPTH in core/src/outcomes/failure.rs")
        found.groupValues[1].toInt()
    }

    /** A refused connection with [depth] errors the table does not know wrapped around it. */
    private fun wrapped(depth: Int): Throwable = (1..depth).fold(ConnectException("Connection refused") as Throwable) { cause, level -> RuntimeException("wrapper $level", cause) }

    /** The header constants (generated from the core's source by core/mirrors) are what the library says. */
    @Test
    fun `the HTTP header constants are the library's`() {
        assertEquals(idempotencyKeyHeader(), IDEMPOTENCY_KEY_HEADER)
        assertEquals(requestIdHeader(), REQUEST_ID_HEADER)
        assertEquals(guidanceHeaders(), GUIDANCE_HEADERS)
    }

    /**
     * java.net.http reports `http://nonexistent.invalid/` as a `ConnectException` (no message) caused by the channel's
     * `UnresolvedAddressException`: a DNS failure, as OkHttp's `UnknownHostException` is, not a refused connection.
     */
    @Test
    fun `a connect whose name did not resolve is a DNS failure`() {
        val javaNetHttp = ConnectException().apply { initCause(UnresolvedAddressException()) }
        assertEquals(Failure.DNS_LOOKUP_FAILED, failureOf(javaNetHttp))
        assertEquals(Failure.DNS_LOOKUP_FAILED, failureOf(RuntimeException("wrapper", javaNetHttp)))
        assertEquals(Failure.DNS_LOOKUP_FAILED, failureOf(ConnectException("no address").apply { initCause(UnknownHostException("nonexistent.invalid")) }))
        assertEquals(Failure.DNS_LOOKUP_FAILED, failureOf(UnresolvedAddressException()))
        assertEquals(Failure.CONNECTION_REFUSED, failureOf(ConnectException("Connection refused").apply { initCause(java.io.IOException("other")) }))
    }

    @Test
    fun causesAreSearchedAsDeepAsTheCoreSays() {
        assertEquals(Failure.CONNECTION_REFUSED, failureOf(wrapped(0)))
        assertEquals(Failure.CONNECTION_REFUSED, failureOf(wrapped(coreDepth)), "$coreDepth wrapped errors are looked through")
        assertNull(failureOf(wrapped(coreDepth + 1)), "the error ${coreDepth + 1} causes down is past the core's depth")
    }
}
