import BlogCore

/// A declared option of a command.
public struct OptionSpec: Sendable {
    public var name: String
    public var short: Character?
    /// Placeholder of the value (`DIR`); nil for a flag.
    public var valueName: String?
    public var help: String
    /// May be given several times (values collected).
    public var repeatable: Bool

    public static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help, repeatable: false)
    }

    public static func value(_ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: valueName, help: help, repeatable: repeatable)
    }

    /// The option's own short letter, then those `sharedShortNames` gives every option of its name.
    public var shortNames: [Character] {
        (short.map { [$0] } ?? []) + (OptionSpec.sharedShortNames[name] ?? []).filter { $0 != short }
    }

    /// Short letters a Hugo user reaches for, accepted by every command that has the long option.
    static let sharedShortNames: [String: [Character]] = [
        "drafts": ["D"],
        "future": ["F"],
        "base-url": ["b"],
        "output": ["d"],
    ]
}

/// A positional argument, for help text.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var optional: Bool
    public var variadic: Bool

    public init(_ name: String, _ help: String, optional: Bool = false, variadic: Bool = false) {
        self.name = name
        self.help = help
        self.optional = optional
        self.variadic = variadic
    }
}

/// A wrong command line: printed with a hint to `--help`, exit code 64.
public struct UsageError: Error, Equatable {
    public var message: String
    public var command: String

    public init(_ message: String, command: String) {
        self.message = message
        self.command = command
    }
}

/// Parsed command line of one command.
public struct ParsedArguments: Sendable {
    public var flags: Set<String> = []
    public var values: [String: [String]] = [:]
    public var positionals: [String] = []

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func allValues(_ name: String) -> [String] { values[name] ?? [] }

    /// Parses `arguments` against `options`. `--` ends options. `--name=value` and `--name value` both work.
    /// `elsewhere` names, for an option this command lacks, a command that has it (for the message).
    public static func parse(_ arguments: [String], options: [OptionSpec], command: String,
                             elsewhere: [String: String] = [:]) throws -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        func spec(named name: String) throws -> OptionSpec {
            if let found = options.first(where: { $0.name == name }) { return found }
            var hint = Suggestion.hint(name, among: options.map(\.name) + ["help"], prefix: "--")
            if hint.isEmpty, let other = elsewhere[name] { hint = " (it is an option of 'blog \(other)')" }
            throw UsageError("unknown option '--\(name)'\(hint)", command: command)
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name: String
            var inlineValue: String?
            if argument.hasPrefix("--") {
                name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
            } else {
                let letters = Array(argument.dropFirst())
                // An option's own letter wins over a shared one.
                guard letters.count == 1, let option = options.first(where: { $0.short == letters[0] })
                        ?? options.first(where: { $0.shortNames.contains(letters[0]) }) else {
                    throw UsageError("unknown option '\(argument)'\(shortHint(letters, options: options))", command: command)
                }
                name = option.name
            }
            let option = try spec(named: name)
            if let valueName = option.valueName {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError("option '--\(name)' needs a value (\(valueName))", command: command)
                }
                if !option.repeatable && result.values[name] != nil {
                    throw UsageError("option '--\(name)' was given more than once", command: command)
                }
                result.values[name, default: []].append(value)
            } else {
                if inlineValue != nil {
                    throw UsageError("option '--\(name)' takes no value", command: command)
                }
                result.flags.insert(name)
            }
        }
        return result
    }

    /// The letter in the other case (`-D` for `-d`), or the long option meant with one dash (`-drafts`).
    static func shortHint(_ letters: [Character], options: [OptionSpec]) -> String {
        if letters.count == 1 {
            let letter = letters[0]
            let swapped = Character(letter.isUppercase ? letter.lowercased() : letter.uppercased())
            if let option = options.first(where: { $0.shortNames.contains(swapped) }) {
                return " (did you mean -\(swapped), --\(option.name)?)"
            }
            return ""
        }
        // `-drafts`: one dash where two were meant.
        return Suggestion.hint(String(letters), among: options.map(\.name), prefix: "--")
    }
}
