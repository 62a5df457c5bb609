import BlogMarkdown
import Foundation
import XCTest

/// Known filter-evasion vectors (`Fixtures/xss-vectors.json`, shared with the browser test in
/// `Tests/integration/test_xss.py`): none may leave a script URL in the HTML, in the default mode,
/// and under `markdown.unsafe` for those that need no markup of their own to run.
final class XSSVectorTests: XCTestCase {
    struct Vector: Decodable {
        var name: String
        var markdown: String
        var url_only: Bool
    }

    static let vectors: [Vector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/xss-vectors.json")
        return (try? JSONDecoder().decode([Vector].self, from: Data(contentsOf: url))) ?? []
    }()

    /// The script URLs found in the tags of `html`, read in a way of its own: every character
    /// reference of a tag decoded (numeric, and the named ones for `:` and whitespace), then
    /// whitespace and controls dropped and letters lower-cased before looking for a scheme.
    static func scriptURLs(in html: String) -> [String] {
        var found: [String] = []
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let tag = String(rest[open...close])
            rest = rest[rest.index(after: close)...]
            var text = tag
            for (name, value) in [("&colon;", ":"), ("&Tab;", ""), ("&NewLine;", ""), ("&lpar;", "("), ("&rpar;", ")")] {
                text = text.replacingOccurrences(of: name, with: value)
            }
            var decoded = ""
            var scalars = Array(text.unicodeScalars)[...]
            while let first = scalars.first {
                if first == "&", scalars.dropFirst().first == "#" {
                    var digits = scalars.dropFirst(2)
                    let hex = digits.first == "x" || digits.first == "X"
                    if hex { digits = digits.dropFirst() }
                    let run = digits.prefix { hex ? $0.properties.isASCIIHexDigit : ("0"..."9").contains($0) }
                    // a reference to NUL reads as U+FFFD
                    if let value = UInt32(String(String.UnicodeScalarView(run)), radix: hex ? 16 : 10), let scalar = Unicode.Scalar(value == 0 ? 0xFFFD : value) {
                        decoded.unicodeScalars.append(scalar)
                        scalars = digits.dropFirst(run.count)
                        if scalars.first == ";" { scalars = scalars.dropFirst() }
                        continue
                    }
                }
                decoded.unicodeScalars.append(first)
                scalars = scalars.dropFirst()
            }
            let squeezed = String(String.UnicodeScalarView(decoded.unicodeScalars.filter { $0.value > 0x20 })).lowercased()
            for scheme in ["javascript:", "vbscript:", "livescript:", "data:text", "data:image/svg"] where squeezed.contains(scheme) {
                found.append(tag)
            }
        }
        return found
    }

    /// Tags that run script without a URL: event handler attributes, script and plug-in elements.
    static func activeMarkup(in html: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"<(script|iframe|object|embed|svg|math|style|meta|base)\b|<[^<>]*\son[a-z]+\s*="#,
                                               options: [.caseInsensitive])
        let range = NSRange(html.startIndex..., in: html)
        return pattern.matches(in: html, range: range).map { String(html[Range($0.range, in: html)!]) }
    }

    func testTheFixtureIsThere() {
        XCTAssertGreaterThanOrEqual(Self.vectors.count, 60)
        // the checker itself sees the vectors as written
        let unfiltered = Self.vectors.filter { !Self.scriptURLs(in: $0.markdown).isEmpty }
        XCTAssertGreaterThanOrEqual(unfiltered.count, 60)
    }

    func testNoVectorKeepsAScriptURL() {
        let safe = MarkdownRenderer(options: MarkdownOptions())
        let unsafe = MarkdownRenderer(options: MarkdownOptions(unsafeHTML: true))
        let plain = MarkdownRenderer(options: MarkdownOptions(hardBreaks: false, qiitaExtensions: false))
        for vector in Self.vectors {
            for (mode, renderer) in [("default", safe), ("plain CommonMark", plain)] {
                let html = renderer.render(vector.markdown).html
                XCTAssertEqual(Self.scriptURLs(in: html), [], "\(vector.name), \(mode): \(html)")
                XCTAssertEqual(Self.activeMarkup(in: html), [], "\(vector.name), \(mode): \(html)")
            }
            guard vector.url_only else { continue }
            let html = unsafe.render(vector.markdown).html
            XCTAssertEqual(Self.scriptURLs(in: html), [], "\(vector.name), unsafe: \(html)")
        }
    }

    /// What is not a script URL stays as it was meant.
    func testOrdinaryURLsStay() {
        let safe = MarkdownRenderer(options: MarkdownOptions())
        let unsafe = MarkdownRenderer(options: MarkdownOptions(unsafeHTML: true))
        let png = "data:image/png;base64,iVBORw0KGgo="
        let cases: [(String, String)] = [
            (#"<a href="https://example.com/?a=1&amp;b=2">x</a>"#, #"href="https://example.com/?a=1&amp;b=2""#),
            (#"<a href="https://example.com/?a=1&b=2">x</a>"#, #"href="https://example.com/?a=1&amp;b=2""#),
            (#"<a href="/posts/&#x65;">x</a>"#, #"href="/posts/e""#),
            (#"<a href="mailto:me@example.com">x</a>"#, #"href="mailto:me@example.com""#),
            (##"<a href="#top">x</a>"##, ##"href="#top""##),
            ("<img src=\"\(png)\" alt=\"p\">", "src=\"\(png)\""),
        ]
        for (markdown, expected) in cases {
            XCTAssertTrue(safe.render(markdown).html.contains(expected), "\(markdown) → \(safe.render(markdown).html)")
        }
        // a data: image only as an image
        XCTAssertFalse(safe.render("<a href=\"\(png)\">x</a>").html.contains("data:"))
        // under unsafe, trusted HTML stays byte for byte
        let trusted = #"<div class="x" onclick="go()"><a href="https://example.com/" title='t'>x</a><img src="\#(png)"></div>"#
        XCTAssertTrue(unsafe.render(trusted).html.contains(trusted), unsafe.render(trusted).html)
        XCTAssertTrue(unsafe.render("<script>var a = '<a href=\"x\">';</script>").html.contains("<a href=\"x\">"))
        XCTAssertTrue(unsafe.render("[x](https://example.com/)").html.contains("href=\"https://example.com/\""))
    }

    /// An HTML block that ends inside a tag (a blank line in a value) runs on into the HTML written
    /// after it: under unsafe, its script URL is cut all the same, and the rest stays as written.
    func testATagLeftOpenByItsBlockIsCheckedToo() {
        let unsafe = MarkdownRenderer(options: MarkdownOptions(unsafeHTML: true))
        for markdown in ["<div><a href=\"javascript:alert(1)//\n\n[x](https://example.com/)", "<div><a href=javascript:alert(1)\n\ntext"] {
            let html = unsafe.render(markdown).html
            XCTAssertFalse(html.contains("javascript"), html)
            XCTAssertTrue(html.hasPrefix("<div><a "), html)
        }
    }

    func testDecodingFollowsTheTokenizer() {
        func decoded(_ raw: String) -> String {
            String(String.UnicodeScalarView(URLSafety.decodeAttributeValue(Array(raw.utf8))))
        }
        XCTAssertEqual(decoded("&#106avascript"), "javascript")
        XCTAssertEqual(decoded("&#x6A&#x61"), "ja")
        XCTAssertEqual(decoded("&#000000000106;"), "j")
        XCTAssertEqual(decoded("&#x80;&#0;&#x110000;&#xD800;"), "\u{20AC}\u{FFFD}\u{FFFD}\u{FFFD}")
        XCTAssertEqual(decoded("&colon;&Tab;&amp;&ampx&amp=&lt;&fjlig;"), ":\t&&ampx&amp=<fj")
        XCTAssertEqual(decoded("&#;&#x;&unknown;&"), "&#;&#x;&unknown;&")
        XCTAssertEqual(URLSafety.scheme(of: URLSafety.parserView(Array(" \u{1}java\tscri\npt:x ".unicodeScalars))), "javascript")
        XCTAssertNil(URLSafety.scheme(of: Array("/a:b".unicodeScalars)))
        XCTAssertNil(URLSafety.scheme(of: Array("java script:x".unicodeScalars)))
    }
}
