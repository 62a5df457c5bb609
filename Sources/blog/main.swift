import BlogCLI
import BlogCore
#if canImport(Glibc)
import Glibc
#endif

// Before anything is allocated: `build` and `serve` start again once with malloc asking for huge pages.
HugePages.restartIfUseful(arguments: CommandLine.arguments)
exit(runBlog(arguments: Array(CommandLine.arguments.dropFirst()), console: Console.standard()))
