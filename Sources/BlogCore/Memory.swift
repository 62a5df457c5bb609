#if canImport(Glibc)
import Glibc

@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32

// malloc.h is not part of the Glibc module.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
private let mallocTopPad: Int32 = -2 // M_TOP_PAD
private let mallocMmapThreshold: Int32 = -3 // M_MMAP_THRESHOLD
#endif

/// Process memory housekeeping.
public enum Memory {
    /// How far malloc grows its heaps at a time: 64 MB.
    public static let heapGrowth = 64 << 20
    /// Blocks up to this size come from the heaps rather than from a mapping of their own: 32 MB
    /// (glibc's largest on 64-bit).
    public static let mappingThreshold = 32 << 20

    /// Whether `tuneForBuild` should run: for `blog build` only (one process, one build, then
    /// exit), and only when the user set no malloc tunables of their own (theirs win; the value
    /// `HugePages.restartIfUseful` sets is not theirs).
    public static func shouldTune(command: String?, environmentTunables: String?) -> Bool {
        command == "build" && (environmentTunables == nil || environmentTunables == HugePages.tunable)
    }

    /// Sets malloc up for one large build. By default glibc grows a heap a little at a time, so
    /// most of a build's fresh memory arrived in 4 KB page faults (~90,000 at 10,000 posts, even
    /// with huge pages on: a huge page needs its 2 MB mapped at once), and it gave each block over
    /// 128 KB (feeds, JSON files, search shards) a mapping of its own, faulted in page by page and
    /// unmapped again on free. Growing heaps 64 MB at a time and keeping blocks up to 32 MB in
    /// them cut that to ~26,000 faults and the build's CPU time by 3–7 % (12 % at 1,000 posts),
    /// for ~25 MB more peak memory at 10,000 posts (and less at 100,000). Returns whether malloc
    /// took both settings (false where glibc is not the allocator).
    @discardableResult
    public static func tuneForBuild() -> Bool {
        #if canImport(Glibc)
        return glibcMallopt(mallocTopPad, Int32(heapGrowth)) == 1 && glibcMallopt(mallocMmapThreshold, Int32(mappingThreshold)) == 1
        #else
        return false
        #endif
    }

    /// Hands the free pages malloc keeps (also those inside the heap, between live allocations)
    /// back to the system. Worth it after letting go of many mid-sized blocks, such as every
    /// post's HTML: later large allocations cannot reuse those holes, so the peak would be their
    /// sum. A no-op where glibc is not the allocator.
    public static func releaseFreePages() {
        #if canImport(Glibc)
        _ = glibcMallocTrim(0)
        #endif
    }
}

/// The CPU time of the whole process (every thread, user and system), for reporting how many
/// cores a phase kept busy.
public enum ProcessClock {
    public static func cpuSeconds() -> Double {
        #if canImport(Glibc)
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
        #else
        return 0
        #endif
    }
}
