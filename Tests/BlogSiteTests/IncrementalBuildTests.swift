import BlogContent
import BlogCore
import BlogSite
import Foundation
import XCTest

/// A rebuild after a change must give exactly what a fresh build gives, while rendering less.
final class IncrementalBuildTests: XCTestCase {
    var site: URL!
    var builder: IncrementalBuilder!

    override func setUpWithError() throws {
        site = try Fixtures.copy("basic")
        builder = IncrementalBuilder(options: BuildOptions(siteDirectory: site, now: Fixtures.now))
    }

    func write(_ path: String, _ text: String) throws {
        let url = site.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: false, encoding: .utf8)
    }

    /// Rebuilds incrementally and compares every file with a fresh build.
    @discardableResult
    func rebuildMatchesFreshBuild(_ changed: [String], file: StaticString = #filePath, line: UInt = #line) throws -> IncrementalBuilder.Result {
        let result = try builder.rebuild(changed: Set(changed.map { site.appendingPathComponent($0).path }))
        let fresh = try build(site)
        XCTAssertEqual(result.site.paths, fresh.paths, file: file, line: line)
        for (a, b) in zip(result.site.files, fresh.files) where a.bytes != b.bytes {
            XCTFail("\(a.path) differs from a fresh build", file: file, line: line)
        }
        return result
    }

    func testEditsGiveTheSameOutputAsAFreshBuild() throws {
        let first = try builder.rebuild()
        XCTAssertGreaterThan(first.renderedPages, 15)
        let unchanged = try rebuildMatchesFreshBuild([])
        XCTAssertEqual(unchanged.renderedPages, 0, "nothing changed, nothing rendered")

        // Body only: the post itself (and nothing that lists only its title... its summary shows in lists).
        try write("content/posts/2020-03-01-second.md", "---\ntitle: 二番目の記事\ndate: 2020-03-01\nupdated: 2020-03-05T12:00:00+09:00\ntags:\n  - swift\n  - 日本語\nslug: second\n---\n書き直した本文です。\n")
        let edited = try rebuildMatchesFreshBuild(["content/posts/2020-03-01-second.md"])
        XCTAssertGreaterThan(edited.renderedPages, 0)
        XCTAssertLessThan(edited.renderedPages, first.renderedPages, "only the pages that show the post")
        XCTAssertFalse(edited.site.text("posts/0123456789abcdef0123/index.html")!.isEmpty)

        // A new tag and a new post.
        try write("content/posts/2022-01-01-new.md", "---\ntitle: New\ndate: 2022-01-01\ntags: [Brand]\n---\nnew\n")
        let added = try rebuildMatchesFreshBuild(["content/posts/2022-01-01-new.md"])
        XCTAssertTrue(added.site.paths.contains("tags/brand/index.html"))

        // A deleted post takes its tag page and archive with it.
        try FileManager.default.removeItem(at: site.appendingPathComponent("content/posts/2022-01-01-new.md"))
        let removed = try rebuildMatchesFreshBuild(["content/posts/2022-01-01-new.md"])
        XCTAssertFalse(removed.site.paths.contains("tags/brand/index.html"))
        XCTAssertFalse(removed.site.paths.contains("archive/2022/index.html"))

        // Config and templates rebuild everything.
        try write("blog.yml", "title: Renamed\nposts_per_page: 1\nlanguage: en\n")
        let reconfigured = try rebuildMatchesFreshBuild(["blog.yml"])
        XCTAssertTrue(reconfigured.site.text("index.html")!.contains("Renamed"))
        try write("layouts/404.mustache", "gone")
        let relaid = try rebuildMatchesFreshBuild(["layouts/404.mustache"])
        XCTAssertEqual(relaid.site.text("404.html"), "gone")

        // Static files.
        try write("static/new.txt", "hello")
        XCTAssertTrue(try rebuildMatchesFreshBuild(["static/new.txt"]).site.paths.contains("new.txt"))
    }

    func testABrokenFileKeepsTheLastGoodStateAndRecovers() throws {
        _ = try builder.rebuild()
        try write("content/posts/2020-02-06-hello.md", "---\ntitle: Hello\ndate: 2020-02-31\n---\n")
        XCTAssertThrowsError(try builder.rebuild(changed: [site.appendingPathComponent("content/posts/2020-02-06-hello.md").path])) { error in
            XCTAssertTrue("\(error)".contains("content/posts/2020-02-06-hello.md:3:7: error: invalid date"), "\(error)")
        }
        try write("content/posts/2020-02-06-hello.md", "---\ntitle: Hello again\ndate: 2020-02-06\nslug: hello\n---\nfixed\n")
        let fixed = try rebuildMatchesFreshBuild(["content/posts/2020-02-06-hello.md"])
        XCTAssertTrue(fixed.site.text("posts/hello/index.html")!.contains("Hello again"))
    }
}
