package dev.retryplan.test

import dev.retryplan.BreakerPermit
import dev.retryplan.CircuitBreaker
import dev.retryplan.Concurrency
import dev.retryplan.Dependency
import dev.retryplan.Driver
import dev.retryplan.DriverOptions
import dev.retryplan.Failure
import dev.retryplan.HeaderField
import dev.retryplan.Held
import dev.retryplan.IncomingContext
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Policy
import dev.retryplan.Protocol
import dev.retryplan.Receipt
import dev.retryplan.RetryAfterReading
import dev.retryplan.RetryBudget
import dev.retryplan.RetryCharge
import dev.retryplan.RetryplanException
import dev.retryplan.ServiceConfig
import dev.retryplan.Stats
import dev.retryplan.admit
import dev.retryplan.awsErrorCodeFromResponse
import dev.retryplan.awsStandard2026Dependency
import dev.retryplan.awsStandardDependency
import dev.retryplan.compileDependency
import dev.retryplan.encodeGrpcTimeout
import dev.retryplan.encodeGrpcTimeoutNs
import dev.retryplan.outcomeFromHttp
import dev.retryplan.outcomeFromHttpResponse
import dev.retryplan.parseGrpcPushback
import dev.retryplan.parseGrpcTimeout
import dev.retryplan.parseGrpcTimeoutNs
import dev.retryplan.parseHttpDate
import dev.retryplan.parseRateLimit
import dev.retryplan.parseRateLimitReset
import dev.retryplan.parseRetryAfterMsHeader
import dev.retryplan.parseRetryAfterWith
import dev.retryplan.policyFromUrllib3
import dev.retryplan.read
import dev.retryplan.readResponse
import dev.retryplan.requestName
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import java.io.File

/**
 * Every case of every JSON file in `tests/conformance/` through the typed Kotlin API, one
 * JUnit test per case id. Each typed result is turned back into the vectors'
 * JSON and compared exactly, as `core/tests/conformance.rs` does. `policy` and
 * `dependency` cases run twice when the typed records can hold their JSON
 * (`TypedConfig`): from JSON text and from `PolicyConfig` / `DependencyConfig`,
 * with the same expected answer, error code and field path included.
 * `budget` and `breaker` cases run from `BudgetConfig` / `BreakerConfig`, the
 * only way Kotlin takes them; a configuration those records cannot hold (an
 * unknown kind or field) cannot be written in Kotlin at all, and its vector
 * must be one the core's reader refuses too (`invalid_config`).
 */
class ConformanceTest {
    private fun vectorDir(): File {
        val configured = System.getProperty("retryplan.vectors") ?: System.getenv("RETRYPLAN_VECTORS")
        if (configured != null) return File(configured)
        var dir: File? = File("").absoluteFile
        while (dir != null && !File(dir, "tests/conformance").isDirectory) dir = dir.parentFile
        return File(dir ?: error("tests/conformance not found above ${File("").absolutePath}"), "tests/conformance")
    }

    @Suppress("UNCHECKED_CAST")
    private fun obj(value: Any?) = value as Map<String, Any?>

    /** Every case of every vector file, in file order. */
    private fun cases(): List<Map<String, Any?>> {
        // Vector files this runner does not run yet (their kinds have no Kotlin API so far).
        val notYetRun = emptySet<String>()
        val files = vectorDir().listFiles { f -> f.name.endsWith(".json") && f.name != "schema.json" && f.name !in notYetRun }
            .orEmpty().sorted()
        val cases = files.flatMap { file ->
            val document = obj(Json.parse(file.readText()))
            (document["cases"] as? List<*> ?: error("${file.name}: a vector file has cases")).map(::obj)
        }
        assertTrue(cases.isNotEmpty(), "no vectors found in ${vectorDir()}")
        println("conformance: ${cases.size} vectors in ${files.size} files")
        return cases
    }

    @TestFactory
    fun vectors(): List<DynamicTest> = cases().map { c -> DynamicTest.dynamicTest(c["id"] as String) { run(c) } }

