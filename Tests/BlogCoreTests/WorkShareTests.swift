import XCTest
import BlogCore

final class WorkShareTests: XCTestCase {
    func testEveryIndexIsClaimedOnceInBatchesByTheWorkersThatAsk() {
        for (count, workers, batch) in [(0, 2, 4), (1, 4, 4), (10, 1, 3), (1_000, 2, 8), (1_001, 8, 16), (5, 3, 0)] {
            let lock = Mutex()
            var claimed: [Int] = []
            var rangeSizes: [Int] = []
            var workersSeen = Set<Int>()
            WorkShare.run(count: count, workers: workers, batch: batch) { worker, claim in
                while let range = claim() {
                    lock.withLock {
                        claimed += Array(range)
                        rangeSizes.append(range.count)
                        workersSeen.insert(worker)
                    }
                }
            }
            XCTAssertEqual(claimed.sorted(), Array(0..<count), "count \(count)")
            // Whole batches, but for one short last batch.
            XCTAssertTrue(rangeSizes.allSatisfy { $0 >= 1 && $0 <= max(1, batch) }, "batches of \(batch): \(rangeSizes)")
            XCTAssertLessThanOrEqual(rangeSizes.filter { $0 < max(1, batch) }.count, 1, "batches of \(batch): \(rangeSizes)")
            XCTAssertTrue(workersSeen.allSatisfy { $0 >= 0 && $0 < max(1, min(workers, count)) }, "workers \(workersSeen)")
        }
    }
}
