import Foundation
import BlogCore

/// One document's index terms with their per-document postings data, computed without looking at
/// any other document. `SearchIndexBuilder.analyze` makes one; `SearchIndexBuilder.build(analyzed:)`
/// merges many into the index. `blog serve` keeps them per post and re-analyzes only a changed post.
/// A class: an archive's worth of them is copied around (cached, ordered, compared) on every
/// rebuild of `blog serve`, and a reference is one retain where the struct was a dozen.
///
/// Immutable once made, but for `releaseTerms()`, which only a `SearchIndexState` made with
/// `releasingAnalyses` calls, when no other thread reads the terms (hence `@unchecked`).
public final class AnalyzedDocument: @unchecked Sendable {
    /// The document itself (its store record and its place in the newest-first order).
    public let document: SearchDocument
    /// Positions per field (title, tags, headings, body, code), as averaged in meta.json.
    let fieldLengths: [Int]
    /// Term i is `termBytes[termEnds[i - 1] ..< termEnds[i]]` (UTF-8), each term once.
    private(set) var termBytes: [UInt8]
    private(set) var termEnds: [Int32]
    /// `TermHash.hash(bytes)` truncated to 32 bits, so merging never rehashes.
    private(set) var termHashes: [UInt32]
    /// Posting value: field mask | (text occurrences − 1) << 5 (see docs/search-index.md).
    private(set) var values: [Int32]
    /// Bit k: the term occurs at a position ≡ k (mod 6).
    private(set) var residues: [UInt8]

    /// Number of distinct terms (0 once `releaseTerms()` has run).
    public var termCount: Int { termEnds.count }

    /// Lets the terms go (their memory returns to malloc); the document and its field lengths stay.
    func releaseTerms() {
        termBytes = []
        termEnds = []
        termHashes = []
        values = []
        residues = []
    }

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

extension AnalyzedDocument {
    /// The same analysis with its document's headings, body and code left out.
    func withoutText() -> AnalyzedDocument {
        var stripped = document
        stripped.headings = []
        stripped.body = ""
        stripped.code = ""
        return AnalyzedDocument(document: stripped, fieldLengths: fieldLengths, termBytes: termBytes, termEnds: termEnds,
                                termHashes: termHashes, values: values, residues: residues)
    }
}

/// A term's key: its bytes packed into an integer and spread by BlogCore's `mixBits`. For n ≤ 8
/// the value is a bijection of the bytes (given n), which the analyzer uses to compare short terms
/// without touching their bytes; longer terms fold 8 bytes per step.
enum TermHash {
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 { mixBits(x) }

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

/// Byte and character classes for `DocumentAnalyzer`, computed once.
enum ScanTables {
    /// Run kinds of characters (low two bits): 0 separator, 1 CJK, 2 word; bit 2: NFKC leaves the
    /// character alone (`SearchTokenizer.isNFKCStable`).
    static let cjk: UInt8 = 1, word: UInt8 = 2, stable: UInt8 = 4
    /// Bytes 0…255: 0 ASCII separator, 1 ASCII lowercase letter or digit, 2 ASCII capital or `_`,
    /// 3 any byte ≥ 0x80. Then U+3000…U+3FFF (lead byte E3), indexed by the low 12 bits: kind | stable.
    static let table: UnsafePointer<UInt8> = {
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 256 + 4096)
        for b in 0..<256 {
            let c = UInt8(b)
            if b >= 0x80 { t[b] = 3 }
            else if (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) { t[b] = 1 }
            else if (c >= 0x41 && c <= 0x5A) || c == 0x5F { t[b] = 2 }
            else { t[b] = 0 }
        }
        for k in 0..<4096 {
            let cp = UInt32(0x3000 + k)
            var v: UInt8 = SearchTokenizer.isCJK(cp) ? cjk : (SearchTokenizer.isWordLetter(cp) ? word : 0)
            if SearchTokenizer.isNFKCStable(cp) { v |= stable }
            t[256 + k] = v
        }
        return UnsafePointer(t)
    }()

