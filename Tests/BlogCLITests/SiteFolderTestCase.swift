import BlogCLI
import BlogCore
import Foundation
import XCTest

/// A test case with a fresh temporary site folder, and `blog` run in it through `runBlog` (the
/// function `main.swift` calls).
class SiteFolderTestCase: XCTestCase {
    var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("blog-\(type(of: self))-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    func run(_ arguments: [String]) -> (code: Int32, out: String, err: String) {
        let (code, captured) = runBlogCapturing(arguments, in: root.path)
        return (code, captured.output, captured.errors)
    }

    func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: false, encoding: .utf8)
    }
}

/// `blog ARGUMENTS` run in `directory`, with what it printed.
func runBlogCapturing(_ arguments: [String], in directory: String) -> (Int32, CapturedOutput) {
    let (console, captured) = Console.capturing()
    let code = runBlog(arguments: arguments, context: CommandContext(console: console, workingDirectory: URL(fileURLWithPath: directory)))
    return (code, captured)
}

/// The importer's fixture files, shared with BlogImportTests.
var importFixtures: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("BlogImportTests/Fixtures").path
}
