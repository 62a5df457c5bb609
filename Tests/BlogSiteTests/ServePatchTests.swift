import BlogContent
import BlogCore
import BlogSite
import Foundation
import XCTest

/// `IncrementalBuilder` patches the last build when an edit keeps the site's structure (only the
/// pages showing the edited post are made again). Every kind of edit, whether it takes that path
/// or the whole way, must give the files of a fresh build, and the changed paths it reports must be
/// exactly those that differ from the previous build.
final class ServePatchTests: XCTestCase {
    /// 30 posts over three years with overlapping tags, 3 per page and feeds of 4: several home, tag
    /// and archive pages, related posts, posts in and out of feeds.
    static func makeSite() throws -> URL {
        var files: [String: String] = [
            "blog.yml": "title: Patch Site\nbase_url: https://example.com/\nlanguage: ja\nauthor: Tester\nposts_per_page: 3\nfeed_limit: 4\n",
            "content/about.md": "---\ntitle: About\n---\nAbout this site.\n",
            "content/posts/draft.md": "---\ntitle: A draft\ndate: 2021-05-05T10:00:00Z\ndraft: true\ntags: [Swift]\n---\nNot yet.\n",
        ]
        let tagPool = ["Swift", "iOS", "Linux", "検索", "Web"]
        for n in 0..<30 {
            let year = 2019 + n % 3
            let month = 1 + (n * 5) % 12
            let day = 1 + n % 27
            let tags = [tagPool[n % 5], tagPool[(n / 2) % 5], tagPool[(n * 3 + 1) % 5]]
            let name = String(format: "p%02d", n)
            files["content/posts/\(name).md"] = """
                ---
                title: Post \(n) <\(name)>
                date: \(year)-\(String(format: "%02d", month))-\(String(format: "%02d", day))T10:00:00+09:00
                tags: [\(Array(Set(tags)).sorted().joined(separator: ", "))]
                ---
                # 見出し \(n)

                First paragraph of post \(n) about \(tags[0]) and 検索エンジン.

                ```swift
                let value\(n) = \(n)
                ```

                """
        }
        return try Fixtures.site(files)
    }

