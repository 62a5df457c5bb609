import Foundation

/// How the search page ranks a query's matches (docs/search-index.md, "Scoring"); search.js
/// computes the same numbers (`SearchTestVectors` checks both), and the search bench uses this to
/// pick the results whose document files a query fetches.
public struct SearchScoring: Sendable {
    public var weights: [Double]
    public var k1: Double
    public var b: Double
    /// Mean body + code length in positions (meta.json `avgText`).
    public var avgText: Double

    /// A match of a prefix expansion counts this much of an exact one.
    public static let prefixFactor = 0.85
    /// A match of a typo correction counts this much of an exact one (below any prefix match).
    public static let fuzzyFactor = 0.7
    /// Score × (1 + this × adjacent pairs / pairs) for lookups that can be adjacent.
    public static let phraseBonus = 0.6

    public init(weights: [Double] = SearchIndexBuilder.fieldWeights, k1: Double = SearchIndexBuilder.k1,
                b: Double = SearchIndexBuilder.b, avgText: Double) {
        self.weights = weights
        self.k1 = k1
        self.b = b
        self.avgText = max(avgText, 1)
    }

    /// ln(1 + (N − df + 0.5)/(df + 0.5)).
    public static func idf(documents: Int, containing df: Int) -> Double {
        log(1 + (Double(documents) - Double(df) + 0.5) / (Double(df) + 0.5))
    }

    /// One term in one document: BM25F over the fields in `value` (a posting's value: field mask in
    /// bits 0–4, body + code occurrences − 1 above). It stays below `titleBonus(idf:)`.
    public func termScore(value: Int, textLength: Double, idf: Double) -> Double {
        let mask = value & 31
        var wtf = 0.0
        for field in 0..<3 where mask & (1 << field) != 0 { wtf += weights[field] }
        if mask & 24 != 0 {
            let tf = Double(value >> 5 + 1)
            let weight = mask & 8 != 0 ? weights[3] : weights[4]
            wtf += weight * tf / (1 - b + b * textLength / avgText)
        }
        return idf * wtf * (k1 + 1) / (wtf + k1)
    }

    /// Added for a term of a query word that is in the title as a whole (every bigram lookup of a
    /// CJK run): idf · (k1 + 1), more than `termScore` ever reaches, so a word in the title
    /// outscores the same word anywhere else, however often it occurs there.
    public func titleBonus(idf: Double) -> Double { idf * (k1 + 1) }

    /// A document that matched every lookup of a query.
    public struct Match: Equatable, Sendable {
        public var doc: Int
        public var score: Double
        /// Whether its title holds every term the query looked up (filters aside).
        public var titleHasAll: Bool
        public init(doc: Int, score: Double, titleHasAll: Bool) { self.doc = doc; self.score = score; self.titleHasAll = titleHasAll }
    }

    /// Result order: documents whose title holds every query term first, then higher scores, then
    /// newer documents (lower ids).
    public static func precedes(_ x: Match, _ y: Match) -> Bool {
        if x.titleHasAll != y.titleHasAll { return x.titleHasAll }
        if x.score != y.score { return x.score > y.score }
        return x.doc < y.doc
    }

    /// Each lookup's share of its query word: 1 for a word, 1/n for each of the n bigram lookups
    /// that cover a CJK run, so a query that mixes scripts weighs each word alike.
    public static func shares(lookupsPerWord: [Int]) -> [Double] {
        lookupsPerWord.flatMap { n in [Double](repeating: 1 / Double(max(n, 1)), count: n) }
    }
}
