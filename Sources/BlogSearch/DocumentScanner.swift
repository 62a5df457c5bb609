import Foundation

/// The scanner of `DocumentAnalyzer`: fields' UTF-8 bytes into runs, words and bigrams, and the
/// word cache that resolves a repeated identifier with one lookup.
extension DocumentAnalyzer {
    // MARK: Scanner

    /// Scans one field; -1 when `checked` and the text holds a character NFKC may change.
    mutating func scanText(_ text: String, field: Int, startPosition: Int, checked: Bool, allStable: inout Bool) -> Int {
        var utf8 = text
        return utf8.withUTF8 { buffer -> Int in
            guard let p = buffer.baseAddress else { return startPosition }
            if checked { return scan(p, buffer.count, field: field, startPosition: startPosition, checked: true) }
            if DocumentAnalyzer.isStable(p, buffer.count) {
                return scan(p, buffer.count, field: field, startPosition: startPosition, checked: false)
            }
            allStable = false
            var normalized = SearchTokenizer.normalize(text)
            return normalized.withUTF8 { n -> Int in
                guard let q = n.baseAddress else { return startPosition }
                return scan(q, n.count, field: field, startPosition: startPosition, checked: false)
            }
        }
    }

    /// True when NFKC leaves every character alone (`SearchTokenizer.normalize` would return the
    /// text unchanged without converting anything).
    static func isStable(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let raw = UnsafeRawPointer(p)
        let e3 = ScanTables.table + 256
        var i = 0
        while i < n {
            if i + 8 <= n && raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let b0 = p[i]
            if b0 < 0x80 { i += 1; continue }
            if b0 >= 0xE5 && b0 <= 0xE9 { i += 3; continue }  // U+5000…U+9FFF: unified ideographs
            if b0 == 0xE3 {
                if e3[Int(p[i + 1] & 0x3F) << 6 | Int(p[i + 2] & 0x3F)] & ScanTables.stable == 0 { return false }
            } else if b0 != 0xE4 || p[i + 1] < 0xB8 {  // U+4E00…U+4FFF are E4 B8 80…E4 BF BF
                return false
            }
            i += 3
        }
        return true
    }

    /// Run kind (0 separator, 1 CJK, 2 word; 255: `checked` and NFKC may change it) and length of
    /// the non-ASCII character at p[i] (lead byte b0).
    @inline(__always)
    func classify(_ p: UnsafePointer<UInt8>, _ i: Int, _ b0: UInt8, checked: Bool) -> (kind: UInt8, length: Int) {
        if b0 >= 0xE5 && b0 <= 0xE9 { return (1, 3) }  // U+5000…U+9FFF: unified ideographs
        if b0 == 0xE3 {
            let e = classes[256 + (Int(p[i + 1] & 0x3F) << 6 | Int(p[i + 2] & 0x3F))]
            if checked && e & ScanTables.stable == 0 { return (255, 3) }
            return (e & 3, 3)
        }
        let (cp, length) = SearchTokenizer.decode(p, i, b0)
        if checked && !(b0 == 0xE4 && p[i + 1] >= 0xB8) { return (255, length) }
        return (SearchTokenizer.isCJK(cp) ? 1 : (SearchTokenizer.isWordLetter(cp) ? 2 : 0), length)
    }

    /// `SearchTokenizer.scan` with `wholeWordsOnly: false`, adding tokens to the term table.
    /// Returns the position after the text, or -1 when `checked` and a character is not NFKC-stable.
    mutating func scan(_ p: UnsafePointer<UInt8>, _ n: Int, field: Int, startPosition: Int, checked: Bool) -> Int {
        checked ? scanChecked(p, n, field: field, startPosition: startPosition)
            : scanUnchecked(p, n, field: field, startPosition: startPosition)
    }

    mutating func scanChecked(_ p: UnsafePointer<UInt8>, _ n: Int, field: Int, startPosition: Int) -> Int {
        scanBody(p, n, field: field, startPosition: startPosition, checked: true)
    }

    mutating func scanUnchecked(_ p: UnsafePointer<UInt8>, _ n: Int, field: Int, startPosition: Int) -> Int {
        scanBody(p, n, field: field, startPosition: startPosition, checked: false)
    }

