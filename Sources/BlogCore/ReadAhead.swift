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
/// The hints start only once a loader found a file not in the page cache (`missed(at:)`, from
/// `SourceText.readBytes`' `uncached`): with the files cached, an `open` and a hint per file would
/// cost ~8 µs each on the benchmark machine, ~1.5 % of a build, for nothing. They then run in the
/// files' order on a thread of their own, from the file after the one missed, at most `window`
/// files ahead of the furthest file a loader has reached (`reached`), so that files read early
/// are not the first to be evicted again. Nothing is read into the process; a file that cannot be
/// opened is skipped (the loader reports it).
public final class ReadAhead: @unchecked Sendable {
    /// Below this many files the hints are not worth a thread.
    public static let minimumCount = 64

    private let root: String
    private let paths: [String]
    private let window: Int
    private let furthest = Atomic<Int>(-1)
    private let stopped = Atomic<Bool>(false)
    private let hinted = Atomic<Int>(0)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let enabled: Bool

    /// Hints for `root` + each of `paths` (in the order they will be read) once a file is missed;
    /// never when there are fewer than `minimumCount` of them.
    public init(root: String, paths: [String], window: Int = 512, minimumCount: Int = ReadAhead.minimumCount) {
        self.root = root
        self.paths = paths
        self.window = max(1, window)
        enabled = paths.count >= minimumCount
    }

    /// A loader found file `index` out of the page cache: the hints start (once) with the next one.
    public func missed(at index: Int) {
        reached(index)
        guard enabled, !started.load(ordering: .relaxed),
              started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            run(from: index + 1)
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

    /// Stops the hints and waits for their thread to end. No hint starts after it.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        // Taken here if no miss took it first, so that no thread starts from now on.
        if started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged { return }
        guard enabled else { return }
        finished.wait()
        finished.signal()
    }

    private func run(from first: Int) {
        for index in max(0, first)..<max(first, paths.count) {
            let path = root + paths[index]
            // Ahead of the loaders by the whole window: wait for them (briefly; they read a file
            // in well under a millisecond once it is in memory).
            while index > furthest.load(ordering: .relaxed) + window {
                if stopped.load(ordering: .acquiring) { return }
                usleep(200)
            }
            if stopped.load(ordering: .acquiring) { return }
            #if canImport(Glibc)
            // Non-blocking: opening a FIFO for reading would wait for a writer.
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            if fd >= 0 {
                _ = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED)
                close(fd)
            }
            #endif
            hinted.add(1, ordering: .releasing)
        }
    }
}
