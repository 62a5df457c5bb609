/// Typo tolerance: which index term a misspelt query word most likely meant. The search page
/// decides the same way (themes/default/assets/js/search-typo.js; `SearchTestVectors` checks both).
/// Rules (docs/search-index.md, "Typo tolerance"): only words of 5 or more characters, 1 edit
/// (2 from 9 characters), Latin/Greek/Cyrillic word characters only (never CJK), the first two
/// characters and every digit kept.
public enum SearchTypo {
    /// Words shorter than this are never corrected.
    public static let minLength = 5
    /// Words this long or longer may take two edits.
    public static let longLength = 9

    /// Edits allowed for a query word of `length` characters: 0 (too short), 1, or 2.
    public static func maxEdits(length: Int) -> Int {
        length < minLength ? 0 : (length < longLength ? 1 : 2)
    }

    /// Optimal string alignment distance (insert, delete, substitute, swap two neighbours) of two
    /// lists of characters, or `limit + 1` as soon as it must exceed `limit`.
    public static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        let n = a.count, m = b.count
        if abs(n - m) > limit { return limit + 1 }
        var before: [Int] = []
        var previous = Array(0...m)
        for i in 1...max(1, n) where n > 0 {
            var current = [i]
            current.reserveCapacity(m + 1)
            var best = i
            for j in stride(from: 1, through: m, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if !before.isEmpty && i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d = min(d, before[j - 2] + 1)
                }
                current.append(d)
                best = min(best, d)
            }
            if best > limit { return limit + 1 }
            before = previous
            previous = current
        }
        return previous[m] <= limit ? previous[m] : limit + 1
    }

    /// The edits from query word `word` (a lowercased query term) to index term `term` when `term`
    /// may stand in for it, else nil. Keeping the first two characters keeps namespace prefixes
    /// (`NSTableView` is no misspelt `UITableView`); keeping digits keeps versions (`iOS18` is no `iOS17`).
    public static func edits(from word: String, to term: String) -> Int? {
        let w = Array(word.unicodeScalars), t = Array(term.unicodeScalars)
        let limit = maxEdits(length: w.count)
        guard limit > 0, t.count >= 2, term != word, w.allSatisfy(isWordCharacter), t.allSatisfy(isWordCharacter),
              w[0] == t[0], w[1] == t[1], digits(w) == digits(t) else { return nil }
        let d = distance(w, t, limit: limit)
        return d <= limit ? d : nil
    }

    /// A candidate index term and the number of documents holding it.
    public struct Candidate: Equatable, Sendable {
        public var term: String
        public var documents: Int
        public init(term: String, documents: Int) { self.term = term; self.documents = documents }
    }

    /// The best stand-in for `word` among `candidates`: fewest edits, then most documents, then
    /// the first in UTF-16 order (JavaScript's `<`); nil when none qualifies.
    public static func best(for word: String, among candidates: [Candidate]) -> (candidate: Candidate, edits: Int)? {
        var chosen: (candidate: Candidate, edits: Int)?
        for c in candidates {
            guard let d = edits(from: word, to: c.term) else { continue }
            if let current = chosen {
                let better = d < current.edits || (d == current.edits && (c.documents > current.candidate.documents ||
                    (c.documents == current.candidate.documents && c.term.utf16.lexicographicallyPrecedes(current.candidate.term.utf16))))
                if !better { continue }
            }
            chosen = (c, d)
        }
        return chosen
    }

    /// `term` written with the letter case of `original` (the word as typed): characters that line
    /// up take the typed case; an inserted letter is upper case only between two upper-case letters.
    public static func recase(_ original: String, as term: String) -> String {
        let o = original.map { String($0) }
        let lo = original.lowercased().map { String($0) }
        let t = term.map { String($0) }
        guard lo.count == o.count else { return term }
        let n = lo.count, m = t.count
        var table = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n {
            for j in 0...m {
                if i == 0 || j == 0 { table[i][j] = i + j; continue }
                let cost = lo[i - 1] == t[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
            }
        }
        func upper(_ k: Int) -> Bool { k >= 0 && k < n && o[k] != lo[k] }
        var out: [String] = []
        var i = n, j = m
        while j > 0 {
            if i > 0 && table[i][j] == table[i - 1][j - 1] + (lo[i - 1] == t[j - 1] ? 0 : 1) {
                out.append(upper(i - 1) ? t[j - 1].uppercased() : t[j - 1])
                i -= 1; j -= 1
            } else if i > 0 && table[i][j] == table[i - 1][j] + 1 {
                i -= 1
            } else {
                out.append(upper(i - 1) && upper(i) ? t[j - 1].uppercased() : t[j - 1])
                j -= 1
            }
        }
        return out.reversed().joined()
    }

    static func digits(_ s: [Unicode.Scalar]) -> [Unicode.Scalar] { s.filter { $0.value >= 0x30 && $0.value <= 0x39 } }

    /// Lowercase word characters as the tokenizer leaves them (ASCII, Latin, Greek, Cyrillic).
    static func isWordCharacter(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        if v < 0x80 { return (v >= 0x61 && v <= 0x7A) || (v >= 0x30 && v <= 0x39) || v == 0x5F }
        return (v >= 0xC0 && v <= 0x24F) || (v >= 0x370 && v <= 0x4FF) || (v >= 0x1E00 && v <= 0x1EFF)
    }
}
