import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// Footnotes: definitions found, references numbered, the section written at the end.
extension Transformer {

    func findFootnoteDefinitions(_ doc: Node) {
        var paragraphs: [Node] = []
        walkBlocks(doc) { node, t in
            if t == CMARK_NODE_PARAGRAPH { paragraphs.append(node) }
        }
        // Definitions on consecutive lines are one paragraph for cmark: split before each marker line.
        var found: [Node] = []
        for paragraph in paragraphs {
            var current = paragraph
            if let first = cmark_node_first_child(current), kind(first) == CMARK_NODE_TEXT, literalBytes(first).starts(with: footnoteMarker) {
                found.append(current)
            }
            var child = cmark_node_first_child(current)
            while let c = child {
                let t = kind(c)
                guard t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK, let next = cmark_node_next(c),
                      kind(next) == CMARK_NODE_TEXT, literalBytes(next).starts(with: footnoteMarker) else {
                    child = cmark_node_next(c)
                    continue
                }
                let split = newNode(CMARK_NODE_PARAGRAPH)
                cmark_node_insert_after(current, split)
                while let moving = cmark_node_next(c) { append(split, moving) }
                cmark_node_free(c)
                found.append(split)
                current = split
                child = cmark_node_first_child(split)
            }
        }
        for paragraph in found {
            let first = cmark_node_first_child(paragraph)!
            let lit = literalArray(first)
            var j = 3
            while j + 2 < lit.count && !(lit[j] == 0xEE && lit[j + 1] == 0x80 && lit[j + 2] == 0x81) { j += 1 }
            guard j + 2 < lit.count else { continue }
            let label = String(decoding: lit[3..<j], as: UTF8.self)
            let rest = Array(lit[(j + 3)...].drop(while: { $0.isSpaceOrTab }))
            if rest.isEmpty { cmark_node_free(first) } else { setLiteral(first, rest) }
            // The pre-pass made the definition a list item: its blocks are the footnote (they stay in
            // place, so the inline passes see them, until `buildFootnotes` moves them).
            var definition = paragraph
            if let item = cmark_node_parent(paragraph), kind(item) == CMARK_NODE_ITEM, cmark_node_first_child(item) == paragraph {
                definition = item
            }
            // a label's second definition is dropped at the end (freeing it now could free a
            // definition nested in it)
            if footnoteDefs[label] == nil {
                footnoteDefs[label] = definition
                footnoteDefOrder.append(label)
            } else {
                duplicateDefinitions.append(definition)
            }
        }
    }

    /// Frees a footnote definition that the output does not show; a definition item takes its list
    /// with it when it was the list's only item.
    func removeDefinition(_ definition: Node) {
        guard kind(definition) == CMARK_NODE_ITEM, let list = cmark_node_parent(definition) else {
            cmark_node_free(definition)
            return
        }
        cmark_node_free(definition)
        if cmark_node_first_child(list) == nil { cmark_node_free(list) }
    }

    func buildFootnotes(_ doc: Node) {
        let section = makeCustom(block: true, enter: "<section class=\"footnotes\">\n<ol>", exit: "</ol>\n</section>")
        for (index, label) in footnoteOrder.enumerated() {
            guard let definition = footnoteDefs[label] else { continue }
            let number = index + 1
            let item = makeCustom(block: true, enter: "<li id=\"fn-\(number)\">", exit: "</li>")
            let link = "<a href=\"#fnref-\(number)\" class=\"footnote-backref\" aria-label=\"Back to reference \(number)\">↩</a>"
            if kind(definition) == CMARK_NODE_ITEM {
                // the blocks of the definition item, the back link at the end of its last paragraph
                moveChildren(from: definition, to: item)
                if let last = cmark_node_last_child(item), kind(last) == CMARK_NODE_PARAGRAPH {
                    append(last, makeCustom(block: false, enter: " " + link, exit: ""))
                } else {
                    let paragraph = newNode(CMARK_NODE_PARAGRAPH)
                    append(paragraph, makeCustom(block: false, enter: link, exit: ""))
                    append(item, paragraph)
                }
                removeDefinition(definition)
            } else {
                append(definition, makeCustom(block: false, enter: " " + link, exit: ""))
                append(item, definition) // unlinks it from where it was defined
            }
            append(section, item)
        }
        // Definitions not shown (unreferenced, or a label's second one): each is freed unless one of
        // its ancestors is, which frees it too (nothing is freed twice; the shown ones have moved out).
        var unused = Set<Node>()
        for label in footnoteDefOrder where footnoteRefs[label] == nil {
            if let definition = footnoteDefs[label] { unused.insert(definition) }
        }
        for definition in duplicateDefinitions { unused.insert(definition) }
        let outermost = unused.filter { definition in
            var ancestor = cmark_node_parent(definition)
            while let a = ancestor {
                if unused.contains(a) { return false }
                ancestor = cmark_node_parent(a)
            }
            return true
        }
        for definition in outermost { removeDefinition(definition) }
        if footnoteOrder.isEmpty { cmark_node_free(section) } else { append(doc, section) }
    }

    func footnoteReference(_ label: String) -> Node {
        let number: Int
        if let index = footnoteOrder.firstIndex(of: label) { number = index + 1 } else {
            footnoteOrder.append(label)
            number = footnoteOrder.count
        }
        let count = (footnoteRefs[label] ?? 0) + 1
        footnoteRefs[label] = count
        let id = count == 1 ? "fnref-\(number)" : "fnref-\(number)-\(count)"
        return makeCustom(block: false, enter: "<sup id=\"\(id)\"><a href=\"#fn-\(number)\" class=\"footnote-ref\">\(number)</a></sup>", exit: "")
    }
}
