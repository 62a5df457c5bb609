#if canImport(Glibc)
import Glibc
#endif

/// Transparent huge pages for malloc's memory. A 10,000-post build touches ~400 MB and a
/// 100,000-post one ~3.6 GB of fresh memory; in 4 KB pages that is ~170,000 and ~1.5 million page
/// faults (most of the build's system time). glibc asks the kernel for huge pages only when its
/// `glibc.malloc.hugetlb` tunable is set, which it reads from the environment at start-up, so
/// `blog` starts itself again once with it set, when the kernel gives huge pages on request
/// ("madvise" mode; in "always" mode they come anyway, in "never" not at all).
public enum HugePages {
    /// The tunable that makes glibc's malloc ask for transparent huge pages.
    public static let tunable = "glibc.malloc.hugetlb=1"

    /// Whether to start again with `GLIBC_TUNABLES` set: only when the user set no tunables of
    /// their own (theirs win, and a set value also stops a second restart), for the commands that
    /// build a whole site, and when the kernel's THP mode is "madvise".
    public static func shouldRestart(command: String?, environmentTunables: String?, thpMode: String?, arguments: [String] = []) -> Bool {
        isCandidate(command: command, environmentTunables: environmentTunables, arguments: arguments) && thpMode == "madvise"
    }

    /// The checks that need no file read.
    private static func isCandidate(command: String?, environmentTunables: String?, arguments: [String]) -> Bool {
        guard environmentTunables == nil, let command, ["build", "serve"].contains(command) else { return false }
        // Starting again costs ~20 ms (the program's start-up): not for printing help.
        return !arguments.contains { $0 == "-h" || $0 == "--help" }
    }

    /// The kernel's THP mode: the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled.
    public static func kernelMode(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// Starts this program again with the tunable set when `shouldRestart` says so; returns when
    /// it does not (or when the restart failed, so the build goes on in this process).
    public static func restartIfUseful(arguments: [String]) {
        #if os(Linux)
        let command = arguments.dropFirst().first
        let current = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        // Cheap checks first: most runs (tests, --help, other commands) stop here.
        guard isCandidate(command: command, environmentTunables: current, arguments: arguments) else { return }
        guard let file = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r") else { return }
        var buffer = [CChar](repeating: 0, count: 128)
        let line = fgets(&buffer, Int32(buffer.count), file).map { _ in String(cString: buffer) }
        fclose(file)
        guard line.flatMap(kernelMode) == "madvise" else { return }
        setenv("GLIBC_TUNABLES", tunable, 1)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", &argv)
        // execv returned: it failed; go on here, without the tunable in the environment of children.
        unsetenv("GLIBC_TUNABLES")
        for pointer in argv { free(pointer) }
        #endif
    }
}
