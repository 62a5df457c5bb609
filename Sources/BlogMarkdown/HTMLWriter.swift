import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// The one HTML writer: the tree to HTML, plain text, code text and links in one walk.
extension Transformer {
    /// Writes the document's HTML the way `cmark_render_html` does (same bytes for every node type,
    /// without source positions), and in the same walk collects the plain text, the code text and the
    /// links. In the Qiita dialect, `http(s)` links get `rel="noopener"` and images `loading="lazy"`.
    /// `payloadsValid` turns false if a custom node's HTML (ours) is not valid UTF-8.
    /// `continuing`: the HTML of the sections before (see `carriesText`), to append to.
    func renderHTML(_ doc: Node, hardBreaks: Bool, unsafe: Bool, continuing: ByteBuffer? = nil) -> ByteBuffer {
        // Room for highlighted code (spans roughly double it) without growing, which copied the
        // whole buffer once for almost every document.
        var out = continuing ?? ByteBuffer(capacity: source.count * 3 + 256)
        var inImage = 0
        // The image whose alt text is being written (attribute mode: only text goes out), and whether
        // it is one of ours (Qiita: text and code only) or cmark's (text, code and raw HTML).
        var altImage: Node?
        var qiitaAlt = false
        // links open around the node being written, and whether the image being written is linked
        var linkDepth = 0
        var imageLinked = false
        let qiita = options.qiitaExtensions
        // the plain text goes into a byte buffer of its own (it is appended to for every text node)
        var plainText: ByteBuffer
        if carriesText {
            plainText = self.plainText
            self.plainText = ByteBuffer(capacity: 0)
        } else {
            plainText = ByteBuffer(capacity: source.count + 64)
        }
        var codeText = ByteBuffer(capacity: 0)
        var links: [MarkdownLink] = []
        swap(&codeText, &self.codeText)
        swap(&links, &self.links)
        // (a document has a dozen links or so: growing from one element was five allocations)
        links.reserveCapacity(16)
        var valid = true

        // (no nested functions here: capturing `out` would put it in a box with an exclusivity check per access)

        // One top-level block at a time, each freed once written: a very large document's tree
        // then shrinks as its HTML grows, instead of being held whole beside it. Nothing after
        // the walk reads the tree (the caller frees what is left: the document node).
        var block = firstChild(doc, direct: direct)
        while let top = block {
            block = nextSibling(top, direct: direct)
            var cursor = TreeCursor(top)
            defer { cursor.close(); cmark_node_free(top) }
            while let (node, entering, type) = cursor.next() {

                if let image = altImage {
                    // inside an image: only its alt text is written, as an attribute value
                    switch type {
                    case CMARK_NODE_TEXT:
                        let lit = literalBytes(ofLiteralNode: node, direct: direct)
                        out.appendEscaped(lit)
                        if inImage == 0 { plainText.append(lit) }
                        continue
                    case CMARK_NODE_CODE:
                        let lit = literalBytes(ofLiteralNode: node, direct: direct)
                        out.appendEscaped(lit)
                        if inImage == 0 { plainText.append(lit) }
                        codeText.append(lit)
                        codeText.append(0x0A)
                        continue
                    case CMARK_NODE_HTML_INLINE:
                        if !qiitaAlt { out.appendEscaped(literalBytes(ofLiteralNode: node, direct: direct)) }
                        continue
                    case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
                        out.append(0x20)
                        if inImage == 0 { plainText.append(0x0A) }
                        continue
                    case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                        if node != image {
                            if entering {
                                links.append(MarkdownLink(destination: makeString(cBytesView(cmark_node_get_url(node)), trusted: true), line: Int(originalLine(self.line(of: node)))))
                                if type == CMARK_NODE_IMAGE { inImage += 1 }
                            } else if type == CMARK_NODE_IMAGE {
                                inImage -= 1
                            }
                            continue
                        }
                        // the exit of the image itself: handled below
                        altImage = nil
                    case CMARK_NODE_CUSTOM_INLINE:
                        if !entering && hasFlag(node, Transformer.cellFlag) && plainText.last != 0x20 && plainText.last != 0x0A { plainText.append(0x20) }
                        continue
                    default:
                        continue
                    }
                }

                switch type {
                case CMARK_NODE_DOCUMENT:
                    break
                case CMARK_NODE_TEXT:
                    let lit = literalBytes(ofLiteralNode: node, direct: direct)
                    out.appendEscaped(lit)
                    if inImage == 0 { plainText.append(lit) }
                case CMARK_NODE_SOFTBREAK:
                    if hardBreaks { out.append(static: "<br />\n") } else { out.append(0x0A) }
                    if inImage == 0 { plainText.append(0x0A) }
                case CMARK_NODE_LINEBREAK:
                    out.append(static: "<br />\n")
                    if inImage == 0 { plainText.append(0x0A) }
                case CMARK_NODE_CODE:
                    let lit = literalBytes(ofLiteralNode: node, direct: direct)
                    out.append(static: "<code>")
                    out.appendEscaped(lit)
                    if qiita && Swatches.isColour(lit) { Swatches.write(lit, into: &out) }
                    out.append(static: "</code>")
                    if inImage == 0 { plainText.append(lit) }
                    codeText.append(lit)
                    codeText.append(0x0A)
                case CMARK_NODE_PARAGRAPH:
                    var tight = false
                    if let parent = parentNode(node, direct: direct), let grandparent = parentNode(parent, direct: direct), kind(grandparent, direct: direct) == CMARK_NODE_LIST {
                        tight = cmark_node_get_list_tight(grandparent) != 0
                    }
                    if unwrappedParagraphs && hasFlag(node, Transformer.unwrappedParagraphFlag) {
                        if entering { newlineIfNeeded(&out) } else { out.append(0x0A); newlineIfNeeded(&plainText) }
                    } else if entering {
                        if !tight { newlineIfNeeded(&out); out.append(static: "<p>") }
                    } else {
                        if !tight { out.append(static: "</p>\n") }
                        newlineIfNeeded(&plainText)
                    }
                case CMARK_NODE_EMPH:
                    if entering { out.append(static: "<em>") } else { out.append(static: "</em>") }
                case CMARK_NODE_STRONG:
                    if entering { out.append(static: "<strong>") } else { out.append(static: "</strong>") }
                case CMARK_NODE_CUSTOM_INLINE:
                    appendPayload(&out, entering ? cmark_node_get_on_enter(node) : cmark_node_get_on_exit(node),
                                  trusted: hasFlag(node, Transformer.trustedHTMLFlag), &valid)
                    if !entering && hasFlag(node, Transformer.cellFlag) && plainText.last != 0x20 && plainText.last != 0x0A { plainText.append(0x20) }
                case CMARK_NODE_CUSTOM_BLOCK:
                    newlineIfNeeded(&out)
                    let data = userData(node, direct: direct)
                    if data & Transformer.directTableFlag != 0 {
                        // cells are source bytes cut before ASCII bytes only: valid UTF-8
                        if entering { writeDirectTable(directTables[data >> 8], source, into: &out) }
                    } else {
                        appendPayload(&out, entering ? cmark_node_get_on_enter(node) : cmark_node_get_on_exit(node),
                                      trusted: data & Transformer.trustedHTMLFlag != 0, &valid)
                    }
                    newlineIfNeeded(&out)
                    if entering {
                        if data & Transformer.directTableFlag != 0 {
                            let table = directTables[data >> 8]
                            // the text the cell / row / table nodes would have given
                            let src = source
                            var offset = 0
                            for count in table.rowCounts {
                                for c in 0..<table.columns {
                                    if c < count {
                                        let cell = table.cells[offset + c]
                                        plainText.append(UnsafeBufferPointer(rebasing: src[cell.start..<cell.end]))
                                    }
                                    let last = plainText.last
                                    if last != 0x20 && last != 0x0A { plainText.append(0x20) }
                                }
                                if plainText.count > 0 && plainText.last != 0x0A { plainText.append(0x0A) }
                                offset += count
                            }
                        }
                    } else {
                        newlineIfNeeded(&plainText)
                    }
                case CMARK_NODE_LINK:
                    guard entering else { out.append(static: "</a>"); linkDepth -= 1; break }
                    linkDepth += 1
                    // cmark's URLs of a valid document are valid UTF-8 (entities decode to whole characters)
                    let url = cBytesView(cmark_node_get_url(node))
                    links.append(MarkdownLink(destination: makeString(url, trusted: true), line: Int(originalLine(self.line(of: node)))))
                    if qiita && inImage == 0 && Transformer.isHTTPURL(url) {
                        out.append(static: "<a href=\"")
                        out.appendEscapedHref(url)
                        out.append(UInt8(ascii: "\""))
                        appendTitle(&out, node)
                        out.append(static: " rel=\"noopener\">")
                    } else {
                        out.append(static: "<a href=\"")
                        if unsafe ? !URLSafety.runsScript(utf8: url, use: .link) : !isCmarkDangerousURL(url) { out.appendEscapedHref(url) }
                        out.append(UInt8(ascii: "\""))
                        appendTitle(&out, node)
                        out.append(UInt8(ascii: ">"))
                    }
                case CMARK_NODE_IMAGE:
                    if entering {
                        mayHaveImages = true
                        let url = cBytesView(cmark_node_get_url(node))
                        links.append(MarkdownLink(destination: makeString(url, trusted: true), line: Int(originalLine(self.line(of: node)))))
                        if qiita {
                            let safe = unsafe ? !URLSafety.runsScript(utf8: url, use: .image) : !isDangerousURL(url)
                            // Qiita links an image to its full-size file, unless the image is a link's
                            // text or its URL may only be an image's (a data: image is no link target)
                            imageLinked = linkDepth == 0 && safe && !url.isEmpty && !URLSafety.runsScript(utf8: url, use: .link)
                            if imageLinked {
                                out.append(static: "<a href=\"")
                                out.appendEscapedHref(url)
                                out.append(static: "\" class=\"image-link\">")
                            }
                            out.append(static: "<img src=\"")
                            if safe { out.appendEscapedHref(url) }
                        } else {
                            out.append(static: "<img src=\"")
                            if unsafe ? !URLSafety.runsScript(utf8: url, use: .image) : !isCmarkDangerousURL(url) { out.appendEscapedHref(url) }
                        }
                        out.append(static: "\" alt=\"")
                        altImage = node
                        qiitaAlt = qiita
                        inImage += 1
                    } else {
                        inImage -= 1
                        out.append(UInt8(ascii: "\""))
                        appendTitle(&out, node)
                        if qiitaAlt { out.append(static: " loading=\"lazy\" />") } else { out.append(static: " />") }
                        if imageLinked { out.append(static: "</a>"); imageLinked = false }
                    }
                case CMARK_NODE_HEADING:
                    if entering {
                        newlineIfNeeded(&out)
                        out.append(static: "<h")
                        out.append(UInt8(truncatingIfNeeded: 0x30 + Int(cmark_node_get_heading_level(node))))
                        out.append(UInt8(ascii: ">"))
                    } else {
                        out.append(static: "</h")
                        out.append(UInt8(truncatingIfNeeded: 0x30 + Int(cmark_node_get_heading_level(node))))
                        out.append(static: ">\n")
                        newlineIfNeeded(&plainText)
                    }
                case CMARK_NODE_LIST:
                    let bullet = cmark_node_get_list_type(node) == CMARK_BULLET_LIST
                    if entering {
                        newlineIfNeeded(&out)
                        if bullet {
                            out.append(static: "<ul>\n")
                        } else {
                            let start = cmark_node_get_list_start(node)
                            if start == 1 {
                                out.append(static: "<ol>\n")
                            } else {
                                out.append(static: "<ol start=\"")
                                Array(String(start).utf8).withUnsafeBufferPointer { out.append($0) }
                                out.append(static: "\">\n")
                            }
                        }
                    } else {
                        if bullet { out.append(static: "</ul>\n") } else { out.append(static: "</ol>\n") }
                    }
                case CMARK_NODE_ITEM:
                    if entering {
                        newlineIfNeeded(&out)
                        out.append(static: "<li>")
                    } else {
                        out.append(static: "</li>\n")
                        newlineIfNeeded(&plainText)
                    }
                case CMARK_NODE_BLOCK_QUOTE:
                    newlineIfNeeded(&out)
                    if entering {
                        out.append(static: "<blockquote>\n")
                    } else {
                        out.append(static: "</blockquote>\n")
                        newlineIfNeeded(&plainText)
                    }
                case CMARK_NODE_CODE_BLOCK:
                    newlineIfNeeded(&out)
                    let data = userData(node, direct: direct)
                    if data & Transformer.codeBlockFlag != 0 {
                        // Valid UTF-8 by construction: the code and info are cmark strings of a valid
                        // document (or the pre-pass's restored original bytes), the markup is ASCII.
                        let entry = codeBlocks[data >> 8]
                        if case .math = entry.plan.plan.kind {
                            var body = entry.restored.map { $0[...] } ?? Array(literalBytes(node))[...]
                            if body.last == 0x0A { body = body.dropLast() }
                            mathHTML(body, display: true, block: true, at: node).withUnsafeBufferPointer { out.append($0) }
                            out.append(0x0A)
                        } else if let restored = entry.restored {
                            restored.withUnsafeBufferPointer { CodeBlockRenderer.write(entry.plan.plan, code: $0, highlight: options.highlightCode, into: &out) }
                        } else {
                            CodeBlockRenderer.write(entry.plan.plan, code: literalBytes(node), highlight: options.highlightCode, into: &out)
                        }
                        newlineIfNeeded(&out)
                        newlineIfNeeded(&plainText)
                        break
                    }
                    let info = cBytesView(cmark_node_get_fence_info(node))
                    if info.isEmpty {
                        out.append(static: "<pre><code>")
                    } else {
                        var firstTag = 0
                        while firstTag < info.count && !info[firstTag].isWhitespace { firstTag += 1 }
                        out.append(static: "<pre><code class=\"language-")
                        out.appendEscaped(UnsafeBufferPointer(rebasing: info[0..<firstTag]))
                        out.append(static: "\">")
                    }
                    out.appendEscaped(literalBytes(ofLiteralNode: node, direct: direct))
                    out.append(static: "</code></pre>\n")
                case CMARK_NODE_HTML_BLOCK:
                    newlineIfNeeded(&out)
                    if unsafe { out.append(literalBytes(node)) } else { out.append(static: "<!-- raw HTML omitted -->") }
                    newlineIfNeeded(&out)
                case CMARK_NODE_HTML_INLINE:
                    if unsafe { out.append(literalBytes(node)) } else { out.append(static: "<!-- raw HTML omitted -->") }
                case CMARK_NODE_THEMATIC_BREAK:
                    newlineIfNeeded(&out)
                    out.append(static: "<hr />\n")
                default:
                    break
                }
            }
        }
        self.plainText.deallocate()
        self.plainText = plainText
        swap(&codeText, &self.codeText)
        codeText.deallocate() // the empty placeholder swapped in above
        swap(&links, &self.links)
        payloadsValid = valid
        return out
    }

