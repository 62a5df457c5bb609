/// Inline code spans. The dump put a line break after every inline code span and usually one
/// before it: `2では\nUISearchToken\nが公開しているrepresentedObject\nプロパティに` was
/// ``2では`UISearchToken`が公開している`representedObject`プロパティに``.
///
/// A line break is taken for a span's when the line before it ends with a run of non-Japanese
/// text that did not end a sentence and the next line goes on in Japanese; when the run holds
/// spaces, the next line must continue the sentence (start with a character no Japanese sentence
/// starts with: a particle, `、`, `。`, a closing bracket). That run is the span; when it is the
/// whole line, the line break before it was the span's too, unless the line before ended a
/// sentence or a heading.
enum DumpInlineCode {
    /// A piece of a prose line: text or an inline code span.
    enum Piece: Equatable {
        case text(String)
        case code(String)
    }

    static let maximumSpanLength = 80

    /// Joins `lines` (prose, each possibly empty) into lines of pieces. `joinable[i]` says whether
    /// line `i` may be joined to its neighbours (false for blank lines, list items' starts, code).
    static func join(_ lines: [String], joinable: [Bool], startsItem: [Bool]) -> [[Piece]] {
        var result: [[Piece]] = []
        var index = 0
        while index < lines.count {
            var pieces: [Piece] = [.text(lines[index])]
            var current = index
            while current + 1 < lines.count, joinable[current], joinable[current + 1], !startsItem[current + 1],
                  let span = spanBeforeBreak(lines[current], next: lines[current + 1]) {
                // Replace the line's tail with the span.
                if case .text(let text) = pieces.last {
                    pieces.removeLast()
                    let head = String(text.dropLast(span.tailLength))
                    if !head.isEmpty { pieces.append(.text(head)) }
                    pieces.append(.code(span.code))
                }
                current += 1
                pieces.append(.text(lines[current]))
            }
            // A whole-line span joins the line before it too, when that line did not end a sentence.
            if case .code = pieces.first(where: { if case .text(let t) = $0 { return !t.isEmpty } else { return true } }),
               let last = result.last, index > 0, joinable[index - 1], !startsItem[index],
               let lastCharacter = lines[index - 1].last, !DumpText.endsSentence(lastCharacter), !lines[index - 1].isEmpty,
               DumpHeadings.gluedHeading(lines[index - 1], afterCode: false) == nil {
                result[result.count - 1] = last + pieces.filter { $0 != .text("") }
            } else {
                result.append(pieces.filter { $0 != .text("") })
            }
            index = current + 1
        }
        return result
    }

    /// The span ending `line` when the break after it is a span's: its text and how many
    /// characters of the line it takes (with the spaces before it).
    static func spanBeforeBreak(_ line: String, next: String) -> (code: String, tailLength: Int)? {
        guard let first = next.first, DumpText.isJapanese(first),
              let last = line.last, !DumpText.isJapanese(last), !DumpText.endsSentence(last) || last == ")" || last == "!" || last == "?" else {
            return nil
        }
        let tail = line.reversed().prefix(while: { !DumpText.isJapanese($0) })
        var code = String(tail.reversed())
        let wholeLine = code.count == line.count
        code = String(code.drop(while: { $0 == " " }))
        if code.hasPrefix(": ") || code.hasPrefix(", ") { code = String(code.dropFirst(2)) }
        guard !code.isEmpty, !code.hasPrefix("http://"), !code.hasPrefix("https://") else { return nil }
        // A code block that ends its line is not a span, but text glued to its last symbol is
        // (`…});onCall` + `で作った`): the block was glued to the paragraph that starts with it.
        let block = !wholeLine && code.contains(" ") && DumpLanguage.codeScore(code, language: DumpLanguage.infer(code)) >= 3
        if block || code.count > maximumSpanLength {
            if let glued = DumpCodeBlocks.gluedProseLength(code) {
                return (String(code.suffix(glued)), glued)
            }
            // After a block that ends its line the next line starts a paragraph, never mid-sentence.
            if code.count > maximumSpanLength || !DumpText.continuesSentence(first) { return nil }
        }
        // A run with spaces needs the stronger sign: the next line cannot start a sentence.
        if code.contains(" ") && !DumpText.continuesSentence(first) { return nil }
        return (code, code.count)
    }

    /// A code span for `code`: a backtick fence longer than any backtick run inside, with a space
    /// inside it where the content starts or ends with a backtick.
    static func markdown(_ code: String) -> String {
        var longest = 0, run = 0
        for character in code {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = code.hasPrefix("`") || code.hasSuffix("`") || (code.hasPrefix(" ") && code.hasSuffix(" ")) ? " " : ""
        return fence + pad + code + pad + fence
    }
}
