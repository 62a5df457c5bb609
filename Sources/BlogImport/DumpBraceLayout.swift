/// Line breaks and indentation for brace languages (Swift first; also JavaScript, Kotlin, Java,
/// Objective-C): a statement keyword, an attribute, a comment, a closing brace, or one expression
/// directly after another (`a = b c.d()`, which no such language allows on one line) starts a line;
/// `{` of a declaration or control statement opens an indented block, a short one stays inline
/// (`{ $0.name }`, `else { return }`); `case`/`default` sit at their `switch`'s depth.
struct BraceLayout {
    var language: String
    var indent: String

    static let starters: Set<String> = [
        "let", "var", "func", "class", "struct", "enum", "protocol", "extension", "import", "return", "guard", "if",
        "switch", "case", "default", "for", "while", "repeat", "do", "init", "deinit", "typealias", "defer", "throw",
        "break", "continue", "fallthrough", "override", "private", "fileprivate", "public", "internal", "open", "static",
        "final", "lazy", "weak", "unowned", "mutating", "convenience", "required", "actor", "associatedtype",
        "const", "function", "export", "try", "val", "fun", "object", "interface", "package", "protected",
    ]
    /// Words after which a statement keyword continues the same line.
    static let continuing: Set<String> = [
        "override", "private", "fileprivate", "public", "internal", "open", "static", "final", "lazy", "weak", "unowned",
        "mutating", "nonmutating", "convenience", "required", "class", "dynamic", "optional", "nonisolated", "export",
        "async", "if", "guard", "while", "for", "case", "else", "return", "await", "try", "default", "indirect", "data",
        "suspend", "inline", "abstract", "sealed", "protected", "inner", "enum", "throw", "package", "new", "in", "let",
        "var", "const", "yield", "some", "any", "as", "is",
    ]
    /// Statements whose `{` always opens a block of its own lines (a `guard`'s `else { … }` may stay inline).
    static let blockHeads: Set<String> = [
        "func", "class", "struct", "enum", "protocol", "extension", "init", "deinit", "if", "for", "while", "switch",
        "do", "repeat", "actor", "function", "fun", "object", "interface", "else", "catch",
    ]
    static let operandKeywords: Set<String> = ["self", "super", "Self", "this", "true", "false", "nil", "null", "undefined"]

    private struct Opener {
        var symbol: String
        var inline: Bool
        var isSwitch: Bool
    }

    func layout(_ tokens: [DumpCodeToken]) -> String {
        var breaks: [Int?] = Array(repeating: nil, count: tokens.count)
        var stack: [Opener] = []
        var lineStart = 0
        var breakAfter = Set<Int>()
        var attributeActive = false
        var labelColonPending = false
        var inlineCloses = Set<Int>()
        var closureHead = -1
        var depth: Int { stack.filter { $0.symbol == "{" && !$0.inline }.count }

        for (index, token) in tokens.enumerated() {
            let closes = token.isPunctuation("}") || token.isPunctuation(")") || token.isPunctuation("]")
            var closedOpener: Opener?
            if closes, !stack.isEmpty { closedOpener = stack.removeLast() }
            if index > 0 && token.spaceBefore {
                let previous = tokens[index - 1]
                let inParens = stack.last.map { $0.symbol != "{" } ?? false
                var shouldBreak = false
                var extra = 0
                if breakAfter.contains(index - 1) || previous.kind == .comment {
                    shouldBreak = true
                } else if inParens || index <= closureHead {
                    shouldBreak = false
                } else if token.isPunctuation("}") {
                    shouldBreak = !(closedOpener?.inline ?? false)
                } else if previous.isPunctuation("}"), !inlineCloses.contains(index - 1),
                          !token.isWord(["else", "catch", "while", "finally"]),
                          !(token.kind == .punctuation && ")],.;?!".contains(token.text)) {
                    shouldBreak = true
                } else if token.kind == .comment {
                    shouldBreak = true
                } else if token.isPunctuation("#") {
                    // A preprocessor line (`#import`, `#if`); `if #available` continues.
                    shouldBreak = !continues(previous)
                } else if language == "objective-c", token.kind == .operator, token.text == "-" || token.text == "+",
                          index + 1 < tokens.count, tokens[index + 1].isPunctuation("("),
                          previous.kind == .word || previous.kind == .keyword || previous.isPunctuation(";") {
                    // An Objective-C method: `- (void)viewDidLoad`.
                    shouldBreak = true
                } else if token.isPunctuation("@") {
                    shouldBreak = !attributeActive
                } else if attributeActive, token.isWord(["class", "struct", "enum", "actor", "protocol", "extension"]) {
                    // `@main` and `@MainActor` sit on a line of their own above a type.
                    shouldBreak = previous.kind == .word || previous.isPunctuation(")")
                } else if (token.kind == .keyword || token.kind == .word), BraceLayout.starters.contains(token.text) {
                    shouldBreak = !attributeActive && !continues(previous, after: index >= 2 ? tokens[index - 2] : nil)
                } else if isOperandStart(token), isOperandEnd(previous),
                          !(index >= 2 && previous.kind == .operator && tokens[index - 2].isWord(["as", "try"])) {
                    shouldBreak = !attributeActive
                } else if token.isPunctuation("."), isOperandEnd(previous) || previous.isPunctuation("}") {
                    // A modifier chain (`Text("a") .padding()`): indented under its receiver, level with a closing brace.
                    shouldBreak = true
                    extra = previous.isPunctuation("}") ? 0 : 1
                }
                if shouldBreak {
                    var level = depth + extra
                    if token.isWord(["case", "default"]), stack.last?.isSwitch == true { level -= 1 }
                    breaks[index] = level
                    lineStart = index
                    labelColonPending = token.isWord(["case", "default"]) && stack.last?.isSwitch == true
                    attributeActive = false
                }
            }
            if token.isPunctuation("}"), closedOpener?.inline == true { inlineCloses.insert(index) }
            if token.isPunctuation("@") { attributeActive = true }
            if token.kind == .keyword && !token.isWord(["class"]) && attributeActive && index > lineStart { attributeActive = false }
            if token.isPunctuation("{") {
                let words = Set(tokens[lineStart..<index].filter { $0.kind == .keyword || $0.kind == .word }.map(\.text))
                let blockHead = !words.isDisjoint(with: BraceLayout.blockHeads) && !words.contains("guard")
                let inline = !blockHead && isShort(tokens, openingAt: index)
                let isSwitch = tokens[lineStart...index].contains { $0.isWord(["switch", "when"]) }
                stack.append(Opener(symbol: "{", inline: inline, isSwitch: isSwitch))
                if !inline {
                    let head = closureHeadEnd(tokens, openingAt: index)
                    breakAfter.insert(head ?? index)
                    closureHead = head ?? closureHead
                }
            } else if token.isPunctuation("(") || token.isPunctuation("[") {
                stack.append(Opener(symbol: token.text, inline: true, isSwitch: false))
            } else if token.isPunctuation(";"), !(stack.last.map { $0.symbol != "{" } ?? false) {
                breakAfter.insert(index)
            } else if token.isPunctuation(":"), labelColonPending, !(stack.last.map { $0.symbol != "{" } ?? false) {
                breakAfter.insert(index)
                labelColonPending = false
            }
        }
        return DumpCodeLayout.render(tokens, breaks: breaks, indent: indent)
    }

