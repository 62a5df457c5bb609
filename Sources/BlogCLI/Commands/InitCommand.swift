import BlogCore
import BlogImport
import Foundation

enum InitCommand: BlogCommand {
    static let name = "init"
    static let abstract = "Create a new site: blog.yml, content/posts/ with a welcome post, static/."
    static let discussion = """
    The folder is created if needed; an existing folder must be empty (hidden files such as .git
    are fine). The new site builds right away: cd DIR && blog build. Also written: .gitignore
    (public/) and .github/workflows/pages.yml, which publishes the site on GitHub Pages at every
    push (set Settings > Pages > Source to "GitHub Actions" once).
    """
    static let arguments = [ArgumentSpec("dir", "The folder of the new site.")]
    static let options: [OptionSpec] = [
        .value("title", "TITLE", "The site's title (default: My Blog)."),
        .flag("no-workflow", "Do not write the GitHub Pages workflow."),
        .value("action", "REPO@REF", "The blog action the workflow uses (default: \(PublishingFiles.defaultAction))."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 1 else {
            throw UsageError(arguments.positionals.isEmpty ? "missing folder" : "give exactly one folder", command: name)
        }
        let directory = context.resolve(arguments.positionals[0])
        let action = arguments.value("action") ?? PublishingFiles.defaultAction
        guard action.contains("@"), !action.contains(where: { $0 == " " || $0 == "\n" }) else {
            throw UsageError("--action must be OWNER/REPO@REF, not '\(action)'", command: name)
        }
        let created = try SiteScaffold.initSite(at: directory.path, title: arguments.value("title") ?? "My Blog",
                                                workflow: !arguments.flag("no-workflow"), action: action)
        let base = context.workingDirectory.standardizedFileURL.path + "/"
        for path in created {
            context.console.print("created \(path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path)")
        }
        context.console.print("Build it with: blog build --source \(arguments.positionals[0])")
        return ExitCode.success
    }
}
