import XCTest
import BlogContent
import BlogCore

/// `embeds` and `mentions` in blog.yml: their defaults, their values, and their errors with the
/// position of the bad value.
final class DialectConfigTests: XCTestCase {
    func testDefaults() throws {
        let config = try SiteConfig.parse("title: ブログ\n", path: "blog.yml", console: nil)
        XCTAssertFalse(config.embedScripts)
        XCTAssertEqual(config.mentionsBaseURL, "https://qiita.com/")
    }

    func testValues() throws {
        let on = try SiteConfig.parse("embeds:\n  scripts: true\nmentions:\n  base_url: https://example.com/users/\n", path: "blog.yml", console: nil)
        XCTAssertTrue(on.embedScripts)
        XCTAssertEqual(on.mentionsBaseURL, "https://example.com/users/")
        let off = try SiteConfig.parse("mentions: false\n", path: "blog.yml", console: nil)
        XCTAssertNil(off.mentionsBaseURL)
    }

    func testErrorsNameTheValue() {
        XCTAssertThrowsError(try SiteConfig.parse("embeds:\n  scripts: maybe\nmentions:\n  base_url: javascript:alert(1)\n", path: "blog.yml", console: nil)) { error in
            let list = (error as? DiagnosticList)?.diagnostics.map(\.description) ?? []
            XCTAssertEqual(list, ["blog.yml:2:12: error: 'embeds.scripts' must be true or false",
                                  "blog.yml:4:13: error: 'mentions.base_url' must be an http(s) URL or a path starting with /"])
        }
        XCTAssertThrowsError(try SiteConfig.parse("embeds: yes please\n", path: "blog.yml", console: nil)) { error in
            let list = (error as? DiagnosticList)?.diagnostics.map(\.description) ?? []
            XCTAssertEqual(list, ["blog.yml:1:9: error: 'embeds' must be a mapping (scripts)"])
        }
    }
}
