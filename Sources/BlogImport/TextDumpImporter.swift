import BlogCore
import Foundation

/// Imports plain-text dumps of Qiita pages (`blog import text`).
///
/// A dump holds articles, each starting with a header line `- 投稿日:<ISO 8601 time with offset>`;
/// the next line is the title and the lines up to the next header are the body. The body's lost
/// structure (code blocks, inline code, headings) is restored by `DumpRestorer`; with `verbatim`
/// it is escaped line by line with `PlainTextMarkdown`, so the page shows every line as it was.
/// A header with neither title nor body (a page cut off) is skipped with a warning. Near-duplicate
/// articles are imported once (`DumpDuplicates`) unless `keepDuplicates`. Tags come from the title
/// and the body (`TagInference`); the slug from the title (`Slugs.fromTitle`).
public struct TextDumpImporter: Sendable, FileImporter {
    public static let headerPrefix = "- 投稿日"

    public var tagInference: TagInference
    /// For a file without any header line: import it as one article with this date and title.
    public var fallbackDate: ImportDate?
    public var fallbackTitle: String?
    /// Keep every dump line as a line of the post instead of restoring structure.
    public var verbatim: Bool
    /// Import both copies of a near-duplicate article.
    public var keepDuplicates: Bool

    public init(tagInference: TagInference = TagInference(), fallbackDate: ImportDate? = nil, fallbackTitle: String? = nil,
                verbatim: Bool = false, keepDuplicates: Bool = false) {
        self.tagInference = tagInference
        self.fallbackDate = fallbackDate
        self.fallbackTitle = fallbackTitle
        self.verbatim = verbatim
        self.keepDuplicates = keepDuplicates
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
        finish(records(in: source))
    }

    /// Imports each file; near-duplicates are found across all of them.
    public func importFiles(_ paths: [String]) -> ImportResult {
        var records: [DumpRecord] = []
        var diagnostics: [Diagnostic] = []
        for path in paths {
            do {
                let (found, messages) = self.records(in: try InputText.read(path: path))
                records += found
                diagnostics += messages
            } catch let diagnostic as Diagnostic {
                diagnostics.append(diagnostic)
            } catch {
                diagnostics.append(.error("\(error)", at: SourceLocation(file: path)))
            }
        }
        return finish((records, diagnostics))
    }

    public func importFile(_ path: String) -> ImportResult { importFiles([path]) }

    private func finish(_ input: (records: [DumpRecord], diagnostics: [Diagnostic])) -> ImportResult {
        let (records, duplicateWarnings) = DumpDuplicates.merge(input.records, keepBoth: keepDuplicates)
        return ImportResult(articles: records.map(makeArticle), diagnostics: input.diagnostics + duplicateWarnings)
    }

    func records(in source: InputText) -> (records: [DumpRecord], diagnostics: [Diagnostic]) {
        let lines = TextDumpImporter.lines(of: source.text)
        var records: [DumpRecord] = []
        var diagnostics: [Diagnostic] = []
        let headerIndices = lines.indices.filter { TextDumpImporter.header(lines[$0]) != nil }
        guard let firstHeader = headerIndices.first else {
            if let date = fallbackDate, let title = fallbackTitle {
                records.append(DumpRecord(title: title, date: date, bodyLines: lines, source: SourceLocation(file: source.path, line: 1)))
            } else {
                diagnostics.append(.error(
                    "no article header found: a text dump starts each article with a line '\(TextDumpImporter.headerPrefix):<date>' "
                    + "(give --date and --title to import the whole file as one article)",
                    at: SourceLocation(file: source.path)))
            }
            return (records, diagnostics)
        }
        let preamble = lines[..<firstHeader].filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        if !preamble.isEmpty {
            diagnostics.append(.warning("\(Wording.count(preamble.count, "line")) before the first article header, part of no article, not imported",
                                        at: source.location(line: 1)))
        }
        for (position, headerIndex) in headerIndices.enumerated() {
            let end = position + 1 < headerIndices.count ? headerIndices[position + 1] : lines.count
            let (dateText, column) = TextDumpImporter.header(lines[headerIndex])!
            let lineNumber = headerIndex + 1
            guard let date = ImportDate.parseISO8601(dateText) else {
                let message = dateText.isEmpty ? "missing date after '\(TextDumpImporter.headerPrefix):'"
                    : "invalid date '\(dateText)': expected ISO 8601 with an offset, e.g. 2021-05-10T09:15:00+09:00"
                diagnostics.append(.error(message, at: source.location(line: lineNumber, column: column)))
                continue
            }
            // A header with nothing after it is an empty record (a page cut off), not broken data.
            if lines[(headerIndex + 1)..<end].allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                diagnostics.append(.warning("article header has no title and no body; skipped", at: source.location(line: lineNumber)))
                continue
            }
            let title = lines[headerIndex + 1].trimmingCharacters(in: .whitespaces)
            guard !title.isEmpty else {
                diagnostics.append(.error("empty title: the line after the article header must be the title",
                                          at: source.location(line: lineNumber + 1)))
                continue
            }
            records.append(DumpRecord(title: title, date: date, bodyLines: Array(lines[(headerIndex + 2)..<end]),
                                      source: source.location(line: lineNumber)))
        }
        return (records, diagnostics)
    }

    private func makeArticle(_ record: DumpRecord) -> ImportedArticle {
        let body: String
        var tags: [String]
        if verbatim {
            body = PlainTextMarkdown.markdown(lines: record.bodyLines)
            tags = tagInference.tags(forTitle: record.title, body: "", codeLanguages: [], extraTags: record.extraTags)
        } else {
            let restored = DumpRestorer.restore(lines: record.bodyLines)
            body = restored.markdown
            tags = tagInference.tags(forTitle: record.title, body: record.bodyLines.joined(separator: "\n"),
                                     codeLanguages: restored.codeLanguages, extraTags: record.extraTags)
        }
        return ImportedArticle(title: record.title, date: record.date, tags: tags, slug: Slugs.fromTitle(record.title, date: record.date),
                               body: body, source: record.source)
    }
}
