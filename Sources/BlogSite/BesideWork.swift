import Dispatch
import Foundation

/// Work that runs on another thread beside the caller's and makes output files, which the caller
/// collects between its own batches (so only the caller's thread hands files on, and the sink
/// needs no lock). The input is dropped as soon as the work ends, before `next` reports the end.
final class BesideWork<Input>: @unchecked Sendable {
    private let condition = NSCondition()
    private var input: Input?
    private var pending: [[OutputFile]] = []
    private var pendingBytes = 0
    private var running = false
    private var cancelled = false
    private var stepTimes: [(String, Double)] = []
    /// `put` waits while more than this many bytes wait for the caller (bounds the memory).
    let maximumPendingBytes: Int

    init(_ input: Input, maximumPendingBytes: Int = 32 << 20) {
        self.input = input
        self.maximumPendingBytes = maximumPendingBytes
    }

    /// Runs `body` on a global queue with the input. `put` queues files for the caller (waiting
    /// while too many bytes wait) and returns false once the caller cancelled; `lap` records the
    /// time of the step that just ended.
    func start(_ body: @escaping @Sendable (Input, _ put: ([OutputFile]) -> Bool, _ lap: (String) -> Void) -> Void) {
        condition.lock()
        precondition(!running && input != nil, "BesideWork starts once")
        running = true
        condition.unlock()
        // The closure holds only `self`: the input lives in `input` until the work takes it, and
        // in the work's scope until the work ends.
        let work: @Sendable () -> Void = { [self] in
            do {
                condition.lock()
                let input = self.input!
                self.input = nil
                condition.unlock()
                var clock = DispatchTime.now()
                body(input, put, { phase in
                    let now = DispatchTime.now()
                    self.condition.lock()
                    self.stepTimes.append((phase, Double(now.uptimeNanoseconds - clock.uptimeNanoseconds) / 1e9))
                    self.condition.unlock()
                    clock = now
                })
            }
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        DispatchQueue.global().async(execute: work)
    }

    private func put(_ files: [OutputFile]) -> Bool {
        let bytes = files.reduce(0) { $0 + $1.bytes.count }
        condition.lock()
        defer { condition.unlock() }
        while !cancelled && pendingBytes > 0 && pendingBytes + bytes > maximumPendingBytes { condition.wait() }
        if cancelled { return false }
        pending.append(files)
        pendingBytes += bytes
        condition.broadcast()
        return true
    }

    /// The files queued so far (without waiting).
    func take() -> [OutputFile] {
        condition.lock()
        defer { condition.unlock() }
        return takePending()
    }

    /// The next files, waiting for them; nil once the work has ended and everything was taken.
    func next() -> [OutputFile]? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && running { condition.wait() }
        return pending.isEmpty ? nil : takePending()
    }

    /// Empties the queue and wakes a waiting `put` (with the lock held).
    private func takePending() -> [OutputFile] {
        let files = Array(pending.joined())
        pending = []
        pendingBytes = 0
        condition.broadcast()
        return files
    }

    /// Each step's name and seconds, in order (complete once `next` has returned nil).
    var timings: [(String, Double)] {
        condition.lock()
        defer { condition.unlock() }
        return stepTimes
    }

    /// Tells the work to stop at its next `put` and waits until it has ended (nothing it made is kept).
    func cancelAndWait() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        pending = []
        pendingBytes = 0
        condition.broadcast()
        while running { condition.wait() }
    }
}
