import XCTest
import BlogCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BlogServer

final class SiteStoreTests: XCTestCase {
    func testPublishStampsGenerationsAndReportsChangedPaths() {
        let store = SiteStore()
        final class Recorder: @unchecked Sendable {
            let lock = NSLock()
            var events: [SiteStoreEvent] = []
            func add(_ event: SiteStoreEvent) { lock.lock(); events.append(event); lock.unlock() }
        }
        let recorder = Recorder()
        let token = store.addObserver { recorder.add($0) }
        XCTAssertEqual(store.publish(SiteSnapshot(files: ["a": [1], "b": [2]])), ["a", "b"])
        XCTAssertEqual(store.publish(SiteSnapshot(files: ["a": [1], "c": [3]])), ["b", "c"])
        XCTAssertEqual(store.publish(SiteSnapshot(files: ["a": [1], "c": [3]])), [])
        XCTAssertEqual(store.publish(SiteSnapshot(files: ["a": [9], "c": [3]]), changedPaths: ["x"]), ["x"])
        XCTAssertEqual(store.generation, 4)
        XCTAssertEqual(store.snapshot.files["a"], [9])
        store.setErrors(["f:1: bad"])
        store.setErrors(["f:1: bad"])
        store.setErrors([])
        store.removeObserver(token)
        store.setErrors(["ignored"])
        XCTAssertEqual(recorder.events, [
            .published(generation: 1, changedPaths: ["a", "b"]),
            .published(generation: 2, changedPaths: ["b", "c"]),
            .published(generation: 4, changedPaths: ["x"]),
            .errorsChanged(["f:1: bad"]),
            .errorsChanged([]),
        ])
    }
}

final class PreviewSessionTests: XCTestCase {
    /// A rebuild that knows what it changed hands the paths over; the store publishes those, not
    /// its own comparison, and keeps no such paths in the stored snapshot.
    func testChangedPathsOfTheRebuildArePublished() {
        let store = SiteStore()
        var next = SiteSnapshot(files: ["a": [1], "b": [2]])
        let session = PreviewSession(watching: [], store: store) { _ in next }
        XCTAssertTrue(session.rebuild(changedPaths: []))
        XCTAssertEqual(store.generation, 1)
        next = SiteSnapshot(files: ["a": [1], "b": [3]], changedPaths: ["b"])
        let events = LockedEvents()
        store.addObserver { events.add($0) }
        XCTAssertTrue(session.rebuild(changedPaths: ["x"]))
        next = SiteSnapshot(files: ["a": [1], "b": [3]], changedPaths: [])
        XCTAssertTrue(session.rebuild(changedPaths: ["x"]))
        XCTAssertEqual(events.all, [.published(generation: 2, changedPaths: ["b"])])
        XCTAssertEqual(store.generation, 3)
        XCTAssertNil(store.snapshot.changedPaths)
        XCTAssertEqual(store.snapshot.files["b"], [3])
    }

    final class LockedEvents: @unchecked Sendable {
        let lock = NSLock()
        var events: [SiteStoreEvent] = []
        func add(_ event: SiteStoreEvent) { lock.lock(); events.append(event); lock.unlock() }
        var all: [SiteStoreEvent] { lock.lock(); defer { lock.unlock() }; return events }
    }

    /// A tiny "site generator": every `*.md` file becomes a page; a file containing BROKEN fails.
    static func build(from dir: String) throws -> SiteSnapshot {
        var files: [String: [UInt8]] = [:]
        var problems: [Diagnostic] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir))?.sorted() ?? [] where name.hasSuffix(".md") {
            let text = (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? ""
            if text.contains("BROKEN") {
                problems.append(.error("cannot parse <this>", at: SourceLocation(file: name, line: 2)))
            }
            let slug = String(name.dropLast(3))
            files[slug == "index" ? "index.html" : "\(slug)/index.html"] = Array("<html><body>\(text)</body></html>".utf8)
        }
        if !problems.isEmpty { throw DiagnosticList(problems) }
        return SiteSnapshot(files: files)
    }

    func testEditBreakAndFixCycle() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeFile(dir + "/index.md", "version one")
        let store = SiteStore()
        let (console, output) = Console.capturing()
        let calls = BatchCollector()
        let session = PreviewSession(watching: [dir], store: store, debounce: 0.03, console: console) { changed in
            calls.add(changed)
            return try PreviewSessionTests.build(from: dir)
        }
        try session.start()
        defer { session.stop() }
        XCTAssertEqual(store.generation, 1)
        let server = try PreviewServer(options: ServerOptions(port: 0), store: store)
        try server.start()
        defer { server.stop() }
        let stream = try XCTUnwrap(EventStreamClient(port: server.port))
        XCTAssertEqual(stream.next()?.name, "ok")
        XCTAssertTrue(httpRequest(port: server.port, "/")?.text.contains("version one") == true)

        writeFile(dir + "/index.md", "version two")
        let reload = try XCTUnwrap(stream.next())
        XCTAssertEqual(reload.name, "reload")
        XCTAssertTrue(reload.data.contains("\"/index.html\""))
        XCTAssertTrue(httpRequest(port: server.port, "/")?.text.contains("version two") == true)
        XCTAssertTrue(calls.all.contains(dir + "/index.md"), "the rebuild hears which files changed")

        writeFile(dir + "/index.md", "version three BROKEN")
        let error = try XCTUnwrap(stream.next())
        XCTAssertEqual(error.name, "error")
        XCTAssertEqual(try JSONDecoder().decode([String].self, from: Data(error.data.utf8)),
                       ["index.md:2: error: cannot parse <this>"])
        XCTAssertTrue(httpRequest(port: server.port, "/")?.text.contains("version two") == true, "last good version stays")
        XCTAssertTrue(output.errors.contains("index.md:2: error: cannot parse <this>"))

        writeFile(dir + "/index.md", "version four")
        XCTAssertEqual(stream.next()?.name, "ok")
        XCTAssertEqual(stream.next()?.name, "reload")
        XCTAssertTrue(httpRequest(port: server.port, "/")?.text.contains("version four") == true)
        XCTAssertEqual(store.errors, [])
    }

    func testFailedFirstBuildLeavesAnEmptySiteWithErrors() throws {
        let store = SiteStore()
        let session = PreviewSession(watching: [], store: store) { _ in
            throw Diagnostic.error("missing title", at: SourceLocation(file: "blog.yml", line: 1))
        }
        XCTAssertFalse(session.rebuild(changedPaths: []))
        XCTAssertEqual(store.generation, 0)
        XCTAssertEqual(store.errors, ["blog.yml:1: error: missing title"])
        struct Custom: Error {}
        XCTAssertEqual(PreviewSession.errorLines(Custom()), ["Custom()"])
    }
}
