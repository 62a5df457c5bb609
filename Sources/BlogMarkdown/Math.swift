import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// Math: the pre-pass marks `$…$` and `$$…$$` as code spans; they become math HTML here (MathML unless `markdown.math: keep`).
extension Transformer {
    /// A code span the pre-pass made from `$…$` or `$$…$$`, replaced by its math HTML; false when
    /// the span is not math.
    func replaceMath(_ c: Node, _ lit: UnsafeBufferPointer<UInt8>, in container: Node, last: Bool) -> Bool {
        if lit.count >= 6 && lit.starts(with: mathMarker) && lit[(lit.count - 3)...].elementsEqual(mathMarker) {
            let html = mathHTML(lit[3..<(lit.count - 3)], display: false, block: false, at: container)
            let math = makeCustom(block: false, enter: html, exit: [])
            replace(c, with: math)
            return true
        }
        if lit.count >= 6 && lit.starts(with: displayMathMarker) && lit[(lit.count - 3)...].elementsEqual(displayMathMarker) {
            // `$$…$$`: a display block when it is the whole paragraph, else a display span in the text
            let alone = last && cmark_node_previous(c) == nil && kind(container) == CMARK_NODE_PARAGRAPH
            let html = mathHTML(lit[3..<(lit.count - 3)], display: true, block: alone, at: container)
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

    /// A formula's HTML (see MathHTML), noting a formula that stays TeX once per problem.
    func mathHTML<C: Collection>(_ tex: C, display: Bool, block: Bool, at node: Node) -> [UInt8] where C.Element == UInt8 {
        var problem: String?
        let html = MathHTML.html(tex: tex, display: display, block: block, output: options.math, problem: &problem)
        if let problem, !mathProblems.contains(where: { $0.message == problem }) {
            mathProblems.append(MathProblem(line: Int(originalLine(line(of: node))), message: problem))
        }
        return html
    }
}
