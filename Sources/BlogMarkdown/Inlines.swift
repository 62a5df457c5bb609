import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// The inline pass: CJK strong repair, autolinks, footnote references, strikethrough.
extension Transformer {

    /// The nodes the passes after the tables work on, in document order.
    struct Found {
        /// Containers whose text has a `**`/`__` run next to non-ASCII text (CJK strong repair).
        var cjk: [Node] = []
        /// Parents of text and code spans (inline pass).
        var inline: [Node] = []
        var items: [Node] = []
        var headings: [Node] = []
        var codeBlocks: [Node] = []
        var htmlNodes: [Node] = []
    }

    func collectNodes(_ doc: Node, qiita: Bool) -> Found {
        var found = Found()
        found.inline.reserveCapacity(64)
        found.headings.reserveCapacity(16)
        found.codeBlocks.reserveCapacity(16)
        // Text and code spans come in runs of siblings: their parent is checked once per run.
        var lastParent: Node?
        var lastParentIsCJK = false
        walk(doc) { node, entering, t in
            guard entering else { return }
            switch t {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE:
                guard qiita, let parent = parentNode(node, direct: direct) else { return }
                if parent != lastParent {
                    lastParent = parent
                    lastParentIsCJK = hasFlag(parent, Transformer.cjkSeenFlag)
                    if !hasFlag(parent, Transformer.inlineSeenFlag) {
                        setFlag(parent, Transformer.inlineSeenFlag)
                        found.inline.append(parent)
                    }
                }
                guard t == CMARK_NODE_TEXT else { return }
                let lit = literalBytes(ofLiteralNode: node, direct: direct)
                let scan = Transformer.scanText(lit, markers: markers)
                setFlag(node, scan)
                if !lastParentIsCJK && scan & Transformer.textStarFlag != 0 && hasCJKStrongRun(lit) {
                    setFlag(parent, Transformer.cjkSeenFlag)
                    lastParentIsCJK = true
                    found.cjk.append(parent)
                }
            case CMARK_NODE_ITEM: if qiita { found.items.append(node) }
            case CMARK_NODE_HEADING: found.headings.append(node)
            case CMARK_NODE_CODE_BLOCK: found.codeBlocks.append(node)
            case CMARK_NODE_HTML_BLOCK:
                found.htmlNodes.append(node)
                if qiita && !Transformer.headingTags(literalBytes(ofLiteralNode: node, direct: direct)).isEmpty { found.headings.append(node) }
            case CMARK_NODE_HTML_INLINE: found.htmlNodes.append(node)
            default: break
            }
        }
        return found
    }

    /// Parents of text and code spans, found again after the CJK repair changed the tree (with a
    /// flag of their own: the first walk's flags are still set on the containers that survived).
    func inlineContainers(_ doc: Node) -> [Node] {
        var containers: [Node] = []
        walk(doc) { node, entering, t in
            guard entering else { return }
            if t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE, let parent = parentNode(node, direct: direct), !hasFlag(parent, Transformer.inlineSeenAgainFlag) {
                setFlag(parent, Transformer.inlineSeenAgainFlag)
                containers.append(parent)
            }
        }
        return containers
    }

    /// The text-node flags of a literal: `textScannedFlag`, plus `textStarFlag` for a `*` or `_`,
    /// `textTildeFlag` for a `~` (the delimiter pass) and `textInterestingFlag` for a `[`, `:`, `@`,
    /// `w`, `W` or, when the pre-pass wrote `markers`, 0xEE (footnote references, autolinks and stray
    /// markers: `splitText`'s full scan). Eight bytes at a time: all non-ASCII (and no 0xEE) at
    /// once, else each byte value tested in all eight lanes (`x ^ c` has a zero byte); the last
    /// bytes through a table. Without markers the 0xEE test is left out of the loop: Japanese text
    /// is almost all whole non-ASCII words, where that test would be a large share of the loop.
    static func scanText(_ lit: UnsafeBufferPointer<UInt8>, markers: Bool = true) -> Int {
        markers ? scanText(lit, withMarkers: true) : scanText(lit, withMarkers: false)
    }

    /// The flag of each ASCII byte in `scanText` (0xEE, the markers' lead byte, is tested apart).
    /// (computed: a stored static is a lazy global, checked on every read)
    @inline(__always) static var asciiTextFlags: StaticString { "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{04}\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{10}\0\0\0\0\0\u{10}\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{10}\0\0\0\u{10}\0\0\0\u{04}\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{10}\0\0\0\0\0\0\u{08}\0" }

