package dev.retryplan

/**
 * The core's wire encoding (`retryplan::wire`): the one C function carrying an
 * input record in and the output record (a [Driver]'s next action) or the
 * decision record (an [Operation]'s decision) out as `long[]` (JNA's direct
 * mapping to the library uniffi loads, `src/wire.rs`), and every word
 * position and kind number, read from the core's tables ([wireTables]) once
 * at load. Nothing of the encoding is written here but the field and kind
 * names, which the core's tables resolve.
 */
internal object Wire {
    /** The encoding this host was written for; the library's must be the same. */
    private const val BUILT_FOR = 1L

    init {
        registerNative(Wire::class.java)
    }

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

    /** A policy's handle (uniffi keeps it protected); `src/wire.rs` finds the policy by it in its table of live ones. */
    private val policyHandle = Policy::class.java.getDeclaredField("handle").apply { isAccessible = true }

    /**
     * A new operation ([driverOptions] null) or driver made through the C
     * function, its handle owned by the caller; null when the options need
     * uniffi's buffers (a key, a dependency, a request, stats, ...) or the
     * core refused them (uniffi's constructor then raises why).
     */
    fun new(policy: Policy, nowMs: Long, options: OperationOptions, driverOptions: DriverOptions?): Long? {
        val plain = options.idempotencyKey == null && options.dependency == null && options.repeatability == null &&
            !options.oneShotBody && options.httpRequest == null && (options.deadlineMs ?: 0) >= 0 && !policy.uniffiIsDestroyed &&
            (driverOptions == null || driverOptions.stats == null && driverOptions.concurrency == null && !driverOptions.returnsResponses)
        if (!plain) return null
        val driver = if (driverOptions == null) 0 else if (driverOptions.recordEvents) 2 else 1
        val seeded = if (options.seed != null) 1 else 0
        return retryplan_kotlin_new(policyHandle.getLong(policy), nowMs, options.seed ?: 0, seeded, options.deadlineMs ?: NONE, driver).takeIf { it != 0L }
    }

    /** True when the record was written; false when the core refused it (the caller repeats it typed, which raises). */
    fun written(status: Int): Boolean = when (status) {
        DONE -> true
        FAILED, PANICKED -> false
        else -> throw IllegalStateException("retryplan: the wire answered $status (is the library the one this jar was built with?)")
    }

    private val tables = wireTables().also {
        check(it.version == BUILT_FOR) { "retryplan: the library speaks wire version ${it.version}, this jar version $BUILT_FOR" }
    }

    private fun List<String>.at(name: String): Int = indexOf(name).also { check(it >= 0) { "retryplan: the wire has no `$name`" } }

    val NONE = tables.none
    val INPUT_WORDS = tables.inputFields.size
    val OUTPUT_WORDS = tables.outputFields.size
    val DECISION_WORDS = tables.decisionFields.size

    // Input words.
    val IN_KIND = tables.inputFields.at("input_kind")
    val IN_NOW = tables.inputFields.at("now_ms")
    val IN_ATTEMPT = tables.inputFields.at("attempt")
    val IN_TOKEN = tables.inputFields.at("token")
    val IN_HELD = tables.inputFields.at("held")
    val IN_OUTCOME_KIND = tables.inputFields.at("outcome_kind")
    val IN_OUTCOME_CODE = tables.inputFields.at("outcome_code")
    val IN_OUTCOME_DELAY = tables.inputFields.at("outcome_delay_ms")

    // Output words.
    val RECEIPT = tables.outputFields.at("receipt")
    val ACTION = tables.outputFields.at("action_kind")
    val ATTEMPT = tables.outputFields.at("attempt")
    val TIMEOUT = tables.outputFields.at("timeout_ms")
    val ABORT_AT = tables.outputFields.at("abort_at_ms")
    val REQUEST_ID_HIGH = tables.outputFields.at("request_id_high")
    val REQUEST_ID_LOW = tables.outputFields.at("request_id_low")
    val REMAINING = tables.outputFields.at("remaining_budget_ms")
    val FLAGS = tables.outputFields.at("flags")
    val UNTIL = tables.outputFields.at("until_ms")
    val TOKEN = tables.outputFields.at("token")
    val ENDING = tables.outputFields.at("ending")