    /**
     * While the compiled pass runs: how many policies (0) and dependencies (1) went through their compiled
     * form (`Policy.toCompiled`, `compileDependency`); null otherwise.
     */
    private var compiled: IntArray? = null

    /**
     * Every case again, each policy read back from its compiled form and each dependency a typed record can hold
     * built from its own, as the Rust runner's `every_vector_passes_with_compiled_policies`: a compiled policy
     * decides exactly as its JSON does.
     */
    @Test
    fun `every vector passes with compiled policies`() {
        val counts = IntArray(2)
        compiled = counts
        val failures = mutableListOf<String>()
        try {
            for (case in cases()) {
                try {
                    run(case)
                } catch (e: Throwable) {
                    failures += "${case["id"]}: $e"
                }
            }
        } finally {
            compiled = null
        }
        assertTrue(failures.isEmpty(), "${failures.size} cases failed with compiled policies:\n${failures.joinToString("\n")}")
        // The repository's vectors hold this many (another RETRYPLAN_VECTORS directory holds what it holds).
        if (System.getenv("RETRYPLAN_VECTORS") == null) {
            assertTrue(counts[0] >= 300, "only ${counts[0]} policies went through their compiled form")
            assertTrue(counts[1] >= 30, "only ${counts[1]} dependencies went through their compiled form")
        }
        println("conformance: every vector passed with ${counts[0]} compiled policies and ${counts[1]} compiled dependencies")
    }

    @Test
    fun `the typed records hold the reading-error vectors, so the typed path is checked`() {
        val cases = listOf("policy", "dependency", "budget", "breaker").flatMap { name ->
            val document = obj(Json.parse(File(vectorDir(), "$name.json").readText()))
            (document["cases"] as List<*>).map(::obj)
        }
        fun typed(c: Map<String, Any?>) = when (c["kind"]) {
            "policy" -> c["policy"]?.let(TypedConfig::policy)
            "dependency" -> TypedConfig.dependency(c["dependency"])
            "budget" -> TypedConfig.budget(c["budget"])
            "breaker" -> TypedConfig.breaker(c["breaker"])
            else -> null
        }
        val pinned = listOf(
            "policy.json.negative_duration", "policy.json.negative_fixed_timeout", "policy.json.http_status_beyond_16_bits",
            "policy.json.negative_hedging_delay", "policy.json.negative_redelivery_delay", "dependency.invalid.negative_retry_slots",
            "dependency.old_name.max_concurrent_retries", "dependency.invalid.old_and_new_name",
            "dependency.invalid.negative_open_ms", "dependency.invalid.negative_max_tokens",
            "budget.invalid.negative_max_tokens", "breaker.invalid.negative_open_ms",
            "policy.valid.aws_2026_rules", "policy.valid.aws_and_http_dialect_fields_together",
            "policy.valid.polly_throttling_base_follows_pollys_rules",
        )
        val byId = cases.associateBy { it["id"] as String }
        for (id in pinned) assertTrue(typed(byId[id] ?: error("no vector $id")) != null, "$id is not held by the typed records")
        // What the records cannot hold is refused by Kotlin's compiler: these vectors pin the other languages' errors.
        val unwritable = listOf("budget.invalid.unknown_kind", "breaker.invalid.unknown_trip_field")
        for (id in unwritable) assertTrue(typed(byId[id] ?: error("no vector $id")) == null, "$id is held by the typed records")
        println("conformance: ${cases.count { typed(it) != null }} of ${cases.size} policy, dependency, budget and breaker cases run from typed records")
    }

    /** The answer of one call, as the Rust runner's `Answer`: ("expect", value) or ("expect_error", error). */
    private fun answer(call: () -> Any?): Pair<String, Any?> = try {
        "expect" to call()
    } catch (e: RetryplanException) {
        "expect_error" to VectorJson.error(e)
    }

    private fun settle(holder: Map<String, Any?>, actual: Pair<String, Any?>, label: String) {
        val key = listOf("expect", "expect_error").firstOrNull { it in holder } ?: error("$label: no expectation")
        // `blame` is optional in a vector: compared only when the vector states it.
        val expected = holder[key]
        val states = expected is Map<*, *> && "blame" in expected
        val answer = actual.second
        val compared = if (actual.first == "expect_error" && answer is Map<*, *> && !states) answer - "blame" else answer
        assertEquals(key to expected, actual.first to compared, label)
    }