    @inline(__always) static func scanText(_ lit: UnsafeBufferPointer<UInt8>, withMarkers: Bool) -> Int {
        let n = lit.count
        guard n > 0, let base = lit.baseAddress else { return textScannedFlag }
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroByte(_ v: UInt64) -> UInt64 { (v &- ones) & ~v }
        var star: UInt64 = 0, tilde: UInt64 = 0, interesting: UInt64 = 0
        var p = base
        let end = base + n
        while end - p >= 8 {
            let x = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            if withMarkers { interesting |= zeroByte(x ^ (ones &* 0xEE)) }
            if x & high != high {
                star |= zeroByte(x ^ (ones &* 0x2A)) | zeroByte(x ^ (ones &* 0x5F))
                tilde |= zeroByte(x ^ (ones &* 0x7E))
                // `w` and `W` alike: only they become 0x77 with bit 5 set
                interesting |= zeroByte(x ^ (ones &* 0x5B)) | zeroByte(x ^ (ones &* 0x3A)) | zeroByte((x | (ones &* 0x20)) ^ (ones &* 0x77))
                    | zeroByte(x ^ (ones &* 0x40))
            }
            p += 8
        }
        var flags = textScannedFlag
        if star & high != 0 { flags |= textStarFlag }
        if tilde & high != 0 { flags |= textTildeFlag }
        if interesting & high != 0 { flags |= textInterestingFlag }
        let table = asciiTextFlags.utf8Start
        while p < end {
            let b = p.pointee
            if b < 0x80 { flags |= Int(table[Int(b)]) } else if withMarkers && b == 0xEE { flags |= textInterestingFlag }
            p += 1
        }
        return flags
    }

    /// A `**`/`__` run (exactly two) with non-ASCII text on one side (asked only of text with a `*` or `_`).
    func hasCJKStrongRun(_ lit: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lit.count >= 2 else { return false }
        var i = 0
        while i + 1 < lit.count {
            let b = lit[i]
            if (b == UInt8(ascii: "*") || b == UInt8(ascii: "_")) && lit[i + 1] == b && (i + 2 == lit.count || lit[i + 2] != b)
                && (i == 0 || lit[i - 1] != b) && ((i > 0 && lit[i - 1] >= 0x80) || (i + 2 < lit.count && lit[i + 2] >= 0x80)) {
                return true
            }
            i += 1
        }
        return false
    }

    /// cmark pairs `**（括弧）**と**【見出し】**` as `**（括弧）<strong>と</strong>【見出し】**`. Where a
    /// container still has a literal `**`/`__` run next to non-ASCII text, its strong nodes are undone
    /// back into delimiter text so the relaxed pairing below sees the whole sequence.
    func repairCJKStrong(_ containers: [Node]) {
        for container in containers {
            var child = cmark_node_first_child(container)
            while let c = child {
                child = cmark_node_next(c)
                guard kind(c) == CMARK_NODE_STRONG, !hasFlag(c, Transformer.cjkSeenFlag) else { continue }
                let line = sourceLine(Int(cmark_node_get_start_line(c)))
                let column = Int(cmark_node_get_start_column(c))
                var marker: [UInt8] = [UInt8(ascii: "*"), UInt8(ascii: "*")]
                if column >= 1 && column <= line.count && line[line.startIndex + column - 1] == UInt8(ascii: "_") {
                    marker = [UInt8(ascii: "_"), UInt8(ascii: "_")]
                }
                cmark_node_insert_before(c, makeText(marker))
                while let inner = cmark_node_first_child(c) { cmark_node_insert_before(c, inner) }
                cmark_node_insert_before(c, makeText(marker))
                cmark_node_free(c)
            }
            // merge adjacent text so the delimiter scan sees runs and their neighbours
            var node = cmark_node_first_child(container)
            while let n = node {
                if kind(n) == CMARK_NODE_TEXT, let next = cmark_node_next(n), kind(next) == CMARK_NODE_TEXT {
                    setLiteral(n, literalArray(n) + literalArray(next))
                    clearFlag(n, Transformer.textScannedFlag) // scanned again by `splitText`
                    cmark_node_free(next)
                    continue
                }
                node = cmark_node_next(n)
            }
        }
    }

