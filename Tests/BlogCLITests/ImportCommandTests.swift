import BlogCore
import Foundation
@testable import BlogCLI
import XCTest

/// End to end: `blog init`, `blog import` of every fixture format, `blog new`, then `blog build`.
final class ImportCommandTests: XCTestCase {
    private var fixtures: String { importFixtures }

    private func blog(_ arguments: [String], in directory: String) -> (Int32, CapturedOutput) {
        runBlogCapturing(arguments, in: directory)
    }

    func testInitImportNewBuild() throws {
        let parent = (NSTemporaryDirectory() as NSString).appendingPathComponent("blog-cli-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: parent) }
        let site = (parent as NSString).appendingPathComponent("site")

        var (code, output) = blog(["init", "site"], in: parent)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertTrue(output.output.contains("created site/blog.yml"), output.output)

        (code, output) = blog(["import", "qiita-api", "\(fixtures)/qiita-api/items.json", "\(fixtures)/qiita-api/more.json"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertTrue(output.output.contains("created content/posts/2021-05-10-0123456789abcdef0123.md"), output.output)
        XCTAssertTrue(output.output.hasSuffix("4 created, 0 unchanged, 0 skipped, 0 failed\n"), output.output)
        (code, output) = blog(["import", "qiita-cli", "\(fixtures)/qiita-cli"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        (code, output) = blog(["import", "text", "\(fixtures)/text/dump.txt"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertTrue(output.errors.contains("warning: duplicate article"), output.errors)

        // Again: nothing changes.
        (code, output) = blog(["import", "text", "\(fixtures)/text/dump.txt"], in: site)
        XCTAssertEqual(code, 0)
        XCTAssertTrue(output.output.hasSuffix("0 created, 4 unchanged, 0 skipped, 0 failed\n"), output.output)

        // Errors: exit 1, file:line:col, nothing written.
        let before = try FileManager.default.contentsOfDirectory(atPath: site + "/content/posts").sorted()
        (code, output) = blog(["import", "qiita-api", "\(fixtures)/qiita-api/items.json", "\(fixtures)/qiita-api/broken.json"], in: site)
        XCTAssertEqual(code, 1)
        XCTAssertTrue(output.errors.contains("broken.json:5:5: error: invalid JSON"), output.errors)
        (code, output) = blog(["import", "text", "\(fixtures)/text/noheader.txt"], in: site)
        XCTAssertEqual(code, 1)
        XCTAssertTrue(output.errors.contains("noheader.txt: error: no article header found"), output.errors)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: site + "/content/posts").sorted(), before)
        (code, _) = blog(["import", "yaml", "x"], in: site)
        XCTAssertEqual(code, 64)

        (code, output) = blog(["import", "text", "\(fixtures)/text/noheader.txt", "--date", "2020-04-01", "--title", "【Xcode】メモ"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertTrue(output.output.contains("created content/posts/2020-04-01-"), output.output)

        (code, output) = blog(["new", "SwiftUIの話", "--tags", "Swift,SwiftUI", "--slug", "swiftui-talk"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertTrue(output.output.hasPrefix("content/posts/"), output.output)
        XCTAssertTrue(output.output.hasSuffix("-swiftui-talk.md\n"), output.output)

        (code, output) = blog(["build"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        let postPage = site + "/public/posts/0123456789abcdef0123/index.html"
        let html = try XCTUnwrap(FileManager.default.contents(atPath: postPage).map { String(decoding: $0, as: UTF8.self) })
        XCTAssertTrue(html.contains("Codableで日付を扱う"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: site + "/public/posts/welcome/index.html"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: site + "/public/posts/swiftui-talk/index.html"))
    }
}
