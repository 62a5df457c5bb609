import Foundation

/// The search index kept in memory between builds (`blog serve`), so that a changed document
/// costs work in proportion to what it changed, not to the whole archive.
///
/// `update(_:)` takes every analyzed document and returns every index file, the same bytes as
/// `SearchIndexBuilder.build(analyzed:)` of the same documents (which is this class used once).
/// When the documents keep their places (same count, same newest-first order keys) only the
/// documents that differ from the previous call are patched into the postings: their old postings
/// are removed and their new ones added, term by term. Only the shards holding a changed term,
/// the document-store chunks of a changed document and meta.json are written again. Anything else
/// (a post added, removed or moved in date order) builds everything, with the terms split into
/// partitions by hash that are merged on all cores.
///
/// Shard boundaries are content-defined (docs/search-index.md, "shards"): a shard starts at a term
/// chosen by the term's own hash and size, and a run of terms between two such terms is cut only by
/// size. So a changed term can move only the boundaries inside its own run, never the rest.
public final class SearchIndexState: @unchecked Sendable {
    public let options: SearchIndexBuilder.Options
    let partitionCount: Int
    /// See `init(options:releasingAnalyses:)`.
    let releasesAnalyses: Bool
    private var updated = false

    private var docs: [AnalyzedDocument] = []
    /// What meta.json sums over the documents, kept up to date by a patch (not summed again).
    private var fieldTotals: [Int] = []
    private var textTotal = 0
    private var norms: [UInt8] = []
    /// File paths, made once.
    private var chunkPaths: [String] = []
    private var shardPaths: [String] = []
    private var partitions: [TermPartition] = []
    /// Every term id that has had postings since the last full build, in UTF-16 order of the
    /// terms (ids whose postings are gone stay, and are skipped).
    private var sorted: [Int32] = []
    private var shards: [ShardFile] = []
    private var chunks: [(bytes: [UInt8], hash: UInt64)] = []

    /// How the last `update` went: `true` when it patched the previous index.
    public private(set) var lastUpdateWasIncremental = false
    /// Shard files the last `update` wrote anew (the others were reused).
    public private(set) var lastRewrittenShards = 0
    /// Seconds spent in the steps of the last `update` (for blog-bench).
    public private(set) var lastTimings: [(step: String, seconds: Double)] = []
    private var clock = DispatchTime.now().uptimeNanoseconds
    private func lap(_ step: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        lastTimings.append((step, Double(now - clock) / 1e9))
        clock = now
    }

    /// `releasingAnalyses`: for a state used for one `update` (`blog build`) by a caller that has
    /// no further use for the analyses it passes. Their terms are let go (`termCount` becomes 0)
    /// as soon as the postings hold them, so that the index files reuse that memory rather than
    /// take fresh memory while the analyses are kept to the end.
    public init(options: SearchIndexBuilder.Options = .init(), releasingAnalyses: Bool = false) {
        self.options = options
        self.releasesAnalyses = releasingAnalyses
        self.partitionCount = max(1, options.partitions ?? min(8, ProcessInfo.processInfo.activeProcessorCount))
    }

    struct ShardFile {
        var first: Int32
        var last: Int32
        var bytes: [UInt8]
        var hash: UInt64
    }

    /// All index files for `analyzed` (any order), meta.json first, then the document chunks, then
    /// the shards.
    public func update(_ analyzed: [AnalyzedDocument]) -> [(path: String, bytes: [UInt8])] {
        precondition(!(releasesAnalyses && updated), "a state releasing its analyses is updated once")
        updated = true
        lastTimings = []
        clock = DispatchTime.now().uptimeNanoseconds
        let ordered = order(analyzed)
        lap("order")
        var changed: [Int] = []
        var incremental = !docs.isEmpty && ordered.count == docs.count
        if incremental {
            for i in 0..<ordered.count {
                if !SearchIndexBuilder.samePlace(ordered[i].document, docs[i].document) { incremental = false; break }
                if !SearchIndexState.same(ordered[i], docs[i]) { changed.append(i) }
            }
        }
        // Many changed documents: a full build is cheaper than patching. Patched terms are kept
        // decoded (about 2.5 times their encoded size): after many edits, a full build packs them again.
        if incremental && changed.count > max(64, ordered.count / 8) { incremental = false }
        if incremental && partitions.reduce(0, { $0 + $1.overlayPostings }) > SearchIndexState.overlayLimit { incremental = false }
        lastUpdateWasIncremental = incremental
        if incremental {
            patch(ordered, changed: changed)
        } else {
            buildAll(ordered)
        }
        let result = files()
        lap("files")
        return result
    }