    private fun serviceConfig(case: Map<String, Any?>): ServiceConfig = ServiceConfig.fromJson(Json.write(case["grpc_service_config"]), optLong(case, "max_attempts_cap")?.toInt())

    private fun policy(case: Map<String, Any?>): Policy {
        val policy = plainPolicy(case)
        val counts = compiled ?: return policy
        counts[0]++
        return policy.use { Policy.fromCompiled(it.toCompiled()) }
    }

    /** A dependency from its JSON configuration, or (in the compiled pass) from its typed record's compiled form. */
    private fun dependencyFrom(json: Any?): Dependency {
        val counts = compiled
        val typed = if (counts != null) TypedConfig.dependency(json) else null
        if (counts == null || typed == null) return Dependency.fromJson(Json.write(json))
        val form = compileDependency(typed)
        counts[1]++
        return Dependency.fromCompiled(form)
    }

    private fun plainPolicy(case: Map<String, Any?>): Policy {
        if ("grpc_service_config" in case) {
            val method = obj(case["grpc_method"])
            return serviceConfig(case).use { it.profileFor(string(method, "service"), string(method, "method")) }
                ?: error("${case["id"]}: no profile for the method")
        }
        val profile = case["profile"]
        val policy = case["policy"]
        require((profile == null) != (policy == null)) { "a case needs exactly one of `profile` and `policy`" }
        return if (profile != null) Policy.profile(profile as String) else Policy.fromJson(Json.write(policy))
    }

    private fun long(case: Map<String, Any?>, key: String): Long = case[key] as? Long ?: error("`$key` must be a non-negative integer")

    private fun optLong(case: Map<String, Any?>, key: String): Long? = case[key]?.let { long(case, key) }

    private fun string(case: Map<String, Any?>, key: String): String = case[key] as? String ?: error("`$key` must be a string")

    private fun reading(case: Map<String, Any?>): RetryAfterReading = when (case["reading"]) {
        null, "strict" -> RetryAfterReading.STRICT
        "lenient" -> RetryAfterReading.LENIENT
        else -> error("unknown reading ${case["reading"]}")
    }

