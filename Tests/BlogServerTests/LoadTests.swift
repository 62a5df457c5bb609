import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BlogServer
// The load generator is a benchmark tool, so it lives in blog-bench.
@testable import blog_bench

final class LoadTests: XCTestCase {
    func startServer(_ options: ServerOptions) throws -> PreviewServer {
        let store = SiteStore()
        var files: [String: [UInt8]] = ["index.html": bytes("<html><body>" + String(repeating: "x", count: 2000) + "</body></html>")]
        files["assets/app.css"] = bytes("body{}")
        store.publish(SiteSnapshot(files: files))
        let server = try PreviewServer(options: options, store: store)
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }

    /// Opens `count` nonblocking connections at once, sends one request on each and collects the
    /// status codes; gives up after `timeout` seconds.
    func concurrentRequests(port: Int, count: Int, timeout: Double) -> [Int] {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var fds: [Int32] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { break }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fds.append(fd)
        }
        defer { fds.forEach { close($0) } }
        let request = bytes("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        var sent = [Bool](repeating: false, count: fds.count)
        var done = [Bool](repeating: false, count: fds.count)
        var received = [[UInt8]](repeating: [], count: fds.count)
        var buffer = [UInt8](repeating: 0, count: 16384)
        let deadline = monotonic() + timeout
        while done.contains(false) && monotonic() < deadline {
            var pollSet = [pollfd]()
            var owners = [Int]()
            for index in fds.indices where !done[index] {
                pollSet.append(pollfd(fd: fds[index], events: Int16(sent[index] ? POLLIN : POLLOUT), revents: 0))
                owners.append(index)
            }
            guard poll(&pollSet, nfds_t(pollSet.count), 100) > 0 else { continue }
            for (slot, entry) in pollSet.enumerated() where entry.revents != 0 {
                let index = owners[slot]
                if !sent[index] {
                    let written = request.withUnsafeBytes { send(fds[index], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if written == request.count { sent[index] = true } else { done[index] = true }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { recv(fds[index], $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    received[index].append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EAGAIN {
                    done[index] = true
                }
            }
        }
        return received.map { parseResponse($0)?.status ?? 0 }
    }

    func testThousandConcurrentConnectionsAreAllAnswered() throws {
        let server = try startServer(ServerOptions(port: 0, connectionLimit: 1500, perIPLimit: 1500))
        let started = monotonic()
        let statuses = concurrentRequests(port: server.port, count: 1000, timeout: 30)
        let elapsed = monotonic() - started
        XCTAssertEqual(statuses.count, 1000)
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, 1000, "statuses: \(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        print("1000 concurrent connections answered in \(Int(elapsed * 1000)) ms")
        XCTAssertEqual(httpRequest(port: server.port, "/")?.status, 200, "still alive")
    }

    func testSilentClientsDoNotBlockOthers() throws {
        let server = try startServer(ServerOptions(port: 0, connectionTimeout: 1))
        let silent = (0..<5).map { _ in connectLoopback(port: server.port, timeout: 4) }
        defer { silent.forEach { close($0) } }
        let partial = connectLoopback(port: server.port, timeout: 4)
        defer { close(partial) }
        XCTAssertTrue(sendAll(partial, bytes("GET / HTTP/1.1\r\nHo")))
        let started = monotonic()
        XCTAssertEqual(httpRequest(port: server.port, "/assets/app.css")?.status, 200)
        XCTAssertLessThan(monotonic() - started, 1.0)
        // libmicrohttpd's connection timeout closes the idle ones (recv sees EOF, not our 4 s timeout).
        let waitStarted = monotonic()
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(silent[0], &buffer, buffer.count, 0)
        XCTAssertEqual(count, 0)
        XCTAssertLessThan(monotonic() - waitStarted, 3.5)
    }

    func testPerIPLimitRefusesExtraConnections() throws {
        let server = try startServer(ServerOptions(port: 0, perIPLimit: 2))
        var idle = [connectLoopback(port: server.port), connectLoopback(port: server.port)]
        usleep(200_000) // let the server accept both
        let refused = httpRequest(port: server.port, "/")
        XCTAssertNil(refused, "a third connection from the same address is closed without an answer")
        idle.forEach { close($0) }
        idle.removeAll()
        XCTAssertTrue(waitUntil(3) { httpRequest(port: server.port, "/")?.status == 200 })
    }

    func testRequestsPerSecond() throws {
        let server = try startServer(ServerOptions(port: 0))
        let result = HTTPBenchmark.run(port: server.port, path: "/", connections: 4, duration: 1.0)
        print("BlogServer benchmark: \(result)")
        XCTAssertGreaterThan(result.requests, 100)
        XCTAssertEqual(result.failures, 0)
    }
}
