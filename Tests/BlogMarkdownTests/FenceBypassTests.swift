import CCmark
import XCTest
import TestSupport
@testable import BlogMarkdown

/// The pre-pass leaves the bodies of top-level fenced code blocks out of the text cmark parses and
/// puts them back as literals (Prepass.swift, "Fence bypass"). Everything a render returns must be
/// the same as without the bypass: HTML, headings, plain text, code text, links and their lines.
final class FenceBypassTests: XCTestCase {

    static func assertSame(_ markdown: String, _ options: MarkdownOptions = MarkdownOptions(),
                           file: StaticString = #filePath, line: UInt = #line) -> Bool {
        var bypass = MarkdownRenderer(options: options)
        bypass.fenceBypass = true
        var plain = MarkdownRenderer(options: options)
        plain.fenceBypass = false
        let a = bypass.render(markdown), b = plain.render(markdown)
        let same = a.html == b.html && a.headings == b.headings && a.plainText == b.plainText
            && a.codeText == b.codeText && a.links == b.links
        if !same {
            XCTFail("""
                fence bypass changed the result of:
                \(markdown.debugDescription)
                html: \(a.html.debugDescription)
                 vs.: \(b.html.debugDescription)
                links: \(a.links) vs. \(b.links)
                """, file: file, line: line)
        }
        return same
    }

    enum Outcome { case noBypass, confirmed, fellBack }

    /// Whether the pre-pass left out a body of `markdown`, and whether cmark's tree confirmed it.
    static func outcome(_ markdown: String) -> Outcome {
        var text = markdown
        return text.withUTF8 { bytes in
            let prepass = Prepass.run(bytes)
            guard !prepass.bypassedFences.isEmpty else { return .noBypass }
            let source = prepass.bytes ?? Array(bytes)
            guard let doc = source.withUnsafeBufferPointer({ parseDocument($0, options: CMARK_OPT_DEFAULT) }) else { return .fellBack }
            defer { cmark_node_free(doc) }
            return prepass.restoreFenceBodies(doc) ? .confirmed : .fellBack
        }
    }

    static func bypassTookEffect(_ markdown: String) -> Bool { outcome(markdown) == .confirmed }

    static let lines: [String] = [
        "```", "```", "```swift", "```swift:Sources/App/Main.swift", "```math", "```ruby:app.rb", "````", "`````",
        "~~~", "~~~", "~~~python", "~~~~", "``` `not a fence`", "```  ", "```\t", " ```", "   ```", "    ```",
        "\t```", " \t```", "``", "~~", "```diff_swift", "```console",
        "let x = 1", "    indented()", "\tlet tab = \"\\t\"", "", "", "", "  ", "日本語のコード // コメント",
        "$$", "a^2 + b^2 = c^2", "$x$ と $$y$$", ":::note info", ":::note warn", ":::", "[^1]: 脚注 [link](https://f.example)",
        "[^1]", "- item", "- ```", "1. first", "  continued", "   ```", "> quote", "> ```", ">", "* [ ] task",
        "<div>", "</div>", "<pre>", "</pre>", "<!--", "-->", "<?php echo 1; ?>", "<script>", "</script>",
        "<custom-tag>", "<![CDATA[", "]]>", "<!DOCTYPE html>", "<style>", "</style>",
        "[ref]: https://ref.example", "see [ref] and [x](https://x.example/\"q\")", "![img](/i.png)",
        "# Heading", "## 見出し", "Setext", "===", "---", "***", "| a | b |", "|---|---|", "| 1 | 2 |",
        "text with `code` and **strong** and https://auto.example", "<https://angle.example>",
        "\\```", "&#96;&#96;&#96;", "```\u{E000}", "`\u{E002}x\u{E002}`", "+   item",
    ]

    /// Random documents of the lines above (with fences far more often, CRLF, NUL and unfinished last
    /// lines now and then) render the same with and without the bypass.
    func testGeneratedDocuments() {
        var g = SplitMix64(seed: 0x5EED_F00D)
        let fences = ["```", "```swift", "~~~", "````", "```math", "```js:a.js"]
        var bypassed = 0, fellBack = 0, failures = 0
        let count = 6000
        for _ in 0..<count {
            var parts: [String] = []
            for _ in 0..<(1 + g.below(24)) {
                if g.below(4) == 0 {
                    // a fenced block: its body and (mostly) a closing fence
                    let open = g.pick(fences)
                    parts.append(open)
                    for _ in 0..<g.below(5) { parts.append(g.pick(Self.lines)) }
                    if g.below(6) != 0 {
                        let close = open.prefix(while: { $0 == "`" || $0 == "~" })
                        parts.append(g.pick(["", "", " ", "  ", "   ", "    ", "\t"]) + close + g.pick(["", "", "`", "  ", "\t", " x"]))
                    }
                } else {
                    parts.append(g.pick(Self.lines))
                }
            }
            let newline = g.below(10) == 0 ? "\r\n" : (g.below(20) == 0 ? "\r" : "\n")
            var markdown = parts.joined(separator: newline)
            if g.below(4) != 0 { markdown += newline }
            if g.below(30) == 0 { markdown.insert("\0", at: markdown.index(markdown.startIndex, offsetBy: g.below(markdown.count + 1))) }
            switch Self.outcome(markdown) {
            case .confirmed: bypassed += 1
            case .fellBack: fellBack += 1
            case .noBypass: break
            }
            let options = MarkdownOptions(hardBreaks: g.below(2) == 0, unsafeHTML: g.below(2) == 0, highlightCode: g.below(3) != 0)
            if !Self.assertSame(markdown, options) { failures += 1; if failures > 10 { return } }
        }
        // the documents exercise the bypass and its fallback often
        print("fence bypass: \(bypassed) of \(count) documents bypassed, \(fellBack) parsed again")
        XCTAssertGreaterThan(bypassed, count / 4)
        XCTAssertGreaterThan(fellBack, count / 50)
    }