    private fun run(case: Map<String, Any?>) {
        val id = case["id"] as String
        val result: Pair<String, Any?> = when (val kind = case["kind"]) {
            "operation" -> return runOperation(case, id)

            "operation_series" -> return runSeries(case, id)

            "driver", "propagated_driver" -> return runDriver(case, id)

            "incoming_context" -> answer { incomingContext(case, id) }

            "grpc_service_config" -> answer {
                serviceConfig(case).use { config ->
                    val methods = config.methods().map { m -> m.policy.use { p -> mapOf("name" to m.name, "policy" to VectorJson.policyConfig(p.toConfig())) } }
                    val lookups = (case["lookups"] as List<*>? ?: emptyList<Any?>()).map { l ->
                        val lookup = obj(l)
                        config.methodFor(string(lookup, "service"), string(lookup, "method"))?.let { m ->
                            m.policy.close()
                            m.name
                        }
                    }
                    val throttling = config.throttlingDependency()?.use { VectorJson.dependencySnapshot(it.snapshot(0)) }
                    mapOf(
                        "methods" to methods,
                        "throttling" to throttling,
                        "warnings" to config.warnings().map { mapOf("field" to it.field, "message" to it.message) },
                        "lookups" to lookups,
                    )
                }
            }

            "grpc_timeout_ns_encode" -> answer { encodeGrpcTimeoutNs(string(case, "timeout_ns").toLong()) }

            "grpc_timeout_ns_parse" -> answer { parseGrpcTimeoutNs(string(case, "value")).toString() }

            "urllib3_retry" -> answer {
                policyFromUrllib3(Json.write(case["retry"]), optLong(case, "total_timeout_ms")).use {
                    VectorJson.policyConfig(it.toConfig())
                }
            }

            "aws_error_code" -> answer { awsErrorCodeFromResponse(case["errortype_header"] as String?, case["body"] as String?) }

            "request_name" -> answer { requestName(string(case, "method"), string(case, "url")) }

            "budget" -> return runBudget(case, id)

            "breaker" -> return runBreaker(case, id)

            "dependency" -> {
                val json = answer {
                    dependencyFrom(case["dependency"]).use { VectorJson.dependencySnapshot(it.snapshot(0)) }
                }
                // The typed record, when it can hold the JSON, must get the same answer: one reader.
                TypedConfig.dependency(case["dependency"])?.let { config ->
                    settle(case, answer { Dependency(config).use { VectorJson.dependencySnapshot(it.snapshot(0)) } }, "$id (typed)")
                }
                json
            }

            "redelivery" -> answer {
                policy(case).use { p ->
                    VectorJson.redelivery(
                        p.redeliver(
                            long(case, "attempts").toInt(),
                            long(case, "first_seen_ms"),
                            long(case, "now_ms"),
                            VectorJson.outcome(case["outcome"]),
                        ),
                    )
                }
            }

            "http_outcome" -> answer {
                VectorJson.outcomeJson(
                    outcomeFromHttp(
                        long(case, "status").toInt(),
                        case["retry_after"] as String?,
                        case["retry_after_ms"] as String?,
                        long(case, "now_unix_ms"),
                    ),
                )
            }

            "policy" -> {
                case["policy"]?.let(TypedConfig::policy)?.let { config ->
                    settle(case, answer { Policy(config).use { VectorJson.policyConfig(it.toConfig()) } }, "$id (typed)")
                }
                answer { policy(case).use { VectorJson.policyConfig(it.toConfig()) } }
            }

            "backoff_ceilings" -> answer { policy(case).use { p -> p.backoffCeilingsMs(long(case, "retries").toInt()) } }

            "classify" -> answer {
                policy(case).use { p -> VectorJson.classification(p.classify(VectorJson.outcome(case["outcome"]))) }
            }

            "explain" -> answer {
                policy(case).use { p ->
                    VectorJson.timeline(p.explain(optLong(case, "deadline_ms"), optLong(case, "first_attempt_at_ms") ?: 0))
                }
            }

            "retry_after" -> answer { parseRetryAfterWith(string(case, "value"), long(case, "now_unix_ms"), reading(case)) }

            "http_date" -> answer { parseHttpDate(string(case, "value"), long(case, "now_unix_ms"), reading(case)) }

            "rate_limit" -> answer { parseRateLimit(string(case, "value"), case["policy_value"] as String?) }

            "rate_limit_reset" -> answer { parseRateLimitReset(string(case, "value"), long(case, "now_unix_ms")) }

            "http_response" -> answer {
                @Suppress("UNCHECKED_CAST")
                val headers = case["headers"] as Map<String, String>
                // Only what the case gives: a reading and a policy together are refused.
                val reading = if ("reading" in case) reading(case) else null
                val policy = if ("policy" in case) policy(case) else null
                try {
                    VectorJson.outcomeJson(
                        outcomeFromHttpResponse(long(case, "status").toInt(), headers, long(case, "now_unix_ms"), reading, policy),
                    )
                } finally {
                    policy?.close()
                }
            }

            "retry_after_ms" -> answer { parseRetryAfterMsHeader(string(case, "value")) }

            "grpc_pushback" -> answer { VectorJson.pushback(parseGrpcPushback(string(case, "value"))) }

            "grpc_timeout_encode" -> answer { encodeGrpcTimeout(long(case, "timeout_ms")) }

            "grpc_timeout_parse" -> answer { parseGrpcTimeout(string(case, "value")) }

            "admit" -> answer {
                VectorJson.admission(
                    admit(long(case, "deadline_ms"), long(case, "now_ms"), long(case, "reserve_ms"), long(case, "minimum_useful_ms")),
                )
            }

            else -> error("$id: unknown kind `$kind`")
        }
        settle(case, result, id)
    }

