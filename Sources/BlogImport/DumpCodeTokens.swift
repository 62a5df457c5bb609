import BlogMarkdown

/// One token of a flattened code block, with whether a space came before it in the dump (a
/// flattened block's line breaks became single spaces, so a line can only be restored at a space).
struct DumpCodeToken: Equatable {
    enum Kind: Equatable { case word, keyword, string, number, comment, punctuation, `operator` }
    var kind: Kind
    var text: String
    var spaceBefore: Bool

    func isPunctuation(_ symbol: String) -> Bool { kind == .punctuation && text == symbol }
    func isWord(_ names: Set<String>) -> Bool { (kind == .word || kind == .keyword) && names.contains(text) }
}

/// Splits a flattened code block into tokens. String literals, comments and keywords come from the
/// highlighter's lexer for the language (`SyntaxHighlighter`), so a quote or `//` inside a string
/// is not taken for anything else; the remaining text is split into words and symbols here.
///
/// A line comment ran to the end of its line, but the flattened block has no line ends: the lexer
/// returns the rest of the block as one comment. The comment is cut where code evidently resumes
/// (`DumpCodeTokens.commentLength`) and the rest is lexed again.
enum DumpCodeTokens {
    static func tokens(_ code: String, language: String) -> [DumpCodeToken] {
        var tokens: [DumpCodeToken] = []
        var pendingSpace = false
        // Runs are measured in Unicode scalars: the highlighter gives the input back exactly, but a
        // run boundary may fall inside a grapheme cluster.
        var rest = Substring(code).unicodeScalars
        while !rest.isEmpty {
            var consumed = 0
            for run in highlightedRuns(String(rest), language: language) {
                if run.cls == "com", let length = lineCommentLength(run.text), length < run.text.count {
                    let comment = String(run.text.prefix(length))
                    append(comment, cls: "com")
                    consumed += comment.unicodeScalars.count
                    break
                }
                append(run.text, cls: run.cls)
                consumed += run.text.unicodeScalars.count
            }
            rest = rest.dropFirst(consumed)
        }
        return tokens

        func append(_ text: String, cls: String?) {
            switch cls {
            case "str", "com", "num":
                let kind: DumpCodeToken.Kind = cls == "str" ? .string : cls == "com" ? .comment : .number
                var body = Substring(text)
                if body.first == " " { pendingSpace = true; body = body.drop(while: { $0 == " " }) }
                let trailing = body.reversed().prefix(while: { $0 == " " }).count
                tokens.append(DumpCodeToken(kind: kind, text: String(body.dropLast(trailing)), spaceBefore: pendingSpace))
                pendingSpace = trailing > 0
            default:
                scan(text, keyword: cls == "kw")
            }
        }

        func scan(_ text: String, keyword: Bool) {
            let characters = Array(text)
            var index = 0
            while index < characters.count {
                let character = characters[index]
                if character == " " || character == "\t" {
                    pendingSpace = true
                    index += 1
                    continue
                }
                var end = index + 1
                let kind: DumpCodeToken.Kind
                if isWordCharacter(character) {
                    while end < characters.count, isWordCharacter(characters[end]) { end += 1 }
                    // Ruby's `use_frameworks!` and Swift's `try?` keep their mark.
                    kind = keyword ? .keyword : .word
                } else if "+-*/%=<>!&|^~?".contains(character) {
                    while end < characters.count, "+-*/%=<>!&|^~?".contains(characters[end]) { end += 1 }
                    kind = .operator
                } else {
                    kind = .punctuation
                }
                tokens.append(DumpCodeToken(kind: kind, text: String(characters[index..<end]), spaceBefore: pendingSpace))
                pendingSpace = false
                index = end
            }
        }
    }

    /// Identifier characters, with `$` (`$0`, `$mode`) and any non-ASCII letter but Japanese punctuation.
    static func isWordCharacter(_ character: Character) -> Bool {
        DumpText.isASCIIWordCharacter(character) || character == "$" || !character.isASCII && !"、。「」（）：".contains(character)
    }

