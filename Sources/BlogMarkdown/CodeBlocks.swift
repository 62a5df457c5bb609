import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// Fenced code blocks: the plan (language, file name, highlighting) `renderHTML` writes them with.
extension Transformer {
    func plan(forInfo info: UnsafeBufferPointer<UInt8>, qiita: Bool) -> CodeBlockRenderer.SharedPlan? {
        CodeBlockRenderer.cachedPlan(info: info, qiita: qiita, highlight: options.highlightCode)
    }

    func codeBlockPass(_ codeBlocks: [Node]) {
        let qiita = options.qiitaExtensions
        for block in codeBlocks {
            let literal = literalBytes(block)
            let restored = qiita && markers ? restoreMarkers(literal) : nil
            let info = cBytesView(cmark_node_get_fence_info(block))
            func take(_ code: UnsafeBufferPointer<UInt8>) {
                codeText.append(code)
                if codeText.last != 0x0A { codeText.append(0x0A) }
            }
            if let r = restored { r.withUnsafeBufferPointer { take($0) } } else { take(literal) }
            if let plan = plan(forInfo: info, qiita: qiita) {
                cmark_node_set_user_data(block, UnsafeMutableRawPointer(bitPattern: (self.codeBlocks.count << 8) | Transformer.codeBlockFlag))
                self.codeBlocks.append((plan, restored))
            } else if let r = restored {
                setLiteral(block, r)
            }
        }
    }
}
