package dev.retryplan

/**
 * The host loop of one operation, decided by the core (`retryplan::Driver`):
 * results in, one [Action] out per [pollAction]. Every helper (`retrying`,
 * the OkHttp interceptor, the `HttpClient` adapter) is an adapter over it;
 * use it directly to write your own. Thread-safe: attempts running on other
 * threads may hand in their results themselves. `use { }` it or call [close].
 *
 * The typed methods are uniffi's; the helpers step it through the core's
 * wire encoding ([exchangeInto], `src/wire.rs`): two `long[]`, no allocation.
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

    /**
     * One step of the wire: the input record [input] in, the output record
     * written into [out] (`long[15]`). A record the core refuses changes
     * nothing and raises the typed exception (uniffi's [exchange] says why).
     */
    @Throws(RetryplanException::class)
    fun exchangeInto(input: LongArray, out: LongArray) {
        val status = guard.call { Wire.retryplan_kotlin_driver_exchange(handle, input, input.size, out, out.size) }
        when (status) {
            HotPath.DONE -> {}
            HotPath.FAILED, HotPath.PANICKED -> exchange(input.toList()).forEachIndexed { i, word -> out[i] = word }
            else -> throw IllegalStateException("retryplan: the wire answered $status (is the library the one this jar was built with?)")
        }
    }
}
