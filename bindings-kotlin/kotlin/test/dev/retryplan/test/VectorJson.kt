package dev.retryplan.test

import dev.retryplan.Action
import dev.retryplan.Admission
import dev.retryplan.AttemptResult
import dev.retryplan.BreakerSnapshot
import dev.retryplan.BudgetSnapshot
import dev.retryplan.Class
import dev.retryplan.Decision
import dev.retryplan.DependencySnapshot
import dev.retryplan.Event
import dev.retryplan.GrpcCode
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.PolicyConfig
import dev.retryplan.Pushback
import dev.retryplan.Redelivery
import dev.retryplan.RetryplanException
import dev.retryplan.StatsSnapshot
import dev.retryplan.Timeline
import dev.retryplan.TimelineStep
import dev.retryplan.TransportFailure
import dev.retryplan.Verdict
import dev.retryplan.Warning
import dev.retryplan.blame
import dev.retryplan.code

/**
 * Converts between the vectors' plain JSON (snake_case keys, `type` tags) and
 * the typed Kotlin API: outcomes in, and every typed result back out, so the
 * runner compares exactly what the Rust runner compares.
 */
object VectorJson {
    /** Kotlin enum constant -> the core's snake_case name (DEADLINE_EXCEEDED -> deadline_exceeded). */
    fun name(value: Enum<*>): String = value.name.lowercase()

    private inline fun <reified E : Enum<E>> enumOf(name: Any?): E = enumValues<E>().firstOrNull { it.name.lowercase() == name } ?: error("unknown ${E::class.simpleName} $name")

    @Suppress("UNCHECKED_CAST")
    private fun obj(value: Any?): Map<String, Any?> = value as? Map<String, Any?> ?: error("expected an object: $value")

    private fun only(map: Map<String, Any?>, vararg keys: String) {
        val extra = map.keys - keys.toSet()
        require(extra.isEmpty()) { "unknown fields $extra in $map" }
    }

    private fun long(value: Any?): Long = value as? Long ?: error("expected an integer: $value")

    fun budgetSnapshot(b: BudgetSnapshot): Map<String, Any?> = when (b) {
        is BudgetSnapshot.TokenBucket -> mapOf(
            "kind" to "token_bucket",
            "tokens_milli" to b.tokensMilli,
            "max_tokens_milli" to b.maxTokensMilli,
            "retries_allowed" to b.retriesAllowed,
        )

        is BudgetSnapshot.Ratio -> mapOf(
            "kind" to "ratio",
            "requests" to b.requests,
            "retries" to b.retries,
            "balance_milli" to b.balanceMilli,
        )

        is BudgetSnapshot.Quota -> mapOf("kind" to "quota", "available" to b.available, "capacity" to b.capacity)
    }

    fun breakerSnapshot(b: BreakerSnapshot): Map<String, Any?> = mapOf(
        "state" to name(b.state),
        "consecutive_failures" to b.consecutiveFailures,
        "window_results" to b.windowResults,
        "window_failures" to b.windowFailures,
        "open_until_ms" to b.openUntilMs,
        "probes_running" to b.probesRunning,
    )

    /** Absent parts are null here (the core does not skip them). */
    fun dependencySnapshot(d: DependencySnapshot): Map<String, Any?> = mapOf(
        "budget" to d.budget?.let(::budgetSnapshot),
        "breaker" to d.breaker?.let(::breakerSnapshot),
        "retry_slots_in_use" to d.retrySlotsInUse,
    )

    fun redelivery(r: Redelivery): Map<String, Any?> = when (r) {
        is Redelivery.Acknowledge -> mapOf("type" to "acknowledge")
        is Redelivery.RedeliverAfter -> mapOf("type" to "redeliver_after", "delay_ms" to r.delayMs, "redeliver_at_ms" to r.redeliverAtMs)
        is Redelivery.DeadLetter -> mapOf("type" to "dead_letter", "reason" to name(r.reason))
    }

    fun outcomeJson(o: Outcome): Any = when (o) {
        is Outcome.Success -> mapOf("type" to "success")

        is Outcome.Cancelled -> mapOf("type" to "cancelled")

        is Outcome.HttpStatus -> fields(
            "type" to "http_status",
            "status" to o.status.toLong(),
            "retry_after_ms" to o.retryAfterMs,
            "error_code" to o.errorCode,
        )

        is Outcome.GrpcStatus -> fields("type" to "grpc_status", "code" to name(o.code), "pushback" to o.pushback?.let(::pushback))

        is Outcome.Transport -> fields("type" to "transport", "failure" to name(o.failure), "retry_after_ms" to o.retryAfterMs)

        is Outcome.Application -> mapOf("type" to "application", "verdict" to name(o.verdict))
    }