    func testEditsMatchFreshBuildsAndReportTheirChanges() throws {
        let site = try ServePatchTests.makeSite()
        let builder = IncrementalBuilder(options: BuildOptions(siteDirectory: site, now: Fixtures.now))
        var previous = try builder.rebuild().files
        let files = EditedSite(root: site)
        /// Rebuilds for a change of `paths` and compares with a fresh build and with the last result.
        @discardableResult
        func check(_ paths: [String], _ step: String, patched: Bool? = nil) throws -> IncrementalBuilder.Result {
            let result = try builder.rebuild(changed: Set(paths.map { files.url($0).path }))
            try assertMatchesFreshBuild(result, site, step)
            let differing = Set(previous.keys.filter { result.files[$0] != previous[$0] })
                .union(result.files.keys.filter { previous[$0] == nil })
            if let reported = result.changedPaths {
                XCTAssertEqual(reported.sorted(), differing.sorted(), "\(step): reported changed paths")
            }
            if let patched { XCTAssertEqual(result.patched, patched, "\(step): patched") }
            previous = result.files
            return result
        }

        // Body edits: the patch path, a handful of pages.
        let middle = "content/posts/p13.md"
        for i in 0..<3 {
            try files.write(middle, try files.read(middle) + "\n追記 \(i): ベンチマークの編集です。 appendedWord\(i) 新語\(i)\n")
            let result = try check([middle], "append \(i)", patched: true)
            XCTAssertLessThan(result.renderedPages, 20, "append \(i): pages rendered")
            XCTAssertFalse(result.changedPaths?.isEmpty ?? true, "append \(i)")
        }
        // The newest and the oldest post (home feed, first and last home page, no neighbour on one side).
        let posts = try FileManager.default.contentsOfDirectory(atPath: files.url("content/posts").path).filter { $0 != "draft.md" }
        let fresh = try build(site)
        let order = fresh.model.posts.map(\.sourcePath)
        XCTAssertEqual(order.count, posts.count)
        try files.write(order.first!, try files.read(order.first!) + "\n最新の記事への追記\n")
        try check([order.first!], "newest", patched: true)
        try files.write(order.last!, try files.read(order.last!) + "\n最古の記事への追記\n")
        try check([order.last!], "oldest", patched: true)
        // The summary (first paragraph), shown on list pages and in posts.json.
        try files.replace(middle, "First paragraph of post 13", "要約が変わりました: the summary of post 13")
        try check([middle], "summary", patched: true)
        // Two posts at once.
        try files.write(order[1], try files.read(order[1]) + "\nbody 1\n")
        try files.write(order[7], try files.read(order[7]) + "\nbody 7\n")
        try check([order[1], order[7]], "two posts", patched: true)
        // The same bytes written again: nothing changes.
        try files.write(middle, try files.read(middle))
        let same = try check([middle], "no change")
        XCTAssertEqual(same.changedPaths, [], "no change")
        // The title: every list showing the post, and the search index's order keys. (Without a
        // slug the URL comes from the title: the whole way.)
        try files.replace(middle, "title: Post 13 <p13>", "title: Renamed & 改名")
        try check([middle], "title and slug", patched: false)
        try files.replace(middle, "title: ", "slug: p13\ntitle: ")
        try check([middle], "slug", patched: false)
        try files.replace(middle, "title: Renamed & 改名", "title: Renamed again")
        try check([middle], "title", patched: true)
        // Front matter that changes the structure or site-wide files: the whole way, same result.
        try files.replace(middle, "date: ", "description: A description.\ndate: ")
        try check([middle], "description", patched: true)
        try files.replace(middle, "tags: [", "tags: [NewTag, ")
        try check([middle], "tags", patched: false)
        try files.replace(middle, "T10:00:00", "T11:00:00")
        try check([middle], "date, same place")
        try files.replace(middle, "date: 2020", "date: 2024")
        try check([middle], "date moves the post", patched: false)
        try files.replace(middle, "title: ", "updated: 2025-01-01T00:00:00Z\ntitle: ")
        try check([middle], "updated", patched: false)
        try files.replace(middle, "title: ", "id: custom-id\ntitle: ")
        try check([middle], "id", patched: false)
        try files.replace(middle, "slug: p13", "slug: moved")
        try check([middle], "another slug", patched: false)
        try files.replace(middle, "title: ", "draft: true\ntitle: ")
        try check([middle], "draft", patched: false)
        try files.replace(middle, "draft: true\n", "")
        try check([middle], "draft again published", patched: false)
        // A draft edited while it stays a draft, a page, a new post, a deleted one.
        try files.write("content/posts/draft.md", try files.read("content/posts/draft.md") + "\nmore\n")
        try check(["content/posts/draft.md"], "draft edited")
        try files.write("content/about.md", try files.read("content/about.md") + "\nMore about.\n")
        try check(["content/about.md"], "page")
        try files.write("content/posts/new.md", "---\ntitle: New\ndate: 2020-06-15T10:00:00Z\ntags: [Swift, Web]\n---\nA new post.\n")
        try check(["content/posts/new.md"], "new post", patched: false)
        try FileManager.default.removeItem(at: files.url("content/posts/p05.md"))
        try check(["content/posts/p05.md"], "deleted post", patched: false)
        // After all that, body edits patch again.
        for path in [middle, order[2], "content/posts/new.md"] {
            try files.write(path, try files.read(path) + "\nlater edit\n")
            try check([path], "later edit of \(path)", patched: true)
        }
    }

