package dev.retryplan

/**
 * The host loop of one operation, decided by the core (`retryplan::Driver`):
 * results in, one [Action] out per [pollAction]. Every helper (`retrying`,
 * the OkHttp interceptor, the `HttpClient` adapter) is an adapter over it;
 * use it directly to write your own. Thread-safe: attempts running on other
 * threads may hand in their results themselves. `use { }` it or call [close].
 *
 * The typed methods are uniffi's; it is made, and the helpers step it,
 * through the core's wire ([exchangeInto], `src/wire.rs`): two `long[]`,
 * no allocation.
 */
class Driver internal constructor(handle: Long) : NativeDriver(UniffiWithHandle, handle) {
    constructor(
        policy: Policy,
        nowMs: Long,
        options: OperationOptions = OperationOptions(),
        driverOptions: DriverOptions = DriverOptions(),
    ) : this(Wire.new(policy, nowMs, options, driverOptions) ?: NativeDriver(policy, nowMs, options, driverOptions).use { it.uniffiCloneHandle() })

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
        val status = guard.call { Wire.retryplan_kotlin_exchange(handle, input, input.size, out, out.size) }
        if (!Wire.written(status)) exchange(input.toList()).forEachIndexed { i, word -> out[i] = word }
    }
}

/**
 * The helpers' driver: made, stepped, keyed and freed through the C
 * functions of `src/wire.rs`, so a helper's path makes no uniffi call; its
 * [typed] [Driver] (the same engine object) is made on first need (an HTTP
 * response, an event for `onDecision`, a typed ending). One loop uses it.
 */
internal class WireDriver(policy: Policy, nowMs: Long, options: OperationOptions, driverOptions: DriverOptions) : AutoCloseable {
    private val handle = Wire.new(policy, nowMs, options, driverOptions) ?: 0L
    private var made: Driver? = if (handle == 0L) Driver(policy, nowMs, options, driverOptions) else null

    /** The typed driver (uniffi's), for what the wire does not carry. */
    val typed: Driver get() = made ?: Driver(Wire.retryplan_kotlin_clone(handle)).also { made = it }

    @Throws(RetryplanException::class)
    fun exchangeInto(input: LongArray, out: LongArray) {
        val status = if (made == null) Wire.retryplan_kotlin_exchange(handle, input, input.size, out, out.size) else Wire.FAILED
        if (!Wire.written(status)) typed.exchangeInto(input, out)
    }

    /** The operation's idempotency key. */
    fun key(): String = made?.idempotencyKey() ?: ByteArray(255).let { bytes ->
        val length = Wire.retryplan_kotlin_key(handle, bytes, bytes.size)
        check(length >= 0) { "retryplan: the driver is gone" }
        String(bytes, 0, length, Charsets.US_ASCII)
    }

    override fun close() {
        made?.close()
        if (handle != 0L) Wire.retryplan_kotlin_free(handle)
    }
}
