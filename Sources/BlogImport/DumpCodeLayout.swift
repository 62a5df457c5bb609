/// Gives a flattened code block its lines back. The dump joined the block's lines with one space
/// and dropped indentation, so a line break can only go where a space is; which spaces were line
/// breaks is read from the tokens (statement boundaries, braces, comments, attributes, `case`),
/// and the indentation is rebuilt from the nesting.
enum DumpCodeLayout {
    static func layout(_ code: String, language: String) -> String {
        switch language {
        case "ruby": return RubyLayout.layout(DumpCodeTokens.tokens(code, language: "ruby"))
        case "bash", "shell", "sh", "console": return shellLayout(DumpCodeTokens.tokens(code, language: "bash"))
        case "json": return jsonLayout(DumpCodeTokens.tokens(code, language: "json"))
        case "yaml": return yamlLayout(code)
        case "swift", "javascript", "typescript", "kotlin", "java", "objective-c", "c", "cpp", "go", "rust", "dart":
            let indent = language == "javascript" || language == "typescript" ? "  " : "    "
            return BraceLayout(language: language, indent: indent).layout(DumpCodeTokens.tokens(code, language: language))
        default:
            return code
        }
    }

    /// Writes tokens with their spaces, one line per `breaks` entry (indentation depth, or nil for
    /// no break before that token).
    static func render(_ tokens: [DumpCodeToken], breaks: [Int?], indent: String) -> String {
        var out = ""
        for (index, token) in tokens.enumerated() {
            if index > 0 {
                if let depth = breaks[index] {
                    out += "\n" + String(repeating: indent, count: max(0, depth))
                } else if token.spaceBefore {
                    out += " "
                }
            }
            out += token.text
        }
        return out
    }

    static let shellCommands: Set<String> = [
        "git", "npm", "npx", "yarn", "brew", "pod", "cd", "mkdir", "rm", "cp", "mv", "ls", "cat", "echo", "export",
        "curl", "open", "sudo", "gem", "bundle", "swift", "xcodebuild", "xcrun", "carthage", "firebase", "fastlane",
        "flutter", "node", "python", "python3", "pip", "touch", "chmod", "defaults", "killall", "mint", "make", "docker",
    ]
    /// Words after which a command name is an argument, not a new command.
    static let commandPrefixes: Set<String> = ["sudo", "exec", "xargs", "time", "env", "run", "which", "install", "help"]

    /// A shell block: a prompt `$` or a known command name after an argument starts a new line.
    static func shellLayout(_ tokens: [DumpCodeToken]) -> String {
        var breaks: [Int?] = Array(repeating: nil, count: tokens.count)
        var previousWord: String?
        for (index, token) in tokens.enumerated() {
            defer { previousWord = token.kind == .word || token.kind == .keyword ? token.text : previousWord }
            guard index > 0, token.spaceBefore else { continue }
            let previous = tokens[index - 1]
            let joiner = previous.kind == .operator || previous.isPunctuation(";") || previous.isPunctuation("\\")
            let partOfWord = index + 1 < tokens.count && !tokens[index + 1].spaceBefore && tokens[index + 1].kind != .word
            if token.text == "$" || token.kind == .comment {
                breaks[index] = 0
            } else if previous.text == "$" {
                breaks[index] = nil
            } else if !joiner, !partOfWord, shellCommands.contains(token.text), token.kind == .word || token.kind == .keyword,
                      !(previousWord.map { commandPrefixes.contains($0) || shellCommands.contains($0) } ?? false),
                      !(index + 1 < tokens.count && tokens[index + 1].isPunctuation("=")) {
                breaks[index] = 0
            } else if previous.kind == .comment {
                breaks[index] = 0
            }
        }
        return render(tokens, breaks: breaks, indent: "")
    }

    /// JSON: one member or element a line, indented by nesting.
    static func jsonLayout(_ tokens: [DumpCodeToken]) -> String {
        var breaks: [Int?] = Array(repeating: nil, count: tokens.count)
        var depth = 0
        for (index, token) in tokens.enumerated() {
            let closes = token.isPunctuation("}") || token.isPunctuation("]")
            if closes { depth -= 1 }
            if index > 0 {
                let previous = tokens[index - 1]
                if previous.isPunctuation("{") || previous.isPunctuation("[") || previous.isPunctuation(",") || closes {
                    if token.spaceBefore { breaks[index] = depth }
                }
            }
            if token.isPunctuation("{") || token.isPunctuation("[") { depth += 1 }
        }
        return render(tokens, breaks: breaks, indent: "  ")
    }

    /// YAML: a `key:` or a `- ` item starts a line. The nesting went with the indentation; it is
    /// guessed: a key or item right after a key without a value is nested one deeper, one after a
    /// value is the previous key's sibling.
    static func yamlLayout(_ code: String) -> String {
        let words = code.split(separator: " ", omittingEmptySubsequences: false)
        var out = ""
        var level = 0
        for (index, word) in words.enumerated() {
            if index > 0 {
                let previous = words[index - 1]
                let isKey = word.hasSuffix(":") && word.count > 1
                let previousIsKey = previous.hasSuffix(":") && previous.count > 1
                if (isKey || word == "-") && previous != "-" {
                    if previousIsKey { level += 1 }
                    out += "\n" + String(repeating: "  ", count: level)
                } else {
                    out += " "
                }
            }
            out += word
        }
        return out
    }
}