    fun outcome(value: Any?): Outcome {
        val map = obj(value)
        return when (map["type"]) {
            "success" -> Outcome.Success.also { only(map, "type") }

            "cancelled" -> Outcome.Cancelled.also { only(map, "type") }

            "http_status" -> {
                only(map, "type", "status", "retry_after_ms", "error_code")
                Outcome.HttpStatus(long(map["status"]).toInt(), map["retry_after_ms"]?.let(::long), map["error_code"] as String?)
            }

            "grpc_status" -> {
                only(map, "type", "code", "pushback")
                val pushback = when (val p = map["pushback"]) {
                    null -> null

                    "do_not_retry" -> Pushback.DoNotRetry

                    else -> obj(p).let {
                        only(it, "retry_after_ms")
                        Pushback.RetryAfterMs(long(it["retry_after_ms"]))
                    }
                }
                Outcome.GrpcStatus(enumOf<GrpcCode>(map["code"]), pushback)
            }

            "transport" -> Outcome.Transport(enumOf<TransportFailure>(map["failure"]), map["retry_after_ms"]?.let(::long))
                .also { only(map, "type", "failure", "retry_after_ms") }

            "application" -> Outcome.Application(enumOf<Verdict>(map["verdict"])).also { only(map, "type", "verdict") }

            else -> error("unknown outcome $map")
        }
    }

    /** Optional fields are left out when null, as the core's serde does. */
    private fun fields(vararg pairs: Pair<String, Any?>): Map<String, Any?> = linkedMapOf(*pairs).filterValues { it != null }

    /** An empty set of attempts to abort is left out, as the core's serde does. */
    private fun aborts(attempts: List<Int>): List<Long>? = attempts.map { it.toLong() }.ifEmpty { null }

    fun decision(d: Decision): Map<String, Any?> = when (d) {
        is Decision.StartAttempt -> fields(
            "type" to "start_attempt",
            "attempt" to d.attempt.toLong(),
            "timeout_ms" to d.timeoutMs,
            "abort_at_ms" to d.abortAtMs,
            "request_id" to d.requestId,
            "remaining_ms" to d.remainingMs,
            "hedge" to d.hedge,
        )

        is Decision.Wait -> fields(
            "type" to "wait",
            "retry" to d.retry.toLong(),
            "delay_ms" to d.delayMs,
            "until_ms" to d.untilMs,
            "retry_after_ms" to d.retryAfterMs,
            "remaining_ms" to d.remainingMs,
        )

        is Decision.AwaitOutcome -> fields("type" to "await_outcome", "running" to d.running.toLong(), "until_ms" to d.untilMs)

        is Decision.Succeeded -> fields(
            "type" to "succeeded",
            "attempts" to d.attempts.toLong(),
            "winner" to d.winner.toLong(),
            "abort_attempts" to aborts(d.abortAttempts),
        )

        is Decision.GaveUp -> fields(
            "type" to "gave_up",
            "reason" to name(d.reason),
            "attempts" to d.attempts.toLong(),
            "remaining_ms" to d.remainingMs,
            "refused_delay_ms" to d.refusedDelayMs,
            "abort_attempts" to aborts(d.abortAttempts),
        )

        is Decision.Reconcile -> fields(
            "type" to "reconcile",
            "attempts" to d.attempts.toLong(),
            "remaining_ms" to d.remainingMs,
            "abort_attempts" to aborts(d.abortAttempts),
        )

        is Decision.Restart -> fields(
            "type" to "restart",
            "attempts" to d.attempts.toLong(),
            "deadline_ms" to d.deadlineMs,
            "remaining_ms" to d.remainingMs,
            "abort_attempts" to aborts(d.abortAttempts),
        )
    }

    private fun result(r: AttemptResult?): Map<String, Any?>? = r?.let { mapOf("attempt" to it.attempt.toLong(), "outcome" to outcomeJson(it.outcome)) }

    fun action(a: Action): Map<String, Any?> = when (a) {
        is Action.StartAttempt -> a.plan.let { p ->
            mapOf(
                "type" to "start_attempt",
                "attempt" to p.attempt.toLong(),
                "timeout_ms" to p.timeoutMs,
                "abort_at_ms" to p.abortAtMs,
                "request_id" to p.requestId,
                "remaining_ms" to p.remainingMs,
                "hedge" to p.hedge,
                "send_idempotency_key" to p.sendIdempotencyKey,
            )
        }

        is Action.AbortAttempt -> mapOf("type" to "abort_attempt", "attempt" to a.attempt.toLong(), "reason" to name(a.reason))

        is Action.Sleep -> mapOf("type" to "sleep", "until_ms" to a.untilMs)

        is Action.Release -> mapOf("type" to "release", "token" to a.token)

        is Action.Finish -> fields(
            "type" to "finish",
            "decision" to decision(a.ending.decision),
            "last_result" to result(a.ending.lastResult),
            "result" to a.ending.result?.let { fields("token" to it.token, "returned" to it.returned, "readable_until_ms" to it.readableUntilMs) },
        )
    }

    fun event(e: Event): Map<String, Any?> = fields("at_ms" to e.atMs, "decision" to decision(e.decision), "after" to result(e.after))

