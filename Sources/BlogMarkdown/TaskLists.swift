import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// `[ ]` / `[x]` at the start of a list item.
extension Transformer {

    func taskLists(_ items: [Node]) {
        for item in items {
            guard let paragraph = cmark_node_first_child(item), kind(paragraph) == CMARK_NODE_PARAGRAPH,
                  let text = cmark_node_first_child(paragraph), kind(text) == CMARK_NODE_TEXT else { continue }
            let lit = literalBytes(text)
            guard lit.count >= 3, lit[0] == UInt8(ascii: "["), lit[2] == UInt8(ascii: "]"),
                  lit.count == 3 || lit[3].isSpaceOrTab else { continue }
            let checked: Bool
            switch lit[1] {
            case 0x20: checked = false
            case UInt8(ascii: "x"), UInt8(ascii: "X"): checked = true
            default: continue
            }
            let box = makeCustom(block: false,
                                 enter: "<input type=\"checkbox\" class=\"task-list-item-checkbox\" disabled=\"\"\(checked ? " checked=\"\"" : "") />",
                                 exit: "")
            cmark_node_insert_before(text, box)
            if lit.count == 3 { cmark_node_free(text) } else { setLiteral(text, Array(lit[3...])) }
        }
    }
}