    /// The index files of a full build whose postings were added as its documents came
    /// (`SearchIndexStream`): `ordered` in index order, each document's postings in each of
    /// `parts` (`partitionCount` partitions, document i added as i). Starts this state.
    func updateStreamed(_ ordered: [AnalyzedDocument], parts: [TermPartition]) -> [(path: String, bytes: [UInt8])] {
        precondition(!updated && parts.count == partitionCount, "a streamed build starts a state, with one part per partition")
        updated = true
        lastTimings = []
        clock = DispatchTime.now().uptimeNanoseconds
        lastUpdateWasIncremental = false
        completeFullBuild(ordered, parts: parts)
        let result = files()
        lap("files")
        return result
    }

    /// The input of the last call and its newest-first order.
    private var lastInput: [AnalyzedDocument] = []
    private var lastOrder: [Int] = []

    /// `SearchIndexBuilder.orderedAnalyzed`, without sorting again when every document keeps its
    /// place in the input and its order keys (date, id, url, title).
    private func order(_ analyzed: [AnalyzedDocument]) -> [AnalyzedDocument] {
        var reuse = analyzed.count == lastInput.count && !analyzed.isEmpty
        if reuse {
            for i in 0..<analyzed.count where analyzed[i] !== lastInput[i] {
                if !SearchIndexBuilder.samePlace(analyzed[i].document, lastInput[i].document) { reuse = false; break }
            }
        }
        if !reuse { lastOrder = SearchIndexBuilder.order(analyzed) }
        lastInput = analyzed
        return lastOrder.map { analyzed[$0] }
    }

    /// Postings held decoded by patched terms before a full build packs them again.
    static let overlayLimit = 4_000_000

    static func same(_ a: AnalyzedDocument, _ b: AnalyzedDocument) -> Bool {
        a === b || a.termBytes == b.termBytes && a.values == b.values && a.residues == b.residues
            && a.fieldLengths == b.fieldLengths && a.document == b.document
    }

    // MARK: - Full build

    private func buildAll(_ ordered: [AnalyzedDocument]) {
        let p = partitionCount
        let parts = (0..<p).map { _ in TermPartition() }
        DispatchQueue.concurrentPerform(iterations: p) { index in
            let part = parts[index]
            for (docID, a) in ordered.enumerated() {
                part.add(a, doc: Int32(docID), partition: index, of: p)
            }
        }
        if releasesAnalyses {
            for a in ordered { a.releaseTerms() }
        }
        completeFullBuild(ordered, parts: parts)
    }

    /// The full build's steps after every document's postings are in `parts` (`partitionCount`
    /// new partitions, document i of `ordered` added as i to each).
    private func completeFullBuild(_ ordered: [AnalyzedDocument], parts: [TermPartition]) {
        docs = ordered
        sumDocuments()
        let p = partitionCount
        DispatchQueue.concurrentPerform(iterations: p) { parts[$0].finishBase() }
        lap("partitions")
        partitions = parts
        // Merge the partitions' sorted terms.
        var lists: [[Int32]] = []
        for (index, part) in parts.enumerated() {
            lists.append(part.sortedLocal.map { Int32($0 * p + index) })
            part.sortedLocal = []
        }
        sorted = mergeSorted(lists)
        for g in sorted { partition(g).inSorted[local(g)] = 1 }
        lap("merge order")
        // Document chunks.
        let chunk = max(1, options.docsPerChunk)
        let chunkCount = (ordered.count + chunk - 1) / chunk
        var newChunks = [(bytes: [UInt8], hash: UInt64)](repeating: ([], 0), count: chunkCount)
        newChunks.withUnsafeMutableBufferPointer { out in
            let buffer = out
            DispatchQueue.concurrentPerform(iterations: chunkCount) { c in
                let bytes = self.chunkBytes(c)
                buffer[c] = (bytes, FastHash.hash(bytes))
            }
        }
        chunks = newChunks
        lap("chunks")
        shards = []
        cutAndWrite()
    }

    // MARK: - Patching