    /** The case's dependency: its configuration, an AWS standard one by name, or the service config's throttling. */
    private fun dependency(case: Map<String, Any?>): Dependency? = when (val d = case["dependency"]) {
        "aws_standard" -> awsStandardDependency()
        "aws_standard_2026" -> awsStandard2026Dependency()
        null -> if ("grpc_service_config" in case) serviceConfig(case).use { it.throttlingDependency() } else null
        else -> dependencyFrom(d)
    }

    private fun runSeries(case: Map<String, Any?>, id: String) {
        val dependency = dependency(case)
        (case["operations"] as List<*>).forEachIndexed { index, o ->
            runOperation(case + obj(o), "$id operation $index", dependency)
        }
        dependency?.close()
    }

    private fun runOperation(case: Map<String, Any?>, id: String, shared: Dependency? = null) {
        val dependency = shared ?: dependency(case)
        val options = OperationOptions(
            seed = long(case, "seed"),
            idempotencyKey = case["idempotency_key"]?.let { string(case, "idempotency_key") },
            deadlineMs = optLong(case, "deadline_ms"),
            dependency = dependency,
        )
        policy(case).use { policy ->
            Operation(policy, long(case, "start_ms"), options).use { operation ->
                case["expect_idempotency_key"]?.let { assertEquals(it, operation.idempotencyKey(), "$id: idempotency key") }
                val steps = case["steps"] as? List<*> ?: error("$id: operation cases need steps")
                steps.forEachIndexed { index, s ->
                    val step = obj(s)
                    val at = long(step, "at_ms")
                    val result = answer {
                        when (val call = step["call"]) {
                            "poll" -> VectorJson.decision(operation.poll(at))

                            "cancel" -> VectorJson.decision(operation.cancel(at))

                            "outcome" -> VectorJson.decision(
                                operation.onOutcome(at, long(step, "attempt").toInt(), VectorJson.outcome(step["outcome"])),
                            )

                            "dependency_snapshot" -> VectorJson.dependencySnapshot(dependency!!.snapshot(at))

                            "budget_on_failure" -> null.also {
                                val budget = checkNotNull(dependency!!.budget()) { "$id: no budget" }
                                budget.use { it.onFailure(at, null) }
                            }

                            else -> error("$id: unknown call `$call`")
                        }
                    }
                    settle(step, result, "$id step $index")
                }
            }
        }
        if (shared == null) dependency?.close()
    }

    /** A driver case: the host loop's calls on one driver, through the typed API (the hot path, as helpers call it). */
    private fun runDriver(case: Map<String, Any?>, id: String) {
        val dependency = dependency(case)
        val stats = Stats()
        policy(case).use { policy ->
            val http = try {
                case["method"]?.let {
                    policy.httpRequest(string(case, "method"), case["idempotent_request"] as Boolean?, case["request_idempotency_key"] as String?)
                }
            } catch (e: RetryplanException) {
                return settle(case, "expect_error" to VectorJson.error(e), id)
            }
            val options = OperationOptions(
                seed = long(case, "seed"),
                idempotencyKey = case["idempotency_key"]?.let { string(case, "idempotency_key") },
                deadlineMs = optLong(case, "deadline_ms"),
                dependency = dependency,
                oneShotBody = case["one_shot_body"] == true,
                httpRequest = http,
            )
            val concurrency = when (val c = case["concurrency"]) {
                null, "concurrent" -> Concurrency.CONCURRENT
                "sequential" -> Concurrency.SEQUENTIAL
                "sequential_without_hedging" -> Concurrency.SEQUENTIAL_WITHOUT_HEDGING
                else -> error("$id: unknown concurrency $c")
            }
            val driverOptions = DriverOptions(concurrency, stats, recordEvents = true, returnsResponses = case["returns_responses"] == true)
            val driver = try {
                @Suppress("UNCHECKED_CAST")
                val incoming = (case["incoming_headers"] as Map<String, String>?)?.let { headers ->
                    IncomingContext.read(policy, long(case, "start_ms"), lookupIn(headers))
                }
                if (incoming == null) {
                    Driver(policy, long(case, "start_ms"), options, driverOptions)
                } else {
                    Driver(policy, long(case, "start_ms"), options, driverOptions, incoming)
                }
            } catch (e: RetryplanException) {
                return settle(case, "expect_error" to VectorJson.error(e), id)
            }
            driver.use {
                case["expect_idempotency_key"]?.let { assertEquals(it, driver.idempotencyKey(), "$id: idempotency key") }
                steps(case, id).forEachIndexed { index, step ->
                    val at = long(step, "at_ms")
                    val result = answer {
                        when (val call = step["call"]) {
                            "poll" -> VectorJson.action(driver.pollAction(at))
                            "result" -> VectorJson.name(driverResult(driver, step, at))
                            "cancel" -> null.also { driver.handleCancel(at) }
                            "timer_ended" -> null.also { driver.handleTimerEnd(at) }
                            "events" -> generateSequence { driver.pollEvent() }.map(VectorJson::event).toList()
                            "stats" -> VectorJson.stats(stats.snapshot())
                            "outgoing_headers" -> headerObject(driver.outgoingHeaders(long(step, "attempt").toInt(), at, protocol(step)))
                            "answer_headers" -> headerObject(driver.answerHeaders(protocol(step)))
                            else -> error("$id: unknown driver call `$call`")
                        }
                    }
                    settle(step, result, "$id step $index")
                }
            }
        }
        stats.close()
        dependency?.close()
    }

