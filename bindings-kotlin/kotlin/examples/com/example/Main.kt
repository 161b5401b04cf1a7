package com.example

import dev.retryplan.Policy
import dev.retryplan.okhttp.RetryInterceptor
import dev.retryplan.retrying
import kotlinx.coroutines.runBlocking
import okhttp3.OkHttpClient

/**
 * The application the README's "Without a build tool" command runs (`com.example.MainKt`; test.sh
 * runs that command as written): the engine through JNA, the suspend `retrying` on
 * kotlinx-coroutines (whose Debian build calls atomicfu) and an OkHttp client with the interceptor,
 * so leaving any jar of that classpath out fails here with a `NoClassDefFoundError`.
 */
fun main() {
    val policy = Policy.profile("read")
    val attempt = runBlocking { retrying(policy) { attempt -> attempt.attempt } }
    val client = OkHttpClient.Builder().addInterceptor(RetryInterceptor(policy)).build()
    println("classpath ok: attempt $attempt succeeded; ${client.javaClass.simpleName} with RetryInterceptor built")
}
