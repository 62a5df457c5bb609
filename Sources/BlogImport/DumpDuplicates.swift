import BlogCore

/// One article as the dump holds it, before its body is restored.
struct DumpRecord {
    var title: String
    var date: ImportDate
    var bodyLines: [String]
    var source: SourceLocation
    /// Tags from a title suffix ` : Swift` that a merged near-duplicate carried.
    var extraTags: [String] = []
}

/// Near-duplicates: the dumps hold some articles twice (`…処理する` and `…処理する : Swift`), one
/// copy a later edit of the other: same date, the same title once a trailing ` : <tag>` is
/// dropped, bodies that differ in a few lines. One copy is kept (the first), the suffix becomes a
/// tag, and a warning names both places and shows the lines that differ.
enum DumpDuplicates {
    static let suffixSeparator = " : "
    static let maximumSuffixLength = 30

    /// The title without a trailing ` : <tag>`, and the tag.
    static func splitSuffix(_ title: String) -> (base: String, tag: String?) {
        guard let range = title.range(of: suffixSeparator, options: .backwards) else { return (title, nil) }
        let tag = title[range.upperBound...].trimmingCharacters(in: .whitespaces)
        let base = title[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
        guard !tag.isEmpty, !base.isEmpty, tag.count <= maximumSuffixLength, !tag.contains(" ") else { return (title, nil) }
        return (base, tag)
    }

    /// Lines only in `old` and lines only in `new`, by a longest common subsequence.
    static func difference(_ old: [String], _ new: [String]) -> (removed: [String], added: [String]) {
        let n = old.count, m = new.count
        var table = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = old[i] == new[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var removed: [String] = [], added: [String] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, old[i] == new[j] { i += 1; j += 1 }
            else if j < m, i == n || table[i][j + 1] >= table[i + 1][j] { added.append(new[j]); j += 1 }
            else { removed.append(old[i]); i += 1 }
        }
        return (removed, added)
    }

    /// Whether two bodies differ in a few lines only: at most 3, or a tenth of the longer one.
    static func isSmallDifference(_ removed: Int, _ added: Int, lines: Int) -> Bool {
        max(removed, added) <= max(3, lines / 10)
    }

    /// Keeps one copy of each near-duplicate pair (unless `keepBoth`), with a warning.
    static func merge(_ records: [DumpRecord], keepBoth: Bool) -> (records: [DumpRecord], diagnostics: [Diagnostic]) {
        struct Key: Hashable { var seconds: Int64; var base: String }
        var firstIndex: [Key: Int] = [:]
        var kept: [DumpRecord] = []
        var diagnostics: [Diagnostic] = []
        for record in records {
            let (base, tag) = splitSuffix(record.title)
            let key = Key(seconds: record.date.secondsSinceEpoch, base: base)
            guard let index = firstIndex[key] else {
                firstIndex[key] = kept.count
                kept.append(record)
                continue
            }
            let first = kept[index]
            // Exact copies are the writer's ordinary duplicates; they keep their own message.
            if first.title == record.title && first.bodyLines == record.bodyLines {
                kept.append(record)
                continue
            }
            let (removed, added) = difference(first.bodyLines, record.bodyLines)
            guard isSmallDifference(removed.count, added.count, lines: max(first.bodyLines.count, record.bodyLines.count)) else {
                kept.append(record)
                continue
            }
            var message = "near-duplicate article \"\(base)\" (\(record.date)): \(first.source) (\"\(first.title)\") and "
                + "\(record.source) (\"\(record.title)\") differ in \(Wording.count(max(removed.count, added.count), "line"))"
            if keepBoth {
                message += "; both imported (--keep-duplicates)"
                kept.append(record)
            } else {
                message += "; imported once from \(first.source) (--keep-duplicates imports both)"
                let firstTag = splitSuffix(first.title).tag
                for name in [firstTag, tag].compactMap({ $0 }) where !kept[index].extraTags.contains(name) {
                    kept[index].extraTags.append(name)
                }
                if firstTag != nil, tag == nil {
                    // The copy without the suffix carries the article's real title.
                    kept[index].title = record.title
                }
            }
            for line in removed { message += "\n  - \(line)" }
            for line in added { message += "\n  + \(line)" }
            diagnostics.append(.warning(message, at: record.source))
        }
        return (kept, diagnostics)
    }
}

import Foundation
