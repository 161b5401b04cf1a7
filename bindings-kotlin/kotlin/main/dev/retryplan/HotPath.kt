package dev.retryplan

import com.sun.jna.Native
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong

/**
 * The C functions of `src/hot.rs` ([Operation]'s decisions), bound by JNA's
 * direct mapping to the library uniffi loads (same name, same override
 * property), and the decoding of their answers (`hot.rs`'s `encode`, a
 * decision in 8 words). The driver's hot path is the core's wire (Wire.kt).
 */
internal object HotPath {
    const val WORDS = 8
    const val DONE = 0
    const val FAILED = 1
    const val PANICKED = 4

    init {
        registerNative(HotPath::class.java)
    }

    external fun retryplan_kotlin_poll(handle: Long, nowMs: Long, out: LongArray, len: Int): Int
    external fun retryplan_kotlin_cancel(handle: Long, nowMs: Long, out: LongArray, len: Int): Int
    external fun retryplan_kotlin_on_outcome(
        handle: Long, nowMs: Long, attempt: Int, kind: Int, code: Int, guidance: Int, guidanceMs: Long,
        out: LongArray, len: Int,
    ): Int
    /** True when the engine refused the call and changed nothing: uniffi's path raises the typed exception. */
    fun refused(status: Int): Boolean = when (status) {
        DONE -> false
        FAILED, PANICKED -> true
        else -> throw IllegalStateException("retryplan: the hot path answered $status (is the library the one this jar was built with?)")
    }

    /**
     * Calls [use] with [outcome] as the hot path takes it (kind, code, guidance,
     * guidance ms), or with kind -1 for an outcome it cannot carry (an HTTP
     * status with a service error code, a string): that one takes uniffi's path.
     */
    inline fun <R> encoded(outcome: Outcome, use: (kind: Int, code: Int, guidance: Int, guidanceMs: Long) -> R): R =
        when (outcome) {
            is Outcome.Success -> use(0, 0, 0, 0)
            is Outcome.HttpStatus -> when {
                outcome.errorCode != null -> use(-1, 0, 0, 0)
                else -> outcome.retryAfterMs.let { ms -> if (ms == null) use(1, outcome.status, 0, 0) else use(1, outcome.status, 1, ms) }
            }
            is Outcome.GrpcStatus -> when (val pushback = outcome.pushback) {
                null -> use(2, outcome.code.ordinal, 0, 0)
                is Pushback.RetryAfterMs -> use(2, outcome.code.ordinal, 1, pushback.ms)
                is Pushback.DoNotRetry -> use(2, outcome.code.ordinal, 2, 0)
            }
            is Outcome.Transport -> outcome.retryAfterMs.let { ms -> if (ms == null) use(3, outcome.failure.ordinal, 0, 0) else use(3, outcome.failure.ordinal, 1, ms) }
            is Outcome.Application -> use(4, outcome.verdict.ordinal, 0, 0)
            is Outcome.Cancelled -> use(5, 0, 0, 0)
        }

    private val reasons = GiveUpReason.entries

    private fun optional(value: Long): Long? = if (value < 0) null else value

    /** Attempts 1..=128 from two 64-bit words (bit n - 1 for attempt n), ascending. */
    private fun attempts(low: Long, high: Long): List<Int> {
        if (low == 0L && high == 0L) return emptyList()
        val list = ArrayList<Int>(java.lang.Long.bitCount(low) + java.lang.Long.bitCount(high))
        for (bit in 0 until 64) if (low ushr bit and 1L == 1L) list += bit + 1
        for (bit in 0 until 64) if (high ushr bit and 1L == 1L) list += bit + 65
        return list
    }

    /** The request id as the core prints it: 16 lowercase hex digits. */
    private fun hex16(id: Long): String {
        val digits = java.lang.Long.toHexString(id)
        return if (digits.length == 16) digits else "0".repeat(16 - digits.length) + digits
    }

    /** The decision written at [at]: `[kind, five fields, the attempts to abort as two words]`. */
    fun decision(w: LongArray, at: Int = 0): Decision = when (w[at].toInt()) {
        0 -> Decision.StartAttempt(w[at + 1].toInt(), w[at + 2], w[at + 3], hex16(w[at + 4]), w[at + 5], w[at + 6] != 0L)
        1 -> Decision.Wait(w[at + 1].toInt(), w[at + 2], w[at + 3], optional(w[at + 4]), w[at + 5])
        2 -> Decision.AwaitOutcome(w[at + 1].toInt(), w[at + 2])
        3 -> Decision.Succeeded(w[at + 1].toInt(), w[at + 2].toInt(), attempts(w[at + 6], w[at + 7]))
        4 -> Decision.GaveUp(reasons[w[at + 1].toInt()], w[at + 2].toInt(), w[at + 3], optional(w[at + 4]), attempts(w[at + 6], w[at + 7]))
        5 -> Decision.Reconcile(w[at + 1].toInt(), w[at + 2], attempts(w[at + 6], w[at + 7]))
        6 -> Decision.Restart(w[at + 1].toInt(), w[at + 2], w[at + 3], attempts(w[at + 6], w[at + 7]))
        else -> throw IllegalStateException("retryplan: unknown decision kind ${w[at]}")
    }
}

/** Binds [type]'s `external` functions by JNA's direct mapping to the library uniffi loads (same name, same override property). */
internal fun registerNative(type: java.lang.Class<*>) {
    val name = "retryplan_uniffi"
    Native.register(type, System.getProperty("uniffi.component.$name.libraryOverride") ?: name)
}

/**
 * uniffi's guard, for the hot path: the native object is freed ([free]) only
 * once [destroy] was called *and* no hot call is running, and no hot call
 * starts after [destroy]. The generated methods keep their own guard.
 */
internal class HotGuard(private val type: String, private val free: () -> Unit) {
    private val calls = AtomicLong(1)
    private val closing = AtomicBoolean(false)

    fun destroy() {
        if (closing.compareAndSet(false, true)) release()
    }

    fun release() {
        if (calls.decrementAndGet() == 0L) free()
    }

    fun enter() {
        while (true) {
            val count = calls.get()
            if (count == 0L || closing.get()) throw IllegalStateException("$type object has already been destroyed")
            if (calls.compareAndSet(count, count + 1)) return
        }
    }

    inline fun <R> call(block: () -> R): R {
        enter()
        try {
            return block()
        } finally {
            release()
        }
    }
}
