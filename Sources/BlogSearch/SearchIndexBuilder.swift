import Foundation

/// Builds the static search index: `search/meta.json`, `search/docs-N.json` (document store) and
/// `search/shards/N.json` (postings, cut into ranges of sorted terms). Format: docs/search-index.md.
public enum SearchIndexBuilder {
    /// Version of the file format, written to meta.json as `version`.
    public static let formatVersion = 1

    /// Index fields, in bit order of the posting field mask.
    public static let fields = ["title", "tags", "headings", "body", "code"]
    /// BM25F field weights, same order as `fields`.
    public static let fieldWeights: [Double] = [6, 4, 2.5, 1, 0.7]
    public static let k1 = 1.2
    public static let b = 0.75

    public struct Options: Sendable {
        /// A shard is closed before it grows past this many bytes (a single term may exceed it).
        public var shardTargetBytes: Int
        /// Documents per document-store file.
        public var docsPerChunk: Int

        public init(shardTargetBytes: Int = 40_000, docsPerChunk: Int = 16) {
            self.shardTargetBytes = shardTargetBytes
            self.docsPerChunk = docsPerChunk
        }
    }

    /// The index files, paths relative to the site root, in a deterministic order
    /// (meta.json, then the document store chunks, then the shards).
    public static func build(_ documents: [SearchDocument]) -> [(path: String, bytes: [UInt8])] {
        build(documents, options: Options())
    }

    public static func build(_ documents: [SearchDocument], options: Options) -> [(path: String, bytes: [UInt8])] {
        let docs = orderedDocuments(documents)
        var accumulator = PostingAccumulator()
        var fieldTotals = [Int](repeating: 0, count: fields.count)
        var textLengths: [Int] = []
        textLengths.reserveCapacity(docs.count)

        for (docID, doc) in docs.enumerated() {
            accumulator.beginDocument(Int32(docID))
            var position = 0
            var lengths = [Int](repeating: 0, count: fields.count)
            func index(_ text: String, field: Int) {
                let start = position
                position = SearchTokenizer.analyze(text, startPosition: position) { token, pos in
                    accumulator.add(token, field: field, position: pos)
                }
                lengths[field] += position - start
                position += 1  // no adjacency across fields, tags or headings
            }
            index(doc.title, field: 0)
            for tag in doc.tags {
                index(tag, field: 1)
                let normalized = SearchTokenizer.normalizeTag(tag)
                if !normalized.isEmpty { accumulator.addTag("#" + normalized) }
            }
            for heading in doc.headings { index(heading, field: 2) }
            index(doc.body, field: 3)
            index(doc.code, field: 4)
            accumulator.endDocument()
            for f in 0..<fields.count { fieldTotals[f] += lengths[f] }
            textLengths.append(lengths[3] + lengths[4])
        }

        // Document store.
        var files: [(path: String, bytes: [UInt8])] = []
        var hash = FNV1a()
        let chunk = max(1, options.docsPerChunk)
        var chunkIndex = 0
        var start = 0
        while start < docs.count {
            let end = min(docs.count, start + chunk)
            var w = JSONWriter(capacity: 600 * (end - start))
            w.raw("[")
            for i in start..<end {
                let d = docs[i]
                if i > start { w.raw(",\n") }
                w.raw("[")
                w.string(d.id); w.raw(",")
                w.string(d.title); w.raw(",")
                w.string(d.url); w.raw(",")
                w.string(d.date); w.raw(",")
                w.stringArray(d.tags); w.raw(",")
                w.string(d.summary)
                w.raw("]")
            }
            w.raw("]\n")
            hash.add(w.bytes)
            files.append((path: "search/docs-\(chunkIndex).json", bytes: w.bytes))
            chunkIndex += 1
            start = end
        }

        // Shards: terms in UTF-16 order (JavaScript's string order), cut by size.
        let order = accumulator.sortedTermOrder()
        var shards: [(first: String, bytes: [UInt8])] = []
        var current = JSONWriter(capacity: options.shardTargetBytes + 4096)
        var currentFirst: String? = nil
        func closeShard() {
            guard let first = currentFirst else { return }
            current.raw("]\n")
            shards.append((first: first, bytes: current.bytes))
            current = JSONWriter(capacity: options.shardTargetBytes + 4096)
            currentFirst = nil
        }
        for termIndex in order {
            let term = accumulator.terms[termIndex]
            let postings = accumulator.postings[termIndex]
            let entrySize = term.utf8.count + postings.count + 8
            if currentFirst != nil, current.bytes.count + entrySize > options.shardTargetBytes {
                closeShard()
            }
            if currentFirst == nil {
                currentFirst = term
                current.raw("[")
            } else {
                current.raw(",\n")
            }
            current.raw("[")
            current.string(term)
            current.raw(",")
            current.plainString(postings)
            current.raw("]")
        }
        closeShard()
        for (i, shard) in shards.enumerated() {
            hash.add(shard.bytes)
            files.append((path: "search/shards/\(i).json", bytes: shard.bytes))
        }

        // meta.json
        var m = JSONWriter(capacity: 4096 + docs.count + shards.count * 24)
        m.raw("{\"format\":\"blog-search\",\"version\":")
        m.int(formatVersion)
        m.raw(",\"tokenizer\":")
        m.int(SearchTokenizer.version)
        m.raw(",\"hash\":")
        m.string(hash.hex)
        m.raw(",\"docs\":")
        m.int(docs.count)
        m.raw(",\"docChunk\":")
        m.int(chunk)
        m.raw(",\"fields\":")
        m.stringArray(fields)
        m.raw(",\"weights\":[")
        for (i, weight) in fieldWeights.enumerated() {
            if i > 0 { m.raw(",") }
            m.number(weight)
        }
        m.raw("],\"k1\":")
        m.number(k1)
        m.raw(",\"b\":")
        m.number(b)
        m.raw(",\"avgLength\":[")
        for f in 0..<fields.count {
            if f > 0 { m.raw(",") }
            m.number(docs.isEmpty ? 0 : Double(fieldTotals[f]) / Double(docs.count))
        }
        m.raw("],\"avgText\":")
        let textTotal = textLengths.reduce(0, +)
        m.number(docs.isEmpty ? 0 : Double(textTotal) / Double(docs.count))
        m.raw(",\"norms\":")
        var norms: [UInt8] = []
        norms.reserveCapacity(docs.count)
        for length in textLengths { norms.append(PostingAlphabet.characters[quantizeLength(length)]) }
        m.plainString(norms)
        m.raw(",\"shards\":[")
        for (i, shard) in shards.enumerated() {
            if i > 0 { m.raw(",\n") }
            m.raw("[")
            m.string(shard.first)
            m.raw(",")
            m.int(shard.bytes.count)
            m.raw("]")
        }
        m.raw("]}\n")
        files.insert((path: "search/meta.json", bytes: m.bytes), at: 0)
        return files
    }