    /// Every CommonMark spec example renders the same with and without the bypass (the dialect on:
    /// the bypass is part of its pre-pass), and examples with fences in containers or HTML.
    func testSpecExamples() throws {
        let examples = try SpecTests.loadExamples()
        var bypassed = 0
        for example in examples {
            _ = Self.assertSame(example.markdown)
            _ = Self.assertSame(example.markdown, MarkdownOptions(hardBreaks: false, unsafeHTML: true, highlightCode: false))
            if Self.bypassTookEffect(example.markdown) { bypassed += 1 }
        }
        XCTAssertGreaterThan(bypassed, 15)
    }

    /// The cases the bypass must get right, one by one.
    func testEdgeCases() {
        let cases = [
            "```\nbody\n```\n[a](https://a.example)\n",
            "```\nbody\n```   \n[a](https://a.example)\n",
            "```\nbody\n````\nafter [a](https://a.example)\n",
            "````\n```\nnot closed\n```\n````\n[a](https://a.example)\n",
            "~~~\n```\n~~~\n[a](https://a.example)\n",
            "```\nbody\n    ```\nstill code\n```\n[a](https://a.example)\n",
            "```\nbody\n\t```\nstill code\n```\n[a](https://a.example)\n",
            "```\nunclosed\nto the end\n",
            "```\nunclosed\nno newline",
            "```\n\n\n",
            "```\n```",
            "``` a`b\nnot a fence\n```\n",
            "```swift:Sources/A.swift\nlet a = 1\n```\n",
            "```math\nx^2\n```\n",
            "$$\n```\n$$\n```\ncode\n```\n",
            ":::note info\n```\n:::\n```\n:::\n[a](https://a.example)\n",
            "<div>\n```\n<b>x</b>\n```\n</div>\n[a](https://a.example)\n",
            "<pre>\n```\n\ny\n```\n</pre>\n[a](https://a.example)\n",
            "<!--\n```\n-->\n```\n[a](https://a.example)\n",
            "- item\n```\ncode\n```\n[a](https://a.example)\n",
            "- item\n\n  ```\n  code\n  ```\n[a](https://a.example)\n",
            "> quote\n```\ncode\n```\n[a](https://a.example)\n",
            "[^1]: note\n```\ncode\n```\n[^1] [a](https://a.example)\n",
            "para\n```\ncode\n```\npara [a](https://a.example)\n| a | b |\n|---|---|\n| [c](https://c.example) | d |\n",
            "```\na\n```\n```\nb\n```\n\n```\nc\n```\n[a](https://a.example)\n",
            "```\n\u{E000}\u{E002}x\u{E002}\n```\n",
            "```\r\nwindows\r\n```\r\n",
            "```\nnul\0\n```\n",
            String(repeating: "`", count: 300) + "\n" + String(repeating: "`", count: 260) + "\ncode\n" + String(repeating: "`", count: 300) + "\n[a](https://a.example)\n",
            "```\n日本語\n```\n## 見出し\n[リンク](https://ja.example)\n",
        ]
        for markdown in cases { _ = Self.assertSame(markdown) }
    }

    /// Lines after a bypassed body keep their original numbers.
    func testLinkLinesAfterBypassedBodies() {
        let markdown = "[a](https://a.example)\n```\n1\n2\n3\n```\n[b](https://b.example)\n\n~~~\nx\n~~~\n[c](https://c.example)\n"
        XCTAssertTrue(Self.bypassTookEffect(markdown))
        let links = MarkdownRenderer().render(markdown).links
        XCTAssertEqual(links.map(\.line), [1, 7, 12])
    }

    /// The text cmark parses: the bodies are gone, every other line is there.
    func testPrepassText() {
        var markdown = "a\n```swift\nlet x = 1\n\nlet y = 2\n```\nb\n```\nopen\n"
        markdown.withUTF8 { bytes in
            let prepass = Prepass.run(bytes)
            XCTAssertEqual(prepass.bytes.map { String(decoding: $0, as: UTF8.self) }, "a\n```swift\n```\nb\n```\n")
            XCTAssertEqual(prepass.bypassedFences.map(\.line), [2, 5])
            XCTAssertEqual(prepass.bypassedFences.map(\.lines), [3, 1])
            XCTAssertEqual(prepass.lineStarts, [0, 2, 11, 15, 17, 21])
            XCTAssertEqual(prepass.originalLine(4), 7)
            XCTAssertEqual(prepass.originalLine(3), 6)
            XCTAssertEqual(prepass.originalLine(2), 2)
            let off = Prepass.run(bytes, bypassFences: false)
            XCTAssertNil(off.bytes)
            XCTAssertTrue(off.bypassedFences.isEmpty)
        }
    }
}

