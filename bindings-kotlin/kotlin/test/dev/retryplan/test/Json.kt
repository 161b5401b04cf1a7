package dev.retryplan.test

import java.math.BigDecimal
import java.math.BigInteger

/**
 * A small JSON reader and writer for the test runner (the JVM has none built in).
 * Values: null, Boolean, String, Long (integers that fit), BigInteger (larger
 * integers), Double (any number with a fraction or exponent), List<Any?> and
 * Map<String, Any?>. Integers and decimals stay distinct, as in serde_json,
 * so `2` and `2.0` compare unequal exactly as the Rust runner compares them.
 */
object Json {
    fun parse(text: String): Any? {
        val reader = Reader(text)
        val value = reader.value()
        reader.skipSpace()
        require(reader.at == text.length) { "trailing text at ${reader.at}" }
        return value
    }

    /** Compact JSON; doubles are written exactly (their full decimal expansion). */
    fun write(value: Any?): String = StringBuilder().also { write(value, it) }.toString()

    private fun write(value: Any?, out: StringBuilder) {
        when (value) {
            null -> out.append("null")

            is Boolean, is Long, is Int, is BigInteger -> out.append(value.toString())

            is Double -> {
                require(value.isFinite()) { "JSON has no $value" }
                out.append(BigDecimal(value).toPlainString().let { if ('.' in it) it else "$it.0" })
            }

            is String -> {
                out.append('"')
                for (c in value) {
                    when {
                        c == '"' -> out.append("\\\"")
                        c == '\\' -> out.append("\\\\")
                        c < ' ' -> out.append(String.format("\\u%04x", c.code))
                        else -> out.append(c)
                    }
                }
                out.append('"')
            }

            is List<*> -> {
                out.append('[')
                value.forEachIndexed { i, item ->
                    if (i > 0) out.append(',')
                    write(item, out)
                }
                out.append(']')
            }

            is Map<*, *> -> {
                out.append('{')
                var first = true
                for ((key, item) in value) {
                    if (!first) out.append(',')
                    first = false
                    write(key as String, out)
                    out.append(':')
                    write(item, out)
                }
                out.append('}')
            }

            else -> throw IllegalArgumentException("not a JSON value: ${value::class}")
        }
    }

    private class Reader(val text: String) {
        var at = 0

        fun skipSpace() {
            while (at < text.length && text[at] in " \t\r\n") at++
        }

        fun fail(what: String): Nothing = throw IllegalArgumentException("JSON: $what at offset $at")

        fun expect(word: String) {
            if (!text.startsWith(word, at)) fail("expected $word")
            at += word.length
        }

        fun value(): Any? {
            skipSpace()
            if (at >= text.length) fail("unexpected end")
            return when (text[at]) {
                '{' -> obj()

                '[' -> array()

                '"' -> string()

                't' -> {
                    expect("true")
                    true
                }

                'f' -> {
                    expect("false")
                    false
                }

                'n' -> {
                    expect("null")
                    null
                }

                else -> number()
            }
        }

        fun obj(): Map<String, Any?> {
            val map = LinkedHashMap<String, Any?>()
            at++
            skipSpace()
            if (text.getOrNull(at) == '}') {
                at++
                return map
            }
            while (true) {
                skipSpace()
                val key = string()
                skipSpace()
                expect(":")
                if (map.containsKey(key)) fail("duplicate key $key")
                map[key] = value()
                skipSpace()
                when (text.getOrNull(at)) {
                    ',' -> at++

                    '}' -> {
                        at++
                        return map
                    }

                    else -> fail("expected , or }")
                }
            }
        }

        fun array(): List<Any?> {
            val list = ArrayList<Any?>()
            at++
            skipSpace()
            if (text.getOrNull(at) == ']') {
                at++
                return list
            }
            while (true) {
                list.add(value())
                skipSpace()
                when (text.getOrNull(at)) {
                    ',' -> at++

                    ']' -> {
                        at++
                        return list
                    }

                    else -> fail("expected , or ]")
                }
            }
        }

        fun string(): String {
            if (text.getOrNull(at) != '"') fail("expected a string")
            at++
            val out = StringBuilder()
            while (true) {
                if (at >= text.length) fail("unterminated string")
                val c = text[at++]
                when {
                    c == '"' -> return out.toString()

                    c == '\\' -> {
                        val e = text.getOrNull(at++) ?: fail("bad escape")
                        when (e) {
                            '"', '\\', '/' -> out.append(e)

                            'b' -> out.append('\b')

                            'f' -> out.append('\u000c')

                            'n' -> out.append('\n')

                            'r' -> out.append('\r')

                            't' -> out.append('\t')

                            'u' -> {
                                if (at + 4 > text.length) fail("bad \\u escape")
                                out.append(text.substring(at, at + 4).toInt(16).toChar())
                                at += 4
                            }

                            else -> fail("bad escape \\$e")
                        }
                    }

                    c < ' ' -> fail("control character in string")

                    else -> out.append(c)
                }
            }
        }

        fun number(): Any {
            val start = at
            if (text.getOrNull(at) == '-') at++
            while (at < text.length && (text[at].isDigit() || text[at] in ".eE+-")) at++
            val literal = text.substring(start, at)
            if (!Regex("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?").matches(literal)) fail("bad number $literal")
            if (literal.any { it in ".eE" }) return literal.toDouble()
            return literal.toLongOrNull() ?: BigInteger(literal)
        }
    }
}
