import BlogCore
import Foundation

/// Imports plain-text dumps of Qiita pages (`blog import text`).
///
/// A dump holds articles, each starting with a header line `- 投稿日:<ISO 8601 time with offset>`;
/// the next line is the title and the lines up to the next header are the body. The body is
/// escaped line by line with `PlainTextMarkdown`, so the rendered page shows every line as it was.
/// Tags come from the title (`TagInference`); the slug from the title (`Slugs.fromTitle`).
public struct TextDumpImporter: Sendable, FileImporter {
    public static let headerPrefix = "- 投稿日"

    public var tagInference: TagInference
    /// For a file without any header line: import it as one article with this date and title.
    public var fallbackDate: ImportDate?
    public var fallbackTitle: String?

    public init(tagInference: TagInference = TagInference(), fallbackDate: ImportDate? = nil, fallbackTitle: String? = nil) {
        self.tagInference = tagInference
        self.fallbackDate = fallbackDate
        self.fallbackTitle = fallbackTitle
    }

    /// Splits text into lines without terminators (`\n`, `\r\n` or `\r`).
    static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousWasCR { lines.append(current) }
                current = ""
                previousWasCR = false
            } else if scalar == "\r" {
                lines.append(current)
                current = ""
                previousWasCR = true
            } else {
                current.unicodeScalars.append(scalar)
                previousWasCR = false
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// The date text of a header line and its column, or nil when `line` is not a header.
    static func header(_ line: String) -> (text: String, column: Int)? {
        guard line.hasPrefix(headerPrefix) else { return nil }
        var rest = line.unicodeScalars.dropFirst(headerPrefix.unicodeScalars.count)
        guard let colon = rest.first, colon == ":" || colon == "：" else { return nil }
        rest = rest.dropFirst()
        let skipped = rest.prefix(while: { $0 == " " || $0 == "\t" || $0 == "\u{3000}" }).count
        let dateText = String(String.UnicodeScalarView(rest.dropFirst(skipped))).trimmingCharacters(in: .whitespaces)
        let column = headerPrefix.unicodeScalars.count + 1 + skipped + 1
        return (dateText, column)
    }

    public func importSource(_ source: InputText) -> ImportResult { importText(source) }

    public func importText(_ source: InputText) -> ImportResult {
        let lines = TextDumpImporter.lines(of: source.text)
        var result = ImportResult()
        let headerIndices = lines.indices.filter { TextDumpImporter.header(lines[$0]) != nil }
        guard let firstHeader = headerIndices.first else {
            if let date = fallbackDate, let title = fallbackTitle {
                result.articles.append(makeArticle(title: title, date: date, bodyLines: lines[...],
                                                   source: SourceLocation(file: source.path, line: 1)))
            } else {
                result.diagnostics.append(.error(
                    "no article header found: a text dump starts each article with a line '\(TextDumpImporter.headerPrefix):<date>' "
                    + "(give --date and --title to import the whole file as one article)",
                    at: SourceLocation(file: source.path)))
            }
            return result
        }
        let preamble = lines[..<firstHeader].filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        if !preamble.isEmpty {
            result.diagnostics.append(.warning("\(preamble.count) line(s) before the first article header are not part of any article and were not imported",
                                               at: source.location(line: 1)))
        }
        for (position, headerIndex) in headerIndices.enumerated() {
            let end = position + 1 < headerIndices.count ? headerIndices[position + 1] : lines.count
            let (dateText, column) = TextDumpImporter.header(lines[headerIndex])!
            let lineNumber = headerIndex + 1
            guard let date = ImportDate.parseISO8601(dateText) else {
                let message = dateText.isEmpty ? "missing date after '\(TextDumpImporter.headerPrefix):'"
                    : "invalid date '\(dateText)': expected ISO 8601 with an offset, e.g. 2021-05-10T09:15:00+09:00"
                result.diagnostics.append(.error(message, at: source.location(line: lineNumber, column: column)))
                continue
            }
            guard headerIndex + 1 < end else {
                result.diagnostics.append(.error("article header is not followed by a title line", at: source.location(line: lineNumber)))
                continue
            }
            let title = lines[headerIndex + 1].trimmingCharacters(in: .whitespaces)
            guard !title.isEmpty else {
                result.diagnostics.append(.error("empty title: the line after the article header must be the title",
                                                 at: source.location(line: lineNumber + 1)))
                continue
            }
            result.articles.append(makeArticle(title: title, date: date, bodyLines: lines[(headerIndex + 2)..<end],
                                               source: source.location(line: lineNumber)))
        }
        return result
    }

    private func makeArticle(title: String, date: ImportDate, bodyLines: ArraySlice<String>, source: SourceLocation) -> ImportedArticle {
        ImportedArticle(title: title, date: date, tags: tagInference.tags(forTitle: title),
                        slug: Slugs.fromTitle(title, date: date),
                        body: PlainTextMarkdown.markdown(lines: Array(bodyLines)), source: source)
    }
}
