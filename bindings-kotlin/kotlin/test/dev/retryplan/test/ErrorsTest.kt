package dev.retryplan.test

import dev.retryplan.AttemptTimeoutConfig
import dev.retryplan.Blame
import dev.retryplan.BreakerConfig
import dev.retryplan.BudgetConfig
import dev.retryplan.CircuitBreaker
import dev.retryplan.ConfigKind
import dev.retryplan.Decision
import dev.retryplan.Dependency
import dev.retryplan.DependencyConfig
import dev.retryplan.HedgingConfig
import dev.retryplan.InvalidPolicy
import dev.retryplan.InvalidPolicyJson
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.PolicyConfig
import dev.retryplan.RetryBudget
import dev.retryplan.RetryplanException
import dev.retryplan.ServiceConfig
import dev.retryplan.Stats
import dev.retryplan.TripConfig
import dev.retryplan.code
import dev.retryplan.defaultPolicyConfig
import dev.retryplan.encodeGrpcTimeout
import dev.retryplan.name
import dev.retryplan.outcomeFromHttp
import dev.retryplan.parseGrpcTimeout
import dev.retryplan.parseRetryAfter
import dev.retryplan.profileConfig
import dev.retryplan.profileNames
import dev.retryplan.remainingBudgetMs
import dev.retryplan.remainingMs
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.function.Executable

/** Bad input gives typed exceptions with the core's code and message, never a crash. */
class ErrorsTest {
    private inline fun <reified E : RetryplanException> raises(code: String, noinline call: () -> Any?): E {
        val error = assertThrows(E::class.java, Executable { call() })
        assertEquals(code, error.code)
        assertTrue(error is RetryplanException)
        return error
    }

    private val policy = Policy.fromJson("""{"jitter": {"kind": "none"}}""")

    @Test
    fun `an invalid policy lists every violation with its field and the core's message`() {
        val config = defaultPolicyConfig().copy(
            maxAttempts = 0,
            backoff = defaultPolicyConfig().backoff.copy(baseMs = 200, capMs = 100),
        )
        val error = raises<RetryplanException.ConfigViolations>("config_violations") { Policy(config) }
        assertEquals(ConfigKind.POLICY, error.config)
        assertEquals(listOf("max_attempts", "backoff.cap_ms"), error.violations.map { it.field })
        assertEquals("backoff.cap_ms (100) must be >= backoff.base_ms (200)", error.violations[1].message)
        assertTrue(error.toString().startsWith("invalid policy: max_attempts (0) must be a whole number in 1..=128"), error.toString())
        assertEquals(error.description, error.toString())
    }

    @Test
    @Suppress("DEPRECATION")
    fun `the old names of the total timeout are read for one release`() {
        Policy.fromJson("""{"total_budget_ms": 2000}""").use { policy ->
            assertEquals(2000L, policy.toConfig().totalTimeoutMs)
            Operation(policy, 0, OperationOptions(seed = 1)).use { op ->
                assertEquals(op.remainingMs(100), op.remainingBudgetMs(100))
            }
        }
        val both = raises<RetryplanException.InvalidConfig>("invalid_config") {
            Policy.fromJson("""{"total_timeout_ms": 2000, "total_budget_ms": 2000}""")
        }
        assertEquals("total_budget_ms", both.field)
        assertTrue("both `total_timeout_ms` and its old name `total_budget_ms`" in both.description, both.description)
        assertEquals(remainingMs(800, 500, 50), remainingBudgetMs(800, 500, 50))
    }

    @Test
    fun `policy JSON errors name the field`() {
        val error = raises<RetryplanException.InvalidConfig>("invalid_config") {
            Policy.fromJson("""{"backoff": {"base_ms": -5}}""")
        }
        assertEquals("backoff.base_ms", error.field)
        raises<RetryplanException.InvalidConfig>("invalid_config") { Policy.fromJson("""{"max_attemps": 3}""") }
        raises<RetryplanException.InvalidConfig>("invalid_config") { Policy.fromJson("not json") }
        assertEquals(ConfigKind.POLICY, error.config)
        assertTrue(error.description.startsWith("invalid policy configuration at `backoff.base_ms`: "), error.description)
    }

    @Test
    fun `profiles by name`() {
        assertEquals(
            listOf(
                "read", "checkout", "write_keyed", "write_strict", "background",
                "aws_standard", "aws_standard_2026", "aws_standard_2026_dynamodb", "polly_v8",
            ),
            profileNames(),
        )
        assertEquals(800L, profileConfig("checkout").totalTimeoutMs)
        Policy.profile("checkout").use { assertEquals(profileConfig("checkout"), it.toConfig()) }
        val error = raises<RetryplanException.UnknownProfile>("unknown_profile") { Policy.profile("nope") }
        assertEquals(profileNames(), error.known)
        assertEquals(Blame.CONFIGURATION, error.blame)
    }

