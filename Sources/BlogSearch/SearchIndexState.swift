import Foundation
import BlogCore

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
        // decoded (several times their encoded size): after many edits, a full build packs them again.
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
        WorkShare.each(count: p, workers: p) { index in
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
        WorkShare.each(count: p, workers: p) { parts[$0].finishBase() }
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
        chunks = WorkShare.map(count: chunkCount, batch: 16) { c in
            let bytes = self.chunkBytes(c)
            return (bytes: bytes, hash: fnv1a64(bytes))
        }
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
            chunks[c] = (bytes, fnv1a64(bytes))
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
        let made = WorkShare.map(count: todo.count, batch: 1) { n in
            let cut = cuts[todo[n]]
            let bytes = self.shardBytes(cut.start, cut.end)
            return ShardFile(first: cut.first, last: cut.last, bytes: bytes, hash: fnv1a64(bytes))
        }
        for (n, index) in todo.enumerated() { result[index] = made[n] }
        shards = result
        lap("write shards")
    }

    private func shardBytes(_ start: Int, _ end: Int) -> [UInt8] {
        var w = IndexJSON(capacity: options.shardTargetBytes + 4096)
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
        var w = IndexJSON(capacity: 600 * (end - start))
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
        // The index's version: a hash of its files' hashes, as 8 hex digits.
        var hash = FNV1a64()
        for chunk in chunks { hash.add(raw: Int64(bitPattern: chunk.hash)) }
        for shard in shards { hash.add(raw: Int64(bitPattern: shard.hash)) }
        files.append((path: "search/meta.json", bytes: metaBytes(hash: hex8(UInt32(truncatingIfNeeded: hash.value ^ (hash.value >> 32))))))
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
        var m = IndexJSON(capacity: 4096 + docs.count + shards.count * 24)
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
