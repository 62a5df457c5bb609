import BlogCore
import Foundation

/// What a running command may use: where to write, where it runs.
public struct CommandContext {
    public var console: Console
    public var workingDirectory: URL
    /// Set by `blog serve` so tests can stop it; nil from the command line.
    public var environment: [String: String]

    public init(console: Console, workingDirectory: URL, environment: [String: String] = [:]) {
        self.console = console
        self.workingDirectory = workingDirectory
        self.environment = environment
    }

    /// A path from the command line, relative to the working directory.
    public func resolve(_ path: String) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL }
        return workingDirectory.appendingPathComponent(path).standardizedFileURL
    }
}

/// One subcommand of `blog`.
public protocol BlogCommand {
    static var name: String { get }
    /// One line for `blog --help`.
    static var abstract: String { get }
    /// Extra paragraphs for `blog NAME --help`.
    static var discussion: String { get }
    static var arguments: [ArgumentSpec] { get }
    static var options: [OptionSpec] { get }
    /// Runs the command; returns the exit code (0 ok, 1 failed). Throw `UsageError` for bad arguments.
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32
}

extension BlogCommand {
    public static var discussion: String { "" }
    public static var arguments: [ArgumentSpec] { [] }
}

public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
}

enum HelpText {
    static func command(_ command: BlogCommand.Type) -> String {
        var text = "OVERVIEW: \(command.abstract)\n\n"
        var usage = "USAGE: blog \(command.name)"
        if !command.options.isEmpty { usage += " [options]" }
        for argument in command.arguments {
            var item = "<\(argument.name)>"
            if argument.variadic { item += " ..." }
            usage += argument.optional ? " [\(item)]" : " \(item)"
        }
        text += usage + "\n"
        if !command.discussion.isEmpty {
            text += "\n" + command.discussion + "\n"
        }
        if !command.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in command.arguments {
                text += row("<\(argument.name)>", argument.help)
            }
        }
        text += "\nOPTIONS:\n"
        for option in command.options {
            var left = option.shortNames.map { "-\($0), " }.joined()
            left += "--\(option.name)"
            if let valueName = option.valueName { left += " <\(valueName.lowercased())>" }
            text += row(left, option.help)
        }
        text += row("-h, --help", "Show help information.")
        return text
    }

    static func row(_ left: String, _ help: String) -> String {
        let padded = left.count < 24 ? left + String(repeating: " ", count: 24 - left.count) : left + "\n" + String(repeating: " ", count: 26)
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        var text = "  " + padded + (lines.first.map(String.init) ?? "") + "\n"
        for line in lines.dropFirst() {
            text += String(repeating: " ", count: 26) + line + "\n"
        }
        return text
    }

    static func main(_ commands: [BlogCommand.Type]) -> String {
        var text = """
        OVERVIEW: blog builds a fast static website from an archive of Qiita-style Markdown articles.

        USAGE: blog <subcommand> [options]

        OPTIONS:
          -v, --version           Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:

        """
        for command in commands {
            text += row(command.name, command.abstract)
        }
        text += "\n  See 'blog help <subcommand>' or 'blog <subcommand> --help' for detailed help.\n"
        return text
    }
}
