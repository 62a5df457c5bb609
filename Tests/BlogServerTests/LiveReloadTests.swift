import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BlogServer

final class LiveReloadTests: XCTestCase {
    func start(_ store: SiteStore, keepAlive: Double = 15) throws -> PreviewServer {
        let server = try PreviewServer(options: ServerOptions(port: 0, keepAliveInterval: keepAlive), store: store)
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }

    func testPublishSendsReloadAfterNewContentIsServed() throws {
        let store = SiteStore()
        store.publish(SiteSnapshot(files: ["index.html": bytes("<body>v1</body>"), "a.css": bytes("a{}")]))
        let server = try start(store)
        let stream = try XCTUnwrap(EventStreamClient(port: server.port))
        XCTAssertEqual(stream.next(), .init(name: "ok", data: "[]"))
        XCTAssertEqual(stream.status, 200)
        XCTAssertEqual(stream.contentType, "text/event-stream; charset=utf-8")

        store.publish(SiteSnapshot(files: ["index.html": bytes("<body>v2</body>"), "a.css": bytes("a{}")]))
        let reload = try XCTUnwrap(stream.next())
        XCTAssertEqual(reload.name, "reload")
        XCTAssertEqual(reload.data, "{\"generation\":2,\"paths\":[\"/index.html\"]}")
        XCTAssertTrue(httpRequest(port: server.port, "/")?.text.contains("v2") == true)

        // CSS-only change: the paths say so, so the page can swap stylesheets.
        store.publish(SiteSnapshot(files: ["index.html": bytes("<body>v2</body>"), "a.css": bytes("a{color:red}")]))
        XCTAssertEqual(stream.next()?.data, "{\"generation\":3,\"paths\":[\"/a.css\"]}")

        // Publishing identical bytes changes nothing and sends nothing.
        store.publish(SiteSnapshot(files: ["index.html": bytes("<body>v2</body>"), "a.css": bytes("a{color:red}")]))
        XCTAssertNil(stream.next(timeout: 0.3))
    }

    /// Past 500 changed files the event names none and says so (the page then reloads whole).
    func testManyChangedFilesSendATruncatedReload() throws {
        let store = SiteStore()
        store.publish(SiteSnapshot(files: ["index.html": bytes("v1")]))
        let server = try start(store)
        let stream = try XCTUnwrap(EventStreamClient(port: server.port))
        XCTAssertEqual(stream.next()?.name, "ok")
        var files: [String: [UInt8]] = ["index.html": bytes("v2")]
        for n in 0..<500 { files["p\(n).html"] = bytes("\(n)") }
        store.publish(SiteSnapshot(files: files))
        XCTAssertEqual(stream.next()?.data, "{\"generation\":2,\"paths\":[],\"truncated\":true}")
    }

    func testErrorsAreStreamedAndVisibleInStatus() throws {
        let store = SiteStore()
        store.publish(SiteSnapshot(files: ["index.html": bytes("<body>good</body>")]))
        let server = try start(store)
        let stream = try XCTUnwrap(EventStreamClient(port: server.port))
        XCTAssertEqual(stream.next()?.name, "ok")

        let lines = ["content/posts/a.md:3: unknown key \"titel\"", "templates/post.mustache:9: unclosed <section>"]
        store.setErrors(lines)
        let error = try XCTUnwrap(stream.next())
        XCTAssertEqual(error.name, "error")
        let decoded = try JSONDecoder().decode([String].self, from: Data(error.data.utf8))
        XCTAssertEqual(decoded, lines)
        XCTAssertFalse(error.data.contains("<"), "markup characters are escaped in JSON")

        let status = try XCTUnwrap(httpRequest(port: server.port, "/__blog/status"))
        XCTAssertEqual(status.header("content-type"), "application/json; charset=utf-8")
        struct Status: Decodable { var generation: Int; var errors: [String] }
        let parsed = try JSONDecoder().decode(Status.self, from: Data(status.body))
        XCTAssertEqual(parsed.errors, lines)
        XCTAssertEqual(parsed.generation, 1)
        // The last good page is still served.
        XCTAssertTrue(httpRequest(port: server.port, "/")?.text.contains("good") == true)

        // A page opened now learns about the error at once.
        let late = try XCTUnwrap(EventStreamClient(port: server.port))
        XCTAssertEqual(late.next()?.name, "error")

        store.setErrors([])
        XCTAssertEqual(stream.next(), .init(name: "ok", data: "[]"))
        XCTAssertEqual(late.next()?.name, "ok")
        let cleared = try JSONDecoder().decode(Status.self, from: Data(try XCTUnwrap(httpRequest(port: server.port, "/__blog/status")).body))
        XCTAssertEqual(cleared.errors, [])
    }

    func testKeepAliveCommentsAndManyStreams() throws {
        let store = SiteStore()
        store.publish(SiteSnapshot(files: ["index.html": bytes("x")]))
        let server = try start(store, keepAlive: 0.1)
        let streams = (0..<20).compactMap { _ in EventStreamClient(port: server.port) }
        XCTAssertEqual(streams.count, 20)
        for stream in streams { XCTAssertEqual(stream.next()?.name, "ok") }
        XCTAssertTrue(waitUntil { server.liveReloadClientCount == 20 })
        // Keep-alive comments flow while the streams are idle, and ordinary requests still work.
        usleep(300_000)
        XCTAssertEqual(httpRequest(port: server.port, "/")?.status, 200)
        store.publish(SiteSnapshot(files: ["index.html": bytes("y")]))
        for stream in streams { XCTAssertEqual(stream.next()?.name, "reload") }
    }

    func testClosedStreamsAreForgotten() throws {
        let store = SiteStore()
        let server = try start(store, keepAlive: 0.05)
        var stream: EventStreamClient? = EventStreamClient(port: server.port)
        XCTAssertEqual(stream?.next()?.name, "ok")
        XCTAssertEqual(server.liveReloadClientCount, 1)
        stream = nil
        // The next keep-alive write fails and the connection is cleaned up.
        XCTAssertTrue(waitUntil(5) { server.liveReloadClientCount == 0 })
    }

    func testEmptySiteShowsAWaitingPageThatReloads() throws {
        let store = SiteStore()
        let server = try start(store)
        let response = try XCTUnwrap(httpRequest(port: server.port, "/"))
        XCTAssertEqual(response.status, 404)
        XCTAssertTrue(response.text.contains(liveReloadScriptTag))
    }
}
