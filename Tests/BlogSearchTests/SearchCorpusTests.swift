import XCTest
import TestSupport
import Foundation
import BlogSearch

/// The 10,000-post archive: shard sizes and the bytes a query downloads.
final class SearchCorpusTests: XCTestCase {
    /// What the page fetches for a query (search.js, `plan`): meta.json, the shard of every
    /// query term, up to `prefixShardLimit` shards for the prefix of every word, and the
    /// document-store chunks of the first page of results (bounded here by 10 × the largest chunk).
    static let prefixShardLimit = 2
    static let resultsPerPage = 10

    func testTenThousandPostArchiveKeepsQueriesSmall() throws {
        let corpus = SearchCorpus()
        var clock = Date()
        let docs = (0..<10_000).map { corpus.document($0) }
        let averageSize = docs.reduce(0) { $0 + $1.body.utf8.count + $1.code.utf8.count } / docs.count
        XCTAssertGreaterThan(averageSize, 7_500)
        let generated = Date().timeIntervalSince(clock)
        clock = Date()
        let files = SearchIndexBuilder.build(docs)
        let built = Date().timeIntervalSince(clock)
        let reader = try SearchIndexReader(files)
        XCTAssertEqual(reader.docCount, 10_000)
        // meta.json carries a hash of every other file: its digest pins the whole output.
        XCTAssertEqual(SearchGoldenTests.digest([files[0]]), "3f51419d0c41c3ed/1/22949")
        XCTAssertEqual(files.count, 11209)
        XCTAssertEqual(files.reduce(0) { $0 + $1.bytes.count }, 28_652_224)

        let metaBytes = files[0].bytes.count
        let chunkSizes = files.filter { $0.path.hasPrefix("search/docs-") }.map { $0.bytes.count }
        let shardSizes = reader.shards.map { $0.bytes }
        let maxChunk = chunkSizes.max() ?? 0
        let maxShard = shardSizes.max() ?? 0
        let overTarget = try shardSizes.indices.filter { try shardSizes[$0] > 32_016 && reader.shardTerms($0).count > 1 }.count
        XCTAssertLessThan(metaBytes, 60_000, "meta.json is fetched by every search")
        XCTAssertLessThan(maxChunk, 16_000)
        // Shards are cut at 32 KB; only a single very common term may be larger on its own.
        XCTAssertEqual(overTarget, 0)
        XCTAssertLessThan(maxShard, 100_000)

        // Typical two-word queries: vocabulary words drawn by frequency, as people type them.
        var rng = SplitMix64(seed: 7)
        var costs: [(query: String, bytes: Int)] = []
        for q in 0..<300 {
            func word() -> String {
                switch rng.below(4) {
                case 0: return SearchCorpus.english[rng.zipf(SearchCorpus.english.count)]
                case 1: return corpus.identifiers[rng.zipf(corpus.identifiers.count)]
                default: return corpus.japaneseWords[rng.zipf(corpus.japaneseWords.count)]
                }
            }
            let query = q % 10 == 0 ? "SwiftUI 通知" : "\(word()) \(word())"
            costs.append((query, try queryBytes(query, reader: reader, metaBytes: metaBytes, maxChunk: maxChunk)))
        }
        let sorted = costs.map(\.bytes).sorted()
        let worst = costs.max { $0.bytes < $1.bytes }!
        print("""
        search corpus: \(docs.count) posts, avg \(averageSize) B text, generated in \(String(format: "%.1f", generated)) s, \
        indexed in \(String(format: "%.1f", built)) s; \(files.count) files, \(files.reduce(0) { $0 + $1.bytes.count }) B; \
        meta \(metaBytes) B, \(shardSizes.count) shards (max \(maxShard) B), \(chunkSizes.count) doc chunks (max \(maxChunk) B); \
        two-word query bytes: median \(sorted[sorted.count / 2]), p90 \(sorted[sorted.count * 9 / 10]), \
        max \(worst.bytes) (\(worst.query))
        """)
        XCTAssertLessThanOrEqual(worst.bytes, 300_000, "worst query: \(worst.query)")
        // The budget of issue 41: a typical cold query stays within 120 KB.
        XCTAssertLessThanOrEqual(sorted[sorted.count / 2], 120_000, "median two-word query")
    }

    func queryBytes(_ query: String, reader: SearchIndexReader, metaBytes: Int, maxChunk: Int) throws -> Int {
        let terms = SearchCorpusTests.lookupTerms(query)
        var shards = Set<Int>()
        for term in terms {
            if let s = reader.shardIndex(for: term) { shards.insert(s) }
        }
        // Every word (not CJK bigrams) is also looked up as a prefix.
        for term in terms where term.count >= 2 && !term.unicodeScalars.contains(where: { $0.value >= 0x1100 }) {
            guard let first = reader.shardIndex(for: term) else { continue }
            let end = reader.shardIndex(for: term + "\u{FFFF}") ?? first
            for s in first...min(end, first + SearchCorpusTests.prefixShardLimit - 1) { shards.insert(s) }
        }
        return metaBytes + shards.reduce(0) { $0 + reader.shards[$1].bytes } + SearchCorpusTests.resultsPerPage * maxChunk
    }

    /// The terms search.js looks up: whole words, and for each CJK run a cover of its bigrams
    /// (every other bigram plus the last one, so every character is still matched).
    static func lookupTerms(_ query: String) -> [String] {
        var out: [String] = []
        for word in query.split(separator: " ") {
            let terms = SearchTokenizer.queryTerms(String(word))
            let scalars = Array(String(word).unicodeScalars)
            if terms.count > 2, terms.count == scalars.count - 1 {
                for (i, term) in terms.enumerated() where i % 2 == 0 || i == terms.count - 1 { out.append(term) }
            } else {
                out.append(contentsOf: terms)
            }
        }
        return out
    }
}