    /// Newest first, then by id (then url, title) so that the output never depends on input order.
    static func orderedDocuments(_ documents: [SearchDocument]) -> [SearchDocument] {
        documents.sorted { a, b in
            if a.date != b.date { return a.date > b.date }
            if a.id != b.id { return a.id < b.id }
            if a.url != b.url { return a.url < b.url }
            return a.title < b.title
        }
    }

    /// Length in tokens → one alphabet digit (0…63): round(4·log2(1 + length)).
    /// The page decodes it as 2^(q/4) − 1.
    static func quantizeLength(_ length: Int) -> Int {
        let q = (log2(1 + Double(length)) * 4).rounded()
        return min(63, max(0, Int(q)))
    }
}

/// Collects postings document by document; each term's postings are encoded as they arrive
/// (documents are added in increasing id order, so the gaps are never negative).
struct PostingAccumulator {
    var termIDs: [String: Int32] = [:]
    var terms: [String] = []
    var postings: [[UInt8]] = []
    var lastDoc: [Int32] = []
    // Per-document scratch, indexed through `slot` (valid when `stamp[id] == currentDoc`).
    var stamp: [Int32] = []
    var slot: [Int32] = []
    var touched: [Int32] = []
    var masks: [Int] = []
    var textTF: [Int] = []
    var residues: [Int] = []
    var currentDoc: Int32 = -1

    static let positionModulus = 6

    mutating func beginDocument(_ doc: Int32) {
        currentDoc = doc
        touched.removeAll(keepingCapacity: true)
        masks.removeAll(keepingCapacity: true)
        textTF.removeAll(keepingCapacity: true)
        residues.removeAll(keepingCapacity: true)
    }

    private mutating func slotFor(_ term: String) -> Int {
        let id: Int32
        if let existing = termIDs[term] {
            id = existing
        } else {
            id = Int32(terms.count)
            termIDs[term] = id
            terms.append(term)
            postings.append([])
            lastDoc.append(-1)
            stamp.append(-1)
            slot.append(0)
        }
        let i = Int(id)
        if stamp[i] != currentDoc {
            stamp[i] = currentDoc
            slot[i] = Int32(touched.count)
            touched.append(id)
            masks.append(0)
            textTF.append(0)
            residues.append(0)
        }
        return Int(slot[i])
    }

    mutating func add(_ term: String, field: Int, position: Int) {
        let s = slotFor(term)
        masks[s] |= 1 << field
        if field >= 3 { textTF[s] += 1 }
        residues[s] |= 1 << (position % PostingAccumulator.positionModulus)
    }

    mutating func addTag(_ term: String) {
        let s = slotFor(term)
        masks[s] |= 1 << 1
    }

    /// Posting: varint(gap) varint(value) digit(residues), where gap = doc − previous doc − 1 and
    /// value = fieldMask | (textTF − 1) << 5 when the term occurs in body or code, else fieldMask.
    mutating func endDocument() {
        for (s, id) in touched.enumerated() {
            let i = Int(id)
            let gap = Int(currentDoc - lastDoc[i] - 1)
            lastDoc[i] = currentDoc
            let tf = textTF[s]
            let value = tf > 0 ? masks[s] | ((min(tf, 4096) - 1) << 5) : masks[s]
            PostingAlphabet.appendVarint(gap, to: &postings[i])
            PostingAlphabet.appendVarint(value, to: &postings[i])
            PostingAlphabet.appendDigit(residues[s], to: &postings[i])
        }
    }

    /// Term indices sorted by UTF-16 code units.
    func sortedTermOrder() -> [Int] {
        let keys = terms.map { Array($0.utf16) }
        return (0..<terms.count).sorted { keys[$0].lexicographicallyPrecedes(keys[$1]) }
    }
}
