package dev.retryplan

/** The old name of [RetrySlots], kept for one release. */
@Deprecated(
    "Renamed RetrySlots; this alias is removed in the next release",
    ReplaceWith("RetrySlots", "dev.retryplan.RetrySlots"),
)
typealias ConcurrencyLimit = RetrySlots

/** The old name of [remainingMs], kept for one release ("budget" names the retry budget only). */
@Deprecated(
    "Renamed remainingMs; this alias is removed in the next release",
    ReplaceWith("remainingMs(deadlineMs, nowMs, reserveMs)", "dev.retryplan.remainingMs"),
)
@Throws(RetryplanException::class)
fun remainingBudgetMs(deadlineMs: Long, nowMs: Long, reserveMs: Long): Long = remainingMs(deadlineMs, nowMs, reserveMs)