    /// `http://` or `https://` (ASCII case-insensitive), the links the dialect marks `rel="noopener"`.
    static func isHTTPURL(_ url: UnsafeBufferPointer<UInt8>) -> Bool {
        let prefix = httpPrefixLength(url)
        guard prefix > 0 else { return false }
        if prefix < url.count && url[prefix] >= 0x80 {
            // a combining mark right after the prefix changes the Character comparison
            let lower = String(decoding: url, as: UTF8.self).prefix(8).lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        }
        return true
    }

    /// 7 for a URL starting `http://`, 8 for `https://` (letters in either case), else 0. The first
    /// eight bytes are compared as one word with bit 5 set on the letters' lanes (only `A`-`Z`
    /// and `a`-`z` then give the lowercase letter), since a byte loop per prefix is dear for every link.
    @inline(__always) static func httpPrefixLength(_ url: UnsafeBufferPointer<UInt8>) -> Int {
        guard url.count >= 7, let p = url.baseAddress else { return 0 }
        // "http://" and "https://" as little-endian words (the lowest byte first)
        let https: UInt64 = 0x2F2F_3A73_7074_7468, http: UInt64 = 0x002F_2F3A_7074_7468
        if url.count >= 8 {
            let x = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            if x | 0x0000_0020_2020_2020 == https { return 8 }
            if (x & 0x00FF_FFFF_FFFF_FFFF) | 0x0000_0000_2020_2020 == http { return 7 }
            return 0
        }
        var x: UInt64 = 0
        for k in 0..<7 { x |= UInt64(p[k]) << (8 * UInt64(k)) }
        return x | 0x0000_0000_2020_2020 == http ? 7 : 0
    }

