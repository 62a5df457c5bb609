import XCTest
import Dispatch
import BlogMarkdown

final class RenderAPITests: XCTestCase {
    /// Rendering a part of a file's bytes gives what rendering the same text as a String gives.
    func testRenderingValidUTF8BytesMatchesRenderingTheString() {
        let documents = ["", "# 見出し\n\n本文です。`code` と **強調**\n", "```swift:main.swift\nlet x = 1\n```\n\n:::note info\n注意\n:::\n",
                         "- [リンク](https://example.com)\n- ![画像](/a.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", "$$\nx^2\n$$\n脚注[^1]\n\n[^1]: です\n"]
        let renderer = MarkdownRenderer()
        for markdown in documents {
            let expected = renderer.render(markdown)
            let front = "---\ntitle: x\n---\n"
            let bytes = Array((front + markdown).utf8)
            let rendered = bytes.withUnsafeBufferPointer { renderer.render(validUTF8: UnsafeBufferPointer(rebasing: $0[front.utf8.count...])) }
            XCTAssertEqual(rendered.html, expected.html, markdown)
            XCTAssertEqual(rendered.plainText, expected.plainText, markdown)
            XCTAssertEqual(rendered.codeText, expected.codeText, markdown)
            XCTAssertEqual(rendered.headings, expected.headings, markdown)
            XCTAssertEqual(rendered.links, expected.links, markdown)
        }
    }

    func testHeadingsAreReturnedWithUniqueIds() {
        let r = MarkdownRenderer().render("# 見出し\n\n## 見出し\n\n### Hello, World!\n")
        XCTAssertEqual(r.headings, [Heading(level: 1, text: "見出し", id: "見出し"),
                                    Heading(level: 2, text: "見出し", id: "見出し-1"),
                                    Heading(level: 3, text: "Hello, World!", id: "hello-world")])
        XCTAssertTrue(r.html.contains("<h2 id=\"見出し-1\"><a class=\"anchor\" href=\"#見出し-1\" aria-hidden=\"true\">#</a>見出し</h2>"))
    }

    /// Many headings (past the short list of used ids) and ids that collide with a numbered one.
    func testUniqueIdsAcrossManyHeadings() {
        var markdown = "## A-1\n\n"
        for _ in 0..<40 { markdown += "## A\n\n" }
        markdown += "## A-1\n\n## Other\n"
        let ids = MarkdownRenderer().render(markdown).headings.map(\.id)
        XCTAssertEqual(ids.count, 43)
        XCTAssertEqual(Set(ids).count, ids.count, "ids must be unique: \(ids)")
        XCTAssertEqual(Array(ids.prefix(4)), ["a-1", "a", "a-2", "a-3"])
        XCTAssertEqual(ids[40], "a-40")
        XCTAssertEqual(ids[41], "a-1-1")
        XCTAssertEqual(ids[42], "other")
    }

    func testSlug() {
        XCTAssertEqual(HeadingID.make("Swift の「基本」文法!?"), "swift-の基本文法")
        XCTAssertEqual(HeadingID.make("A_b-C"), "a_b-c")
        XCTAssertEqual(HeadingID.make("ｶﾀｶﾅ ー"), "ｶﾀｶﾅ-ー")
    }

    func testLinksWithLines() {
        let md = "一行目\n[a](https://a.example) と ![i](/img.png)\n\n| x |\n|---|\n| [t](/t) |\n\n本文 https://auto.example です\n"
        let r = MarkdownRenderer().render(md)
        XCTAssertEqual(r.links, [MarkdownLink(destination: "https://a.example", line: 2),
                                 MarkdownLink(destination: "/img.png", line: 2),
                                 MarkdownLink(destination: "/t", line: 6),
                                 MarkdownLink(destination: "https://auto.example", line: 8)])
    }

    func testPlainTextAndCodeText() {
        let md = "# 題名\n\n本文の**強調**と`code`。\n\n```swift\nlet x = 1\n```\n\n- 項目\n"
        let r = MarkdownRenderer().render(md)
        XCTAssertEqual(r.plainText, "題名\n本文の強調とcode。\n項目")
        XCTAssertFalse(r.plainText.contains("let x"))
        XCTAssertTrue(r.codeText.contains("let x = 1\n"))
        XCTAssertTrue(r.codeText.contains("code"))
    }

    func testHardBreaksOption() {
        XCTAssertEqual(MarkdownRenderer().render("a\nb").html, "<p>a<br />\nb</p>\n")
        XCTAssertEqual(MarkdownRenderer(options: MarkdownOptions(hardBreaks: false)).render("a\nb").html, "<p>a\nb</p>\n")
    }

    func testQiitaExtensionsOff() {
        let options = MarkdownOptions(hardBreaks: false, qiitaExtensions: false, highlightCode: false)
        let r = MarkdownRenderer(options: options).render("# 見出し\n\n~~x~~ | a |\n\n```swift:a.swift\nlet\n```\n")
        XCTAssertEqual(r.html, "<h1>見出し</h1>\n<p>~~x~~ | a |</p>\n<pre><code class=\"language-swift:a.swift\">let\n</code></pre>\n")
        XCTAssertEqual(r.headings.first?.id, "見出し")
    }

