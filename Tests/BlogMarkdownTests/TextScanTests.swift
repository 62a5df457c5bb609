import XCTest
import BlogMarkdown

/// The dialect's inline passes look only at text whose literal holds a byte they care about; the
/// literal is scanned eight bytes at a time. These put each such construct at every offset within
/// the eight-byte words (after ASCII, Japanese and mixed text) so that a byte missed in a word, in
/// the tail or at a word boundary shows up as a construct left unconverted.
final class TextScanTests: XCTestCase {
    let renderer = MarkdownRenderer()

    func prefixes() -> [String] {
        var all: [String] = []
        for k in 0..<20 {
            all.append(String(repeating: "a", count: k))
            all.append(String(repeating: "あ", count: k))
            all.append(String(repeating: "あa", count: k))
        }
        return all
    }

    func testConstructsAtEveryOffset() {
        for p in prefixes() {
            let cases: [(String, String)] = [
                (p + "~~消す~~", "<del>消す</del>"),
                // (alone in the paragraph, with no prefix, the link is a card's: its start tag is the same)
                (p + " https://example.com/x", "<a href=\"https://example.com/x\" rel=\"noopener\">"),
                (p + " WWW.example.com", "<a href=\"http://WWW.example.com\" rel=\"noopener\">"),
                (p + " @alice さん", "<a href=\"https://qiita.com/alice\" rel=\"noopener\">@alice</a>"),
                (p + " x@example.com", "<a href=\"mailto:x@example.com\">x@example.com</a>"),
                (p + " :tada:", "🎉"),
                (p + "[^1]\n\n[^1]: 注", "<a href=\"#fn-1\" class=\"footnote-ref\">1</a>"),
                (p + "**（括弧）**と**【見出し】**", "<strong>（括弧）</strong>と<strong>【見出し】</strong>"),
                (p + "__（括弧）__と~~消す~~", "<del>消す</del>"),
            ]
            // (at the very start cmark nests the two strong runs, and the repair does not apply)
            for (markdown, expected) in cases where !(p.isEmpty && expected.hasPrefix("<strong>")) {
                let html = renderer.render(markdown).html
                XCTAssertTrue(html.contains(expected), "\(markdown.debugDescription) gave \(html.debugDescription)")
            }
        }
    }

    func testPlainTextStaysText() {
        for p in prefixes() {
            let html = renderer.render(p + "テキストxyz、http:/ ww.x [x] a:b").html
            XCTAssertFalse(html.contains("<a ") || html.contains("<del>") || html.contains("<strong>"), html)
        }
    }
}
