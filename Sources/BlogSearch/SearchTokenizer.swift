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
public enum SearchTokenizer {
    /// Version of the tokenizer rules, written to meta.json; bump when tokens change.
    public static let version = 1
    /// Word runs longer than this (in code points) are not indexed.
    public static let maxWordLength = 64
    /// Identifiers with more parts than this only index the whole word and the parts.
    static let maxPartsForSpans = 8
    /// Longest concatenation of adjacent parts that is indexed.
    static let maxSpanParts = 3

    /// All index tokens of `text`, in order (a word's tokens in the order whole, parts, spans).
    public static func tokens(_ text: String) -> [String] {
        var out: [String] = []
        _ = analyze(text, startPosition: 0) { token, _ in out.append(token) }
        return out
    }

    /// The terms a query looks up, one per position: the whole word for a word run, the bigrams
    /// (or the single character) for a CJK run. Every one of them is also an index token.
    public static func queryTerms(_ text: String) -> [String] {
        var out: [String] = []
        forEachRun(normalize(text)) { run in
            switch run {
            case .cjk(let scalars):
                appendCJKTokens(scalars) { token, _ in out.append(token) }
            case .word(let scalars):
                if let whole = wholeWord(scalars) { out.append(whole) }
            }
        }
        return out
    }

    /// NFKC. Computed as NFKD followed by canonical composition because Foundation's
    /// `precomposedStringWithCompatibilityMapping` on Linux leaves decomposed sequences that
    /// come from compatibility mappings uncomposed (`ﾃﾞ` → `テ` U+3099 instead of `デ`).
    public static func normalize(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }  // ASCII is NFKC already
        return text.decomposedStringWithCompatibilityMapping.precomposedStringWithCanonicalMapping
    }

    /// A tag as it is matched by `tag:` filters: NFKC, lowercased, inner whitespace collapsed.
    public static func normalizeTag(_ tag: String) -> String {
        let lowered = lowercase(normalize(tag))
        return lowered.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    // MARK: - Internals used by the index builder

    enum Run {
        case cjk(ArraySlice<Unicode.Scalar>)
        case word(ArraySlice<Unicode.Scalar>)
    }

    /// Calls `emit(token, position)` for every token; returns the position after the last token.
    /// A word run takes one position (all its tokens share it), a CJK run of n > 1 characters takes
    /// n - 1 positions (one per bigram), a one-character CJK run takes one.
    @discardableResult
    static func analyze(_ text: String, startPosition: Int, emit: (String, Int) -> Void) -> Int {
        var position = startPosition
        forEachRun(normalize(text)) { run in
            switch run {
            case .cjk(let scalars):
                position = appendCJKTokens(scalars, at: position, emit)
            case .word(let scalars):
                if emitWordTokens(scalars, at: position, emit) { position += 1 }
            }
        }
        return position
    }

    static func forEachRun(_ normalized: String, _ body: (Run) -> Void) {
        var buffer: [Unicode.Scalar] = []
        buffer.reserveCapacity(64)
        var kind = 0  // 0 none, 1 cjk, 2 word
        for scalar in normalized.unicodeScalars {
            let value = scalar.value
            let k: Int
            if value < 0x80 {
                // ASCII fast path.
                if (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || (value >= 0x30 && value <= 0x39) || value == 0x5F {
                    k = 2
                } else {
                    k = 0
                }
            } else if isCJK(value) {
                k = 1
            } else if isWordLetter(value) {
                k = 2
            } else {
                k = 0
            }
            if k != kind {
                if kind == 1 { body(.cjk(buffer[...])) } else if kind == 2 { body(.word(buffer[...])) }
                buffer.removeAll(keepingCapacity: true)
                kind = k
            }
            if k != 0 { buffer.append(scalar) }
        }
        if kind == 1 { body(.cjk(buffer[...])) } else if kind == 2 { body(.word(buffer[...])) }
    }

    static func isCJK(_ v: UInt32) -> Bool {
        switch v {
        case 0x3005...0x3007: return true              // 々 〆 〇
        case 0x3041...0x309F: return true              // Hiragana
        case 0x30A1...0x30FA, 0x30FC...0x30FF: return true  // Katakana incl. ー, without ゠ and ・
        case 0x31F0...0x31FF: return true              // Katakana phonetic extensions
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF: return true  // Han
        case 0x20000...0x3134F: return true            // Han, supplementary planes
        case 0x1100...0x11FF, 0x3131...0x318E, 0xA960...0xA97F: return true  // Hangul Jamo
        case 0xAC00...0xD7A3, 0xD7B0...0xD7FF: return true  // Hangul syllables
        default: return false
        }
    }

    /// Non-ASCII letters that belong to word runs.
    static func isWordLetter(_ v: UInt32) -> Bool {
        switch v {
        case 0xC0...0x24F: return v != 0xD7 && v != 0xF7  // Latin-1 letters, Latin Extended-A/B
        case 0x370...0x3FF: return v != 0x37E && v != 0x387 && v != 0x375  // Greek
        case 0x400...0x4FF: return true                   // Cyrillic
        case 0x1E00...0x1EFF: return true                 // Latin Extended Additional
        default: return false
        }
    }

    @discardableResult
    static func appendCJKTokens(_ scalars: ArraySlice<Unicode.Scalar>, at start: Int = 0, _ emit: (String, Int) -> Void) -> Int {
        var position = start
        if scalars.count == 1 {
            var s = String.UnicodeScalarView()
            s.append(scalars[scalars.startIndex])
            emit(String(s), position)
            return position + 1
        }
        var i = scalars.startIndex
        while i + 1 < scalars.endIndex {
            var s = String.UnicodeScalarView()
            s.append(scalars[i])
            s.append(scalars[i + 1])
            emit(String(s), position)
            position += 1
            i += 1
        }
        return position
    }

    /// The whole word: lowercased, leading and trailing `_` removed; nil if nothing is left or the
    /// run is too long.
    static func wholeWord(_ scalars: ArraySlice<Unicode.Scalar>) -> String? {
        var lo = scalars.startIndex, hi = scalars.endIndex
        while lo < hi, scalars[lo] == "_" { lo += 1 }
        while hi > lo, scalars[hi - 1] == "_" { hi -= 1 }
        if lo == hi || scalars.count > maxWordLength { return nil }
        return lowercase(scalars[lo..<hi])
    }

    /// Emits the whole word, its parts and the concatenations of adjacent parts. Returns false when
    /// nothing was emitted (then the run takes no position).
    static func emitWordTokens(_ scalars: ArraySlice<Unicode.Scalar>, at position: Int, _ emit: (String, Int) -> Void) -> Bool {
        guard let whole = wholeWord(scalars) else { return false }
        emit(whole, position)
        let parts = splitParts(scalars)
        if parts.count < 2 { return true }
        let lowered = parts.map { lowercase($0) }
        var seen: Set<String> = [whole]
        let longest = parts.count > maxPartsForSpans ? 1 : min(maxSpanParts, parts.count)
        for length in 1...longest {
            var start = 0
            while start + length <= lowered.count {
                let token = length == 1 ? lowered[start] : lowered[start..<(start + length)].joined()
                if seen.insert(token).inserted { emit(token, position) }
                start += 1
            }
        }
        return true
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
            if let s = partStart, i > s {
                let prev = scalars[i - 1]
                var boundary = false
                if isUpper(c) {
                    if isLower(prev) || isDigit(prev) {
                        boundary = true
                    } else if isUpper(prev), i + 1 < scalars.endIndex, isLower(scalars[i + 1]) {
                        boundary = true
                    }
                }
                if boundary { parts.append(scalars[s..<i]); partStart = i }
            } else if partStart == nil {
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

    static func lowercase<S: Sequence>(_ scalars: S) -> String where S.Element == Unicode.Scalar {
        var ascii = true
        var view = String.UnicodeScalarView()
        for c in scalars {
            let v = c.value
            if v < 0x80 {
                view.append(v >= 0x41 && v <= 0x5A ? Unicode.Scalar(v + 0x20)! : c)
            } else {
                ascii = false
                view.append(c)
            }
        }
        if ascii { return String(view) }
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
