import BlogMarkdown
@testable import BlogImport
import XCTest

/// The escaping is lossless: rendering the Markdown with BlogMarkdown gives back every line.
final class PlainTextMarkdownTests: XCTestCase {
    private let renderer = MarkdownRenderer()

    /// The lines a reader sees for dump `lines`: list items without their `- ` marker, blank lines dropped.
    private func expectedLines(_ lines: [String]) -> [String] {
        lines.filter { !$0.allSatisfy { $0 == " " || $0 == "\t" } }
            .map { PlainTextMarkdown.listItemContent($0) ?? $0 }
    }

    private func assertRoundTrip(_ lines: [String], file: StaticString = #filePath, line: UInt = #line) {
        let markdown = PlainTextMarkdown.markdown(lines: lines)
        let html = renderer.render(markdown).html
        XCTAssertEqual(renderedLines(html), expectedLines(lines),
                       "markdown:\n\(markdown)\nhtml:\n\(html)", file: file, line: line)
    }

    func testMarkupCharactersSurvive() {
        assertRoundTrip([
            "# not a heading", "## neither", "> not a quote", "1. not ordered", "2) nor this", "10.5 is a number",
            "* not a bullet", "+ nor this", "-not a list", "---", "***", "___", "===", "text", "---",
            "```swift", "~~~", "<div>not html</div>", "<!-- comment -->", "a <b>bold</b> word",
            "*emphasis* **strong** _under_ __score__", "`code` ``more``", "[link](http://x) ![img](y.png) [^1]",
            "[ref]: http://example.com", "&amp; &copy; &#42; &", "back\\slash at end\\", "$x^2$ and $$y$$",
            "~~strike~~", "| a | b |", "|---|---|", ":::note info", ":::", ":smile:", "|", "\\", "!", "<", "&",
            "http://example.com/path?q=1&amp;r=<2>", "a\ttab", "全角（かっこ）【】［］＃＊",
        ])
    }

    func testLeadingAndTrailingWhitespaceIsKept() {
        assertRoundTrip(["    let x = 1  // code-like", "\tindented with a tab", "  two spaces", "trailing  ", "x\t"])
        let markdown = PlainTextMarkdown.markdown(lines: ["  a"])
        XCTAssertEqual(markdown, "&#32;&#32;a\n")
    }

    func testListItemsStayListItems() {
        let lines = ["はじめに", "- one", "- two *x*", "- # three", "after the list", "- ", "-"]
        assertRoundTrip(lines)
        let html = renderer.render(PlainTextMarkdown.markdown(lines: lines)).html
        XCTAssertEqual(html.components(separatedBy: "<li>").count - 1, 3, html)
        XCTAssertTrue(html.contains("</ul>\n<p>after the list<br />"), html)
    }

    func testURLLinesBecomeLinks() {
        let lines = ["https://qiita.com/search?q=Swift&sort=like", "  http://example.com/a_b*c", "see https://example.com"]
        assertRoundTrip(lines)
        let html = renderer.render(PlainTextMarkdown.markdown(lines: lines)).html
        XCTAssertTrue(html.contains("<a href=\"https://qiita.com/search?q=Swift&amp;sort=like\">"), html)
        XCTAssertTrue(html.contains("<a href=\"http://example.com/a_b*c\">"), html)
        // A URL inside a sentence is only text.
        XCTAssertEqual(html.components(separatedBy: "<a ").count - 1, 2, html)
    }

    func testEachLineIsItsOwnLine() {
        let html = renderer.render(PlainTextMarkdown.markdown(lines: ["一行目", "二行目", "", "", "三行目"])).html
        XCTAssertEqual(html, "<p>一行目<br />\n二行目</p>\n<p>三行目</p>\n")
    }

    /// Random lines over an alphabet of every ASCII punctuation character, digits, spaces, tabs and
    /// Japanese text, rendered and compared line by line. A deterministic generator keeps it repeatable.
    func testRandomLinesRoundTrip() {
        var state: UInt64 = 0x9E3779B97F4A7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let punctuation = Array("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
        let alphabet: [String] = punctuation.map(String.init) + ["a", "Z", "1", "0", " ", " ", "\t", "日本", "ー", "https://", "&amp;", "- ", "1. ", "```", "<a>", "&#32;"]
        for _ in 0..<300 {
            var lines: [String] = []
            for _ in 0..<(1 + next(8)) {
                var line = ""
                for _ in 0..<next(12) { line += alphabet[next(alphabet.count)] }
                lines.append(line)
            }
            assertRoundTrip(lines)
        }
    }
}
