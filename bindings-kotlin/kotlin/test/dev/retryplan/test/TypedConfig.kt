package dev.retryplan.test

import dev.retryplan.AboveCap
import dev.retryplan.AttemptTimeoutConfig
import dev.retryplan.BackoffKind
import dev.retryplan.BreakerConfig
import dev.retryplan.BudgetConfig
import dev.retryplan.DependencyConfig
import dev.retryplan.ErrorCodeTable
import dev.retryplan.GrpcCode
import dev.retryplan.GuidanceHeaders
import dev.retryplan.GuidanceMode
import dev.retryplan.HeaderFamily
import dev.retryplan.HedgingConfig
import dev.retryplan.Idempotency
import dev.retryplan.JitterConfig
import dev.retryplan.PolicyConfig
import dev.retryplan.PropagationConfig
import dev.retryplan.RedeliveryConfig
import dev.retryplan.RetryAfterReading
import dev.retryplan.RetryLayer
import dev.retryplan.RetryLimitsConfig
import dev.retryplan.StatusGuidanceConfig
import dev.retryplan.StatusSetConfig
import dev.retryplan.TransportFailure
import dev.retryplan.TripConfig
import dev.retryplan.defaultPolicyConfig

/**
 * A vector's policy, dependency, budget or breaker JSON as the typed records a
 * Kotlin user builds (`defaultPolicyConfig().copy(...)`, `DependencyConfig(...)`,
 * `BudgetConfig.TokenBucket(...)`, `BreakerConfig(...)`), or null
 * when the JSON holds something the records cannot hold (an unknown field, a
 * string for a number, a fraction for a `Long`, an unknown name): the runner
 * then checks the typed path gives exactly the answer the JSON path gives.
 * Only shapes are read here; every value, negative or out of range, is kept
 * for the core to judge.
 */
object TypedConfig {
    private class NotTyped : Exception()

    private fun <T> typed(read: () -> T): T? = try {
        read()
    } catch (notTyped: NotTyped) {
        null
    }

    private fun no(): Nothing = throw NotTyped()

    @Suppress("UNCHECKED_CAST")
    private fun obj(value: Any?, vararg keys: String): Map<String, Any?> {
        val map = value as? Map<String, Any?> ?: no()
        if (!keys.toSet().containsAll(map.keys)) no()
        return map
    }

    private fun long(value: Any?): Long = value as? Long ?: no()
    private fun int(value: Any?): Int = long(value).let { if (it in Int.MIN_VALUE..Int.MAX_VALUE) it.toInt() else no() }
    private fun double(value: Any?): Double = when (value) {
        is Double -> value
        is Long -> value.toDouble()
        else -> no()
    }
    private fun bool(value: Any?): Boolean = value as? Boolean ?: no()
    private fun list(value: Any?): List<Any?> = value as? List<Any?> ?: no()

    private inline fun <reified E : Enum<E>> named(value: Any?): E = enumValues<E>().firstOrNull { it.name.lowercase() == value } ?: no()

    /** `map[key]` read by [read], or [default] when absent. */
    private fun <T> Map<String, Any?>.or(key: String, default: T, read: (Any?) -> T): T = if (containsKey(key)) read(get(key)) else default

