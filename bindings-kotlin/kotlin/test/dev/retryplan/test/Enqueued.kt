package dev.retryplan.test

import okhttp3.Call
import okhttp3.Callback
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import org.junit.jupiter.api.Assertions.assertTrue
import java.io.IOException
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference

/** The exception `enqueue`'s `onFailure` receives; the latch is the test's guard against a callback that never runs. */
internal fun failureOfEnqueued(client: OkHttpClient, request: Request): IOException {
    val failure = AtomicReference<IOException>()
    val called = CountDownLatch(1)
    client.newCall(request).enqueue(
        object : Callback {
            override fun onFailure(call: Call, e: IOException) {
                failure.set(e)
                called.countDown()
            }

            override fun onResponse(call: Call, response: Response) {
                response.close()
                called.countDown()
            }
        },
    )
    assertTrue(called.await(30, TimeUnit.SECONDS), "neither onResponse nor onFailure was called")
    return failure.get() ?: throw AssertionError("onResponse was called, not onFailure")
}
