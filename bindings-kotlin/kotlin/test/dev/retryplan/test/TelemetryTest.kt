package dev.retryplan.test

import dev.retryplan.AttemptResult
import dev.retryplan.Decision
import dev.retryplan.Event
import dev.retryplan.GaveUpException
import dev.retryplan.GiveUpReason
import dev.retryplan.Metric
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.RetryplanException
import dev.retryplan.Telemetry
import dev.retryplan.TelemetryErrorType
import dev.retryplan.TelemetrySignal
import dev.retryplan.TransportFailure
import dev.retryplan.Verdict
import dev.retryplan.code
import dev.retryplan.retrying
import dev.retryplan.telemetrySignals
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.Collections

/**
 * The OpenTelemetry mapping through Kotlin's observation hook: `telemetrySignals(event)` is the
 * core's `telemetry::signals` (the same Python's `retryplan.otel` and JS's `instrumentOpenTelemetry`
 * report), and `Telemetry` the generated names.
 */
class TelemetryTest {
    private fun policy() = Policy.fromJson(
        """{"max_attempts": 3, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 1000}, "response_reserve_ms": 0,
            "minimum_useful_attempt_ms": 10, "jitter": {"kind": "none"},
            "backoff": {"kind": "constant", "base_ms": 1, "multiplier": 1.0, "cap_ms": 1}}""",
    )

    /** Every signal of every event [block]'s run hands its hook, in order, and how the run ended. */
    private fun signalsOf(block: (Int) -> String): Pair<List<TelemetrySignal>, Result<String>> {
        val signals = Collections.synchronizedList(mutableListOf<TelemetrySignal>())
        val ended = runCatching {
            runBlocking {
                policy().use { policy ->
                    retrying(
                        policy,
                        onDecision = { event -> signals += telemetrySignals(event) },
                        outcomeOfError = { Outcome.Application(Verdict.RETRYABLE) },
                    ) { attempt -> block(attempt.attempt) }
                }
            }
        }
        return signals.toList() to ended
    }

    private fun List<TelemetrySignal>.counts(metric: Metric) = filterIsInstance<TelemetrySignal.Count>().filter { it.metric == metric }.map { it.value }

    @Test
    fun `a retried run that gives up has resend counts from 1, the give-up event with its reason, and the counters`() {
        val (signals, ended) = signalsOf { throw IllegalStateException("down") }
        assertTrue(ended.exceptionOrNull() is GaveUpException, "$ended")

        val started = signals.filterIsInstance<TelemetrySignal.AttemptStarted>()
        assertEquals(listOf(1, 2, 3), started.map { it.attempt })
        assertEquals(listOf(null, 1, 2), started.map { it.resendCount }, "http.request.resend_count: attempt n carries n - 1")
        assertEquals(listOf("first", "retry", "retry"), signals.counts(Metric.ATTEMPTS))
        assertEquals(listOf(null, null), signals.counts(Metric.RETRIES), "one retry scheduled before attempts 2 and 3")

        val gaveUp = signals.filterIsInstance<TelemetrySignal.GaveUp>().single()
        assertEquals(TelemetrySignal.GaveUp(onAttempt = 3, reason = GiveUpReason.ATTEMPTS_EXHAUSTED, attempts = 3), gaveUp)
        val lastEnded = signals.indexOfFirst { it is TelemetrySignal.AttemptEnded && it.attempt == 3 }
        assertTrue(signals.indexOf(gaveUp) < lastEnded, "the give-up event goes on attempt 3's span before it ends: $signals")
        assertEquals(
            List(3) { TelemetryErrorType.Raised },
            signals.filterIsInstance<TelemetrySignal.AttemptEnded>().map { it.errorType },
            "an attempt that threw: the thrown type's error.type",
        )
        assertEquals(listOf("attempts_exhausted"), signals.counts(Metric.GIVE_UPS))
        assertEquals(listOf("gave_up"), signals.counts(Metric.OPERATIONS))
        assertEquals(emptyList<String?>(), signals.counts(Metric.BUDGET_REFUSALS) + signals.counts(Metric.BREAKER_REFUSALS))
    }

