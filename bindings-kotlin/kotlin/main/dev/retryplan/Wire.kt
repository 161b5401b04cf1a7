package dev.retryplan

import dev.retryplan.WireWords as W

/**
 * The core's wire encoding (`retryplan::wire`): the C functions of
 * `src/wire.rs` (JNA's direct mapping to the library uniffi loads) that make
 * an [Operation] or a [Driver], carry an input record in and the output
 * record (a driver's next action) or the decision record (an operation's
 * decision, read by the generated [WireWords.decision]) out as `long[]`,
 * and free them. Every word position and kind number is [WireWords],
 * generated from the core's tables by `core/mirrors`; the library's wire
 * version is checked once, at load.
 */
internal object Wire {
    init {
        // JNA's direct mapping of the `external` functions, to the library uniffi loads ([LIBRARY]).
        com.sun.jna.Native.register(Wire::class.java, LIBRARY)
        val version = retryplan_kotlin_wire_version()
        check(version == W.VERSION) { "retryplan: the library speaks wire version $version, this jar version ${W.VERSION}" }
    }

    /** Nothing: calling it runs the object's `init` (the library bound, its version checked). */
    fun ready() = Unit

    external fun retryplan_kotlin_wire_version(): Long

    /** One step on the live driver or operation [handle]: the input record in, its answer written into [out]. */
    external fun retryplan_kotlin_exchange(handle: Long, input: LongArray, inputLen: Int, out: LongArray, outLen: Int): Int
    external fun retryplan_kotlin_new(policy: Long, nowMs: Long, seed: Long, seeded: Int, deadlineMs: Long, driver: Int): Long
    external fun retryplan_kotlin_clone(handle: Long): Long
    external fun retryplan_kotlin_free(handle: Long): Int
    external fun retryplan_kotlin_key(handle: Long, out: ByteArray, len: Int): Int

    /** `src/wire.rs`'s answers: written, or refused by the core (nothing changed; uniffi's typed path says why). */
    private const val DONE = 0
    const val FAILED = 1
    private const val PANICKED = 4

    /** True when the record was written; false when the core refused it (the caller repeats it typed, which raises). */
    fun written(status: Int): Boolean = when (status) {
        DONE -> true
        FAILED, PANICKED -> false
        else -> throw IllegalStateException("retryplan: the wire answered $status (is the library the one this jar was built with?)")
    }

    /**
     * A policy's handle (uniffi keeps it protected); `src/wire.rs` finds the
     * policy by it in its table of live ones. Null should a uniffi upgrade
     * name the field otherwise: then every object takes uniffi's constructor.
     */
    private val policyHandle = runCatching { Policy::class.java.getDeclaredField("handle").apply { isAccessible = true } }.getOrNull()

    /**
     * A new operation ([driverOptions] null) or driver made through the C
     * function, its handle owned by the caller; null when the options need
     * uniffi's buffers (a key, a dependency, a request, stats, ...) or the
     * core refused them (uniffi's constructor then raises why).
     */
    fun new(policy: Policy, nowMs: Long, options: OperationOptions, driverOptions: DriverOptions?): Long? {
        val plain = options.idempotencyKey == null && options.dependency == null && options.repeatability == null &&
            !options.oneShotBody && options.httpRequest == null && (options.deadlineMs ?: 0) >= 0 && !policy.uniffiIsDestroyed &&
            (driverOptions == null || (driverOptions.stats == null && driverOptions.concurrency == null && !driverOptions.returnsResponses))
        val policyHandle = policyHandle
        if (!plain || policyHandle == null) return null
        val driver = when {
            driverOptions == null -> 0
            driverOptions.recordEvents -> 2
            else -> 1
        }
        val seeded = if (options.seed != null) 1 else 0
        return retryplan_kotlin_new(policyHandle.getLong(policy), nowMs, options.seed ?: 0, seeded, options.deadlineMs ?: W.NONE, driver).takeIf { it != 0L }
    }

    /**
     * A fresh input record of [kind] at [nowMs], its other words absent.
     * (`java.util.Arrays.fill`, not Kotlin's `fill`: loading the standard
     * library's `ArraysKt` facade cost the first `retrying {}` of a process 5-8 ms.)
     */
    fun input(kind: Long, nowMs: Long, into: LongArray = LongArray(W.IN_WORDS)): LongArray {
        java.util.Arrays.fill(into, W.NONE)
        into[W.IN_INPUT_KIND] = kind
        into[W.IN_NOW_MS] = nowMs
        return into
    }

    /**
     * Writes [outcome]'s three words (`outcome_kind`, `outcome_code`,
     * `outcome_retry_after_ms`) into [input]; false for what the words cannot
     * carry, which goes in typed (and is read or refused there): an HTTP
     * status with a service error code (a string), a negative wait (no word:
     * -1 and -2 mean something else).
     */
    fun outcome(outcome: Outcome, input: LongArray): Boolean {
        val (kind, code, ms) = when (outcome) {
            is Outcome.Success -> Triple(W.OUTCOME_SUCCESS, W.NONE, null)
            is Outcome.HttpStatus -> if (outcome.errorCode != null) return false else Triple(W.OUTCOME_HTTP_STATUS, outcome.status.toLong(), outcome.retryAfterMs)
            is Outcome.GrpcStatus -> Triple(W.OUTCOME_GRPC_STATUS, W.word(outcome.code), (outcome.pushback as? Pushback.RetryAfterMs)?.ms)
            is Outcome.Transport -> Triple(W.OUTCOME_TRANSPORT, W.word(outcome.failure), outcome.retryAfterMs)
            is Outcome.Application -> Triple(W.OUTCOME_APPLICATION, W.word(outcome.verdict), null)
            is Outcome.Cancelled -> Triple(W.OUTCOME_CANCELLED, W.NONE, null)
        }
        if (ms != null && ms < 0) return false
        input[W.IN_OUTCOME_KIND] = kind
        input[W.IN_OUTCOME_CODE] = code
        input[W.IN_OUTCOME_RETRY_AFTER_MS] = ms ?: if ((outcome as? Outcome.GrpcStatus)?.pushback is Pushback.DoNotRetry) W.PUSHBACK_DO_NOT_RETRY else W.NONE
        return true
    }

    /** The request id as the core prints it: the two halves as 16 lowercase hex digits. */
    fun requestId(high: Long, low: Long): String {
        val digits = java.lang.Long.toHexString((high shl 32) or low)
        // `substring`, not Kotlin's `repeat`: its `StringsKt` facade would load on a process's first attempt.
        return "0000000000000000".substring(digits.length) + digits
    }

    /** The attempts in the four `aborts_` words: bit n of the i-th word is attempt 32 i + n + 1, ascending. */
    fun attempts(vararg words: Long): List<Int> {
        if (words.all { it == 0L }) return java.util.Collections.emptyList()
        val list = ArrayList<Int>()
        words.forEachIndexed { i, word -> for (bit in 0 until 32) if (word ushr bit and 1L == 1L) list += 32 * i + bit + 1 }
        return list
    }
}
