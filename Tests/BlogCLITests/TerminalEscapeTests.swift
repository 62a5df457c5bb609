import BlogCore
import Foundation
@testable import BlogCLI
import XCTest

/// ESC and BEL in YAML values and file names reach messages escaped, never raw.
final class TerminalEscapeTests: XCTestCase {
    private func blog(_ arguments: [String], in directory: String) -> (Int32, CapturedOutput) {
        let (console, captured) = Console.capturing()
        let code = runBlog(arguments: arguments, context: CommandContext(console: console, workingDirectory: URL(fileURLWithPath: directory)))
        return (code, captured)
    }

    func testBuildMessagesShowControlsEscaped() throws {
        let parent = (NSTemporaryDirectory() as NSString).appendingPathComponent("blog-cli-escape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: parent) }
        let site = (parent as NSString).appendingPathComponent("site")
        XCTAssertEqual(blog(["init", "site"], in: parent).0, 0)
        // YAML's double-quoted "\e" and "\a" are ESC and BEL in the key itself
        let config = try String(contentsOfFile: site + "/blog.yml", encoding: .utf8)
        try (config + "\n\"\\e]0;owned\\a\\e[2J\": 1\n").write(toFile: site + "/blog.yml", atomically: true, encoding: .utf8)
        try "---\ndate: 2020-01-01T00:00:00+09:00\n---\nno title\n"
            .write(toFile: site + "/content/posts/\u{1B}[31mred\u{7}.md", atomically: true, encoding: .utf8)

        let (code, output) = blog(["build"], in: site)
        XCTAssertEqual(code, 1)
        let everything = output.output + output.errors
        XCTAssertFalse(everything.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, everything.debugDescription)
        XCTAssertTrue(output.errors.contains(#"unknown key '\e]0;owned\u{7}\e[2J'"#), output.errors)
        XCTAssertTrue(output.errors.contains(#"content/posts/\e[31mred\u{7}.md"#), output.errors)
    }
}
