package dev.retryplan

import com.sun.jna.Native
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong

/**
 * One logical operation (one business effect, one idempotency key, many
 * attempts). Thread-safe: calls are serialised by a lock in the engine.
 * Starts at [nowMs]; call [poll] for its first decision. `use { }` it or
 * call [close]; otherwise a cleaner frees it later.
 *
 * [poll], [onOutcome] and [cancel] take the binding's hot path (three C
 * functions with primitive arguments, see `src/hot.rs`) instead of uniffi's
 * generated call, for the same typed answers at a fraction of the cost; every
 * other method is uniffi's ([NativeOperation]).
 */
class Operation(policy: Policy, nowMs: Long, options: OperationOptions) :
    NativeOperation(policy, nowMs, options) {

    // uniffi's guard for the hot path: the native object is freed only once
    // destroy() was called *and* no hot call is running, and no hot call starts
    // after destroy(). The generated methods keep their own guard.
    private val calls = AtomicLong(1)
    private val closing = AtomicBoolean(false)

    override fun destroy() {
        if (closing.compareAndSet(false, true)) release()
    }

    private fun release() {
        if (calls.decrementAndGet() == 0L) super.destroy()
    }

    private inline fun hot(call: (handle: Long, out: LongArray) -> Int): LongArray? {
        while (true) {
            val count = calls.get()
            if (count == 0L || closing.get()) throw IllegalStateException("Operation object has already been destroyed")
            if (calls.compareAndSet(count, count + 1)) break
        }
        val out = LongArray(HotPath.WORDS)
        val status = try {
            call(handle, out)
        } finally {
            release()
        }
        return when (status) {
            HotPath.DONE -> out
            // The engine refused the call and changed nothing: uniffi's path raises the typed exception.
            HotPath.FAILED, HotPath.PANICKED -> null
            else -> throw IllegalStateException("retryplan: the hot path answered $status (is the library the one this jar was built with?)")
        }
    }

    @Throws(RetryplanException::class)
    override fun poll(nowMs: Long): Decision =
        hot { handle, out -> HotPath.retryplan_kotlin_poll(handle, nowMs, out, out.size) }?.let(HotPath::decision)
            ?: super.poll(nowMs)

    @Throws(RetryplanException::class)
    override fun cancel(nowMs: Long): Decision =
        hot { handle, out -> HotPath.retryplan_kotlin_cancel(handle, nowMs, out, out.size) }?.let(HotPath::decision)
            ?: super.cancel(nowMs)

    @Throws(RetryplanException::class)
    override fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome): Decision {
        // A service error code (AWS "SlowDown") is a string: that outcome takes uniffi's path.
        if (outcome is Outcome.HttpStatus && outcome.errorCode != null) return super.onOutcome(nowMs, attempt, outcome)
        var kind = 0
        var code = 0
        var guidance = 0
        var guidanceMs = 0L
        when (outcome) {
            is Outcome.Success -> kind = 0
            is Outcome.HttpStatus -> {
                kind = 1
                code = outcome.status
                outcome.retryAfterMs?.let { guidance = 1; guidanceMs = it }
            }
            is Outcome.GrpcStatus -> {
                kind = 2
                code = outcome.code.ordinal
                when (val pushback = outcome.pushback) {
                    null -> {}
                    is Pushback.RetryAfterMs -> { guidance = 1; guidanceMs = pushback.ms }
                    is Pushback.DoNotRetry -> guidance = 2
                }
            }
            is Outcome.Transport -> { kind = 3; code = outcome.failure.ordinal }
            is Outcome.Application -> { kind = 4; code = outcome.verdict.ordinal }
            is Outcome.Cancelled -> kind = 5
        }
        return hot { handle, out ->
            HotPath.retryplan_kotlin_on_outcome(handle, nowMs, attempt, kind, code, guidance, guidanceMs, out, out.size)
        }?.let(HotPath::decision) ?: super.onOutcome(nowMs, attempt, outcome)
    }
}

/**
 * The C functions of `src/hot.rs`, bound by JNA's direct mapping to the library
 * uniffi loads (same name, same override property), and the decoding of their
 * answer. The layout is `hot.rs`'s `encode`.
 */
internal object HotPath {
    const val WORDS = 8
    const val DONE = 0
    const val FAILED = 1
    const val PANICKED = 4

    init {
        val name = "retryplan_uniffi"
        Native.register(HotPath::class.java, System.getProperty("uniffi.component.$name.libraryOverride") ?: name)
    }

    external fun retryplan_kotlin_poll(handle: Long, nowMs: Long, out: LongArray, len: Int): Int
    external fun retryplan_kotlin_cancel(handle: Long, nowMs: Long, out: LongArray, len: Int): Int
    external fun retryplan_kotlin_on_outcome(
        handle: Long, nowMs: Long, attempt: Int, kind: Int, code: Int, guidance: Int, guidanceMs: Long,
        out: LongArray, len: Int,
    ): Int

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

    fun decision(w: LongArray): Decision = when (w[0].toInt()) {
        0 -> Decision.StartAttempt(w[1].toInt(), w[2], w[3], hex16(w[4]), w[5], w[6] != 0L)
        1 -> Decision.Wait(w[1].toInt(), w[2], w[3], optional(w[4]), w[5])
        2 -> Decision.AwaitOutcome(w[1].toInt(), w[2])
        3 -> Decision.Succeeded(w[1].toInt(), w[2].toInt(), attempts(w[6], w[7]))
        4 -> Decision.GaveUp(reasons[w[1].toInt()], w[2].toInt(), w[3], optional(w[4]), attempts(w[6], w[7]))
        5 -> Decision.Reconcile(w[1].toInt(), w[2], attempts(w[6], w[7]))
        6 -> Decision.Restart(w[1].toInt(), w[2], w[3], attempts(w[6], w[7]))
        else -> throw IllegalStateException("retryplan: unknown decision kind ${w[0]}")
    }
}
