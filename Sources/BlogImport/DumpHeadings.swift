/// Headings. The dump dropped a heading's `#` and glued it to the end of the paragraph before it
/// (`…記載したいと思います。各クラスの概要`) or to the end of a code block; the heading's section
/// starts on the next line.
///
/// A wrong heading is worse than a missing one, so only the strong case is taken: text after a
/// sentence's `。` (or directly after a code block) that ends the line or runs into a code block,
/// is short, holds no punctuation of a sentence, and ends like a noun phrase (a kanji, katakana,
/// letter, digit, closing bracket or a verb's dictionary form: not a polite or past ending or a
/// particle, which a sentence missing its `。` would have). One more case is as strong: a file name
/// after a sentence, glued to a block labelled with that same name (`…書きます。PodfilePodfileplatform …`).
/// A body's first line is not taken, though it often is a heading: a short note's first line
/// passes the same test.
enum DumpHeadings {
    static let maximumLength = 30

    /// The heading at the end of `text`: the length of the text before it, or nil.
    /// `afterCode`: `text` directly follows a code block (the heading may then be all of it).
    static func gluedHeading(_ text: String, afterCode: Bool) -> Int? {
        let characters = Array(text)
        let start: Int
        if let stop = characters.lastIndex(of: "。") {
            start = stop + 1
        } else if afterCode {
            start = 0
        } else {
            return nil
        }
        let heading = characters[start...]
        guard isHeadingText(heading) else { return nil }
        return start
    }

    static func isHeadingText(_ heading: ArraySlice<Character>) -> Bool {
        guard heading.count >= 2, heading.count <= maximumLength, let last = heading.last, let first = heading.first,
              first != " ", heading.contains(where: DumpText.isJapanese) else { return false }
        if heading.contains(where: { "、。，！？!?：:「」『』".contains($0) }) { return false }
        if DumpText.isHiragana(first) || DumpText.continuesSentence(first) { return false }
        guard let scalar = last.unicodeScalars.first else { return false }
        let value = scalar.value
        let kanji = (0x4E00...0x9FFF).contains(value) || (0x3400...0x4DBF).contains(value)
        let katakana = (0x30A1...0x30FA).contains(value) || value == 0x30FC
        let closing = "）)】」』]".contains(last)
        // A verb's dictionary form (`追加する`, `使う`) names a section; polite and past endings
        // and particles belong to sentences that lost their `。`.
        let verbEnding = "るうくぐむぶつ".contains(last)
        return kanji || katakana || closing || verbEnding || DumpText.isASCIIWordCharacter(last)
    }
}
