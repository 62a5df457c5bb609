import BlogCore
import BlogSite
import Foundation

enum BuildCommand: BlogCommand {
    static let name = "build"
    static let abstract = "Build the site from content/ into the output folder."
    static let discussion = """
    Reads blog.yml, content/, static/, layouts/ and themes/ from the source folder and writes the
    site to the output folder. Nothing is written when any file has an error: the previous output
    stays as it was. Only files whose bytes changed are rewritten. When nothing under blog.yml,
    content/, static/, themes/ and layouts/ changed since the last build (and the output folder is
    as that build left it), the build stops at once with "Up to date"; --force builds anyway.
    Ctrl-C stops the build and leaves the output folder as it was (exit status 130).
    """
    static let options: [OptionSpec] = [
        .value("source", "DIR", short: "s", "The site folder (default: the current folder)."),
        .value("output", "DIR", short: "o", "Where to write the site (default: <source>/public)."),
        .flag("drafts", "Include drafts (draft: true, private: true)."),
        .flag("future", "Include posts dated in the future."),
        .value("base-url", "URL", "Override base_url from blog.yml (e.g. https://user.github.io/archive/)."),
        .flag("quiet", short: "q", "Print errors only."),
        .flag("timings", "Print the wall and CPU time of each build phase (phases marked + ran beside the one before)."),
        .flag("force", short: "f", "Build even when nothing changed since the last build."),
        .flag("allow-outside-links", "Follow symbolic links that lead out of the site folder (refused\notherwise, so that a link cannot publish files from elsewhere)."),
    ]

    /// The last build's site, kept past `run`: `blog build` exits right after, and letting go of
    /// every post, tag and view of a large archive one object at a time only to hand the memory
    /// back at exit is work for nothing. A
    /// caller that runs several builds in one process frees each site when the next replaces it.
    nonisolated(unsafe) private static var keptUntilExit: BuiltSite?

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(arguments.positionals[0])'", command: name)
        }
        let started = Date()
        let source = context.resolve(arguments.value("source") ?? ".")
        let output = arguments.value("output").map(context.resolve) ?? source.appendingPathComponent("public")
        try checkSiteFolder(source)
        let writer = OutputWriter(output: output, source: source)
        try writer.validate()
        var options = BuildOptions(siteDirectory: source, includeDrafts: arguments.flag("drafts"),
                                   includeFuture: arguments.flag("future"), baseURL: arguments.value("base-url"))
        options.allowOutsideLinks = arguments.flag("allow-outside-links")
        var stamp = BuildStamp(inputs: BuildStamp.inputs(for: options))
        if !arguments.flag("force") && writer.isUpToDate(stamp) {
            if !arguments.flag("quiet") {
                context.console.print(String(format: "Up to date: nothing changed since the last build of %@ (checked in %.2f s; --force builds anyway)",
                                             output.path, Date().timeIntervalSince(started)))
            }
            return ExitCode.success
        }
        // The site streams into the output folder's staging area as it is rendered; it becomes the
        // output only when everything built (an error leaves the previous output as it was).
        let transaction = try writer.begin()
        // Ctrl-C, a `kill` or a closed terminal while the site is staged: remove what was staged
        // (the output folder stays as it was) and exit as the signal would have (128 + its number).
        // Once the commit has begun, it is finished first.
        let console = context.console
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP]) { number in
            if transaction.interrupt() {
                console.printError("blog build: interrupted; \(output.path) was left as it was")
            }
            _exit(128 + number)
        }
        defer { trap.cancel() }
        let site: BuiltSite
        let summary: OutputWriter.Summary
        let commitStarted: Date
        let commitCPU: Double
        do {
            site = try SiteBuilder.build(options, console: context.console, into: transaction)
            stamp.due = site.model.nextDue
            commitStarted = Date()
            commitCPU = ProcessClock.cpuSeconds()
            summary = try transaction.commit(stamp: stamp)
        } catch {
            transaction.abort()
            // A signal ended the build: its handler has removed what was staged and exits with the
            // signal's status (128 + its number) right after. This thread saw the transaction's
            // "interrupted" error and must not exit first with status 1.
            if transaction.wasInterrupted {
                while true { sleep(60) }
            }
            throw error
        }
        if !arguments.flag("quiet") {
            for warning in site.warnings { context.console.report(warning) }
            if let warning = PlaceholderBaseURL.warning(baseURL: site.model.config.baseURL) { context.console.report(warning) }
        }
        let seconds = Date().timeIntervalSince(started)
        if arguments.flag("timings") {
            for (phase, duration, cpu) in site.timings {
                context.console.printError(BuildCommand.timingLine(phase, seconds: duration, cpuSeconds: cpu))
            }
            context.console.printError(BuildCommand.timingLine("commit", seconds: Date().timeIntervalSince(commitStarted),
                                                               cpuSeconds: ProcessClock.cpuSeconds() - commitCPU))
        }
        if !arguments.flag("quiet") {
            let model = site.model
            let counts = [Wording.count(model.posts.count, "post"), Wording.count(model.pages.count, "page"),
                          Wording.count(model.tags.count, "tag")].joined(separator: ", ")
            let files = Wording.count(summary.written + summary.unchanged, "file")
            context.console.print(String(format: "Built %@ into %@ in %.2f s (%@: %d written, %d unchanged, %d removed)",
                                         counts, output.path, seconds, files, summary.written, summary.unchanged, summary.removed))
        }
        keptUntilExit = site
        return ExitCode.success
    }

    /// `  content    1085.3 ms   2101.7 ms CPU  1.94 cores` (a phase that ran beside another has no CPU of its own).
    static func timingLine(_ phase: String, seconds: Double, cpuSeconds: Double?) -> String {
        var line = "  " + phase.padding(toLength: 9, withPad: " ", startingAt: 0) + String(format: "%8.1f ms", seconds * 1000)
        if let cpuSeconds {
            line += String(format: "  %8.1f ms CPU", cpuSeconds * 1000)
            if seconds >= 0.005 { line += String(format: "  %.2f cores", cpuSeconds / seconds) }
        }
        return line
    }

    /// A clear message when the source is not a site at all.
    static func checkSiteFolder(_ source: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Diagnostic.error("the source folder does not exist", at: SourceLocation(file: source.path))
        }
        let hasConfig = FileManager.default.fileExists(atPath: source.appendingPathComponent("blog.yml").path)
        let hasContent = FileManager.default.fileExists(atPath: source.appendingPathComponent("content").path)
        if !hasConfig && !hasContent {
            throw Diagnostic.error("this is not a blog site: no blog.yml and no content/ folder (create one with 'blog init DIR')",
                                   at: SourceLocation(file: source.path))
        }
    }
}