    @Test
    fun `a run that succeeds on its retry has one resend, no give-up, and the operation counted succeeded`() {
        val (signals, ended) = signalsOf { attempt -> if (attempt == 1) throw IllegalStateException("once") else "ok" }
        assertEquals("ok", ended.getOrThrow())
        assertEquals(
            listOf(TelemetrySignal.AttemptStarted(1, null, false), TelemetrySignal.AttemptStarted(2, 1, false)),
            signals.filterIsInstance<TelemetrySignal.AttemptStarted>(),
        )
        assertEquals(emptyList<TelemetrySignal>(), signals.filterIsInstance<TelemetrySignal.GaveUp>())
        assertEquals(TelemetrySignal.AttemptEnded(2, null, null), signals.filterIsInstance<TelemetrySignal.AttemptEnded>().last())
        assertEquals(listOf("succeeded"), signals.counts(Metric.OPERATIONS))
    }

    @Test
    fun `an HTTP failure's status, a budget refusal and a transport kind are the core's`() {
        val refused = Event(
            atMs = 40,
            decision = Decision.GaveUp(GiveUpReason.BUDGET_EXHAUSTED, 1, 900, null, emptyList()),
            after = AttemptResult(1, Outcome.HttpStatus(503, null, null)),
        )
        assertEquals(
            listOf(
                TelemetrySignal.GaveUp(1, GiveUpReason.BUDGET_EXHAUSTED, 1),
                TelemetrySignal.AttemptEnded(1, 503, TelemetryErrorType.Status(503)),
                TelemetrySignal.Count(Metric.GIVE_UPS, "budget_exhausted"),
                TelemetrySignal.Count(Metric.BUDGET_REFUSALS, null),
                TelemetrySignal.Count(Metric.OPERATIONS, "gave_up"),
            ),
            telemetrySignals(refused),
        )
        val lost = Event(40, Decision.Wait(1, 10, 50, null, 900), AttemptResult(1, Outcome.Transport(TransportFailure.CONNECTION_LOST)))
        assertEquals(
            listOf(
                TelemetrySignal.AttemptEnded(1, null, TelemetryErrorType.Named("connection_lost")),
                TelemetrySignal.Count(Metric.RETRIES, null),
            ),
            telemetrySignals(lost),
        )
    }

    @Test
    fun `an event the core cannot hold is refused, naming the field`() {
        val event = Event(-1, Decision.AwaitOutcome(1, 10), null)
        val error = assertThrows(RetryplanException.InvalidArgument::class.java) { telemetrySignals(event) }
        assertEquals("invalid_argument", error.code)
        assertTrue(error.message!!.contains("at_ms"), error.message)
    }

    @Test
    fun `the counters' names, units and attributes and the give-up reasons' names are the generated tables'`() {
        assertEquals(Metric.values().toList(), Telemetry.METRICS.keys.toList())
        assertEquals(
            listOf(
                "retryplan.attempts",
                "retryplan.retries",
                "retryplan.give_ups",
                "retryplan.budget.refusals",
                "retryplan.breaker.refusals",
                "retryplan.operations",
            ),
            Telemetry.METRICS.values.map { it.name },
        )
        assertEquals(Telemetry.Attributes.GIVE_UP_REASON, Telemetry.metric(Metric.GIVE_UPS).attribute)
        assertEquals("{attempt}", Telemetry.metric(Metric.ATTEMPTS).unit)
        assertEquals("retryplan.give_up", Telemetry.GIVE_UP_EVENT)
        assertEquals("http.request.resend_count", Telemetry.Attributes.HTTP_REQUEST_RESEND_COUNT)
        assertEquals(GiveUpReason.values().toList(), Telemetry.GIVE_UP_REASONS.keys.toList())
        assertEquals("budget_exhausted", Telemetry.giveUpReason(GiveUpReason.BUDGET_EXHAUSTED))
        assertEquals("retry_after_above_cap", Telemetry.giveUpReason(GiveUpReason.RETRY_AFTER_ABOVE_CAP))
    }
}
