import Foundation

/// One document's index terms with their per-document postings data, computed without looking at
/// any other document. `SearchIndexBuilder.analyze` makes one; `SearchIndexBuilder.build(analyzed:)`
/// merges many into the index. `blog serve` keeps them per post and re-analyzes only a changed post.
/// A class: an archive's worth of them is copied around (cached, ordered, compared) on every
/// rebuild of `blog serve`, and a reference is one retain where the struct was a dozen.
public final class AnalyzedDocument: Sendable {
    /// The document itself (its store record and its place in the newest-first order).
    public let document: SearchDocument
    /// Positions per field (title, tags, headings, body, code), as averaged in meta.json.
    let fieldLengths: [Int]
    /// Term i is `termBytes[termEnds[i - 1] ..< termEnds[i]]` (UTF-8), each term once.
    let termBytes: [UInt8]
    let termEnds: [Int32]
    /// `TermHash.hash(bytes)` truncated to 32 bits, so merging never rehashes.
    let termHashes: [UInt32]
    /// Posting value: field mask | (text occurrences − 1) << 5 (see docs/search-index.md).
    let values: [Int32]
    /// Bit k: the term occurs at a position ≡ k (mod 6).
    let residues: [UInt8]

    /// Number of distinct terms.
    public var termCount: Int { termEnds.count }

    init(document: SearchDocument, fieldLengths: [Int], termBytes: [UInt8], termEnds: [Int32], termHashes: [UInt32],
         values: [Int32], residues: [UInt8]) {
        self.document = document
        self.fieldLengths = fieldLengths
        self.termBytes = termBytes
        self.termEnds = termEnds
        self.termHashes = termHashes
        self.values = values
        self.residues = residues
    }
}

/// A fast hash of short byte strings. For n ≤ 8 the 64-bit value is a bijection of the bytes
/// (given n), which the analyzer uses to compare short terms without touching their bytes.
enum TermHash {
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var h = x &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 32
        h = h &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return h
    }

    @inline(__always)
    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        let raw = UnsafeRawPointer(p)
        if n >= 4 {
            if n <= 8 {
                let lo = UInt64(raw.loadUnaligned(as: UInt32.self))
                let hi = UInt64(raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
                return mix(lo | hi << 32)
            }
            var k = UInt64(n) &* 0x100_0000_01B3
            var i = 0
            while i + 8 <= n {
                k = mix(k ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i += 8
            }
            return mix(k ^ raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
        }
        if n == 0 { return mix(0) }
        return mix(UInt64(p[0]) | UInt64(p[n >> 1]) << 8 | UInt64(p[n - 1]) << 16)
    }

    /// Byte equality of two strings of length n.
    @inline(__always)
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        if n >= 4 && n <= 8 {
            let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
            return ra.loadUnaligned(as: UInt32.self) == rb.loadUnaligned(as: UInt32.self)
                && ra.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == rb.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        }
        return memcmp(a, b, n) == 0
    }
}

/// Tokenizes documents into per-document term tables. One analyzer per thread; its buffers are
/// reused from document to document. Works on the UTF-8 bytes of the fields: text made only of
/// characters that NFKC leaves alone (checked first, 8 ASCII bytes at a time) is scanned in place,
/// anything else goes through `SearchTokenizer.normalize` first. The token rules are those of
/// `SearchTokenizer.scan` (the reference used by `tokens` and `queryTerms`); tests compare both.
struct DocumentAnalyzer {
    // Local term table (open addressing, entries valid when their stamp is the current document).
    var table: UnsafeMutablePointer<Int32>
    var tableStamp: UnsafeMutablePointer<UInt32>
    var tableMask: Int
    var generation: UInt32 = 0
    // Terms of the current document.
    var termCount = 0
    var termCapacity: Int
    var hashes: UnsafeMutablePointer<UInt64>
    var starts: UnsafeMutablePointer<Int32>
    var lengths: UnsafeMutablePointer<Int32>
    var masks: UnsafeMutablePointer<Int32>
    var tfs: UnsafeMutablePointer<Int32>
    var residues: UnsafeMutablePointer<UInt8>
    var pool: UnsafeMutablePointer<UInt8>
    var poolCount = 0
    var poolCapacity: Int
    /// Scratch for identifiers: lowercased copy and spans (bytes), part and token bounds (ints).
    let wordBytes: UnsafeMutablePointer<UInt8>
    let wordInts: UnsafeMutablePointer<Int>

