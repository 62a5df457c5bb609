import CCmark
import XCTest
@testable import BlogMarkdown

/// `TreeCursor` reads cmark's node links itself; it must give cmark's iterator's events exactly,
/// from the document and from every node as the root (the heading walk starts below the document),
/// on empty containers, leaves at the end of their parent and custom nodes.
final class TreeWalkTests: XCTestCase {
    private func events(_ root: Node, direct: Bool) -> [String] {
        var cursor = TreeCursor(root, direct: direct)
        defer { cursor.close() }
        var out: [String] = []
        while let (node, entering, type) = cursor.next() {
            XCTAssertEqual(type, cmark_node_get_type(node))
            XCTAssertEqual(kind(node, direct: true), cmark_node_get_type(node))
            XCTAssertEqual(nextSibling(node, direct: true), cmark_node_next(node))
            XCTAssertEqual(firstChild(node, direct: true), cmark_node_first_child(node))
            XCTAssertEqual(parentNode(node, direct: true), cmark_node_parent(node))
            let mark = out.count << 8 | 0x35
            setUserData(node, mark, direct: true)
            XCTAssertEqual(cmark_node_get_user_data(node), UnsafeMutableRawPointer(bitPattern: mark))
            cmark_node_set_user_data(node, UnsafeMutableRawPointer(bitPattern: mark + 1))
            XCTAssertEqual(userData(node, direct: true), mark + 1)
            out.append("\(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(node)))) \(entering) \(type.rawValue)")
        }
        return out
    }

    func testSameEventsAsCmarkIterator() {
        XCTAssertTrue(directTreeWalk, "the probe failed: the walks below only compare the iterator with itself")
        let documents = [
            "",
            "#\n\n>\n\n-\n\n1.\n\n[]()\n\n![]()\n\n**",
            "# a *b* `c`\n\n> - d **e _f_** <i>\n>   g  \n>   h\n>\n>   ```\n>   i\n>   ```\n\n<div>\n\n---\n\n[j](k) ![l *m*](n)\n",
            "- a\n  - b\n    - c\n\n      > d\n\ne",
            "    code\n\ntext\\\nbreak\n\n***\n",
        ]
        for markdown in documents {
            guard let doc = cmark_parse_document(markdown, markdown.utf8.count, 0) else { return XCTFail() }
            defer { cmark_node_free(doc) }
            // empty and non-empty custom nodes, last in their parents
            let custom = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK)!
            XCTAssertEqual(cmark_node_append_child(doc, custom), 1)
            let inner = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK)!
            XCTAssertEqual(cmark_node_append_child(custom, inner), 1)
            let paragraph = cmark_node_new(CMARK_NODE_PARAGRAPH)!
            XCTAssertEqual(cmark_node_append_child(doc, paragraph), 1)
            XCTAssertEqual(cmark_node_append_child(paragraph, cmark_node_new(CMARK_NODE_CUSTOM_INLINE)!), 1)

            let all = events(doc, direct: false)
            XCTAssertEqual(events(doc, direct: true), all, markdown.debugDescription)
            XCTAssertGreaterThan(all.count, 6)
            // walkBlocks: the block nodes cmark's iterator enters below the document, in its order
            var blocks: [String] = [], expected: [String] = []
            walkBlocks(doc) { node, type in
                XCTAssertEqual(type, cmark_node_get_type(node))
                blocks.append("\(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(node)))) true \(type.rawValue)")
            }
            for event in all.dropFirst() where event.contains(" true ") {
                let type = UInt32(event.split(separator: " ")[2])!
                if type >= CMARK_NODE_FIRST_BLOCK.rawValue && type <= CMARK_NODE_LAST_BLOCK.rawValue { expected.append(event) }
            }
            XCTAssertEqual(blocks, expected, markdown.debugDescription)
            var cursor = TreeCursor(doc, direct: false)
            defer { cursor.close() }
            while let (node, entering, _) = cursor.next() {
                guard entering else { continue }
                XCTAssertEqual(events(node, direct: true), events(node, direct: false), markdown.debugDescription)
            }
        }
    }

    /// `literalBytes(ofLiteralNode:)` reads the literal without cmark's call: same bytes, also for
    /// empty literals (cmark's static "") and literals set afterwards.
    func testLiteralReadDirectly() {
        let markdown = "a `b` <i>\n\n```\nc\n```\n\n<div>\n\n```\n```\n\n長い文字列 **x**\n"
        guard let doc = cmark_parse_document(markdown, markdown.utf8.count, 0) else { return XCTFail() }
        defer { cmark_node_free(doc) }
        let empty = cmark_node_new(CMARK_NODE_TEXT)!, set = cmark_node_new(CMARK_NODE_CODE)!
        XCTAssertEqual(cmark_node_set_literal(set, "set later"), 1)
        let paragraph = cmark_node_new(CMARK_NODE_PARAGRAPH)!
        XCTAssertEqual(cmark_node_append_child(doc, paragraph), 1)
        XCTAssertEqual(cmark_node_append_child(paragraph, empty), 1)
        XCTAssertEqual(cmark_node_append_child(paragraph, set), 1)
        var checked = 0
        walk(doc) { node, entering, type in
            guard entering, [CMARK_NODE_TEXT, CMARK_NODE_CODE, CMARK_NODE_HTML_INLINE, CMARK_NODE_HTML_BLOCK, CMARK_NODE_CODE_BLOCK].contains(type) else { return }
            let c = cmark_node_get_literal(node)!
            XCTAssertEqual(Array(literalBytes(ofLiteralNode: node)), Array(UnsafeBufferPointer(start: UnsafeRawPointer(c).assumingMemoryBound(to: UInt8.self), count: strlen(c))))
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 10)
    }

    /// `writeDirectTable` writes the cell tags as static strings: they must be `TableTags`' (the tags
    /// of the tree `makeTable` builds), for every alignment.
    func testDirectTableCellTagsAreTableTags() {
        for align in 0..<4 {
            XCTAssertEqual(Array(UnsafeBufferPointer(start: Transformer.cellTag(header: true, align: align).utf8Start,
                                                     count: Transformer.cellTag(header: true, align: align).utf8CodeUnitCount)),
                           Array(TableTags.th[align].dropLast()))
            XCTAssertEqual(Array(UnsafeBufferPointer(start: Transformer.cellTag(header: false, align: align).utf8Start,
                                                     count: Transformer.cellTag(header: false, align: align).utf8CodeUnitCount)),
                           Array(TableTags.td[align].dropLast()))
        }
    }
}
