import Foundation

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
    /// Each term's buffer is a malloc block of its own (32 bytes at first, doubling), not a slice
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
        // The hash mapped onto 0..<count by a multiplication, since a division per term is far dearer.
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
                if Int(buffer.pointee.length) &+ PostingCode.maxLength > Int(buffer.pointee.capacity) { growBuffer(id) }
                let out = buffer.pointee.block.unsafelyUnwrapped + Int(buffer.pointee.length)
                let written = PostingCode.write(gap: Int(doc &- buffer.pointee.lastDoc &- 1), value: values[t], residues: residues[t],
                                                to: out, alphabet: alphabet)
                buffer.pointee.length &+= Int32(truncatingIfNeeded: written)
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
        while i < end {
            let posting = PostingCode.read(&i) { PostingAlphabet.value(bytes[$0]) }
            doc += Int32(posting.gap + 1)
            p.docs.append(doc)
            p.values.append(posting.value)
            p.residues.append(posting.residues)
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
                p.values.withUnsafeBufferPointer { v in
                    p.residues.withUnsafeBufferPointer { r in TermPartition.encodedLength(d.baseAddress!, v.baseAddress!, r.baseAddress!, d.count) }
                }
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

    static func encodedLength(_ docs: UnsafePointer<Int32>, _ values: UnsafePointer<Int32>, _ residues: UnsafePointer<UInt8>,
                              _ count: Int) -> Int {
        var n = 0
        var previous: Int32 = -1
        var k = 0
        while k < count {
            n += PostingCode.length(gap: Int(docs[k] - previous - 1), value: values[k], residues: residues[k])
            previous = docs[k]
            k += 1
        }
        return n
    }

    /// Appends the encoded postings of term `l` (`PostingCode`).
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
        let needed = count * PostingCode.maxLength
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
                written += PostingCode.write(gap: Int(doc - previous - 1), value: values[k], residues: residues[k],
                                             to: buffer + written, alphabet: alphabet)
                previous = doc
                k += 1
            }
            out.append(contentsOf: UnsafeBufferPointer(start: buffer, count: written))
        }
    }
}