    init() {
        wordBytes = .allocate(capacity: 4096)
        wordInts = .allocate(capacity: 1024)
        let tableSize = 1 << 13
        table = .allocate(capacity: tableSize)
        tableStamp = .allocate(capacity: tableSize)
        tableStamp.initialize(repeating: 0, count: tableSize)
        tableMask = tableSize - 1
        termCapacity = tableSize / 2
        hashes = .allocate(capacity: termCapacity)
        starts = .allocate(capacity: termCapacity)
        lengths = .allocate(capacity: termCapacity)
        masks = .allocate(capacity: termCapacity)
        tfs = .allocate(capacity: termCapacity)
        residues = .allocate(capacity: termCapacity)
        poolCapacity = 1 << 15
        pool = .allocate(capacity: poolCapacity)
    }

    func free() {
        table.deallocate(); tableStamp.deallocate()
        hashes.deallocate(); starts.deallocate(); lengths.deallocate()
        masks.deallocate(); tfs.deallocate(); residues.deallocate(); pool.deallocate()
        wordBytes.deallocate(); wordInts.deallocate()
    }

    mutating func analyze(_ doc: SearchDocument) -> AnalyzedDocument {
        generation &+= 1
        if generation == 0 {
            tableStamp.update(repeating: 0, count: tableMask + 1)
            generation = 1
        }
        termCount = 0
        poolCount = 0
        var fieldLengths = [Int](repeating: 0, count: SearchIndexBuilder.fields.count)
        var position = 0
        func index(_ text: String, _ field: Int) {
            let start = position
            position = scanText(text, field: field, startPosition: position)
            fieldLengths[field] += position - start
            position += 1  // no adjacency across fields, tags or headings
        }
        index(doc.title, 0)
        for tag in doc.tags {
            index(tag, 1)
            let normalized = SearchTokenizer.normalizeTag(tag)
            if !normalized.isEmpty {
                var term = "#" + normalized
                term.withUTF8 { buffer in
                    let t = slot(buffer.baseAddress!, buffer.count)
                    masks[t] |= 1 << 1
                }
            }
        }
        for heading in doc.headings { index(heading, 2) }
        index(doc.body, 3)
        index(doc.code, 4)
        return finish(doc, fieldLengths)
    }

    func finish(_ doc: SearchDocument, _ fieldLengths: [Int]) -> AnalyzedDocument {
        let n = termCount
        var bytes = [UInt8](repeating: 0, count: poolCount)
        bytes.withUnsafeMutableBufferPointer { b in
            if poolCount > 0 { b.baseAddress!.update(from: pool, count: poolCount) }
        }
        let ends = [Int32](unsafeUninitializedCapacity: n) { b, count in
            for t in 0..<n { b[t] = starts[t] + lengths[t] }
            count = n
        }
        let h = [UInt32](unsafeUninitializedCapacity: n) { b, count in
            for t in 0..<n { b[t] = UInt32(truncatingIfNeeded: hashes[t]) }
            count = n
        }
        let values = [Int32](unsafeUninitializedCapacity: n) { b, count in
            for t in 0..<n {
                let tf = tfs[t]
                b[t] = tf > 0 ? masks[t] | ((min(tf, 4096) - 1) << 5) : masks[t]
            }
            count = n
        }
        let res = [UInt8](unsafeUninitializedCapacity: n) { b, count in
            if n > 0 { b.baseAddress!.update(from: residues, count: n) }
            count = n
        }
        return AnalyzedDocument(document: doc, fieldLengths: fieldLengths, termBytes: bytes, termEnds: ends,
                                termHashes: h, values: values, residues: res)
    }

    // MARK: Term table

    /// The index of the term with these bytes in the current document, adding it when new.
    @inline(__always)
    mutating func slot(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        let h = TermHash.hash(p, n)
        var index = Int(truncatingIfNeeded: h) & tableMask
        while tableStamp[index] == generation {
            let t = Int(table[index])
            if hashes[t] == h && Int(lengths[t]) == n
                && (n <= 8 || memcmp(pool + Int(starts[t]), p, n) == 0) {
                return t
            }
            index = (index + 1) & tableMask
        }
        return insert(p, n, h, at: index)
    }

