package dev.retryplan.test

import java.io.BufferedReader
import java.io.File
import java.io.InputStreamReader
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse

/**
 * `tests/helpers/server.py`, the one local server (127.0.0.1) every language's
 * helpers run against, as a child process: it stops when its stdin closes.
 */
class ScenarioServer : AutoCloseable {
    val root: File = generateSequence(File("").absoluteFile) { it.parentFile }
        .firstOrNull { File(it, "tests/helpers/server.py").isFile } ?: error("tests/helpers not found above ${File("").absolutePath}")
    private val process: Process = ProcessBuilder("python3", File(root, "tests/helpers/server.py").path)
        .redirectError(ProcessBuilder.Redirect.INHERIT).start()
    val port: Int = (BufferedReader(InputStreamReader(process.inputStream)).readLine() ?: error("server.py printed nothing"))
        .substringAfterLast(':').toInt()
    private val client = HttpClient.newHttpClient()

    /** The scenarios, as JSON objects. */
    @Suppress("UNCHECKED_CAST")
    val scenarios: List<Map<String, Any?>> =
        ((Json.parse(File(root, "tests/helpers/scenarios.json").readText()) as Map<String, Any?>)["scenarios"] as List<*>)
            .map { it as Map<String, Any?> }

    fun url(id: String) = "http://127.0.0.1:$port/s/$id"

    private fun call(method: String, path: String): Any? {
        val request = HttpRequest.newBuilder(URI("http://127.0.0.1:$port$path")).method(method, HttpRequest.BodyPublishers.noBody()).build()
        return Json.parse(client.send(request, HttpResponse.BodyHandlers.ofString()).body())
    }

    /** Forgets every request seen. */
    fun reset() {
        call("POST", "/__reset")
    }

    /** The requests scenario [id] saw: method, path, idempotency_key, request_id, at_ms. */
    @Suppress("UNCHECKED_CAST")
    fun log(id: String): List<Map<String, Any?>> = (call("GET", "/__log/$id") as List<*>).map { it as Map<String, Any?> }

    override fun close() {
        process.outputStream.close()
        process.waitFor()
    }
}
