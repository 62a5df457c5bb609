import XCTest
import BlogCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BlogServer

final class PreviewServerTests: XCTestCase {
    static let page = "<!doctype html><html><head><title>Home</title></head><body><h1>Hello</h1></BODY></html>"

    func sampleFiles() -> [String: [UInt8]] {
        [
            "index.html": bytes(Self.page),
            "404.html": bytes("<html><body><p>Custom not found page</p></body></html>"),
            "posts/first/index.html": bytes("<html><body>first post</body></html>"),
            "posts/日本/index.html": bytes("<html><body>japanese slug</body></html>"),
            "assets/css/main.css": bytes("body { color: red }"),
            "assets/js/app.js": bytes("console.log(1)"),
            "search/index.json": bytes("{}"),
            "feed.xml": bytes("<feed/>"),
            "images/logo.svg": bytes("<svg/>"),
            "images/a.png": [0x89, 0x50, 0x4E, 0x47],
            "images/b.jpg": [0xFF, 0xD8],
            "images/c.jpeg": [0xFF, 0xD8],
            "images/d.webp": bytes("RIFF"),
            "images/e.gif": bytes("GIF89a"),
            "fonts/f.woff2": bytes("wOF2"),
            "favicon.ico": [0, 0, 1, 0],
            "robots.txt": bytes("User-agent: *"),
            "data.bin": [1, 2, 3],
            ".env": bytes("SECRET=1"),
            ".git/config": bytes("SECRET repo"),
            "posts/.hidden/index.html": bytes("SECRET hidden"),
        ]
    }

    func makeServer(files: [String: [UInt8]]? = nil, options: ServerOptions = ServerOptions(port: 0),
                    store: SiteStore? = nil) throws -> (PreviewServer, SiteStore) {
        let store = store ?? SiteStore()
        if store.generation == 0 { store.publish(SiteSnapshot(files: files ?? sampleFiles())) }
        let server = try PreviewServer(options: options, store: store)
        try server.start()
        addTeardownBlock { server.stop() }
        return (server, store)
    }