    @Test
    fun `negative times and counts are invalid arguments, never clamped`() {
        raises<RetryplanException.InvalidArgument>("invalid_argument") { Operation(policy, -1, OperationOptions(seed = 1)) }
        Operation(policy, 0, OperationOptions(seed = 1)).use { op ->
            val error = raises<RetryplanException.InvalidArgument>("invalid_argument") { op.poll(-5) }
            assertEquals("now_ms", error.field)
            raises<RetryplanException.InvalidArgument>("invalid_argument") { op.onOutcome(0, -1, Outcome.Success) }
            raises<RetryplanException.InvalidArgument>("invalid_argument") { op.remainingMs(Long.MIN_VALUE) }
            assertTrue(op.poll(0) is Decision.StartAttempt, "nothing changed")
        }
        raises<RetryplanException.InvalidArgument>("invalid_argument") { policy.backoffCeilingsMs(-1) }
        raises<RetryplanException.InvalidArgument>("invalid_argument") { policy.explain(-1, 0) }
        raises<RetryplanException.InvalidArgument>("invalid_argument") { encodeGrpcTimeout(-1) }
    }

    @Test
    fun `a typed configuration is read by the core's reader, with the codes and paths JSON gets`() {
        fun same(config: PolicyConfig, json: String, field: String) {
            val typed = raises<RetryplanException.InvalidConfig>("invalid_config") { Policy(config) }
            val text = raises<RetryplanException.InvalidConfig>("invalid_config") { Policy.fromJson(json) }
            assertEquals(field, typed.field)
            assertEquals(field, text.field)
            assertEquals(text.description, typed.description)
        }
        val defaults = defaultPolicyConfig()
        same(
            defaults.copy(attemptTimeout = AttemptTimeoutConfig.FixedMs(-3)),
            """{"attempt_timeout": {"fixed_ms": -3}}""",
            "attempt_timeout.fixed_ms",
        )
        same(
            defaults.copy(retryOn = defaults.retryOn.copy(httpStatuses = listOf(503, 70_000))),
            """{"retry_on": {"http_statuses": [503, 70000]}}""",
            "retry_on.http_statuses[1]",
        )
        same(defaults.copy(backoff = defaults.backoff.copy(baseMs = -5)), """{"backoff": {"base_ms": -5}}""", "backoff.base_ms")
        same(
            defaults.copy(hedging = HedgingConfig(-1, 1)),
            """{"hedging": {"delay_ms": -1, "max_hedged_attempts": 1}}""",
            "hedging.delay_ms",
        )
        // Rules are checked after reading, as for JSON: every violation listed.
        val invalid = raises<RetryplanException.ConfigViolations>("config_violations") { Policy(defaults.copy(maxAttempts = 0)) }
        assertEquals(listOf("max_attempts"), invalid.violations.map { it.field })
    }

    @Test
    fun `typed control configurations get the codes and paths their JSON gets`() {
        val budget = raises<RetryplanException.InvalidConfig>("invalid_config") { RetryBudget(BudgetConfig.TokenBucket(-1, 0.1)) }
        assertEquals(ConfigKind.BUDGET to "max_tokens", budget.config to budget.field)
        assertTrue(budget.description.startsWith("invalid budget configuration at `max_tokens`: "), budget.description)
        // The path is from the configuration `config` names: the same budget in a dependency is at `budget.max_tokens`.
        val inDependency = raises<RetryplanException.InvalidConfig>("invalid_config") {
            Dependency(DependencyConfig(budget = BudgetConfig.TokenBucket(-1, 0.1)))
        }
        assertEquals(ConfigKind.DEPENDENCY to "budget.max_tokens", inDependency.config to inDependency.field)
        val breaker = raises<RetryplanException.InvalidConfig>("invalid_config") {
            CircuitBreaker(BreakerConfig(TripConfig.Consecutive(5), -5, 1))
        }
        assertEquals(ConfigKind.BREAKER to "open_ms", breaker.config to breaker.field)
        val typed = raises<RetryplanException.InvalidConfig>("invalid_config") {
            Dependency(DependencyConfig(retrySlots = -1))
        }
        val text = raises<RetryplanException.InvalidConfig>("invalid_config") {
            Dependency.fromJson("""{"retry_slots": -1}""")
        }
        assertEquals(listOf("retry_slots", "retry_slots"), listOf(typed.field, text.field))
        assertEquals(listOf(ConfigKind.DEPENDENCY, ConfigKind.DEPENDENCY), listOf(typed.config, text.config))
        val service = raises<RetryplanException.InvalidConfig>("invalid_config") { ServiceConfig.fromJson("{", null) }
        assertEquals(ConfigKind.SERVICE_CONFIG to "", service.config to service.field)
        // An error of the whole text (not JSON) names no field, nor an empty one.
        assertTrue(service.description.startsWith("invalid gRPC service configuration: "), service.description)
        assertEquals(Blame.CONFIGURATION, service.blame)
    }

