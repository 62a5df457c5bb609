import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// Raw HTML: markers restored, then sanitized unless `markdown.unsafe` is set.
extension Transformer {
    func rawHTMLPass(_ htmlNodes: [Node]) {
        let qiita = options.qiitaExtensions
        for node in htmlNodes {
            let isBlock = kind(node) == CMARK_NODE_HTML_BLOCK
            var bytes: [UInt8]
            if qiita && markers, let r = restoreMarkers(literalBytes(node)) { bytes = r } else { bytes = literalArray(node) }
            if options.unsafeHTML {
                if qiita && bytes.count != literalBytes(node).count { setLiteral(node, bytes) }
                continue
            }
            let clean = bytes.withUnsafeBufferPointer { HTMLSanitizer.sanitize($0) }
            replace(node, with: makeCustom(block: isBlock, enter: clean, exit: []))
        }
    }
}
