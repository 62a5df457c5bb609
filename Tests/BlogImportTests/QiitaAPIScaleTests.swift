@testable import BlogImport
import BlogCore
import Foundation
import XCTest

/// A Qiita API export is often one line of megabytes: every item's position must still be found
/// from where it is, not by walking the line from its start (which made 8,000 items take a minute
/// and this test many).
final class QiitaAPIScaleTests: XCTestCase {
    private func item(_ index: Int, created: String = "2021-05-10T09:15:00+09:00") -> String {
        #"{"id":"\#(String(format: "%020x", index))","title":"記事 \#(index) の題","body":"本文 \#(index)\n","created_at":"\#(created)","tags":[{"name":"Swift"}],"likes_count":\#(index),"private":false}"#
    }

    func testThousandsOfItemsOnOneLine() throws {
        let count = 6_000
        let items = (0..<count).map { item($0) }
        let source = try InputText(path: "items.json", bytes: Array(("[" + items.joined(separator: ",") + "]").utf8))
        let result = QiitaAPIImporter().importSource(source)
        XCTAssertEqual(result.diagnostics.map(\.description), [])
        XCTAssertEqual(result.articles.count, count)
        XCTAssertEqual(result.articles.last?.title, "記事 \(count - 1) の題")
        // each article names where its item starts: line 1, one column per character before it
        let lastColumn = ("[" + items.dropLast().joined(separator: ",") + ",").unicodeScalars.count + 1
        XCTAssertEqual(result.articles.last?.source, SourceLocation(file: "items.json", line: 1, column: lastColumn))
    }

    func testABadItemAtTheEndIsNamedByItsColumn() throws {
        let count = 6_000
        var items = (0..<count - 1).map { item($0) }
        let prefix = "[" + items.joined(separator: ",") + ","
        let bad = item(count - 1, created: "yesterday")
        items.append(bad)
        let source = try InputText(path: "bad.json", bytes: Array(("[" + items.joined(separator: ",") + "]").utf8))
        let result = QiitaAPIImporter().importSource(source)
        XCTAssertEqual(result.errors.count, 1)
        let valueColumn = (prefix + bad[..<bad.range(of: "\"yesterday\"")!.lowerBound]).unicodeScalars.count + 1
        XCTAssertEqual(result.errors.first?.location, SourceLocation(file: "bad.json", line: 1, column: valueColumn))
        XCTAssertTrue(result.errors.first?.message.contains("item \(count): field \"created_at\"") ?? false)
    }

    /// Columns agree with counting from the line's start, across lines and multi-byte characters.
    func testColumnsMatchCountingFromTheLineStart() throws {
        var text = ""
        for k in 0..<160 { text += String(repeating: k % 3 == 0 ? "あ" : "a", count: k % 37) + (k % 5 == 0 ? "\n" : "é") }
        let bytes = Array(text.utf8)
        let source = try InputText(path: "t", bytes: bytes)
        for offset in Swift.stride(from: 0, through: bytes.count, by: 7) where offset == bytes.count || bytes[offset] & 0xC0 != 0x80 {
            let before = String(decoding: bytes[..<offset], as: UTF8.self)
            let lines = before.split(separator: "\n", omittingEmptySubsequences: false)
            let expected = SourceLocation(file: "t", line: lines.count, column: lines.last!.unicodeScalars.count + 1)
            XCTAssertEqual(source.location(ofByte: offset), expected, "offset \(offset)")
        }
    }
}
