import BlogCLI
import BlogCore
import CMimalloc
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Before the build allocates: mimalloc (this program's malloc) asks for huge pages for what it
// maps from here on (see HugePages).
if HugePages.wanted(arguments: CommandLine.arguments) {
    mi_option_enable(mi_option_large_os_pages)
}
exit(runBlog(arguments: Array(CommandLine.arguments.dropFirst()), console: Console.standard()))
