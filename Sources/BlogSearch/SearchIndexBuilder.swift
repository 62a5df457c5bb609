import BlogCore
import Foundation

/// Builds the static search index: `search/meta.json`, `search/docs-N.json` (document store) and
/// `search/shards/N.json` (postings, cut into ranges of sorted terms). Format: docs/search-index.md.
public enum SearchIndexBuilder {
    /// Version of the file format, written to meta.json as `version`.
    public static let formatVersion = 2

    /// Index fields, in bit order of the posting field mask.
    public static let fields = ["title", "tags", "headings", "body", "code"]
    /// BM25F field weights, same order as `fields`.
    public static let fieldWeights: [Double] = [6, 4, 2.5, 1, 0.7]
    public static let k1 = 1.2
    public static let b = 0.75

    public struct Options: Sendable {
        /// A shard is closed before it grows past this many bytes (a single term may exceed it);
        /// besides, a term starts a new shard with probability (its entry's bytes) / (this), chosen by
        /// the term's hash, so that boundaries stay put when other terms change (docs/search-index.md).
        public var shardTargetBytes: Int
        /// Documents per document-store file. One by default: a query then downloads only the
        /// documents it shows, not the neighbours that shared their file.
        public var docsPerChunk: Int
        /// Partitions of the terms merged in parallel by a full build (nil: one per core, at most 8).
        /// The output never depends on it.
        public var partitions: Int?

        public init(shardTargetBytes: Int = 32_000, docsPerChunk: Int = 1, partitions: Int? = nil) {
            self.shardTargetBytes = shardTargetBytes
            self.docsPerChunk = docsPerChunk
            self.partitions = partitions
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
        analyzeAll(count: documents.count) { documents[$0] }
    }

    /// `analyze` of `document(i)` for every `i` below `count`, on all cores; results in index
    /// order. Each document is made by the worker that analyses it (making them all first would be
    /// a serial stretch of the search phase with the other cores idle).
    /// Without `keepsText`, the results leave out their documents' headings, body and code (the
    /// index files read only the id, title, URL, date, tags and summary), so that the memory of
    /// each text can go once it is analysed: for a build whose analyses serve no later patch.
    public static func analyzeAll(count: Int, keepsText: Bool = true, _ document: (Int) -> SearchDocument) -> [AnalyzedDocument] {
        if count == 0 { return [] }
        let results = UnsafeMutablePointer<AnalyzedDocument?>.allocate(capacity: count)
        results.initialize(repeating: nil, count: count)
        defer { results.deinitialize(count: count); results.deallocate() }
        // Workers take batches of documents in turn (posts differ a lot in size).
        WorkShare.run(count: count, workers: ProcessInfo.processInfo.activeProcessorCount, batch: 8) { _, claim in
            var analyzer = DocumentAnalyzer()
            defer { analyzer.free() }
            while let range = claim() {
                for i in range {
                    let analyzed = analyzer.analyze(document(i))
                    results[i] = keepsText ? analyzed : analyzed.withoutText()
                }
            }
        }
        return (0..<count).map { results[$0]! }
    }

    /// The index of already analyzed documents: the same bytes as `build(_:options:)` of their
    /// documents. Input order does not matter.
    public static func build(analyzed input: [AnalyzedDocument], options: Options = Options()) -> [(path: String, bytes: [UInt8])] {
        SearchIndexState(options: options).update(input)
    }

    /// Newest first, then by id (then url, title) so that the output never depends on input order.
    static func orderedAnalyzed(_ analyzed: [AnalyzedDocument]) -> [AnalyzedDocument] {
        order(analyzed).map { analyzed[$0] }
    }

    /// The input indices in newest-first order.
    static func order(_ analyzed: [AnalyzedDocument]) -> [Int] {
        analyzed.indices.sorted { precedes(analyzed[$0].document, analyzed[$1].document) }
    }

    /// Whether `a` comes before `b` in the index: newest first, then by id, url and title.
    static func precedes(_ a: SearchDocument, _ b: SearchDocument) -> Bool {
        if a.date != b.date { return a.date > b.date }
        if a.id != b.id { return a.id < b.id }
        if a.url != b.url { return a.url < b.url }
        return a.title < b.title
    }

    /// Whether `a` and `b` have the same place in the index order (date, id, url and title).
    static func samePlace(_ a: SearchDocument, _ b: SearchDocument) -> Bool {
        a.date == b.date && a.id == b.id && a.url == b.url && a.title == b.title
    }