    /// The archive's index lists every post (title, link, date, draft badge): an edit of a post's
    /// text leaves it as it is, whether the rebuild patches or goes the whole way, and an edit of
    /// what it shows makes it again.
    func testArchiveIndexIsMadeAgainOnlyWhenWhatItShowsChanges() throws {
        let site = try ServePatchTests.makeSite()
        let builder = IncrementalBuilder(options: BuildOptions(siteDirectory: site, now: Fixtures.now))
        let first = try builder.rebuild()
        let index = "archive/index.html"
        XCTAssertTrue(first.renderedPaths.contains(index), "the first build makes every page")
        let files = EditedSite(root: site)
        func rebuild(_ paths: [String], _ step: String, patched: Bool? = nil) throws -> IncrementalBuilder.Result {
            let result = try builder.rebuild(changed: Set(paths.map { files.url($0).path }))
            try assertMatchesFreshBuild(result, site, step)
            if let patched { XCTAssertEqual(result.patched, patched, "\(step): patched") }
            return result
        }
        let post = "content/posts/p13.md"

        // The body: the post's own page is made again, the index is not.
        try files.write(post, try files.read(post) + "\n本文への追記\n")
        let body = try rebuild([post], "body", patched: true)
        XCTAssertFalse(body.renderedPaths.isEmpty, "body: the post's pages are made again")
        XCTAssertFalse(body.renderedPaths.contains(index), "body: \(body.renderedPaths)")
        // A body and a page at once: the whole way, and still not the index.
        try files.write(post, try files.read(post) + "\nもう一度\n")
        try files.write("content/about.md", try files.read("content/about.md") + "\nMore.\n")
        let whole = try rebuild([post, "content/about.md"], "body and page", patched: false)
        XCTAssertFalse(whole.renderedPaths.isEmpty, "body and page: pages are made again")
        XCTAssertFalse(whole.renderedPaths.contains(index), "body and page: \(whole.renderedPaths)")

        // What the index shows: the title, the date within its day, the slug.
        try files.replace(post, "title: Post 13 <p13>", "slug: p13\ntitle: Renamed 改名")
        let title = try rebuild([post], "title", patched: false)
        XCTAssertTrue(title.renderedPaths.contains(index), "title")
        XCTAssertTrue(title.files[index].map { String(decoding: $0, as: UTF8.self) }?.contains("Renamed 改名") ?? false, "title")
        try files.replace(post, "title: Renamed 改名", "title: Renamed again")
        XCTAssertTrue(try rebuild([post], "title again", patched: true).renderedPaths.contains(index), "title again")
        try files.replace(post, "T10:00:00", "T11:00:00")
        XCTAssertTrue(try rebuild([post], "time of day").renderedPaths.contains(index), "time of day")
        try files.replace(post, "slug: p13", "slug: p13-moved")
        XCTAssertTrue(try rebuild([post], "slug").renderedPaths.contains(index), "slug")
    }

    /// A build that fails keeps nothing to patch from: the next good build goes the whole way and
    /// still matches a fresh build.
    func testFailedBuildIsNotPatched() throws {
        let site = try ServePatchTests.makeSite()
        let builder = IncrementalBuilder(options: BuildOptions(siteDirectory: site, now: Fixtures.now))
        _ = try builder.rebuild()
        let path = site.appendingPathComponent("content/posts/p10.md")
        let original = try String(contentsOf: path, encoding: .utf8)
        try original.replacingOccurrences(of: "date: ", with: "date: not a date\nbroken: [\n").write(to: path, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try builder.rebuild(changed: [path.path]))
        try (original + "\nfixed\n").write(to: path, atomically: false, encoding: .utf8)
        let result = try builder.rebuild(changed: [path.path])
        XCTAssertFalse(result.patched)
        let fresh = try build(site)
        XCTAssertEqual(result.site.paths, fresh.paths)
        for (a, b) in zip(result.site.files, fresh.files) where a.bytes != b.bytes { XCTFail("\(a.path) differs from a fresh build") }
        try (original + "\nfixed twice\n").write(to: path, atomically: false, encoding: .utf8)
        XCTAssertTrue(try builder.rebuild(changed: [path.path]).patched)
    }
}

/// A fixture site's files by path, for the tests that edit them between rebuilds.
private struct EditedSite {
    let root: URL

    func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    func read(_ path: String) throws -> String { try String(contentsOf: url(path), encoding: .utf8) }

    func write(_ path: String, _ text: String) throws { try text.write(to: url(path), atomically: false, encoding: .utf8) }

    func replace(_ path: String, _ old: String, _ new: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let text = try read(path)
        XCTAssertTrue(text.contains(old), "\(path) has no '\(old)'", file: file, line: line)
        try write(path, text.replacingOccurrences(of: old, with: new))
    }
}
