import Foundation
#if canImport(Glibc)
import Glibc

// malloc.h is not part of the Glibc module.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
private let mallocTopPad: Int32 = -2 // M_TOP_PAD
private let mallocMmapThreshold: Int32 = -3 // M_MMAP_THRESHOLD
private let mallocArenaMax: Int32 = -8 // M_ARENA_MAX
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
    /// for ~25 MB more peak memory at 10,000 posts (and less at 100,000).
    ///
    /// It also keeps malloc to one arena per core (`cores`; glibc allows eight per core). A thread
    /// allocates from its arena, and memory freed in one arena serves only the threads of that
    /// arena: the build's threads (GCD's workers, the beside thread, the writer) had spread over
    /// seven arenas at 10,000 posts, so the search index grew arenas that held none of the posts'
    /// freed HTML. With one arena per core, 10,000 posts: 35 MB less memory taken from the
    /// system and a peak ~25 MB lower (docs/benchmarks.md, "Fourteenth round"). Returns whether
    /// malloc took all three settings (false where glibc is not the allocator).
    @discardableResult
    public static func tuneForBuild(cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Bool {
        #if canImport(Glibc)
        return glibcMallopt(mallocTopPad, Int32(heapGrowth)) == 1 && glibcMallopt(mallocMmapThreshold, Int32(mappingThreshold)) == 1
            && glibcMallopt(mallocArenaMax, Int32(clamping: max(1, cores))) == 1
        #else
        return false
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
