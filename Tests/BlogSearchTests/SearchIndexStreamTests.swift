import Dispatch
import XCTest
import TestSupport
@testable import BlogSearch

/// `SearchIndexStream` (`blog build`'s index, made while the posts are): whatever order and
/// batches the documents come in, its files are byte for byte those of a full build.
final class SearchIndexStreamTests: XCTestCase {
    static let options = SearchIndexBuilder.Options(shardTargetBytes: 400, docsPerChunk: 4)

    func full(_ docs: [SearchDocument], partitions: Int?) -> [(path: String, bytes: [UInt8])] {
        var options = Self.options
        options.partitions = partitions
        return SearchIndexBuilder.build(analyzed: docs.map { SearchIndexBuilder.analyze($0) }, options: options)
    }

    /// The documents as far as their place in the index goes.
    func places(_ docs: [SearchDocument]) -> [SearchDocument] {
        docs.map { SearchDocument(id: $0.id, title: $0.title, url: $0.url, date: $0.date, tags: [], headings: [], body: "", code: "", summary: "") }
    }

    /// Streams `docs` in `batches` (ranges of input indices, in the order given), postings queued
    /// in runs of `run`; returns the files and the terms the analyses still hold.
    func stream(_ docs: [SearchDocument], batches: [Range<Int>], partitions: Int?, run: Int = 4) -> [(path: String, bytes: [UInt8])] {
        var options = Self.options
        options.partitions = partitions
        let stream = SearchIndexStream(places: places(docs), options: options, run: run)
        for batch in batches { stream.add(Array(docs[batch]), at: batch) }
        return stream.finish()
    }

    /// Documents that come in the index's own order, in batches: their postings go in as soon as
    /// a run is complete.
    func testDocumentsInIndexOrderMakeTheSameFiles() {
        let corpus = SearchGoldenTests.corpus()
        let docs = SearchIndexBuilder.order(corpus.map { SearchIndexBuilder.analyze($0) }).map { corpus[$0] }
        XCTAssertGreaterThan(docs.count, 30)
        for partitions in [1, 2, 3] {
            let expected = full(docs, partitions: partitions)
            XCTAssertGreaterThan(expected.filter { $0.path.hasPrefix("search/shards/") }.count, 10)
            var batches: [Range<Int>] = []
            var start = 0
            while start < docs.count {
                let end = min(docs.count, start + 1 + start % 7)
                batches.append(start..<end)
                start = end
            }
            for run in [1, 5, 1000] {
                assertSame(stream(docs, batches: batches, partitions: partitions, run: run), expected, "\(partitions) partitions, runs of \(run)")
            }
        }
    }

    /// Documents out of the index order (the corpus's dates are not sorted), their batches in
    /// shuffled order: the same files as a full build.
    func testDocumentsInAnyOrderMakeTheSameFiles() {
        let docs = SearchGoldenTests.corpus()
        let expected = full(docs, partitions: 2)
        var rng = SplitMix64(seed: 11)
        for round in 0..<4 {
            var batches: [Range<Int>] = []
            var start = 0
            while start < docs.count {
                let end = min(docs.count, start + 1 + rng.below(9))
                batches.append(start..<end)
                start = end
            }
            if round > 0 { batches.shuffle(using: &rng) }
            assertSame(stream(docs, batches: batches, partitions: 2), expected, "round \(round)")
        }
    }

    func testNoDocumentsMakeAnEmptyIndex() {
        let files = stream([], batches: [], partitions: nil)
        assertSame(files, full([], partitions: nil), "no documents")
        XCTAssertEqual(files.first?.path, "search/meta.json")
    }
}
