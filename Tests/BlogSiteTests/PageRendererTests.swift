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
}