    /// U+3000…U+3FFF by the two continuation bytes after the lead byte E3 read as one little-endian
    /// UInt16 v: `cjkE3[v - 0x8080]` is 1 when the character is CJK and NFKC-stable (the CJK
    /// loop's own characters), else 0. 0x3F40 entries; indices whose bytes are not continuation
    /// bytes (not valid UTF-8) are never read.
    static let cjkE3: UnsafePointer<UInt8> = {
        let count = 0x3F40
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        t.initialize(repeating: 0, count: count)
        for k in 0..<4096 {
            let b1 = 0x80 | (k >> 6), b2 = 0x80 | (k & 0x3F)
            t[(b1 | b2 << 8) - 0x8080] = table[256 + k] & 7 == stable | cjk ? 1 : 0
        }
        return UnsafePointer(t)
    }()
}

/// Tokenizes documents into per-document term tables. One analyzer per thread; its buffers are
/// reused from document to document. Works on the UTF-8 bytes of the fields: text made only of
/// characters that NFKC leaves alone is scanned in place, anything else goes through
/// `SearchTokenizer.normalize` first. The token rules are those of `SearchTokenizer.scan` (the
/// reference used by `tokens` and `queryTerms`); tests compare both.
///
/// Two things keep the per-document cost down:
/// - *Optimistic scanning.* A document is first scanned without a separate stability pass: the
///   scanner checks every non-ASCII character it classifies anyway, and gives up at the first one NFKC
///   may change; the document is then analyzed again from scratch, each field checked first (and
///   normalized when needed). After a document that needed that, the next one starts with the
///   checks (until a document turns out to be stable again), so mixed archives do not scan twice.
/// - *A word cache.* Identifiers (words with capitals, `_` or non-ASCII letters) recur within and
///   across posts; their tokens (whole word, parts, spans), with hashes, are kept per raw word, and
///   per document the term slots they resolved to. A repeated identifier costs one lookup.
/// Neither changes the result: the terms, their order of first occurrence, masks, counts and
/// residues are exactly those of scanning the normalized text token by token.
struct DocumentAnalyzer {
    struct Term {
        var hash: UInt64
        var start: Int32
        var length: Int32
        var tf: Int32
        var mask: UInt8
        var residues: UInt8
        /// 1 for a bigram of two 3-byte characters: it lives in `bigrams`, not in `table`.
        var bigram: UInt8 = 0
    }
    /// A cached word: its raw bytes in `wordPool`, its tokens `wordTokens[firstToken ..< firstToken + tokenCount]`.
    struct Word {
        var hash: UInt64
        var start: Int32
        var length: Int32
        var firstToken: Int32
        var tokenCount: Int32
        /// `generation` of the document whose term slots the tokens' `term` hold.
        var stamp: UInt32
    }
    struct Token {
        var hash: UInt64
        var start: Int32
        var length: Int32
        var term: Int32
    }

    // Local term table: open addressing, entry = generation << 32 | term index (entries of older
    // generations are empty).
    var table: UnsafeMutablePointer<UInt64>
    var tableMask: Int
    var generation: UInt32 = 0
    // Terms of the current document.
    var termCount = 0
    var termCapacity: Int
    var terms: UnsafeMutablePointer<Term>
    var pool: UnsafeMutablePointer<UInt8>
    var poolCount = 0
    var poolCapacity: Int
    /// Bigrams of two 3-byte characters (most of a CJK text's tokens) have a table of their own,
    /// keyed by their 6 bytes as one integer (`bigramKey`, never 0; the value `TermHash` mixes):
    /// open addressing, key 0 when empty. The key is its own check (no term to read, no generation
    /// to compare) and its first slot is one multiplication away. The slots used by a document are
    /// listed in `bigramUsed` and emptied when the next one starts.
    struct BigramSlot {
        var key: UInt64
        /// The term's byte offset in `terms` (index × stride): the fast loop adds it to `terms`
        /// as it is, saving the scaling of an index for every bigram.
        var termOffset: Int
    }
    var bigrams: UnsafeMutablePointer<BigramSlot>
    var bigramMask: Int
    /// 64 − log2(table size): a key's first slot is the top bits of key × 0x9E3779B97F4A7C15.
    var bigramShift: UInt64
    var bigramUsed: UnsafeMutablePointer<Int32>
    var bigramCount = 0
    /// Scratch for identifiers: lowercased copy and spans (bytes), part and token bounds (ints).
    let wordBytes: UnsafeMutablePointer<UInt8>
    let wordInts: UnsafeMutablePointer<Int>
    let classes: UnsafePointer<UInt8>
    let cjkE3: UnsafePointer<UInt8>
    // Word cache (cleared when full).
    var wordTable: UnsafeMutablePointer<Int32>
    var wordTableMask: Int
    var words: UnsafeMutablePointer<Word>
    var wordCount = 0
    let wordCapacity: Int
    var wordTokens: UnsafeMutablePointer<Token>
    var wordTokenCount = 0
    let wordTokenCapacity: Int
    var wordPool: UnsafeMutablePointer<UInt8>
    var wordPoolCount = 0
    let wordPoolCapacity: Int
    /// Scan the next document without checking its fields first (see above).
    var optimistic = true
    /// Analyses restarted because an optimistic scan met a character NFKC may change (for tests).
    var restarts = 0

