package dev.retryplan

/**
 * The core's wire encoding (`retryplan::wire`, `Driver::exchange`): the one C
 * function carrying an input record and the output record as `long[]` (JNA's
 * direct mapping to the library uniffi loads, `src/wire.rs`), and every word
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

    external fun retryplan_kotlin_driver_exchange(handle: Long, input: LongArray, inputLen: Int, out: LongArray, outLen: Int): Int

    private val tables = wireTables().also {
        check(it.version == BUILT_FOR) { "retryplan: the library speaks wire version ${it.version}, this jar version $BUILT_FOR" }
    }

    private fun List<String>.at(name: String): Int = indexOf(name).also { check(it >= 0) { "retryplan: the wire has no `$name`" } }

    val NONE = tables.none
    val INPUT_WORDS = tables.inputFields.size
    val OUTPUT_WORDS = tables.outputFields.size

    // Input words.
    val IN_KIND = tables.inputFields.at("input_kind")
    val IN_NOW = tables.inputFields.at("now_ms")
    val IN_ATTEMPT = tables.inputFields.at("attempt")
    val IN_TOKEN = tables.inputFields.at("token")
    val IN_HELD = tables.inputFields.at("held")
    val IN_OUTCOME_KIND = tables.inputFields.at("outcome_kind")
    val IN_OUTCOME_CODE = tables.inputFields.at("outcome_code")

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
    val START = tables.actionKinds.at("start_attempt")
    val ABORT = tables.actionKinds.at("abort_attempt")
    val SLEEP = tables.actionKinds.at("sleep")
    val RELEASE = tables.actionKinds.at("release")
    val FINISH = tables.actionKinds.at("finish")
    val FLAG_HEDGE = tables.flagHedge
    val FLAG_SEND_KEY = tables.flagSendIdempotencyKey
    val ENDING_RETURNS = tables.endingReturns

    private val failures = LongArray(Failure.entries.size) { tables.failures.indexOf(Failure.entries[it]).toLong() }
    private val verdicts = LongArray(Verdict.entries.size) { tables.verdicts.indexOf(Verdict.entries[it]).toLong() }
    private val helds = LongArray(Held.entries.size) { tables.helds.indexOf(Held.entries[it]).toLong() }
    private val discarded = tables.receipts.place(Receipt.DISCARDED).toLong()

    fun failure(failure: Failure): Long = failures[failure.ordinal]
    fun verdict(verdict: Verdict): Long = verdicts[verdict.ordinal]
    fun held(held: Held): Long = helds[held.ordinal]
    fun discarded(out: LongArray): Boolean = out[RECEIPT] == discarded

    private fun <T> List<T>.place(member: T): Int = indexOf(member).also { check(it >= 0) { "retryplan: the wire has no $member" } }

    /** The request id as the core prints it: the two halves as 16 lowercase hex digits. */
    fun requestId(out: LongArray): String {
        val digits = java.lang.Long.toHexString((out[REQUEST_ID_HIGH] shl 32) or out[REQUEST_ID_LOW])
        return if (digits.length == 16) digits else "0".repeat(16 - digits.length) + digits
    }
}
