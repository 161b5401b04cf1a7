package dev.retryplan

/** The old name of [RetrySlots], kept for one release. */
@Deprecated(
    "Renamed RetrySlots; this alias is removed in the next release",
    ReplaceWith("RetrySlots", "dev.retryplan.RetrySlots"),
)
typealias ConcurrencyLimit = RetrySlots
