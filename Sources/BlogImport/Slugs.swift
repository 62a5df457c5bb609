import BlogCore
/// Slugs for imported and new posts. Always ASCII-safe: `[a-z0-9-]`.
public enum Slugs {
    /// Qiita item ids are 20 lowercase hex characters.
    public static func isQiitaID(_ text: String) -> Bool {
        text.utf8.count == 20 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// True when `text` is a usable slug as given: ASCII letters, digits, `-`, `_`, not empty,
    /// not starting with `-`, `_` or `.`.
    public static func isValid(_ text: String) -> Bool {
        guard let first = text.utf8.first, first != UInt8(ascii: "-"), first != UInt8(ascii: "_") else { return false }
        return text.utf8.allSatisfy { isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The ASCII words of `text`, lowercased (`"SwiftUIでList-View"` → `["swiftui", "list", "view"]`).
    public static func asciiWords(_ text: String) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        for byte in text.utf8 {
            if isASCIIAlphanumeric(byte) {
                current.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            } else if !current.isEmpty {
                words.append(String(decoding: current, as: UTF8.self))
                current.removeAll()
            }
        }
        if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
        return words
    }

    /// Lowercase ASCII words joined by `-`, at most `maxLength` characters (cut at a word boundary).
    public static func joinWords(_ words: [String], maxLength: Int = 60) -> String {
        var slug = ""
        for word in words {
            let candidate = slug.isEmpty ? word : slug + "-" + word
            if candidate.utf8.count > maxLength {
                if slug.isEmpty { slug = String(word.prefix(maxLength)) }
                break
            }
            slug = candidate
        }
        return slug
    }

    /// 32-bit FNV-1a of the UTF-8 bytes as 8 lowercase hex digits: stable on every platform.
    public static func shortHash(_ text: String) -> String {
        hex8(fnv1a32(text))
    }

    /// A stable slug from a title: the ASCII words of the title (bracketed tag prefixes such as
    /// `【Swift】` left out); when the title also has other text (Japanese), the words are followed
    /// by a short hash of date and title so that different Japanese titles with the same English
    /// words stay apart; with no ASCII words at all, just the hash.
    ///
    /// `"Using Codable"` → `using-codable`; `"【Swift】Codableで日付を扱う"` → `codable-1a2b3c4d`;
    /// `"ダークモード対応のメモ"` → `5e6f7a8b`.
    public static func fromTitle(_ title: String, date: ImportDate) -> String {
        let (_, rest) = TagInference.splitBracketPrefixes(title)
        let base = rest.isEmpty ? title : rest
        let words = joinWords(asciiWords(base))
        let hasOtherLetters = base.unicodeScalars.contains { $0.value >= 0x80 && !$0.properties.isWhitespace }
        let hash = shortHash(date.iso8601 + "|" + title)
        if words.isEmpty { return hash }
        return hasOtherLetters ? words + "-" + hash : words
    }

    /// A slug from a file name (`my-Article_01.md` → `my-article-01`), or nil when nothing ASCII is left.
    public static func fromFileName(_ name: String) -> String? {
        var stem = name
        if stem.hasSuffix(".md") { stem.removeLast(3) }
        let slug = joinWords(asciiWords(stem), maxLength: 80)
        return slug.isEmpty ? nil : slug
    }
}