    /// `scan`, inlined into one copy per value of `checked`.
    @inline(__always)
    mutating func scanBody(_ p: UnsafePointer<UInt8>, _ n: Int, field: Int, startPosition: Int, checked: Bool) -> Int {
        let mask = UInt8(1) << UInt8(field)
        let tf: Int32 = field >= 3 ? 1 : 0
        var position = startPosition
        var bit = UInt8(1) << UInt8(startPosition % 6)  // 1 << (position mod 6)
        let classes = self.classes
        var i = 0
        while i < n {
            let b0 = p[i]
            let c = classes[Int(b0)]
            if c == 0 { i += 1; continue }
            if c < 3 {
                // Word run from an ASCII letter, digit or `_`.
                let start = i
                var upper = c == 2
                var nonASCII = false
                i += 1
                while i < n {
                    let cb = classes[Int(p[i])]
                    if cb == 1 { i += 1; continue }
                    if cb == 2 { upper = true; i += 1; continue }
                    if cb == 0 { break }
                    let (k, length) = classify(p, i, p[i], checked: checked)
                    if k == 2 { nonASCII = true; i += length; continue }
                    if k == 255 { return -1 }
                    break
                }
                if finishWord(p + start, i - start, nonASCII: nonASCII, upper: upper, mask: mask, tf: tf, bit: bit) {
                    position += 1; bit = bit == 32 ? 1 : bit << 1
                }
                continue
            }
            let (kind, length) = classify(p, i, b0, checked: checked)
            if kind == 255 { return -1 }
            if kind == 0 { i += length; continue }
            if kind == 2 {
                // Word run from a non-ASCII letter.
                let start = i
                var upper = false
                i += length
                while i < n {
                    let cb = classes[Int(p[i])]
                    if cb == 1 { i += 1; continue }
                    if cb == 2 { upper = true; i += 1; continue }
                    if cb == 0 { break }
                    let (k, l) = classify(p, i, p[i], checked: checked)
                    if k == 2 { i += l; continue }
                    if k == 255 { return -1 }
                    break
                }
                if finishWord(p + start, i - start, nonASCII: true, upper: upper, mask: mask, tf: tf, bit: bit) {
                    position += 1; bit = bit == 32 ? 1 : bit << 1
                }
                continue
            }
            // CJK run: overlapping bigrams, or the single character.
            i = cjkRun(p, n, i, length, mask: mask, tf: tf, checked: checked, position: &position, bit: &bit)
            if i < 0 { return -1 }
        }
        return position
    }

