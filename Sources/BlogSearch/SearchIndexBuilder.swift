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

        public init(shardTargetBytes: Int = 32_000, docsPerChunk: Int = 16) {
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
        let accumulator = PostingAccumulator()
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
        accumulator.forEachEncodedTerm(order) { termIndex, postings in
            let term = accumulator.string(termIndex)
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
            current.raw(",\"")
            current.bytes.append(contentsOf: postings)
            current.raw("\"]")
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
            if i > 0 { m.raw(",") }
            m.string(shard.first)
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

/// Collects postings document by document. Tokens are interned from their UTF-8 bytes (no String
/// per token); each document's postings are appended to flat arrays and grouped by term at the end.
/// The hot structures live in manually managed memory: this code also runs in debug builds (the
/// test suite indexes a 10,000-post archive), where array accessors are not inlined.
final class PostingAccumulator {
    static let positionModulus = 6
    /// All mutable state sits behind a pointer: no exclusivity checks on the hot path.
    private let state: UnsafeMutablePointer<AccumulatorState>

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: AccumulatorState())
    }

    deinit {
        state.pointee.free()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    var termCount: Int { state.pointee.termCount }
    func beginDocument(_ doc: Int32) { state.pointee.beginDocument(doc) }
    func add(_ token: UnsafeBufferPointer<UInt8>, field: Int, position: Int) { state.pointee.add(token, field: field, position: position) }
    func addTag(_ term: String) { state.pointee.addTag(term) }
    func endDocument() { state.pointee.endDocument() }
    func string(_ id: Int) -> String { state.pointee.string(id) }
    func sortedTermOrder() -> [Int] { state.pointee.sortedTermOrder() }

    /// Calls `body(termID, encodedPostings)` for each term in `order`.
    func forEachEncodedTerm(_ order: [Int], _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        state.pointee.forEachEncodedTerm(order, body)
    }
}

struct AccumulatorState {

    // Terms: bytes in `pool`, term i = pool[starts[i]..<starts[i+1]].
    var termCount = 0
    var termCapacity = 0
    var hashes: UnsafeMutablePointer<UInt32>
    var starts: UnsafeMutablePointer<Int>
    var stamp: UnsafeMutablePointer<Int32>
    var slot: UnsafeMutablePointer<Int32>
    var pool: UnsafeMutablePointer<UInt8>
    var poolCount = 0
    var poolCapacity = 0
    var table: UnsafeMutablePointer<Int32>
    var tableMask = 0

    // Per-document scratch.
    var touched: UnsafeMutablePointer<Int32>
    var masks: UnsafeMutablePointer<Int32>
    var textTF: UnsafeMutablePointer<Int32>
    var residues: UnsafeMutablePointer<Int32>
    var touchedCount = 0
    var touchedCapacity = 0
    var currentDoc: Int32 = -1

    // All postings in document order.
    var rawTerm: UnsafeMutablePointer<Int32>
    var rawDoc: UnsafeMutablePointer<Int32>
    var rawValue: UnsafeMutablePointer<Int32>
    var rawResidues: UnsafeMutablePointer<UInt8>
    var rawCount = 0
    var rawCapacity = 0

    init() {
        termCapacity = 1 << 14
        hashes = .allocate(capacity: termCapacity)
        starts = .allocate(capacity: termCapacity + 1)
        starts[0] = 0
        stamp = .allocate(capacity: termCapacity)
        slot = .allocate(capacity: termCapacity)
        poolCapacity = 1 << 18
        pool = .allocate(capacity: poolCapacity)
        let tableSize = 1 << 16
        table = .allocate(capacity: tableSize)
        table.initialize(repeating: -1, count: tableSize)
        tableMask = tableSize - 1
        touchedCapacity = 1 << 12
        touched = .allocate(capacity: touchedCapacity)
        masks = .allocate(capacity: touchedCapacity)
        textTF = .allocate(capacity: touchedCapacity)
        residues = .allocate(capacity: touchedCapacity)
        rawCapacity = 1 << 16
        rawTerm = .allocate(capacity: rawCapacity)
        rawDoc = .allocate(capacity: rawCapacity)
        rawValue = .allocate(capacity: rawCapacity)
        rawResidues = .allocate(capacity: rawCapacity)
    }

    mutating func free() {
        hashes.deallocate(); starts.deallocate(); stamp.deallocate(); slot.deallocate()
        pool.deallocate(); table.deallocate()
        touched.deallocate(); masks.deallocate(); textTF.deallocate(); residues.deallocate()
        rawTerm.deallocate(); rawDoc.deallocate(); rawValue.deallocate(); rawResidues.deallocate()
    }

    static func grown<T>(_ old: UnsafeMutablePointer<T>, count: Int, capacity: Int) -> UnsafeMutablePointer<T> {
        let new = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        new.moveInitialize(from: old, count: count)
        old.deallocate()
        return new
    }

    mutating func beginDocument(_ doc: Int32) {
        currentDoc = doc
        touchedCount = 0
    }

    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt32 {
        var h: UInt32 = 0x811C9DC5
        var i = 0
        while i < n {
            h = (h ^ UInt32(p[i])) &* 0x01000193
            i += 1
        }
        return h ^ (h >> 15)
    }

    /// The id of the term with these bytes, adding it when new.
    mutating func intern(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        let h = AccumulatorState.hash(p, n)
        var index = Int(h) & tableMask
        while true {
            let id = Int(table[index])
            if id < 0 { break }
            if hashes[id] == h {
                let start = starts[id]
                if starts[id + 1] - start == n && memcmp(pool + start, p, n) == 0 { return id }
            }
            index = (index + 1) & tableMask
        }
        let id = termCount
        if id == termCapacity {
            let capacity = termCapacity * 2
            hashes = AccumulatorState.grown(hashes, count: termCount, capacity: capacity)
            starts = AccumulatorState.grown(starts, count: termCount + 1, capacity: capacity + 1)
            stamp = AccumulatorState.grown(stamp, count: termCount, capacity: capacity)
            slot = AccumulatorState.grown(slot, count: termCount, capacity: capacity)
            termCapacity = capacity
        }
        if poolCount + n > poolCapacity {
            var capacity = poolCapacity * 2
            while poolCount + n > capacity { capacity *= 2 }
            pool = AccumulatorState.grown(pool, count: poolCount, capacity: capacity)
            poolCapacity = capacity
        }
        (pool + poolCount).update(from: p, count: n)
        poolCount += n
        starts[id + 1] = poolCount
        hashes[id] = h
        stamp[id] = -1
        table[index] = Int32(id)
        termCount += 1
        if termCount * 2 > tableMask + 1 { growTable() }
        return id
    }

    mutating func growTable() {
        let size = (tableMask + 1) * 2
        table.deallocate()
        table = .allocate(capacity: size)
        table.initialize(repeating: -1, count: size)
        tableMask = size - 1
        var id = 0
        while id < termCount {
            var index = Int(hashes[id]) & tableMask
            while table[index] >= 0 { index = (index + 1) & tableMask }
            table[index] = Int32(id)
            id += 1
        }
    }

    mutating func slotFor(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        let id = intern(p, n)
        if stamp[id] != currentDoc {
            if touchedCount == touchedCapacity {
                let capacity = touchedCapacity * 2
                touched = AccumulatorState.grown(touched, count: touchedCount, capacity: capacity)
                masks = AccumulatorState.grown(masks, count: touchedCount, capacity: capacity)
                textTF = AccumulatorState.grown(textTF, count: touchedCount, capacity: capacity)
                residues = AccumulatorState.grown(residues, count: touchedCount, capacity: capacity)
                touchedCapacity = capacity
            }
            stamp[id] = currentDoc
            slot[id] = Int32(touchedCount)
            touched[touchedCount] = Int32(id)
            masks[touchedCount] = 0
            textTF[touchedCount] = 0
            residues[touchedCount] = 0
            touchedCount += 1
        }
        return Int(slot[id])
    }

    mutating func add(_ token: UnsafeBufferPointer<UInt8>, field: Int, position: Int) {
        let s = slotFor(token.baseAddress!, token.count)
        masks[s] |= Int32(1 << field)
        if field >= 3 { textTF[s] += 1 }
        residues[s] |= Int32(1 << (position % PostingAccumulator.positionModulus))
    }

    mutating func addTag(_ term: String) {
        var term = term
        term.withUTF8 { buffer in
            let s = slotFor(buffer.baseAddress!, buffer.count)
            masks[s] |= 1 << 1
        }
    }

    /// value = fieldMask | (textTF − 1) << 5 when the term occurs in body or code, else fieldMask.
    mutating func endDocument() {
        if rawCount + touchedCount > rawCapacity {
            var capacity = rawCapacity * 2
            while rawCount + touchedCount > capacity { capacity *= 2 }
            rawTerm = AccumulatorState.grown(rawTerm, count: rawCount, capacity: capacity)
            rawDoc = AccumulatorState.grown(rawDoc, count: rawCount, capacity: capacity)
            rawValue = AccumulatorState.grown(rawValue, count: rawCount, capacity: capacity)
            rawResidues = AccumulatorState.grown(rawResidues, count: rawCount, capacity: capacity)
            rawCapacity = capacity
        }
        var s = 0
        while s < touchedCount {
            let tf = textTF[s]
            let value = tf > 0 ? masks[s] | ((min(tf, 4096) - 1) << 5) : masks[s]
            rawTerm[rawCount] = touched[s]
            rawDoc[rawCount] = currentDoc
            rawValue[rawCount] = value
            rawResidues[rawCount] = UInt8(residues[s])
            rawCount += 1
            s += 1
        }
    }

    /// Groups the raw postings by term (a counting sort, so each term's postings stay in document
    /// order) and encodes each term of `order`:
    /// posting = varint(gap) varint(value) digit(residues), gap = doc − previous doc − 1.
    func forEachEncodedTerm(_ order: [Int], _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        let offsets = UnsafeMutablePointer<Int>.allocate(capacity: termCount + 1)
        let fill = UnsafeMutablePointer<Int>.allocate(capacity: termCount + 1)
        let records = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, rawCount))
        defer { offsets.deallocate(); fill.deallocate(); records.deallocate() }
        offsets.initialize(repeating: 0, count: termCount + 1)
        var r = 0
        while r < rawCount { offsets[Int(rawTerm[r]) + 1] += 1; r += 1 }
        var longest = 0
        var i = 0
        while i < termCount {
            longest = max(longest, offsets[i + 1])
            offsets[i + 1] += offsets[i]
            i += 1
        }
        fill.initialize(from: offsets, count: termCount + 1)
        r = 0
        while r < rawCount {
            let t = Int(rawTerm[r])
            records[fill[t]] = Int32(r)
            fill[t] += 1
            r += 1
        }
        // A posting takes at most 7 + 4 + 1 characters (doc ids < 2^35, values < 2^20).
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, longest * 12))
        defer { out.deallocate() }
        PostingAlphabet.characters.withUnsafeBufferPointer { alphabetBuffer in
            let alphabet = alphabetBuffer.baseAddress!
            for term in order {
                var count = 0
                var previous: Int32 = -1
                var k = offsets[term]
                let end = offsets[term + 1]
                while k < end {
                    let record = Int(records[k])
                    let doc = rawDoc[record]
                    var v = Int(doc - previous - 1)
                    while v >= 32 { out[count] = alphabet[32 | (v & 31)]; count += 1; v >>= 5 }
                    out[count] = alphabet[v]; count += 1
                    v = Int(rawValue[record])
                    while v >= 32 { out[count] = alphabet[32 | (v & 31)]; count += 1; v >>= 5 }
                    out[count] = alphabet[v]; count += 1
                    out[count] = alphabet[Int(rawResidues[record]) & 63]; count += 1
                    previous = doc
                    k += 1
                }
                body(term, UnsafeBufferPointer(start: out, count: count))
            }
        }
    }

    func string(_ id: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: pool + starts[id], count: starts[id + 1] - starts[id]), as: UTF8.self)
    }

    /// Term ids sorted by UTF-16 code units (JavaScript's string order). UTF-8 byte order is code
    /// point order, which is UTF-16 order except that U+E000…U+FFFF sort after the supplementary
    /// planes in UTF-16; terms with such bytes (lead bytes 0xEE and up) are compared through UTF-16.
    func sortedTermOrder() -> [Int] {
        var special = [Bool](repeating: false, count: termCount)
        for id in 0..<termCount {
            var k = starts[id]
            while k < starts[id + 1] {
                if pool[k] >= 0xEE { special[id] = true; break }
                k += 1
            }
        }
        return (0..<termCount).sorted { a, b in
            if special[a] || special[b] {
                return string(a).utf16.lexicographicallyPrecedes(string(b).utf16)
            }
            let la = starts[a + 1] - starts[a], lb = starts[b + 1] - starts[b]
            let c = memcmp(pool + starts[a], pool + starts[b], min(la, lb))
            return c != 0 ? c < 0 : la < lb
        }
    }
}
