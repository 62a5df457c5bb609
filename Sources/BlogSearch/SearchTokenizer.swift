import Foundation

/// The tokenizer shared by the index (Swift) and the search page (themes/default/assets/js/search.js).
/// Both sides must produce the same tokens for the same text; `SearchTestVectors` pins that down.
///
/// Rules (docs/search-index.md, "Tokenizer"):
/// 1. NFKC (`String.prototype.normalize("NFKC")` in the page; see `normalize`).
/// 2. The text is cut into runs of code points:
///    - CJK runs (Han, Hiragana, Katakana incl. `ー`, Hangul, `々〆〇`) become overlapping
///      character bigrams; a one-character run is a token by itself.
///    - word runs (ASCII letters and digits, Latin-1/Extended Latin, Greek, Cyrillic letters, joined
///      by `_`) become the whole lowercased word (leading/trailing `_` dropped) and, for identifiers
///      with several parts (split at `_` and camelCase boundaries), every part and every
///      concatenation of 2 or 3 adjacent parts: `UITableViewDelegate` → `uitableviewdelegate`, `ui`,
///      `table`, `view`, `delegate`, `uitable`, `tableview`, `viewdelegate`, `uitableview`,
///      `tableviewdelegate`.
///    - anything else separates runs.
/// 3. Lowercasing happens per word after splitting (full Unicode lowercasing, then `ς` → `σ`).
/// Word runs longer than `maxWordLength` code points are dropped (base64 blobs, hashes).
///
/// The scanner works on the UTF-8 bytes of the normalized text: CJK bigrams and plain lowercase
/// ASCII words are slices of the input and are never copied.
public enum SearchTokenizer {
    /// The code point and length of the non-ASCII character of valid UTF-8 at p[i] (lead byte b0).
    @inline(__always)
    static func decode(_ p: UnsafePointer<UInt8>, _ i: Int, _ b0: UInt8) -> (UInt32, Int) {
        if b0 < 0xE0 { return (UInt32(b0 & 0x1F) << 6 | UInt32(p[i + 1] & 0x3F), 2) }
        if b0 < 0xF0 { return (UInt32(b0 & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F), 3) }
        return (UInt32(b0 & 0x07) << 18 | UInt32(p[i + 1] & 0x3F) << 12 | UInt32(p[i + 2] & 0x3F) << 6 | UInt32(p[i + 3] & 0x3F), 4)
    }

    /// Version of the tokenizer rules, written to meta.json; bump when tokens change.
    public static let version = 1
    /// Word runs longer than this (in code points, underscores included) are not indexed.
    public static let maxWordLength = 64
    /// Identifiers with more parts than this only index the whole word and the parts.
    static let maxPartsForSpans = 8
    /// Longest concatenation of adjacent parts that is indexed.
    static let maxSpanParts = 3

    /// All index tokens of `text`, in order (a word's tokens in the order whole, parts, spans).
    public static func tokens(_ text: String) -> [String] {
        var out: [String] = []
        analyze(text, startPosition: 0) { token, _ in out.append(String(decoding: token, as: UTF8.self)) }
        return out
    }

    /// The terms a query looks up, one per position: the whole word for a word run, the bigrams
    /// (or the single character) for a CJK run. Every one of them is also an index token.
    public static func queryTerms(_ text: String) -> [String] {
        var out: [String] = []
        var normalized = normalize(text)
        normalized.withUTF8 { buffer in
            _ = scan(buffer, startPosition: 0, wholeWordsOnly: true) { token, _ in
                out.append(String(decoding: token, as: UTF8.self))
            }
        }
        return out
    }