    func testContentTypesAndCommonHeaders() throws {
        let (server, _) = try makeServer()
        let expected: [(String, String)] = [
            ("/", "text/html; charset=utf-8"),
            ("/assets/css/main.css", "text/css; charset=utf-8"),
            ("/assets/js/app.js", "text/javascript; charset=utf-8"),
            ("/search/index.json", "application/json; charset=utf-8"),
            ("/feed.xml", "application/xml; charset=utf-8"),
            ("/images/logo.svg", "image/svg+xml"),
            ("/images/a.png", "image/png"),
            ("/images/b.jpg", "image/jpeg"),
            ("/images/c.jpeg", "image/jpeg"),
            ("/images/d.webp", "image/webp"),
            ("/images/e.gif", "image/gif"),
            ("/fonts/f.woff2", "font/woff2"),
            ("/favicon.ico", "image/x-icon"),
            ("/robots.txt", "text/plain; charset=utf-8"),
            ("/data.bin", "application/octet-stream"),
        ]
        for (path, type) in expected {
            let response = try XCTUnwrap(httpRequest(port: server.port, path), path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertEqual(response.header("content-type"), type, path)
            XCTAssertEqual(response.header("cache-control"), "no-cache", path)
            XCTAssertNotNil(response.header("etag"), path)
            XCTAssertNil(response.header("access-control-allow-origin"), path)
        }
        let css = try XCTUnwrap(httpRequest(port: server.port, "/assets/css/main.css"))
        XCTAssertEqual(css.text, "body { color: red }")
        let png = try XCTUnwrap(httpRequest(port: server.port, "/images/a.png"))
        XCTAssertEqual(png.body, [0x89, 0x50, 0x4E, 0x47])
    }

    func testIndexesAndPercentDecodedPaths() throws {
        let (server, _) = try makeServer()
        let post = try XCTUnwrap(httpRequest(port: server.port, "/posts/first/"))
        XCTAssertEqual(post.status, 200)
        XCTAssertTrue(post.text.contains("first post"))
        let japanese = try XCTUnwrap(httpRequest(port: server.port, "/posts/%E6%97%A5%E6%9C%AC/"))
        XCTAssertEqual(japanese.status, 200)
        XCTAssertTrue(japanese.text.contains("japanese slug"))
        let direct = try XCTUnwrap(httpRequest(port: server.port, "/index.html?x=1"))
        XCTAssertEqual(direct.status, 200)
    }

    func testLiveReloadScriptIsInjectedOnlyInServeMode() throws {
        let (server, _) = try makeServer()
        let home = try XCTUnwrap(httpRequest(port: server.port, "/"))
        XCTAssertTrue(home.text.contains("<h1>Hello</h1>\(liveReloadScriptTag)</BODY></html>"), home.text)
        XCTAssertEqual(Int(home.header("content-length") ?? ""), home.body.count)
        let css = try XCTUnwrap(httpRequest(port: server.port, "/assets/css/main.css"))
        XCTAssertFalse(css.text.contains("script"))
        let script = try XCTUnwrap(httpRequest(port: server.port, "/__blog/livereload.js"))
        XCTAssertEqual(script.status, 200)
        XCTAssertEqual(script.header("content-type"), "text/javascript; charset=utf-8")
        XCTAssertTrue(script.text.contains("EventSource('/__blog/events')"))
        XCTAssertTrue(script.text.contains("textContent"))
        XCTAssertFalse(script.text.contains("innerHTML"))

        let (plain, _) = try makeServer(options: ServerOptions(port: 0, liveReload: false))
        let untouched = try XCTUnwrap(httpRequest(port: plain.port, "/"))
        XCTAssertEqual(untouched.text, Self.page)
        XCTAssertEqual(try XCTUnwrap(httpRequest(port: plain.port, "/__blog/events")).status, 404)
        XCTAssertEqual(try XCTUnwrap(httpRequest(port: plain.port, "/__blog/livereload.js")).status, 404)
    }

    func testKeepAliveConnectionsServeSeveralRequests() throws {
        let (server, _) = try makeServer()
        let fd = connectLoopback(port: server.port, timeout: 2)
        defer { close(fd) }
        let request = bytes("GET /robots.txt HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertTrue(sendAll(fd, request + request))
        usleep(100_000)
        XCTAssertTrue(sendAll(fd, bytes("GET /robots.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")))
        let text = String(decoding: readToEnd(fd), as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: "HTTP/1.1 200 OK").count - 1, 3, text)
        XCTAssertEqual(text.components(separatedBy: "User-agent: *").count - 1, 3)
    }

    func testDirectoryWithoutSlashRedirects() throws {
        let (server, _) = try makeServer()
        let response = try XCTUnwrap(httpRequest(port: server.port, "/posts/first"))
        XCTAssertEqual(response.status, 301)
        XCTAssertEqual(response.header("location"), "/posts/first/")
        let japanese = try XCTUnwrap(httpRequest(port: server.port, "/posts/%E6%97%A5%E6%9C%AC"))
        XCTAssertEqual(japanese.status, 301)
        XCTAssertEqual(japanese.header("location"), "/posts/%E6%97%A5%E6%9C%AC/")
        XCTAssertEqual(try XCTUnwrap(httpRequest(port: server.port, "/posts/missing")).status, 404)
    }

    func testBasePathPrefixesEverything() throws {
        let (server, _) = try makeServer(options: ServerOptions(port: 0, basePath: "/archive/"))
        XCTAssertEqual(try XCTUnwrap(httpRequest(port: server.port, "/archive/posts/first/")).status, 200)
        let root = try XCTUnwrap(httpRequest(port: server.port, "/"))
        XCTAssertEqual(root.status, 302)
        XCTAssertEqual(root.header("location"), "/archive/")
        XCTAssertEqual(try XCTUnwrap(httpRequest(port: server.port, "/archive")).header("location"), "/archive/")
        XCTAssertEqual(try XCTUnwrap(httpRequest(port: server.port, "/posts/first/")).status, 404)
        XCTAssertTrue(server.url.hasSuffix("/archive/"))
    }

    func testConditionalRequestsGet304() throws {
        let (server, store) = try makeServer()
        let first = try XCTUnwrap(httpRequest(port: server.port, "/assets/css/main.css"))
        let etag = try XCTUnwrap(first.header("etag"))
        XCTAssertTrue(etag.hasPrefix("\"") && etag.hasSuffix("\""), "strong ETag: \(etag)")
        let again = try XCTUnwrap(httpRequest(port: server.port, "/assets/css/main.css", headers: ["If-None-Match: \(etag)"]))
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(again.header("etag"), etag)
        let list = try XCTUnwrap(httpRequest(port: server.port, "/assets/css/main.css",
                                             headers: ["If-None-Match: \"nope\", W/\(etag)"]))
        XCTAssertEqual(list.status, 304)
        let other = try XCTUnwrap(httpRequest(port: server.port, "/assets/css/main.css", headers: ["If-None-Match: \"nope\""]))
        XCTAssertEqual(other.status, 200)

        // New bytes, new ETag: the old one no longer matches.
        var files = sampleFiles()
        files["assets/css/main.css"] = bytes("body { color: blue }")
        store.publish(SiteSnapshot(files: files))
        let changed = try XCTUnwrap(httpRequest(port: server.port, "/assets/css/main.css", headers: ["If-None-Match: \(etag)"]))
        XCTAssertEqual(changed.status, 200)
        XCTAssertEqual(changed.text, "body { color: blue }")
        XCTAssertNotEqual(changed.header("etag"), etag)
    }

    func testMissingPathsServeCustom404() throws {
        let (server, _) = try makeServer()
        let response = try XCTUnwrap(httpRequest(port: server.port, "/no/such/page/"))
        XCTAssertEqual(response.status, 404)
        XCTAssertTrue(response.text.contains("Custom not found page"))
        XCTAssertEqual(response.header("content-type"), "text/html; charset=utf-8")

        var files = sampleFiles()
        files["404.html"] = nil
        let (bare, _) = try makeServer(files: files)
        let fallback = try XCTUnwrap(httpRequest(port: bare.port, "/nothing"))
        XCTAssertEqual(fallback.status, 404)
        XCTAssertEqual(fallback.header("content-type"), "text/plain; charset=utf-8")
        XCTAssertEqual(fallback.text, "404 Not Found\n")
    }

    func testHeadHasSameHeadersAndNoBody() throws {
        let (server, _) = try makeServer()
        for path in ["/", "/assets/css/main.css", "/missing"] {
            let get = try XCTUnwrap(httpRequest(port: server.port, path))
            let head = try XCTUnwrap(httpRequest(port: server.port, path, method: "HEAD"))
            XCTAssertEqual(head.status, get.status, path)
            XCTAssertTrue(head.body.isEmpty, path)
            for name in ["content-type", "content-length", "etag", "cache-control"] {
                XCTAssertEqual(head.header(name), get.header(name), "\(path) \(name)")
            }
        }
    }

    func testOtherMethodsGet405() throws {
        let (server, _) = try makeServer()
        for method in ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"] {
            let response = try XCTUnwrap(httpRequest(port: server.port, "/", method: method, headers: ["Content-Length: 0"]), method)
            XCTAssertEqual(response.status, 405, method)
            XCTAssertEqual(response.header("allow"), "GET, HEAD", method)
            XCTAssertNil(response.header("access-control-allow-origin"))
        }
    }

