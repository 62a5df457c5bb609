#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Transparent huge pages for the heap. `blog` links mimalloc as its malloc, which asks the kernel
/// for huge pages for its segments when its `large_os_pages` option is on. `blog build` and `blog
/// serve` turn it on at start-up when the kernel gives huge pages only on request ("madvise" mode;
/// in "always" mode they come anyway, in "never" not at all), unless the user decided with
/// `MIMALLOC_LARGE_OS_PAGES`. Elsewhere than Linux nothing is asked.
public enum HugePages {
    /// The environment variable with which the user decides for mimalloc: set (to anything), it wins.
    public static let userSetting = "MIMALLOC_LARGE_OS_PAGES"

    /// Whether to ask for huge pages: for the commands that build a whole site, when the user did
    /// not decide (`userSetting`'s value, nil when unset), and when the kernel's THP mode is
    /// "madvise".
    public static func shouldAsk(command: String?, userSetting: String?, thpMode: String?, arguments: [String] = []) -> Bool {
        isCandidate(command: command, userSetting: userSetting, arguments: arguments) && thpMode == "madvise"
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
    /// pages: `shouldAsk` with what the kernel says. Read before anything is built.
    public static func wanted(arguments: [String]) -> Bool {
        #if os(Linux) && !BLOG_PORTABLE
        let command = arguments.dropFirst().first
        let user = getenv(userSetting).map { String(cString: $0) }
        // Cheap checks first: most runs (tests, --help, other commands) stop here.
        guard isCandidate(command: command, userSetting: user, arguments: arguments) else { return false }
        let mode = readFile("/sys/kernel/mm/transparent_hugepage/enabled").flatMap(kernelMode)
        return shouldAsk(command: command, userSetting: user, thpMode: mode, arguments: arguments)
        #else
        return false
        #endif
    }

    #if os(Linux) && !BLOG_PORTABLE
    /// A small kernel file's text, or nil when it cannot be read.
    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = fread(&bytes, 1, bytes.count, file)
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
    #endif
}
