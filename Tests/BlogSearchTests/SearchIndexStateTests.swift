import XCTest
import TestSupport
import BlogSearch

/// Fails unless `a` and `b` are the same index files (paths, order and bytes), naming the first
/// file that differs.
func assertSame(_ a: [(path: String, bytes: [UInt8])], _ b: [(path: String, bytes: [UInt8])], _ message: String,
                file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.map(\.path), b.map(\.path), message, file: file, line: line)
    for (x, y) in zip(a, b) where x.bytes != y.bytes {
        XCTFail("\(message): \(x.path) differs", file: file, line: line)
        return
    }
}

/// `SearchIndexState` (the index `blog serve` keeps between rebuilds): after any sequence of
/// changes its files are byte for byte those of a full build of the same documents.
final class SearchIndexStateTests: XCTestCase {
    static let options = SearchIndexBuilder.Options(shardTargetBytes: 400, docsPerChunk: 4)

    func full(_ docs: [SearchDocument], partitions: Int? = nil) -> [(path: String, bytes: [UInt8])] {
        var options = Self.options
        options.partitions = partitions
        return SearchIndexBuilder.build(analyzed: docs.map { SearchIndexBuilder.analyze($0) }, options: options)
    }

    func testOutputDoesNotDependOnPartitions() {
        let docs = SearchGoldenTests.corpus()
        let one = full(docs, partitions: 1)
        XCTAssertGreaterThan(one.filter { $0.path.hasPrefix("search/shards/") }.count, 10)
        for p in [2, 3, 7] { assertSame(full(docs, partitions: p), one, "\(p) partitions") }
    }

    /// `blog build`'s state: the same files, and the analyses' terms let go once it has them.
    func testStateReleasingAnalysesWritesTheSameFilesAndLetsTheTermsGo() {
        let docs = SearchGoldenTests.corpus()
        let analyzed = docs.map { SearchIndexBuilder.analyze($0) }
        let terms = analyzed.reduce(0) { $0 + $1.termCount }
        XCTAssertGreaterThan(terms, 100)
        for partitions in [1, 3] {
            var options = Self.options
            options.partitions = partitions
            let fresh = docs.map { SearchIndexBuilder.analyze($0) }
            let files = SearchIndexState(options: options, releasingAnalyses: true).update(fresh)
            assertSame(files, full(docs, partitions: partitions), "\(partitions) partitions")
            XCTAssertEqual(fresh.reduce(0) { $0 + $1.termCount }, 0, "terms left after the update")
        }
        // The default state keeps them (blog serve patches the index with them later).
        _ = SearchIndexState(options: Self.options).update(analyzed)
        XCTAssertEqual(analyzed.reduce(0) { $0 + $1.termCount }, terms)
    }

    func testIncrementalUpdatesMatchFullBuilds() {
        var docs = SearchGoldenTests.corpus()
        var analyzed = docs.map { SearchIndexBuilder.analyze($0) }
        let state = SearchIndexState(options: Self.options)
        assertSame(state.update(analyzed), full(docs), "first build")
        XCTAssertFalse(state.lastUpdateWasIncremental)
        var rng = SplitMix64(seed: 7)
        let words = ["追記", "ベンチマーク", "tableView", "NewIdentifierName", "の", "編集", "ｶﾀｶﾅ", "Swift", "zzzz\(rng.below(9))",
                     "東京都庁", "aaa", "#", "\"quoted\"", "🍣", "ﬁ"]
        func phrase() -> String { (0..<(1 + rng.below(6))).map { _ in words[rng.below(words.count)] }.joined(separator: " ") }
        for round in 0..<40 {
            let count = 1 + rng.below(3)
            var what: [String] = []
            for _ in 0..<count {
                let i = rng.below(docs.count)
                switch rng.below(7) {
                case 0: docs[i].body += "\n" + phrase(); what.append("append \(i)")
                case 1:
                    let body = docs[i].body
                    let cut = body.index(body.startIndex, offsetBy: rng.below(body.count + 1))
                    docs[i].body = String(body[..<cut]) + phrase() + String(body[cut...]); what.append("insert \(i)")
                case 2: docs[i].body = ""; docs[i].code = ""; what.append("empty \(i)")
                case 3: docs[i].tags = [phrase()]; what.append("tags \(i)")
                case 4: docs[i].headings.append(phrase()); what.append("heading \(i)")
                case 5: docs[i].summary = phrase(); what.append("summary \(i)")
                default: docs[i].code += " unique\(round)Word" + phrase(); what.append("code \(i)")
                }
                analyzed[i] = SearchIndexBuilder.analyze(docs[i])
            }
            let files = state.update(analyzed)
            XCTAssertTrue(state.lastUpdateWasIncremental, "round \(round)")
            assertSame(files, full(docs), "round \(round): \(what)")
            XCTAssertLessThan(state.lastRewrittenShards, files.count)
        }
        // Nothing changed: nothing rewritten, same bytes.
        let again = state.update(analyzed)
        XCTAssertEqual(state.lastRewrittenShards, 0)
        assertSame(again, full(docs), "unchanged")
        // A new document (ids move): a full build, and patching works again after it.
        let added = SearchDocument(id: "new", title: "新しい記事 NewPost", url: "/new/", date: "2031-01-01", tags: ["Swift"],
                                   headings: [], body: "本文 tableView", code: "", summary: "s")
        docs.append(added)
        analyzed.append(SearchIndexBuilder.analyze(added))
        assertSame(state.update(analyzed), full(docs), "added")
        XCTAssertFalse(state.lastUpdateWasIncremental)
        docs[0].body += " 追記 after add"
        analyzed[0] = SearchIndexBuilder.analyze(docs[0])
        assertSame(state.update(analyzed), full(docs), "edit after add")
        XCTAssertTrue(state.lastUpdateWasIncremental)
        // Removing a document.
        docs.remove(at: 3)
        analyzed.remove(at: 3)
        assertSame(state.update(analyzed), full(docs), "removed")
    }

    func testAppendingToOnePostRewritesFewShards() {
        let generated = SearchCorpus()
        var docs = (0..<300).map { generated.document($0, targetBytes: 1500) }
        var analyzed = docs.map { SearchIndexBuilder.analyze($0) }
        let options = SearchIndexBuilder.Options(shardTargetBytes: 4000, docsPerChunk: 16)
        let state = SearchIndexState(options: options)
        let first = state.update(analyzed)
        let shardCount = first.filter { $0.path.hasPrefix("search/shards/") }.count
        docs[150].body += "\n追記 1: ベンチマークの編集です。"
        analyzed[150] = SearchIndexBuilder.analyze(docs[150])
        let second = state.update(analyzed)
        XCTAssertTrue(state.lastUpdateWasIncremental)
        XCTAssertEqual(second.map(\.bytes), SearchIndexBuilder.build(analyzed: analyzed, options: options).map(\.bytes))
        XCTAssertGreaterThan(shardCount, 40)
        XCTAssertLessThanOrEqual(state.lastRewrittenShards, 20, "of \(shardCount)")
        XCTAssertGreaterThan(state.lastRewrittenShards, 0)
    }
}