    /// The highlighted code as runs of (class, text), the markup removed and the escapes undone.
    static func highlightedRuns(_ code: String, language: String) -> [(cls: String?, text: String)] {
        let html = SyntaxHighlighter.highlight(code, language: language)
        var runs: [(cls: String?, text: String)] = []
        var stack: [String] = []
        var text = ""
        func flush() {
            if !text.isEmpty { runs.append((stack.last, text)); text = "" }
        }
        var rest = Substring(html)
        while let first = rest.first {
            if first == "<" {
                flush()
                let close = rest.firstIndex(of: ">") ?? rest.endIndex
                let tag = rest[rest.startIndex..<close]
                if tag.hasPrefix("</") {
                    if !stack.isEmpty { stack.removeLast() }
                } else if let range = tag.range(of: "hl-") {
                    stack.append(String(tag[range.upperBound...].prefix(while: { $0 != "\"" })))
                } else {
                    stack.append(stack.last ?? "")
                }
                rest = close < rest.endIndex ? rest[rest.index(after: close)...] : ""
            } else if first == "&" {
                let entities = [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'")]
                if let (entity, character) = entities.first(where: { rest.hasPrefix($0.0) }) {
                    text += character
                    rest = rest.dropFirst(entity.count)
                } else {
                    text.append(first)
                    rest = rest.dropFirst()
                }
            } else {
                text.append(first)
                rest = rest.dropFirst()
            }
        }
        flush()
        return runs
    }

    /// For a line comment (`//` or `#`) that swallowed the rest of the block: how many characters
    /// belong to the comment. It ends before the first word after its own text that starts a
    /// statement or is used as code (`x.`, `x(`, `x =`), an attribute or a closing brace. Nil when
    /// the text is not a line comment.
    static func lineCommentLength(_ text: String) -> Int? {
        let characters = Array(text)
        let markerLength: Int
        if text.hasPrefix("//") { markerLength = 2 } else if text.hasPrefix("#") { markerLength = 1 } else { return nil }
        // The comment ends at the first space or Japanese-to-code seam after which code follows.
        var sawText = false
        for index in markerLength..<characters.count {
            let character = characters[index]
            let seam = character == " " || (index > markerLength && DumpText.isJapanese(characters[index - 1]) && !DumpText.isJapanese(character))
            if seam, sawText {
                let tail = String(characters[index...]).drop(while: { $0 == " " })
                if startsCode(String(tail)) { return index }
            }
            if character != " " { sawText = true }
        }
        return characters.count
    }

    static let statementKeywords: Set<String> = [
        "let", "var", "func", "class", "struct", "enum", "protocol", "extension", "import", "return", "guard", "if",
        "switch", "case", "default", "for", "while", "init", "override", "private", "public", "static", "final",
        "const", "function", "export", "module", "val", "fun", "end", "pod", "target", "platform", "use_frameworks!",
    ]

    /// Whether `text` begins like a statement: a statement keyword, an attribute, a closing brace, or
    /// a word used as code (`name.`, `name(`, `name = `).
    static func startsCode(_ text: String) -> Bool {
        guard let first = text.first else { return false }
        if first == "}" || first == "@" { return true }
        let word = text.prefix(while: { DumpText.isASCIIWordCharacter($0) || $0 == "!" })
        guard !word.isEmpty else { return false }
        if statementKeywords.contains(String(word)) { return text.count == word.count || text.dropFirst(word.count).first == " " }
        let next = text.dropFirst(word.count)
        return next.hasPrefix(".") && next.dropFirst().first.map(DumpText.isASCIIWordCharacter) == true
            || next.hasPrefix("(") || next.hasPrefix(" = ") || next.hasPrefix(" += ")
    }
}

import Foundation