    func insideLink(_ container: Node) -> Bool {
        var p: Node? = container
        while let node = p {
            let t = kind(node)
            if t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE { return true }
            if t.rawValue < CMARK_NODE_FIRST_INLINE.rawValue || t == CMARK_NODE_CUSTOM_BLOCK { return false }
            p = cmark_node_parent(node)
        }
        return false
    }

    func processInlines(_ container: Node) {
        if options.mentionsBaseURL != nil && underscoreMention(container) { return }
        let linksAllowed = !insideLink(container)
        var hasDelimiters = false
        let direct = self.direct
        var child = cmark_node_first_child(container)
        while let c = child {
            let next = nextSibling(c, direct: direct)
            let t = kind(c, direct: direct)
            if t == CMARK_NODE_CODE && markers {
                let lit = literalBytes(ofLiteralNode: c, direct: direct)
                if !replaceMath(c, lit, in: container, last: next == nil), let restored = restoreMarkers(lit) {
                    setLiteral(c, restored)
                }
            } else if t == CMARK_NODE_TEXT {
                if splitText(c, linksAllowed: linksAllowed) { hasDelimiters = true }
            }
            child = next
        }
        if hasDelimiters { pairDelimiters(container) }
    }

    static let nbsp: [UInt8] = [0xC2, 0xA0]

    /// Footnote references, autolinks and stray markers in one text node. Returns whether the text
    /// (or its remains) contains `~`, `*` or `_` for the delimiter pass.
    func splitText(_ node: Node, linksAllowed: Bool) -> Bool {
        let lit = literalBytes(ofLiteralNode: node, direct: direct)
        let n = lit.count
        // what `collectNodes` found in the literal, or a scan now for text made or changed since
        let data = userData(node, direct: direct)
        let scan = data & Transformer.textScannedFlag != 0 ? data : Transformer.scanText(lit, markers: markers)
        let delimiters = scan & (Transformer.textStarFlag | Transformer.textTildeFlag) != 0
        let interesting = scan & Transformer.textInterestingFlag != 0
        guard interesting else { return delimiters }
        var pieces: [Node] = []
        var plainStart = 0
        var i = 0
        let line = self.line(of: node)
        func flush(_ upTo: Int) {
            if upTo > plainStart { pieces.append(makeText(Array(lit[plainStart..<upTo]))) }
        }
        while i < n {
            let b = lit[i]
            if b == 0xEE, i + 2 < n, lit[i + 1] == 0x80, lit[i + 2] == 0x81 {
                // a footnote definition that cmark put inside another paragraph: show it as written
                var j = i + 3
                while j + 2 < n && !(lit[j] == 0xEE && lit[j + 1] == 0x80 && lit[j + 2] == 0x81) { j += 1 }
                flush(i)
                var text = Array("[^".utf8)
                if j + 2 < n { text += lit[(i + 3)..<j]; text += Array("]: ".utf8); i = j + 3 } else { i += 3 }
                pieces.append(makeText(text))
                plainStart = i
                continue
            }
            if b == UInt8(ascii: "["), i + 1 < n, lit[i + 1] == UInt8(ascii: "^"), !footnoteDefs.isEmpty {
                var j = i + 2
                while j < n && lit[j] != UInt8(ascii: "]") && !lit[j].isWhitespace { j += 1 }
                if j < n && lit[j] == UInt8(ascii: "]") && j > i + 2 {
                    let label = String(decoding: lit[(i + 2)..<j], as: UTF8.self)
                    if footnoteDefs[label] != nil {
                        flush(i)
                        pieces.append(footnoteReference(label))
                        i = j + 1
                        plainStart = i
                        continue
                    }
                }
            }
            if linksAllowed, b == UInt8(ascii: "h") || b == UInt8(ascii: "w") || b == UInt8(ascii: "H") || b == UInt8(ascii: "W"),
               i == 0 || !(lit[i - 1].isASCIIAlnum || lit[i - 1] == UInt8(ascii: "/") || lit[i - 1] == UInt8(ascii: ".")
                            || lit[i - 1] == UInt8(ascii: "@") || lit[i - 1] == UInt8(ascii: "-")),
               let end = autolinkEnd(lit, i) {
                flush(i)
                let text = Array(lit[i..<end])
                var url = text
                if text.first?.lowerASCII == UInt8(ascii: "w") { url = Array("http://".utf8) + text }
                let link = newNode(CMARK_NODE_LINK)
                withCBytes(url) { _ = cmark_node_set_url(link, $0) }
                append(link, makeText(text))
                setLineOverride(link, line)
                pieces.append(link)
                // a URL alone in its paragraph: a card (Cards.swift)
                if i == 0 && end == n && cmark_node_previous(node) == nil && cmark_node_next(node) == nil,
                   let parent = cmark_node_parent(node), kind(parent) == CMARK_NODE_PARAGRAPH {
                    cardLinks.append(link)
                }
                i = end
                plainStart = i
                continue
            }
            if b == UInt8(ascii: ":"), let (end, character) = Emoji.shortcode(lit, at: i) {
                flush(i)
                pieces.append(makeText(character))
                i = end
                plainStart = i
                continue
            }
            if b == UInt8(ascii: "@") && linksAllowed {
                if let address = emailRange(lit, i, from: plainStart) {
                    flush(address.start)
                    pieces.append(emailLink(Array(lit[address.start..<address.end]), line: line))
                    i = address.end
                    plainStart = i
                    continue
                }
                if let end = mentionEnd(lit, i) {
                    flush(i)
                    pieces.append(mentionLink(Array(lit[(i + 1)..<end]), line: line))
                    i = end
                    plainStart = i
                    continue
                }
            }
            i += 1
        }
        guard !pieces.isEmpty else { return delimiters }
        flush(n)
        for piece in pieces {
            cmark_node_insert_before(node, piece)
            if kind(piece) == CMARK_NODE_TEXT { setLineOverride(piece, line) }
        }
        cmark_node_free(node)
        return delimiters
    }