    /// The CJK run that starts with the CJK character p[start ..< start + length]: its overlapping
    /// bigrams, or the character alone, into the term table, each at the next position. Returns
    /// the index after the run, or -1 when `checked` and a character is not NFKC-stable.
    ///
    /// The bigrams of kana and ideographs (two 3-byte characters, 6 bytes) are most of a Japanese
    /// archive's tokens. They go through a loop of their own that makes no calls but to insert a
    /// new term, with the bigram table in locals: inside the scanner's loop the table's fields and
    /// the position were reloaded and spilled for each bigram. A bigram is looked up by its key
    /// (`bigramKey`, its 6 bytes) in `bigrams`, which needs no hash of the bytes and no term read
    /// to confirm a match. Any other character (one that needs the full classification, a
    /// character beyond U+FFFF, the end of the run) takes the general step.
    @inline(never)
    mutating func cjkRun(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, _ length: Int, mask: UInt8, tf: Int32,
                         checked: Bool, position: inout Int, bit: inout UInt8) -> Int {
        var b = bit
        var start = start
        var tokens = 0
        /// Tokens of the runs before this one (see below).
        var positions = 0
        var previous = start
        var i = start &+ length
        let e3 = classes + 256
        var separator = false
        while i < n {
            if i &- previous == 3 {
                // Fast loop: stable 3-byte CJK characters after a 3-byte character.
                // (The table's mask is read from `self` on a collision: one register fewer for the loop.)
                var table = self.bigrams, shift = self.bigramShift, terms = self.terms
                let first = p + i, end = p + n
                let fastE3 = cjkE3
                var q = first
                separator = false
                fast: repeat {
                    // Kana (lead byte E3) first: most of a Japanese text's characters.
                    let b0 = q[0]
                    if b0 == 0xE3 {
                        // U+3000…U+3FFF: a stable CJK character, else the general step, or the end of
                        // the run at a stable separator (、。「」…).
                        let v = Int(UnsafeRawPointer(q + 1).loadUnaligned(as: UInt16.self).littleEndian)
                        if fastE3[v &- 0x8080] == 0 {
                            separator = e3[(v & 0x3F) << 6 | (v >> 8 & 0x3F)] & 7 == ScanTables.stable
                            break
                        }
                    } else if b0 &- 0xE5 >= 5 && (b0 != 0xE4 || q[1] < 0xB8) {
                        // Not U+5000…U+9FFF (unified ideographs) nor U+4E00…U+4FFF (E4 B8 80…E4 BF BF).
                        break
                    }
                    let key = DocumentAnalyzer.bigramKey(q - 3)
                    var index = DocumentAnalyzer.bigramFirstSlot(key, shift: shift)
                    var term: UnsafeMutablePointer<Term>
                    while true {
                        let k = table[index].key
                        if k == key {
                            term = (UnsafeMutableRawPointer(terms) + table[index].termOffset).assumingMemoryBound(to: Term.self)
                            break
                        }
                        if k == 0 {
                            // A new term starts with this occurrence: no second write to it.
                            _ = insertBigram(q - 3, key, at: index, mask: mask, tf: tf, residues: b)
                            table = self.bigrams; shift = self.bigramShift; terms = self.terms
                            b = b == 32 ? 1 : b << 1
                            q += 3
                            continue fast
                        }
                        index = (index &+ 1) & bigramMask
                    }
                    term.pointee.mask |= mask
                    term.pointee.tf &+= tf
                    term.pointee.residues |= b
                    b = b == 32 ? 1 : b << 1
                    q += 3
                } while q < end
                let done = (q - first) / 3
                if done > 0 {
                    tokens &+= done
                    i &+= 3 &* done
                    previous = i &- 3
                    if i >= n { break }
                }
                if separator {
                    // The run ends at a stable separator (、。「」…), what the general step would find
                    // for the character at i. When it has a token and a stable CJK character follows
                    // (after any more such separators), the next run starts here instead of back in
                    // the scanner, with the position and bit it would pass: many of a Japanese text's
                    // runs end so, and returning and calling again (the scanner's steps over the
                    // separator and the next character included) would cost more than the run.
                    if tokens > 0, let r = nextRunStart(p, n, i &+ 3) {
                        positions &+= tokens
                        tokens = 0
                        start = r
                        previous = r
                        i = r &+ 3
                        continue
                    }
                    break
                }
            }
            // General step: one character, fully classified; its bigram through `add`.
            let b0 = p[i]
            if b0 < 0x80 { break }
            let (k, l) = classify(p, i, b0, checked: checked)
            if k != 1 {
                if k == 255 { return -1 }
                break
            }
            if l == 3 && i &- previous == 3 {
                let t = bigramSlot(p + previous)
                count(t, mask: mask, tf: tf, bit: b)
            } else {
                add(p + previous, i &+ l &- previous, mask: mask, tf: tf, bit: b)
            }
            tokens &+= 1
            b = b == 32 ? 1 : b << 1
            previous = i
            i &+= l
        }
        if tokens == 0 {
            add(p + start, i &- start, mask: mask, tf: tf, bit: b)
            tokens = 1
            b = b == 32 ? 1 : b << 1
        }
        position &+= positions &+ tokens
        bit = b
        return i
    }

    /// The index of the stable 3-byte CJK character (what the fast loop takes) at p[j], or after stable
    /// separators of U+3000…U+3FFF from j (which the scanner steps over); nil when anything else comes
    /// first, or the end.
    @inline(__always)
    func nextRunStart(_ p: UnsafePointer<UInt8>, _ n: Int, _ j: Int) -> Int? {
        var j = j
        while j < n {
            let b0 = p[j]
            if b0 == 0xE3 {
                let v = Int(UnsafeRawPointer(p + j + 1).loadUnaligned(as: UInt16.self).littleEndian)
                if cjkE3[v &- 0x8080] != 0 { return j }
                if classes[256 + ((v & 0x3F) << 6 | (v >> 8 & 0x3F))] & 7 != ScanTables.stable { return nil }
                j &+= 3
                continue
            }
            if b0 &- 0xE5 < 5 || (b0 == 0xE4 && p[j + 1] >= 0xB8) { return j }
            return nil
        }
        return nil
    }

    /// The 6 bytes at p (two 3-byte characters) as one integer: two overlapping 4-byte loads, the
    /// value `TermHash.hash(p, 6)` mixes. A bijection of the bytes, never 0.
    @inline(__always)
    static func bigramKey(_ p: UnsafePointer<UInt8>) -> UInt64 {
        let raw = UnsafeRawPointer(p)
        return UInt64(raw.loadUnaligned(as: UInt32.self)) | UInt64(raw.loadUnaligned(fromByteOffset: 2, as: UInt32.self)) << 32
    }