    /// Room for one word's raw bytes and tokens: a run of at most 64 code points (256 bytes) whose
    /// tokens (the whole word, at most 64 parts or 21 parts and spans) stay far below these.
    static let wordRoomBytes = 32_768, wordRoomTokens = 128

    init(wordCacheWords: Int = 8192) {
        wordBytes = .allocate(capacity: 4096)
        wordInts = .allocate(capacity: 1024)
        classes = ScanTables.table
        cjkE3 = ScanTables.cjkE3
        // Grows to the largest document seen (a post has some hundreds of distinct terms); small
        // tables stay in the L1 cache.
        let tableSize = 1 << 11
        table = .allocate(capacity: tableSize)
        table.initialize(repeating: 0, count: tableSize)
        tableMask = tableSize - 1
        termCapacity = tableSize / 2
        terms = .allocate(capacity: termCapacity)
        poolCapacity = 1 << 15
        pool = .allocate(capacity: poolCapacity)
        let bigramSize = 1 << 11
        bigrams = .allocate(capacity: bigramSize)
        bigrams.initialize(repeating: BigramSlot(key: 0, termOffset: 0), count: bigramSize)
        bigramMask = bigramSize - 1
        bigramShift = 64 - 11
        bigramUsed = .allocate(capacity: bigramSize / 2)
        wordCapacity = max(1, wordCacheWords)
        var wordTableSize = 16
        while wordTableSize < 2 * wordCapacity { wordTableSize *= 2 }
        wordTable = .allocate(capacity: wordTableSize)
        wordTable.initialize(repeating: -1, count: wordTableSize)
        wordTableMask = wordTableSize - 1
        words = .allocate(capacity: wordCapacity)
        wordTokenCapacity = wordCapacity * 12 + DocumentAnalyzer.wordRoomTokens
        wordTokens = .allocate(capacity: wordTokenCapacity)
        wordPoolCapacity = wordCapacity * 64 + DocumentAnalyzer.wordRoomBytes
        wordPool = .allocate(capacity: wordPoolCapacity)
    }

    func free() {
        table.deallocate(); terms.deallocate(); pool.deallocate()
        bigrams.deallocate(); bigramUsed.deallocate()
        wordBytes.deallocate(); wordInts.deallocate()
        wordTable.deallocate(); words.deallocate(); wordTokens.deallocate(); wordPool.deallocate()
    }

    mutating func analyze(_ doc: SearchDocument) -> AnalyzedDocument {
        if optimistic {
            if let fieldLengths = run(doc, checked: true) { return finish(doc, fieldLengths) }
            restarts += 1
        }
        var allStable = true
        let fieldLengths = run(doc, checked: false, allStable: &allStable)!
        optimistic = allStable
        return finish(doc, fieldLengths)
    }

    mutating func run(_ doc: SearchDocument, checked: Bool) -> [Int]? {
        var allStable = true
        return run(doc, checked: checked, allStable: &allStable)
    }

