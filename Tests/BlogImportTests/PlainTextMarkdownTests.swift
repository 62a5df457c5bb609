import BlogMarkdown
@testable import BlogImport
import XCTest

/// The escaping is lossless: rendering the Markdown with BlogMarkdown gives back every line.
final class PlainTextMarkdownTests: XCTestCase {
    /// The site's default renderer (hard breaks, Qiita dialect) and the one for trusted archives.
    private let renderer = MarkdownRenderer()
    private let unsafeRenderer = MarkdownRenderer(options: MarkdownOptions(unsafeHTML: true))

    /// The lines a reader sees for dump `lines`: list items without their `- ` marker, blank lines dropped.
    private func expectedLines(_ lines: [String]) -> [String] {
        lines.filter { !$0.allSatisfy { $0 == " " || $0 == "\t" } }
            .map { PlainTextMarkdown.listItemContent($0) ?? $0 }
    }

    private func assertRoundTrip(_ lines: [String], file: StaticString = #filePath, line: UInt = #line) {
        let markdown = PlainTextMarkdown.markdown(lines: lines)
        for renderer in [renderer, unsafeRenderer] {
            let html = renderer.render(markdown).html
            XCTAssertEqual(renderedLines(html), expectedLines(lines),
                           "markdown:\n\(markdown)\nhtml:\n\(html)", file: file, line: line)
            // Nothing but the dialect's own output: no emphasis, strike, math, table, note, footnote or task box.
            for tag in ["<em>", "<strong>", "<del>", "<code>", "<pre", "<table>", "<h1", "<h2", "<blockquote>", "<ol>",
                        "<hr", "class=\"math", "class=\"note", "footnote", "<input", "<img", "<div", "<span"] {
                XCTAssertFalse(html.contains(tag), "\(tag) in\nmarkdown:\n\(markdown)\nhtml:\n\(html)", file: file, line: line)
            }
        }
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

    /// The Qiita dialect works on text after cmark has merged escaped characters back into it, so
    /// these need more than a backslash.
    func testQiitaDialectMarkupSurvives() {
        assertRoundTrip([
            "~~strike~~ and ~~~three~~~ and ~one~", "**（括弧）**と**【見出し】**", "__init__ と __名前__", "日本**語**",
            "$x$ $$y$$ $ z $", "```math", "x^2", "```", "$$", ":::note info", "本文", ":::", ":::note warn", ":::note alert",
            "[^1]", "本文[^1]と[^note]", "[^1]: 脚注", "[^note]: x", "| a | b |", "|---|---|", "| 1 | 2 |",
            "a | b", "--- | ---", "|:-:|--:|", "- | a |", "- |---|", "- [ ] todo", "- [x] done", "- [X]",
            "- [x]www.example.com", "- [ ]https://x.y", "[ ] not a list",
            "www.example.com", "see www.example.com/a_b and https://x.y/~~a~~ too", "<details><summary>s</summary>",
            "<kbd>Ctrl</kbd> <br> <img src=x>", "Ｈｅｌｌｏ ~~全角~~ ～～", "\u{E000}\u{E002}",
        ])
    }

    func testRunsOfTwoAreSplitByAnEmptyComment() {
        XCTAssertEqual(PlainTextMarkdown.escapeLine("~~a~~"), "\\~<!---->\\~a\\~<!---->\\~")
        XCTAssertEqual(PlainTextMarkdown.escapeLine("a ~~~ b ~ c"), "a \\~\\~\\~ b \\~ c")
        XCTAssertEqual(PlainTextMarkdown.markdown(lines: ["- [ ] x", "[ ] y"]), "- \\[<!----> \\] x\n\n\\[ \\] y\n")
        XCTAssertEqual(renderer.render(PlainTextMarkdown.markdown(lines: ["~~a~~"])).html, "<p>~~a~~</p>\n")
    }

    func testLeadingAndTrailingWhitespaceIsKept() {
        assertRoundTrip(["    let x = 1  // code-like", "\tindented with a tab", "  two spaces", "trailing  ", "x\t",
                         "\u{0C}form feed\u{0C}", "vertical tab\u{0B}", "\u{0B}", "\u{3000}全角スペース\u{3000}"])
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
        let lines = ["https://qiita.com/search?q=Swift&sort=like", "  http://example.com/a_b*c", "see https://example.com",
                     "https://example.com/~~x~~"]
        assertRoundTrip(lines)
        let html = renderer.render(PlainTextMarkdown.markdown(lines: lines)).html
        XCTAssertTrue(html.contains("<a href=\"https://qiita.com/search?q=Swift&amp;sort=like\""), html)
        XCTAssertTrue(html.contains(">https://qiita.com/search?q=Swift&amp;sort=like</a>"), html)
        XCTAssertTrue(html.contains("<a href=\"http://example.com/a_b*c\""), html)
        // A URL inside a sentence may be autolinked by the dialect; its text stays as written.
        XCTAssertTrue(html.contains("see <a href=\"https://example.com\" rel=\"noopener\">https://example.com</a>")
                      || html.contains("see https://example.com<"), html)
        // A URL the dialect would rework inside a link is escaped as text instead.
        XCTAssertFalse(PlainTextMarkdown.markdown(lines: [lines[3]]).hasPrefix("<"))
    }

    func testEachLineIsItsOwnLine() {
        let html = renderer.render(PlainTextMarkdown.markdown(lines: ["一行目", "二行目", "", "", "三行目"])).html
        XCTAssertEqual(html, "<p>一行目<br />\n二行目</p>\n<p>三行目</p>\n")
    }

    /// Random lines over an alphabet of every ASCII punctuation character, digits, spaces, tabs,
    /// Japanese text and the Qiita dialect's markers, plus whole lines that are dialect syntax on
    /// their own (table rows, note fences, footnote definitions, URLs), rendered and compared line
    /// by line. A deterministic generator keeps it repeatable.
    func testRandomLinesRoundTrip() {
        var state: UInt64 = 0x9E3779B97F4A7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let punctuation = Array("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
        let alphabet: [String] = punctuation.map(String.init) + [
            "a", "Z", "x", "1", "0", " ", " ", "\t", "\u{0B}", "\u{0C}", "\u{3000}", "日本", "ー", "（", "】", "&amp;", "&#32;", "<a>", "<br>", "<!-- c -->",
            "- ", "1. ", "# ", "> ", "```", "~~~", "```math", "$", "$$", "~~", "**", "__", "|", "|---|", ":-:", ":::note",
            ":::", "[^1]", "[^1]: x", "[ ]", "[x]", "![", "](", "https://", "http://", "https://x.y/", "www.example.com",
            "www.", "HTTPS://X.Y", "@", "\\",
        ]
        let wholeLines = ["|---|", "|---|---|", "| a | b |", "|:--|--:|", "---|---", "- |---|", "a|b", ":::note", ":::note warn",
                          ":::", "[^1]: x", "[^1]", "- [ ] x", "- [x]", "```", "```math", "$$", "~~~", "www.example.com",
                          "https://x.y/", "https://x.y/~~a~~", "https://x.y/a_b*c&d=e", "  https://x.y/  ", "---", "==="]
        for _ in 0..<300 {
            var lines: [String] = []
            for _ in 0..<(1 + next(8)) {
                if next(4) == 0 {
                    lines.append(wholeLines[next(wholeLines.count)])
                    continue
                }
                var line = ""
                for _ in 0..<next(12) { line += alphabet[next(alphabet.count)] }
                lines.append(line)
            }
            assertRoundTrip(lines)
        }
    }
}
