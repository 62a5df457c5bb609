import BlogCore
import BlogSite
import Foundation

/// Every subcommand, in the order `blog --help` lists them.
public let allCommands: [BlogCommand.Type] = [
    BuildCommand.self,
    ServeCommand.self,
    CheckCommand.self,
    ThemeCommand.self,
    ImportCommand.self, NewCommand.self, InitCommand.self,
]

/// Entry point of the command-line interface. Returns the process exit code:
/// 0 success, 1 failure, 64 usage error. Results go to stdout, messages to stderr.
public func runBlog(arguments: [String], context: CommandContext) -> Int32 {
    let console = context.console
    guard let first = arguments.first else {
        console.printError(HelpText.main(allCommands))
        return ExitCode.usage
    }
    switch first {
    case "-h", "--help":
        console.print(HelpText.main(allCommands))
        return ExitCode.success
    case "--version", "-v", "-V", "version":
        console.print("blog \(BlogVersion.current)")
        return ExitCode.success
    case "help":
        guard arguments.count > 1 else {
            console.print(HelpText.main(allCommands))
            return ExitCode.success
        }
        guard let command = allCommands.first(where: { $0.name == arguments[1] }) else {
            return unknownCommand(arguments[1], console: console)
        }
        console.print(HelpText.command(command))
        return ExitCode.success
    default:
        break
    }
    guard let command = allCommands.first(where: { $0.name == first }) else {
        return unknownCommand(first, console: console)
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        console.print(HelpText.command(command))
        return ExitCode.success
    }
    do {
        var elsewhere: [String: String] = [:]
        for other in allCommands.reversed() where other.name != command.name {
            for option in other.options { elsewhere[option.name] = other.name }
        }
        let parsed = try ParsedArguments.parse(rest, options: command.options, command: command.name, elsewhere: elsewhere)
        return try command.run(parsed, context: context)
    } catch let error as UsageError {
        console.report(.error(error.message))
        console.printError("Run 'blog \(error.command) --help' for usage.")
        return ExitCode.usage
    } catch let list as DiagnosticList {
        for diagnostic in list.diagnostics { console.report(diagnostic) }
        return ExitCode.failure
    } catch let diagnostic as Diagnostic {
        console.report(diagnostic)
        return ExitCode.failure
    } catch {
        console.report(.error("\(error)"))
        return ExitCode.failure
    }
}

/// `blog biuld`: the nearest command when there is one, and where to find them all.
private func unknownCommand(_ name: String, console: Console) -> Int32 {
    let hint: String
    if name.hasPrefix("-") {
        hint = "unknown option '\(name)'" + Suggestion.hint(String(name.drop { $0 == "-" }), among: ["help", "version"], prefix: "--")
    } else {
        hint = "unknown command '\(name)'" + Suggestion.hint(name, among: allCommands.map { $0.name } + ["help", "version"])
    }
    console.report(.error("\(hint). Run 'blog --help' to see the commands."))
    return ExitCode.usage
}

public func runBlog(arguments: [String], console: Console) -> Int32 {
    runBlog(arguments: arguments, context: CommandContext(console: console,
                                                          workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                                                          environment: ProcessInfo.processInfo.environment))
}