    func testHighlightOffKeepsFrame() {
        let r = MarkdownRenderer(options: MarkdownOptions(highlightCode: false)).render("```swift:a.swift\nlet x\n```\n")
        XCTAssertEqual(r.html, "<div class=\"code-frame\" data-lang=\"swift\"><div class=\"code-lang\">a.swift</div><pre><code class=\"language-swift\">let x\n</code></pre></div>\n")
    }

    func testHighlightWithoutDialect() {
        let r = MarkdownRenderer(options: MarkdownOptions(qiitaExtensions: false)).render("```swift\nlet x\n```\n")
        XCTAssertEqual(r.html, "<pre><code class=\"language-swift\"><span class=\"hl-kw\">let</span> x\n</code></pre>\n")
    }

    func testUnsafeHTMLPassesThrough() {
        let md = "<script>alert(1)</script>\n\n<b onclick=\"x\">b</b>\n"
        let unsafe = MarkdownRenderer(options: MarkdownOptions(unsafeHTML: true)).render(md).html
        XCTAssertTrue(unsafe.contains("<script>alert(1)</script>"))
        XCTAssertTrue(unsafe.contains("<b onclick=\"x\">"))
        let safe = MarkdownRenderer().render(md).html
        XCTAssertFalse(safe.contains("<script"))
        XCTAssertFalse(safe.contains("onclick=\"x\">"))
    }

    func testSanitizerBlocksSchemesAndHandlers() {
        let cases = ["<a href=\"javascript:alert(1)\">x</a>", "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
                     "<a href=\"java&#x73;cript:alert(1)\">x</a>", "<a href=\"javascript&colon;x\">x</a>",
                     "<img src=\"x\" onerror=\"alert(1)\">", "<a href=\"vbscript:x\">x</a>", "<img src=\"data:text/html,x\">",
                     "<span style=\"x\" onmouseover=\"y\">s</span>"]
        for html in cases {
            let out = MarkdownRenderer().render("前 " + html + " 後").html
            XCTAssertFalse(out.lowercased().contains("javascript"), out)
            XCTAssertFalse(out.contains("vbscript"), out)
            XCTAssertFalse(out.contains("onerror"), out)
            XCTAssertFalse(out.contains("onmouseover"), out)
            XCTAssertFalse(out.contains("data:text"), out)
            XCTAssertFalse(out.contains("style="), out)
        }
        XCTAssertTrue(MarkdownRenderer().render("<img src=\"data:image/png;base64,AA\">").html.contains("src=\"data:image/png;base64,AA\""))
    }

    func testMarkdownJavascriptLinkIsBlanked() {
        let out = MarkdownRenderer().render("[x](javascript:alert(1)) ![y](javascript:alert(2))").html
        XCTAssertFalse(out.contains("javascript"), out)
    }

    func testConcurrentRendering() {
        let renderer = MarkdownRenderer()
        let docs = (0..<8).map { "# 題\($0)\n\n| a | b |\n|---|---|\n| \($0) | ~~x~~ |\n\n```swift\nlet x = \($0)\n```\n[^1]\n\n[^1]: 注\n" }
        let expected = docs.map { renderer.render($0).html }
        let lock = NSLock()
        var mismatches = 0
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            let html = renderer.render(docs[i % docs.count]).html
            if html != expected[i % docs.count] { lock.lock(); mismatches += 1; lock.unlock() }
        }
        XCTAssertEqual(mismatches, 0)
    }

    func testPlainCmarkHelper() {
        XCTAssertEqual(MarkdownRenderer.renderPlainCmark("*a*"), "<p><em>a</em></p>\n")
    }
}

final class HeadingIDScriptTests: XCTestCase {
    /// Japanese letters are kept, Japanese punctuation dropped, as the general-category rule says.
    func testJapaneseHeadingIDs() {
        XCTAssertEqual(HeadingID.make("日本語の見出し"), "日本語の見出し")
        XCTAssertEqual(HeadingID.make("カタカナ・ひらがな"), "カタカナひらがな", "the middle dot is punctuation")
        XCTAssertEqual(HeadingID.make("「引用」と（括弧）"), "引用と括弧")
        XCTAssertEqual(HeadingID.make("長音ーと々"), "長音ーと々")
        XCTAssertEqual(HeadingID.make("全角　スペース"), "全角スペース", "U+3000 is not an ASCII space")
        XCTAssertEqual(HeadingID.make("SwiftUI で 通知"), "swiftui-で-通知")
        // Every letter of the kana and CJK blocks is kept, every non-letter dropped.
        for value in Array(0x3041...0x30FF) + Array(0x4E00...0x4E40) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            let category = scalar.properties.generalCategory
            let isKept: Bool
            switch category {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber, .connectorPunctuation:
                isKept = true
            default:
                isKept = false
            }
            XCTAssertEqual(HeadingID.make(text), isKept ? text.lowercased() : "", "U+\(String(value, radix: 16))")
        }
    }
}
