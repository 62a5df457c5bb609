/// Writes our front matter: YAML with every string double-quoted and escaped, so that any
/// title survives (colons, `#`, quotes, backslashes, control characters, leading `- `...).
public enum FrontMatterWriter {
    /// A YAML double-quoted scalar.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\u{85}": out += "\\N"
            case "\u{2028}": out += "\\L"
            case "\u{2029}": out += "\\P"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (scalar.value >= 0x80 && scalar.value < 0xA0) {
                    out += "\\x" + hex(scalar.value, digits: 2)
                } else if scalar.value == 0xFEFF || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    // a BOM is dropped by YAML readers and U+FFFE/U+FFFF are not YAML printable: escaped
                    out += "\\u" + hex(scalar.value, digits: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `value` in exactly `digits` upper-case hex digits (the escape's width; callers pass values that fit).
    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// `title`, `date`, `updated`, `tags`, `draft`, `slug`, `id`, `qiita_url`, `likes_count`, then the body.
    public static func document(for article: ImportedArticle, slug: String) -> String {
        var lines = ["---"]
        lines.append("title: \(quote(article.title))")
        lines.append("date: \(article.date.iso8601)")
        if let updated = article.updated { lines.append("updated: \(updated.iso8601)") }
        lines.append("tags: [\(article.tags.map(quote).joined(separator: ", "))]")
        lines.append("draft: \(article.draft)")
        lines.append("slug: \(quote(slug))")
        if let id = article.id { lines.append("id: \(quote(id))") }
        if let url = article.qiitaURL { lines.append("qiita_url: \(quote(url))") }
        if let likes = article.likesCount { lines.append("likes_count: \(likes)") }
        lines.append("---")
        var text = lines.joined(separator: "\n") + "\n"
        text += article.body
        return text
    }
}
