package dev.retryplan.bench

import dev.retryplan.Driver
import dev.retryplan.Policy
import dev.retryplan.retrying
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield

/**
 * Where a process's first `retrying {}` goes ([FirstCall] times it whole):
 * each step that loads something for the first time, timed once, in order.
 * Run in a fresh JVM (bench.sh does not run it):
 * `java -cp <bench.sh's classpath> dev.retryplan.bench.FirstCallPartsKt`.
 */
fun main() {
    val t0 = System.nanoTime()
    var last = t0
    fun step(name: String, block: () -> Unit) {
        block()
        val now = System.nanoTime()
        println("%-60s %7.1f ms".format(name, (now - last) / 1e6))
        last = now
    }
    step("JNA (com.sun.jna.Native loaded)") { Class.forName("com.sun.jna.Native") }
    lateinit var policy: Policy
    step("uniffi: the library registered, Policy.profile") { policy = Policy.profile("read") }
    step("coroutines: runBlocking {} (empty)") { runBlocking { } }
    step("coroutines: launch, SupervisorJob, yield, withTimeoutOrNull") {
        runBlocking {
            val supervisor = SupervisorJob()
            CoroutineScope(coroutineContext + supervisor).launch { yield() }.join()
            withTimeoutOrNull(5) { CompletableDeferred<Unit>().await() }
            supervisor.cancel()
        }
    }
    step("the wire: a first Driver made and closed (JNA direct mapping)") { Driver(policy, 0).close() }
    step("the first retrying { 1 } (what is left: the binding's loop)") { runBlocking { retrying(policy) { 1 } } }
    step("a second retrying { 1 }") { runBlocking { retrying(policy) { 1 } } }
    println("%-60s %7.1f ms".format("total", (System.nanoTime() - t0) / 1e6))
}
