package dev.retryplan

/**
 * One logical operation (one business effect, one idempotency key, many
 * attempts). Thread-safe: calls are serialised by a lock in the engine.
 * Starts at [nowMs]; call [poll] for its first decision. `use { }` it or
 * call [close]; otherwise a cleaner frees it later.
 *
 * It is made, and [poll], [onOutcome] and [cancel] cross, through the core's
 * wire (`Operation::exchange`: an input record in, the decision record out,
 * one direct-mapped call, see [Wire]) instead of uniffi's generated call, for
 * the same typed answers at a fraction of the cost; every other method is
 * uniffi's ([NativeOperation]), and a record the core refuses is repeated
 * there, which raises the typed exception.
 */
class Operation private constructor(handle: Long) : NativeOperation(UniffiWithHandle, handle) {
    constructor(policy: Policy, nowMs: Long, options: OperationOptions) :
        this(Wire.new(policy, nowMs, options, null) ?: NativeOperation(policy, nowMs, options).use { it.uniffiCloneHandle() })

    private val guard = HotGuard("Operation", ::free)

    private fun free() = super.destroy()

    override fun destroy() = guard.destroy()

    /** One input record of [kind] at [nowMs] (its other words by [fill]); the decision, or null when refused. */
    private inline fun exchange(kind: Long, nowMs: Long, fill: (LongArray) -> Boolean = { true }): Decision? {
        val input = LongArray(Wire.INPUT_WORDS)
        input.fill(Wire.NONE)
        input[Wire.IN_KIND] = kind
        input[Wire.IN_NOW] = nowMs
        if (!fill(input)) return null
        val out = LongArray(Wire.DECISION_WORDS)
        val status = guard.call { Wire.retryplan_kotlin_exchange(handle, input, input.size, out, out.size) }
        return if (Wire.written(status)) Wire.decision(out) else null
    }

    @Throws(RetryplanException::class)
    override fun poll(nowMs: Long): Decision = exchange(Wire.POLL, nowMs) ?: super.poll(nowMs)

    @Throws(RetryplanException::class)
    override fun cancel(nowMs: Long): Decision = exchange(Wire.CANCEL, nowMs) ?: super.cancel(nowMs)

    @Throws(RetryplanException::class)
    override fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome): Decision =
        exchange(Wire.RESULT, nowMs) { input -> input[Wire.IN_ATTEMPT] = attempt.toLong(); Wire.outcome(outcome, input) }
            ?: super.onOutcome(nowMs, attempt, outcome)
}
