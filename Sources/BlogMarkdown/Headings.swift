import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// Heading ids (Japanese kept, duplicates numbered) and the Qiita heading anchors.
extension Transformer {
    func headingPass(_ headingNodes: [Node]) {
        let qiita = options.qiitaExtensions
        for heading in headingNodes {
            // raw HTML headings: `collectNodes` lists them in document order with these
            if kind(heading) == CMARK_NODE_HTML_BLOCK { rawHeadings(heading); continue }
            var text: [UInt8] = []
            walk(heading) { node, entering, t in
                if entering, t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE { text.append(contentsOf: literalBytes(ofLiteralNode: node, direct: direct)) }
            }
            // whole literals of a valid document, and ids made of their characters: valid UTF-8
            let title = makeString(&text, trusted: true)
            let slug = text.withUnsafeBufferPointer { HeadingID.makeBytes($0) } ?? Array(HeadingID.makeGeneral(title).utf8)
            var idBytes = uniqueSlug(slug)
            let level = Int(cmark_node_get_heading_level(heading))
            headings.append(Heading(level: level, text: title, id: makeString(&idBytes, trusted: true)))
            guard qiita else { continue }
            let digit = UInt8(truncatingIfNeeded: 0x30 + level)
            var enter: [UInt8] = [UInt8(ascii: "<"), UInt8(ascii: "h"), digit]
            enter.reserveCapacity(idBytes.count * 2 + 80)
            enter.append(static: " id=\"")
            appendEscaped(&enter, idBytes)
            enter.append(static: "\"><a class=\"anchor\" href=\"#")
            appendEscaped(&enter, idBytes)
            enter.append(static: "\" aria-hidden=\"true\">#</a>\0")
            let exit: [UInt8] = [UInt8(ascii: "<"), UInt8(ascii: "/"), UInt8(ascii: "h"), digit, UInt8(ascii: ">"), 0]
            let wrapper = makeCustom(block: true, enterC: emptyCString, exitC: emptyCString)
            let inner = makeCustom(block: false, enterC: enter, exitC: exit)
            setFlag(inner, Transformer.trustedHTMLFlag) // ASCII and the id's whole scalars
            append(wrapper, inner)
            moveChildren(from: heading, to: inner)
            replace(heading, with: wrapper)
        }
    }

    /// Byte keys hashed in one go (String keys would normalize Japanese text on every lookup).
    /// The ids used so far and their last suffix: a list compared with memcmp while it is short (a
    /// document has a handful of headings; hashing every id cost more), a dictionary beyond 32.
    struct SlugTable {
        /// The ids and their last suffix, in one array (room for 16 made with the first: growing two
        /// arrays from one element cost eight allocations for a document's handful of headings).
        private var entries: [(key: SlugKey, value: Int)] = []
        private var positions: [SlugKey: Int]?

        func index(forKey key: SlugKey) -> Int? {
            if let positions { return positions[key] }
            let n = key.bytes.count
            return key.bytes.withUnsafeBufferPointer { b in
                for (k, other) in entries.enumerated() where other.key.bytes.count == n {
                    if n == 0 || other.key.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, b.baseAddress!, n) == 0 }) { return k }
                }
                return nil
            }
        }

        /// Adds a key that `index(forKey:)` did not find.
        mutating func insertNew(_ key: SlugKey, _ value: Int) {
            if entries.isEmpty { entries.reserveCapacity(16) }
            entries.append((key, value))
            if positions != nil {
                positions![key] = entries.count - 1
            } else if entries.count > 32 {
                var d: [SlugKey: Int] = [:]
                for (k, other) in entries.enumerated() { d[other.key] = k }
                positions = d
            }
        }

        subscript(key: SlugKey) -> Int? {
            get { index(forKey: key).map { entries[$0].value } }
            set {
                guard let value = newValue else { return } // never removed
                if let k = index(forKey: key) { entries[k].value = value; return }
                insertNew(key, value)
            }
        }
    }

    struct SlugKey: Hashable {
        var bytes: [UInt8]
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    func uniqueSlug(_ base: [UInt8]) -> [UInt8] {
        let root = SlugKey(bytes: base.isEmpty ? Array("section".utf8) : base)
        // the common case, an id not seen yet: one lookup and one insertion (same result as below)
        if usedSlugs.index(forKey: root) == nil {
            usedSlugs.insertNew(root, 0)
            return root.bytes
        }
        var candidate = root
        var n = usedSlugs[root] ?? 0
        while usedSlugs[candidate] != nil {
            n += 1
            candidate = SlugKey(bytes: root.bytes + Array("-\(n)".utf8))
        }
        usedSlugs[root] = n
        if usedSlugs[candidate] == nil { usedSlugs[candidate] = 0 }
        return candidate.bytes
    }
}
