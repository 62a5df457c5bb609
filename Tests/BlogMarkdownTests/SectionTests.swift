import XCTest
import TestSupport
@testable import BlogMarkdown

/// Large documents are rendered in sections (`MarkdownRenderer.renderSectioned`). Everything a
/// render returns must be the same as rendering the document whole: HTML, headings, plain text,
/// code text, links and their lines, math problems, `mayHaveImages`.
final class SectionTests: XCTestCase {

    /// A renderer that sections every document at every cut it can find.
    static func sectioning(_ options: MarkdownOptions) -> MarkdownRenderer {
        var renderer = MarkdownRenderer(options: options)
        renderer.sectionThreshold = 0
        renderer.sectionSize = 1
        return renderer
    }

    static func whole(_ options: MarkdownOptions) -> MarkdownRenderer {
        var renderer = MarkdownRenderer(options: options)
        renderer.sectionThreshold = .max
        return renderer
    }

    /// Whether the sectioned path took `markdown` (it may decline and render it whole).
    static func sectioned(_ markdown: String, _ options: MarkdownOptions = MarkdownOptions()) -> Bool {
        var text = markdown
        return text.withUTF8 { sectioning(options).renderSectioned($0) != nil }
    }

    @discardableResult
    static func assertSame(_ markdown: String, _ options: MarkdownOptions = MarkdownOptions(),
                           file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let a = sectioning(options).render(markdown), b = whole(options).render(markdown)
        let same = a.html == b.html && a.headings == b.headings && a.plainText == b.plainText
            && a.codeText == b.codeText && a.links == b.links && a.mathProblems == b.mathProblems
            && a.mayHaveImages == b.mayHaveImages
        if !same {
            XCTFail("""
                sections changed the result of:
                \(markdown.debugDescription)
                html: \(a.html.debugDescription)
                 vs.: \(b.html.debugDescription)
                headings: \(a.headings) vs. \(b.headings)
                plain: \(a.plainText.debugDescription) vs. \(b.plainText.debugDescription)
                code: \(a.codeText.debugDescription) vs. \(b.codeText.debugDescription)
                links: \(a.links) vs. \(b.links)
                math: \(a.mathProblems) vs. \(b.mathProblems)
                """, file: file, line: line)
        }
        return same
    }

    /// A post with most of the dialect, repeated so that headings repeat (their ids are numbered
    /// across sections).
    static let post: String = {
        var parts: [String] = []
        for k in 0..<6 {
            parts.append("""
                # はじめに

                Swiftの**並行処理**について説明します。`Task`と`actor`を使います。[リンク](https://example.com/\(k)) と <https://auto.example/\(k)> と @user。

                ## はじめに

                ```swift:Sources/App/Main.swift
                struct Item\(k) {
                    let id: Int
                }
                ```

                ```
                ```

                | 名前 | 値 |
                |:--|--:|
                | a\(k) | $x^\(k)$ |

                :::note warn
                注意: データ競合に気をつけましょう。

                - 項目
                :::

                数式 $\\frac{a}{b}$ と $\\unknowncommand{\(k)}$ と

                $$
                \\sum_{i=1}^n i
                $$

                $$\\badmacro$$

                - 項目1 [a](https://a.example/\(k))
                - 項目2

                  続き

                1. first
                2. second

                > 引用 ![画像](/img/\(k).png)

                <div class="raw">
                <h2>生のHTML見出し</h2>
                </div>

                <!--
                コメント

                # 見出しではない
                -->

                ~~~
                # これもコードの中

                ~~~

                    indented code

                # はじめに
                https://card.example/\(k)

                ---

                """)
        }
        return parts.joined(separator: "\n")
    }()