    private func patch(_ ordered: [AnalyzedDocument], changed: [Int]) {
        var touched: [Int32] = []
        var created: [Int32] = []
        for i in changed {
            let old = docs[i], new = ordered[i]
            let doc = Int32(i)
            // Old postings of this document, by term id.
            var before: [Int32: (value: Int32, residues: UInt8)] = [:]
            before.reserveCapacity(old.termCount)
            forEachTerm(old) { g, value, residues in before[g] = (value, residues) }
            forEachTerm(new) { g, value, residues in
                if let previous = before.removeValue(forKey: g), previous.value == value, previous.residues == residues { return }
                let part = partition(g)
                part.setPosting(local(g), doc: doc, value: value, residues: residues)
                touched.append(g)
                if part.inSorted[local(g)] == 0 { part.inSorted[local(g)] = 1; created.append(g) }
            }
            for (g, _) in before {
                partition(g).removePosting(local(g), doc: doc)
                touched.append(g)
            }
            docs[i] = new
            // meta.json's sums, the old document out and the new one in.
            for f in 0..<fieldTotals.count { fieldTotals[f] += new.fieldLengths[f] - old.fieldLengths[f] }
            textTotal += SearchIndexState.textLength(new) - SearchIndexState.textLength(old)
            norms[i] = SearchIndexState.norm(new)
        }
        for g in touched { partition(g).dirty[local(g)] = 1 }
        if !created.isEmpty {
            created.sort { less($0, $1) }
            sorted = mergeSorted([sorted, created])
        }
        // Document chunks of the changed documents.
        let chunk = max(1, options.docsPerChunk)
        for c in Set(changed.map { $0 / chunk }) {
            let bytes = chunkBytes(c)
            chunks[c] = (bytes, FastHash.hash(bytes))
        }
        cutAndWrite()
        for g in touched { partition(g).dirty[local(g)] = 0 }
    }

    /// Calls `body(termID, value, residues)` for each term of `a`, interning new terms.
    private func forEachTerm(_ a: AnalyzedDocument, _ body: (Int32, Int32, UInt8) -> Void) {
        let p = partitionCount
        a.termBytes.withUnsafeBufferPointer { bytesBuffer in
            guard !a.termEnds.isEmpty, let bytes = bytesBuffer.baseAddress else { return }
            var start = 0
            for t in 0..<a.termEnds.count {
                let end = Int(a.termEnds[t])
                let h = a.termHashes[t]
                let index = TermPartition.partition(of: h, count: p)
                let id = partitions[index].intern(bytes + start, end - start, h)
                body(Int32(id * p + index), a.values[t], a.residues[t])
                start = end
            }
        }
    }

    @inline(__always) private func partition(_ g: Int32) -> TermPartition { partitions[Int(g) % partitionCount] }
    @inline(__always) private func local(_ g: Int32) -> Int { Int(g) / partitionCount }

    // MARK: - Term order

    /// UTF-16 order of two terms (see `AccumulatorState.sortedTermOrder`).
    private func less(_ x: Int32, _ y: Int32) -> Bool {
        let px = partition(x), py = partition(y)
        let kx = px.sortKey[local(x)], ky = py.sortKey[local(y)]
        if kx != ky { return kx < ky }
        return px.state.pointee.withTerm(local(x)) { a in
            py.state.pointee.withTerm(local(y)) { b in
                var k = 8
                while k < a.count && k < b.count {
                    let ca = TermPartition.mapped(a[k]), cb = TermPartition.mapped(b[k])
                    if ca != cb { return ca < cb }
                    k += 1
                }
                return a.count < b.count
            }
        }
    }

    private func mergeSorted(_ lists: [[Int32]]) -> [Int32] {
        var result = lists.first ?? []
        for list in lists.dropFirst() {
            var merged: [Int32] = []
            merged.reserveCapacity(result.count + list.count)
            var i = 0, j = 0
            while i < result.count && j < list.count {
                if less(list[j], result[i]) { merged.append(list[j]); j += 1 } else { merged.append(result[i]); i += 1 }
            }
            merged.append(contentsOf: result[i...])
            merged.append(contentsOf: list[j...])
            result = merged
        }
        return result
    }

    // MARK: - Shards

