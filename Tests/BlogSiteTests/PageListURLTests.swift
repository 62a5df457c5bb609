@testable import BlogSite
import BlogCore
import Foundation
import XCTest

/// A full build's renderer takes list page URLs from `listURLs` (made once); a renderer made for
/// a few pages (`summariesFor`) builds them with `pagedURL`. Both must give the same pages.
final class PageListURLTests: XCTestCase {
    func testListPagesAreTheSameWithAndWithoutPrebuiltURLs() throws {
        for baseURL in [nil, "https://example.com/blog/"] {
            let site = try build(try Fixtures.copy("basic"), drafts: true, future: true, baseURL: baseURL)
            let model = site.model
            let theme = try Theme.load(siteDirectory: try Fixtures.copy("basic"), config: model.config)
            let full = PageRenderer(model: model, theme: theme)
            let few = PageRenderer(model: model, theme: theme, summariesFor: Set(model.posts.indices))
            XCTAssertNil(few.listURLs)
            let listURLs = try XCTUnwrap(full.listURLs)
            // The prebuilt URLs are pagedURL's, for every page of every list.
            let urls = URLBuilder(config: model.config)
            let bases = [urls.path("")] + model.tags.map { urls.tag($0.slug) }
            XCTAssertEqual(listURLs.count, bases.count)
            for (list, base) in bases.enumerated() {
                XCTAssertEqual(listURLs[list], (1...listURLs[list].count).map { full.pagedURL(base, $0) })
                // Outside a list's pages (not asked for by the renderer), the same URL as made.
                XCTAssertEqual(full.listURL(list, base: base, page: listURLs[list].count + 1), full.pagedURL(base, listURLs[list].count + 1))
            }
            let lists = full.jobs.filter {
                switch $0 {
                case .home, .tag: return true
                default: return false
                }
            }
            // The fixture has more than one page in some list (posts_per_page: 2).
            XCTAssertTrue(listURLs.contains { $0.count > 1 })
            XCTAssertGreaterThan(lists.count, bases.count)
            for job in lists {
                let a = try full.render(job), b = try few.render(job)
                XCTAssertEqual(a.path, b.path)
                XCTAssertEqual(String(decoding: a.bytes, as: UTF8.self), String(decoding: b.bytes, as: UTF8.self), a.path)
                XCTAssertEqual(site.files.first { $0.path == a.path }?.bytes, a.bytes, a.path)
            }
        }
    }
}
