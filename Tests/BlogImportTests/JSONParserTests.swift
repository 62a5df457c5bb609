import BlogCore
@testable import BlogImport
import XCTest

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONNode {
        try JSONParser.parse(Array(text.utf8))
    }

    private func errorLocation(_ text: String) -> (SourceLocation, String)? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as JSONSyntaxError {
            let source = try! InputText(path: "t.json", bytes: Array(text.utf8))
            return (source.location(ofByte: error.offset), error.message)
        } catch {
            return nil
        }
    }

    func testValuesAndNesting() throws {
        let node = try parse(#" { "a": [1, -2.5e3, true, false, null, "x"], "b": {"c": {}} , "d": [] } "#)
        XCTAssertEqual(node.member("a")?.arrayValue?.count, 6)
        XCTAssertEqual(node.member("a")?.arrayValue?[0].intValue, 1)
        XCTAssertEqual(node.member("a")?.arrayValue?[1].doubleValue, -2500)
        XCTAssertEqual(node.member("a")?.arrayValue?[2].boolValue, true)
        XCTAssertEqual(node.member("a")?.arrayValue?[3].boolValue, false)
        XCTAssertTrue(node.member("a")?.arrayValue?[4].isNull ?? false)
        XCTAssertEqual(node.member("a")?.arrayValue?[5].stringValue, "x")
        XCTAssertEqual(node.member("b")?.member("c")?.value, .object([]))
        XCTAssertEqual(node.member("d")?.arrayValue, [])
        XCTAssertEqual(node.member("a")?.offset, 8)
    }

    func testStringEscapesAndSurrogatePairs() throws {
        let node = try parse(#""q\" b\\ s\/ \b\f\n\r\t \u00e9 \u65e5 \ud83d\ude80 日本""#)
        XCTAssertEqual(node.stringValue, "q\" b\\ s/ \u{8}\u{C}\n\r\t é 日 🚀 日本")
    }

    func testErrorsHavePositions() {
        let cases: [(String, Int, Int, String)] = [
            ("[1,\n 2\n 3]", 3, 2, "expected ',' or ']'"),
            ("{\"a\" 1}", 1, 6, "expected ':'"),
            ("{\"a\": 1,}", 1, 9, "expected a string key"),
            ("[01]", 1, 3, "leading zeros"),
            ("[1.]", 1, 4, "digit after '.'"),
            ("[-]", 1, 3, "expected a digit"),
            ("\"abc", 1, 1, "unterminated string"),
            ("\"a\nb\"", 1, 3, "control character"),
            ("\"\\ud83d x\"", 1, 2, "not followed by a low surrogate"),
            ("\"\\ude80\"", 1, 2, "lone low surrogate"),
            ("\"\\q\"", 1, 2, "invalid escape"),
            ("[tru]", 1, 5, "expected 'true'"),
            ("[1] [2]", 1, 5, "after the end"),
            ("", 1, 1, "unexpected end of input"),
            ("[\"日本語\" 1]", 1, 8, "expected ',' or ']'"),
        ]
        for (text, line, column, fragment) in cases {
            guard let (location, message) = errorLocation(text) else {
                XCTFail("expected an error for \(text.debugDescription)")
                continue
            }
            XCTAssertEqual(location.line, line, text.debugDescription)
            XCTAssertEqual(location.column, column, text.debugDescription)
            XCTAssertTrue(message.contains(fragment), "\(text.debugDescription): \(message)")
        }
    }

    func testDeepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertNotNil(errorLocation(text))
    }

    func testUTF8ValidationReportsFirstBadByte() {
        let bytes: [UInt8] = Array("ok\n日本".utf8) + [0xC3, 0x28] + Array("x".utf8)
        XCTAssertThrowsError(try InputText(path: "bad.json", bytes: bytes)) { error in
            let diagnostic = error as? Diagnostic
            XCTAssertEqual(diagnostic?.location, SourceLocation(file: "bad.json", line: 2, column: 3))
            XCTAssertTrue(diagnostic?.message.contains("UTF-8") ?? false)
        }
        // Overlong encodings, surrogates and truncated sequences are rejected.
        XCTAssertEqual(InputText.firstInvalidUTF8([0xC0, 0xAF]), 0)
        XCTAssertEqual(InputText.firstInvalidUTF8([0x41, 0xED, 0xA0, 0x80]), 1)
        XCTAssertEqual(InputText.firstInvalidUTF8([0x41, 0x42, 0xE6, 0x97]), 2)
        XCTAssertEqual(InputText.firstInvalidUTF8([0xF4, 0x90, 0x80, 0x80]), 0)
        XCTAssertNil(InputText.firstInvalidUTF8(Array("日本語 🚀 é".utf8)))
    }
}
