import XCTest
import TestSupport
import BlogMarkdown

final class RobustnessTests: XCTestCase {
    let renderers = [MarkdownRenderer(), MarkdownRenderer(options: MarkdownOptions(unsafeHTML: true)),
                     MarkdownRenderer(options: MarkdownOptions(hardBreaks: false, qiitaExtensions: false))]

    func check(_ markdown: String, file: StaticString = #filePath, line: UInt = #line) {
        for renderer in renderers {
            let r = renderer.render(markdown)
            // Swift Strings are valid UTF-8; make sure re-decoding is lossless (no replacement added).
            XCTAssertEqual(String(decoding: Array(r.html.utf8), as: UTF8.self), r.html, file: file, line: line)
            XCTAssertEqual(String(decoding: Array(r.plainText.utf8), as: UTF8.self), r.plainText, file: file, line: line)
        }
    }

    func testMalformedConstructs() {
        let inputs = [
            "```swift\nunclosed fence", "~~~\n", ":::note\n:::note warn\n:::", ":::\n:::", "$", "$$", "$ $", "$a", "`$a$`", "[^", "[^]: x", "[^1]:",
            "[^1]\n\n[^1]: [^1]", "| a |\n|", "|\n|-|", "| a | b |\n|---|---|\n|", "~~", "**「", "**」**a**「**",
            "<details>", "</details>", "<a href=\"", "<!--", "<img", "\u{E000}\u{E001}\u{E002}", "<!--\u{E000}note info-->",
            "- [ ]", "- [x]\n  - [ ] nested", "#", "# \n#", "http://", "https://a", "www.", "www.a", "[x](", "![", "\\", "\r\n\r\n", "\t|\t|\n\t|-|",
        ]
        for input in inputs { check(input) }
    }

    /// `restoreMarkers` runs only when the pre-pass wrote a marker: the ones it wrote into raw HTML
    /// and code must come back as written, and the input's own private-use characters (replaced by
    /// U+FFFD before the line pass) never reach a literal as markers.
    func testMarkersRestoredWhereWritten() {
        let r = MarkdownRenderer(options: MarkdownOptions(unsafeHTML: true))
        XCTAssertEqual(r.render("<div>\n$x$ and $$y$$\n</div>\n").html, "<div>\n$x$ and $$y$$\n</div>\n")
        XCTAssertEqual(r.render("<div>\n[^a]: b\n</div>\n").html, "<div>\n[^a]: b\n</div>\n")
        let html = r.render("`\u{E002}x\u{E002}` \u{E000}\u{E001}\u{E003}\n\n```\n\u{E002}\n```\n").html
        XCTAssertEqual(html, "<p><code>\u{FFFD}x\u{FFFD}</code> \u{FFFD}\u{FFFD}\u{FFFD}</p>\n<pre><code>\u{FFFD}\n</code></pre>\n")
    }

    func testDeepNesting() {
        check(String(repeating: ">", count: 10_000) + " x")
        check(String(repeating: "[", count: 10_000) + "x" + String(repeating: "]", count: 10_000))
        check(String(repeating: "*", count: 10_000) + "x")
        check(String(repeating: "- ", count: 2_000) + "x")
        check(String(repeating: ":::note\n", count: 2_000) + String(repeating: ":::\n", count: 2_000))
        check(String(repeating: "~~", count: 5_000) + "x")
        check(String(repeating: "$a$", count: 5_000))
    }

    func testHugeTable() {
        var md = "| a | b | c |\n|---|:-:|--:|\n"
        for i in 0..<5_000 { md += "| \(i) | **b\(i)** | `c|` \\| https://x.example/\(i) |\n" }
        let start = Date()
        let r = MarkdownRenderer().render(md)
        XCTAssertEqual(r.html.components(separatedBy: "<tr>").count - 1, 5_001)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testInvalidUTF8() {
        let bytes: [[UInt8]] = [[0xFF, 0xFE, 0x41], [0xE3, 0x81], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                [0x2A, 0x2A, 0xE3, 0x80, 0x2A, 0x2A], [0x60, 0x60, 0x60, 0xEE, 0x80, 0x0A, 0xEE]]
        for b in bytes { check(String(decoding: b, as: UTF8.self)) }
    }

    func testRandomInput() {
        var generator = SplitMix64(seed: 0x5EED)
        let pieces = ["*", "**", "_", "~~", "`", "```", "\n", "\n\n", " ", "|", "|---|", "[", "]", "(", ")", "[^1]", "[^1]: ", "$", "<", ">",
                      "<b>", "</b>", "<details>", ":::note", ":::", "- ", "- [ ] ", "# ", "> ", "http://x.y", "www.a.b", "日本語", "「", "」",
                      "\\", "&amp;", "!", "\t", "1. ", "```swift\n", "```math\n", "    ", "\u{E001}", "\r"]
        let start = Date()
        for _ in 0..<1_500 {
            var md = ""
            for _ in 0..<Int(generator.next() % 60) { md += pieces[Int(generator.next() % UInt64(pieces.count))] }
            check(md)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 30)
    }
}

