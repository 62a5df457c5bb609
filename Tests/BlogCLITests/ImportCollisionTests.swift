import BlogCore
import Foundation
@testable import BlogCLI
import XCTest

/// `blog import` and `blog new` keep slugs unique against every post the build reads, those in
/// sub-folders of `content/posts/` included.
final class ImportCollisionTests: XCTestCase {
    private var fixtures: String { importFixtures }

    private func blog(_ arguments: [String], in directory: String) -> (Int32, CapturedOutput) {
        runBlogCapturing(arguments, in: directory)
    }

    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func testSlugsInSubFoldersAreTaken() throws {
        let parent = (NSTemporaryDirectory() as NSString).appendingPathComponent("blog-cli-collide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: parent) }
        let site = (parent as NSString).appendingPathComponent("site")
        XCTAssertEqual(blog(["init", "site"], in: parent).0, 0)
        // One post names its slug, one takes it from its title, both in sub-folders.
        try write("---\ntitle: Old\ndate: 2019-01-01T00:00:00+09:00\nslug: 0123456789abcdef0123\n---\nold\n",
                  to: site + "/content/posts/2019/01/old.md")
        try write("---\ntitle: FEDCBA9876543210FEDC\ndate: 2019-01-02T00:00:00+09:00\n---\nold\n",
                  to: site + "/content/posts/2019/titled.md")

        var (code, output) = blog(["import", "qiita-api", "\(fixtures)/qiita-api/items.json"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertTrue(output.output.contains("created content/posts/2021-05-10-0123456789abcdef0123-2.md"), output.output)
        XCTAssertTrue(output.output.contains("-fedcba9876543210fedc-2.md"), output.output)

        (code, output) = blog(["new", "Another", "--slug", "0123456789abcdef0123"], in: site)
        XCTAssertEqual(code, 1)
        XCTAssertTrue(output.errors.contains("content/posts/2019/01/old.md"), output.errors)

        (code, output) = blog(["build"], in: site)
        XCTAssertEqual(code, 0, output.errors)
        XCTAssertFalse(output.errors.contains("two posts have the URL"), output.errors)
        XCTAssertTrue(FileManager.default.fileExists(atPath: site + "/public/posts/0123456789abcdef0123-2/index.html"))
    }
}
