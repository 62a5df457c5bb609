import BlogCLI
import BlogCore
#if canImport(Glibc)
import Glibc
#endif

exit(runBlog(arguments: Array(CommandLine.arguments.dropFirst()), console: Console.standard()))
