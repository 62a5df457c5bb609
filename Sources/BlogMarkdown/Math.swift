import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// Math: the pre-pass marks `$…$` and `$$…$$` as code spans; they become math HTML here.
extension Transformer {
    /// A code span the pre-pass made from `$…$` or `$$…$$`, replaced by its math HTML; false when
    /// the span is not math.
    func replaceMath(_ c: Node, _ lit: UnsafeBufferPointer<UInt8>, in container: Node, last: Bool) -> Bool {
        if lit.count >= 6 && lit.starts(with: mathMarker) && lit[(lit.count - 3)...].elementsEqual(mathMarker) {
            var html = Array("<span class=\"math inline\">".utf8)
            appendEscaped(&html, lit[3..<(lit.count - 3)])
            html.append(contentsOf: Array("</span>".utf8))
            let math = makeCustom(block: false, enter: html, exit: [])
            replace(c, with: math)
            return true
        }
        if lit.count >= 6 && lit.starts(with: displayMathMarker) && lit[(lit.count - 3)...].elementsEqual(displayMathMarker) {
            // `$$…$$`: a display block when it is the whole paragraph, else a display span in the text
            let alone = last && cmark_node_previous(c) == nil && kind(container) == CMARK_NODE_PARAGRAPH
            var html = Array((alone ? "<div class=\"math display\">" : "<span class=\"math display\">").utf8)
            appendEscaped(&html, lit[3..<(lit.count - 3)])
            html.append(contentsOf: Array((alone ? "</div>" : "</span>").utf8))
            if alone {
                // the paragraph stays (a footnote may hold it) but is written without <p>
                setFlag(container, Transformer.unwrappedParagraphFlag)
                unwrappedParagraphs = true
            }
            replace(c, with: makeCustom(block: false, enter: html, exit: []))
            return true
        }
        return false
    }
}