    @Test
    fun `a non-finite number is a reading error at its field, as in JS, not a crash`() {
        for (value in listOf(Double.NaN, Double.POSITIVE_INFINITY)) {
            val error = raises<RetryplanException.InvalidConfig>("invalid_config") {
                Policy(defaultPolicyConfig().copy(attemptTimeout = AttemptTimeoutConfig.FractionOfRemaining(value)))
            }
            assertEquals("attempt_timeout.fraction_of_remaining", error.field)
        }
    }

    @Test
    fun `misuse of an operation is typed and changes nothing`() {
        Operation(policy, 0, OperationOptions(seed = 1)).use { op ->
            val error = raises<RetryplanException.AttemptNotRunning>("attempt_not_running") { op.onOutcome(0, 1, Outcome.Success) }
            assertEquals(1, error.attempt)
            assertEquals(emptyList<Int>(), error.running)
            assertEquals(Blame.CALLER, error.blame)
            op.poll(0)
            val other = raises<RetryplanException.AttemptNotRunning>("attempt_not_running") { op.onOutcome(0, 2, Outcome.Success) }
            assertEquals(2, other.attempt)
            // The same type as the operation's own list of attempt numbers.
            assertEquals(op.runningAttempts(), other.running)
            assertEquals(listOf(1), other.running)
            raises<RetryplanException.InvalidArgument>("invalid_argument") { op.onOutcome(0, 1, Outcome.HttpStatus(42)) }
            raises<RetryplanException.InvalidArgument>("invalid_argument") { op.onOutcome(0, 1, Outcome.HttpStatus(-503)) }
            raises<RetryplanException.InvalidArgument>("invalid_argument") { op.onOutcome(0, 1, Outcome.HttpStatus(503, -1)) }
            assertEquals(Decision.Succeeded(1, 1, emptyList()), op.onOutcome(10, 1, Outcome.Success))
            raises<RetryplanException.OperationEnded>("operation_ended") { op.poll(20) }
            raises<RetryplanException.OperationEnded>("operation_ended") { op.cancel(20) }
            assertEquals(null, op.nextWakeupMs())
        }
    }

    @Test
    fun `bad keys, headers and decisions`() {
        raises<RetryplanException.InvalidArgument>("invalid_argument") {
            Operation(policy, 0, OperationOptions(seed = 1, idempotencyKey = "has space"))
        }
        raises<RetryplanException.InvalidArgument>("invalid_argument") { Operation(policy, 0, OperationOptions(idempotencyKey = "")) }
        val header = raises<RetryplanException.InvalidHeader>("invalid_header") { parseRetryAfter("soon", 0) }
        assertEquals("retry-after", header.header)
        raises<RetryplanException.InvalidHeader>("invalid_header") { parseGrpcTimeout("12x") }
        Stats().use { stats ->
            raises<RetryplanException.InvalidArgument>("invalid_argument") {
                stats.record(Decision.StartAttempt(1, 10, 10, "not-hex", 10, false))
            }
            raises<RetryplanException.InvalidArgument>("invalid_argument") { stats.record(Decision.Succeeded(-1, 1, emptyList())) }
            raises<RetryplanException.InvalidArgument>("invalid_argument") { stats.record(Decision.Succeeded(1, 1, listOf(0))) }
            assertEquals(0L, stats.snapshot().attempts)
        }
    }