    /** A lookup by lower-case name in a vector's headers object (names in any case). */
    private fun lookupIn(headers: Map<String, String>): (String) -> String? = { name -> headers.entries.firstOrNull { it.key.equals(name, ignoreCase = true) }?.value }

    private fun protocol(step: Map<String, Any?>): Protocol = when (val p = step["protocol"]) {
        "http" -> Protocol.HTTP
        "grpc" -> Protocol.GRPC
        else -> error("unknown protocol $p")
    }

    /** Headers the driver wrote, as a vector states them: an object by name. */
    private fun headerObject(headers: List<HeaderField>): Map<String, Any?> = headers.associate { it.name to it.value }

    /** An `incoming_context` case's answer: the context the core read, as the vector states it. */
    private fun incomingContext(case: Map<String, Any?>, id: String): Map<String, Any?> = policy(case).use { policy ->
        @Suppress("UNCHECKED_CAST")
        val headers = obj(case["headers"]) as Map<String, String>
        val context = try {
            IncomingContext.read(policy, long(case, "now_ms"), lookupIn(headers))
        } catch (refused: RetryplanException.InvalidRequestHeader) {
            // A refusal names the header whose value broke its rule: one of the case's.
            assertTrue(headers.keys.any { it.equals(refused.header, ignoreCase = true) }, "$id: refused ${refused.header}, not a header of the case")
            throw refused
        }
        context.use {
            mapOf(
                "caller_remaining_ns" to it.callerRemainingNs()?.toString(),
                "deadline_header" to it.deadlineHeader(),
                "deadline_ms" to it.deadlineMs(policy),
                "previous_attempts" to it.previousAttempts(),
                "idempotency_key" to it.idempotencyKey(),
                "caller_retries" to it.callerRetries(),
            )
        }
    }

    /**
     * A result step: an outcome as written, a failure by name, or a response
     * (status and headers as given, and whether the client followed a
     * redirect to get it) read by the core, each with its token and what it
     * holds when the step names one.
     */
    private fun driverResult(driver: Driver, step: Map<String, Any?>, at: Long): Receipt {
        val attempt = long(step, "attempt").toInt()
        val token = optLong(step, "token")
        val held = step["held"]?.let { Held.valueOf((it as String).uppercase()) } ?: Held.VALUE.takeIf { token != null }
        step["failure"]?.let { name -> return driver.handleFailure(at, attempt, Failure.valueOf((name as String).uppercase()), token, held) }
        step["outcome"]?.let { return driver.handleResult(at, attempt, VectorJson.outcome(it), token, held) }
        val response = obj(step["response"] ?: error("a result needs outcome, failure or response"))

        @Suppress("UNCHECKED_CAST")
        val headers = obj(response["headers"] ?: emptyMap<String, Any?>()) as Map<String, String>
        val redirected = step["redirected"] as Boolean? ?: false
        return driver.handleResponse(at, attempt, token, long(response, "status"), headers, optLong(step, "now_unix_ms") ?: 0, redirected)
    }