    func testHostHeaderAllowlist() throws {
        let (server, _) = try makeServer()
        let port = server.port
        for host in ["localhost", "localhost:\(port)", "127.0.0.1", "127.0.0.1:\(port)", "[::1]", "[::1]:\(port)",
                     "blog.localhost:\(port)", "LOCALHOST:\(port)"] {
            XCTAssertEqual(httpRequest(port: port, "/", host: host)?.status, 200, host)
        }
        for host in ["evil.example", "evil.example:\(port)", "localhost.evil.example", "127.0.0.1.nip.io:\(port)",
                     "192.168.1.10", "", "localhost:abc", "localhost:\(port):1", "[::1", "local host"] {
            XCTAssertEqual(httpRequest(port: port, "/", host: host)?.status, 403, "Host: \(host)")
        }
        // The check also guards the live-reload endpoints (they expose file names and errors).
        XCTAssertEqual(httpRequest(port: port, "/__blog/status", host: "evil.example")?.status, 403)
        // HTTP/1.0 without Host is refused as well.
        let noHost = rawExchange(port: port, bytes("GET / HTTP/1.0\r\n\r\n"))
        XCTAssertEqual(noHost?.status, 403)
    }

    func testPathTraversalBattery() throws {
        let (server, _) = try makeServer()
        let attacks = [
            "/../../etc/passwd", "/posts/../index.html", "/./index.html", "/%2e%2e/%2e%2e/etc/passwd",
            "/%2E%2E%2Fetc%2Fpasswd", "/posts%2ffirst/", "/posts%2Ffirst%2F", "/%252e%252e/etc/passwd",
            "/%25%32%65%25%32%65/", "/posts/%5c..%5cindex.html", "/posts\\..\\index.html", "/index.html%00.css",
            "/%c0%ae%c0%ae/etc/passwd", "/%zz", "/%", "/.env", "/.git/config", "/%2eenv", "/posts/.hidden/",
            "//etc/passwd", "/posts//first/", "http://127.0.0.1/index.html", "*",
        ]
        for target in attacks {
            let response = try XCTUnwrap(httpRequest(port: server.port, target), target)
            XCTAssertTrue([400, 404].contains(response.status), "\(target) -> \(response.status)")
            XCTAssertFalse(response.text.contains("SECRET"), target)
        }
        // A raw backslash in the request line.
        let backslash = rawExchange(port: server.port, bytes("GET /posts\\first/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
        XCTAssertEqual(backslash?.status, 400)
        // A raw NUL byte: libmicrohttpd hands us the target as a C string, cut at the NUL, so what we
        // see is the prefix, which goes through the same checks: never outside the site, never a dotfile.
        for (target, allowed) in [("/.env", [404]), ("/..", [400]), ("/.git/config", [404])] {
            let request = bytes("GET \(target)") + [0] + bytes(".css HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            if let response = rawExchange(port: server.port, request) {
                XCTAssertTrue(allowed.contains(response.status) || response.status == 400, "\(target)\\0 -> \(response.status)")
                XCTAssertFalse(response.text.contains("SECRET"))
            }
        }
        // The server is still fine.
        XCTAssertEqual(httpRequest(port: server.port, "/")?.status, 200)
    }

    func testPortInUseIsAClearError() throws {
        let (server, _) = try makeServer()
        XCTAssertThrowsError(try PreviewServer(options: ServerOptions(port: server.port), store: SiteStore())) { error in
            XCTAssertEqual((error as? ServerError)?.message, "port \(server.port) is already in use (try --port N)")
        }
        XCTAssertThrowsError(try PreviewServer(options: ServerOptions(port: 0, bind: "not an address"), store: SiteStore()))
    }

    func testStopReleasesThePortEvenWithOpenStreams() throws {
        let store = SiteStore(snapshot: SiteSnapshot(files: sampleFiles(), generation: 1))
        let server = try PreviewServer(options: ServerOptions(port: 0), store: store)
        try server.start()
        let port = server.port
        let stream = try XCTUnwrap(EventStreamClient(port: port))
        XCTAssertEqual(stream.next()?.name, "ok")
        XCTAssertTrue(waitUntil { server.liveReloadClientCount == 1 })
        let started = monotonic()
        server.stop()
        XCTAssertLessThan(monotonic() - started, 3)
        XCTAssertEqual(connectLoopback(port: port), -1, "nothing listens after stop")
        let again = try PreviewServer(options: ServerOptions(port: port), store: store)
        try again.start()
        XCTAssertEqual(httpRequest(port: port, "/")?.status, 200)
        again.stop()
        again.stop()
    }

    func testNonLoopbackBindWarns() throws {
        let (console, captured) = Console.capturing()
        let server = try PreviewServer(options: ServerOptions(port: 0, bind: "0.0.0.0"), store: SiteStore(), console: console)
        XCTAssertTrue(captured.errors.contains("warning:"), captured.errors)
        XCTAssertTrue(captured.errors.contains("0.0.0.0"))
        server.stop()
        let (quietConsole, quiet) = Console.capturing()
        let local = try PreviewServer(options: ServerOptions(port: 0), store: SiteStore(), console: quietConsole)
        XCTAssertEqual(quiet.errors, "")
        XCTAssertEqual(local.url, "http://127.0.0.1:\(local.port)/")
    }

    func testIPv6LoopbackBind() throws {
        let server: PreviewServer
        do {
            server = try PreviewServer(options: ServerOptions(port: 0, bind: "::1"), store: SiteStore())
        } catch {
            throw XCTSkip("no IPv6 loopback here: \(error)")
        }
        XCTAssertEqual(server.url, "http://[::1]:\(server.port)/")
        try server.start()
        server.stop()
    }
}
