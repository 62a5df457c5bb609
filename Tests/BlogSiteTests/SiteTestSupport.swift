import BlogCore
import BlogSite
import Foundation
import XCTest

/// Fixture sites live in Tests/BlogSiteTests/Fixtures/<name>; tests copy them to a temporary folder.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A fresh copy of a fixture site in a temporary folder.
    static func copy(_ name: String) throws -> URL {
        let target = try temporaryDirectory().appendingPathComponent(name)
        try FileManager.default.copyItem(at: root.appendingPathComponent(name), to: target)
        return target
    }

    /// A new empty folder, inside this test process's own folder (`sessionRoot`).
    static func temporaryDirectory() throws -> URL {
        let url = sessionRoot.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// One folder per test process for every test's sites and outputs, removed when the process
    /// exits (each test's folder used to stay behind: thousands of them in /tmp after a day).
    static let sessionRoot: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blog-tests-\(UUID().uuidString)")
        atexit { try? FileManager.default.removeItem(at: Fixtures.sessionRoot) }
        return url
    }()

    /// A site written from inline files: `["content/posts/a.md": "..."]`.
    static func site(_ files: [String: String]) throws -> URL {
        let root = try temporaryDirectory().appendingPathComponent("site")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: false, encoding: .utf8)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("content"), withIntermediateDirectories: true)
        return root
    }

    /// 2026-11-01, so that fixture dates do not drift into the future.
    static let now = Date(timeIntervalSince1970: 1_793_491_200)
}

extension BuiltSite {
    func text(_ path: String) -> String? {
        files.first { $0.path == path }.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    var paths: [String] { files.map(\.path) }
}

func build(_ site: URL, drafts: Bool = false, future: Bool = false, baseURL: String? = nil) throws -> BuiltSite {
    try SiteBuilder.build(BuildOptions(siteDirectory: site, includeDrafts: drafts, includeFuture: future, baseURL: baseURL, now: Fixtures.now), console: nil)
}

func errors(of body: () throws -> Void) -> [String] {
    do {
        try body()
        return []
    } catch let list as DiagnosticList {
        return list.diagnostics.map(\.description)
    } catch let diagnostic as Diagnostic {
        return [diagnostic.description]
    } catch {
        return ["\(error)"]
    }
}

/// Fails unless a rebuild's result equals a fresh build of the same site: the outputs in order, and
/// the path-to-bytes map `blog serve` publishes (patched between rebuilds) holding exactly the files.
func assertMatchesFreshBuild(_ result: IncrementalBuilder.Result, _ site: URL, _ step: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
    let fresh = try build(site)
    XCTAssertEqual(result.site.paths, fresh.paths, step, file: file, line: line)
    for (a, b) in zip(result.site.files, fresh.files) where a.bytes != b.bytes {
        XCTFail("\(step): \(a.path) differs from a fresh build", file: file, line: line)
    }
    XCTAssertEqual(result.files.count, fresh.files.count, step, file: file, line: line)
    for output in fresh.files where result.files[output.path] != output.bytes {
        XCTFail("\(step): files[\(output.path)] differs from a fresh build", file: file, line: line)
    }
}
