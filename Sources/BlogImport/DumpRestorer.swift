/// Turns the body lines of a text dump into Markdown with the structure the dump lost: code blocks
/// (`DumpCodeBlocks`, laid out by `DumpCodeLayout`), inline code (`DumpInlineCode`) and headings
/// (`DumpHeadings`). Everything else is escaped as `PlainTextMarkdown` does, line for line.
///
/// Nothing is lost: the importer only adds syntax (backticks, fences and their labels, `#`) and
/// whitespace, and moves a glued file name into its fence's label; the rendered text without
/// whitespace is the dump's text without whitespace.
public enum DumpRestorer {
    public struct Restored: Sendable, Equatable {
        /// The Markdown body, ending with a newline (or empty).
        public var markdown: String
        /// The fence languages of the code blocks, in order.
        public var codeLanguages: [String]
    }

    /// What one dump line became: prose pieces, headings and code blocks, in order.
    enum Item: Equatable {
        case pieces([DumpInlineCode.Piece])
        case heading(String)
        case block(DumpCodeBlock)
    }

    public static func restore(lines: [String]) -> Restored {
        // 1. Inline code spans join lines; 2. code blocks are cut out of the text between spans.
        let blank = lines.map { $0.allSatisfy { $0 == " " || $0 == "\t" } }
        let items = lines.map { PlainTextMarkdown.listItemContent($0) != nil }
        var lineItems: [[Item]] = []
        for pieces in DumpInlineCode.join(lines, joinable: blank.map { !$0 }, startsItem: items) {
            var result: [Item] = []
            func add(_ piece: DumpInlineCode.Piece) {
                if case .pieces(let previous)? = result.last {
                    result[result.count - 1] = .pieces(previous + [piece])
                } else {
                    result.append(.pieces([piece]))
                }
            }
            for (position, piece) in pieces.enumerated() {
                guard case .text(let text) = piece, !(position == 0 && PlainTextMarkdown.listItemContent(text) != nil) else {
                    add(piece)
                    continue
                }
                for item in split(text, DumpCodeBlocks.find(in: text)) {
                    if case .pieces(let parts) = item { parts.forEach(add) } else { result.append(item) }
                }
            }
            lineItems.append(result)
        }
        // 3. Headings glued after a sentence or a code block.
        lineItems = lineItems.map(withHeadings)
        return emit(lineItems)
    }

    private static func split(_ line: String, _ blocks: [DumpCodeBlock]) -> [Item] {
        guard !blocks.isEmpty else { return line.isEmpty ? [] : [.pieces([.text(line)])] }
        let characters = Array(line)
        var items: [Item] = []
        var position = 0
        for block in blocks {
            if block.range.lowerBound > position {
                items.append(.pieces([.text(String(characters[position..<block.range.lowerBound]))]))
            }
            items.append(.block(block))
            position = block.range.upperBound
        }
        if position < characters.count { items.append(.pieces([.text(String(characters[position...]))])) }
        return items
    }

    /// Splits a heading off prose that ends the line or runs into a code block.
    private static func withHeadings(_ items: [Item]) -> [Item] {
        var result: [Item] = []
        for (index, item) in items.enumerated() {
            guard case .pieces(let pieces) = item, case .text(let text)? = pieces.last else {
                result.append(item)
                continue
            }
            let followedByBlockOrEnd = index + 1 == items.count || { if case .block = items[index + 1] { return true } else { return false } }()
            let afterCode = index > 0 && { if case .block = items[index - 1] { return true } else { return false } }() && pieces.count == 1
            let isListItem: Bool = {
                guard index == 0, case .text(let first)? = pieces.first else { return false }
                return PlainTextMarkdown.listItemContent(first) != nil
            }()
            var start = DumpHeadings.gluedHeading(text, afterCode: afterCode)
            // The text right before a labelled block, after a sentence, that is the block's file name.
            if start == nil, index + 1 < items.count, case .block(let block) = items[index + 1], let name = block.fileName,
               text.hasSuffix(name), text.dropLast(name.count).last == "。" {
                start = text.count - name.count
            }
            guard followedByBlockOrEnd, !isListItem, let start else {
                result.append(item)
                continue
            }
            let characters = Array(text)
            let before = String(characters[..<start])
            var kept = Array(pieces.dropLast())
            if !before.isEmpty { kept.append(.text(before)) }
            if !kept.isEmpty { result.append(.pieces(kept)) }
            result.append(.heading(String(characters[start...])))
        }
        return result
    }

    private static func emit(_ lineItems: [[Item]]) -> Restored {
        var out: [String] = []
        var languages: [String] = []
        var previousWasListItem = false
        func blankLine() { if let last = out.last, !last.isEmpty { out.append("") } }
        for items in lineItems {
            if items.isEmpty {
                blankLine()
                previousWasListItem = false
                continue
            }
            for item in items {
                switch item {
                case .pieces(let pieces):
                    var markdown = ""
                    var listItem = false
                    for (position, piece) in pieces.enumerated() {
                        switch piece {
                        case .code(let code):
                            markdown += DumpInlineCode.markdown(code)
                        case .text(let text):
                            if position == 0, let content = PlainTextMarkdown.listItemContent(text) {
                                listItem = true
                                markdown += "- " + PlainTextMarkdown.escapeLine(content, listItem: true)
                            } else {
                                markdown += PlainTextMarkdown.escapeLine(text)
                            }
                        }
                    }
                    if listItem != previousWasListItem { blankLine() }
                    out.append(markdown)
                    previousWasListItem = listItem
                case .heading(let text):
                    blankLine()
                    out.append("## " + PlainTextMarkdown.escapeLine(text))
                    out.append("")
                    previousWasListItem = false
                case .block(let block):
                    blankLine()
                    let code = DumpCodeLayout.layout(block.code, language: block.language)
                    let fence = String(repeating: "`", count: max(3, longestBacktickRun(code) + 1))
                    out.append(fence + block.language + (block.fileName.map { ":" + $0 } ?? ""))
                    out.append(contentsOf: code.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
                    out.append(fence)
                    out.append("")
                    languages.append(block.language)
                    previousWasListItem = false
                }
            }
        }
        while out.last == "" { out.removeLast() }
        return Restored(markdown: out.isEmpty ? "" : out.joined(separator: "\n") + "\n", codeLanguages: languages)
    }

    private static func longestBacktickRun(_ text: String) -> Int {
        var longest = 0, run = 0
        for character in text {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }
}
