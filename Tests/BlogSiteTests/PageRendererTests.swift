@testable import BlogSite
import BlogCore
import Foundation
import XCTest

final class PageRendererTests: XCTestCase {
    /// A post page is built from its list-item view when that view exists (a full build) and
    /// from `postValue(full: true)` when it does not (an incremental build that needs no list
    /// items): both must give the same bytes, with and without a base path, for posts with and
    /// without an `updated` date.
    func testPostPagesAreTheSameWithAndWithoutListItemViews() throws {
        for baseURL in [nil, "https://example.com/blog/"] {
            let site = try build(try Fixtures.copy("basic"), drafts: true, future: true, baseURL: baseURL)
            let model = site.model
            let theme = try Theme.load(siteDirectory: try Fixtures.copy("basic"), config: model.config)
            let withSummaries = PageRenderer(model: model, theme: theme)
            XCTAssertGreaterThan(model.posts.count, 2)
            XCTAssertTrue(model.posts.contains { $0.updated != nil })
            for index in model.posts.indices {
                let a = try withSummaries.render(.post(index))
                // What an incremental build makes for this page alone: the related posts' views,
                // not the post's own.
                let needed = Set(PageRenderer.listedPosts(.post(index), model: model))
                XCTAssertFalse(needed.contains(index))
                let b = try PageRenderer(model: model, theme: theme, summariesFor: needed).render(.post(index))
                XCTAssertEqual(a.path, b.path)
                XCTAssertEqual(String(decoding: a.bytes, as: UTF8.self), String(decoding: b.bytes, as: UTF8.self), a.path)
                XCTAssertEqual(site.files.first { $0.path == a.path }?.bytes, a.bytes, a.path)
                XCTAssertTrue(String(decoding: a.bytes, as: UTF8.self).contains("article:modified_time"), a.path)
            }
        }
    }

    /// A post page's buffer is reserved from its HTML: at least the HTML itself.
    func testPostCapacityEstimateCoversTheContent() throws {
        let site = try build(try Fixtures.copy("basic"))
        for index in site.model.posts.indices {
            XCTAssertGreaterThan(PageRenderer.capacityEstimate(.post(index), model: site.model),
                                 site.model.posts[index].content.html.utf8.count)
        }
        XCTAssertEqual(PageRenderer.capacityEstimate(.tags, model: site.model), 16_384)
    }

    /// The pagination window: the first and last pages, two on each side of the current one, a
    /// gap entry where numbers are left out, and prev/next links only where there are such pages.
    func testPaginationWindow() throws {
        let site = try build(try Fixtures.copy("basic"))
        let theme = try Theme.load(siteDirectory: try Fixtures.copy("basic"), config: site.model.config)
        let renderer = PageRenderer(model: site.model, theme: theme)
        func shape(_ current: Int, _ total: Int) -> String {
            let value = renderer.pagination(current: current, total: total, base: "/b/")
            guard case .array(let pages)? = value["pages"] else { return "?" }
            var parts: [String] = pages.map { page in
                if case .bool(true)? = page["is_gap"] { return "…" }
                guard case .int(let n)? = page["number"], case .string(let url)? = page["url"] else { return "?" }
                XCTAssertEqual(url, n == 1 ? "/b/" : "/b/page/\(n)/")
                if case .bool(true)? = page["is_current"] { return "[\(n)]" }
                return "\(n)"
            }
            if case .object(let prev)? = value["prev"], case .string(let url)? = prev["url"] { parts.insert("<" + url, at: 0) }
            if case .object(let next)? = value["next"], case .string(let url)? = next["url"] { parts.append(">" + url) }
            return parts.joined(separator: " ")
        }
        XCTAssertEqual(shape(1, 1), "[1]")
        XCTAssertEqual(shape(1, 0), "[1]")
        XCTAssertEqual(shape(1, 2), "[1] 2 >/b/page/2/")
        XCTAssertEqual(shape(1, 10), "[1] 2 3 … 10 >/b/page/2/")
        XCTAssertEqual(shape(4, 10), "</b/page/3/ 1 2 3 [4] 5 6 … 10 >/b/page/5/")
        XCTAssertEqual(shape(6, 10), "</b/page/5/ 1 … 4 5 [6] 7 8 … 10 >/b/page/7/")
        XCTAssertEqual(shape(10, 10), "</b/page/9/ 1 … 8 9 [10]")
        XCTAssertEqual(shape(2, 3), "</b/ 1 [2] 3 >/b/page/3/")
        if case .bool(let hasPages)? = renderer.pagination(current: 1, total: 1, base: "/").self["has_pages"] { XCTAssertFalse(hasPages) } else { XCTFail() }
    }
}