    /// The fields of `doc` into the (emptied) term table; nil when `checked` and some text is not
    /// NFKC-stable (the table then holds a partial document).
    mutating func run(_ doc: SearchDocument, checked: Bool, allStable: inout Bool) -> [Int]? {
        generation &+= 1
        if generation == 0 {
            table.update(repeating: 0, count: tableMask + 1)
            clearWords()
            generation = 1
        }
        termCount = 0
        poolCount = 0
        for k in 0..<bigramCount { bigrams[Int(bigramUsed[k])].key = 0 }
        bigramCount = 0
        var fieldLengths = [Int](repeating: 0, count: SearchIndexBuilder.fields.count)
        var position = 0
        func index(_ text: String, _ field: Int) -> Bool {
            let end = scanText(text, field: field, startPosition: position, checked: checked, allStable: &allStable)
            if end < 0 { return false }
            fieldLengths[field] += end - position
            position = end + 1  // no adjacency across fields, tags or headings
            return true
        }
        guard index(doc.title, 0) else { return nil }
        for tag in doc.tags {
            guard index(tag, 1) else { return nil }
            if addASCIITagTerm(tag) { continue }
            let normalized = SearchTokenizer.normalizeTag(tag)
            if !normalized.isEmpty {
                var term = "#" + normalized
                term.withUTF8 { buffer in
                    let t = slot(buffer.baseAddress!, buffer.count, TermHash.hash(buffer.baseAddress!, buffer.count))
                    terms[t].mask |= 1 << 1
                }
            }
        }
        for heading in doc.headings { guard index(heading, 2) else { return nil } }
        guard index(doc.body, 3), index(doc.code, 4) else { return nil }
        return fieldLengths
    }

    /// The filter term `#` + `SearchTokenizer.normalizeTag(tag)` of an ASCII tag, on bytes: lowercased,
    /// runs of whitespace (U+0009…U+000D, space: `Character.isWhitespace` in ASCII) made one space,
    /// none at the ends. False (nothing added) when the tag is not ASCII.
    mutating func addASCIITagTerm(_ tag: String) -> Bool {
        var tag = tag
        return tag.withUTF8 { b -> Bool in
            let n = b.count
            if n >= 4000 { return false }
            let out = wordBytes
            out[0] = 0x23  // #
            var length = 1
            var space = false
            for c in b {
                if c >= 0x80 { return false }
                if c == 0x20 || (c >= 0x09 && c <= 0x0D) {
                    space = length > 1
                    continue
                }
                if space { out[length] = 0x20; length += 1; space = false }
                out[length] = (c >= 0x41 && c <= 0x5A) ? c + 0x20 : c
                length += 1
            }
            if length > 1 {
                let t = slot(out, length, TermHash.hash(out, length))
                terms[t].mask |= 1 << 1
            }
            return true
        }
    }

    func finish(_ doc: SearchDocument, _ fieldLengths: [Int]) -> AnalyzedDocument {
        let n = termCount
        let terms = self.terms
        let bytes = [UInt8](unsafeUninitializedCapacity: poolCount) { b, count in
            if poolCount > 0 { b.baseAddress!.initialize(from: pool, count: poolCount) }
            count = poolCount
        }
        // The four per-term arrays in one pass over the terms.
        var h: [UInt32] = [], values: [Int32] = [], res: [UInt8] = []
        let ends = [Int32](unsafeUninitializedCapacity: n) { eb, ec in
            h = [UInt32](unsafeUninitializedCapacity: n) { hb, hc in
                values = [Int32](unsafeUninitializedCapacity: n) { vb, vc in
                    res = [UInt8](unsafeUninitializedCapacity: n) { rb, rc in
                        guard n > 0 else { rc = 0; return }
                        let e = eb.baseAddress!, hp = hb.baseAddress!, v = vb.baseAddress!, r = rb.baseAddress!
                        for t in 0..<n {
                            let term = terms + t
                            e[t] = term.pointee.start &+ term.pointee.length
                            hp[t] = UInt32(truncatingIfNeeded: term.pointee.hash)
                            let tf = term.pointee.tf, mask = Int32(term.pointee.mask)
                            v[t] = tf > 0 ? mask | ((min(tf, 4096) - 1) << 5) : mask
                            r[t] = term.pointee.residues
                        }
                        rc = n
                    }
                    vc = n
                }
                hc = n
            }
            ec = n
        }
        return AnalyzedDocument(document: doc, fieldLengths: fieldLengths, termBytes: bytes, termEnds: ends,
                                termHashes: h, values: values, residues: res)
    }

