/// Line breaks and indentation for Ruby (Podfiles, Fastfiles): `do … end` blocks, and a command
/// word after a finished argument (`pod 'A' pod 'B'`) starts a line, since Ruby calls need no parentheses.
enum RubyLayout {
    static let joiners: Set<String> = ["do", "if", "unless", "and", "or", "then", "while", "until", "in", "not"]
    static let openers: Set<String> = ["def", "class", "module", "if", "unless", "while", "until", "case", "begin"]

    static func layout(_ tokens: [DumpCodeToken]) -> String {
        var breaks: [Int?] = Array(repeating: nil, count: tokens.count)
        var depth = 0
        var parens = 0
        var breakAfter = Set<Int>()
        var blockParams = false
        var lineStart = 0
        for (index, token) in tokens.enumerated() {
            let word = token.kind == .word || token.kind == .keyword
            if word && token.text == "end" { depth -= 1 }
            if index > 0 && token.spaceBefore && parens == 0 {
                let previous = tokens[index - 1]
                var shouldBreak = breakAfter.contains(index - 1) || previous.kind == .comment || token.kind == .comment
                if word && token.text == "end" { shouldBreak = true }
                if word, !joiners.contains(token.text), !blockParams, finishesArgument(previous) { shouldBreak = true }
                if shouldBreak {
                    breaks[index] = depth
                    lineStart = index
                }
            }
            if token.isPunctuation("(") || token.isPunctuation("[") || token.isPunctuation("{") { parens += 1 }
            if token.isPunctuation(")") || token.isPunctuation("]") || token.isPunctuation("}") { parens = max(0, parens - 1) }
            if word && token.text == "do" && parens == 0 {
                depth += 1
                if index + 1 < tokens.count, tokens[index + 1].text == "|" { blockParams = true } else { breakAfter.insert(index) }
            } else if token.text == "|" && blockParams && index > 0 && tokens[index - 1].text != "do" {
                blockParams = false
                breakAfter.insert(index)
            } else if word && openers.contains(token.text) && index == lineStart {
                depth += 1
            }
        }
        return DumpCodeLayout.render(tokens, breaks: breaks, indent: "  ")
    }

    /// A token that can end a call's last argument.
    private static func finishesArgument(_ token: DumpCodeToken) -> Bool {
        switch token.kind {
        case .string, .number: return true
        case .word, .keyword: return token.text == "end" || token.text.hasSuffix("!") || token.text.hasSuffix("?")
            || token.text.first?.isUppercase == true
        case .punctuation: return token.text == ")" || token.text == "]"
        case .operator: return token.text.hasSuffix("!")
        case .comment: return false
        }
    }
}
