import Synchronization
import BlogCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Result of `HTTPBenchmark.run`.
public struct BenchmarkResult: Sendable, CustomStringConvertible {
    public var requests: Int
    public var failures: Int
    public var seconds: Double
    public var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }

    public var description: String {
        let rps = Int(requestsPerSecond.rounded())
        return "\(requests) requests in \(String(Int(seconds * 1000))) ms: \(rps) requests/s (\(failures) failures)"
    }
}

/// A small closed-loop load generator over keep-alive HTTP/1.1 connections (raw sockets, IPv4),
/// for measuring the preview server's requests per second; a tool, so it lives beside the
/// benchmarks rather than in the server it measures.
public enum HTTPBenchmark {
    public static func run(host: String = "127.0.0.1", port: Int, path: String = "/",
                           connections: Int = 4, duration: Double = 1.0) -> BenchmarkResult {
        let tally = Tally()
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n\r\n".utf8)
        let started = monotonicSeconds()
        let deadline = started + duration
        let finished = DispatchGroup()
        // One thread per connection (not `concurrentPerform`, which would run no more than the cores).
        for _ in 0..<max(1, connections) {
            finished.enter()
            Thread {
                var done = 0
                var errors = 0
                var fd: Int32 = -1
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while monotonicSeconds() < deadline {
                    if fd < 0 { fd = connectTCP(host: host, port: port) }
                    if fd < 0 { errors += 1; continue }
                    if exchange(fd: fd, request: request, buffer: &buffer) {
                        done += 1
                    } else {
                        errors += 1
                        close(fd)
                        fd = -1
                    }
                }
                if fd >= 0 { close(fd) }
                tally.add(done: done, errors: errors)
                finished.leave()
            }.start()
        }
        finished.wait()
        return BenchmarkResult(requests: tally.requests, failures: tally.failures, seconds: monotonicSeconds() - started)
    }

    /// What the connection threads did, added up as each one ends.
    private final class Tally: @unchecked Sendable {
        private let lock = Mutex(())
        private(set) var requests = 0
        private(set) var failures = 0

        func add(done: Int, errors: Int) {
            lock.withLock { _ in requests += done; failures += errors }
        }
    }

    /// Sends one request and reads one response with a `Content-Length` body.
    private static func exchange(fd: Int32, request: [UInt8], buffer: inout [UInt8]) -> Bool {
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, noSignalFlags) }
        guard sent == request.count else { return false }
        var received: [UInt8] = []
        var headerEnd = -1
        var bodyLength = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received.append(contentsOf: buffer[0..<count])
            if headerEnd < 0, let end = findHeaderEnd(received) {
                headerEnd = end
                let head = String(decoding: received[0..<end], as: UTF8.self).lowercased()
                guard head.hasPrefix("http/1.1 2") || head.hasPrefix("http/1.1 3") else { return false }
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    bodyLength = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if headerEnd >= 0 && received.count >= headerEnd + 4 + bodyLength { return true }
        }
    }

    private static func findHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// `send` flags that keep a closed peer from raising SIGPIPE (a socket option on Darwin).
    private static var noSignalFlags: Int32 {
        #if canImport(Glibc)
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }

    private static func connectTCP(host: String, port: Int) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return -1 }
        var on: Int32 = 1
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { close(fd); return -1 }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 { close(fd); return -1 }
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }
}