    private fun steps(case: Map<String, Any?>, id: String): List<Map<String, Any?>> = (case["steps"] as? List<*> ?: error("$id: needs steps")).map(::obj)

    /**
     * A budget or breaker configuration `BudgetConfig` / `BreakerConfig` cannot
     * hold (an unknown kind or field): Kotlin refuses it at compile time, so the
     * case must expect the core's reading error, never steps.
     */
    private fun unwritable(case: Map<String, Any?>, id: String) {
        val expected = case["expect_error"] as? Map<*, *>
        assertEquals("invalid_config", expected?.get("code"), "$id: the typed records cannot hold a configuration the core reads")
    }

    /** Calls on one retry budget, in order; refunds and failures name the `try_retry` step whose charge they hand back. */
    private fun runBudget(case: Map<String, Any?>, id: String) {
        val config = TypedConfig.budget(case["budget"]) ?: return unwritable(case, id)
        val budget = try {
            RetryBudget(config)
        } catch (e: RetryplanException) {
            return settle(case, "expect_error" to VectorJson.error(e), id)
        }
        val charges = mutableListOf<RetryCharge?>()
        budget.use {
            steps(case, id).forEachIndexed { index, step ->
                val at = long(step, "at_ms")
                fun charge() = optLong(step, "charge_step")?.let { charges[it.toInt()] ?: error("$id step $index: no charge") }
                var granted: RetryCharge? = null
                val result = when (val call = step["call"]) {
                    "on_request" -> answer { null.also { budget.onRequest(at) } }

                    "try_retry" -> answer {
                        granted = budget.tryRetry(at, step["after_timeout"] as Boolean? ?: false)
                        granted?.let { mapOf("granted" to true, "cost" to it.cost()) } ?: mapOf("granted" to false)
                    }

                    "on_success" -> answer { null.also { budget.onSuccess(at, charge()) } }

                    "on_failure" -> answer { null.also { budget.onFailure(at, charge()) } }

                    "snapshot" -> answer { VectorJson.budgetSnapshot(budget.snapshot(at)) }

                    "acquire" -> answer { mapOf("granted" to budget.acquire(long(step, "amount"))) }

                    "release" -> answer { null.also { budget.release(long(step, "amount")) } }

                    else -> error("$id: unknown budget call `$call`")
                }
                charges += granted
                settle(step, result, "$id step $index")
            }
        }
        charges.forEach { it?.close() }
    }

    /** Calls on one circuit breaker, in order; results name the `try_acquire` step whose permit they return. */
    private fun runBreaker(case: Map<String, Any?>, id: String) {
        val config = TypedConfig.breaker(case["breaker"]) ?: return unwritable(case, id)
        val breaker = try {
            CircuitBreaker(config)
        } catch (e: RetryplanException) {
            return settle(case, "expect_error" to VectorJson.error(e), id)
        }
        val permits = mutableListOf<BreakerPermit?>()
        breaker.use {
            steps(case, id).forEachIndexed { index, step ->
                val at = long(step, "at_ms")
                fun permit() = permits[long(step, "permit_step").toInt()] ?: error("$id step $index: no permit")
                var granted: BreakerPermit? = null
                val result = when (val call = step["call"]) {
                    "try_acquire" -> answer {
                        granted = breaker.tryAcquire(at)
                        granted?.let { mapOf("granted" to true, "probe" to it.probe()) } ?: mapOf("granted" to false)
                    }

                    "on_success" -> answer { null.also { breaker.onSuccess(at, permit()) } }

                    "on_failure" -> answer { null.also { breaker.onFailure(at, permit()) } }

                    "release" -> answer { null.also { breaker.release(permit()) } }

                    "snapshot" -> answer { VectorJson.breakerSnapshot(breaker.snapshot(at)) }

                    else -> error("$id: unknown breaker call `$call`")
                }
                permits += granted
                settle(step, result, "$id step $index")
            }
        }
        permits.forEach { it?.close() }
    }
}