    /// Length in tokens → one alphabet digit (0…63): round(4·log2(1 + length)).
    /// The page decodes it as 2^(q/4) − 1.
    static func quantizeLength(_ length: Int) -> Int {
        let q = (log2(1 + Double(length)) * 4).rounded()
        return min(63, max(0, Int(q)))
    }
}

/// A term table: terms interned by their UTF-8 bytes and precomputed hashes (no String per term). The hot structures live in manually
/// managed memory: this code also runs in debug builds (the test suite indexes a large
/// archive), where array accessors are not inlined.
struct AccumulatorState {

    // Terms: bytes in `pool`, term i = pool[starts[i]..<starts[i+1]].
    var termCount = 0
    var termCapacity = 0
    var hashes: UnsafeMutablePointer<UInt32>
    var starts: UnsafeMutablePointer<Int>
    var pool: UnsafeMutablePointer<UInt8>
    var poolCount = 0
    var poolCapacity = 0
    /// Open addressing: a slot holds `hash << 32 | id` (`AccumulatorState.empty` when free), so a
    /// probe compares hashes in the slot it has already loaded instead of reading `hashes[id]`,
    /// one cache miss fewer for every posting merged (a large archive's table is far larger than
    /// the caches).
    var table: UnsafeMutablePointer<UInt64>
    var tableMask = 0

    static let empty = UInt64.max
    /// The slot of term `id` with hash `h` (ids stay below 2^32 - 1, so no slot equals `empty`).
    @inline(__always) static func slot(_ h: UInt32, _ id: Int) -> UInt64 { UInt64(h) << 32 | UInt64(truncatingIfNeeded: id) }

    init() {
        termCapacity = 1 << 14
        hashes = .allocate(capacity: termCapacity)
        starts = .allocate(capacity: termCapacity + 1)
        starts[0] = 0
        poolCapacity = 1 << 18
        pool = .allocate(capacity: poolCapacity)
        let tableSize = 1 << 16
        table = .allocate(capacity: tableSize)
        table.initialize(repeating: AccumulatorState.empty, count: tableSize)
        tableMask = tableSize - 1
    }

    mutating func free() {
        hashes.deallocate(); starts.deallocate()
        pool.deallocate(); table.deallocate()
    }

    /// `old` (holding `count` values) grown to room for `capacity`. On Linux with realloc, which
    /// grows a block in place when it can, and moves a block in a mapping of its own (one over
    /// malloc's mapping threshold) with mremap: no copy, and no page of the new block faulted in again.
    /// (There `allocate` is malloc and `deallocate` free for an alignment up to 16, so the block
    /// stays theirs.) Growing in place spares the search phase a copy of every growing block.
    static func grown<T: BitwiseCopyable>(_ old: UnsafeMutablePointer<T>, count: Int, capacity: Int) -> UnsafeMutablePointer<T> {
        #if os(Linux) && !BLOG_PORTABLE
        assert(MemoryLayout<T>.alignment <= 16)
        guard let raw = realloc(old, capacity * MemoryLayout<T>.stride) else { fatalError("out of memory") }
        return raw.bindMemory(to: T.self, capacity: capacity)
        #else
        let new = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        new.moveInitialize(from: old, count: count)
        old.deallocate()
        return new
        #endif
    }

    /// The id of the term with these bytes (and `TermHash` h), adding it when new.
    @inline(__always)
    mutating func intern(_ p: UnsafePointer<UInt8>, _ n: Int, _ h: UInt32) -> Int {
        var index = Int(h) & tableMask
        while true {
            let e = table[index]
            if e == AccumulatorState.empty { break }
            if UInt32(truncatingIfNeeded: e >> 32) == h {
                let id = Int(truncatingIfNeeded: e & 0xFFFF_FFFF)
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
        table[index] = AccumulatorState.slot(h, id)
        termCount += 1
        if termCount * 2 > tableMask + 1 { growTable() }
        return id
    }

    mutating func growTable() {
        let size = (tableMask + 1) * 2
        table.deallocate()
        table = .allocate(capacity: size)
        table.initialize(repeating: AccumulatorState.empty, count: size)
        tableMask = size - 1
        var id = 0
        while id < termCount {
            var index = Int(hashes[id]) & tableMask
            while table[index] != AccumulatorState.empty { index = (index + 1) & tableMask }
            table[index] = AccumulatorState.slot(hashes[id], id)
            id += 1
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
