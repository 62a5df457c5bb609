import XCTest
import BlogCore
import Synchronization

final class WorkShareTests: XCTestCase {
    func testEveryIndexIsClaimedOnceInBatchesByTheWorkersThatAsk() {
        for (count, workers, batch) in [(0, 2, 4), (1, 4, 4), (10, 1, 3), (1_000, 2, 8), (1_001, 8, 16), (5, 3, 0)] {
            let lock = Mutex(())
            var claimed: [Int] = []
            var rangeSizes: [Int] = []
            var workersSeen = Set<Int>()
            WorkShare.run(count: count, workers: workers, batch: batch) { worker, claim in
                while let range = claim() {
                    lock.withLock { _ in
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

    func testOrderedDeliversEveryChunkOnceInOrderWithEachIndexMadeOnce() {
        for (count, workers, batch, chunk) in [(0, 2, 4, 8), (1, 2, 4, 8), (10, 1, 3, 4), (1_000, 2, 4, 128), (1_001, 4, 16, 100), (37, 3, 0, 0), (64, 2, 8, 5)] {
            let lock = Mutex(())
            var made = [Int](repeating: 0, count: count)
            var ranges: [Range<Int>] = []
            var delivered: [Int] = []
            var concurrentDeliveries = 0
            var deliveringNow = 0
            let finished = WorkShare.ordered(count: count, workers: workers, batch: batch, chunk: chunk, setUp: { worker in
                { index in
                    lock.withLock { _ in made[index] += 1 }
                    return index * 3 + worker * 0
                }
            }, deliver: { range, results in
                lock.withLock { _ in
                    deliveringNow += 1
                    concurrentDeliveries = max(concurrentDeliveries, deliveringNow)
                }
                // A slow consumer, so that the workers run ahead while a chunk is delivered.
                usleep(200)
                lock.withLock { _ in
                    ranges.append(range)
                    delivered += results
                    deliveringNow -= 1
                }
                return true
            })
            let size = max(1, chunk)
            XCTAssertTrue(finished)
            XCTAssertEqual(made, [Int](repeating: 1, count: count), "each index made once (count \(count))")
            XCTAssertEqual(delivered, (0..<count).map { $0 * 3 }, "results in order (count \(count))")
            XCTAssertEqual(ranges, stride(from: 0, to: count, by: size).map { $0 ..< min(count, $0 + size) }, "whole chunks in order")
            XCTAssertLessThanOrEqual(concurrentDeliveries, 1, "one delivery at a time")
        }
    }

    func testOrderedKeepsTheWorkersWithinTheWindowOfTheLastChunkDelivered() {
        let lock = Mutex(())
        var delivered = 0
        var furthest = 0
        let chunk = 10, window = 2
        WorkShare.ordered(count: 400, workers: 4, batch: 2, chunk: chunk, window: window, setUp: { _ in
            { index in
                lock.withLock { _ in
                    // The chunk being made may be at most `window` chunks past the delivered ones.
                    furthest = max(furthest, index / chunk - delivered)
                }
                return index
            }
        }, deliver: { _, _ in
            usleep(500)
            lock.withLock { _ in delivered += 1 }
            return true
        })
        XCTAssertEqual(delivered, 40)
        XCTAssertLessThanOrEqual(furthest, window, "made a chunk \(furthest) chunks past the last delivered")
        XCTAssertGreaterThanOrEqual(furthest, 1, "the workers never ran ahead of a delivery")
    }

    func testOrderedStopsWhenDeliverSaysSo() {
        for workers in [1, 2, 4] {
            let lock = Mutex(())
            var deliveries: [Range<Int>] = []
            var made = 0
            let finished = WorkShare.ordered(count: 1_000, workers: workers, batch: 4, chunk: 16, setUp: { _ in
                { index in
                    lock.withLock { _ in made += 1 }
                    return index
                }
            }, deliver: { range, _ in
                lock.withLock { _ in deliveries.append(range) }
                return range.lowerBound < 32
            })
            XCTAssertFalse(finished)
            XCTAssertEqual(deliveries, [0..<16, 16..<32, 32..<48], "workers \(workers)")
            // No batch starts after the stop beyond the window's chunks already under way.
            XCTAssertLessThan(made, 1_000, "workers \(workers)")
        }
    }

    /// Workers preempted between claiming a chunk's first batch and waiting for its turn (forced
    /// here by more busy threads than cores) never leave a chunk unfinishable. With one semaphore
    /// counting permits, a later chunk's claimer could take the permit meant for the earlier one,
    /// and the run hung in about one try in three of the tests above on a loaded 2-core machine.
    func testOrderedFinishesWhenWorkersArePreemptedAtAnyPoint() {
        final class Shared: Sendable { let value = Atomic<Int>(0) }
        let stop = Shared()
        let busy = (0..<(2 * ProcessInfo.processInfo.activeProcessorCount)).map { _ in
            let thread = Thread {
                var x = 0
                while stop.value.load(ordering: .relaxed) == 0 { x &+= 1 }
                _ = x
            }
            thread.start()
            return thread
        }
        defer { stop.value.store(1, ordering: .relaxed); _ = busy }
        for round in 0..<20 {
            let finished = DispatchSemaphore(value: 0)
            let result = Shared()
            Thread {
                var sum = 0
                let workers = 2 + round % 3
                let done = WorkShare.ordered(count: 3_000, workers: workers, batch: 1, chunk: 1, window: 1 + round % 2,
                                             setUp: { _ in { $0 } }, deliver: { _, results in sum += results[0]; return true })
                result.value.store(done ? sum : -1, ordering: .relaxed)
                finished.signal()
            }.start()
            guard finished.wait(timeout: .now() + 30) == .success else {
                return XCTFail("round \(round): the workers waited for each other for ever")
            }
            XCTAssertEqual(result.value.load(ordering: .relaxed), 3_000 * 2_999 / 2, "round \(round)")
        }
    }

    /// Beside's input, to see when the work lets go of it.
    private final class Token: Sendable {}

    func testBesideHandsEveryItemOnInOrderAndDropsTheInputBeforeTheEnd() {
        weak var dropped: Token?
        let beside: WorkShare.Beside<Token, Int> = {
            let token = Token()
            dropped = token
            return WorkShare.Beside(token, maximumPendingBytes: 16) { _ in 1 }
        }()
        beside.start { _, put, lap in
            for start in stride(from: 0, to: 100, by: 5) {
                guard put(Array(start ..< start + 5)) else { return }
            }
            lap("first")
            _ = put([100])
            lap("second")
        }
        var received: [Int] = []
        received += beside.take()
        while let items = beside.next() {
            XCTAssertFalse(items.isEmpty, "next hands on something or nil")
            received += items
        }
        XCTAssertEqual(received, Array(0...100))
        XCTAssertNil(dropped, "the input outlived the work")
        XCTAssertEqual(beside.timings.map(\.0), ["first", "second"])
        XCTAssertTrue(beside.timings.allSatisfy { $0.1 >= 0 })
        XCTAssertNil(beside.next(), "nil again once ended")
        beside.cancelAndWait()
    }

    func testBesideWaitsWhileTheAllowanceIsFullAndLetsALargeBatchThroughAlone() {
        final class Count: Sendable { let value = Atomic<Int>(0) }
        let puts = Count()
        let beside = WorkShare.Beside<Int, [UInt8]>(0, maximumPendingBytes: 10) { $0.count }
        beside.start { _, put, _ in
            // 4 + 4 bytes fit; a third batch would make 12, so it waits until the caller takes.
            for size in [4, 4, 4, 30, 1] {
                guard put([[UInt8](repeating: 0, count: size)]) else { return }
                puts.value.add(1, ordering: .relaxed)
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while puts.value.load(ordering: .relaxed) < 2 && Date() < deadline { usleep(1_000) }
        usleep(20_000)
        XCTAssertEqual(puts.value.load(ordering: .relaxed), 2, "the work ran past the allowance")
        var sizes = beside.take().map(\.count)
        // The third goes on; the batch larger than the allowance waits until nothing waits, then
        // goes on alone, and the next waits for it to be taken.
        while puts.value.load(ordering: .relaxed) < 3 && Date() < deadline { usleep(1_000) }
        usleep(20_000)
        XCTAssertEqual(puts.value.load(ordering: .relaxed), 3)
        sizes += beside.take().map(\.count)
        while puts.value.load(ordering: .relaxed) < 4 && Date() < deadline { usleep(1_000) }
        usleep(20_000)
        XCTAssertEqual(puts.value.load(ordering: .relaxed), 4)
        while let items = beside.next() { sizes += items.map(\.count) }
        XCTAssertEqual(sizes, [4, 4, 4, 30, 1])
        XCTAssertEqual(puts.value.load(ordering: .relaxed), 5)
    }

    func testBesideCancelStopsTheWorkAtItsNextPutAndWaitsForIt() {
        final class Flags: Sendable {
            let refused = Atomic<Int>(0)
            let ended = Atomic<Int>(0)
        }
        let flags = Flags()
        let beside = WorkShare.Beside<Int, Int>(0, maximumPendingBytes: 8) { _ in 1 }
        beside.start { _, put, _ in
            var n = 0
            while put([n]) { n += 1 }
            flags.refused.store(1, ordering: .relaxed)
            usleep(20_000)
            flags.ended.store(1, ordering: .relaxed)
        }
        XCTAssertNotNil(beside.next())
        beside.cancelAndWait()
        XCTAssertEqual(flags.refused.load(ordering: .relaxed), 1, "put went on accepting after the cancel")
        XCTAssertEqual(flags.ended.load(ordering: .relaxed), 1, "cancelAndWait returned before the work ended")
        XCTAssertEqual(beside.take(), [], "nothing made is kept")
        XCTAssertNil(beside.next())
    }
}
