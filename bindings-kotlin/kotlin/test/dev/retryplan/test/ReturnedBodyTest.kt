package dev.retryplan.test

import dev.retryplan.Decision
import dev.retryplan.Policy
import dev.retryplan.http.RetryingHttpClient
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.okhttp.retryDecision
import dev.retryplan.okhttp.retrying
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.IOException
import java.io.InputStream
import java.net.InetAddress
import java.net.ServerSocket
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import kotlin.concurrent.thread

/**
 * Who may read a returned body, and for how long (issue 29 item 6): a failed
 * response returned at the end is readable only within its attempt's window
 * (the read then fails, cut), while a success's body is the caller's to read
 * however long it takes. The server sends the head at once and a 12-byte
 * body one byte every 150 ms (1.8 s), past the 1000 ms window; only which
 * bytes arrive is asserted, never a time.
 */
class ReturnedBodyTest {
    private val body = "abcdefghijkl"

    /** One attempt of 1000 ms (room for a process's first request, which loads the library and the client). */
    private fun policy() = Policy.fromJson(
        """{"max_attempts": 1, "total_timeout_ms": 3000, "attempt_timeout": {"fixed_ms": 1000},
            "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10, "jitter": {"kind": "none"}}""",
    )

    /** A server on 127.0.0.1 answering every request with [status] and [body] trickled. */
    private fun <R> dripping(status: Int, use: (URI) -> R): R = ServerSocket(0, 50, InetAddress.getByName("127.0.0.1")).use { listener ->
        thread(isDaemon = true) {
            while (true) {
                val socket = runCatching { listener.accept() }.getOrNull() ?: break
                thread(isDaemon = true) {
                    socket.use {
                        runCatching {
                            val input = it.getInputStream()
                            var tail = 0
                            while (tail != 0x0d0a0d0a) tail = (tail shl 8) or input.read().also { b -> check(b >= 0) }
                            val out = it.getOutputStream()
                            out.write("HTTP/1.1 $status X\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n".toByteArray())
                            out.flush()
                            for (byte in body.toByteArray()) {
                                Thread.sleep(150)
                                out.write(byte.toInt())
                                out.flush()
                            }
                        }
                    }
                }
            }
        }
        use(URI("http://127.0.0.1:${listener.localPort}/"))
    }

    /** What the caller reads: the text, and whether the read failed. */
    private fun readAll(stream: InputStream): Pair<String, Boolean> {
        val read = StringBuilder()
        return try {
            while (true) {
                val b = stream.read()
                if (b < 0) break
                read.append(b.toChar())
            }
            read.toString() to false
        } catch (error: IOException) {
            if (System.getProperty("retryplan.debug") != null) error.printStackTrace()
            read.toString() to true
        }
    }

    private fun okhttp(status: Int): Triple<Decision?, String, Boolean> = dripping(status) { uri ->
        policy().use { policy ->
            val client = OkHttpClient.Builder().retrying(RetryInterceptor(policy)).build()
            try {
                client.newCall(Request.Builder().url(uri.toString()).build()).execute().use { response ->
                    val (text, cut) = readAll(response.body()!!.byteStream())
                    Triple(response.retryDecision, text, cut)
                }
            } finally {
                client.dispatcher().executorService().shutdown()
            }
        }
    }

    private fun httpClient(status: Int): Triple<Decision?, String, Boolean> = dripping(status) { uri ->
        policy().use { policy ->
            val result = RetryingHttpClient(HttpClient.newHttpClient(), policy).send(HttpRequest.newBuilder(uri), HttpResponse.BodyHandlers.ofInputStream())
            result.response.body().use { stream -> readAll(stream).let { (text, cut) -> Triple(result.decision, text, cut) } }
        }
    }

    @Test
    fun `a failed response's body is cut at its attempt's abort time`() {
        for ((helper, seen) in listOf("okhttp" to okhttp(503), "httpclient" to httpClient(503))) {
            val (decision, text, cut) = seen
            assertTrue(decision is Decision.GaveUp, "$helper: $decision")
            assertTrue(cut && text.length < body.length, "$helper: read ${text.length} of ${body.length} bytes, cut: $cut")
        }
    }

    @Test
    fun `a success's body is the caller's, read whole past the window`() {
        for ((helper, seen) in listOf("okhttp" to okhttp(200), "httpclient" to httpClient(200))) {
            val (decision, text, cut) = seen
            assertTrue(decision is Decision.Succeeded, "$helper: $decision")
            assertEquals(body to false, text to cut, "$helper: the body")
        }
    }
}
