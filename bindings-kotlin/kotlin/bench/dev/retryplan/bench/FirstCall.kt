package dev.retryplan.bench

import dev.retryplan.Decision
import dev.retryplan.MonotonicClock
import dev.retryplan.Policy
import dev.retryplan.retrying
import kotlinx.coroutines.runBlocking

/**
 * The first `retrying {}` of a process: how much of the operation's total timeout
 * goes before its first attempt starts (from the driver's first clock
 * reading to the first StartAttempt), then the same for a second call, each
 * by the clock and by the main thread's CPU time (which other processes on a
 * loaded machine do not inflate), after the time the `Policy` took (the
 * library loaded). Run in a fresh JVM (bench.sh does not run it):
 * `java -cp <bench.sh's classpath> dev.retryplan.bench.FirstCallKt`.
 */
fun main() {
    val cpu = java.lang.management.ManagementFactory.getThreadMXBean()
    val policyStarted = System.nanoTime()
    val policyCpu = cpu.currentThreadCpuTime
    val policy = Policy.profile("read")
    println("the Policy: ${(System.nanoTime() - policyStarted) / 1_000} us, ${(cpu.currentThreadCpuTime - policyCpu) / 1_000} us of CPU")
    repeat(2) { call ->
        var origin = -1L
        var firstStart = -1L
        val clock = MonotonicClock { MonotonicClock.SYSTEM.nowMs().also { if (origin < 0) origin = it } }
        val started = System.nanoTime()
        val startedCpu = cpu.currentThreadCpuTime
        runBlocking {
            retrying(policy, clock = clock, onDecision = { if (it.decision is Decision.StartAttempt && firstStart < 0) firstStart = it.atMs }) { 1 }
        }
        val wholeUs = (System.nanoTime() - started) / 1_000
        val wholeCpuUs = (cpu.currentThreadCpuTime - startedCpu) / 1_000
        println("call ${call + 1}: ${firstStart - origin} ms of the total timeout gone before the first attempt; the whole call $wholeUs us, $wholeCpuUs us of CPU")
    }
}
