import Dispatch

/// Items shared out to a few workers a batch at a time: for work whose items differ in cost
/// (posts, pages) and whose workers each keep state of their own (an analyzer, a copy of the views
/// every page reads).
public enum WorkShare {
    /// Runs `work(worker, claim)` on up to `workers` threads at once (the caller's among them),
    /// `worker` numbering them from 0. `claim()` hands the next `batch` indices below `count` to
    /// whichever worker asks first, and nil once none are left.
    public static func run(count: Int, workers: Int, batch: Int, _ work: (_ worker: Int, _ claim: () -> Range<Int>?) -> Void) {
        guard count > 0 else { return }
        let lock = Mutex()
        var next = 0
        let step = max(1, batch)
        let claim = { () -> Range<Int>? in
            lock.withLock {
                guard next < count else { return nil }
                let start = next
                next = min(count, start + step)
                return start..<next
            }
        }
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, count))) { worker in work(worker, claim) }
    }
}
