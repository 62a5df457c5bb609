import BlogCore

/// Reads the small YAML subset that qiita-cli writes in its front matter: top-level
/// `key: value` pairs whose values are plain, single- or double-quoted scalars, `null`/`~`/empty,
/// flow lists (`[a, 'b']`) or block lists (`- a` lines). Anything else (nested mappings, block
/// scalars, anchors) is reported as unsupported with its line and column.
struct SimpleFrontMatter {
    enum Value: Equatable {
        case null
        /// A scalar and whether it was quoted (quoted scalars are always strings).
        case scalar(String, quoted: Bool)
        case list([String])
    }

    struct Entry {
        var key: String
        var value: Value
        var line: Int
        var valueColumn: Int
    }

    struct ParseError: Error {
        var message: String
        var line: Int
        var column: Int
    }

    /// Splits `---\n…\n---\n` off the start of `text`. Returns the front matter lines, the line
    /// number of the first of them, and the body (everything after the closing line), or nil when
    /// the text has no front matter.
    static func split(_ text: String) -> (lines: [String], firstLine: Int, body: String)? {
        var lines: [Substring] = []
        var rest = Substring(text)
        func nextLine() -> Substring? {
            guard !rest.isEmpty else { return nil }
            if let newline = rest.firstIndex(of: "\n") {
                let line = rest[..<newline]
                rest = rest[rest.index(after: newline)...]
                return line
            }
            let line = rest
            rest = rest[rest.endIndex...]
            return line
        }
        func isDelimiter(_ line: Substring) -> Bool {
            var trimmed = line
            if trimmed.hasSuffix("\r") { trimmed = trimmed.dropLast() }
            return trimmed.trimmingCharacters(in: .whitespaces) == "---" && trimmed.hasPrefix("---")
        }
        guard let first = nextLine(), isDelimiter(first) else { return nil }
        while let line = nextLine() {
            if isDelimiter(line) {
                return (lines.map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }, 2, String(rest))
            }
            lines.append(line)
        }
        return nil
    }

    static func parse(lines: [String], firstLine: Int) throws -> [Entry] {
        var entries: [Entry] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let lineNumber = firstLine + index
            index += 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if line.first == " " || line.first == "\t" {
                throw ParseError(message: "unexpected indentation (nested values are not supported in qiita-cli front matter)", line: lineNumber, column: 1)
            }
            if line.hasPrefix("- ") || line == "-" {
                throw ParseError(message: "list item without a key", line: lineNumber, column: 1)
            }
            guard let colon = keyColon(in: line) else {
                throw ParseError(message: "expected 'key: value'", line: lineNumber, column: 1)
            }
            let key = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let afterColon = line[line.index(after: colon)...]
            let leading = afterColon.prefix(while: { $0 == " " || $0 == "\t" }).count
            let valueText = String(afterColon.dropFirst(leading))
            let valueColumn = line[..<colon].unicodeScalars.count + 2 + leading
            var value = try parseValue(valueText, line: lineNumber, column: valueColumn)
            if value == .null, valueText.trimmingCharacters(in: .whitespaces).isEmpty {
                // A block list may follow: `key:` then `- item` lines (indented or not).
                var items: [String] = []
                while index < lines.count {
                    let itemLine = lines[index]
                    let itemTrimmed = itemLine.trimmingCharacters(in: .whitespaces)
                    if itemTrimmed.isEmpty { index += 1; continue }
                    guard itemTrimmed.hasPrefix("- ") || itemTrimmed == "-" else { break }
                    let indent = itemLine.prefix(while: { $0 == " " || $0 == "\t" }).count
                    let itemText = String(itemTrimmed.dropFirst(1)).trimmingCharacters(in: .whitespaces)
                    let column = indent + 3
                    switch try parseValue(itemText, line: firstLine + index, column: column) {
                    case .scalar(let text, _): items.append(text)
                    case .null: break
                    case .list: throw ParseError(message: "nested lists are not supported", line: firstLine + index, column: column)
                    }
                    index += 1
                }
                if !items.isEmpty || (index < lines.count && lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("-")) {
                    value = .list(items)
                }
            }
            entries.append(Entry(key: key, value: value, line: lineNumber, valueColumn: valueColumn))
        }
        return entries
    }

    /// The colon that ends a plain key (`key: value` or `key:` at the end of the line).
    private static func keyColon(in line: String) -> String.Index? {
        var index = line.startIndex
        while index < line.endIndex {
            if line[index] == ":" {
                let next = line.index(after: index)
                if next == line.endIndex || line[next] == " " || line[next] == "\t" { return index }
            }
            index = line.index(after: index)
        }
        return nil
    }

    private static func stripComment(_ text: String) -> String {
        // A comment starts at ` #` outside quotes (plain scalars only).
        if let range = text.range(of: " #") { return String(text[..<range.lowerBound]) }
        return text
    }

    static func parseValue(_ raw: String, line: Int, column: Int) throws -> Value {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text.hasPrefix("#") { return .null }
        if text.hasPrefix("'") || text.hasPrefix("\"") {
            let (value, consumed) = try quoted(text, line: line, column: column)
            let rest = String(text.dropFirst(consumed)).trimmingCharacters(in: .whitespaces)
            if !rest.isEmpty && !rest.hasPrefix("#") {
                throw ParseError(message: "unexpected text after a quoted string", line: line, column: column + consumed)
            }
            return .scalar(value, quoted: true)
        }
        if text.hasPrefix("[") {
            return try flowList(text, line: line, column: column)
        }
        if let first = text.first, "{|>&*!%@`".contains(first) {
            throw ParseError(message: "unsupported YAML syntax '\(first)' in qiita-cli front matter", line: line, column: column)
        }
        let plain = stripComment(text).trimmingCharacters(in: .whitespaces)
        if plain == "null" || plain == "~" || plain == "Null" || plain == "NULL" { return .null }
        return .scalar(plain, quoted: false)
    }

    /// Parses a quoted scalar at the start of `text`; returns the value and the characters used.
    private static func quoted(_ text: String, line: Int, column: Int) throws -> (String, Int) {
        let scalars = Array(text.unicodeScalars)
        let quote = scalars[0]
        var out = String.UnicodeScalarView()
        var index = 1
        while index < scalars.count {
            let scalar = scalars[index]
            if quote == "'" {
                if scalar == "'" {
                    if index + 1 < scalars.count, scalars[index + 1] == "'" { out.append("'"); index += 2; continue }
                    return (String(out), index + 1)
                }
                out.append(scalar)
                index += 1
                continue
            }
            if scalar == "\"" { return (String(out), index + 1) }
            if scalar == "\\" {
                guard index + 1 < scalars.count else { break }
                let escaped = scalars[index + 1]
                index += 2
                switch escaped {
                case "\"": out.append("\"")
                case "\\": out.append("\\")
                case "/": out.append("/")
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "0": out.append("\0")
                case " ": out.append(" ")
                case "N": out.append("\u{85}")
                case "L": out.append("\u{2028}")
                case "P": out.append("\u{2029}")
                case "x", "u", "U":
                    let width = escaped == "x" ? 2 : escaped == "u" ? 4 : 8
                    guard index + width <= scalars.count,
                          let code = UInt32(String(String.UnicodeScalarView(scalars[index..<index + width])), radix: 16),
                          let value = Unicode.Scalar(code) else {
                        throw ParseError(message: "invalid \\\(escaped) escape", line: line, column: column + index - 2)
                    }
                    out.append(value)
                    index += width
                default:
                    throw ParseError(message: "invalid escape '\\\(escaped)' in a double-quoted string", line: line, column: column + index - 2)
                }
                continue
            }
            out.append(scalar)
            index += 1
        }
        throw ParseError(message: "unterminated quoted string", line: line, column: column)
    }

    private static func flowList(_ text: String, line: Int, column: Int) throws -> Value {
        var items: [String] = []
        var rest = String(text.dropFirst())
        var offset = 1
        while true {
            let skipped = rest.prefix(while: { $0 == " " || $0 == "\t" }).count
            rest = String(rest.dropFirst(skipped))
            offset += skipped
            guard let first = rest.first else {
                throw ParseError(message: "unterminated flow list (missing ']')", line: line, column: column)
            }
            if first == "]" {
                let after = String(rest.dropFirst()).trimmingCharacters(in: .whitespaces)
                if !after.isEmpty && !after.hasPrefix("#") {
                    throw ParseError(message: "unexpected text after ']'", line: line, column: column + offset + 1)
                }
                return .list(items)
            }
            if first == "'" || first == "\"" {
                let (value, consumed) = try quoted(rest, line: line, column: column + offset)
                items.append(value)
                rest = String(rest.dropFirst(consumed))
                offset += consumed
            } else {
                let item = rest.prefix(while: { $0 != "," && $0 != "]" })
                if item.contains("[") || item.contains("{") {
                    throw ParseError(message: "nested collections are not supported", line: line, column: column + offset)
                }
                let trimmedItem = item.trimmingCharacters(in: .whitespaces)
                if !trimmedItem.isEmpty { items.append(trimmedItem) }
                rest = String(rest.dropFirst(item.count))
                offset += item.unicodeScalars.count
            }
            let skippedAfter = rest.prefix(while: { $0 == " " || $0 == "\t" }).count
            rest = String(rest.dropFirst(skippedAfter))
            offset += skippedAfter
            if rest.first == "," { rest = String(rest.dropFirst()); offset += 1; continue }
            if rest.first == "]" { continue }
            throw ParseError(message: "expected ',' or ']' in a flow list", line: line, column: column + offset)
        }
    }
}

import Foundation
