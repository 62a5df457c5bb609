import BlogCLI
import BlogCore
import CMimalloc
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// mimalloc is this program's malloc; it asks for huge pages only when the user sets
// MIMALLOC_LARGE_OS_PAGES, which it reads itself.
exit(runBlog(arguments: Array(CommandLine.arguments.dropFirst()), console: Console.standard()))
