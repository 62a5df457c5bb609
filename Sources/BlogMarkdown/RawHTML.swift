import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// Raw HTML: markers restored, then sanitized unless `markdown.unsafe` is set; the allowlisted
/// embeds pass (Embeds.swift) and raw `<h1>`…`<h6>` get the ids `headingPass` made for them.
extension Transformer {
    func rawHTMLPass(_ htmlNodes: [Node]) {
        let qiita = options.qiitaExtensions
        // one context for the document: an embed's closing tag may be a later node
        var embeds = EmbedContext(scripts: options.embedScripts)
        if !htmlNodes.isEmpty { mayHaveImages = true }
        var scriptURLs = ScriptURLFilter() // one per document: the browser reads its raw HTML as one stream
        for node in htmlNodes {
            let isBlock = kind(node) == CMARK_NODE_HTML_BLOCK
            var bytes: [UInt8]
            if qiita && markers, let r = restoreMarkers(literalBytes(node)) { bytes = r } else { bytes = literalArray(node) }
            let ids = rawHeadingIDs.isEmpty ? nil : rawHeadingIDs[node]
            if options.unsafeHTML {
                if let ids { bytes = Transformer.insertHeadingIDs(bytes, ids) }
                if let filtered = scriptURLs.filter(bytes) {
                    setLiteral(node, filtered)
                } else if qiita && bytes.count != literalBytes(node).count {
                    setLiteral(node, bytes)
                }
                continue
            }
            var clean = qiita ? bytes.withUnsafeBufferPointer { HTMLSanitizer.sanitize($0, embeds: &embeds) }
                              : bytes.withUnsafeBufferPointer { HTMLSanitizer.sanitize($0) }
            if let ids { clean = Transformer.insertHeadingIDs(clean, ids) }
            replace(node, with: makeCustom(block: isBlock, enter: clean, exit: []))
        }
    }

    // MARK: - raw headings

    /// The heading tags of a raw HTML block: where each `<hN` starts, its level, where its start
    /// tag ends, and whether it has an `id` of its own.
    static func headingTags(_ html: UnsafeBufferPointer<UInt8>) -> [(start: Int, level: Int, openEnd: Int, hasID: Bool)] {
        var tags: [(start: Int, level: Int, openEnd: Int, hasID: Bool)] = []
        var i = 0
        let n = html.count
        while i + 3 < n {
            guard html[i] == UInt8(ascii: "<"), html[i + 1] | 0x20 == UInt8(ascii: "h"),
                  html[i + 2] >= UInt8(ascii: "1"), html[i + 2] <= UInt8(ascii: "6"),
                  html[i + 3] == UInt8(ascii: ">") || html[i + 3].isWhitespace else { i += 1; continue }
            var end = i + 3
            while end < n && html[end] != UInt8(ascii: ">") { end += 1 }
            guard end < n else { break }
            let attributes = html[(i + 3)..<end].map { $0.lowerASCII }
            let hasID = attributes.split(whereSeparator: { $0.isWhitespace }).contains { $0.starts(with: "id=".utf8) || $0.elementsEqual("id".utf8) }
            tags.append((i, Int(html[i + 2] - UInt8(ascii: "0")), end + 1, hasID))
            i = end + 1
        }
        return tags
    }

    /// Ids for the headings of a raw HTML block, made in document order with the Markdown headings'
    /// (same rules, same duplicate numbering) and written by `rawHTMLPass`.
    func rawHeadings(_ node: Node) {
        let html = literalBytes(node)
        var ids: [[UInt8]] = []
        for tag in Transformer.headingTags(html) {
            // an id of its own stays where raw HTML is trusted (the sanitizer drops it otherwise)
            if tag.hasID && options.unsafeHTML { ids.append([]); continue }
            // the text up to the closing tag, without tags, with the common references decoded
            var close = tag.openEnd
            while close + 2 < html.count && !(html[close] == UInt8(ascii: "<") && html[close + 1] == UInt8(ascii: "/")
                                              && html[close + 2] | 0x20 == UInt8(ascii: "h")) { close += 1 }
            var text: [UInt8] = []
            var k = tag.openEnd
            while k < min(close, html.count) {
                if html[k] == UInt8(ascii: "<") {
                    while k < close && html[k] != UInt8(ascii: ">") { k += 1 }
                    k += 1
                    continue
                }
                if html[k] == UInt8(ascii: "&"), let (decoded, length) = Transformer.basicReference(html, k) {
                    text.append(decoded)
                    k += length
                    continue
                }
                text.append(html[k])
                k += 1
            }
            while let last = text.last, last.isWhitespace { text.removeLast() }
            while let first = text.first, first.isWhitespace { text.removeFirst() }
            let title = String(decoding: text, as: UTF8.self)
            var repaired = Array(title.utf8) // (invalid UTF-8 in raw HTML is repaired here)
            let slug = repaired.withUnsafeBufferPointer { HeadingID.makeBytes($0) } ?? Array(HeadingID.makeGeneral(title).utf8)
            let id = uniqueSlug(slug)
            headings.append(Heading(level: tag.level, text: makeString(&repaired, trusted: true), id: String(decoding: id, as: UTF8.self)))
            ids.append(id)
        }
        if !ids.isEmpty { rawHeadingIDs[node] = ids }
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&#39;` at `k`: the byte and the reference's length.
    static func basicReference(_ html: UnsafeBufferPointer<UInt8>, _ k: Int) -> (UInt8, Int)? {
        for (name, byte) in [("&amp;", UInt8(ascii: "&")), ("&lt;", UInt8(ascii: "<")), ("&gt;", UInt8(ascii: ">")),
                             ("&quot;", UInt8(ascii: "\"")), ("&#39;", UInt8(ascii: "'"))] {
            let bytes = Array(name.utf8)
            if html.count - k >= bytes.count && html[k..<(k + bytes.count)].elementsEqual(bytes) { return (byte, bytes.count) }
        }
        return nil
    }

    /// `html` with ` id="…"` after each `<hN` in turn (an empty id: the tag kept its own).
    static func insertHeadingIDs(_ html: [UInt8], _ ids: [[UInt8]]) -> [UInt8] {
        let tags = html.withUnsafeBufferPointer { headingTags($0) }
        var out: [UInt8] = []
        out.reserveCapacity(html.count + ids.count * 24)
        var from = 0
        for (tag, id) in zip(tags, ids) where !id.isEmpty {
            out.append(contentsOf: html[from..<(tag.start + 3)])
            out.append(static: " id=\"")
            appendEscaped(&out, id)
            out.append(UInt8(ascii: "\""))
            from = tag.start + 3
        }
        out.append(contentsOf: html[from...])
        return out
    }
}
