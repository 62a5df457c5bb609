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
    public static func parseISO8601(_ text: String) -> ImportDate? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += width
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("T "), let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2)
        else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let begin = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            if index == begin { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            index += 1
        } else {
            let sign: Int
            switch bytes[index] {
            case UInt8(ascii: "+"): sign = 1
            case UInt8(ascii: "-"): sign = -1
            default: return nil
            }
            index += 1
            guard let offsetHours = number(2) else { return nil }
            _ = expect(":")
            guard let offsetMinutes = number(2), offsetHours <= 23, offsetMinutes <= 59 else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard index == bytes.count else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
        return ImportDate(secondsSinceEpoch: local - Int64(offset), offsetSeconds: offset)
    }

    /// Local calendar fields in the date's own offset.
    public var localComponents: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        let local = secondsSinceEpoch + Int64(offsetSeconds)
        var days = local / 86400
        var rest = local % 86400
        if rest < 0 { rest += 86400; days -= 1 }
        let (year, month, day) = ImportDate.civilFromDays(Int(days))
        return (year, month, day, Int(rest / 3600), Int(rest % 3600 / 60), Int(rest % 60))
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

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
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
