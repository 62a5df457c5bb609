import BlogContent
import BlogCore
import BlogSite
import Foundation
import XCTest

/// Pagination edges, archives, neighbours and related posts, on sites declared inline.
final class BrowsingTests: XCTestCase {
    /// A site with `count` posts, one a day from 2020-01-01, all tagged `t`, 3 per page.
    func site(posts count: Int, perPage: Int = 3, extra: [String: String] = [:]) throws -> BuiltSite {
        var files = ["blog.yml": "title: P\nposts_per_page: \(perPage)\nlanguage: en\n"]
        for n in 0..<count {
            let day = String(format: "%02d", n % 28 + 1)
            let month = String(format: "%02d", n / 28 + 1)
            files["content/posts/p\(n).md"] = "---\ntitle: Post \(n)\ndate: 2020-\(month)-\(day)T12:00:00+09:00\ntags: [t]\nslug: p\(n)\n---\nText \(n)\n"
        }
        for (path, text) in extra { files[path] = text }
        return try build(try Fixtures.site(files))
    }

    func pageNumbers(_ site: BuiltSite, prefix: String = "") -> [String] {
        site.paths.filter { $0 == prefix + "index.html" || ($0.hasPrefix(prefix + "page/") && $0.hasSuffix("/index.html")) }.sorted()
    }

    func testPaginationEdges() throws {
        XCTAssertEqual(pageNumbers(try site(posts: 0)), ["index.html"], "an empty site still has a home page")
        XCTAssertEqual(pageNumbers(try site(posts: 1)), ["index.html"])
        XCTAssertEqual(pageNumbers(try site(posts: 3)), ["index.html"], "exactly one page")
        let four = try site(posts: 4)
        XCTAssertEqual(pageNumbers(four), ["index.html", "page/2/index.html"], "a page plus one")
        XCTAssertEqual(pageNumbers(four, prefix: "tags/t/"), ["tags/t/index.html", "tags/t/page/2/index.html"])
        let first = try XCTUnwrap(four.text("index.html"))
        XCTAssertTrue(first.contains("rel=\"next\""))
        XCTAssertFalse(first.contains("rel=\"prev\""))
        XCTAssertTrue(first.contains("href=\"/page/2/\""))
        let second = try XCTUnwrap(four.text("page/2/index.html"))
        XCTAssertTrue(second.contains("rel=\"prev\""))
        XCTAssertFalse(second.contains("rel=\"next\""))
        XCTAssertTrue(second.contains("Post 0"), "the oldest post is on the last page")
        XCTAssertFalse(second.contains("Post 3<"), "the newest is not")
        let empty = try XCTUnwrap(try site(posts: 0).text("index.html"))
        XCTAssertFalse(empty.contains("rel=\"next\""))
    }

    func testLongPaginationShowsAWindow() throws {
        let built = try site(posts: 30, perPage: 1)
        let page = try XCTUnwrap(built.text("page/15/index.html"))
        for number in [1, 13, 14, 16, 17, 30] {
            XCTAssertTrue(page.contains(number == 1 ? "href=\"/\"" : "href=\"/page/\(number)/\""), "link to page \(number)")
        }
        for number in [2, 12, 18, 29] {
            XCTAssertFalse(page.contains("href=\"/page/\(number)/\">"), "no link to page \(number)")
        }
        XCTAssertEqual(page.components(separatedBy: "pagination-gap").count - 1, 2)
        XCTAssertTrue(page.contains("aria-current=\"page\">15<"))
    }

    func testArchivesAcrossYears() throws {
        let built = try build(try Fixtures.site([
            "content/posts/a.md": "---\ntitle: A\ndate: 2019-12-31T23:30:00+09:00\n---\n",
            "content/posts/b.md": "---\ntitle: B\ndate: 2020-01-01T00:30:00+09:00\n---\n",
            "content/posts/c.md": "---\ntitle: C\ndate: 2020-02-10\n---\n",
            // 2019-12-31T15:30Z is 2020-01-01 in Tokyo, the site's zone.
            "content/posts/d.md": "---\ntitle: D\ndate: 2019-12-31T15:30:00Z\n---\n",
        ]))
        let archives = built.paths.filter { $0.hasPrefix("archive/") }.sorted()
        XCTAssertEqual(archives, ["archive/2019/12/index.html", "archive/2019/index.html", "archive/2020/01/index.html",
                                  "archive/2020/02/index.html", "archive/2020/index.html", "archive/index.html"])
        XCTAssertEqual(built.model.years.map { [$0.year, $0.postIndices.count] }, [[2020, 3], [2019, 1]])
        let index = try XCTUnwrap(built.text("archive/index.html"))
        XCTAssertTrue(index.contains("href=\"/archive/2020/\""))
        XCTAssertTrue(index.contains("href=\"/archive/2019/12/\""))
    }

