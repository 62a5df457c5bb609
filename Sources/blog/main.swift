import BlogCLI
import BlogCore
#if canImport(Glibc)
import Glibc
#endif

// Before anything is allocated: `build` and `serve` start again once with malloc asking for huge pages.
HugePages.restartIfUseful(arguments: CommandLine.arguments)
// `build` (one process, one build) has malloc grow its heaps in large steps; see Memory.tuneForBuild.
if Memory.shouldTune(command: CommandLine.arguments.dropFirst().first,
                     environmentTunables: getenv("GLIBC_TUNABLES").map { String(cString: $0) }) {
    Memory.tuneForBuild()
}
exit(runBlog(arguments: Array(CommandLine.arguments.dropFirst()), console: Console.standard()))