    fun stats(s: StatsSnapshot): Map<String, Any?> = s.gaveUp.let { g ->
        mapOf(
            "operations" to s.operations,
            "attempts" to s.attempts,
            "retries" to s.retries,
            "hedges" to s.hedges,
            "succeeded" to s.succeeded,
            "reconciles" to s.reconciles,
            "restarts" to s.restarts,
            "gave_up" to mapOf(
                "attempts_exhausted" to g.attemptsExhausted, "deadline_insufficient" to g.deadlineInsufficient,
                "retry_after_exceeds_deadline" to g.retryAfterExceedsDeadline, "retry_after_above_cap" to g.retryAfterAboveCap,
                "server_declined_retry" to g.serverDeclinedRetry, "not_retryable" to g.notRetryable, "cancelled" to g.cancelled,
                "budget_exhausted" to g.budgetExhausted, "circuit_open" to g.circuitOpen, "no_retry_slot" to g.noRetrySlot,
                "body_not_replayable" to g.bodyNotReplayable,
            ),
        )
    }

    fun classification(c: Class): Map<String, Any?> = when (c) {
        is Class.Success -> mapOf("class" to "success")

        is Class.Retryable -> mapOf("class" to "retryable", "ambiguous" to c.ambiguous) +
            (if (c.throttling) mapOf("throttling" to true) else emptyMap())

        is Class.NotRetryable -> mapOf("class" to "not_retryable")

        is Class.Conflict -> mapOf("class" to "conflict")

        is Class.Cancelled -> mapOf("class" to "cancelled")
    }

    fun pushback(p: Pushback): Any = when (p) {
        is Pushback.RetryAfterMs -> mapOf("retry_after_ms" to p.ms)
        is Pushback.DoNotRetry -> "do_not_retry"
    }

    fun admission(a: Admission): Map<String, Any?> = when (a) {
        is Admission.Admit -> mapOf("type" to "admit", "remaining_ms" to a.remainingMs)
        is Admission.Reject -> mapOf("type" to "reject", "remaining_ms" to a.remainingMs, "minimum_useful_ms" to a.minimumUsefulMs)
    }

    fun timeline(t: Timeline): Map<String, Any?> = mapOf(
        "deadline_ms" to t.deadlineMs,
        "first_attempt_at_ms" to t.firstAttemptAtMs,
        "response_reserve_ms" to t.responseReserveMs,
        "configured_attempts" to t.configuredAttempts.toLong(),
        "attempts_that_fit" to t.attemptsThatFit.toLong(),
        "steps" to t.steps.map { step ->
            when (step) {
                is TimelineStep.Attempt -> mapOf(
                    "type" to "attempt",
                    "attempt" to step.attempt.toLong(),
                    "start_ms" to step.startMs,
                    "timeout_ms" to step.timeoutMs,
                    "end_ms" to step.endMs,
                )

                is TimelineStep.Wait -> mapOf(
                    "type" to "wait",
                    "retry" to step.retry.toLong(),
                    "start_ms" to step.startMs,
                    "ceiling_ms" to step.ceilingMs,
                    "min_delay_ms" to step.minDelayMs,
                    "max_delay_ms" to step.maxDelayMs,
                    "end_ms" to step.endMs,
                )
            }
        },
        "ending" to decision(t.ending),
        // Not skipped when absent: the core serialises this one as null.
        "unbounded_worst_case_ms" to t.unboundedWorstCaseMs,
        "warnings" to t.warnings.map { w ->
            when (w) {
                is Warning.AttemptsDoNotFit -> mapOf(
                    "type" to "attempts_do_not_fit",
                    "configured" to w.configured.toLong(),
                    "fit" to w.fit.toLong(),
                    "deadline_ms" to w.deadlineMs,
                )

                is Warning.WorstCaseExceedsDeadline -> mapOf(
                    "type" to "worst_case_exceeds_deadline",
                    "worst_case_ms" to w.worstCaseMs,
                    "deadline_ms" to w.deadlineMs,
                )

                is Warning.GuidanceCapExceedsDeadline -> mapOf(
                    "type" to "guidance_cap_exceeds_deadline",
                    "cap_ms" to w.capMs,
                    "deadline_ms" to w.deadlineMs,
                )
            }
        },
    )

    /**
     * A typed configuration as the vectors write it: validated again from the
     * record and written by the core, so a field the record dropped or changed
     * shows as a difference, and no field is spelt here.
     */
    @Suppress("UNCHECKED_CAST")
    fun policyConfig(c: PolicyConfig): Map<String, Any?> = Policy(c).use { Json.parse(it.toJson()) as Map<String, Any?> }

    /** The error as a vector states it, with its `blame` (dropped by the runner when the vector states none). */
    fun error(e: RetryplanException): Map<String, Any?> = when (e) {
        is RetryplanException.ConfigViolations ->
            mapOf("code" to e.code, "config" to e.config.name.lowercase(), "fields" to e.violations.map { it.field })

        is RetryplanException.InvalidConfig ->
            mapOf("code" to e.code, "config" to e.config.name.lowercase(), "fields" to listOf(e.field))

        is RetryplanException.Unsupported -> mapOf("code" to e.code, "fields" to listOf(e.field))

        else -> mapOf("code" to e.code)
    } + ("blame" to e.blame.name.lowercase())
}