    // Kinds.
    val POLL = tables.inputKinds.at("poll").toLong()
    val RESULT = tables.inputKinds.at("result").toLong()
    val CANCEL = tables.inputKinds.at("cancel").toLong()
    val SUCCESS = tables.outcomeKinds.at("success").toLong()
    val FAILURE = tables.outcomeKinds.at("failure").toLong()
    val APPLICATION = tables.outcomeKinds.at("application").toLong()
    private val HTTP_STATUS = tables.outcomeKinds.at("http_status").toLong()
    private val GRPC_STATUS = tables.outcomeKinds.at("grpc_status").toLong()
    private val TRANSPORT = tables.outcomeKinds.at("transport").toLong()
    private val CANCELLED = tables.outcomeKinds.at("cancelled").toLong()
    private val DO_NOT_RETRY = tables.pushbackDoNotRetry
    val START = tables.actionKinds.at("start_attempt")
    val ABORT = tables.actionKinds.at("abort_attempt")
    val SLEEP = tables.actionKinds.at("sleep")
    val RELEASE = tables.actionKinds.at("release")
    val FINISH = tables.actionKinds.at("finish")
    val FLAG_HEDGE = tables.flagHedge
    val FLAG_SEND_KEY = tables.flagSendIdempotencyKey
    val ENDING_RETURNS = tables.endingReturns

    private val grpcCodes = LongArray(GrpcCode.entries.size) { tables.grpcCodes.indexOf(GrpcCode.entries[it]).toLong() }
    private val transportFailures = LongArray(TransportFailure.entries.size) { tables.transportFailures.indexOf(TransportFailure.entries[it]).toLong() }
    private val failures = LongArray(Failure.entries.size) { tables.failures.indexOf(Failure.entries[it]).toLong() }
    private val verdicts = LongArray(Verdict.entries.size) { tables.verdicts.indexOf(Verdict.entries[it]).toLong() }
    private val helds = LongArray(Held.entries.size) { tables.helds.indexOf(Held.entries[it]).toLong() }
    private val discarded = tables.receipts.place(Receipt.DISCARDED).toLong()

    fun failure(failure: Failure): Long = failures[failure.ordinal]
    fun verdict(verdict: Verdict): Long = verdicts[verdict.ordinal]
    fun held(held: Held): Long = helds[held.ordinal]
    fun discarded(out: LongArray): Boolean = out[RECEIPT] == discarded

    private fun <T> List<T>.place(member: T): Int = indexOf(member).also { check(it >= 0) { "retryplan: the wire has no $member" } }

    /**
     * Writes [outcome]'s three words (`outcome_kind`, `outcome_code`,
     * `outcome_delay_ms`) into [input]; false for what the words cannot
     * carry, which goes in typed (and is read or refused there): an HTTP
     * status with a service error code (a string), a negative wait (no word:
     * -1 and -2 mean something else).
     */
    fun outcome(outcome: Outcome, input: LongArray): Boolean {
        val (kind, code, ms) = when (outcome) {
            is Outcome.Success -> Triple(SUCCESS, NONE, null)
            is Outcome.HttpStatus -> if (outcome.errorCode != null) return false else Triple(HTTP_STATUS, outcome.status.toLong(), outcome.retryAfterMs)
            is Outcome.GrpcStatus -> Triple(GRPC_STATUS, grpcCodes[outcome.code.ordinal], (outcome.pushback as? Pushback.RetryAfterMs)?.ms)
            is Outcome.Transport -> Triple(TRANSPORT, transportFailures[outcome.failure.ordinal], outcome.retryAfterMs)
            is Outcome.Application -> Triple(APPLICATION, verdict(outcome.verdict), null)
            is Outcome.Cancelled -> Triple(CANCELLED, NONE, null)
        }
        if (ms != null && ms < 0) return false
        input[IN_OUTCOME_KIND] = kind
        input[IN_OUTCOME_CODE] = code
        input[IN_OUTCOME_DELAY] = ms ?: if ((outcome as? Outcome.GrpcStatus)?.pushback is Pushback.DoNotRetry) DO_NOT_RETRY else NONE
        return true
    }

    /** The request id as the core prints it: the two halves as 16 lowercase hex digits. */
    fun requestId(high: Long, low: Long): String {
        val digits = java.lang.Long.toHexString((high shl 32) or low)
        return if (digits.length == 16) digits else "0".repeat(16 - digits.length) + digits
    }

