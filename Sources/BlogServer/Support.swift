import BlogCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A joinable POSIX thread running a Swift closure.
final class NativeThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    // pthread_t is an integer on Linux and a pointer on Darwin (where pthread_create takes an optional).
    #if canImport(Darwin)
    private var thread: pthread_t?
    #else
    private var thread = pthread_t()
    #endif
    private var joined = false

    init(_ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        // Rebuilds run on these threads: the stack Linux gives a main thread, not Darwin's 512 KB.
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20)
        let rc = pthread_create(&thread, &attributes, { arg in
            let opaque: UnsafeMutableRawPointer? = arg
            let box = Unmanaged<Box>.fromOpaque(opaque!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    func join() {
        guard !joined else { return }
        joined = true
        #if canImport(Darwin)
        if let thread { pthread_join(thread, nil) }
        #else
        pthread_join(thread, nil)
        #endif
    }
}

/// A pipe that wakes a `poll` loop: `signal()` from any thread, `fd` goes readable.
final class WakePipe {
    let readFD: Int32
    let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        let rc = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        precondition(rc == 0, "pipe failed")
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }

    /// Sleeps up to `seconds`; returns true when signalled (and leaves the signal set).
    func wait(seconds: Double) -> Bool {
        var pfd = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        let ms = Int32(max(0, min(seconds * 1000, Double(Int32.max))))
        return poll(&pfd, 1, ms) > 0
    }
}

/// Monotonic seconds.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The server's JSON, through BlogCore's writer (it escapes quotes, controls and `< > &`).
enum JSON {
    /// A JSON array of strings.
    static func array(_ items: [String]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for item in items { writer.string(item) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A JSON object whose members `members` writes.
    static func object(_ members: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        members(&writer)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}


/// A strong entity tag for the given bytes: `"<hash>-<length>"`.
func strongETag(_ bytes: UnsafeRawBufferPointer) -> String {
    let hex = String(fnv1a64(bytes), radix: 16)
    return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "-" + String(bytes.count, radix: 16) + "\""
}

/// `true` when an `If-None-Match` header value matches `etag` (weak comparison, as RFC 9110 asks).
func ifNoneMatchMatches(_ header: String, etag: String) -> Bool {
    let ours = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
    for part in header.split(separator: ",") {
        var tag = part.trimmingCharacters(in: " \t")
        if tag == "*" { return true }
        if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
        if tag == ours { return true }
    }
    return false
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

/// The `Content-Type` for a site path, by extension.
public func contentType(forPath path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
    switch name[name.index(after: dot)...].lowercased() {
    case "html", "htm": return "text/html; charset=utf-8"
    case "css": return "text/css; charset=utf-8"
    case "js", "mjs": return "text/javascript; charset=utf-8"
    case "json", "map": return "application/json; charset=utf-8"
    case "webmanifest": return "application/manifest+json; charset=utf-8"
    case "xml": return "application/xml; charset=utf-8"
    case "txt": return "text/plain; charset=utf-8"
    case "svg": return "image/svg+xml"
    case "png": return "image/png"
    case "jpg", "jpeg": return "image/jpeg"
    case "webp": return "image/webp"
    case "gif": return "image/gif"
    case "avif": return "image/avif"
    case "ico": return "image/x-icon"
    case "woff2": return "font/woff2"
    case "woff": return "font/woff"
    case "ttf": return "font/ttf"
    case "pdf": return "application/pdf"
    case "wasm": return "application/wasm"
    default: return "application/octet-stream"
    }
}
