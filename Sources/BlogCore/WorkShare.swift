import Foundation
import Synchronization
import Dispatch

/// Items shared out to a few workers a batch at a time: for work whose items differ in cost
/// (posts, pages) and whose workers each keep state of their own (an analyzer, a copy of the views
/// every page reads). This is the program's one concurrency helper: `run`, `each`, `map` and
/// `ordered` share items out, `Beside` runs one piece of work beside the caller's thread, `Lane`
/// and `Jobs` run queued jobs beside it (in order, or several at once), and `detach` forgets one.
public enum WorkShare {
    /// Every core the process may use: the default number of workers.
    public static var allCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Runs `work(worker, claim)` on up to `workers` threads at once (the caller's among them),
    /// `worker` numbering them from 0. `claim()` hands the next `batch` indices below `count` to
    /// whichever worker asks first, and nil once none are left.
    public static func run(count: Int, workers: Int, batch: Int, _ work: (_ worker: Int, _ claim: () -> Range<Int>?) -> Void) {
        guard count > 0 else { return }
        let lock = Mutex(())
        var next = 0
        let step = max(1, batch)
        let claim = { () -> Range<Int>? in
            lock.withLock { _ in
                guard next < count else { return nil }
                let start = next
                next = min(count, start + step)
                return start..<next
            }
        }
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, count))) { worker in work(worker, claim) }
    }

    /// `body(index)` for every index below `count`, `batch` at a time on up to `workers` threads;
    /// a single batch runs on the calling thread.
    public static func each(count: Int, batch: Int = 1, workers: Int = allCores, _ body: (Int) -> Void) {
        if count <= max(1, batch) || workers <= 1 {
            for index in 0..<count { body(index) }
            return
        }
        run(count: count, workers: workers, batch: batch) { _, claim in
            while let range = claim() {
                for index in range { body(index) }
            }
        }
    }

    /// `make(index)` for every index below `count`, in index order, made `batch` at a time on up to
    /// `workers` threads; a single batch runs on the calling thread.
    public static func map<T>(count: Int, batch: Int = 256, workers: Int = allCores, _ make: (Int) -> T) -> [T] {
        guard count > 0 else { return [] }
        if count <= max(1, batch) || workers <= 1 { return (0..<count).map(make) }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let slots = buffer.baseAddress!
            run(count: count, workers: workers, batch: batch) { _, claim in
                while let range = claim() {
                    for index in range { (slots + index).initialize(to: make(index)) }
                }
            }
            initialized = count
        }
    }
}