    /// (a `StaticString`: iterating a `String`'s UTF-8 view cost more than the comparison)
    func hasPrefixCI(_ lit: UnsafeBufferPointer<UInt8>, _ at: Int, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard lit.count - at >= n else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where lit[at + k].lowerASCII != p[k] { return false }
        return true
    }

    /// End of a bare URL starting at `start`, GFM-style trailing punctuation trimmed; nil if none.
    func autolinkEnd(_ lit: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var hostStart: Int
        if hasPrefixCI(lit, start, "https://") { hostStart = start + 8 }
        else if hasPrefixCI(lit, start, "http://") { hostStart = start + 7 }
        else if hasPrefixCI(lit, start, "www.") { hostStart = start + 4 }
        else { return nil }
        guard hostStart < lit.count, lit[hostStart].isASCIIAlnum else { return nil }
        var end = hostStart
        var inPath = false
        while end < lit.count {
            let b = lit[end]
            if b >= 0x80 {
                // Non-ASCII text belongs to the URL in its path or query where a segment or value
                // starts with it (`/wiki/日本語`, `?q=日本語`); a URL glued to the sentence after it
                // (`?x=1を参照`) and Japanese punctuation end it.
                guard inPath, let extra = Transformer.urlScalarLength(lit, end) else { break }
                end += extra
                continue
            }
            if b <= 0x20 || b == 0x7F || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") || b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") { inPath = true }
            end += 1
        }
        while end > hostStart {
            let last = lit[end - 1]
            switch last {
            case UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                 UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: ";"):
                end -= 1
                continue
            case UInt8(ascii: ")"):
                var open = 0, close = 0
                for k in start..<end { if lit[k] == UInt8(ascii: "(") { open += 1 } else if lit[k] == UInt8(ascii: ")") { close += 1 } }
                if close > open { end -= 1; continue }
            default: break
            }
            break
        }
        if lit[start].lowerASCII == UInt8(ascii: "w") && !lit[hostStart..<end].contains(UInt8(ascii: ".")) { return nil }
        return end > hostStart ? end : nil
    }

    /// The length of the non-ASCII character at `at` when a URL's path takes it: after a byte that
    /// starts a segment or value, or after another such character; not CJK punctuation (U+3000…303F)
    /// or full-width forms (U+FF00…FFEF).
    static func urlScalarLength(_ lit: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int? {
        let lead = lit[at]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        guard at + length <= lit.count else { return nil }
        if lead == 0xE3 && lit[at + 1] == 0x80 { return nil }
        if lead == 0xEF && lit[at + 1] >= 0xBC { return nil }
        let before = lit[at - 1]
        if before < 0x80 {
            switch before {
            case UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "&"),
                 UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ","), UInt8(ascii: "."):
                break
            default:
                return nil
            }
        }
        return length
    }

    struct Delimiter {
        var node: Node
        var offset: Int
        var char: UInt8
        var canOpen: Bool
        var canClose: Bool
        var wide: Bool
    }

    /// Pairs `~~x~~` (strikethrough) and the `**`/`__` runs cmark left as text next to CJK text.
    func pairDelimiters(_ container: Node) {
        var delimiters: [Delimiter] = []
        var child = cmark_node_first_child(container)
        while let c = child {
            defer { child = cmark_node_next(c) }
            guard kind(c) == CMARK_NODE_TEXT else { continue }
            let lit = literalBytes(c)
            var i = 0
            while i < lit.count {
                let b = lit[i]
                guard b == UInt8(ascii: "~") || b == UInt8(ascii: "*") || b == UInt8(ascii: "_") else { i += 1; continue }
                var j = i
                while j < lit.count && lit[j] == b { j += 1 }
                defer { i = j }
                guard j - i == 2 else { continue }
                // neighbours: 0 = whitespace / edge, 1 = other node, else the byte
                let prev: Int = i > 0 ? Int(lit[i - 1]) : neighbour(cmark_node_previous(c))
                let next: Int = j < lit.count ? Int(lit[j]) : neighbour(cmark_node_next(c))
                let prevSpace = prev == 0 || (prev < 128 && UInt8(prev).isWhitespace)
                let nextSpace = next == 0 || (next < 128 && UInt8(next).isWhitespace)
                var canOpen = !nextSpace
                var canClose = !prevSpace
                if b == UInt8(ascii: "_") {
                    if prev > 1 && prev < 128 && UInt8(prev).isASCIIAlnum { canOpen = false }
                    if next > 1 && next < 128 && UInt8(next).isASCIIAlnum { canClose = false }
                }
                delimiters.append(Delimiter(node: c, offset: i, char: b, canOpen: canOpen, canClose: canClose,
                                            wide: prev >= 128 || next >= 128))
            }
        }
        guard delimiters.count >= 2 else { return }
        var stack: [Int] = []
        var pairs: [(Int, Int)] = []
        for (k, d) in delimiters.enumerated() {
            if d.canClose, let s = stack.lastIndex(where: { o in
                delimiters[o].char == d.char && (d.char == UInt8(ascii: "~") || delimiters[o].wide || d.wide)
            }) {
                pairs.append((stack[s], k))
                stack.removeSubrange(s...)
                continue
            }
            if d.canOpen { stack.append(k) }
        }
        guard !pairs.isEmpty else { return }
        // Split the text nodes so that every paired delimiter is its own node.
        var used = Set<Int>()
        for (a, b) in pairs { used.insert(a); used.insert(b) }
        var delimiterNodes: [Int: Node] = [:]
        var k = 0
        while k < delimiters.count {
            let node = delimiters[k].node
            var group: [Int] = []
            while k < delimiters.count && delimiters[k].node == node { if used.contains(k) { group.append(k) }; k += 1 }
            guard !group.isEmpty else { continue }
            let lit = literalArray(node)
            let line = self.line(of: node)
            var pos = 0
            for index in group {
                let off = delimiters[index].offset
                if off > pos { let t = makeText(Array(lit[pos..<off])); setLineOverride(t, line); cmark_node_insert_before(node, t) }
                let d = makeText(Array(lit[off..<(off + 2)]))
                cmark_node_insert_before(node, d)
                delimiterNodes[index] = d
                pos = off + 2
            }
            if pos < lit.count { let t = makeText(Array(lit[pos...])); setLineOverride(t, line); cmark_node_insert_before(node, t) }
            cmark_node_free(node)
        }
        for (a, b) in pairs {
            guard let open = delimiterNodes[a], let close = delimiterNodes[b] else { continue }
            let strike = delimiters[a].char == UInt8(ascii: "~")
            let wrapper = makeCustom(block: false, enter: strike ? "<del>" : "<strong>", exit: strike ? "</del>" : "</strong>")
            cmark_node_insert_before(open, wrapper)
            moveSiblings(after: open, before: close, to: wrapper)
            cmark_node_free(open)
            cmark_node_free(close)
        }
    }

    func neighbour(_ node: Node?) -> Int {
        guard let node else { return 0 }
        switch kind(node) {
        case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK: return 0
        case CMARK_NODE_TEXT:
            let lit = literalBytes(node)
            return lit.isEmpty ? 1 : Int(lit[lit.count - 1])
        default: return 1
        }
    }
}
