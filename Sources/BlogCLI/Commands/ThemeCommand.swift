import BlogCore
import BlogSite
import DefaultTheme
import Foundation

enum ThemeCommand: BlogCommand {
    static let name = "theme"
    static let abstract = "Work with themes: 'blog theme new NAME' copies the default theme for customising."
    static let discussion = """
    SUBCOMMANDS:
      new <name>              Copy the built-in default theme into themes/<name>/. Set 'theme: <name>'
                              in blog.yml to use it. Templates you do not change can also be
                              deleted: missing ones fall back to the built-in default theme.
      list                    List the themes of the site.
    """
    static let arguments = [ArgumentSpec("subcommand", "new or list"), ArgumentSpec("name", "The new theme's name.", optional: true)]
    static let options: [OptionSpec] = [
        .value("source", "DIR", short: "s", "The site folder (default: the current folder)."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let source = context.resolve(arguments.value("source") ?? ".")
        switch arguments.positionals.first {
        case "new":
            guard arguments.positionals.count == 2 else {
                throw UsageError("'theme new' needs exactly one theme name", command: name)
            }
            let themeName = arguments.positionals[1]
            guard !themeName.isEmpty, !themeName.hasPrefix("."), !themeName.contains("/"), themeName != "default" else {
                throw UsageError("invalid theme name '\(themeName)': use a simple folder name other than 'default'", command: name)
            }
            let target = source.appendingPathComponent("themes").appendingPathComponent(themeName)
            if FileManager.default.fileExists(atPath: target.path) {
                throw Diagnostic.error("themes/\(themeName) already exists; nothing was changed", at: SourceLocation(file: target.path))
            }
            for (path, bytes) in DefaultTheme.files.sorted(by: { $0.key < $1.key }) {
                var content = bytes
                if path == "theme.yml" {
                    content = Array("name: \(themeName)\ndescription: Based on the blog default theme\nversion: 0.1.0\n".utf8)
                }
                let url = target.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(content).write(to: url, options: .withoutOverwriting)
            }
            context.console.print("Created themes/\(themeName)/ (\(DefaultTheme.files.count) files). Set 'theme: \(themeName)' in blog.yml to use it.")
            return ExitCode.success
        case "list":
            let builtIn = try ThemeInfo.parse(String(decoding: DefaultTheme.files["theme.yml"] ?? [], as: UTF8.self), path: "theme.yml", console: nil)
            context.console.print("default \(builtIn.version) (built in): \(builtIn.description)")
            let themes = source.appendingPathComponent("themes")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: themes.path)) ?? []
            for theme in names.sorted() where !theme.hasPrefix(".") {
                let info = try ThemeInfo.load(themes.appendingPathComponent(theme), displayPath: "themes/\(theme)/theme.yml", console: context.console)
                    ?? ThemeInfo(name: theme)
                let version = info.version.isEmpty ? "" : " \(info.version)"
                let description = info.description.isEmpty ? "" : ": \(info.description)"
                context.console.print("\(theme)\(version) (themes/\(theme))\(description)")
            }
            return ExitCode.success
        case let other?:
            let hint = Suggestion.hint(other, among: ["new", "list"])
            throw UsageError("unknown theme subcommand '\(other)'\(hint); use 'new NAME' or 'list'", command: name)
        case nil:
            throw UsageError("missing theme subcommand (use 'new NAME' or 'list')", command: name)
        }
    }
}