extension WorkShare {
    /// Makes `make(index)` for every index below `count` on up to `workers` threads (the caller's
    /// among them) and hands the results to `deliver` in order, `chunk` at a time, as soon as a
    /// chunk is complete: the workers never wait for each other at a chunk's end (`run` over one
    /// chunk after another would leave cores idle at each one's end while one finishes its last
    /// batch). `setUp(worker)` gives worker `worker` its `make`. `deliver` is called once per
    /// chunk, in order, never twice at once, on whichever worker completed the chunks before it,
    /// and may block (a writer that is behind): the others go on, at most `window` chunks ahead
    /// of the last one delivered, so that at most `window + 1` chunks of results are in memory.
    /// Once `deliver` returns false, no more chunks are delivered, no more batches are started,
    /// and `ordered` returns false.
    @discardableResult
    public static func ordered<T>(count: Int, workers: Int, batch: Int, chunk: Int, window: Int = 2,
                                  setUp: (_ worker: Int) -> (_ index: Int) -> T,
                                  deliver: (_ range: Range<Int>, _ results: [T]) -> Bool) -> Bool {
        guard count > 0 else { return true }
        let chunkSize = max(1, chunk)
        let step = max(1, min(batch, chunkSize))
        let chunks = (count + chunkSize - 1) / chunkSize
        let slots = UnsafeMutablePointer<T?>.allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
        defer { slots.deinitialize(count: count); slots.deallocate() }
        let lock = Mutex(())
        let ahead = max(1, window)
        // Chunk c may start once chunk c - `ahead` is delivered: its gate is signalled then (or
        // when the work stops), once, and waited on once, by the worker that claims its first
        // batch. One gate per chunk, not one semaphore counting permits: with a count, a worker
        // that claimed a chunk's start and was preempted before it waited could have its permit
        // taken by a later chunk's claimer; then nothing could complete the earlier chunk and
        // every worker waited for ever.
        let gates = (0..<chunks).map { _ in DispatchSemaphore(value: 0) }
        var opened = ahead // Gates below this one are open (the first `ahead` never close).
        var next = 0
        var done = [Int](repeating: 0, count: chunks)
        var delivered = 0
        var delivering = false
        var stopped = false
        let threads = max(1, min(workers, count))

        func range(of chunk: Int) -> Range<Int> { chunk * chunkSize ..< min(count, (chunk + 1) * chunkSize) }

        /// The next batch (never across a chunk's end), waiting for a permit when it starts a chunk.
        func claim() -> Range<Int>? {
            let claimed: Range<Int>? = lock.withLock { _ in
                guard !stopped, next < count else { return nil }
                let start = next
                next = min(count, start + step, (start / chunkSize + 1) * chunkSize)
                return start..<next
            }
            guard let claimed else { return nil }
            let chunk = claimed.lowerBound / chunkSize
            if claimed.lowerBound % chunkSize == 0, chunk >= ahead {
                gates[chunk].wait()
                if lock.withLock({ _ in stopped }) { return nil }
            }
            return claimed
        }

        /// Records a finished batch and delivers every chunk complete in order, unless another
        /// worker is delivering (it delivers this one too once it is done with its own).
        func finished(_ batch: Range<Int>) {
            let deliversHere: Bool = lock.withLock { _ in
                done[batch.lowerBound / chunkSize] += batch.count
                if delivering { return false }
                delivering = true
                return true
            }
            guard deliversHere else { return }
            while true {
                let ready: Int? = lock.withLock { _ in
                    guard !stopped, delivered < chunks, done[delivered] == range(of: delivered).count else {
                        delivering = false
                        return nil
                    }
                    return delivered
                }
                guard let ready else { return }
                let r = range(of: ready)
                let results = r.map { index -> T in
                    let result = slots[index]!
                    slots[index] = nil
                    return result
                }
                let goOn = deliver(r, results)
                let open: Range<Int> = lock.withLock { _ in
                    delivered += 1
                    if !goOn { stopped = true }
                    // Once stopped, every gate opens, so that a worker waiting at one finds it out.
                    let open = opened ..< max(opened, goOn ? min(chunks, delivered + ahead) : chunks)
                    opened = open.upperBound
                    return open
                }
                for gate in open { gates[gate].signal() }
            }
        }

        DispatchQueue.concurrentPerform(iterations: threads) { worker in
            let make = setUp(worker)
            while let batch = claim() {
                for index in batch { (slots + index).pointee = make(index) }
                finished(batch)
            }
        }
        return lock.withLock { _ in !stopped && delivered == chunks }
    }
}

extension WorkShare {
    /// Work that runs on another thread beside the caller's and makes items (output files), which
    /// the caller collects between its own batches, so only the caller's thread hands items on
    /// and whatever it hands them to needs no lock. The input is dropped as soon as the work ends,
    /// before `next` reports the end.
    ///
    /// It lives here, beside the helpers that share items out, so that a reader finds the build's
    /// concurrency in one file rather than a second locking scheme elsewhere. A `Mutex` cannot
    /// wait, so a thread that must wait (the work for room, the caller for items or the end)
    /// leaves a semaphore in the state and waits on it once the lock is released; whoever changes
    /// the state signals every semaphore left there, and each waiter checks again.
    public final class Beside<Input: Sendable, Item: Sendable>: @unchecked Sendable {
        private struct State {
            var input: Input?
            var pending: [[Item]] = []
            var pendingBytes = 0
            var running = false
            var cancelled = false
            var stepTimes: [(String, Double)] = []
            var waiters: [DispatchSemaphore] = []

            /// The waiters to signal once the lock is released.
            mutating func wake() -> [DispatchSemaphore] {
                defer { waiters = [] }
                return waiters
            }

            /// Empties the queue (the caller wakes the waiters: a waiting `put` has room now).
            mutating func takePending() -> [Item] {
                let items = Array(pending.joined())
                pending = []
                pendingBytes = 0
                return items
            }
        }

        private let state: Mutex<State>
        private let bytes: @Sendable (Item) -> Int
        /// `put` waits while more than this many bytes wait for the caller (bounds the memory).
        public let maximumPendingBytes: Int

        /// `bytes(item)` is what an item weighs against `maximumPendingBytes`.
        public init(_ input: Input, maximumPendingBytes: Int = 32 << 20, bytes: @escaping @Sendable (Item) -> Int) {
            state = Mutex(State(input: input))
            self.bytes = bytes
            self.maximumPendingBytes = maximumPendingBytes
        }

