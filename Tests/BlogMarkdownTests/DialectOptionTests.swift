import XCTest
import BlogMarkdown

/// The dialect's options that fixtures (default options only) cannot show: where mentions link, or
/// that they are off, and the headings list with raw HTML headings in it.
final class DialectOptionTests: XCTestCase {
    func testMentionsFollowTheBaseURLOrStayText() {
        let text = "レビューは @alice さん、連絡は bob@example.com へ。"
        let qiita = MarkdownRenderer().render(text).html
        XCTAssertTrue(qiita.contains("<a href=\"https://qiita.com/alice\" rel=\"noopener\">@alice</a>"), qiita)
        let own = MarkdownRenderer(options: MarkdownOptions(mentionsBaseURL: "https://example.com/users")).render(text).html
        XCTAssertTrue(own.contains("<a href=\"https://example.com/users/alice\" rel=\"noopener\">@alice</a>"), own)
        let off = MarkdownRenderer(options: MarkdownOptions(mentionsBaseURL: nil)).render(text + " @_carol_ さん").html
        XCTAssertFalse(off.contains("qiita.com") || off.contains(">@alice</a>"), off)
        // addresses are linked either way
        XCTAssertTrue(off.contains("<a href=\"mailto:bob@example.com\">bob@example.com</a>"), off)
    }

    func testRawHTMLHeadingsJoinTheHeadingsInDocumentOrder() {
        let result = MarkdownRenderer().render("# 概要\n\n<h2>手順</h2>\n\n## 手順\n\n<h3>概要</h3>\n")
        XCTAssertEqual(result.headings.map(\.id), ["概要", "手順", "手順-1", "概要-1"])
        XCTAssertEqual(result.headings.map(\.level), [1, 2, 2, 3])
        XCTAssertTrue(result.html.contains("<h2 id=\"手順\">手順</h2>"), result.html)
        XCTAssertTrue(result.html.contains("<h3 id=\"概要-1\">概要</h3>"), result.html)
        // trusted HTML keeps an id of its own
        let unsafe = MarkdownRenderer(options: MarkdownOptions(unsafeHTML: true)).render("<h2 id=\"mine\" class=\"x\">自分</h2>\n")
        XCTAssertEqual(unsafe.html, "<h2 id=\"mine\" class=\"x\">自分</h2>\n")
    }

    func testCardLinksStayInTheLinkList() {
        let result = MarkdownRenderer().render("前置き\n\nhttps://youtu.be/dQw4w9WgXcQ\n\nhttps://example.com/page\n")
        XCTAssertEqual(Set(result.links.map(\.destination)), ["https://youtu.be/dQw4w9WgXcQ", "https://example.com/page"])
        XCTAssertEqual(Set(result.links.map(\.line)), [3, 5])
    }

    func testEmojiTableHasTheGemojiNames() {
        let html = MarkdownRenderer().render(":+1: :-1: :smile: :tada: :heart: :sushi: :unknown_name_xyz:").html
        XCTAssertEqual(html, "<p>👍 👎 😄 🎉 ❤️ 🍣 :unknown_name_xyz:</p>\n")
    }
}
