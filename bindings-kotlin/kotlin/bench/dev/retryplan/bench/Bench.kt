package dev.retryplan.bench

import dev.retryplan.Decision
import dev.retryplan.Operation
import dev.retryplan.OperationOptions
import dev.retryplan.Outcome
import dev.retryplan.Policy

/**
 * What one decision call costs through JNA (not a test: run it by hand, see the README).
 * Prints the median of several timed rounds after a warm-up, in ns per call.
 */
fun main(args: Array<String>) {
    val rounds = args.getOrNull(0)?.toInt() ?: 7
    val calls = args.getOrNull(1)?.toInt() ?: 200_000
    Policy.profile("checkout").use { policy ->
        Operation(policy, 0, OperationOptions(seed = 1)).use { waiting ->
            val first = waiting.poll(50) as Decision.StartAttempt
            val wait = waiting.onOutcome(250, first.attempt, Outcome.HttpStatus(503)) as Decision.Wait
            val at = wait.untilMs - 1
            report("poll (a Wait decision)", rounds, calls) { waiting.poll(at) }
            // Where the time goes: a call that returns a plain number, and one that returns a string.
            report("deadlineMs (an i64, no buffer)", rounds, calls) { waiting.deadlineMs() }
            report("idempotencyKey (a string buffer)", rounds, calls) { waiting.idempotencyKey() }
        }
        report("operation: new + poll + onOutcome(success) + close", rounds, calls / 4) {
            Operation(policy, 0, OperationOptions(seed = 1)).use { op ->
                val start = op.poll(0) as Decision.StartAttempt
                op.onOutcome(10, start.attempt, Outcome.Success)
            }
        }
    }
}

private fun report(label: String, rounds: Int, calls: Int, call: () -> Any) {
    var sink = 0
    repeat(calls) { sink += call().hashCode() } // warm-up: JIT and JNA's first calls
    val perCall = (1..rounds).map {
        val start = System.nanoTime()
        repeat(calls) { sink += call().hashCode() }
        (System.nanoTime() - start).toDouble() / calls
    }.sorted()
    println("%-52s median %8.0f ns  (min %.0f, max %.0f; %d rounds x %d calls)%s".format(
        label, perCall[perCall.size / 2], perCall.first(), perCall.last(), rounds, calls, if (sink == 42) " " else "",
    ))
}