    fun requestId(out: LongArray): String = requestId(out[REQUEST_ID_HIGH], out[REQUEST_ID_LOW])

    // The decision record (an operation's answer).
    private val d = tables.decisionFields
    private val D_KIND = d.at("decision_kind")
    private val D_ATTEMPT = d.at("attempt")
    private val D_TIMEOUT = d.at("timeout_ms")
    private val D_ABORT_AT = d.at("abort_at_ms")
    private val D_ID_HIGH = d.at("request_id_high")
    private val D_ID_LOW = d.at("request_id_low")
    private val D_REMAINING = d.at("remaining_budget_ms")
    private val D_FLAGS = d.at("flags")
    private val D_DELAY = d.at("delay_ms")
    private val D_UNTIL = d.at("until_ms")
    private val D_SERVER_DELAY = d.at("server_delay_ms")
    private val D_IN_FLIGHT = d.at("in_flight")
    private val D_REASON = d.at("reason")
    private val D_ATTEMPTS = d.at("attempts")
    private val D_DETAIL = d.at("detail")
    private val D_ABORTS = listOf("aborts_1", "aborts_33", "aborts_65", "aborts_97").map { d.at(it) }
    private val decisionKinds = tables.decisionKinds

    private fun optional(word: Long): Long? = if (word == NONE) null else word

    /** The attempts to abort: bit n of the i-th word is attempt 32 i + n + 1, ascending. */
    private fun aborts(w: LongArray): List<Int> {
        if (D_ABORTS.all { w[it] == 0L }) return emptyList()
        val list = ArrayList<Int>()
        D_ABORTS.forEachIndexed { i, at -> for (bit in 0 until 32) if (w[at] ushr bit and 1L == 1L) list += 32 * i + bit + 1 }
        return list
    }

    /** The decision in a decision record (`encode_decision` in the core). */
    fun decision(w: LongArray): Decision = when (decisionKinds[w[D_KIND].toInt()]) {
        "start_attempt" -> Decision.StartAttempt(w[D_ATTEMPT].toInt(), w[D_TIMEOUT], w[D_ABORT_AT], requestId(w[D_ID_HIGH], w[D_ID_LOW]), w[D_REMAINING], w[D_FLAGS] and FLAG_HEDGE != 0L)
        "wait" -> Decision.Wait(w[D_ATTEMPT].toInt(), w[D_DELAY], w[D_UNTIL], optional(w[D_SERVER_DELAY]), w[D_REMAINING])
        "await_outcome" -> Decision.AwaitOutcome(w[D_IN_FLIGHT].toInt(), w[D_UNTIL])
        "succeeded" -> Decision.Succeeded(w[D_ATTEMPTS].toInt(), w[D_DETAIL].toInt(), aborts(w))
        "gave_up" -> Decision.GaveUp(tables.giveUpReasons[w[D_REASON].toInt()], w[D_ATTEMPTS].toInt(), w[D_REMAINING], optional(w[D_DETAIL]), aborts(w))
        "reconcile" -> Decision.Reconcile(w[D_ATTEMPTS].toInt(), w[D_REMAINING], aborts(w))
        "restart" -> Decision.Restart(w[D_ATTEMPTS].toInt(), w[D_DETAIL], w[D_REMAINING], aborts(w))
        else -> throw IllegalStateException("retryplan: unknown decision kind ${w[D_KIND]}")
    }
}

/** Binds [type]'s `external` functions by JNA's direct mapping to the library uniffi loads (same name, same override property). */
internal fun registerNative(type: java.lang.Class<*>) {
    val name = "retryplan_uniffi"
    com.sun.jna.Native.register(type, System.getProperty("uniffi.component.$name.libraryOverride") ?: name)
}

/**
 * uniffi's guard, for the wire: the native object is freed ([free]) only
 * once [destroy] was called *and* no wire call is running, and no wire call
 * starts after [destroy]. The generated methods keep their own guard.
 */
internal class HotGuard(private val type: String, private val free: () -> Unit) {
    private val calls = java.util.concurrent.atomic.AtomicLong(1)
    private val closing = java.util.concurrent.atomic.AtomicBoolean(false)

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
