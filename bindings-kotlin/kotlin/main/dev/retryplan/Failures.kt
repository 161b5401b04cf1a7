package dev.retryplan

import java.io.EOFException
import java.io.IOException
import java.io.InterruptedIOException
import java.net.ConnectException
import java.net.NoRouteToHostException
import java.net.PortUnreachableException
import java.net.ProtocolException
import java.net.SocketException
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import java.nio.channels.UnresolvedAddressException
import javax.net.ssl.SSLException
import javax.net.ssl.SSLHandshakeException
import javax.net.ssl.SSLPeerUnverifiedException

/*
 * The binding's one table from what the JVM, Android, java.net.http and OkHttp
 * throw to the core's failure vocabulary (whose `outcome` says what each
 * means). Classes that are not on every platform (java.net.http is not on
 * Android; OkHttp is the app's choice) are matched by name, so this file
 * links against neither. A `CancellationException` other than a `withTimeout`'s
 * is no failure: the helpers end the operation with it (Host.kt's `isCancellation`).
 */

/**
 * True for a fatal error, one no attempt's outcome can stand for, which every
 * helper throws at once, as it is (never wrapped, never retried): the
 * operation ends (`cancelled`), every other attempt is cancelled and what the
 * loop held is released. The JVM's own trouble, as Arrow's `NonFatal` (behind
 * `nonFatalOrThrow`) and Scala's name it: a `VirtualMachineError`
 * (`OutOfMemoryError`, `StackOverflowError`, `InternalError`), a
 * `ThreadDeath`, a `LinkageError` (`NoClassDefFoundError`,
 * `ExceptionInInitializerError`) and an `InterruptedException` (its thread
 * was asked to stop). Every other `Error` (`AssertionError`,
 * `NotImplementedError` from `TODO()`) is an attempt's error like any
 * exception. The platform's counterpart of Python's rule that an exception
 * which is no `Exception` (`KeyboardInterrupt`, `SystemExit`) passes through;
 * a `CancellationException` is apart (Host.kt's `isCancellation`).
 */
internal fun isFatal(error: Throwable): Boolean = error is VirtualMachineError || error is LinkageError || error is InterruptedException || isThreadDeath(error)

/** A `ThreadDeath`, by name: the class is deprecated for removal (JDK 20), and a check linking to it would fail where it is gone. */
private fun isThreadDeath(error: Throwable): Boolean {
    // java.lang.Class in full: this package has a `Class` of its own (the core's error class).
    var type: java.lang.Class<*> = error.javaClass
    while (true) {
        if (type.name == "java.lang.ThreadDeath") return true
        type = type.superclass ?: return false
    }
}

/** By exact class name: classes this jar does not link against. */
private val BY_NAME = mapOf(
    "java.net.http.HttpConnectTimeoutException" to Failure.CONNECT_TIMEOUT,
    // java.net.http: the response headers did not arrive within the request's timeout.
    "java.net.http.HttpTimeoutException" to Failure.READ_TIMEOUT,
    // OkHttp: the HTTP/2 connection went away (the request may have been sent).
    "okhttp3.internal.http2.ConnectionShutdownException" to Failure.CONNECTION_LOST,
    // kotlinx-coroutines: a withTimeout inside the attempt fired.
    "kotlinx.coroutines.TimeoutCancellationException" to Failure.ATTEMPT_TIMED_OUT,
)

/** A socket timeout while connecting: the JDK's "Connect timed out", or thrown from a connect call. */
private fun duringConnect(error: Throwable): Boolean = error.message?.contains("connect", ignoreCase = true) == true ||
    error.stackTrace.any { it.methodName == "connect" && (it.className.startsWith("java.net.") || it.className.startsWith("sun.nio.ch.")) }

/** OkHttp's HTTP/2 stream reset: REFUSED_STREAM means the server did not process it (RFC 9113 §8.7). */
private fun streamReset(error: Throwable): Failure? {
    if (error.javaClass.name != "okhttp3.internal.http2.StreamResetException") return null
    val code = runCatching { error.javaClass.getField("errorCode").get(error)?.toString() }.getOrNull()
    return if (code == "REFUSED_STREAM") Failure.CONNECTION_REFUSED else Failure.CONNECTION_LOST
}

/**
 * A connect that failed because the name did not resolve: java.net.http throws a `ConnectException` (no message)
 * whose cause is the channel's `UnresolvedAddressException`; its causes are looked through as deep as [failureOf] looks.
 */
private fun unresolved(error: ConnectException): Boolean = generateSequence(error.cause) { cause -> cause.cause.takeIf { it !== cause } }
    .take(WireWords.MAX_CAUSE_DEPTH)
    .any { it is UnresolvedAddressException || it is UnknownHostException }

private fun byClass(error: Throwable): Failure? = BY_NAME[error.javaClass.name] ?: streamReset(error) ?: when (error) {
    is UnknownHostException, is UnresolvedAddressException -> Failure.DNS_LOOKUP_FAILED

    // Before "refused": java.net.http reports a name that did not resolve as a ConnectException caused by it.
    is ConnectException -> when {
        unresolved(error) -> Failure.DNS_LOOKUP_FAILED
        error.message?.contains("timed out", ignoreCase = true) == true -> Failure.CONNECT_TIMEOUT
        else -> Failure.CONNECTION_REFUSED
    }

    is NoRouteToHostException, is PortUnreachableException -> Failure.UNREACHABLE

    is SocketTimeoutException -> if (duringConnect(error)) Failure.CONNECT_TIMEOUT else Failure.READ_TIMEOUT

    // Certificate and handshake failures (a hostname OkHttp refuses included) happen before any request byte.
    is SSLHandshakeException, is SSLPeerUnverifiedException -> Failure.TLS_HANDSHAKE_FAILED

    // Any other TLS error breaks an established connection.
    is SSLException -> Failure.CONNECTION_LOST

    // OkHttp's call timeout ("timeout"); an interrupted blocking read or write otherwise.
    is InterruptedIOException -> if (error.message == "timeout") Failure.ATTEMPT_TIMED_OUT else Failure.CANCELLED

    is InterruptedException -> Failure.CANCELLED

    // A response that could not be read as HTTP (OkHttp: "Unexpected status line").
    is ProtocolException -> Failure.MALFORMED_RESPONSE

    is SocketException -> if (error.message?.contains("Broken pipe", ignoreCase = true) == true) Failure.WRITE_FAILED else Failure.CONNECTION_LOST

    // The server closed the connection before a complete response.
    is EOFException -> Failure.CONNECTION_LOST

    // OkHttp's cancelled call.
    is IOException -> if (error.message == "Canceled") Failure.CANCELLED else null

    else -> null
}

/**
 * The failure [error] stands for in the core's vocabulary, or null when the
 * table does not know it (then a helper asks its `outcomeOfError` hook, and
 * by default the attempt gets the core's verdict for an unknown error, `AMBIGUOUS`). The error and its causes are
 * searched, nearest first, as deep as every binding looks (the core's `MAX_CAUSE_DEPTH` causes below [error]).
 */
fun failureOf(error: Throwable): Failure? {
    var current: Throwable? = error
    var depth = 0
    while (current != null && depth <= WireWords.MAX_CAUSE_DEPTH) {
        byClass(current)?.let { return it }
        current = current.cause.takeIf { it !== current }
        depth += 1
    }
    return null
}
