package dev.retryplan

/**
 * One logical operation (one business effect, one idempotency key, many
 * attempts). Thread-safe: calls are serialised by a lock in the engine.
 * Starts at [nowMs]; call [poll] for its first decision. `use { }` it or
 * call [close]; otherwise a cleaner frees it later.
 *
 * It is made and freed, and [poll], [onOutcome] and [cancel] cross, through
 * the core's wire (`Operation::exchange`: an input record in, the decision
 * record out; one direct-mapped call each, see [Wire]), no uniffi call;
 * every other method is uniffi's, on a [NativeOperation] of the same engine
 * object made on first need, and a record the core refuses is repeated
 * there, which raises the typed exception.
 */
class Operation private constructor(private val native: Lean<NativeOperation>) : NativeOperation(NoHandle) {
    constructor(policy: Policy, nowMs: Long, options: OperationOptions) : this(
        Lean("Operation", Wire.new(policy, nowMs, options, null) ?: NativeOperation(policy, nowMs, options).use { it.uniffiCloneHandle() }) {
            NativeOperation(UniffiWithHandle, it)
        },
    )

    override fun destroy() = native.destroy()

    /** One input record of [kind] at [nowMs] (its other words by [fill]); the decision, or null when refused. */
    private inline fun exchange(kind: Long, nowMs: Long, fill: (LongArray) -> Boolean = { true }): Decision? {
        val input = Wire.input(kind, nowMs)
        if (!fill(input)) return null
        val out = LongArray(WireWords.D_WORDS)
        val status = native.call { Wire.retryplan_kotlin_exchange(it, input, input.size, out, out.size) }
        return if (Wire.written(status)) WireWords.decision(out) else null
    }

    @Throws(RetryplanException::class)
    override fun poll(nowMs: Long): Decision = exchange(WireWords.INPUT_POLL, nowMs) ?: native.typed { it.poll(nowMs) }

    @Throws(RetryplanException::class)
    override fun cancel(nowMs: Long): Decision = exchange(WireWords.INPUT_CANCEL, nowMs) ?: native.typed { it.cancel(nowMs) }

    @Throws(RetryplanException::class)
    override fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome): Decision = exchange(WireWords.INPUT_RESULT, nowMs) { input ->
        input[WireWords.IN_ATTEMPT] = attempt.toLong()
        Wire.outcome(outcome, input)
    }
        ?: native.typed { it.onOutcome(nowMs, attempt, outcome) }

    override fun attemptsStarted() = native.typed { it.attemptsStarted() }
    override fun deadlineMs() = native.typed { it.deadlineMs() }
    override fun idempotencyKey(): String = native.key()
    override fun isEnded() = native.typed { it.isEnded() }
    override fun nextWakeupMs() = native.typed { it.nextWakeupMs() }

    @Throws(RetryplanException::class)
    override fun remainingMs(nowMs: Long) = native.typed { it.remainingMs(nowMs) }

    /** The old name of [remainingMs], kept for one release. */
    @Deprecated("Renamed remainingMs; this alias is removed in the next release", ReplaceWith("remainingMs(nowMs)"))
    @Throws(RetryplanException::class)
    fun remainingBudgetMs(nowMs: Long): Long = remainingMs(nowMs)

    @Throws(RetryplanException::class)
    override fun requestId(attempt: Int) = native.typed { it.requestId(attempt) }
    override fun runningAttempts() = native.typed { it.runningAttempts() }

    /**
     * The policy this operation runs, as a new [Policy] object (the same
     * configuration as the one it was started with; `use { }` it or let the
     * cleaner free it).
     */
    override fun policy() = native.typed { it.policy() }
    override fun startedAtMs() = native.typed { it.startedAtMs() }
}

/**
 * An engine object made through `src/wire.rs`: [handle] is one reference to
 * it, freed through the C function by [destroy] (or, never destroyed, by the
 * cleaner), and uniffi's typed object [T] for it (another reference, made by
 * [typedOf]) exists only once a typed method needs it. uniffi's guard, for
 * the wire too: no call starts after [destroy], and the object is freed
 * once [destroy] was called *and* the last call has ended.
 */
internal class Lean<T : Disposable>(private val type: String, val handle: Long, private val typedOf: (Long) -> T) {
    private val freeing = UniffiLib.CLEANER.register(this, Free(handle))
    val made = lazy { typedOf(Wire.retryplan_kotlin_clone(handle)) }
    private val calls = java.util.concurrent.atomic.AtomicLong(1)
    private val closing = java.util.concurrent.atomic.AtomicBoolean(false)

    fun destroy() {
        if (closing.compareAndSet(false, true)) release()
    }

    fun release() {
        if (calls.decrementAndGet() != 0L) return
        freeing.clean()
        if (made.isInitialized()) made.value.destroy()
    }

    fun enter() {
        while (true) {
            val count = calls.get()
            if (count == 0L || closing.get()) throw IllegalStateException("$type object has already been destroyed")
            if (calls.compareAndSet(count, count + 1)) return
        }
    }

    inline fun <R> call(block: (Long) -> R): R {
        enter()
        try {
            return block(handle)
        } finally {
            release()
        }
    }

    inline fun <R> typed(block: (T) -> R): R = call { block(made.value) }

    /** The idempotency key, read through the C function (ASCII, at most 255 bytes). */
    fun key(): String = ByteArray(255).let { bytes ->
        val length = call { Wire.retryplan_kotlin_key(it, bytes, bytes.size) }
        check(length >= 0) { "retryplan: the key could not be read" }
        String(bytes, 0, length, Charsets.US_ASCII)
    }

    /** Frees the reference (a static class: the cleaner must not reach the object). */
    private class Free(private val handle: Long) : Runnable {
        override fun run() {
            Wire.retryplan_kotlin_free(handle)
        }
    }
}
