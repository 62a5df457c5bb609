import BlogContent
import BlogCore
import BlogImport
import Foundation

enum NewCommand: BlogCommand {
    static let name = "new"
    static let abstract = "Create a new post in content/posts/ and print its path."
    static let discussion = """
    The file is content/posts/<date>-<slug>.md, dated now in the site's time zone (blog.yml
    'timezone', default Asia/Tokyo). Without --slug the slug is made from the title as the build
    makes it for a post without one: lowercased letters and digits of every script joined by '-'
    ("はじめての記事" → はじめての記事, "SwiftUIのState" → swiftuiのstate).
    """
    static let arguments = [ArgumentSpec("title", "The post's title.")]
    static let options: [OptionSpec] = [
        .value("source", "DIR", short: "s", "The site folder (default: the current folder)."),
        .value("tags", "TAGS", short: "t", repeatable: true, "Tags, separated by commas (Swift,iOS)."),
        .value("slug", "SLUG", "The slug (ASCII letters, digits, '-', '_')."),
        .flag("draft", "Mark the post as a draft."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw UsageError(arguments.positionals.isEmpty ? "missing title" : "give the title as one argument (quote it)", command: name)
        }
        let source = context.resolve(arguments.value("source") ?? ".")
        try BuildCommand.checkSiteFolder(source)
        let config = try SiteConfig.load(siteDirectory: source, console: context.console)
        let tags = arguments.allValues("tags").flatMap { $0.split(separator: ",").map(String.init) }
        if let slug = arguments.value("slug"), !Slugs.isValid(slug) {
            throw UsageError("invalid --slug '\(slug)': use ASCII letters, digits, '-' and '_'", command: name)
        }
        let posts = source.appendingPathComponent("content").appendingPathComponent("posts").path
        let path = try PostCreator.newPost(title: arguments.positionals[0], tags: tags, slug: arguments.value("slug"),
                                           draft: arguments.flag("draft"), postsDirectory: posts, timeZone: config.timezone)
        let base = context.workingDirectory.standardizedFileURL.path + "/"
        context.console.print(path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path)
        return ExitCode.success
    }
}
