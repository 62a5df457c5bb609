import BlogMarkdown

/// Which language a flattened code block is in, and how strongly a run of text reads as code.
///
/// Each language has tokens that only it uses in practice (`func`/`guard`/`->` for Swift,
/// `const`/`=>`/`require(` for JavaScript, `pod '`/`do … end` for Podfiles, a `$` prompt or a
/// command name for the shell); the language with the most wins, Swift on a tie. The keywords the
/// highlighter's lexer finds for the winning language add to the code score.
enum DumpLanguage {
    private struct Evidence {
        var language: String
        var patterns: [String]
    }

    private static let evidence: [Evidence] = [
        Evidence(language: "swift", patterns: ["func ", "let ", "var ", "import UIKit", "import SwiftUI", "import Foundation",
                                               "guard ", "@objc", "-> ", "?.", "self.", "override ", "some View", "@IBOutlet",
                                               "@IBAction", "@State", "@main", "extension ", "struct ", "protocol ", "if let ",
                                               "UIApplication", "UIView", "print(", "try?", "try await", "Task {", " as? ",
                                               "DispatchQueue", "[weak self]"]),
        Evidence(language: "javascript", patterns: ["const ", "function", "require(", "=> ", "module.exports", "console.log",
                                                    "exports.", "document.", "});", "let ", "var "]),
        Evidence(language: "ruby", patterns: ["pod '", "target '", " do ", " do", " end", "platform :", "use_frameworks!",
                                              "def ", "require '", "lane :", "source '"]),
        Evidence(language: "kotlin", patterns: ["fun ", "val ", "override fun", "println("]),
        Evidence(language: "objective-c", patterns: ["@interface", "@implementation", "[[", "NSString *", "- (void)", "@end"]),
    ]

    static let shellStarts = ["$ ", "% "]

    static func infer(_ code: String) -> String {
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        if shellStarts.contains(where: { trimmed.hasPrefix($0) }) { return "bash" }
        if let first = trimmed.split(separator: " ").first, DumpCodeLayout.shellCommands.contains(String(first)),
           !trimmed.contains("{"), !trimmed.contains(" = "), !trimmed.contains("'") || first == "git" || first == "echo" {
            return "bash"
        }
        if (trimmed.hasPrefix("{") || trimmed.hasPrefix("[")) && trimmed.contains("\":") { return "json" }
        var best = ("swift", 0)
        for item in evidence {
            let score = item.patterns.reduce(0) { $0 + occurrences(of: $1, in: code) }
            if score > best.1 { best = (item.language, score) }
        }
        if best.1 == 0, isYAML(trimmed) { return "yaml" }
        return best.0
    }

    private static func isYAML(_ text: String) -> Bool {
        let words = text.split(separator: " ")
        let keys = words.filter { $0.hasSuffix(":") && $0.count > 1 }.count
        return keys >= 3 && !text.contains("(") && !text.contains("{") && !text.contains(";")
    }

    static func occurrences(of pattern: String, in text: String) -> Int {
        var count = 0
        var rest = Substring(text)
        while let range = rest.range(of: pattern) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }

    /// How much `text` reads as code: symbols of code, words used as code, keywords of `language`
    /// as its lexer finds them. Prose with a few English words scores 0 to 2.
    static func codeScore(_ text: String, language: String) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 8, trimmed.contains(" ") else { return 0 }
        var score = 0
        if trimmed.contains("{") || trimmed.contains("}") { score += 1 }
        if trimmed.contains("(") && trimmed.contains(")") { score += 1 }
        if trimmed.contains(" = ") || trimmed.contains(";") || trimmed.contains("->") || trimmed.contains("=>") { score += 1 }
        if shellStarts.contains(where: { trimmed.hasPrefix($0) }) { score += 3 }
        if language == "bash", let first = trimmed.split(separator: " ").first,
           DumpCodeLayout.shellCommands.contains(String(first)) { score += 3 }
        if language == "json" { score += 2 }
        if language == "yaml" { score += 3 }
        let keywords = DumpCodeTokens.highlightedRuns(trimmed, language: language).filter { $0.cls == "kw" }.count
        score += min(keywords, 3)
        if startsWithKeyword(trimmed) || DumpCodeTokens.startsCode(trimmed) { score += 1 }
        return score
    }

    static let openingKeywords: Set<String> = [
        "import", "let", "var", "func", "class", "struct", "enum", "protocol", "extension", "const", "function",
        "export", "module", "platform", "target", "pod", "source", "use_frameworks!", "def", "require", "fun", "val",
        "package", "@objc", "@main", "#import", "override", "private", "public", "final", "lane", "default_platform",
    ]

    /// Whether `text` begins with a keyword that opens a file or a declaration.
    static func startsWithKeyword(_ text: String) -> Bool {
        let word = text.prefix(while: { !$0.isWhitespace && $0 != "(" && $0 != "{" })
        return openingKeywords.contains(String(word))
    }
}

import Foundation