    /// Cuts the sorted terms into shards and writes the shards that are new or hold a changed term.
    private func cutAndWrite() {
        struct Cut { var start: Int; var end: Int; var first: Int32; var last: Int32; var dirty: Bool }
        var cuts: [Cut] = []
        let target = options.shardTargetBytes
        // A term starts a new shard with probability (its entry's bytes) / target, decided by its
        // hash: runs between such terms average `target` bytes, and within a run shards are cut
        // before they grow past `target`.
        let anchorBytes = max(1, target)
        let p = partitionCount
        let partitionList = partitions
        var current = Cut(start: -1, end: -1, first: -1, last: -1, dirty: false)
        var currentBytes = 0
        sorted.withUnsafeBufferPointer { order in
            for position in 0..<order.count {
                let g = order[position]
                let part = partitionList[Int(g) % p]
                let l = Int(g) / p
                let size = Int(part.entrySize[l])
                if size == 0 {
                    if part.dirty[l] != 0, current.start >= 0 { current.dirty = true }
                    continue
                }
                let anchor = UInt64(TermHash.mix(UInt64(part.hashAt(l))) & 0xFFFF_FFFF) &* UInt64(anchorBytes) < UInt64(size) << 32
                if current.start >= 0 && (anchor || currentBytes + size + 3 > target) {
                    cuts.append(current)
                    current.start = -1
                }
                if current.start < 0 {
                    current = Cut(start: position, end: position + 1, first: g, last: g, dirty: false)
                    currentBytes = 0
                }
                current.end = position + 1
                current.last = g
                currentBytes += size
                if part.dirty[l] != 0 { current.dirty = true }
            }
        }
        if current.start >= 0 { cuts.append(current) }
        lap("cut")
        var old: [Int32: ShardFile] = [:]
        old.reserveCapacity(shards.count)
        for shard in shards { old[shard.first] = shard }
        var result = [ShardFile](repeating: ShardFile(first: 0, last: 0, bytes: [], hash: 0), count: cuts.count)
        var todo: [Int] = []
        for (index, cut) in cuts.enumerated() {
            if !cut.dirty, let previous = old[cut.first], previous.last == cut.last {
                result[index] = previous
            } else {
                todo.append(index)
            }
        }
        lastRewrittenShards = todo.count
        result.withUnsafeMutableBufferPointer { out in
            let buffer = out
            let work = todo
            DispatchQueue.concurrentPerform(iterations: work.count) { n in
                let cut = cuts[work[n]]
                let bytes = self.shardBytes(cut.start, cut.end)
                buffer[work[n]] = ShardFile(first: cut.first, last: cut.last, bytes: bytes, hash: FastHash.hash(bytes))
            }
        }
        shards = result
        lap("write shards")
    }

    private func shardBytes(_ start: Int, _ end: Int) -> [UInt8] {
        var w = JSONWriter(capacity: options.shardTargetBytes + 4096)
        var first = true
        w.raw("[")
        var scratch: [UInt8] = []
        for position in start..<end {
            let g = sorted[position]
            let part = partition(g)
            let l = local(g)
            if part.entrySize[l] == 0 { continue }
            if !first { w.raw(",\n") }
            first = false
            w.raw("[")
            part.state.pointee.withTerm(l) { w.string($0) }
            w.raw(",\"")
            scratch.removeAll(keepingCapacity: true)
            part.encode(l, into: &scratch)
            w.bytes.append(contentsOf: scratch)
            w.raw("\"]")
        }
        w.raw("]\n")
        return w.bytes
    }

    // MARK: - Files

