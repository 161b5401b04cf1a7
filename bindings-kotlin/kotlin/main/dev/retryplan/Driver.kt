package dev.retryplan

/**
 * The host loop of one operation, decided by the core (`retryplan::Driver`):
 * results in, one [Action] out per [pollAction]. Every helper (`retrying`,
 * the OkHttp interceptor, the `HttpClient` adapter) is an adapter over it;
 * use it directly to write your own. Thread-safe: attempts running on other
 * threads may hand in their results themselves. `use { }` it or call [close].
 *
 * It is made, freed, keyed and stepped ([exchangeInto]: two `long[]`, no
 * allocation) through the core's wire (`src/wire.rs`), no uniffi call; the
 * other typed methods are uniffi's, on a [NativeDriver] of the same engine
 * object made on first need. The wrapper itself has no uniffi handle
 * (`NoHandle`): a typed call that skips [withNative] and reaches uniffi with
 * it raises [noEngineObject]'s error (build.sh puts it in uniffi's clone).
 */
class Driver private constructor(private val native: Lean<NativeDriver>) : NativeDriver(NoHandle) {
    /** The driver whose engine object is [handle] (one reference, now this wrapper's). */
    private constructor(handle: Long) : this(Lean("Driver", handle) { NativeDriver(UniffiWithHandle, it) })

    constructor(
        policy: Policy,
        nowMs: Long,
        options: OperationOptions = OperationOptions(),
        driverOptions: DriverOptions = DriverOptions(),
    ) : this(Wire.new(policy, nowMs, options, driverOptions) ?: NativeDriver(policy, nowMs, options, driverOptions).use { it.uniffiCloneHandle() })

    /**
     * A driver for an operation serving a request whose context the core read
     * ([IncomingContext.read]): it ends by the caller's deadline less the
     * policy's `propagation.reserve_ms`, runs under the caller's idempotency
     * key, and makes one attempt when the caller retries (`retry_layer`
     * `outermost`). Made through uniffi's constructor (not the wire's).
     */
    constructor(
        policy: Policy,
        nowMs: Long,
        options: OperationOptions,
        driverOptions: DriverOptions,
        incoming: IncomingContext,
    ) : this(driverWithIncoming(policy, nowMs, options, driverOptions, incoming).use { it.uniffiCloneHandle() })

    override fun destroy() = native.destroy()

    /** Runs [block] on the engine object itself, for a uniffi call that takes the driver (an [Answer]'s `record`). */
    internal fun <R> withNative(block: (NativeDriver) -> R): R = native.typed(block)

    /**
     * One step of the wire: the input record [input] in, the output record
     * written into [out] (`long[15]`). A record the core refuses changes
     * nothing and raises the typed exception (uniffi's [exchange] says why).
     */
    @Throws(RetryplanException::class)
    fun exchangeInto(input: LongArray, out: LongArray) {
        val status = native.call { Wire.retryplan_kotlin_exchange(it, input, input.size, out, out.size) }
        if (!Wire.written(status)) exchange(input.toList()).forEachIndexed { i, word -> out[i] = word }
    }

    /** The operation's idempotency key (the same on every attempt), read through the C function. */
    override fun idempotencyKey(): String = native.key()

    override fun deadlineMs() = native.typed { it.deadlineMs() }

    /** Attempts started so far (the first is attempt 1), read from the driver's operation. */
    override fun attemptsStarted() = native.typed { it.attemptsStarted() }

    /** The numbers of the attempts running now, ascending (hedging can run several; empty between attempts). */
    override fun runningAttempts() = native.typed { it.runningAttempts() }

    @Throws(RetryplanException::class)
    override fun exchange(input: List<Long>) = native.typed { it.exchange(input) }

    @Throws(RetryplanException::class)
    override fun handleCancel(nowMs: Long) = native.typed { it.handleCancel(nowMs) }

    @Throws(RetryplanException::class)
    override fun handleTimerEnd(nowMs: Long) = native.typed { it.handleTimerEnd(nowMs) }

    @Throws(RetryplanException::class)
    override fun handleFailure(nowMs: Long, attempt: Int, failure: Failure, token: Long?, held: Held?) = native.typed { it.handleFailure(nowMs, attempt, failure, token, held) }

    @Throws(RetryplanException::class)
    override fun handleResponse(nowMs: Long, attempt: Int, token: Long?, status: Long, headers: Map<String, String>, nowUnixMs: Long, redirected: Boolean) = native.typed { it.handleResponse(nowMs, attempt, token, status, headers, nowUnixMs, redirected) }

    @Throws(RetryplanException::class)
    override fun handleResult(nowMs: Long, attempt: Int, outcome: Outcome, token: Long?, held: Held?) = native.typed { it.handleResult(nowMs, attempt, outcome, token, held) }
    override fun isEnded() = native.typed { it.isEnded() }

    @Throws(RetryplanException::class)
    override fun outgoingHeaders(attempt: Int, nowMs: Long, protocol: Protocol) = native.typed { it.outgoingHeaders(attempt, nowMs, protocol) }
    override fun answerHeaders(protocol: Protocol) = native.typed { it.answerHeaders(protocol) }

    @Throws(RetryplanException::class)
    override fun pollAction(nowMs: Long) = native.typed { it.pollAction(nowMs) }
    override fun pollEvent() = native.typed { it.pollEvent() }

    override fun endingMessage(operation: String, keySent: Boolean) = native.typed { it.endingMessage(operation, keySent) }

    @Throws(RetryplanException::class)
    override fun readResponse(status: Int, headers: Map<String, String>, nowUnixMs: Long) = native.typed { it.readResponse(status, headers, nowUnixMs) }
}

/**
 * What a lean wrapper ([Driver], [Operation]: made through the wire, `NoHandle` to uniffi) raises when a
 * call reaches uniffi with its own empty handle instead of its engine object ([Driver.withNative], `Lean.typed`):
 * a generated method it does not override, or the wrapper passed where uniffi takes its object.
 * build.sh makes uniffi's `uniffiCloneHandle()` throw it for a `NoHandle` object.
 */
internal fun noEngineObject(wrapper: Any): IllegalStateException {
    val type = wrapper.javaClass.simpleName
    return IllegalStateException(
        "retryplan: this $type is the wire's lean wrapper and has no uniffi handle of its own: a native call must " +
            "reach its engine object (Driver.withNative, Lean.typed), and this one did not (a retryplan bug: please report it)",
    )
}
