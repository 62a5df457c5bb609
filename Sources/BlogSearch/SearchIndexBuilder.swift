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
        build(analyzed: analyzeAll(documents), options: options)
    }

    /// Tokenizes one document, independently of every other document.
    public static func analyze(_ document: SearchDocument) -> AnalyzedDocument {
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        return analyzer.analyze(document)
    }

    /// `analyze` for every document, on all cores; results in input order.
    public static func analyzeAll(_ documents: [SearchDocument]) -> [AnalyzedDocument] {
        let count = documents.count
        if count == 0 { return [] }
        let workers = min(count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        let batch = 8
        let batches = (count + batch - 1) / batch
        let results = UnsafeMutablePointer<AnalyzedDocument?>.allocate(capacity: count)
        results.initialize(repeating: nil, count: count)
        defer { results.deinitialize(count: count); results.deallocate() }
        let next = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        next.initialize(to: 0)
        defer { next.deallocate() }
        let lock = NSLock()
        // Workers take batches of documents in turn (posts differ a lot in size).
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var analyzer = DocumentAnalyzer()
            defer { analyzer.free() }
            while true {
                lock.lock()
                let b = next.pointee
                next.pointee += 1
                lock.unlock()
                if b >= batches { break }
                for i in (b * batch)..<min(count, (b + 1) * batch) {
                    results[i] = analyzer.analyze(documents[i])
                }
            }
        }
        return (0..<count).map { results[$0]! }
    }

    /// The index of already analyzed documents: the same bytes as `build(_:options:)` of their
    /// documents. Input order does not matter.
    public static func build(analyzed input: [AnalyzedDocument], options: Options = Options()) -> [(path: String, bytes: [UInt8])] {
        let analyzed = orderedAnalyzed(input)
        let docs = analyzed.map(\.document)
        let accumulator = PostingAccumulator()
        var fieldTotals = [Int](repeating: 0, count: fields.count)
        var textLengths: [Int] = []
        textLengths.reserveCapacity(docs.count)
        for (docID, a) in analyzed.enumerated() {
            accumulator.add(a, doc: Int32(docID))
            for f in 0..<fields.count { fieldTotals[f] += a.fieldLengths[f] }
            textLengths.append(a.fieldLengths[3] + a.fieldLengths[4])
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
            accumulator.withTerm(termIndex) { term in
                let entrySize = term.count + postings.count + 8
                if currentFirst != nil, current.bytes.count + entrySize > options.shardTargetBytes {
                    closeShard()
                }
                if currentFirst == nil {
                    currentFirst = String(decoding: term, as: UTF8.self)
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
    static func orderedAnalyzed(_ analyzed: [AnalyzedDocument]) -> [AnalyzedDocument] {
        analyzed.sorted { x, y in
            let a = x.document, b = y.document
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

/// Collects postings document by document. Terms of analyzed documents are interned by their
/// UTF-8 bytes and precomputed hashes (no String per term); postings are appended to flat arrays
/// and grouped by term at the end. The hot structures live in manually managed memory: this code
/// also runs in debug builds (the test suite indexes a 10,000-post archive), where array
/// accessors are not inlined.
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
    func add(_ analyzed: AnalyzedDocument, doc: Int32) { state.pointee.add(analyzed, doc: doc) }
    func sortedTermOrder() -> [Int] { state.pointee.sortedTermOrder() }
    /// The UTF-8 bytes of a term (valid until the accumulator changes).
    func withTerm<R>(_ id: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { state.pointee.withTerm(id, body) }

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
    var pool: UnsafeMutablePointer<UInt8>
    var poolCount = 0
    var poolCapacity = 0
    var table: UnsafeMutablePointer<Int32>
    var tableMask = 0

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
        poolCapacity = 1 << 18
        pool = .allocate(capacity: poolCapacity)
        let tableSize = 1 << 16
        table = .allocate(capacity: tableSize)
        table.initialize(repeating: -1, count: tableSize)
        tableMask = tableSize - 1
        rawCapacity = 1 << 16
        rawTerm = .allocate(capacity: rawCapacity)
        rawDoc = .allocate(capacity: rawCapacity)
        rawValue = .allocate(capacity: rawCapacity)
        rawResidues = .allocate(capacity: rawCapacity)
    }

    mutating func free() {
        hashes.deallocate(); starts.deallocate()
        pool.deallocate(); table.deallocate()
        rawTerm.deallocate(); rawDoc.deallocate(); rawValue.deallocate(); rawResidues.deallocate()
    }

    static func grown<T>(_ old: UnsafeMutablePointer<T>, count: Int, capacity: Int) -> UnsafeMutablePointer<T> {
        let new = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        new.moveInitialize(from: old, count: count)
        old.deallocate()
        return new
    }

    /// The id of the term with these bytes (and `TermHash` h), adding it when new.
    @inline(__always)
    mutating func intern(_ p: UnsafePointer<UInt8>, _ n: Int, _ h: UInt32) -> Int {
        var index = Int(h) & tableMask
        while true {
            let id = Int(table[index])
            if id < 0 { break }
            if hashes[id] == h {
                let start = starts[id]
                if starts[id + 1] - start == n && TermHash.equal(pool + start, p, n) { return id }
            }
            index = (index + 1) & tableMask
        }
        return insert(p, n, h, at: index)
    }

    mutating func insert(_ p: UnsafePointer<UInt8>, _ n: Int, _ h: UInt32, at index: Int) -> Int {
        let id = termCount
        if id == termCapacity {
            let capacity = termCapacity * 2
            hashes = AccumulatorState.grown(hashes, count: termCount, capacity: capacity)
            starts = AccumulatorState.grown(starts, count: termCount + 1, capacity: capacity + 1)
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

    /// Appends the postings of one analyzed document with id `doc`.
    mutating func add(_ analyzed: AnalyzedDocument, doc: Int32) {
        let count = analyzed.termEnds.count
        if rawCount + count > rawCapacity {
            var capacity = rawCapacity * 2
            while rawCount + count > capacity { capacity *= 2 }
            rawTerm = AccumulatorState.grown(rawTerm, count: rawCount, capacity: capacity)
            rawDoc = AccumulatorState.grown(rawDoc, count: rawCount, capacity: capacity)
            rawValue = AccumulatorState.grown(rawValue, count: rawCount, capacity: capacity)
            rawResidues = AccumulatorState.grown(rawResidues, count: rawCount, capacity: capacity)
            rawCapacity = capacity
        }
        analyzed.termBytes.withUnsafeBufferPointer { bytesBuffer in
        analyzed.termEnds.withUnsafeBufferPointer { ends in
        analyzed.termHashes.withUnsafeBufferPointer { hashBuffer in
            guard count > 0, let bytes = bytesBuffer.baseAddress else { return }
            var start = 0
            var t = 0
            while t < count {
                let end = Int(ends[t])
                rawTerm[rawCount + t] = Int32(intern(bytes + start, end - start, hashBuffer[t]))
                start = end
                t += 1
            }
        }}}
        (rawDoc + rawCount).initialize(repeating: doc, count: count)
        analyzed.values.withUnsafeBufferPointer { b in
            if count > 0 { (rawValue + rawCount).initialize(from: b.baseAddress!, count: count) }
        }
        analyzed.residues.withUnsafeBufferPointer { b in
            if count > 0 { (rawResidues + rawCount).initialize(from: b.baseAddress!, count: count) }
        }
        rawCount += count
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

    func withTerm<R>(_ id: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(start: pool + starts[id], count: starts[id + 1] - starts[id]))
    }

    /// Term ids sorted by UTF-16 code units (JavaScript's string order). UTF-8 byte order is code
    /// point order, which is UTF-16 order except that U+E000…U+FFFF sort after the supplementary
    /// planes in UTF-16; so bytes are compared with the lead bytes of U+E000…U+FFFF (0xEE, 0xEF)
    /// moved above those of the supplementary planes (0xF0…0xF4). Terms are first ordered by
    /// a key of their first 8 (so mapped) bytes; only ties compare the rest.
    func sortedTermOrder() -> [Int] {
        struct Entry { var key: UInt64; var id: Int32 }
        @inline(__always) func mapped(_ b: UInt8) -> UInt8 { b == 0xEE ? 0xF5 : (b == 0xEF ? 0xF6 : b) }
        var entries = [Entry](unsafeUninitializedCapacity: termCount) { buffer, count in
            for id in 0..<termCount {
                var key: UInt64 = 0
                let start = starts[id], n = min(8, starts[id + 1] - start)
                var k = 0
                while k < n { key |= UInt64(mapped(pool[start + k])) << (56 - 8 * k); k += 1 }
                buffer[id] = Entry(key: key, id: Int32(id))
            }
            count = termCount
        }
        entries.sort { x, y in
            if x.key != y.key { return x.key < y.key }
            let a = Int(x.id), b = Int(y.id)
            let sa = starts[a], la = starts[a + 1] - sa, sb = starts[b], lb = starts[b + 1] - sb
            var k = 8
            while k < la && k < lb {
                let ca = mapped(pool[sa + k]), cb = mapped(pool[sb + k])
                if ca != cb { return ca < cb }
                k += 1
            }
            return la < lb
        }
        return entries.map { Int($0.id) }
    }
}