    /// NFKC. Computed as NFKD followed by canonical composition because Foundation's
    /// `precomposedStringWithCompatibilityMapping` on Linux leaves sequences that come from
    /// compatibility mappings uncomposed (`ﾃﾞ` → `テ` U+3099 instead of `デ`). Lines made only of
    /// characters that NFKC leaves alone (ASCII, kana, CJK ideographs, `、。「」`) are not converted.
    public static func normalize(_ text: String) -> String {
        var text = text
        return text.withUTF8 { buffer -> String in
            guard let bytes = buffer.baseAddress else { return "" }
            // Only the runs of characters NFKC may change go through Foundation, each with the
            // character before it (a base a combining mark may join). A run ends before a
            // character of the stable set or ASCII: such a character is a starter that nothing
            // before it composes with, so normalizing the pieces apart gives the same text as
            // normalizing the whole (a test checks this against whole-text NFKC).
            var out: [UInt8]? = nil
            var cleanStart = 0
            var previousStart = -1
            var i = 0
            let n = buffer.count
            @inline(__always) func character(at i: Int) -> (cp: UInt32, length: Int) {
                let b0 = bytes[i]
                if b0 < 0x80 { return (UInt32(b0), 1) }
                if b0 < 0xE0 { return (UInt32(b0 & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F), 2) }
                if b0 < 0xF0 { return (UInt32(b0 & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F), 3) }
                return (UInt32(b0 & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12 | UInt32(bytes[i + 2] & 0x3F) << 6 | UInt32(bytes[i + 3] & 0x3F), 4)
            }
            while i < n {
                if bytes[i] < 0x80 {
                    previousStart = i
                    i += 1
                    continue
                }
                let (cp, length) = character(at: i)
                if isNFKCStable(cp) {
                    previousStart = i
                    i += length
                    continue
                }
                let runStart = previousStart >= cleanStart ? previousStart : i
                var end = i + length
                while end < n {
                    if bytes[end] < 0x80 { break }
                    let (next, nextLength) = character(at: end)
                    if isNFKCStable(next) { break }
                    end += nextLength
                }
                if out == nil { out = []; out!.reserveCapacity(n + 16) }
                out!.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[cleanStart..<runStart]))
                let run = String(decoding: UnsafeBufferPointer(rebasing: buffer[runStart..<end]), as: UTF8.self)
                out!.append(contentsOf: run.decomposedStringWithCompatibilityMapping.precomposedStringWithCanonicalMapping.utf8)
                cleanStart = end
                previousStart = -1
                i = end
            }
            guard var bytesOut = out else { return String(decoding: buffer, as: UTF8.self) }
            bytesOut.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[cleanStart..<n]))
            return String(decoding: bytesOut, as: UTF8.self)
        }
    }

    /// Characters that NFKC maps to themselves and that never combine with what follows.
    static func isNFKCStable(_ cp: UInt32) -> Bool {
        if cp >= 0x4E00 && cp <= 0x9FFF { return true }
        if cp >= 0x3041 && cp <= 0x3096 { return true }
        if cp >= 0x30A1 && cp <= 0x30FE { return true }
        if cp == 0x3001 || cp == 0x3002 || cp == 0x309D || cp == 0x309E { return true }
        return (cp >= 0x3005 && cp <= 0x3007) || (cp >= 0x300C && cp <= 0x300F)
    }

    /// A tag as it is matched by `tag:` filters: NFKC, lowercased, inner whitespace collapsed.
    public static func normalizeTag(_ tag: String) -> String {
        let lowered = lowercase(normalize(tag))
        return lowered.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    // MARK: - The scanner

    /// Calls `emit(tokenUTF8, position)` for every token of `text` (normalized here); returns the
    /// position after the last token. A word run takes one position (all its tokens share it), a
    /// CJK run of n > 1 characters takes n − 1 positions (one per bigram), a one-character run one.
    /// The buffer passed to `emit` is only valid during the call.
    @discardableResult
    static func analyze(_ text: String, startPosition: Int, emit: (UnsafeBufferPointer<UInt8>, Int) -> Void) -> Int {
        var normalized = normalize(text)
        return normalized.withUTF8 { scan($0, startPosition: startPosition, wholeWordsOnly: false, emit: emit) }
    }

    static func scan(_ buffer: UnsafeBufferPointer<UInt8>, startPosition: Int, wholeWordsOnly: Bool,
                     emit: (UnsafeBufferPointer<UInt8>, Int) -> Void) -> Int {
        guard let p = buffer.baseAddress else { return startPosition }
        var position = startPosition
        let n = buffer.count
        var i = 0
        // Current run: 0 none, 1 CJK, 2 word.
        var kind = 0
        var runStart = 0
        var cjkCount = 0
        var previousCharStart = 0
        var wordNonASCII = false
        var wordUpperOrUnderscore = false

        func finishRun(at end: Int) {
            if kind == 1 {
                if cjkCount == 1 {
                    emit(UnsafeBufferPointer(start: p + runStart, count: end - runStart), position)
                    position += 1
                }
            } else if kind == 2 {
                let word = UnsafeBufferPointer(start: p + runStart, count: end - runStart)
                if !wordNonASCII && !wordUpperOrUnderscore {
                    if word.count <= maxWordLength {
                        emit(word, position)
                        position += 1
                    }
                } else if wordNonASCII {
                    if emitWord(word, wholeOnly: wholeWordsOnly, position: position, emit) { position += 1 }
                } else if emitASCIIIdentifier(word, wholeOnly: wholeWordsOnly, position: position, emit) {
                    position += 1
                }
            }
            kind = 0
        }

        while i < n {
            let b0 = p[i]
            var cp: UInt32
            var length: Int
            var k: Int
            if b0 < 0x80 {
                length = 1
                cp = UInt32(b0)
                if (b0 >= 0x61 && b0 <= 0x7A) || (b0 >= 0x30 && b0 <= 0x39) {
                    k = 2
                } else if (b0 >= 0x41 && b0 <= 0x5A) || b0 == 0x5F {
                    k = 2
                    if kind == 2 { wordUpperOrUnderscore = true }
                } else {
                    k = 0
                }
            } else {
                (cp, length) = SearchTokenizer.decode(p, i, b0)
                k = isCJK(cp) ? 1 : (isWordLetter(cp) ? 2 : 0)
            }
            if k != kind {
                finishRun(at: i)
                kind = k
                runStart = i
                if k == 1 {
                    cjkCount = 0
                } else if k == 2 {
                    wordNonASCII = false
                    wordUpperOrUnderscore = (cp >= 0x41 && cp <= 0x5A) || cp == 0x5F
                }
            }
            if k == 1 {
                if cjkCount > 0 {
                    emit(UnsafeBufferPointer(start: p + previousCharStart, count: i + length - previousCharStart), position)
                    position += 1
                }
                cjkCount += 1
                previousCharStart = i
            } else if k == 2 && length > 1 {
                wordNonASCII = true
            }
            i += length
        }
        finishRun(at: n)
        return position
    }

    /// An ASCII word run with capitals or underscores: whole word, parts, spans — the same rules
    /// as `emitWord`, on bytes. Returns false when nothing was emitted.
    static func emitASCIIIdentifier(_ word: UnsafeBufferPointer<UInt8>, wholeOnly: Bool, position: Int,
                                    _ emit: (UnsafeBufferPointer<UInt8>, Int) -> Void) -> Bool {
        let n = word.count
        if n > maxWordLength { return false }
        let p = word.baseAddress!
        var lo = 0, hi = n
        while lo < hi && p[lo] == 0x5F { lo += 1 }
        while hi > lo && p[hi - 1] == 0x5F { hi -= 1 }
        if lo == hi { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2048) { scratch -> Bool in
            let out = scratch.baseAddress!
            // Lowercased copy of the run.
            var i = 0
            while i < n {
                let c = p[i]
                out[i] = (c >= 0x41 && c <= 0x5A) ? c + 0x20 : c
                i += 1
            }
            emit(UnsafeBufferPointer(start: out + lo, count: hi - lo), position)
            if wholeOnly { return true }
            // Part boundaries (start, end) pairs, at most n parts.
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * n + 256) { ints -> Bool in
                emitIdentifierSpans(p, n, lo: lo, hi: hi, out: out, parts: ints.baseAddress!) { token, length in
                    emit(UnsafeBufferPointer(start: token, count: length), position)
                }
                return true
            }
        }
    }

    /// The parts of an ASCII identifier `p` (n bytes; `_` separates, and a capital starts a part
    /// after a lowercase letter or digit, or before a lowercase letter after capitals) and every run
    /// of up to `maxSpanParts` consecutive parts, lowercased, each once: `out` holds the lowercased
    /// word in its first n bytes and room for the tokens after 2n; `[lo, hi)` of it (the word without
    /// edge underscores) counts as already emitted. `parts` holds the part bounds, then the emitted
    /// tokens' bounds.
    @inline(__always)
    static func emitIdentifierSpans(_ p: UnsafePointer<UInt8>, _ n: Int, lo: Int, hi: Int, out: UnsafeMutablePointer<UInt8>,
                                    parts: UnsafeMutablePointer<Int>, _ emit: (UnsafePointer<UInt8>, Int) -> Void) {
        var partCount = 0
        var partStart = -1
        var i = 0
        while i < n {
            let c = p[i]
            if c == 0x5F {
                if partStart >= 0 { parts[2 * partCount] = partStart; parts[2 * partCount + 1] = i; partCount += 1; partStart = -1 }
                i += 1
                continue
            }
            if partStart >= 0 {
                if c >= 0x41 && c <= 0x5A {
                    let prev = p[i - 1]
                    let prevLower = prev >= 0x61 && prev <= 0x7A
                    let prevDigit = prev >= 0x30 && prev <= 0x39
                    let prevUpper = prev >= 0x41 && prev <= 0x5A
                    let nextLower = i + 1 < n && p[i + 1] >= 0x61 && p[i + 1] <= 0x7A
                    if prevLower || prevDigit || (prevUpper && nextLower) {
                        parts[2 * partCount] = partStart; parts[2 * partCount + 1] = i; partCount += 1
                        partStart = i
                    }
                }
            } else {
                partStart = i
            }
            i += 1
        }
        if partStart >= 0 { parts[2 * partCount] = partStart; parts[2 * partCount + 1] = n; partCount += 1 }
        if partCount < 2 { return }
        // Emitted tokens, for de-duplication: stored after the lowercased copy.
        let offsets = parts + 2 * partCount  // emitted token (start, end) pairs in `out`
        offsets[0] = lo; offsets[1] = hi
        var emittedCount = 1
        var write = 2 * n
        let longest = partCount > maxPartsForSpans ? 1 : min(maxSpanParts, partCount)
        var length = 1
        while length <= longest {
            var start = 0
            while start + length <= partCount {
                let tokenStart = write
                var q = start
                while q < start + length {
                    let a = parts[2 * q], b = parts[2 * q + 1]
                    (out + write).update(from: out + a, count: b - a)
                    write += b - a
                    q += 1
                }
                let tokenLength = write - tokenStart
                var duplicate = false
                var e = 0
                while e < emittedCount {
                    let ea = offsets[2 * e], eb = offsets[2 * e + 1]
                    if eb - ea == tokenLength && memcmp(out + ea, out + tokenStart, tokenLength) == 0 { duplicate = true; break }
                    e += 1
                }
                if duplicate {
                    write = tokenStart
                } else {
                    offsets[2 * emittedCount] = tokenStart; offsets[2 * emittedCount + 1] = write
                    emittedCount += 1
                    emit(out + tokenStart, tokenLength)
                }
                start += 1
            }
            length += 1
        }
    }

    /// A word run with non-ASCII letters: whole word, parts, spans (through Unicode scalars).
    /// Returns false when nothing was emitted (then the run takes no position).
    static func emitWord(_ word: UnsafeBufferPointer<UInt8>, wholeOnly: Bool, position: Int,
                         _ emit: (UnsafeBufferPointer<UInt8>, Int) -> Void) -> Bool {
        let scalars = Array(String(decoding: word, as: UTF8.self).unicodeScalars)
        if scalars.count > maxWordLength { return false }
        var lo = 0, hi = scalars.count
        while lo < hi, scalars[lo] == "_" { lo += 1 }
        while hi > lo, scalars[hi - 1] == "_" { hi -= 1 }
        if lo == hi { return false }
        var whole = Array(lowercase(scalars[lo..<hi]).utf8)
        whole.withUnsafeBufferPointer { emit($0, position) }
        if wholeOnly { return true }
        let parts = splitParts(scalars[...])
        if parts.count < 2 { return true }
        let lowered = parts.map { Array(lowercase($0).utf8) }
        var emitted: [[UInt8]] = [whole]
        let longest = parts.count > maxPartsForSpans ? 1 : min(maxSpanParts, parts.count)
        for length in 1...longest {
            var start = 0
            while start + length <= lowered.count {
                var token: [UInt8]
                if length == 1 {
                    token = lowered[start]
                } else {
                    token = []
                    for p in start..<(start + length) { token.append(contentsOf: lowered[p]) }
                }
                if !emitted.contains(token) {
                    emitted.append(token)
                    token.withUnsafeBufferPointer { emit($0, position) }
                }
                start += 1
            }
        }
        whole.removeAll()
        return true
    }

    static func isCJK(_ v: UInt32) -> Bool {
        if v < 0x1100 { return false }
        if v >= 0x4E00 && v <= 0x9FFF { return true }              // CJK Unified Ideographs
        if v >= 0x3041 && v <= 0x309F { return true }              // Hiragana
        if v >= 0x30A1 && v <= 0x30FF { return v != 0x30FB }       // Katakana incl. ー, without ・
        if v >= 0x3005 && v <= 0x3007 { return true }              // 々 〆 〇
        if v >= 0x31F0 && v <= 0x31FF { return true }              // Katakana phonetic extensions
        if v >= 0x3400 && v <= 0x4DBF { return true }              // Extension A
        if v >= 0xF900 && v <= 0xFAFF { return true }              // Compatibility ideographs
        if v >= 0x20000 && v <= 0x3134F { return true }            // Supplementary ideographs
        if v >= 0xAC00 && v <= 0xD7A3 { return true }              // Hangul syllables
        if v <= 0x11FF { return true }                             // Hangul Jamo
        if v >= 0x3131 && v <= 0x318E { return true }              // Hangul compatibility Jamo
        if v >= 0xA960 && v <= 0xA97F { return true }              // Hangul Jamo Extended-A
        return v >= 0xD7B0 && v <= 0xD7FF                          // Hangul Jamo Extended-B
    }

    /// Non-ASCII letters that belong to word runs.
    static func isWordLetter(_ v: UInt32) -> Bool {
        if v >= 0xC0 && v <= 0x24F { return v != 0xD7 && v != 0xF7 }             // Latin-1, Extended-A/B
        if v >= 0x370 && v <= 0x3FF { return v != 0x37E && v != 0x387 && v != 0x375 }  // Greek
        if v >= 0x400 && v <= 0x4FF { return true }                                 // Cyrillic
        return v >= 0x1E00 && v <= 0x1EFF                                          // Latin Extended Additional
    }

    /// Splits an identifier at `_` and at camelCase boundaries: `aB` → a|B, `9B` → 9|B,
    /// `ABc` → A|Bc (so `UITable` → UI|Table).
    static func splitParts(_ scalars: ArraySlice<Unicode.Scalar>) -> [ArraySlice<Unicode.Scalar>] {
        var parts: [ArraySlice<Unicode.Scalar>] = []
        var partStart: Int? = nil
        var i = scalars.startIndex
        while i < scalars.endIndex {
            let c = scalars[i]
            if c == "_" {
                if let s = partStart { parts.append(scalars[s..<i]); partStart = nil }
                i += 1
                continue
            }
            if let s = partStart {
                let prev = scalars[i - 1]
                if isUpper(c) && (isLower(prev) || isDigit(prev)
                    || (isUpper(prev) && i + 1 < scalars.endIndex && isLower(scalars[i + 1]))) {
                    parts.append(scalars[s..<i])
                    partStart = i
                }
            } else {
                partStart = i
            }
            i += 1
        }
        if let s = partStart { parts.append(scalars[s..<scalars.endIndex]) }
        return parts
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }

    /// Upper case = lowercasing changes it (JS: `c.toLowerCase() !== c`).
    static func isUpper(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        if v < 0x80 { return v >= 0x41 && v <= 0x5A }
        return c.properties.changesWhenLowercased
    }

    /// Lower case = uppercasing changes it (JS: `c.toUpperCase() !== c`).
    static func isLower(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        if v < 0x80 { return v >= 0x61 && v <= 0x7A }
        return c.properties.changesWhenUppercased
    }

    static func lowercase(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return lowercase(String(view))
    }

    static func lowercase(_ text: String) -> String {
        let lowered = text.lowercased()
        if lowered.unicodeScalars.contains("\u{3C2}") {
            return String(String.UnicodeScalarView(lowered.unicodeScalars.map { $0 == "\u{3C2}" ? "\u{3C3}" : $0 }))
        }
        return lowered
    }
}
