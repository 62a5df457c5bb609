#if canImport(Glibc)
import Glibc
#endif

/// Transparent huge pages for the heap. A 10,000-post build touches ~220 MB and a 100,000-post
/// one ~1.4 GB of fresh heap memory; in 4 KB pages that is one page fault per 4 KB. `blog` links
/// mimalloc as its malloc (README, "Performance"), which asks the kernel for huge pages for its
/// segments when its `large_os_pages` option is on; `blog build` and `blog serve` turn it on at
/// start-up when the kernel gives huge pages on request ("madvise" mode; in "always" mode they
/// come anyway, in "never" not at all) and the user did not decide (`MIMALLOC_LARGE_OS_PAGES`).
///
/// Except where huge pages are the dear kind: in a virtual machine whose balloon reports free
/// memory to the host ("free page reporting"), free blocks of the reporting order and larger are
/// handed back to the host, and touching them again makes the host supply the memory anew. A huge
/// page always comes from such a block when that order is at most a huge page's; a 4 KB page comes
/// from the smallest free block there is, which is never reported. So when there is plenty of free
/// memory in blocks smaller than a huge page (`smallBlockMinimum`), 4 KB pages cost a fraction of
/// huge ones (measured: 0.44–0.58 against 4.0–4.5 ms per MB on first touch), and blog does not ask
/// for huge pages (docs/benchmarks.md, "Twenty-second round").
public enum HugePages {
    /// The environment variable with which the user decides for mimalloc: set (to anything), it wins.
    public static let userSetting = "MIMALLOC_LARGE_OS_PAGES"

    /// Whether to ask for huge pages: for the commands that build a whole site, when the user did
    /// not decide (`userSetting`'s value, nil when unset), and when the kernel's THP mode is
    /// "madvise". `smallPagesCheaper`: what `smallPagesAreCheaper` found.
    public static func shouldAsk(command: String?, userSetting: String?, thpMode: String?, arguments: [String] = [],
                                 smallPagesCheaper: Bool = false) -> Bool {
        isCandidate(command: command, userSetting: userSetting, arguments: arguments) && thpMode == "madvise"
            && !smallPagesCheaper
    }

    /// Free memory in blocks smaller than a huge page from which 4 KB pages are worth more than
    /// huge ones: a 10,000-post build takes ~200 MB of heap and ~420 MB of page cache.
    public static let smallBlockMinimum = 1 << 30

    /// The virtio feature bit of a balloon that reports free pages (VIRTIO_BALLOON_F_REPORTING).
    static let reportingFeature = 5

    /// Whether 4 KB pages cost less than huge ones here (see the type's comment): a balloon reports
    /// free pages (`balloonFeatures`: the `features` files of the virtio_balloon driver's devices,
    /// one character per feature bit), at an order (`reportingOrder`, in pages) no larger than a
    /// huge page's (`hugePageSize` bytes), and `/proc/buddyinfo` (`buddyInfo`) shows at least
    /// `smallBlockMinimum` free in blocks smaller than a huge page. Anything unknown: false.
    public static func smallPagesAreCheaper(balloonFeatures: [String], reportingOrder: Int?, hugePageSize: Int?,
                                            buddyInfo: String?, pageSize: Int) -> Bool {
        guard balloonFeatures.contains(where: { reportsFreePages(features: $0) }),
              let reportingOrder, let hugePageSize, let buddyInfo, pageSize > 0, hugePageSize > pageSize else { return false }
        let hugeOrder = (hugePageSize / pageSize).trailingZeroBitCount
        return reportingOrder <= hugeOrder && freeBytes(buddyInfo: buddyInfo, below: hugeOrder, pageSize: pageSize) >= smallBlockMinimum
    }

    /// Whether a virtio device's `features` text (one '0' or '1' per bit, bit 0 first) has the
    /// balloon's free-page-reporting bit.
    static func reportsFreePages(features: String) -> Bool {
        let bits = Array(features.utf8)
        return bits.count > reportingFeature && bits[reportingFeature] == UInt8(ascii: "1")
    }

    /// Free bytes in blocks of fewer than 2^`order` pages, from `/proc/buddyinfo`'s lines ("Node 0,
    /// zone Normal 6454 10251 …": per zone, the free blocks of each order from 0 up).
    public static func freeBytes(buddyInfo: String, below order: Int, pageSize: Int) -> Int {
        var total = 0
        for line in buddyInfo.split(separator: "\n") {
            guard let zone = line.range(of: "zone") else { continue }
            // The zone's name, then the counts.
            let counts = line[zone.upperBound...].split(separator: " ").dropFirst().compactMap { Int($0) }
            for (blockOrder, count) in counts.prefix(max(0, order)).enumerated() {
                total += count * (pageSize << blockOrder)
            }
        }
        return total
    }

    /// The checks that need no file read.
    private static func isCandidate(command: String?, userSetting: String?, arguments: [String]) -> Bool {
        guard userSetting == nil, let command, ["build", "serve"].contains(command) else { return false }
        // Help is printed at once: no files to read for it.
        return !arguments.contains { $0 == "-h" || $0 == "--help" }
    }

    /// The kernel's THP mode: the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled.
    public static func kernelMode(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// Whether this run of `blog` (`arguments`: the whole command line) should ask malloc for huge
    /// pages: `shouldAsk` with what the kernel's files say. Read before anything is built.
    public static func wanted(arguments: [String]) -> Bool {
        #if os(Linux)
        let command = arguments.dropFirst().first
        let user = getenv(userSetting).map { String(cString: $0) }
        // Cheap checks first: most runs (tests, --help, other commands) stop here.
        guard isCandidate(command: command, userSetting: user, arguments: arguments) else { return false }
        let mode = readFile("/sys/kernel/mm/transparent_hugepage/enabled").flatMap(kernelMode)
        // Only in madvise mode: a folder listing and five small reads.
        let balloons = "/sys/bus/virtio/drivers/virtio_balloon/"
        let cheaper = mode == "madvise" && smallPagesAreCheaper(
            balloonFeatures: listFolder(balloons).filter { $0.hasPrefix("virtio") }.compactMap { readFile(balloons + $0 + "/features") },
            reportingOrder: readFile("/sys/module/page_reporting/parameters/page_reporting_order").flatMap(number),
            hugePageSize: readFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size").flatMap(number),
            buddyInfo: readFile("/proc/buddyinfo"), pageSize: sysconf(Int32(_SC_PAGESIZE)))
        // The decision the tests check, with what was read.
        return shouldAsk(command: command, userSetting: user, thpMode: mode, arguments: arguments, smallPagesCheaper: cheaper)
        #else
        return false
        #endif
    }

    /// A whole number alone on its line ("9\n").
    public static func number(_ text: String) -> Int? {
        Int(text.split(whereSeparator: { $0 == "\n" || $0 == " " }).first ?? "")
    }

    #if os(Linux)
    /// A small kernel file's text (up to 64 KB), or nil when it cannot be read.
    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        let count = fread(&bytes, 1, bytes.count, file)
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// The names in a folder (empty when it cannot be read).
    private static func listFolder(_ path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return names
    }
    #endif
}