    mutating func insert(_ p: UnsafePointer<UInt8>, _ n: Int, _ h: UInt64, at index: Int) -> Int {
        let t = termCount
        if poolCount + n > poolCapacity {
            var capacity = poolCapacity * 2
            while poolCount + n > capacity { capacity *= 2 }
            pool = AccumulatorState.grown(pool, count: poolCount, capacity: capacity)
            poolCapacity = capacity
        }
        (pool + poolCount).update(from: p, count: n)
        hashes[t] = h
        starts[t] = Int32(poolCount)
        lengths[t] = Int32(n)
        masks[t] = 0
        tfs[t] = 0
        residues[t] = 0
        poolCount += n
        table[index] = Int32(t)
        tableStamp[index] = generation
        termCount += 1
        if termCount == termCapacity { grow() }
        return t
    }

    mutating func grow() {
        let capacity = termCapacity * 2
        hashes = AccumulatorState.grown(hashes, count: termCount, capacity: capacity)
        starts = AccumulatorState.grown(starts, count: termCount, capacity: capacity)
        lengths = AccumulatorState.grown(lengths, count: termCount, capacity: capacity)
        masks = AccumulatorState.grown(masks, count: termCount, capacity: capacity)
        tfs = AccumulatorState.grown(tfs, count: termCount, capacity: capacity)
        residues = AccumulatorState.grown(residues, count: termCount, capacity: capacity)
        termCapacity = capacity
        let size = capacity * 2
        table.deallocate(); tableStamp.deallocate()
        table = .allocate(capacity: size)
        tableStamp = .allocate(capacity: size)
        tableStamp.initialize(repeating: 0, count: size)
        tableMask = size - 1
        for t in 0..<termCount {
            var index = Int(truncatingIfNeeded: hashes[t]) & tableMask
            while tableStamp[index] == generation { index = (index + 1) & tableMask }
            table[index] = Int32(t)
            tableStamp[index] = generation
        }
    }

    @inline(__always)
    mutating func add(_ p: UnsafePointer<UInt8>, _ n: Int, field: Int, position: Int) {
        let t = slot(p, n)
        masks[t] |= Int32(1 << field)
        if field >= 3 { tfs[t] += 1 }
        residues[t] |= UInt8(truncatingIfNeeded: 1 &<< (UInt(bitPattern: position) % 6))
    }

    // MARK: Scanner

    mutating func scanText(_ text: String, field: Int, startPosition: Int) -> Int {
        var utf8 = text
        return utf8.withUTF8 { buffer -> Int in
            guard let p = buffer.baseAddress else { return startPosition }
            if DocumentAnalyzer.isStable(p, buffer.count) {
                return scan(p, buffer.count, field: field, startPosition: startPosition)
            }
            var normalized = SearchTokenizer.normalize(text)
            return normalized.withUTF8 { n -> Int in
                guard let q = n.baseAddress else { return startPosition }
                return scan(q, n.count, field: field, startPosition: startPosition)
            }
        }
    }

    /// True when NFKC leaves every character alone (`SearchTokenizer.normalize` would return the
    /// text unchanged without converting anything).
    static func isStable(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let raw = UnsafeRawPointer(p)
        var i = 0
        while i < n {
            if i + 8 <= n && raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let b0 = p[i]
            if b0 < 0x80 { i += 1; continue }
            if b0 >= 0xE5 && b0 <= 0xE9 { i += 3; continue }  // U+5000…U+9FFF: unified ideographs
            if b0 < 0xE0 { return false }  // U+0080…U+07FF: never in the stable set
            if b0 >= 0xF0 { return false }
            let cp = UInt32(b0 & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F)
            if !SearchTokenizer.isNFKCStable(cp) { return false }
            i += 3
        }
        return true
    }

