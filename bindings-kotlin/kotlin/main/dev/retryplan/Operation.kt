package dev.retryplan

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

    private val guard = HotGuard("Operation", ::free)

    private fun free() = super.destroy()

    override fun destroy() = guard.destroy()

    /** The decision the hot path wrote, or null when the engine refused the call (uniffi's path raises why). */
    private inline fun hot(call: (handle: Long, out: LongArray) -> Int): Decision? {
        val out = LongArray(HotPath.WORDS)
        val status = guard.call { call(handle, out) }
        return if (HotPath.refused(status)) null else HotPath.decision(out)
    }

    @Throws(RetryplanException::class)
    override fun poll(nowMs: Long): Decision =
        hot { handle, out -> HotPath.retryplan_kotlin_poll(handle, nowMs, out, out.size) } ?: super.poll(nowMs)

    @Throws(RetryplanException::class)
    override fun cancel(nowMs: Long): Decision =
        hot { handle, out -> HotPath.retryplan_kotlin_cancel(handle, nowMs, out, out.size) } ?: super.cancel(nowMs)

    @Throws(RetryplanException::class)
    override fun onOutcome(nowMs: Long, attempt: Int, outcome: Outcome): Decision =
        HotPath.encoded(outcome) { kind, code, guidance, guidanceMs ->
            // A service error code (AWS "SlowDown") is a string: that outcome takes uniffi's path.
            if (kind < 0) return super.onOutcome(nowMs, attempt, outcome)
            hot { handle, out ->
                HotPath.retryplan_kotlin_on_outcome(handle, nowMs, attempt, kind, code, guidance, guidanceMs, out, out.size)
            }
        } ?: super.onOutcome(nowMs, attempt, outcome)
}
