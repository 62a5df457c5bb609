import BlogSite
import Foundation
import XCTest

/// Large outputs of the `basic` fixture compared byte for byte with files checked in under
/// Fixtures/golden. After an intended change, regenerate with BLOG_UPDATE_GOLDEN=1 and review the diff.
final class GoldenTests: XCTestCase {
    static let goldenFiles = ["feed.xml", "tags/swift/feed.xml", "tags.json", "posts.json", "sitemap.xml", "robots.txt",
                              "posts/hello/index.html", "tags/index.html"]

    func testBasicSiteMatchesGoldenFiles() throws {
        let site = try build(try Fixtures.copy("basic"))
        let golden = Fixtures.root.appendingPathComponent("golden")
        let update = ProcessInfo.processInfo.environment["BLOG_UPDATE_GOLDEN"] == "1"
        for path in GoldenTests.goldenFiles {
            let actual = try XCTUnwrap(site.files.first { $0.path == path }, path).bytes
            let url = golden.appendingPathComponent(path.replacingOccurrences(of: "/", with: "__"))
            if update {
                try Data(actual).write(to: url)
                continue
            }
            let expected = try XCTUnwrap(FileManager.default.contents(atPath: url.path), "missing golden file \(url.lastPathComponent); run with BLOG_UPDATE_GOLDEN=1")
            if [UInt8](expected) != actual {
                XCTFail("\(path) differs from \(url.lastPathComponent):\n" + String(decoding: actual, as: UTF8.self))
            }
        }
    }
}
