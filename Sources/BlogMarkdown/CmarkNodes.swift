import CCmark

// Where every cmark node of a render comes from: cmark's own allocator (malloc, which is mimalloc
// in the blog program), freed with the document's tree.

/// A new node for the document being rendered.
@inline(__always) func newNode(_ type: cmark_node_type) -> Node {
    guard let node = cmark_node_new(type) else { fatalError("cmark_node_new failed") }
    return node
}

/// Parses `bytes` into a document tree the caller frees with `cmark_node_free`.
func parseDocument(_ bytes: UnsafeBufferPointer<UInt8>, options: Int32) -> Node? {
    guard let parser = cmark_parser_new(options) else { return nil }
    defer { cmark_parser_free(parser) }
    if let base = bytes.baseAddress, bytes.count > 0 {
        base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { cmark_parser_feed(parser, $0, bytes.count) }
    }
    return cmark_parser_finish(parser)
}
