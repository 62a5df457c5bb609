import BlogCore
import BlogSite
import Foundation
import XCTest

/// `blog serve` rebuilds from the files its watcher names: a link out of the site folder added
/// while it runs must be refused as in a full build, not read because it was named.
final class OutsideLinkRebuildTests: XCTestCase {
    func testALinkAddedDuringServeIsRefused() throws {
        let site = try Fixtures.copy("basic")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString).md")
        try "---\ntitle: Secret\ndate: 2020-01-01T00:00:00+09:00\n---\nsecret text\n".write(to: outside, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: outside) }
        let builder = IncrementalBuilder(options: BuildOptions(siteDirectory: site, now: Fixtures.now))
        _ = try builder.rebuild()
        let link = site.appendingPathComponent("content/posts/leak.md")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        XCTAssertThrowsError(try builder.rebuild(changed: [link.path])) { error in
            XCTAssertTrue("\(error)".contains("content/posts/leak.md"), "\(error)")
            XCTAssertTrue("\(error)".contains("outside the site folder"), "\(error)")
        }
    }
}