    @Test
    fun `no seed draws one and a UUID key from the operating system`() {
        Operation(policy, 0, OperationOptions()).use { a ->
            Operation(policy, 0, OperationOptions()).use { b ->
                assertTrue(a.idempotencyKey().matches(Regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
                assertTrue(a.idempotencyKey() != b.idempotencyKey())
            }
        }
        // A negative Long seed is the same 64 bits as the unsigned seed.
        Operation(policy, 0, OperationOptions(seed = -1)).use { op -> assertEquals(16, op.requestId(1).length) }
    }

    @Test
    fun `bad controls are typed errors`() {
        val budget = raises<RetryplanException.ConfigViolations>("config_violations") { RetryBudget(BudgetConfig.TokenBucket(0, 0.1)) }
        assertEquals(ConfigKind.BUDGET to listOf("max_tokens"), budget.config to budget.violations.map { it.field })
        assertTrue(budget.toString().startsWith("invalid budget configuration: max_tokens (0) must be"), budget.toString())
        val dependency = raises<RetryplanException.ConfigViolations>("config_violations") {
            Dependency.fromJson("""{"budget": {"kind": "token_bucket", "max_tokens": 0, "token_ratio": 0.1}}""")
        }
        assertEquals(ConfigKind.DEPENDENCY to listOf("budget.max_tokens"), dependency.config to dependency.violations.map { it.field })
        // Not a number is a reading error at the field (as in JS), a ratio out of range a violation.
        val nan = raises<RetryplanException.InvalidConfig>("invalid_config") {
            CircuitBreaker(BreakerConfig(TripConfig.Ratio(Double.NaN, 10, 1000), 1000, 1))
        }
        assertEquals(ConfigKind.BREAKER to "trip.failure_ratio", nan.config to nan.field)
        val ratio = raises<RetryplanException.ConfigViolations>("config_violations") {
            CircuitBreaker(BreakerConfig(TripConfig.Ratio(1.5, 10, 1000), 1000, 1))
        }
        assertEquals(ConfigKind.BREAKER to listOf("trip.failure_ratio"), ratio.config to ratio.violations.map { it.field })
        raises<RetryplanException.InvalidConfig>("invalid_config") { Dependency.fromJson("""{"budgt": {}}""") }
        CircuitBreaker(BreakerConfig(TripConfig.Consecutive(1), 1000, 1)).use { breaker ->
            val permit = breaker.tryAcquire(0)!!
            raises<RetryplanException.InvalidArgument>("invalid_argument") { breaker.onFailure(-1, permit) }
            breaker.onFailure(0, permit)
            assertEquals(null, breaker.tryAcquire(10), "open after one failure")
        }
        raises<RetryplanException.InvalidArgument>("invalid_argument") { outcomeFromHttp(70_000, null, null, 0) }
        assertEquals(Outcome.HttpStatus(503, 1500), outcomeFromHttp(503, "soon", "1500", 0))
        assertEquals(Outcome.HttpStatus(503, null), outcomeFromHttp(503, "soon", null, 0))
    }

    @Test
    fun `a number beyond a Double in JSON text is refused at its field, where JS's reader names it too`() {
        val policy = raises<RetryplanException.InvalidConfig>("invalid_config") { Policy.fromJson("""{"retry_on": {"http_statuses": [500, 1e400]}}""") }
        assertEquals("retry_on.http_statuses[1]", policy.field)
        val dependency = raises<RetryplanException.InvalidConfig>("invalid_config") {
            Dependency.fromJson("""{"budget": {"kind": "token_bucket", "max_tokens": 1e400, "token_ratio": 0.1}}""")
        }
        assertEquals(ConfigKind.DEPENDENCY to "budget.max_tokens", dependency.config to dependency.field)
        // Text that is no JSON is refused as a whole.
        val syntax = raises<RetryplanException.InvalidConfig>("invalid_config") { Policy.fromJson("""{"retry_on": {"http_statuses": [500,]}}""") }
        assertEquals("", syntax.field)
    }

    @Test
    @Suppress("DEPRECATION")
    fun `the old name is a deprecated alias of InvalidConfig for one release`() {
        val error: InvalidPolicyJson = raises<InvalidPolicyJson>("invalid_config") { Policy.fromJson("{") }
        assertTrue(error is RetryplanException.InvalidConfig)
    }

    @Test
    @Suppress("DEPRECATION")
    fun `the old name is a deprecated alias of ConfigViolations for one release`() {
        val error: InvalidPolicy = raises<InvalidPolicy>("config_violations") { Policy.fromJson("""{"max_attempts": 0}""") }
        assertTrue(error is RetryplanException.ConfigViolations)
        assertEquals(ConfigKind.POLICY to listOf("max_attempts"), error.config to error.violations.map { it.field })
    }

    @Test
    @Suppress("DEPRECATION")
    fun `an error's name is the deprecated old name of field and profile for one release`() {
        val argument = raises<RetryplanException.InvalidArgument>("invalid_argument") { encodeGrpcTimeout(-1) }
        assertEquals(argument.field, argument.name)
        assertTrue(argument.field.isNotEmpty())
        val profile = raises<RetryplanException.UnknownProfile>("unknown_profile") { Policy.profile("nope") }
        assertEquals("nope" to "nope", profile.profile to profile.name)
    }

    @Test
    @Suppress("DEPRECATION")
    fun `repeatabilityForHttp is a deprecated alias of httpRequest's repeatability for one release`() {
        val policy = Policy.fromJson("""{"retry_methods": ["GET", "POST"]}""")
        for ((method, idempotent) in listOf("POST" to null, "PUT" to null, "PATCH" to true, "GET" to false)) {
            val one = policy.httpRequest(method, idempotent).use { it.repeatability() }
            assertEquals(one, policy.repeatabilityForHttp(method, idempotent), "$method $idempotent")
        }
    }
}