    /// A bigram key's first slot in a table of 2^(64 − shift) slots: the top bits of key × 2^64/φ.
    @inline(__always)
    static func bigramFirstSlot(_ key: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The term index of the bigram of two 3-byte characters at p, adding it when new.
    mutating func bigramSlot(_ p: UnsafePointer<UInt8>) -> Int {
        let key = DocumentAnalyzer.bigramKey(p)
        var index = DocumentAnalyzer.bigramFirstSlot(key, shift: bigramShift)
        while true {
            let k = bigrams[index].key
            if k == key { return bigrams[index].termOffset / MemoryLayout<Term>.stride }
            if k == 0 { return insertBigram(p, key, at: index) }
            index = (index &+ 1) & bigramMask
        }
    }

    /// Adds the bigram at p (6 bytes, key `key`) as a new term, in the empty bigram slot `index`,
    /// counted with `mask`, `tf` and `residues` (the fast loop's first occurrence; 0 for `count` after).
    @inline(__always)
    mutating func insertBigram(_ p: UnsafePointer<UInt8>, _ key: UInt64, at index: Int,
                               mask: UInt8 = 0, tf: Int32 = 0, residues: UInt8 = 0) -> Int {
        let t = termCount
        // `insert`'s pool copy for exactly 6 bytes, written out, because bigrams are a large share
        // of all terms and the general one's length branches would cost each of them.
        let used = poolCount
        if used &+ 6 > poolCapacity {
            let capacity = poolCapacity * 2
            pool = AccumulatorState.grown(pool, count: used, capacity: capacity)
            poolCapacity = capacity
        }
        let to = UnsafeMutableRawPointer(pool + used), from = UnsafeRawPointer(p)
        to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
        to.storeBytes(of: from.loadUnaligned(fromByteOffset: 2, as: UInt32.self), toByteOffset: 2, as: UInt32.self)
        (terms + t).initialize(to: Term(hash: TermHash.mix(key), start: Int32(truncatingIfNeeded: used), length: 6,
                                        tf: tf, mask: mask, residues: residues, bigram: 1))
        poolCount = used &+ 6
        bigrams[index] = BigramSlot(key: key, termOffset: t &* MemoryLayout<Term>.stride)
        bigramUsed[bigramCount] = Int32(truncatingIfNeeded: index)
        bigramCount &+= 1
        termCount = t &+ 1
        if termCount == termCapacity { grow() }
        if bigramCount &* 2 > bigramMask { growBigrams() }
        return t
    }

    /// Doubles the bigram table (at most half full).
    mutating func growBigrams() {
        let size = (bigramMask + 1) * 2
        let old = bigrams
        bigrams = .allocate(capacity: size)
        bigrams.initialize(repeating: BigramSlot(key: 0, termOffset: 0), count: size)
        bigramMask = size - 1
        bigramShift -= 1
        bigramUsed = AccumulatorState.grown(bigramUsed, count: bigramCount, capacity: size / 2)
        for u in 0..<bigramCount {
            let slot = old[Int(bigramUsed[u])]
            var index = DocumentAnalyzer.bigramFirstSlot(slot.key, shift: bigramShift)
            while bigrams[index].key != 0 { index = (index &+ 1) & bigramMask }
            bigrams[index] = slot
            bigramUsed[u] = Int32(truncatingIfNeeded: index)
        }
        old.deallocate()
    }

    /// The tokens of one word run at one position; false when it has none (then it takes no position).
    @inline(__always)
    mutating func finishWord(_ p: UnsafePointer<UInt8>, _ n: Int, nonASCII: Bool, upper: Bool,
                             mask: UInt8, tf: Int32, bit: UInt8) -> Bool {
        if !nonASCII {
            if n > SearchTokenizer.maxWordLength { return false }
            if !upper {
                add(p, n, mask: mask, tf: tf, bit: bit)
                return true
            }
        } else if n > 4 * SearchTokenizer.maxWordLength {
            return false  // more than 64 code points
        }
        return cachedWord(p, n, nonASCII: nonASCII, mask: mask, tf: tf, bit: bit)
    }

    // MARK: Word cache

    /// An identifier or non-ASCII word through the word cache.
    mutating func cachedWord(_ p: UnsafePointer<UInt8>, _ n: Int, nonASCII: Bool, mask: UInt8, tf: Int32, bit: UInt8) -> Bool {
        let h = TermHash.hash(p, n)
        var index = Int(truncatingIfNeeded: h) & wordTableMask
        var w = -1
        while true {
            let e = Int(wordTable[index])
            if e < 0 { break }
            let word = words + e
            // Up to 8 bytes, equal hashes and lengths mean equal bytes (`TermHash`).
            if word.pointee.hash == h && Int(word.pointee.length) == n
                && (n <= 8 || memcmp(wordPool + Int(word.pointee.start), p, n) == 0) {
                w = e
                break
            }
            index = (index + 1) & wordTableMask
        }
        if w < 0 { w = newWord(p, n, h, nonASCII: nonASCII, at: index) }
        let word = words + w
        let tokenCount = Int(word.pointee.tokenCount)
        if tokenCount == 0 { return false }
        let tokens = wordTokens + Int(word.pointee.firstToken)
        if word.pointee.stamp != generation {
            for k in 0..<tokenCount {
                let token = tokens + k
                token.pointee.term = Int32(slot(wordPool + Int(token.pointee.start), Int(token.pointee.length), token.pointee.hash))
            }
            word.pointee.stamp = generation
        }
        for k in 0..<tokenCount { count(Int(tokens[k].term), mask: mask, tf: tf, bit: bit) }
        return true
    }

    mutating func clearWords() {
        wordTable.update(repeating: -1, count: wordTableMask + 1)
        wordCount = 0
        wordTokenCount = 0
        wordPoolCount = 0
    }

    /// Adds a word and its tokens to the cache (clearing it first when full).
    mutating func newWord(_ p: UnsafePointer<UInt8>, _ n: Int, _ h: UInt64, nonASCII: Bool, at slotIndex: Int) -> Int {
        var index = slotIndex
        if wordCount == wordCapacity || wordTokenCount + DocumentAnalyzer.wordRoomTokens > wordTokenCapacity
            || wordPoolCount + n + DocumentAnalyzer.wordRoomBytes > wordPoolCapacity {
            clearWords()
            index = Int(truncatingIfNeeded: h) & wordTableMask
        }
        let start = wordPoolCount
        (wordPool + start).update(from: p, count: n)
        wordPoolCount += n
        let first = wordTokenCount
        var poolCount = wordPoolCount, tokenCount = wordTokenCount
        let pool = wordPool, tokens = wordTokens
        func push(_ token: UnsafePointer<UInt8>, _ length: Int) {
            (pool + poolCount).update(from: token, count: length)
            (tokens + tokenCount).initialize(to: Token(hash: TermHash.hash(token, length), start: Int32(poolCount),
                                                       length: Int32(length), term: 0))
            poolCount += length
            tokenCount += 1
        }
        if nonASCII {
            _ = SearchTokenizer.emitWord(UnsafeBufferPointer(start: p, count: n), wholeOnly: false, position: 0) { token, _ in
                push(token.baseAddress!, token.count)
            }
        } else {
            asciiIdentifierTokens(p, n, push)
        }
        wordPoolCount = poolCount
        wordTokenCount = tokenCount
        (words + wordCount).initialize(to: Word(hash: h, start: Int32(start), length: Int32(n), firstToken: Int32(first),
                                                tokenCount: Int32(tokenCount - first), stamp: 0))
        wordTable[index] = Int32(wordCount)
        wordCount += 1
        return wordCount - 1
    }

    /// `SearchTokenizer.emitASCIIIdentifier` without closures' allocations: whole word, parts, and
    /// concatenations of 2…3 adjacent parts, each distinct token once (n ≤ 64).
    func asciiIdentifierTokens(_ p: UnsafePointer<UInt8>, _ n: Int, _ emit: (UnsafePointer<UInt8>, Int) -> Void) {
        var lo = 0, hi = n
        while lo < hi && p[lo] == 0x5F { lo += 1 }
        while hi > lo && p[hi - 1] == 0x5F { hi -= 1 }
        if lo == hi { return }
        let out = wordBytes
        var i = 0
        while i < n {
            let c = p[i]
            out[i] = (c >= 0x41 && c <= 0x5A) ? c + 0x20 : c
            i += 1
        }
        emit(out + lo, hi - lo)
        SearchTokenizer.emitIdentifierSpans(p, n, lo: lo, hi: hi, out: out, parts: wordInts, emit)
    }
}
