import XCTest
import BlogMarkdown

/// Every `Fixtures/<name>.md` is rendered with the default (Qiita) options and compared with
/// `Fixtures/<name>.html`. The expected files were checked by eye. With BLOG_UPDATE_FIXTURES=1 the
/// test writes a missing `.html` (to be reviewed) instead of failing.
final class FixtureTests: XCTestCase {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    func testAllFixtures() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".md") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 12, "fixtures missing")
        let renderer = MarkdownRenderer()
        let update = ProcessInfo.processInfo.environment["BLOG_UPDATE_FIXTURES"] == "1"
        for name in names {
            let mdURL = Self.directory.appendingPathComponent(name)
            let htmlURL = mdURL.deletingPathExtension().appendingPathExtension("html")
            let markdown = try String(contentsOf: mdURL, encoding: .utf8)
            let actual = renderer.render(markdown).html
            guard let expected = try? String(contentsOf: htmlURL, encoding: .utf8) else {
                if update { try actual.write(to: htmlURL, atomically: false, encoding: .utf8); continue }
                XCTFail("missing expected output \(htmlURL.lastPathComponent)")
                continue
            }
            XCTAssertEqual(actual, expected, "fixture \(name)")
        }
        print("fixtures: compared \(names.count)")
    }
}
