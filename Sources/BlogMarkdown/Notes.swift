import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// `:::note` blocks: the pre-pass's marker pairs become one `<div class="note …">` each, a plain
/// or unknown-type `:::` block a `<div>`.
extension Transformer {

    static let noteEndCString: [UInt8] = Array("</div>\0".utf8)

    func groupNotes(_ doc: Node) {
        var markers: [Node] = []
        markers.reserveCapacity(8) // (a handful per document: no growth from one element)
        walkBlocks(doc) { node, t in
            if t == CMARK_NODE_HTML_BLOCK && literalBytes(ofLiteralNode: node, direct: direct).starts(with: noteMarkerPrefix) {
                markers.append(node)
            }
        }
        // open markers as (index in `markers`, the type's bytes in the literal); paired markers are
        // marked in `done` by index (a Set of nodes hashed each one)
        var stack: [(index: Int, type: Range<Int>)] = []
        var done = [Bool](repeating: false, count: markers.count)
        let notePrefix: StaticString = "note "
        for (k, marker) in markers.enumerated() {
            // the pre-pass wrote `note info|warn|alert-->`, `plain-->` or `end-->` after the prefix
            let lit = literalBytes(marker)
            let rest = noteMarkerPrefix.count
            let n = notePrefix.utf8CodeUnitCount
            if lit.count - rest >= n && memcmp(lit.baseAddress! + rest, notePrefix.utf8Start, n) == 0 {
                var end = rest + n
                while end < lit.count && lit[end].isASCIILetter { end += 1 }
                stack.append((k, (rest + n)..<end))
                continue
            }
            if lit.count - rest >= 5 && memcmp(lit.baseAddress! + rest, "plain", 5) == 0 {
                stack.append((k, rest..<rest)) // no type: a plain `div`
                continue
            }
            let parent = cmark_node_parent(marker)
            guard let index = stack.lastIndex(where: { cmark_node_parent(markers[$0.index]) == parent }) else { continue }
            let open = stack[index]
            let openNode = markers[open.index]
            stack.removeSubrange(index...)
            var enter: [UInt8] = []
            enter.reserveCapacity(32)
            if open.type.isEmpty {
                enter.append(static: "<div>\0")
            } else {
                enter.append(static: "<div class=\"note ")
                enter.append(contentsOf: UnsafeBufferPointer(rebasing: literalBytes(openNode)[open.type]))
                enter.append(static: "\">\0")
            }
            let box = makeCustom(block: true, enterC: enter, exitC: Transformer.noteEndCString)
            cmark_node_insert_before(openNode, box)
            moveSiblings(after: openNode, before: marker, to: box)
            cmark_node_free(openNode)
            cmark_node_free(marker)
            done[open.index] = true
            done[k] = true
        }
        openNoteAtTop = stack.contains { cmark_node_parent(markers[$0.index]) == doc }
        // Unmatched markers show their original line as a paragraph.
        for (k, marker) in markers.enumerated() where !done[k] {
            let line = Int(cmark_node_get_start_line(marker))
            let text = prepass?.noteLine(line) ?? []
            let paragraph = newNode(CMARK_NODE_PARAGRAPH)
            append(paragraph, makeText(Array(text.drop(while: { $0.isSpaceOrTab }))))
            replace(marker, with: paragraph)
        }
    }
}