    /// Whether a statement keyword after `previous` continues its line (`private var`, `= try`, `try? await`).
    private func continues(_ previous: DumpCodeToken, after earlier: DumpCodeToken?) -> Bool {
        if previous.kind == .operator, previous.text == "?" || previous.text == "!", let earlier,
           earlier.isWord(["try", "as"]) { return true }
        // `private(set) var`.
        if previous.isPunctuation(")"), let earlier, earlier.isWord(["set"]) { return true }
        return continues(previous)
    }

    private func continues(_ previous: DumpCodeToken) -> Bool {
        let postfix = previous.kind == .operator && !previous.spaceBefore && (previous.text == "?" || previous.text == "!")
        if previous.kind == .operator && !postfix || previous.kind == .punctuation && "(,:.=[<{".contains(previous.text) { return true }
        return (previous.kind == .keyword || previous.kind == .word) && BraceLayout.continuing.contains(previous.text)
    }

    private func isOperandEnd(_ token: DumpCodeToken) -> Bool {
        switch token.kind {
        case .string, .number: return true
        case .word: return !BraceLayout.starters.contains(token.text) && !BraceLayout.continuing.contains(token.text)
        case .keyword: return BraceLayout.operandKeywords.contains(token.text)
        case .punctuation: return token.text == ")" || token.text == "]" || token.text == "}"
        case .operator: return !token.spaceBefore && (token.text == "?" || token.text == "!")
        case .comment: return false
        }
    }

    private func isOperandStart(_ token: DumpCodeToken) -> Bool {
        switch token.kind {
        case .string, .number, .word: return true
        case .keyword: return BraceLayout.operandKeywords.contains(token.text) || token.text == "await" || token.text == "new"
        default: return false
        }
    }

    /// A block short enough to have been written on one line: few tokens, no nested block, no comment.
    private func isShort(_ tokens: [DumpCodeToken], openingAt open: Int) -> Bool {
        var index = open + 1
        var nesting = 0
        while index < tokens.count, index - open <= 10 {
            let token = tokens[index]
            if token.kind == .comment || token.isPunctuation(";") || token.isPunctuation("{") { return false }
            if token.isPunctuation("(") || token.isPunctuation("[") { nesting += 1 }
            if token.isPunctuation(")") || token.isPunctuation("]") { nesting -= 1 }
            if token.isPunctuation("}") { return nesting == 0 }
            if index > open + 1, nesting == 0, token.kind == .keyword, BraceLayout.starters.contains(token.text),
               !continues(tokens[index - 1]) { return false }
            index += 1
        }
        return false
    }

    /// For a closure's `{ params in`, the index of `in`: the line breaks after it instead.
    private func closureHeadEnd(_ tokens: [DumpCodeToken], openingAt open: Int) -> Int? {
        var index = open + 1
        while index < tokens.count, index - open <= 14 {
            let token = tokens[index]
            if token.isWord(["in"]) { return index > open + 1 ? index : nil }
            let allowed = token.kind == .word || token.kind == .keyword && token.isWord(["self", "weak", "unowned", "_"])
                || token.kind == .punctuation && "(),:[]_".contains(token.text) || token.kind == .operator && "->?".contains(token.text)
            if !allowed { return nil }
            index += 1
        }
        return nil
    }
}
