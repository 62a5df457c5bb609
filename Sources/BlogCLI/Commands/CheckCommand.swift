import BlogCore
import BlogSite
import Foundation

enum CheckCommand: BlogCommand {
    static let name = "check"
    static let abstract = "Build the site in memory and check that every internal link and #anchor resolves."
    static let discussion = """
    Nothing is written. Each broken link is reported with the Markdown file and line it came from
    (or the page, when a theme template made it). External links are not fetched.
    Exit status: 0 when every link resolves, 1 when any is broken or the site does not build.
    """
    static let options: [OptionSpec] = [
        .value("source", "DIR", short: "s", "The site folder (default: the current folder)."),
        .flag("drafts", "Include drafts."),
        .flag("future", "Include posts dated in the future."),
        .value("base-url", "URL", "Override base_url from blog.yml."),
        .flag("allow-outside-links", "Follow symbolic links that lead out of the site folder."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(arguments.positionals[0])'", command: name)
        }
        let source = context.resolve(arguments.value("source") ?? ".")
        try BuildCommand.checkSiteFolder(source)
        var options = BuildOptions(siteDirectory: source, includeDrafts: arguments.flag("drafts"),
                                   includeFuture: arguments.flag("future"), baseURL: arguments.value("base-url"))
        options.allowOutsideLinks = arguments.flag("allow-outside-links")
        let site = try SiteBuilder.build(options, console: context.console)
        for warning in site.warnings { context.console.report(warning) }
        let broken = LinkChecker(site: site).check()
        for link in broken { context.console.printError(link.description) }
        let pages = site.files.filter { $0.path.hasSuffix(".html") }.count
        if broken.isEmpty {
            context.console.print("Checked \(Wording.count(pages, "page")): every internal link resolves.")
            return ExitCode.success
        }
        context.console.print("Checked \(Wording.count(pages, "page")): \(Wording.count(broken.count, "broken link")).")
        return ExitCode.failure
    }
}
