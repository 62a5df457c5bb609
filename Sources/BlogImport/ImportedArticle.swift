import BlogContent
import BlogCore
import Foundation

/// A moment with the UTC offset it was written in (Qiita writes `+09:00`; we keep it).
public struct ImportDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSinceEpoch: Int64
    /// Offset from UTC in seconds (e.g. 32400 for +09:00).
    public var offsetSeconds: Int

    public init(secondsSinceEpoch: Int64, offsetSeconds: Int) {
        self.secondsSinceEpoch = secondsSinceEpoch
        self.offsetSeconds = offsetSeconds
    }

    /// A `Date` shown in `timeZone` (its offset at that moment).
    public init(date: Date, timeZone: TimeZone) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        self.init(secondsSinceEpoch: seconds, offsetSeconds: timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    public static func < (lhs: ImportDate, rhs: ImportDate) -> Bool {
        (lhs.secondsSinceEpoch, lhs.offsetSeconds) < (rhs.secondsSinceEpoch, rhs.offsetSeconds)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`; a space may stand for `T`.
    /// Fractions are dropped (Qiita writes none). Returns nil for anything else.
    /// A full timestamp with an offset, as in Qiita's data (`2021-05-10T09:15:00+09:00`, `…Z`).
    /// Parsed by BlogContent's `DateParser`; a date without a time or an offset is refused here.
    public static func parseISO8601(_ text: String) -> ImportDate? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") else { return nil }
        let tail = bytes[19...]
        let hasOffset = tail.contains(UInt8(ascii: "Z")) || tail.contains(UInt8(ascii: "z"))
            || tail.contains(UInt8(ascii: "+")) || tail.contains(UInt8(ascii: "-"))
        guard hasOffset, let date = try? DateParser.parse(text, zone: TimeZone(identifier: "UTC")!) else { return nil }
        return ImportDate(secondsSinceEpoch: date.epochSeconds, offsetSeconds: date.offsetSeconds)
    }

    public var localComponents: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        let c = PostDate(epochSeconds: secondsSinceEpoch, offsetSeconds: offsetSeconds).civil
        return (c.year, c.month, c.day, c.hour, c.minute, c.second)
    }

    /// `2021-05-10T09:15:00+09:00` (`Z` is written as `+00:00`).
    public var iso8601: String {
        let c = localComponents
        let sign = offsetSeconds < 0 ? "-" : "+"
        let magnitude = abs(offsetSeconds)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d%@%02d:%02d", c.year, c.month, c.day, c.hour, c.minute, c.second,
                      sign, magnitude / 3600, magnitude % 3600 / 60)
    }

    /// `2021-05-10`, the local day (used in file names).
    public var day: String {
        let c = localComponents
        return String(format: "%04d-%02d-%02d", c.year, c.month, c.day)
    }

    public var description: String { iso8601 }
}

/// One article ready to be written as `content/posts/<yyyy-mm-dd>-<slug>.md`.
public struct ImportedArticle: Sendable, Hashable {
    public var title: String
    public var date: ImportDate
    public var updated: ImportDate?
    public var tags: [String]
    public var draft: Bool
    /// The slug before collision suffixes (the writer may append `-2`, `-3`…).
    public var slug: String
    /// The Qiita item id, when known.
    public var id: String?
    public var qiitaURL: String?
    public var likesCount: Int?
    /// The Markdown body, ending with a newline (or empty).
    public var body: String
    /// Where the article came from (for duplicate warnings and error messages).
    public var source: SourceLocation

    public init(title: String, date: ImportDate, updated: ImportDate? = nil, tags: [String], draft: Bool = false,
                slug: String, id: String? = nil, qiitaURL: String? = nil, likesCount: Int? = nil,
                body: String, source: SourceLocation) {
        self.title = title
        self.date = date
        self.updated = updated
        self.tags = tags
        self.draft = draft
        self.slug = slug
        self.id = id
        self.qiitaURL = qiitaURL
        self.likesCount = likesCount
        self.body = body
        self.source = source
    }

    /// The file name for a given (possibly suffixed) slug.
    public func fileName(slug: String? = nil) -> String {
        "\(date.day)-\(slug ?? self.slug).md"
    }

    /// The whole file: YAML front matter and the body.
    public func fileContents(slug: String? = nil) -> String {
        FrontMatterWriter.document(for: self, slug: slug ?? self.slug)
    }
}

/// What an importer found: articles plus warnings and errors (with `file:line:col`).
public struct ImportResult: Sendable {
    public var articles: [ImportedArticle]
    public var diagnostics: [Diagnostic]

    public init(articles: [ImportedArticle] = [], diagnostics: [Diagnostic] = []) {
        self.articles = articles
        self.diagnostics = diagnostics
    }

    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    public mutating func merge(_ other: ImportResult) {
        articles += other.articles
        diagnostics += other.diagnostics
    }

    /// Drops articles that appear twice (same date and title), keeping the first, with a warning
    /// naming both places.
    public func deduplicated() -> ImportResult {
        struct Key: Hashable { var seconds: Int64; var title: String }
        var seen: [Key: ImportedArticle] = [:]
        var kept: [ImportedArticle] = []
        var diagnostics = self.diagnostics
        for article in articles {
            let key = Key(seconds: article.date.secondsSinceEpoch, title: article.title)
            if let first = seen[key] {
                diagnostics.append(.warning("duplicate article \"\(article.title)\" (\(article.date)) imported once; first seen at \(first.source)",
                                            at: article.source))
                continue
            }
            seen[key] = article
            kept.append(article)
        }
        return ImportResult(articles: kept, diagnostics: diagnostics)
    }
}

/// An importer that reads one input file at a time.
public protocol FileImporter {
    /// Imports one file already read (strict UTF-8, positions for errors).
    func importSource(_ source: InputText) -> ImportResult
}

extension FileImporter {
    /// Imports each file; a file that cannot be read becomes an error naming it.
    public func importFiles(_ paths: [String]) -> ImportResult {
        var result = ImportResult()
        for path in paths { result.merge(importFile(path)) }
        return result
    }

    public func importFile(_ path: String) -> ImportResult {
        do {
            return importSource(try InputText.read(path: path))
        } catch let diagnostic as Diagnostic {
            return ImportResult(diagnostics: [diagnostic])
        } catch {
            return ImportResult(diagnostics: [.error("\(error)", at: SourceLocation(file: path))])
        }
    }
}
