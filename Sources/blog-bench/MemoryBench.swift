import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What fresh memory costs: maps MB (default 512) of anonymous memory, with huge
/// pages asked for as blog's malloc asks for them, and writes one byte in each 4 KB page: the
/// kernel finds and zeroes every page on the way. Three rounds in one process: the first takes
/// memory the system has had free for a while; the next two take the memory the round before just
/// gave back. In the first round a second mapping of the same size, with huge pages refused, is
/// touched the same way while the first is still mapped (so it cannot reuse that memory): what a
/// 4 KB page costs, to compare with what huge pages save (`MIMALLOC_LARGE_OS_PAGES`). A `memset` over memory
/// already mapped is the bandwidth for comparison. Under a hypervisor that takes a guest's free
/// memory back (free page reporting, ballooning), the first round also pays for the host to hand
/// the memory over again.
#if os(Linux)
func benchMemory(_ argv: [String]) {
    let usage = "usage: blog-bench memory [MB]   (default 512)"
    if argv.contains("-h") || argv.contains("--help") { say(usage); exit(0) }
    guard argv.count <= 1, let megabytes = argv.first.map({ Int($0) }) ?? 512, megabytes > 0, megabytes <= 1 << 20 else { fail(usage, code: 64) }
    let size = megabytes << 20, huge = 2 << 20
    /// A mapping of `size` bytes aligned to 2 MB inside one of `size + huge` (so that every huge
    /// page the kernel can give lies inside the range), with huge pages asked for or refused.
    func map(hugePages: Bool) -> (mapped: UnsafeMutableRawPointer, base: UnsafeMutablePointer<UInt8>, advised: Bool) {
        guard let mapped = mmap(nil, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED else {
            fail("cannot map \(megabytes) MB: \(String(cString: strerror(errno)))")
        }
        let start = (Int(bitPattern: mapped) + huge - 1) & ~(huge - 1)
        let base = UnsafeMutablePointer<UInt8>(bitPattern: start)!
        return (mapped, base, madvise(base, size, hugePages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0)
    }
    /// Seconds to write one byte in each 4 KB page.
    func touch(_ base: UnsafeMutablePointer<UInt8>) -> Double {
        let t0 = monotonicSeconds()
        var offset = 0
        while offset < size {
            base[offset] = 1
            offset += 4096
        }
        return monotonicSeconds() - t0
    }
    var touched: [Double] = []
    var small = 0.0
    var fill = 0.0
    var advised = false
    for round in 0..<3 {
        let region = map(hugePages: true)
        advised = region.advised
        touched.append(touch(region.base))
        if round == 0 {
            let other = map(hugePages: false)
            small = touch(other.base)
            munmap(other.mapped, size + huge)
        }
        let t1 = monotonicSeconds()
        memset(region.base, 2, size)
        fill = monotonicSeconds() - t1
        munmap(region.mapped, size + huge)
    }
    let perMB = { (seconds: Double) in 1000 * seconds / Double(megabytes) }
    let reused = touched[1...].min()!
    say(String(format: "memory: %d MB, huge pages %@: first touch %.3f s (%.2f ms/MB), touched again after unmapping %.3f s (%.2f ms/MB); first touch in 4 KB pages %.3f s (%.2f ms/MB); memset of mapped memory %.3f s (%.2f ms/MB)",
               megabytes, advised ? "asked for" : "not available", touched[0], perMB(touched[0]), reused, perMB(reused),
               small, perMB(small), fill, perMB(fill)))
    emit(.object([
        ("bench", .string("memory")), ("megabytes", .int(megabytes)), ("huge_pages_advised", .bool(advised)),
        ("first_touch_s", .number(touched[0])), ("reused_touch_s", .number(reused)), ("small_first_touch_s", .number(small)),
        ("memset_s", .number(fill)),
        ("first_touch_ms_per_mb", .number(perMB(touched[0]))), ("reused_touch_ms_per_mb", .number(perMB(reused))),
        ("small_first_touch_ms_per_mb", .number(perMB(small))), ("memset_ms_per_mb", .number(perMB(fill))),
    ]))
}
#endif
