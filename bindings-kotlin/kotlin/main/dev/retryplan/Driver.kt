package dev.retryplan

/**
 * The host loop of one operation, decided by the core (`retryplan::Driver`):
 * results in, one [Action] out per [pollAction]. Every helper (`retrying`,
 * the OkHttp interceptor, the `HttpClient` adapter) is an adapter over it;
 * use it directly to write your own. Thread-safe: attempts running on other
 * threads may hand in their results themselves. `use { }` it or call [close].
 *
 * [pollAction], [handleResult], [handleFailure], [handleCancel] and
 * [pollEvent] take the binding's hot path (`src/hot_driver.rs`: primitive
 * arguments, the answer written into a `long[16]`), like [Operation]'s.
 */
class Driver(
    policy: Policy,
    nowMs: Long,
    options: OperationOptions = OperationOptions(),
    driverOptions: DriverOptions = DriverOptions(),
) : NativeDriver(policy, nowMs, options, driverOptions) {

    private val guard = HotGuard("Driver", ::free)

    private fun free() = super.destroy()

    override fun destroy() = guard.destroy()

    private inline fun status(call: (handle: Long) -> Int): Int = guard.call { call(handle) }

    @Throws(RetryplanException::class)
    override fun pollAction(nowMs: Long): Action {
        val out = LongArray(HotPath.DRIVER_WORDS)
        val status = status { HotPath.retryplan_kotlin_driver_poll(it, nowMs, out, out.size) }
        // TYPED: a finish whose last outcome carries a service error code; it answers the same again.
        return if (status == HotPath.TYPED || HotPath.refused(status)) super.pollAction(nowMs) else HotPath.action(out)
    }

    private fun receipt(status: Int): Receipt? =
        if (status == HotPath.DISCARDED) Receipt.DISCARDED else if (HotPath.refused(status)) null else Receipt.ACCEPTED

    @Throws(RetryplanException::class)
    override fun handleResult(nowMs: Long, attempt: Int, outcome: Outcome): Receipt =
        HotPath.encoded(outcome) { kind, code, guidance, guidanceMs ->
            if (kind < 0) return super.handleResult(nowMs, attempt, outcome)
            receipt(status { HotPath.retryplan_kotlin_driver_result(it, nowMs, attempt, kind, code, guidance, guidanceMs) })
        } ?: super.handleResult(nowMs, attempt, outcome)

    @Throws(RetryplanException::class)
    override fun handleFailure(nowMs: Long, attempt: Int, failure: Failure): Receipt =
        receipt(status { HotPath.retryplan_kotlin_driver_result(it, nowMs, attempt, HotPath.FAILURE, failure.ordinal, 0, 0) })
            ?: super.handleFailure(nowMs, attempt, failure)

    @Throws(RetryplanException::class)
    override fun handleCancel(nowMs: Long) {
        if (HotPath.refused(status { HotPath.retryplan_kotlin_driver_cancel(it, nowMs) })) super.handleCancel(nowMs)
    }

    override fun pollEvent(): Event? {
        val out = LongArray(HotPath.DRIVER_WORDS)
        val status = status { HotPath.retryplan_kotlin_driver_event(it, out, out.size) }
        // TYPED: an event whose outcome carries a service error code, kept for uniffi's path.
        return if (status == HotPath.TYPED || HotPath.refused(status)) super.pollEvent() else HotPath.event(out)
    }
}
