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
 * each step that loads something for the first time, timed once, in order,
 * by the clock and by the main thread's CPU time (which other processes on a
 * loaded machine do not inflate). The last step is what a first `onDecision`
 * hook adds (its events are uniffi's typed records), which [FirstCall] pays.
 * Run in a fresh JVM (bench.sh does not run it):
 * `java -cp <bench.sh's classpath> dev.retryplan.bench.FirstCallPartsKt`.
 */
fun main() {
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean()
    val t0 = System.nanoTime()
    val cpu0 = cpu.currentThreadCpuTime
    var last = t0
    var lastCpu = cpu0
    fun step(name: String, block: () -> Unit) {
        block()
        val now = System.nanoTime()
        val nowCpu = cpu.currentThreadCpuTime
        println("%-60s %7.1f ms, %5.1f ms of CPU".format(name, (now - last) / 1e6, (nowCpu - lastCpu) / 1e6))
        last = now
        lastCpu = nowCpu
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
    step("a first retrying with onDecision (uniffi's typed events)") { runBlocking { retrying(policy, onDecision = { }) { 1 } } }
    println("%-60s %7.1f ms, %5.1f ms of CPU".format("total", (System.nanoTime() - t0) / 1e6, (cpu.currentThreadCpuTime - cpu0) / 1e6))
}
