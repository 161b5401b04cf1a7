// The Kotlin examples of bindings-kotlin/README.md, compiled with the test
// classes by build.sh (so CI fails when the README's code stops compiling).
// Keep each block identical to the README's.
package dev.retryplan.examples

import dev.retryplan.Dependency
import dev.retryplan.GaveUpException
import dev.retryplan.Outcome
import dev.retryplan.Policy
import dev.retryplan.ReconcileRequiredException
import dev.retryplan.Stats
import dev.retryplan.Verdict
import dev.retryplan.okhttp.Idempotent
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import dev.retryplan.retrying
import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody

/** Stand-ins for an app's own code. */
interface ProfileApi {
    suspend fun profile(userId: String, requestId: String): String
}

class Busy : Exception()

fun log(message: Any?) = println(message)

// README: coroutines
val readPolicy = Policy.profile("read") // immutable: share one

suspend fun loadProfile(api: ProfileApi, userId: String): String =
    retrying(readPolicy, outcomeOfError = { if (it is Busy) Outcome.Application(Verdict.RETRYABLE) else null }) { attempt ->
        // A suspend call; an IOException it throws is read by the failure table
        // (refused, DNS, timeouts, resets), anything else by outcomeOfError.
        api.profile(userId, requestId = attempt.requestId)
    }
// README: end

// README: okhttp
val payments = Dependency.fromJson("""{"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}}""")
val stats = Stats()
val client: OkHttpClient = OkHttpClient.Builder()
    .retrying(RetryInterceptor(Policy.profile("checkout"), payments, stats, onDecision = { event -> log(event.decision) }))
    .build()

fun pay(order: String): String? {
    val request = Request.Builder().url("https://payments.example/charges")
        .post(RequestBody.create(MediaType.parse("application/json"), order))
        .build()
    return try {
        client.newCall(request).execute().use { response ->
            log(response.retryDecision) // Succeeded, or GaveUp with the last response (a 503, a 404, ...)
            if (response.isSuccessful) response.body()?.string() else null
        }
    } catch (reconcile: ReconcileRequiredException) {
        log("the charge may have happened: look it up by ${reconcile.idempotencyKey}")
        null
    } catch (gaveUp: GaveUpException) {
        log("no response: ${gaveUp.reason}, caused by ${gaveUp.cause}")
        null
    }
}

/** A POST the server deduplicates by other means may be repeated: say so per request. */
fun idempotentPost(url: String, body: RequestBody): Request =
    Request.Builder().url(url).post(body).tag(Idempotent::class.java, Idempotent(true)).build()
// README: end

// README: blocking
fun nightlyExport(policy: Policy): Int = dev.retryplan.blocking.retrying(policy) { attempt ->
    // Runs on a thread of its own: interrupted when the attempt is aborted.
    attempt.number
}
// README: end
