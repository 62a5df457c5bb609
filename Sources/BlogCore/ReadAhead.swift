#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Asks the kernel to start reading files a little before the loaders need them.
///
/// The loaders read one file at a time per core. With the files in the page cache that costs
/// nothing, but when they are not (the first build after a clone or a reboot, or on a machine that
/// pages out memory left alone for a minute, as the benchmark machine does), every core waits for
/// the disk on every file: a 10,000-post build spent twice as long in its content phase with the
/// posts evicted as with them cached. `posix_fadvise(POSIX_FADV_WILLNEED)` queues a file's read
/// and returns, so one thread running ahead of the loaders keeps many reads in flight and the
/// loaders find their files read.
///
/// The hints run in the files' order on a thread of their own, at most `window` files ahead of
/// the furthest file a loader has reached (`reached`), so that files read early are not the first
/// to be evicted again. Nothing is read into the process; a file that cannot be opened is skipped
/// (the loader reports it).
public final class ReadAhead: @unchecked Sendable {
    /// Below this many files the hints are not worth a thread.
    public static let minimumCount = 64

    private let paths: [String]
    private let window: Int
    private let furthest = Atomic<Int>(-1)
    private let stopped = Atomic<Bool>(false)
    private let hinted = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)
    private let running: Bool

    /// Starts the hints for `paths` (full paths, in the order they will be read), unless there are
    /// fewer than `minimumCount` of them.
    public init(paths: [String], window: Int = 512, minimumCount: Int = ReadAhead.minimumCount) {
        self.paths = paths
        self.window = max(1, window)
        running = paths.count >= minimumCount
        guard running else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            run()
            finished.signal()
        }
    }

    /// A loader is at file `index`: the hints may go on up to `index + window`.
    @inline(__always)
    public func reached(_ index: Int) {
        var current = furthest.load(ordering: .relaxed)
        while index > current {
            let (exchanged, original) = furthest.compareExchange(expected: current, desired: index, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// How many files have been hinted so far (for tests).
    public var hintedCount: Int { hinted.load(ordering: .acquiring) }

    /// Stops the hints and waits for their thread to end.
    public func stop() {
        guard running else { return }
        stopped.store(true, ordering: .releasing)
        finished.wait()
        finished.signal()
    }

    private func run() {
        for (index, path) in paths.enumerated() {
            // Ahead of the loaders by the whole window: wait for them (briefly; they read a file
            // in well under a millisecond once it is in memory).
            while index > furthest.load(ordering: .relaxed) + window {
                if stopped.load(ordering: .acquiring) { return }
                usleep(200)
            }
            if stopped.load(ordering: .acquiring) { return }
            #if canImport(Glibc)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED)
                close(fd)
            }
            #endif
            hinted.add(1, ordering: .releasing)
        }
    }
}
