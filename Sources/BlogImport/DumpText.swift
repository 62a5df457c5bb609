/// Character classes the dump-restoring rules share: where Japanese prose is, and which characters
/// cannot begin a sentence (so a line break before them was not in the article).
enum DumpText {
    /// Kana, CJK ideographs, full-width forms and Japanese punctuation: the prose around code.
    static func isJapanese(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x3000...0x303F, 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xF900...0xFAFF, 0xFF00...0xFFEF:
            return true
        default:
            return false
        }
    }

    static func isHiragana(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        return (0x3041...0x309F).contains(scalar.value)
    }

    /// Characters that continue a sentence: hiragana (particles, verb endings), small kana, the
    /// long-vowel mark and closing or mid-sentence punctuation. A Japanese sentence never starts
    /// with these, so a line that does was broken off the line before it.
    static func continuesSentence(_ character: Character) -> Bool {
        if isHiragana(character) { return true }
        return "、。，．）」』】〕！？ー・：:,.)".contains(character)
    }

    /// Sentence-ending punctuation: a line ending with it ended a sentence in the article.
    static func endsSentence(_ character: Character) -> Bool {
        "。！？!?：:".contains(character)
    }

    static func isASCIIWordCharacter(_ character: Character) -> Bool {
        guard character.isASCII, let scalar = character.unicodeScalars.first else { return false }
        return (scalar.value >= 0x30 && scalar.value <= 0x39) || (scalar.value >= 0x41 && scalar.value <= 0x5A)
            || (scalar.value >= 0x61 && scalar.value <= 0x7A) || character == "_"
    }

    /// The text without any whitespace: what the lossless property compares.
    static func withoutWhitespace(_ text: String) -> String {
        String(text.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init))
    }
}
