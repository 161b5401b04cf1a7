package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.examples.Busy
import dev.retryplan.examples.ProfileApi
import dev.retryplan.examples.loadProfile
import dev.retryplan.examples.nightlyExport
import dev.retryplan.examples.placeOrder
import dev.retryplan.examples.postOrder
import kotlinx.coroutines.runBlocking
import java.net.URI
import java.net.http.HttpRequest
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * Runs the README's Kotlin examples (kotlin/examples/, the README's code as
 * check-examples.py proves) that need no host of their own: the engine loop,
 * suspend and blocking `retrying`, and `RetryingHttpClient` against
 * tests/helpers/server.py. The OkHttp example (`pay`) names its host in the
 * code, so it is compiled, not run; the interceptor runs every helper scenario
 * in HelperScenariosTest.
 */
class ReadmeExamplesTest {
    @Test
    fun `the engine loop retries a 503 and ends with the success`() {
        val seen = mutableListOf<Triple<Long, String, String>>()
        val ending = placeOrder { timeoutMs, idempotencyKey, requestId ->
            seen += Triple(timeoutMs, idempotencyKey, requestId)
            if (seen.size == 1) Outcome.HttpStatus(503, null) else Outcome.Success
        }
        assertTrue(ending is Decision.Succeeded, "$ending")
        assertEquals(2, seen.size)
        assertEquals(listOf("order-5001", "order-5001"), seen.map { it.second })
        assertTrue(seen[0].third != seen[1].third, "a fresh request id per attempt: $seen")
        assertTrue(seen.all { it.first in 1..200 }, "the checkout profile's 200 ms attempts: $seen")
    }

    @Test
    fun `the coroutines example retries what outcomeOfError calls retryable`() = runBlocking {
        var calls = 0
        val api = object : ProfileApi {
            override suspend fun profile(userId: String, requestId: String): String {
                calls++
                if (calls == 1) throw Busy()
                return "profile $userId"
            }
        }
        assertEquals("profile 7", loadProfile(api, "7"))
        assertEquals(2, calls)
    }

    @Test
    fun `the blocking example returns the first attempt's number`() {
        assertEquals(1, nightlyExport(Policy.profile("read")))
    }

    @Test
    fun `the HttpClient example posts an order and retries the 503 first`() {
        ScenarioServer("tests/helpers/readme-hosts.json").use { server ->
            server.reset()
            val id = "shop.example/orders"
            val result = postOrder(URI(server.url(id)), HttpRequest.BodyPublishers.ofString("""{"cart": 41}"""))
            result.response.body().close()
            assertEquals(201, result.response.statusCode())
            assertTrue(result.decision is Decision.Succeeded, "${result.decision}")
            val seen = server.log(id)
            assertEquals(2, seen.size, "$seen")
            assertEquals(setOf(result.idempotencyKey), seen.map { it["idempotency_key"] }.toSet())
        }
    }
}