    // MARK: Term table

    /// The index of the term with these bytes (and `TermHash` h) in the current document, adding it
    /// when new.
    @inline(__always)
    mutating func slot(_ p: UnsafePointer<UInt8>, _ n: Int, _ h: UInt64) -> Int {
        var index = Int(truncatingIfNeeded: h) & tableMask
        let g = UInt64(generation) << 32
        while true {
            let e = table[index]
            if e & 0xFFFF_FFFF_0000_0000 != g { break }
            let t = Int(truncatingIfNeeded: e & 0xFFFF_FFFF)
            let term = terms + t
            if term.pointee.hash == h && Int(term.pointee.length) == n
                && (n <= 8 || memcmp(pool + Int(term.pointee.start), p, n) == 0) {
                return t
            }
            index = (index + 1) & tableMask
        }
        return insert(p, n, h, at: index)
    }

    mutating func insert(_ p: UnsafePointer<UInt8>, _ n: Int, _ h: UInt64, at index: Int) -> Int {
        // Wrapping arithmetic: counts stay far below Int32 (a document's terms and their bytes).
        let t = termCount
        let used = poolCount
        if used &+ n > poolCapacity {
            var capacity = poolCapacity * 2
            while used + n > capacity { capacity *= 2 }
            pool = AccumulatorState.grown(pool, count: used, capacity: capacity)
            poolCapacity = capacity
        }
        // Most terms are 1…8 bytes (a bigram is 6): copied with two overlapping 4-byte moves.
        let to = UnsafeMutableRawPointer(pool + used), from = UnsafeRawPointer(p)
        if n >= 4 && n <= 8 {
            to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self), toByteOffset: n &- 4, as: UInt32.self)
        } else if n < 4 {
            var k = 0
            while k < n { (pool + used)[k] = p[k]; k &+= 1 }
        } else {
            (pool + used).update(from: p, count: n)
        }
        (terms + t).initialize(to: Term(hash: h, start: Int32(truncatingIfNeeded: used), length: Int32(truncatingIfNeeded: n),
                                        tf: 0, mask: 0, residues: 0))
        poolCount = used &+ n
        table[index] = UInt64(generation) << 32 | UInt64(truncatingIfNeeded: t)
        termCount = t &+ 1
        if termCount == termCapacity { grow() }
        return t
    }

    mutating func grow() {
        let capacity = termCapacity * 2
        terms = AccumulatorState.grown(terms, count: termCount, capacity: capacity)
        termCapacity = capacity
        let size = capacity * 2
        table.deallocate()
        table = .allocate(capacity: size)
        table.initialize(repeating: 0, count: size)
        tableMask = size - 1
        let g = UInt64(generation) << 32
        for t in 0..<termCount where terms[t].bigram == 0 {
            var index = Int(truncatingIfNeeded: terms[t].hash) & tableMask
            while table[index] & 0xFFFF_FFFF_0000_0000 == g { index = (index + 1) & tableMask }
            table[index] = g | UInt64(t)
        }
    }

    /// One occurrence of term t in a field (`mask` its bit, `tf` 1 for body and code) at a position
    /// whose residue mod 6 is `bit`.
    @inline(__always)
    func count(_ t: Int, mask: UInt8, tf: Int32, bit: UInt8) {
        let term = terms + t
        term.pointee.mask |= mask
        term.pointee.tf &+= tf
        term.pointee.residues |= bit
    }

    @inline(__always)
    mutating func add(_ p: UnsafePointer<UInt8>, _ n: Int, mask: UInt8, tf: Int32, bit: UInt8) {
        // Two statements: `slot` may grow (move) `terms`, and a call `count(slot(…))` would read
        // `self.terms` for `count` before evaluating its argument.
        let t = slot(p, n, TermHash.hash(p, n))
        count(t, mask: mask, tf: tf, bit: bit)
    }
}
