import Foundation
import Synchronization
import BlogCore

/// The search index of a one-shot build (`blog build`), made while the documents are: each batch
/// of documents handed to `add` is analysed on another thread, and the postings of the analyses
/// are added as soon as every document before them in the index order has come, on one serial
/// queue per term partition. So no document's text or analysis is held until the end, as
/// `SearchIndexState.update` needs them all at once, which for a large archive is a lot of
/// fresh memory.
///
/// `finish()` gives the same files as `SearchIndexBuilder.build(analyzed:options:)` of the same
/// documents. Documents may come in any order; one that comes before some document earlier in the
/// index order is held until that one has come.
public final class SearchIndexStream: @unchecked Sendable {
    private let state: SearchIndexState
    /// Per input index: the document's place keys (date, id, url, title) as given to `init`.
    private let places: [SearchDocument]
    /// Per input index: its document's number in the index order.
    private let rank: [Int32]
    /// Postings are queued in runs of at least this many documents (or what is left): a
    /// partition's tables are cold again after the work between two runs.
    private let run: Int
    private let lock = Mutex(())
    /// Every analysis that has come, by document number (their terms let go once their postings
    /// are in).
    private var ordered: [AnalyzedDocument?]
    /// Documents whose postings are queued: 0 ..< next; that have come, every one: 0 ..< ready.
    private var next = 0
    private var ready = 0
    private var added = 0
    private let parts: [TermPartition]
    /// One lane per partition, and the analyses running beside the caller.
    private let lanes: [WorkShare.Lane]
    private let analyses = WorkShare.Jobs()
    private let analyzers = AnalyzerPool()

    /// `places[i]`: input `i`'s document as far as its place in the index goes (date, id, url
    /// and title; the rest is not read). Every input must then be added once with those keys.
    public init(places: [SearchDocument], options: SearchIndexBuilder.Options = .init(), run: Int = 512) {
        state = SearchIndexState(options: options, releasingAnalyses: true)
        self.places = places
        self.run = max(1, run)
        var rank = [Int32](repeating: 0, count: places.count)
        for (number, input) in places.indices.sorted(by: { SearchIndexBuilder.precedes(places[$0], places[$1]) }).enumerated() {
            rank[input] = Int32(number)
        }
        self.rank = rank
        ordered = [AnalyzedDocument?](repeating: nil, count: places.count)
        parts = (0..<state.partitionCount).map { _ in TermPartition() }
        lanes = (0..<state.partitionCount).map { WorkShare.Lane("blog.search.partition\($0)") }
    }

    deinit {
        analyzers.free()
    }

    /// Inputs `indices` (`documents[k]` is input `indices.lowerBound + k`), each input once, from
    /// one thread at a time. They are analysed on another thread, one after the other (the
    /// analyser's tables stay in the caches), while the caller goes on.
    public func add(_ documents: [SearchDocument], at indices: Range<Int>) {
        precondition(documents.count == indices.count, "one document per input")
        added += documents.count
        precondition(added <= places.count, "more inputs than places")
        analyses.async { [self] in
            var analyzer = analyzers.take()
            let analyzed = documents.map { analyzer.analyze($0).withoutText() }
            analyzers.put(analyzer)
            arrive(analyzed, at: indices)
        }
    }

    /// Files the analyses of inputs `indices` by document number and queues the postings of the
    /// documents that every earlier one has come before.
    private func arrive(_ analyzed: [AnalyzedDocument], at indices: Range<Int>) {
        lock.withLock { _ in
            for (a, input) in zip(analyzed, indices) {
                precondition(SearchIndexBuilder.samePlace(a.document, places[input]), "input \(input) came with other place keys than it was given")
                let number = Int(rank[input])
                precondition(ordered[number] == nil, "input \(input) added twice")
                ordered[number] = a
            }
            while ready < ordered.count, ordered[ready] != nil { ready += 1 }
            if ready - next >= run || ready == ordered.count { queuePostings() }
        }
    }

    /// Queues the postings of documents next ..< ready (under `lock`).
    private func queuePostings() {
        guard ready > next else { return }
        let batch = (next..<ready).map { ordered[$0]! }
        let first = Int32(next)
        next = ready
        // Each partition's lane takes the batches in the order they are queued (document numbers
        // increasing, as `TermPartition.add` needs); the terms go once every partition has them,
        // let go by the partition that finishes last.
        let count = parts.count
        let left = Countdown(count)
        for (index, part) in parts.enumerated() {
            lanes[index].async {
                for (k, a) in batch.enumerated() { part.add(a, doc: first + Int32(k), partition: index, of: count) }
                if left.finishOne() { for a in batch { a.releaseTerms() } }
            }
        }
    }

    /// Every index file (meta.json, then the document chunks, then the shards), once every input
    /// has been added. Once.
    public func finish() -> [(path: String, bytes: [UInt8])] {
        precondition(added == places.count, "\(places.count - added) inputs not added")
        // Every analysis has queued its postings once `analyses` is done.
        analyses.wait()
        for lane in lanes { lane.wait() }
        precondition(next == ordered.count, "postings of \(ordered.count - next) documents not queued")
        let documents = ordered.map { $0! }
        ordered = []
        return state.updateStreamed(documents, parts: parts)
    }
}

/// A count of jobs left, for the one that finishes last to know it.
private final class Countdown: @unchecked Sendable {
    private let left: Mutex<Int>

    init(_ count: Int) { left = Mutex(count) }

    /// Counts one job done; true for the last.
    func finishOne() -> Bool { left.withLock { $0 -= 1; return $0 == 0 } }
}

/// Analyzers for any thread: one is taken for a document and put back after, so that as many
/// exist as threads analyse at once (each keeps its tables and its cache of words).
private final class AnalyzerPool: @unchecked Sendable {
    private let lock = Mutex(())
    private var idle: [DocumentAnalyzer] = []

    func take() -> DocumentAnalyzer {
        lock.withLock { _ in idle.popLast() ?? DocumentAnalyzer() }
    }

    func put(_ analyzer: DocumentAnalyzer) {
        lock.withLock { _ in idle.append(analyzer) }
    }

    func free() {
        lock.withLock { _ in
            for analyzer in idle { analyzer.free() }
            idle = []
        }
    }
}