    private func chunkBytes(_ c: Int) -> [UInt8] {
        let chunk = max(1, options.docsPerChunk)
        let start = c * chunk, end = min(docs.count, start + chunk)
        var w = JSONWriter(capacity: 600 * (end - start))
        w.raw("[")
        for i in start..<end {
            let d = docs[i].document
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
        return w.bytes
    }

    private func files() -> [(path: String, bytes: [UInt8])] {
        var files: [(path: String, bytes: [UInt8])] = []
        files.reserveCapacity(1 + chunks.count + shards.count)
        var hash = FastHash.Combiner()
        for chunk in chunks { hash.add(chunk.hash) }
        for shard in shards { hash.add(shard.hash) }
        files.append((path: "search/meta.json", bytes: metaBytes(hash: hash.hex)))
        while chunkPaths.count < chunks.count { chunkPaths.append("search/docs-\(chunkPaths.count).json") }
        while shardPaths.count < shards.count { shardPaths.append("search/shards/\(shardPaths.count).json") }
        for (i, chunk) in chunks.enumerated() { files.append((path: chunkPaths[i], bytes: chunk.bytes)) }
        for (i, shard) in shards.enumerated() { files.append((path: shardPaths[i], bytes: shard.bytes)) }
        return files
    }

    static func textLength(_ a: AnalyzedDocument) -> Int { a.fieldLengths[3] + a.fieldLengths[4] }
    static func norm(_ a: AnalyzedDocument) -> UInt8 { PostingAlphabet.characters[SearchIndexBuilder.quantizeLength(textLength(a))] }

    /// meta.json's sums over all documents (a full build).
    private func sumDocuments() {
        let fields = SearchIndexBuilder.fields
        fieldTotals = [Int](repeating: 0, count: fields.count)
        textTotal = 0
        norms = []
        norms.reserveCapacity(docs.count)
        for a in docs {
            for f in 0..<fields.count { fieldTotals[f] += a.fieldLengths[f] }
            textTotal += SearchIndexState.textLength(a)
            norms.append(SearchIndexState.norm(a))
        }
    }

    private func metaBytes(hash: String) -> [UInt8] {
        let fields = SearchIndexBuilder.fields
        var m = JSONWriter(capacity: 4096 + docs.count + shards.count * 24)
        m.raw("{\"format\":\"blog-search\",\"version\":")
        m.int(SearchIndexBuilder.formatVersion)
        m.raw(",\"tokenizer\":")
        m.int(SearchTokenizer.version)
        m.raw(",\"hash\":")
        m.string(hash)
        m.raw(",\"docs\":")
        m.int(docs.count)
        m.raw(",\"docChunk\":")
        m.int(max(1, options.docsPerChunk))
        m.raw(",\"fields\":")
        m.stringArray(fields)
        m.raw(",\"weights\":[")
        for (i, weight) in SearchIndexBuilder.fieldWeights.enumerated() {
            if i > 0 { m.raw(",") }
            m.number(weight)
        }
        m.raw("],\"k1\":")
        m.number(SearchIndexBuilder.k1)
        m.raw(",\"b\":")
        m.number(SearchIndexBuilder.b)
        m.raw(",\"avgLength\":[")
        for f in 0..<fields.count {
            if f > 0 { m.raw(",") }
            m.number(docs.isEmpty ? 0 : Double(fieldTotals[f]) / Double(docs.count))
        }
        m.raw("],\"avgText\":")
        m.number(docs.isEmpty ? 0 : Double(textTotal) / Double(docs.count))
        m.raw(",\"norms\":")
        m.plainString(norms)
        m.raw(",\"shards\":[")
        for (i, shard) in shards.enumerated() {
            if i > 0 { m.raw(",") }
            partition(shard.first).state.pointee.withTerm(local(shard.first)) { m.string($0) }
        }
        m.raw("]}\n")
        return m.bytes
    }
}

/// Postings of one term, in document order.
struct TermPostings {
    var docs: [Int32] = []
    var values: [Int32] = []
    var residues: [UInt8] = []
}

/// The terms whose hash falls in one partition, with their postings: a base (grouped by term,
/// from the last full build) and an overlay of the terms changed since.
final class TermPartition {
    /// Term table (interning).
    let state: UnsafeMutablePointer<AccumulatorState>
    /// Base postings (from the last full build), already encoded: term t's posting string is
    /// `buffers[t].block[0 ..< buffers[t].length]`. A full build appends each posting to its
    /// term's buffer as it goes (a buffer that fills up is reallocated with twice the room), so
    /// postings are never grouped or encoded in a separate pass.
    ///
    /// Each term's buffer is a malloc block of its own (32 bytes to some tens of KB), not a slice
    /// of one arena: `blog build` makes the index after freeing the posts' HTML, and blocks of
    /// these sizes fit where the HTML was, while an arena, large per partition, could only be
    /// memory faulted in fresh.
    var baseTermCount = 0
    var termSlots = 0
    /// Per term, in one place (one cache line touched per posting added).
    struct Buffer {
        var block: UnsafeMutablePointer<UInt8>?
        var length: Int32
        var capacity: Int32
        var lastDoc: Int32
    }
    var buffers: UnsafeMutablePointer<Buffer>
    var overlay: [Int: TermPostings] = [:]
    /// Postings held in `overlay`.
    var overlayPostings = 0
    /// Per term: bytes of its shard entry (0 when it has no postings), flags.
    var entrySize: [Int32] = []
    var sortKey: [UInt64] = []
    var inSorted: [UInt8] = []
    var dirty: [UInt8] = []
    /// Local ids in UTF-16 term order (full build only).
    var sortedLocal: [Int] = []

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: AccumulatorState())
        termSlots = 1 << 12
        buffers = .allocate(capacity: termSlots)
    }

    deinit {
        state.pointee.free()
        state.deinitialize(count: 1)
        state.deallocate()
        for t in 0..<baseTermCount { free(buffers[t].block) }
        buffers.deallocate()
    }

    @inline(__always)
    static func partition(of hash: UInt32, count: Int) -> Int {
        // The hash mapped onto 0..<count by a multiplication (a division per term showed in profiles).
        Int((UInt64(hash &* 0x9E37_79B1) &* UInt64(count)) >> 32)
    }

    /// The multiplied hashes of partition `index` (of `count`): `partition(of: h, count: count) ==
    /// index` exactly when `UInt64(h &* 0x9E37_79B1) &- range.low < range.width`, one multiplication
    /// and a compare for a term of another partition.
    static func hashRange(_ index: Int, count: Int) -> (low: UInt64, width: UInt64) {
        let c = UInt64(count)
        let low = (UInt64(index) << 32 + c - 1) / c, high = (UInt64(index + 1) << 32 + c - 1) / c
        return (low, high - low)
    }

    @inline(__always)
    static func mapped(_ b: UInt8) -> UInt8 { b == 0xEE ? 0xF5 : (b == 0xEF ? 0xF6 : b) }

    func hashAt(_ l: Int) -> UInt32 { state.pointee.hashes[l] }

    /// Appends the postings of the terms of `analyzed` that belong to this partition (documents
    /// must come in increasing order). Only a full build calls it, on new partitions: `intern`
    /// (patches) adds terms without buffers.
    func add(_ analyzed: AnalyzedDocument, doc: Int32, partition: Int, of count: Int) {
        // Only on a partition of a full build: every term has its buffer.
        assert(state.pointee.termCount == baseTermCount)
        let n = analyzed.termEnds.count
        guard n > 0 else { return }
        analyzed.termBytes.withUnsafeBufferPointer { bytesBuffer in
        analyzed.termEnds.withUnsafeBufferPointer { ends in
        analyzed.termHashes.withUnsafeBufferPointer { hashes in
        analyzed.values.withUnsafeBufferPointer { values in
        analyzed.residues.withUnsafeBufferPointer { residues in
        PostingAlphabet.characters.withUnsafeBufferPointer { alphabetBuffer in
            guard let bytes = bytesBuffer.baseAddress else { return }
            let alphabet = alphabetBuffer.baseAddress!
            // The term table and the buffers in locals, reloaded only after a call that may move
            // them (a new term, a buffer that fills up): through `state.pointee` and `self` they
            // were reloaded (and spilled) for every posting.
            let st = state
            var table = st.pointee.table, tableMask = st.pointee.tableMask
            var starts = st.pointee.starts, pool = st.pointee.pool
            var buffers = self.buffers
            let range = TermPartition.hashRange(partition, count: count)
            for t in 0..<n {
                let h = hashes[t]
                if UInt64(h &* 0x9E37_79B1) &- range.low >= range.width { continue }  // another partition's
                let start = t == 0 ? 0 : Int(ends[t &- 1])
                let length = Int(ends[t]) &- start
                let p = bytes + start
                // `AccumulatorState.intern`.
                var index = Int(h) & tableMask
                var id: Int
                while true {
                    let e = table[index]
                    if e == AccumulatorState.empty {
                        id = st.pointee.insert(p, length, h, at: index)
                        table = st.pointee.table; tableMask = st.pointee.tableMask
                        starts = st.pointee.starts; pool = st.pointee.pool
                        // A full build's partition starts empty (see above): a term is new to its
                        // buffers exactly when it is new to the table, not checked for every posting.
                        newTerm(id); buffers = self.buffers
                        break
                    }
                    if UInt32(truncatingIfNeeded: e >> 32) == h {
                        id = Int(truncatingIfNeeded: e & 0xFFFF_FFFF)
                        let s0 = starts[id]
                        if starts[id &+ 1] &- s0 == length && TermHash.equal(pool + s0, p, length) { break }
                    }
                    index = (index &+ 1) & tableMask
                }
                let buffer = buffers + id
                // A posting takes at most 7 + 5 + 1 characters.
                if Int(buffer.pointee.length) &+ 13 > Int(buffer.pointee.capacity) { growBuffer(id) }
                var out = buffer.pointee.block.unsafelyUnwrapped + Int(buffer.pointee.length)
                let begin = out
                var v = Int(doc &- buffer.pointee.lastDoc &- 1)
                while v >= 32 { out.pointee = alphabet[32 | (v & 31)]; out += 1; v >>= 5 }
                out.pointee = alphabet[v]; out += 1
                v = Int(values[t])
                while v >= 32 { out.pointee = alphabet[32 | (v & 31)]; out += 1; v >>= 5 }
                out.pointee = alphabet[v]; out += 1
                out.pointee = alphabet[Int(residues[t]) & 63]; out += 1
                buffer.pointee.length &+= Int32(truncatingIfNeeded: out - begin)
                buffer.pointee.lastDoc = doc
            }
        }}}}}}
    }

    /// Room for a term first seen in this full build.
    private func newTerm(_ id: Int) {
        if id >= termSlots {
            var slots = termSlots * 2
            while id >= slots { slots *= 2 }
            buffers = AccumulatorState.grown(buffers, count: termSlots, capacity: slots)
            termSlots = slots
        }
        (buffers + id).initialize(to: Buffer(block: nil, length: 0, capacity: 0, lastDoc: -1))
        baseTermCount = id + 1
    }

    /// Gives a term's buffer twice the room (realloc: in place when malloc can, else moved).
    private func growBuffer(_ id: Int) {
        let capacity = max(32, Int(buffers[id].capacity) * 2)
        guard let block = realloc(buffers[id].block, capacity) else { fatalError("out of memory") }
        buffers[id].block = block.assumingMemoryBound(to: UInt8.self)
        buffers[id].capacity = Int32(capacity)
    }

    /// Computes entry sizes and the term order after the documents of a full build are added.
    func finishBase() {
        let termCount = state.pointee.termCount
        entrySize = [Int32](repeating: 0, count: termCount)
        sortKey = [UInt64](repeating: 0, count: termCount)
        inSorted = [UInt8](repeating: 0, count: termCount)
        dirty = [UInt8](repeating: 0, count: termCount)
        for t in 0..<termCount {
            entrySize[t] = Int32(TermPartition.termJSONLength(state.pointee, t) + Int(buffers[t].length) + 9)
            sortKey[t] = key(t)
        }
        sortedLocal = state.pointee.sortedTermOrder()
    }

    /// The first 8 bytes of a term (lead bytes mapped for UTF-16 order), big-endian.
    func key(_ l: Int) -> UInt64 {
        state.pointee.withTerm(l) { b in
            var key: UInt64 = 0
            for k in 0..<min(8, b.count) { key |= UInt64(TermPartition.mapped(b[k])) << (56 - 8 * k) }
            return key
        }
    }

    /// The id of a term, adding it (without postings) when new.
    func intern(_ p: UnsafePointer<UInt8>, _ n: Int, _ h: UInt32) -> Int {
        let id = state.pointee.intern(p, n, h)
        while entrySize.count <= id {
            entrySize.append(0); inSorted.append(0); dirty.append(0)
            sortKey.append(key(entrySize.count - 1))
        }
        return id
    }

    func postings(_ l: Int) -> TermPostings {
        if let o = overlay[l] { return o }
        guard l < baseTermCount else { return TermPostings() }
        var p = TermPostings()
        guard let bytes = buffers[l].block else { return p }
        var i = 0
        let end = Int(buffers[l].length)
        var doc: Int32 = -1
        func varint() -> Int {
            var value = 0, shift = 0
            while true {
                let digit = PostingAlphabet.value(bytes[i])
                i += 1
                value |= (digit & 31) << shift
                shift += 5
                if digit & 32 == 0 { return value }
            }
        }
        while i < end {
            doc += Int32(varint() + 1)
            p.docs.append(doc)
            p.values.append(Int32(varint()))
            p.residues.append(UInt8(PostingAlphabet.value(bytes[i])))
            i += 1
        }
        return p
    }

    func setPosting(_ l: Int, doc: Int32, value: Int32, residues: UInt8) {
        var p = postings(l)
        let i = TermPartition.lowerBound(p.docs, doc)
        if i < p.docs.count && p.docs[i] == doc {
            p.values[i] = value; p.residues[i] = residues
        } else {
            p.docs.insert(doc, at: i); p.values.insert(value, at: i); p.residues.insert(residues, at: i)
        }
        store(l, p)
    }

    func removePosting(_ l: Int, doc: Int32) {
        var p = postings(l)
        let i = TermPartition.lowerBound(p.docs, doc)
        guard i < p.docs.count && p.docs[i] == doc else { return }
        p.docs.remove(at: i); p.values.remove(at: i); p.residues.remove(at: i)
        store(l, p)
    }

    private func store(_ l: Int, _ p: TermPostings) {
        overlayPostings += p.docs.count - (overlay[l]?.docs.count ?? 0)
        overlay[l] = p
        if p.docs.isEmpty {
            entrySize[l] = 0
        } else {
            let n = p.docs.withUnsafeBufferPointer { d in
                p.values.withUnsafeBufferPointer { v in TermPartition.encodedLength(d.baseAddress!, v.baseAddress!, d.count) }
            }
            entrySize[l] = Int32(TermPartition.termJSONLength(state.pointee, l) + n + 9)
        }
    }

    /// At least the bytes of the term as a JSON string, without quotes (a control character may
    /// take up to 6).
    static func termJSONLength(_ s: AccumulatorState, _ l: Int) -> Int {
        var n = 0
        var k = s.starts[l]
        let end = s.starts[l + 1]
        while k < end {
            let b = s.pool[k]
            n += b < 0x20 ? 6 : (b == 0x22 || b == 0x5C ? 2 : 1)
            k += 1
        }
        return n
    }

    static func lowerBound(_ docs: [Int32], _ doc: Int32) -> Int {
        var lo = 0, hi = docs.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if docs[mid] < doc { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    @inline(__always)
    static func varintLength(_ value: Int) -> Int {
        var v = value, n = 1
        while v >= 32 { v >>= 5; n += 1 }
        return n
    }

    static func encodedLength(_ docs: UnsafePointer<Int32>, _ values: UnsafePointer<Int32>, _ count: Int) -> Int {
        var n = 0
        var previous: Int32 = -1
        var k = 0
        while k < count {
            n += varintLength(Int(docs[k] - previous - 1)) + varintLength(Int(values[k])) + 1
            previous = docs[k]
            k += 1
        }
        return n
    }

    /// Appends the encoded postings of term `l`:
    /// posting = varint(gap) varint(value) digit(residues), gap = doc − previous doc − 1.
    func encode(_ l: Int, into out: inout [UInt8]) {
        if let o = overlay[l] {
            o.docs.withUnsafeBufferPointer { d in
                o.values.withUnsafeBufferPointer { v in
                    o.residues.withUnsafeBufferPointer { r in
                        TermPartition.encode(d.baseAddress!, v.baseAddress!, r.baseAddress!, d.count, into: &out)
                    }
                }
            }
            return
        }
        guard l < baseTermCount else { return }
        out.append(contentsOf: UnsafeBufferPointer(start: buffers[l].block, count: Int(buffers[l].length)))
    }

    static func encode(_ docs: UnsafePointer<Int32>, _ values: UnsafePointer<Int32>, _ residues: UnsafePointer<UInt8>, _ count: Int,
                       into out: inout [UInt8]) {
        guard count > 0 else { return }
        let base = out.count
        let needed = count * 12
        out.reserveCapacity(base + needed)
        var written = 0
        PostingAlphabet.characters.withUnsafeBufferPointer { alphabetBuffer in
            let alphabet = alphabetBuffer.baseAddress!
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: needed)
            defer { buffer.deallocate() }
            var previous: Int32 = -1
            var k = 0
            while k < count {
                let doc = docs[k]
                var v = Int(doc - previous - 1)
                while v >= 32 { buffer[written] = alphabet[32 | (v & 31)]; written += 1; v >>= 5 }
                buffer[written] = alphabet[v]; written += 1
                v = Int(values[k])
                while v >= 32 { buffer[written] = alphabet[32 | (v & 31)]; written += 1; v >>= 5 }
                buffer[written] = alphabet[v]; written += 1
                buffer[written] = alphabet[Int(residues[k]) & 63]; written += 1
                previous = doc
                k += 1
            }
            out.append(contentsOf: UnsafeBufferPointer(start: buffer, count: written))
        }
    }
}

