import BlogCore
import BlogImport
import Foundation

enum InitCommand: BlogCommand {
    static let name = "init"
    static let abstract = "Create a new site: blog.yml, content/posts/ with a welcome post, static/."
    static let discussion = """
    The folder is created if needed; an existing folder must be empty (hidden files such as .git
    are fine). Nothing is built yet; the new site builds as it is: cd DIR && blog serve (or blog build).
    """
    static let arguments = [ArgumentSpec("dir", "The folder of the new site.")]
    static let options: [OptionSpec] = [
        .value("title", "TITLE", "The site's title (default: My Blog)."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw UsageError(arguments.positionals.isEmpty ? "missing folder" : "give exactly one folder", command: name)
        }
        let directory = context.resolve(arguments.positionals[0])
        let created = try SiteScaffold.initSite(at: directory.path, title: arguments.value("title") ?? "My Blog")
        let base = context.workingDirectory.standardizedFileURL.path + "/"
        for path in created {
            context.console.print("created \(path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path)")
        }
        context.console.print("Build it with: blog build --source \(arguments.positionals[0])")
        return ExitCode.success
    }
}
