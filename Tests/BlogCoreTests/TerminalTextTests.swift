import BlogCore
import XCTest

final class TerminalTextTests: XCTestCase {
    func testControlsAreShownEscaped() {
        XCTAssertEqual(TerminalText.escaped("a\u{1B}]0;x\u{7}b"), #"a\e]0;x\u{7}b"#)
        XCTAssertEqual(TerminalText.escaped("\u{0}\u{7F}\u{9B}31m\u{202E}"), #"\u{0}\u{7F}\u{9B}31m\u{202E}"#)
        XCTAssertEqual(TerminalText.escaped("x\ry"), #"x\u{D}y"#)
        XCTAssertEqual(TerminalText.escaped("line\n\tnext"), "line\n\tnext")
        XCTAssertEqual(TerminalText.escaped("file\nname", keepingNewlines: false), #"file\u{A}name"#)
        // Text without controls is untouched, Japanese and symbols sharing the lead bytes included.
        for plain in ["日本語のタイトル", "a – b … “c” ©", "→ ✓ ¥"] {
            XCTAssertEqual(TerminalText.escaped(plain), plain)
        }
    }

    func testConsoleEscapesEveryMessage() {
        let (console, captured) = Console.capturing()
        console.print("created \u{1B}[2Jx.md")
        console.printError("error: \u{7}")
        console.report(.error("bad value '\u{1B}[31m'", at: SourceLocation(file: "content/\u{1B}]0;t\u{7}\n.md", line: 2, column: 3)))
        XCTAssertEqual(captured.output, "created \\e[2Jx.md\n")
        XCTAssertEqual(captured.errors, "error: \\u{7}\ncontent/\\e]0;t\\u{7}\\u{A}.md:2:3: error: bad value '\\e[31m'\n")
    }
}
