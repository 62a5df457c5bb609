import BlogYAML
import XCTest

final class YAMLTests: XCTestCase {
    func testMappingWithLinesAndQuoting() throws {
        let value = try YAML.parse("title: \"Hello\"\ncount: 3\ntags:\n  - Swift\n  - iOS\n")
        XCTAssertEqual(value["title"]?.scalar, "Hello")
        XCTAssertEqual(value["title"]?.kind, .scalar("Hello", quoted: true))
        XCTAssertEqual(value["count"]?.int, 3)
        XCTAssertEqual(value["tags"]?.sequence?.compactMap(\.scalar), ["Swift", "iOS"])
        XCTAssertEqual(value["tags"]?.sequence?[1].line, 5)
        XCTAssertEqual(value["tags"]?.sequence?[1].column, 5)
        XCTAssertEqual(value.mapping?.map { $0.key.scalar ?? "" }, ["title", "count", "tags"])
    }

    func testBooleansAndNulls() throws {
        let value = try YAML.parse("a: true\nb: no\nc: ~\nd:\ne: 'true'\n")
        XCTAssertEqual(value["a"]?.bool, true)
        XCTAssertEqual(value["b"]?.bool, false)
        XCTAssertTrue(value["c"]!.isNull)
        XCTAssertTrue(value["d"]!.isNull)
        XCTAssertNil(value["e"]?.bool, "a quoted 'true' is a string")
    }

    func testAliasesResolve() throws {
        let value = try YAML.parse("base: &b [1, 2]\ncopy: *b\n")
        XCTAssertEqual(value["copy"]?.sequence?.compactMap(\.scalar), ["1", "2"])
    }

    func testSyntaxErrorHasLineAndColumn() {
        XCTAssertThrowsError(try YAML.parse("title: ok\ntags: [a, b\nother: 1\n")) { error in
            guard let error = error as? YAMLError else { return XCTFail("wrong error \(error)") }
            XCTAssertGreaterThanOrEqual(error.line, 2)
            XCTAssertFalse(error.message.isEmpty)
        }
        XCTAssertThrowsError(try YAML.parse("a: *missing\n")) { error in
            XCTAssertEqual((error as? YAMLError)?.line, 1)
        }
    }

    func testEmptyDocumentIsEmptyMapping() throws {
        XCTAssertEqual(try YAML.parse("").mapping?.count, 0)
    }

    func testJapaneseScalars() throws {
        XCTAssertEqual(try YAML.parse("title: 日本語のタイトル「引用」\n")["title"]?.scalar, "日本語のタイトル「引用」")
    }
}