    func testDialectPost() {
        XCTAssertTrue(Self.sectioned(Self.post), "the post was not cut")
        Self.assertSame(Self.post)
        Self.assertSame(Self.post, MarkdownOptions(hardBreaks: false, unsafeHTML: true, highlightCode: false, math: .keep))
        Self.assertSame(Self.post, MarkdownOptions(unsafeHTML: true))
        var noBypass = Self.sectioning(MarkdownOptions())
        noBypass.fenceBypass = false
        XCTAssertEqual(noBypass.render(Self.post).html, Self.whole(MarkdownOptions()).render(Self.post).html)
        // duplicate headings are numbered across sections
        let ids = Self.sectioning(MarkdownOptions()).render(Self.post).headings.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count)
    }

    /// Documents the renderer renders whole (definitions resolved across the document), or whose
    /// cuts cmark does not confirm, come out the same.
    func testDeclinedAndUnconfirmedCuts() {
        let footnotes = "本文[^1]。\n\n# 見出し\n\n続き[^1]。\n\n[^1]: 脚注\n"
        let references = "[ref] を見て。\n\n# 見出し\n\n[ref]: https://ref.example\n"
        XCTAssertFalse(Self.sectioned(footnotes))
        XCTAssertFalse(Self.sectioned(references))
        Self.assertSame(footnotes)
        Self.assertSame(references)
        for text in [
            "- item\n\n  ```\n  code\n\nfoo\n```\nreal code\n\n# not a heading\n```\n\nafter\n",
            "<pre>\nx\n\n# inside pre\n</pre>\n\nafter\n",
            "> quote\n\n# heading\n\n- a\n\n  b\n\nc\n",
            "- a\n  :::note\n\n:::\n\ntext\n\n:::\n",
            ":::note\nopen at the top\n\n- x\n  :::\n\ntext\n\n:::\n\nend\n",
            // the note opened before the cut is closed by the `:::` after it (the pre-pass counted
            // the `:::` lines inside `<pre>`, which are no markers in the tree)
            ":::note\nA\n\n<pre>\n:::\n</pre>\n\ntext\n\n<pre>\n:::\n</pre>\n\n:::\n\nend\n",
            "$$\nx\n$$\n\n$$\ny\n\n$$\n",
            "```\nunclosed\n\n# in code\n",
            "text\n\n\u{E000}marker\n\n`\u{E002}x\u{E002}`\n",
        ] {
            Self.assertSame(text)
            Self.assertSame(text, MarkdownOptions(unsafeHTML: true))
        }
    }

    /// A document whose blocks stay open at every cut (one long list) is rendered whole, the same.
    func testLongListIsRenderedWhole() {
        let list = (1...40).map { "- item \($0)\n\n  more \($0)\n" }.joined(separator: "\n")
        XCTAssertFalse(Self.sectioned(list))
        Self.assertSame(list)
        // after the list, cuts are found again
        let after = list + "\n" + (1...10).map { "# heading\n\ntext \($0)\n" }.joined(separator: "\n")
        Self.assertSame(after)
    }

    /// Every fixture renders the same in sections.
    func testFixtures() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: FixtureTests.directory.path)
            .filter { $0.hasSuffix(".md") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 12, "fixtures missing")
        var cut = 0
        for name in names {
            let markdown = try String(contentsOf: FixtureTests.directory.appendingPathComponent(name), encoding: .utf8)
            if Self.sectioned(markdown) { cut += 1 }
            XCTAssertTrue(Self.assertSame(markdown), "fixture \(name)")
            Self.assertSame(markdown, MarkdownOptions(hardBreaks: false, unsafeHTML: true))
        }
        XCTAssertGreaterThan(cut, names.count / 3, "few fixtures were cut")
    }

    /// Random documents of the fence bypass test's lines, with blank lines between most of them.
    func testGeneratedDocuments() {
        var g = SplitMix64(seed: 0x5EC7_1025)
        var cut = 0, failures = 0
        let count = 3000
        for _ in 0..<count {
            var parts: [String] = []
            for _ in 0..<(1 + g.below(30)) {
                parts.append(g.pick(FenceBypassTests.lines))
                if g.below(3) != 0 { parts.append("") }
            }
            var markdown = parts.joined(separator: "\n")
            if g.below(4) != 0 { markdown += "\n" }
            if Self.sectioned(markdown) { cut += 1 }
            let options = MarkdownOptions(hardBreaks: g.below(2) == 0, unsafeHTML: g.below(2) == 0, highlightCode: g.below(3) != 0)
            if !Self.assertSame(markdown, options) { failures += 1; if failures > 10 { return } }
        }
        print("sections: \(cut) of \(count) documents cut")
        XCTAssertGreaterThan(cut, count / 4)
    }

    /// Small documents never take the sectioned path with the default threshold.
    func testDefaultThreshold() {
        XCTAssertGreaterThan(MarkdownRenderer().sectionThreshold, 1 << 20)
    }
}
