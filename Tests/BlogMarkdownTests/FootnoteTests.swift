import XCTest
import BlogMarkdown

/// Footnote definitions are list items under the hood; these documents repeat definitions, leave
/// them unreferenced, put them in lists, after paragraphs and in HTML, which the transform must
/// untangle without touching a freed node.
final class FootnoteTests: XCTestCase {
    private let renderer = MarkdownRenderer()

    private func footnotes(_ html: String) -> [String] {
        html.components(separatedBy: "<li id=\"fn-").dropFirst().map { String($0.prefix(while: { $0 != "\"" })) }
    }

    func testUnusedDuplicateAndListItemDefinitions() {
        let markdown = """
        参照[^a]と[^b]。

        [^unused]: 使われない定義
        [^a]: 一つ目
        [^a]: 二つ目(重複)
        - 項目
          [^b]: 項目の中の定義
        """
        let html = renderer.render(markdown).html
        XCTAssertEqual(footnotes(html), ["1", "2"], html)
        XCTAssertTrue(html.contains("一つ目"), html)
        XCTAssertTrue(html.contains("項目の中の定義"), html)
        XCTAssertTrue(html.contains("<li>項目"), html)
        for hidden in ["使われない定義", "二つ目"] {
            XCTAssertFalse(html.contains(hidden), "\(hidden) should not be shown: \(html)")
        }
    }

    func testDefinitionsRightAfterAParagraphAndEachOther() {
        let markdown = "本文[^1]と[^2]\n続き\n[^1]: 一\n[^2]: 二\n"
        let html = renderer.render(markdown).html
        XCTAssertEqual(footnotes(html), ["1", "2"], html)
        XCTAssertTrue(html.hasPrefix("<p>本文<sup"), html)
        XCTAssertTrue(html.contains("続き</p>"), html)
        XCTAssertTrue(html.contains("<p>一 <a href=\"#fnref-1\""), html)
        XCTAssertTrue(html.contains("<p>二 <a href=\"#fnref-2\""), html)
    }

    func testDefinitionRightAfterAPlusListAndInsideHTML() {
        // a `+` list just before a definition, and a definition inside an HTML block shown as written
        let markdown = "+ 項目\n[^1]: 定義\n\n本文[^1]\n\n<div>\n[^2]: そのまま\n</div>\n"
        let html = renderer.render(markdown).html
        XCTAssertEqual(footnotes(html), ["1"], html)
        XCTAssertTrue(html.contains("<li>項目</li>"), html)
        XCTAssertTrue(html.contains("[^2]: そのまま"), html)
        XCTAssertFalse(html.contains("+   "), html)
    }
}