/// A fast, deterministic 64-bit hash of file contents (8 bytes per step, four lanes), used only
/// to version the index files (`?v=` in the page's URLs).
enum FastHash {
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            let n = raw.count
            var a: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n), b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
            var c: UInt64 = 0x1656_67B1_9E37_79F9, d: UInt64 = 0x27D4_EB2F_1656_67C5
            var i = 0
            while i + 32 <= n {
                a = (a ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                b = (b ^ raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) &* 0xC4CE_B9FE_1A85_EC53
                c = (c ^ raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                d = (d ^ raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) &* 0xC4CE_B9FE_1A85_EC53
                a ^= a >> 29; b ^= b >> 31; c ^= c >> 29; d ^= d >> 31
                i += 32
            }
            var h = TermHash.mix(a ^ TermHash.mix(b ^ TermHash.mix(c ^ TermHash.mix(d))))
            while i < n {
                h = (h ^ UInt64(raw[i])) &* 0x100_0000_01B3
                i += 1
            }
            return TermHash.mix(h)
        }
    }

    struct Combiner {
        var value: UInt64 = 0x811C_9DC5
        mutating func add(_ hash: UInt64) { value = TermHash.mix(value ^ hash) }
        var hex: String {
            let s = String(UInt32(truncatingIfNeeded: value ^ (value >> 32)), radix: 16)
            return String(repeating: "0", count: 8 - s.count) + s
        }
    }
}
