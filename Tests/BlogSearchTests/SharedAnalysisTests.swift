import Dispatch
import Synchronization
import XCTest
import BlogSearch

/// `SharedAnalysis`: threads that join at different times (as `blog build`'s beside thread and the
/// render's threads do) give `analyzeAll`'s results, in index order, and stop when cancelled.
final class SharedAnalysisTests: XCTestCase {
    func testThreadsJoiningAtDifferentTimesGiveAnalyzeAllsResults() {
        var docs = SearchGoldenTests.corpus()
        // More documents than one batch per thread, so that the threads share them out.
        docs += SearchGoldenTests.corpus().map { doc in
            var copy = doc
            copy.id += "-again"
            copy.url += "again/"
            return copy
        }
        let expected = SearchIndexBuilder.build(analyzed: SearchIndexBuilder.analyzeAll(docs)).map(\.bytes)
        let frozen = docs
        for early in [0, 1, 3] {
            for workers in [1, 2] {
                let analysis = SharedAnalysis(count: frozen.count) { frozen[$0] }
                let group = DispatchGroup()
                for _ in 0..<early { DispatchQueue.global().async(group: group) { analysis.work() } }
                let results = analysis.finish(workers: workers)
                group.wait()
                XCTAssertEqual(results.map(\.document), docs, "\(early) early threads, \(workers) at the end: in index order")
                XCTAssertEqual(SearchIndexBuilder.build(analyzed: results).map(\.bytes), expected,
                               "\(early) early threads, \(workers) at the end")
                // Work after the end finds nothing left and returns.
                analysis.work()
            }
        }
    }

    func testResultsWithoutTheirTextsMakeTheSameIndex() {
        let docs = SearchGoldenTests.corpus()
        let analysis = SharedAnalysis(count: docs.count, keepsText: false) { docs[$0] }
        let results = analysis.finish(workers: 2)
        XCTAssertTrue(results.allSatisfy { $0.document.body.isEmpty && $0.document.code.isEmpty && $0.document.headings.isEmpty })
        XCTAssertEqual(results.map(\.document.id), docs.map(\.id))
        XCTAssertEqual(results.map(\.document.summary), docs.map(\.summary))
        XCTAssertEqual(SearchIndexBuilder.build(analyzed: results).map(\.bytes), SearchIndexBuilder.build(docs).map(\.bytes))
    }

    func testNoDocumentsFinishAtOnce() {
        let analysis = SharedAnalysis(count: 0) { _ in fatalError("no document to make") }
        analysis.work()
        XCTAssertEqual(analysis.finish(workers: 2).count, 0)
    }

    func testCancelStopsHandingOutDocuments() {
        let docs = SearchGoldenTests.corpus()
        let made = Atomic<Int>(0)
        let analysis = SharedAnalysis(count: docs.count) { index in
            made.add(1, ordering: .relaxed)
            return docs[index]
        }
        analysis.cancel()
        analysis.work()
        XCTAssertEqual(made.load(ordering: .relaxed), 0, "no document is made after cancel")
    }
}