    /// `SearchTokenizer.scan` with `wholeWordsOnly: false`, adding tokens to the term table.
    mutating func scan(_ p: UnsafePointer<UInt8>, _ n: Int, field: Int, startPosition: Int) -> Int {
        var position = startPosition
        var i = 0
        // Current run: 0 none, 1 CJK, 2 word.
        var kind = 0
        var runStart = 0
        var cjkCount = 0
        var previousCharStart = 0
        var wordNonASCII = false
        var wordUpperOrUnderscore = false

        while i < n {
            let b0 = p[i]
            var length = 1
            var k: Int
            var startsUpper = false
            if b0 < 0x80 {
                if (b0 >= 0x61 && b0 <= 0x7A) || (b0 >= 0x30 && b0 <= 0x39) {
                    k = 2
                } else if (b0 >= 0x41 && b0 <= 0x5A) || b0 == 0x5F {
                    k = 2
                    startsUpper = true
                    if kind == 2 { wordUpperOrUnderscore = true }
                } else {
                    k = 0
                }
            } else if b0 >= 0xE5 && b0 <= 0xE9 {
                k = 1  // U+5000…U+9FFF: unified ideographs
                length = 3
            } else {
                var cp: UInt32
                if b0 < 0xE0 {
                    cp = UInt32(b0 & 0x1F) << 6 | UInt32(p[i + 1] & 0x3F); length = 2
                } else if b0 < 0xF0 {
                    cp = UInt32(b0 & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F); length = 3
                } else {
                    cp = UInt32(b0 & 0x07) << 18 | UInt32(p[i + 1] & 0x3F) << 12 | UInt32(p[i + 2] & 0x3F) << 6 | UInt32(p[i + 3] & 0x3F); length = 4
                }
                k = SearchTokenizer.isCJK(cp) ? 1 : (SearchTokenizer.isWordLetter(cp) ? 2 : 0)
            }
            if k != kind {
                // Finish the current run.
                if kind == 1 {
                    if cjkCount == 1 {
                        add(p + runStart, i - runStart, field: field, position: position)
                        position += 1
                    }
                } else if kind == 2 {
                    position = finishWord(p + runStart, i - runStart, nonASCII: wordNonASCII,
                                          upperOrUnderscore: wordUpperOrUnderscore, field: field, position: position)
                }
                kind = k
                runStart = i
                if k == 1 {
                    cjkCount = 0
                } else if k == 2 {
                    wordNonASCII = false
                    wordUpperOrUnderscore = startsUpper
                }
            }
            if k == 1 {
                if cjkCount > 0 {
                    add(p + previousCharStart, i + length - previousCharStart, field: field, position: position)
                    position += 1
                }
                cjkCount += 1
                previousCharStart = i
            } else if k == 2 && length > 1 {
                wordNonASCII = true
            }
            i += length
        }
        if kind == 1 {
            if cjkCount == 1 {
                add(p + runStart, n - runStart, field: field, position: position)
                position += 1
            }
        } else if kind == 2 {
            position = finishWord(p + runStart, n - runStart, nonASCII: wordNonASCII,
                                  upperOrUnderscore: wordUpperOrUnderscore, field: field, position: position)
        }
        return position
    }

    @inline(__always)
    mutating func finishWord(_ p: UnsafePointer<UInt8>, _ n: Int, nonASCII: Bool, upperOrUnderscore: Bool,
                             field: Int, position: Int) -> Int {
        if !nonASCII && !upperOrUnderscore {
            if n <= SearchTokenizer.maxWordLength {
                add(p, n, field: field, position: position)
                return position + 1
            }
            return position
        }
        let word = UnsafeBufferPointer(start: p, count: n)
        let emitted: Bool
        if nonASCII {
            emitted = SearchTokenizer.emitWord(word, wholeOnly: false, position: position) { token, pos in
                add(token.baseAddress!, token.count, field: field, position: pos)
            }
        } else {
            emitted = asciiIdentifier(p, n, field: field, position: position)
        }
        return emitted ? position + 1 : position
    }

    /// `SearchTokenizer.emitASCIIIdentifier` without closures or temporary allocations: whole word,
    /// parts, and concatenations of 2…3 adjacent parts, each distinct token once.
    mutating func asciiIdentifier(_ p: UnsafePointer<UInt8>, _ n: Int, field: Int, position: Int) -> Bool {
        if n > SearchTokenizer.maxWordLength { return false }
        var lo = 0, hi = n
        while lo < hi && p[lo] == 0x5F { lo += 1 }
        while hi > lo && p[hi - 1] == 0x5F { hi -= 1 }
        if lo == hi { return false }
        let out = wordBytes
        var i = 0
        while i < n {
            let c = p[i]
            out[i] = (c >= 0x41 && c <= 0x5A) ? c + 0x20 : c
            i += 1
        }
        add(out + lo, hi - lo, field: field, position: position)
        SearchTokenizer.emitIdentifierSpans(p, n, lo: lo, hi: hi, out: out, parts: wordInts) { token, length in
            add(token, length, field: field, position: position)
        }
        return true
    }
}