        /// Runs `body` on a global queue with the input. `put` queues items for the caller (waiting
        /// while too many bytes wait) and returns false once the caller cancelled; `lap` records the
        /// time of the step that just ended.
        public func start(_ body: @escaping @Sendable (Input, _ put: ([Item]) -> Bool, _ lap: (String) -> Void) -> Void) {
            state.withLock { state in
                precondition(!state.running && state.input != nil, "WorkShare.Beside starts once")
                state.running = true
            }
            // The closure holds only `self`: the input lives in the state until the work takes it,
            // and in the work's scope until the work ends.
            let work: @Sendable () -> Void = { [self] in
                do {
                    let input = state.withLock { state in
                        defer { state.input = nil }
                        return state.input!
                    }
                    var clock = DispatchTime.now()
                    body(input, put, { phase in
                        let now = DispatchTime.now()
                        let seconds = Double(now.uptimeNanoseconds - clock.uptimeNanoseconds) / 1e9
                        self.state.withLock { $0.stepTimes.append((phase, seconds)) }
                        clock = now
                    })
                }
                signal(state.withLock { state in
                    state.running = false
                    return state.wake()
                })
            }
            DispatchQueue.global().async(execute: work)
        }

        private func signal(_ waiters: [DispatchSemaphore]) {
            for waiter in waiters { waiter.signal() }
        }

        /// Holds the lock while `ready(state)` says what to do, and while it returns nil waits for
        /// the state to change and asks again.
        private func wait<T>(until ready: (inout State) -> T?) -> T {
            while true {
                let (result, waiter): (T?, DispatchSemaphore?) = state.withLock { state in
                    if let result = ready(&state) { return (result, nil) }
                    let waiter = DispatchSemaphore(value: 0)
                    state.waiters.append(waiter)
                    return (nil, waiter)
                }
                if let result { return result }
                waiter!.wait()
            }
        }

        private func put(_ items: [Item]) -> Bool {
            let size = items.reduce(0) { $0 + bytes($1) }
            let (queued, waiters) = wait { state -> (Bool, [DispatchSemaphore])? in
                if state.cancelled { return (false, []) }
                if state.pendingBytes > 0 && state.pendingBytes + size > maximumPendingBytes { return nil }
                state.pending.append(items)
                state.pendingBytes += size
                return (true, state.wake())
            }
            signal(waiters)
            return queued
        }

        /// The items queued so far (without waiting).
        public func take() -> [Item] {
            let (items, waiters) = state.withLock { state in (state.takePending(), state.wake()) }
            signal(waiters)
            return items
        }

        /// The next items, waiting for them; nil once the work has ended and everything was taken.
        public func next() -> [Item]? {
            let (items, waiters) = wait { state -> ([Item]?, [DispatchSemaphore])? in
                if state.pending.isEmpty && state.running { return nil }
                return state.pending.isEmpty ? (nil, []) : (state.takePending(), state.wake())
            }
            signal(waiters)
            return items
        }

        /// Each step's name and seconds, in order (complete once `next` has returned nil).
        public var timings: [(String, Double)] {
            state.withLock { $0.stepTimes }
        }

        /// Tells the work to stop at its next `put` and waits until it has ended (nothing it made
        /// is kept).
        public func cancelAndWait() {
            signal(state.withLock { state in
                state.cancelled = true
                state.pending = []
                state.pendingBytes = 0
                return state.wake()
            })
            wait { state in state.running ? nil : () }
        }
    }

    /// Jobs run one at a time, in the order they were queued, on a thread beside the caller: a
    /// stage of a pipeline (the output writer's comparing and writing, a search partition's
    /// postings). `wait` returns once every job queued on this lane so far has run.
    public final class Lane: @unchecked Sendable {
        private let queue: DispatchQueue
        private let group = DispatchGroup()

        public init(_ label: String) { queue = DispatchQueue(label: label) }

        public func async(_ job: @escaping @Sendable () -> Void) { queue.async(group: group, execute: job) }

        public func wait() { group.wait() }
    }

    /// Jobs run beside the caller, several at once on the system's shared threads. `wait` returns
    /// once every job queued so far has run.
    public final class Jobs: @unchecked Sendable {
        private let group = DispatchGroup()

        public init() {}

        public func async(_ job: @escaping @Sendable () -> Void) { DispatchQueue.global().async(group: group, execute: job) }

        public func wait() { group.wait() }
    }

    /// Runs `job` on another thread and does not wait for it (freeing a large structure while the
    /// caller goes on).
    public static func detach(_ job: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .utility).async(execute: job)
    }
}
