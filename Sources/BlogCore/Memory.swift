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