    fun policy(json: Any?): PolicyConfig? = typed {
        val d = defaultPolicyConfig()
        val m = obj(
            json, "max_attempts", "total_timeout_ms", "attempt_timeout", "response_reserve_ms",
            "minimum_useful_attempt_ms", "backoff", "jitter", "retry_on", "ambiguous", "conflict", "server_guidance",
            "idempotency", "hedging", "redelivery", "retry_limits", "retry_methods", "propagation",
        )
        PolicyConfig(
            maxAttempts = m.or("max_attempts", d.maxAttempts, ::int),
            totalTimeoutMs = m.or("total_timeout_ms", d.totalTimeoutMs, ::long),
            attemptTimeout = m.or("attempt_timeout", d.attemptTimeout) {
                val t = obj(it, "fixed_ms", "fraction_of_remaining")
                when (t.keys) {
                    setOf("fixed_ms") -> AttemptTimeoutConfig.FixedMs(long(t["fixed_ms"]))
                    setOf("fraction_of_remaining") -> AttemptTimeoutConfig.FractionOfRemaining(double(t["fraction_of_remaining"]))
                    else -> no()
                }
            },
            responseReserveMs = m.or("response_reserve_ms", d.responseReserveMs, ::long),
            minimumUsefulAttemptMs = m.or("minimum_useful_attempt_ms", d.minimumUsefulAttemptMs, ::long),
            backoff = m.or("backoff", d.backoff) {
                val b = obj(it, "kind", "base_ms", "multiplier", "cap_ms", "immediate_first_retry", "throttling_base_ms")
                d.backoff.copy(
                    kind = b.or("kind", d.backoff.kind) { k -> named<BackoffKind>(k) },
                    baseMs = b.or("base_ms", d.backoff.baseMs, ::long),
                    multiplier = b.or("multiplier", d.backoff.multiplier, ::double),
                    capMs = b.or("cap_ms", d.backoff.capMs, ::long),
                    immediateFirstRetry = b.or("immediate_first_retry", d.backoff.immediateFirstRetry, ::bool),
                    throttlingBaseMs = b["throttling_base_ms"]?.let(::long),
                )
            },
            jitter = m.or("jitter", d.jitter) {
                val j = obj(it, "kind", "ratio", "use_jitter", "max_ms")
                when (j["kind"]) {
                    "none" -> JitterConfig.None
                    "full" -> JitterConfig.Full
                    "equal" -> JitterConfig.Equal
                    "decorrelated" -> JitterConfig.Decorrelated
                    "proportional" -> JitterConfig.Proportional(double(j["ratio"] ?: no()))
                    "a6" -> JitterConfig.A6
                    "full_then_cap" -> JitterConfig.FullThenCap
                    "polly" -> JitterConfig.Polly(bool(j["use_jitter"] ?: no()))
                    "additive" -> JitterConfig.Additive(long(j["max_ms"] ?: no()).also { ms -> if (ms < 0) no() }.toULong())
                    else -> no()
                }.also { kind ->
                    if ("ratio" in j && kind !is JitterConfig.Proportional) no()
                    if ("use_jitter" in j && kind !is JitterConfig.Polly) no()
                    if ("max_ms" in j && kind !is JitterConfig.Additive) no()
                }
            },
            retryOn = m.or("retry_on", d.retryOn) {
                val r = obj(it, "http_statuses", "grpc_codes", "transport", "error_codes")
                d.retryOn.copy(
                    httpStatuses = r.or("http_statuses", d.retryOn.httpStatuses) { s -> list(s).map(::int) },
                    grpcCodes = r.or("grpc_codes", d.retryOn.grpcCodes) { s -> list(s).map { c -> named<GrpcCode>(c) } },
                    transport = r.or("transport", d.retryOn.transport) { s -> list(s).map { f -> named<TransportFailure>(f) } },
                    errorCodes = r.or("error_codes", d.retryOn.errorCodes) { s -> list(s).map { t -> named<ErrorCodeTable>(t) } },
                )
            },
            ambiguous = m.or("ambiguous", d.ambiguous, ::statusSet),
            conflict = m.or("conflict", d.conflict, ::statusSet),
            serverGuidance = m.or("server_guidance", d.serverGuidance) {
                val g = obj(it, "honor", "cap_ms", "above_cap", "mode", "retry_after_reading", "headers", "statuses", "max_above_backoff_ms")
                d.serverGuidance.copy(
                    honor = g.or("honor", d.serverGuidance.honor, ::bool),
                    capMs = g.or("cap_ms", d.serverGuidance.capMs, ::long),
                    aboveCap = g.or("above_cap", d.serverGuidance.aboveCap) { a -> named<AboveCap>(a) },
                    mode = g.or("mode", d.serverGuidance.mode) { m -> named<GuidanceMode>(m) },
                    retryAfterReading = g.or("retry_after_reading", d.serverGuidance.retryAfterReading) { r ->
                        named<RetryAfterReading>(r)
                    },
                    headers = g.or("headers", d.serverGuidance.headers) { h -> named<GuidanceHeaders>(h) },
                    statuses = g.or("statuses", d.serverGuidance.statuses) { rules -> list(rules).map(::statusRule) },
                    maxAboveBackoffMs = g["max_above_backoff_ms"]?.let(::long),
                )
            },
            idempotency = m.or("idempotency", d.idempotency) { named<Idempotency>(it) },
            hedging = m.or("hedging", null) {
                it?.let { value ->
                    val h = obj(value, "delay_ms", "max_hedged_attempts")
                    HedgingConfig(long(h["delay_ms"] ?: no()), int(h["max_hedged_attempts"] ?: no()))
                }
            },
            redelivery = m.or("redelivery", null) {
                it?.let { value ->
                    val r = obj(value, "delays_ms", "max_age_ms")
                    RedeliveryConfig(list(r["delays_ms"] ?: no()).map(::long), long(r["max_age_ms"] ?: no()))
                }
            },
            retryLimits = m.or("retry_limits", d.retryLimits) {
                val l = obj(it, "connect", "read", "status", "other")
                RetryLimitsConfig(
                    connect = l["connect"]?.let(::int),
                    read = l["read"]?.let(::int),
                    status = l["status"]?.let(::int),
                    other = l["other"]?.let(::int),
                )
            },
            retryMethods = m.or("retry_methods", d.retryMethods) {
                it?.let { methods -> list(methods).map { name -> name as? String ?: no() } }
            },
            propagation = m.or("propagation", d.propagation) {
                it?.let { value ->
                    val p = obj(value, "reserve_ms", "retry_layer", "read_headers")
                    PropagationConfig(
                        reserveMs = p["reserve_ms"]?.let(::long),
                        retryLayer = p["retry_layer"]?.let { l -> named<RetryLayer>(l) },
                        readHeaders = p["read_headers"]?.let { h -> list(h).map { f -> named<HeaderFamily>(f) } },
                    )
                }
            },
        )
    }

