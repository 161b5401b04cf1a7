package dev.retryplan

import java.io.File
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/**
 * What JNA loads, for uniffi's functions (build.sh points uniffi's
 * `findLibraryName` here) and the wire's alike: one string, so JNA opens the
 * library once. The override property, as uniffi reads it; else, on Linux
 * when the jar carries the library (JNA's resource path), a copy in the
 * user's cache (`$XDG_CACHE_HOME` or `~/.cache`, then `retryplan/native/`), named by the
 * jar entry's CRC and size, written once (to a temporary file, then renamed)
 * and loaded by its path by every later process: JNA alone searches the
 * system's directories and extracts it again on every start (about 30 ms of
 * CPU, half of loading the library); else the name, for JNA's own search
 * (Android loads it from the APK).
 */
internal val LIBRARY: String by lazy { libraryPath("retryplan_uniffi") }

private fun libraryPath(name: String): String {
    System.getProperty("uniffi.component.$name.libraryOverride")?.let { return it }
    if (!com.sun.jna.Platform.isLinux()) return name
    val file = System.mapLibraryName(name)
    val url = Wire::class.java.classLoader?.getResource("${com.sun.jna.Platform.RESOURCE_PREFIX}/$file") ?: return name
    return runCatching {
        val entry = (url.openConnection() as java.net.JarURLConnection).jarEntry
        val dir = File(System.getenv("XDG_CACHE_HOME") ?: File(System.getProperty("user.home"), ".cache").path, "retryplan/native")
        cachedCopy(dir, file, entry.crc, entry.size) { url.openStream() }.absolutePath
    }.getOrDefault(name)
}

/**
 * The copy of the library [file] (CRC [crc], [size] bytes) in [dir], written
 * from [open] if it is missing or short. Writing one removes the copies an
 * earlier version left (other names ending in `-[file]`), so upgrades do not
 * pile up 2 MB each; a process still running an earlier version keeps its
 * mapping (Linux unlinks, it does not unmap).
 */
internal fun cachedCopy(
    dir: File,
    file: String,
    crc: Long,
    size: Long,
    open: () -> java.io.InputStream,
): File {
    check(crc >= 0 && size > 0)
    val cached = File(dir, "${java.lang.Long.toHexString(crc)}-$size-$file")
    if (cached.length() == size) return cached
    dir.mkdirs()
    val part = File.createTempFile("$file.", ".part", dir)
    try {
        open().use { Files.copy(it, part.toPath(), StandardCopyOption.REPLACE_EXISTING) }
        Files.move(part.toPath(), cached.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING)
    } finally {
        part.delete()
    }
    dir.listFiles { other -> other.name.endsWith("-$file") && other.name != cached.name }?.forEach { it.delete() }
    return cached
}
