import BlogCore

/// Entry point of the command-line interface. Returns the process exit code.
public func runBlog(arguments: [String], console: Console) -> Int32 {
    console.print("blog 0.1.0")
    return 0
}
