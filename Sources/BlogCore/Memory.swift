#if canImport(Glibc)
import Glibc

@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
#endif

/// Process memory housekeeping.
public enum Memory {
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
