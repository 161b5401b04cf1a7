package dev.retryplan.test

import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import java.net.InetSocketAddress
import java.net.URI
import java.util.Collections
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * A real HTTP server on 127.0.0.1 (an ephemeral port) that answers each
 * request with the next scripted reply and records what it received.
 */
class LocalServer(private val script: (attempt: Int) -> Reply) : AutoCloseable {
    sealed interface Reply {
        data class Status(val status: Int, val headers: Map<String, String> = emptyMap(), val body: String = "") : Reply

        /** Hold the request this long (bounded), then answer 200. */
        data class Stall(val ms: Long) : Reply
    }

    /** A request as received: the two headers the helpers set, when, and every header by its lower-case name. */
    data class Seen(val idempotencyKey: String?, val requestId: String?, val atNanos: Long, val headers: Map<String, List<String>> = emptyMap())

    private val count = AtomicInteger()
    private val pool: ExecutorService = Executors.newCachedThreadPool { r -> Thread(r).apply { isDaemon = true } }
    val seen: MutableList<Seen> = Collections.synchronizedList(mutableListOf())
    private val server: HttpServer = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0).apply {
        createContext("/") { exchange -> handle(exchange) }
        executor = pool
        start()
    }

    val uri: URI get() = URI("http://127.0.0.1:${server.address.port}/checkout")

    private fun handle(exchange: HttpExchange) {
        exchange.use {
            val headers = exchange.requestHeaders
            seen.add(Seen(headers.getFirst("Idempotency-Key"), headers.getFirst("X-Request-Id"), System.nanoTime(), headers.entries.associate { (name, values) -> name.lowercase() to values.toList() }))
            exchange.requestBody.readAllBytes()
            when (val reply = script(count.incrementAndGet())) {
                is Reply.Status -> {
                    reply.headers.forEach { (k, v) -> exchange.responseHeaders.add(k, v) }
                    val body = reply.body.toByteArray()
                    exchange.sendResponseHeaders(reply.status, if (body.isEmpty()) -1 else body.size.toLong())
                    if (body.isNotEmpty()) exchange.responseBody.write(body)
                }

                is Reply.Stall -> {
                    try {
                        Thread.sleep(reply.ms)
                        exchange.sendResponseHeaders(200, -1)
                    } catch (_: Exception) {
                        // The client gave up on this request; nothing more to send.
                    }
                }
            }
        }
    }

    override fun close() {
        server.stop(0)
        pool.shutdownNow()
    }
}
