import BlogCore
import Foundation
@testable import BlogCLI
import XCTest

/// End to end: `blog import text` on the flattened dump fixtures restores their structure, warns
/// about a cut-off header and a near-duplicate, honours --verbatim and --keep-duplicates, refuses a
/// bad date without writing anything, and the imported posts build.
final class ImportTextDumpCommandTests: XCTestCase {
    private var dumps: [String] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("BlogImportTests/Fixtures/dumps")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.sorted().map { directory.appendingPathComponent($0).path }
    }

    /// One hand-written article per `.md`; the dumps add a second copy of one of them.
    private var articleCount: Int { dumps.filter { FileManager.default.fileExists(atPath: $0.dropLast(4) + ".md") }.count }

    private func blog(_ arguments: [String], in directory: String) -> (Int32, CapturedOutput) {
        let (console, captured) = Console.capturing()
        let code = runBlog(arguments: arguments, context: CommandContext(console: console, workingDirectory: URL(fileURLWithPath: directory)))
        return (code, captured)
    }

    private func newSite() throws -> String {
        let parent = (NSTemporaryDirectory() as NSString).appendingPathComponent("blog-dump-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: parent) }
        let (code, output) = blog(["init", "site"], in: parent)
        XCTAssertEqual(code, 0, output.errors)
        return (parent as NSString).appendingPathComponent("site")
    }

    private func posts(_ site: String) -> [String: String] {
        let directory = site + "/content/posts"
        var result: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            result[name] = FileManager.default.contents(atPath: directory + "/" + name).map { String(decoding: $0, as: UTF8.self) }
        }
        return result
    }

    func testImportRestoresStructureAndBuilds() throws {
        XCTAssertGreaterThanOrEqual(dumps.count, 8)
        let site = try newSite()
        let before = posts(site)
        var (code, output) = blog(["import", "text"] + dumps, in: site)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertTrue(output.errors.contains("08-duplicate-edit.txt:11: warning: article header has no title and no body; skipped"), output.errors)
        XCTAssertTrue(output.errors.contains("08-duplicate-edit.txt:1: warning: near-duplicate article \"配列の重複を取り除く処理\""), output.errors)
        XCTAssertTrue(output.errors.contains("  + Swift 5.9ではパラメータパックも使えます。"), output.errors)
        let imported = posts(site).filter { before[$0.key] == nil }
        XCTAssertEqual(imported.count, articleCount, "\(imported.keys.sorted())")
        let firebase = try XCTUnwrap(imported.first { $0.key.hasPrefix("2021-08-02-") }?.value)
        XCTAssertTrue(firebase.contains("```swift:AppDelegate.swift\nimport UIKit\n"), firebase)
        XCTAssertTrue(firebase.contains("```ruby:Podfile\n"), firebase)
        XCTAssertTrue(firebase.contains("\n## 初期化処理\n"), firebase)
        XCTAssertTrue(firebase.contains("`AppDelegate`で`FirebaseApp.configure()`を呼びます。"), firebase)

        (code, output) = blog(["build"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        let slug = try XCTUnwrap(firebase.components(separatedBy: "\n").first { $0.hasPrefix("slug: ") }).dropFirst(6)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        let page = try XCTUnwrap(FileManager.default.contents(atPath: site + "/public/posts/\(slug)/index.html"))
        let html = String(decoding: page, as: UTF8.self)
        XCTAssertTrue(html.contains("<div class=\"code-lang\">AppDelegate.swift</div>"), html)
        XCTAssertTrue(html.contains("<code>FirebaseApp.configure()</code>"), html)

        // Again: nothing changes.
        (code, output) = blog(["import", "text"] + dumps, in: site)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertTrue(output.output.hasSuffix("0 created, \(articleCount) unchanged, 0 skipped, 0 failed\n"), output.output)
    }

    func testVerbatimKeepDuplicatesAndErrors() throws {
        let site = try newSite()
        let before = posts(site)
        var (code, output) = blog(["import", "text", "--verbatim", "--keep-duplicates"] + dumps, in: site)
        XCTAssertEqual(code, 0, output.errors)
        let imported = posts(site).filter { before[$0.key] == nil }
        XCTAssertEqual(imported.count, articleCount + 1)
        XCTAssertFalse(imported.values.contains { $0.contains("```") })
        XCTAssertTrue(output.errors.contains("both imported (--keep-duplicates)"), output.errors)

        // A real error still refuses the whole import, with its position, and writes nothing.
        let bad = (site as NSString).appendingPathComponent("bad.txt")
        try Data("- 投稿日:2021-02-30T10:00:00+09:00\nタイトル\n本文\n".utf8).write(to: URL(fileURLWithPath: bad))
        let other = try newSite()
        let untouched = posts(other)
        (code, output) = blog(["import", "text", bad] + dumps, in: other)
        XCTAssertEqual(code, 1)
        XCTAssertTrue(output.errors.contains("bad.txt:1:7: error: invalid date '2021-02-30T10:00:00+09:00'"), output.errors)
        XCTAssertEqual(posts(other), untouched)
        (code, _) = blog(["import", "qiita-cli", site, "--verbatim"], in: site)
        XCTAssertEqual(code, 64)
    }
}
