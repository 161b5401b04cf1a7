package dev.retryplan

/** The old name of [RetrySlots], kept for one release. */
@Deprecated(
    "Renamed RetrySlots; this alias is removed in the next release",
    ReplaceWith("RetrySlots", "dev.retryplan.RetrySlots"),
)
typealias ConcurrencyLimit = RetrySlots

/** The old name of [Decision.Wait.retryAfterMs] (issue 28: one name per concept), kept for one release. */
@Deprecated("Renamed retryAfterMs; this alias is removed in the next release", ReplaceWith("retryAfterMs"))
val Decision.Wait.serverDelayMs: Long? get() = retryAfterMs

/** The old name of [Decision.AwaitOutcome.running] (issue 28: one name per concept), kept for one release. */
@Deprecated("Renamed running; this alias is removed in the next release", ReplaceWith("running"))
val Decision.AwaitOutcome.inFlight: Int get() = running

/** The old name of [BreakerSnapshot.probesRunning] (issue 28: one name per concept), kept for one release. */
@Deprecated("Renamed probesRunning; this alias is removed in the next release", ReplaceWith("probesRunning"))
val BreakerSnapshot.probesInFlight: Long get() = probesRunning

/** The old name of [remainingMs], kept for one release ("budget" names the retry budget only). */
@Deprecated(
    "Renamed remainingMs; this alias is removed in the next release",
    ReplaceWith("remainingMs(deadlineMs, nowMs, reserveMs)", "dev.retryplan.remainingMs"),
)
@Throws(RetryplanException::class)
fun remainingBudgetMs(deadlineMs: Long, nowMs: Long, reserveMs: Long): Long = remainingMs(deadlineMs, nowMs, reserveMs)