    /// ` title="…"` of a link or image, when it has one.
    func appendTitle(_ html: inout ByteBuffer, _ node: Node) {
        let title = cBytesView(cmark_node_get_title(node))
        guard !title.isEmpty else { return }
        html.append(static: " title=\"")
        html.appendEscaped(title)
        html.append(UInt8(ascii: "\""))
    }
}

/// cmark's `cr()`: a newline unless the output is empty or already ends with one.
@inline(__always) private func newlineIfNeeded(_ out: inout [UInt8]) {
    if let last = out.last, last != 0x0A { out.append(0x0A) }
}

@inline(__always) private func newlineIfNeeded(_ out: inout ByteBuffer) {
    if let last = out.last, last != 0x0A { out.append(0x0A) }
}

/// A custom node's HTML (ours), checked to be UTF-8 unless it is `trusted` (built only from whole
/// UTF-8 sequences: tables cut at `|`, heading ids).
@inline(__always) private func appendPayload(_ out: inout ByteBuffer, _ p: UnsafePointer<CChar>?, trusted: Bool, _ valid: inout Bool) {
    let bytes = cBytesView(p)
    guard !bytes.isEmpty else { return }
    if valid && !trusted && !isValidUTF8(bytes) { valid = false }
    out.append(bytes)
}

/// cmark's `scan_dangerous_url`: `javascript:`, `vbscript:`, `file:`, or `data:` other than
/// `data:image/png|gif|jpeg|webp`, ASCII case-insensitive, at the very start of the URL.
func isCmarkDangerousURL(_ url: UnsafeBufferPointer<UInt8>) -> Bool {
    @inline(__always) func has(_ prefix: StaticString, at offset: Int) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard url.count - offset >= n else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where url[offset + k].lowerASCII != p[k] { return false }
        return true
    }
    if has("javascript:", at: 0) || has("vbscript:", at: 0) || has("file:", at: 0) { return true }
    guard has("data:", at: 0) else { return false }
    if has("image/", at: 5) && (has("png", at: 11) || has("gif", at: 11) || has("jpeg", at: 11) || has("webp", at: 11)) { return false }
    return true
}

/// Whether `bytes` is well-formed UTF-8.
@inline(__always)
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    SourceText.firstInvalidUTF8(bytes) == nil
}
