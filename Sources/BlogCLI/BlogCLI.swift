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
    case "--version", "-V", "version":
        console.print("blog \(BlogVersion.current)")
        return ExitCode.success
    case "help":
        if arguments.count > 1, let command = allCommands.first(where: { $0.name == arguments[1] }) {
            console.print(HelpText.command(command))
        } else {
            console.print(HelpText.main(allCommands))
        }
        return ExitCode.success
    default:
        break
    }
    guard let command = allCommands.first(where: { $0.name == first }) else {
        console.printError("error: unknown command '\(first)'. Run 'blog --help' to see the commands.")
        return ExitCode.usage
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        console.print(HelpText.command(command))
        return ExitCode.success
    }
    do {
        let parsed = try ParsedArguments.parse(rest, options: command.options, command: command.name)
        return try command.run(parsed, context: context)
    } catch let error as UsageError {
        console.printError("error: \(error.message)\nRun 'blog \(error.command) --help' for usage.")
        return ExitCode.usage
    } catch let list as DiagnosticList {
        for diagnostic in list.diagnostics { console.report(diagnostic) }
        return ExitCode.failure
    } catch let diagnostic as Diagnostic {
        console.report(diagnostic)
        return ExitCode.failure
    } catch {
        console.printError("error: \(error)")
        return ExitCode.failure
    }
}

public func runBlog(arguments: [String], console: Console) -> Int32 {
    runBlog(arguments: arguments, context: CommandContext(console: console,
                                                          workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                                                          environment: ProcessInfo.processInfo.environment))
}