    /** One rule of `server_guidance.statuses`: absent fields take the section's values. */
    private fun statusRule(value: Any?): StatusGuidanceConfig {
        val r = obj(value, "status", "honor", "requires_guidance", "cap_ms", "above_cap")
        return StatusGuidanceConfig(
            status = int(r["status"] ?: no()),
            honor = r["honor"]?.let(::bool),
            requiresGuidance = r.or("requires_guidance", false, ::bool),
            capMs = r["cap_ms"]?.let(::long),
            aboveCap = r["above_cap"]?.let { a -> named<AboveCap>(a) },
        )
    }

    /** An `ambiguous` or `conflict` set: absent lists are empty, as the core reads them. */
    private fun statusSet(value: Any?): StatusSetConfig {
        val s = obj(value, "http_statuses", "grpc_codes")
        return StatusSetConfig(
            s.or("http_statuses", emptyList()) { list(it).map(::int) },
            s.or("grpc_codes", emptyList()) { list(it).map { c -> named<GrpcCode>(c) } },
        )
    }

    fun dependency(json: Any?): DependencyConfig? = typed {
        val m = obj(json, "budget", "breaker", "retry_slots", "max_concurrent_retries")
        DependencyConfig(
            budget = m["budget"]?.let(::budgetOf),
            breaker = m["breaker"]?.let(::breakerOf),
            retrySlots = m["retry_slots"]?.let(::int),
            maxConcurrentRetries = m["max_concurrent_retries"]?.let(::int),
        )
    }

    fun budget(json: Any?): BudgetConfig? = typed { budgetOf(json) }

    fun breaker(json: Any?): BreakerConfig? = typed { breakerOf(json) }

    private fun budgetOf(value: Any?): BudgetConfig {
        val b = obj(
            value, "kind", "max_tokens", "token_ratio", "retry_ratio", "min_retries_per_second", "window_ms",
            "capacity", "retry_cost", "timeout_retry_cost", "success_increment", "throttling_retry_cost",
        )
        fun exactly(vararg keys: String) = if (b.keys == setOf("kind", *keys)) Unit else no()
        return when (b["kind"]) {
            "token_bucket" -> exactly("max_tokens", "token_ratio").let {
                BudgetConfig.TokenBucket(int(b["max_tokens"]), double(b["token_ratio"]))
            }

            "ratio" -> exactly("retry_ratio", "min_retries_per_second", "window_ms").let {
                BudgetConfig.Ratio(double(b["retry_ratio"]), int(b["min_retries_per_second"]), long(b["window_ms"]))
            }

            "quota" -> if (b.keys - "throttling_retry_cost" == setOf("kind", "capacity", "retry_cost", "timeout_retry_cost", "success_increment")) {
                BudgetConfig.Quota(
                    int(b["capacity"]),
                    int(b["retry_cost"]),
                    int(b["timeout_retry_cost"]),
                    int(b["success_increment"]),
                    b["throttling_retry_cost"]?.let(::int),
                )
            } else {
                no()
            }

            else -> no()
        }
    }

    private fun breakerOf(value: Any?): BreakerConfig {
        val b = obj(value, "trip", "open_ms", "half_open_probes")
        val t = obj(b["trip"] ?: no(), "kind", "failures", "failure_ratio", "minimum_throughput", "window_ms")
        val trip = when (t["kind"]) {
            "consecutive" -> if (t.keys == setOf("kind", "failures")) TripConfig.Consecutive(int(t["failures"])) else no()

            "ratio" -> if (t.keys == setOf("kind", "failure_ratio", "minimum_throughput", "window_ms")) {
                TripConfig.Ratio(double(t["failure_ratio"]), int(t["minimum_throughput"]), long(t["window_ms"]))
            } else {
                no()
            }

            else -> no()
        }
        return BreakerConfig(trip, long(b["open_ms"] ?: no()), int(b["half_open_probes"] ?: no()))
    }
}
