import BlogCore
import Foundation
@testable import BlogImport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class HTTPSessionTests: XCTestCase {
    /// A loopback listener that accepts connections, counts them and never answers.
    private final class SilentServer: @unchecked Sendable {
        let fd: Int32
        let port: UInt16
        private let lock = NSLock()
        private var accepted: [Int32] = []

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            guard bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
            withUnsafeMutablePointer(to: &address) { pointer in
                _ = pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            port = UInt16(bigEndian: address.sin_port)
            Thread {
                while true {
                    let client = accept(self.fd, nil, nil)
                    if client < 0 { return }
                    self.lock.withLock { self.accepted.append(client) }
                }
            }.start()
        }

        var connections: Int { lock.withLock { accepted.count } }

        func stop() {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
            lock.withLock { accepted.forEach { close($0) } }
        }
    }

    func testSilentServerTimesOutAndIsTriedAgain() throws {
        let server = try SilentServer()
        defer { server.stop() }
        let session = HTTPSession(timeout: 1)
        var retries: [String] = []
        let result = session.getRetrying(URL(string: "http://127.0.0.1:\(server.port)/api/v2/items")!, attempts: 2, backoff: 0.1,
                                         onRetry: { reason, _ in retries.append(reason) })
        guard case .failure(.transport(let message, retryable: true)) = result else {
            return XCTFail("expected a retryable failure, got \(result)")
        }
        XCTAssertEqual(message, "timed out")
        XCTAssertEqual(retries, ["timed out"])
        XCTAssertEqual(server.connections, 2)
    }

    func testRefusedConnectionIsAFailureNotACrash() throws {
        let server = try SilentServer()
        let port = server.port
        server.stop()
        let result = HTTPSession(timeout: 1).get(URL(string: "http://127.0.0.1:\(port)/")!)
        guard case .failure(.transport(_, retryable: true)) = result else { return XCTFail("\(result)") }
    }

    func testLinkHeaderNextTarget() {
        let header = #"<https://qiita.com/api/v2/users/a/items?page=1&per_page=100>; rel="first", "#
            + #"<https://qiita.com/api/v2/users/a/items?page=3&per_page=100>; rel="next", "#
            + #"<https://qiita.com/api/v2/users/a/items?page=9&per_page=100>; rel="last""#
        XCTAssertEqual(QiitaClient.linkTarget(header, rel: "next"), "https://qiita.com/api/v2/users/a/items?page=3&per_page=100")
        XCTAssertEqual(QiitaClient.linkTarget(#"</items?page=2>; title="x, y"; rel="prev next""#, rel: "next"), "/items?page=2")
        XCTAssertNil(QiitaClient.linkTarget(#"<https://x/?page=1>; rel="first", <https://x/?page=1>; rel=last"#, rel: "next"))
    }

    func testHeaderNamesAreCaseInsensitiveAndRepeatsJoined() {
        let headers = HTTPSession.parseHeaders("HTTP/1.1 200 OK\r\nTotal-Count: 5\r\nLink: <a>; rel=\"next\"\r\nlink: <b>; rel=\"last\"\r\n\r\n")
        XCTAssertEqual(headers["total-count"], "5")
        XCTAssertEqual(headers["link"], "<a>; rel=\"next\", <b>; rel=\"last\"")
    }
}