    func testNeighboursAndRelated() throws {
        let built = try build(try Fixtures.site([
            "content/posts/a.md": "---\ntitle: Alpha\ndate: 2020-01-01\ntags: [x, y]\n---\n",
            "content/posts/b.md": "---\ntitle: Beta\ndate: 2020-01-02\ntags: [z]\n---\n",
            "content/posts/c.md": "---\ntitle: Gamma\ndate: 2020-01-03\ntags: [x, y]\n---\n",
            "content/posts/d.md": "---\ntitle: Delta\ndate: 2020-01-04\ntags: [x]\n---\n",
        ]))
        let posts = built.model.posts.map(\.title)
        XCTAssertEqual(posts, ["Delta", "Gamma", "Beta", "Alpha"])
        let gamma = built.model.posts.firstIndex { $0.title == "Gamma" }!
        XCTAssertEqual(built.model.related[gamma].map { built.model.posts[$0].title }, ["Alpha", "Delta"], "two shared tags rank first")
        let beta = built.model.posts.firstIndex { $0.title == "Beta" }!
        XCTAssertEqual(built.model.related[beta], [], "nothing shared, nothing related")
        let page = try XCTUnwrap(built.text("posts/beta/index.html"))
        XCTAssertTrue(page.contains("href=\"/posts/alpha/\""), "older neighbour")
        XCTAssertTrue(page.contains("href=\"/posts/gamma/\""), "newer neighbour")
    }

    func testFutureAndDraftPostsLeaveNoTrace() throws {
        let built = try site(posts: 2, extra: [
            "content/posts/future.md": "---\ntitle: Future\ndate: 2099-01-01\ntags: [secret]\n---\n",
            "content/posts/draft.md": "---\ntitle: Draft\ndate: 2020-01-01\ntags: [secret]\ndraft: true\n---\n",
        ])
        let everything = built.files.map { String(decoding: $0.bytes, as: UTF8.self) }.joined()
        XCTAssertFalse(everything.contains("Future"))
        XCTAssertFalse(everything.contains("Draft<"))
        XCTAssertFalse(built.paths.contains { $0.contains("secret") }, "no tag page for a tag only drafts use")
    }

    func testTagsIndexIsSortedByCount() throws {
        let built = try build(try Fixtures.site([
            "content/posts/a.md": "---\ntitle: A\ndate: 2020-01-01\ntags: [rare, common]\n---\n",
            "content/posts/b.md": "---\ntitle: B\ndate: 2020-01-02\ntags: [common]\n---\n",
        ]))
        let tags = try XCTUnwrap(built.text("tags/index.html"))
        let common = try XCTUnwrap(tags.range(of: "/tags/common/"))
        let rare = try XCTUnwrap(tags.range(of: "/tags/rare/"))
        XCTAssertLessThan(common.lowerBound, rare.lowerBound)
    }

    /// Tags group by key across posts: each is named by its most common spelling (the smallest
    /// name on a tie), ordered by post count and then key, and each post's tags point at them.
    func testTagsGroupSpellingsAcrossPosts() throws {
        let tagLists = [["Swift", "iOS"], ["swift"], ["SWIFT", "Go"], ["swift", "go"], ["Swift"], ["IOS"], ["Go"], ["Rust"]]
        var files = ["blog.yml": "title: T\nlanguage: en\n"]
        for (n, tags) in tagLists.enumerated() {
            files["content/posts/p\(n).md"] = "---\ntitle: Post \(n)\ndate: 2020-01-\(String(format: "%02d", n + 1))T12:00:00+09:00\ntags: [\(tags.joined(separator: ", "))]\nslug: p\(n)\n---\nText\n"
        }
        let model = try build(try Fixtures.site(files)).model
        // Newest first: p7 … p0.
        XCTAssertEqual(model.tags.map(\.name), ["Swift", "Go", "IOS", "Rust"], "Swift ×2, swift ×2, SWIFT ×1 and iOS ×1, IOS ×1: a tie goes to the smallest name")
        XCTAssertEqual(model.tags.map(\.postIndices.count), [5, 3, 2, 1])
        for (index, post) in model.posts.enumerated() {
            XCTAssertEqual(model.postTags[index].map { model.tags[$0].key }, post.tagKeys, post.slug)
            for tag in model.postTags[index] { XCTAssertTrue(model.tags[tag].postIndices.contains(index)) }
        }
    }
}
