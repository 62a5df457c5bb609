import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import BlogServer

/// What a hostile or careless client does to `blog serve`, over HTTP on 127.0.0.1.
final class ServeHardeningTests: XCTestCase {
    func start(_ options: ServerOptions) throws -> PreviewServer {
        let store = SiteStore()
        store.publish(SiteSnapshot(files: ["index.html": bytes("<body>home</body>")]))
        let server = try PreviewServer(options: options, store: store)
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }

    /// A stream whose browser closed it is gone at once, not at the next keep-alive.
    func testClosedLiveReloadStreamsAreNoticedAtOnce() throws {
        let server = try start(ServerOptions(port: 0, keepAliveInterval: 600))
        var streams: [EventStreamClient] = []
        for _ in 0..<40 {
            let stream = try XCTUnwrap(EventStreamClient(port: server.port))
            XCTAssertEqual(stream.next()?.name, "ok")
            streams.append(stream)
        }
        XCTAssertEqual(server.liveReloadClientCount, 40)
        streams.removeAll() // closes every socket
        XCTAssertTrue(waitUntil(5) { server.liveReloadClientCount == 0 }, "still open: \(server.liveReloadClientCount)")
        // and the server still answers
        XCTAssertEqual(httpRequest(port: server.port, "/")?.status, 200)
    }

    func testLiveReloadStreamsAreCapped() throws {
        let server = try start(ServerOptions(port: 0, keepAliveInterval: 600, liveReloadLimit: 3))
        var streams: [EventStreamClient] = []
        for _ in 0..<3 {
            let stream = try XCTUnwrap(EventStreamClient(port: server.port))
            XCTAssertEqual(stream.next()?.name, "ok")
            streams.append(stream)
        }
        let refused = try XCTUnwrap(EventStreamClient(port: server.port))
        XCTAssertNil(refused.next(timeout: 0.5))
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(server.liveReloadClientCount, 3)
        streams.removeLast()
        XCTAssertTrue(waitUntil(5) { server.liveReloadClientCount == 2 })
        let again = try XCTUnwrap(EventStreamClient(port: server.port))
        XCTAssertEqual(again.next()?.name, "ok")
        withExtendedLifetime(streams) {}
    }

    /// Headers sent a byte at a time are cut off at the header deadline; a quick client is served
    /// meanwhile.
    func testSlowHeadersAreTimedOut() throws {
        let server = try start(ServerOptions(port: 0, keepAliveInterval: 600, headerTimeout: 1))
        var slow: [Int32] = []
        for _ in 0..<20 {
            let fd = connectLoopback(port: server.port)
            XCTAssertGreaterThanOrEqual(fd, 0)
            XCTAssertTrue(sendAll(fd, bytes("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")))
            slow.append(fd)
        }
        defer { slow.forEach { close($0) } }
        XCTAssertEqual(httpRequest(port: server.port, "/")?.status, 200)
        let started = monotonic()
        // keep dripping a header byte every 200 ms: only the deadline ends it
        var closedAt: Double?
        for fd in slow { var timeout = timeval(tv_sec: 0, tv_usec: 200_000); setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) }
        while monotonic() - started < 6, closedAt == nil {
            _ = sendAll(slow[0], bytes("X"))
            var byte: UInt8 = 0
            if recv(slow[0], &byte, 1, 0) == 0 { closedAt = monotonic() }
        }
        let elapsed = try XCTUnwrap(closedAt, "a slow client kept its connection for 6 s") - started
        XCTAssertLessThan(elapsed, 4)
        for (index, fd) in slow.enumerated().dropFirst() {
            var byte: UInt8 = 0
            var result = recv(fd, &byte, 1, 0)
            for _ in 0..<20 where result < 0 { result = recv(fd, &byte, 1, 0) }
            XCTAssertEqual(result, 0, "slow connection \(index) is closed by \(monotonic() - started) s")
        }
    }

    func testANulInTheRequestLineIsABadRequest() throws {
        let server = try start(ServerOptions(port: 0, keepAliveInterval: 600))
        for line in ["GET /\0evil HTTP/1.1", "GET /index.html\0.png HTTP/1.1", "GET /?q=\0 HTTP/1.1", "GET\0 / HTTP/1.1"] {
            let response = rawExchange(port: server.port, bytes(line + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
            XCTAssertEqual(response?.status, 400, line.debugDescription)
        }
        XCTAssertEqual(rawExchange(port: server.port, bytes("GET /?q=1&a=b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))?.status, 200)
        XCTAssertEqual(rawExchange(port: server.port, bytes("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))?.status, 200)
    }
}
