/// Trimming of "blanks": CHARACTER TABULATION, the Unicode space separators (general category Zs,
/// e.g. U+0020, U+00A0, U+3000) and ZERO WIDTH SPACE (U+200B, Zs in early Unicode): the set
/// Foundation calls `CharacterSet.whitespaces`. Line breaks are not blanks. Front matter parsing
/// trims titles, tags and dates of every post, and Foundation's `trimmingCharacters(in:)` is
/// too slow for a call per field.
extension String {
    /// The string without leading and trailing blanks (itself when it has none).
    public var trimmingBlanks: String {
        // An ASCII byte other than space and tab is no blank: most text ends in one at both ends,
        // which answers without walking scalars.
        if let first = utf8.first, let last = utf8.last, first &- 0x21 < 0x5F, last &- 0x21 < 0x5F { return self }
        let scalars = unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return self }
        if !first.isBlank && !last.isBlank { return self }
        guard let start = scalars.firstIndex(where: { !$0.isBlank }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.isBlank })!
        return String(scalars[start...end])
    }

    /// Whether the string is empty or only blanks.
    public var isBlank: Bool { unicodeScalars.allSatisfy(\.isBlank) }
}

extension Unicode.Scalar {
    /// Tab, a Unicode space separator (Zs) or U+200B.
    @inline(__always) public var isBlank: Bool {
        if value < 0x80 { return value == 0x20 || value == 0x09 }
        // The last space separator is U+3000; kana and kanji (most titles) need no property lookup.
        if value > 0x3000 { return false }
        return value == 0x200B || properties.generalCategory == .spaceSeparator
    }
}
