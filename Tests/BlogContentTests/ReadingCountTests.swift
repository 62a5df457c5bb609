@testable import BlogContent
import XCTest

/// The counts behind `Post.readingMinutes` (sixteen bytes a step over ASCII, kana, kanji and
/// Japanese punctuation; a character at a time elsewhere) against a plain count by scalars.
final class ReadingCountTests: XCTestCase {
    static func referenceCounts(_ text: String) -> (cjk: Int, words: Int) {
        var cjk = 0, words = 0, inWord = false
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                let isWordByte = (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
                if isWordByte && !inWord { words += 1 }
                inWord = isWordByte
            } else if (0x3040...0x30FF).contains(v) || (0x3400...0x9FFF).contains(v) || (0xAC00...0xD7AF).contains(v) || (0xF900...0xFAFF).contains(v) {
                cjk += 1
                inWord = false
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                if !inWord { words += 1 }
                inWord = true
            } else {
                inWord = false
            }
        }
        return (cjk, words)
    }

    /// Kana, kanji, every kind of Japanese punctuation (word characters among them: 々〆〇〡〱〸〻),
    /// E3 characters that are no kana (U+3100, U+3190, U+3400), ASCII words, letters and digits
    /// outside ASCII, Hangul and emoji, in random order, so every kind falls at every lane of a
    /// step and across steps.
    func testCountsMatchTheScalarDefinitionOnRandomText() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["あ", "ん", "ア", "ヶ", "ー", "ゔ", "ヺ", "漢", "一", "龥", "㐀", "\u{3100}", "\u{3190}", "\u{30FF}", "\u{3040}",
                      "。", "、", "「", "」", "【", "】", "〜", "\u{3000}", "\u{3004}", "々", "〆", "〇", "\u{3008}", "\u{3020}", "〡", "〩",
                      "\u{302A}", "\u{3030}", "〱", "〵", "\u{3036}", "\u{3037}", "〸", "〻", "〼", "\u{303D}", "\u{303F}",
                      "a", "Z", "0", "9", "word", "x1", "Swift", " ", "  ", "\n", "-", "_", "@", "`", "[", "{", "/", ":", "~", "\u{7F}",
                      "é", "Ａ", "１", "😀", "한", "가", "\u{F900}", "—", "“", "ä", "ß", "Ω", "Я", "²", "\u{A0}", "ª"]
        let heavy = ["あ", "漢", "ア", "。", "、", "「", "」", "a", " "]
        for round in 0..<3_000 {
            var text = ""
            let count = Int.random(in: 0...(round % 10 == 0 ? 400 : 60), using: &generator)
            let pool = round % 3 == 0 ? heavy : pieces
            for _ in 0..<count {
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    // A run of kana and kanji, as in most Japanese sentences.
                    for _ in 0..<Int.random(in: 1...24, using: &generator) { text += ["あ", "漢", "ア", "ー"].randomElement(using: &generator)! }
                } else {
                    text += pool.randomElement(using: &generator)!
                }
            }
            let counts = Post.readingCounts(text)
            let reference = Self.referenceCounts(text)
            XCTAssertEqual(counts.cjk, reference.cjk, text)
            XCTAssertEqual(counts.words, reference.words, text)
        }
    }

    /// Texts long enough that the lane counts are summed on the way (every 255 steps).
    func testLongTexts() {
        var generator = SystemRandomNumberGenerator()
        for length in [1_360, 1_361, 1_400, 3_000, 9_000] {
            var text = ""
            for k in 0..<length {
                text += k % 37 == 36 ? " word " : ["あ", "漢", "。", "ア"].randomElement(using: &generator)!
            }
            let counts = Post.readingCounts(text)
            let reference = Self.referenceCounts(text)
            XCTAssertEqual(counts.cjk, reference.cjk)
            XCTAssertEqual(counts.words, reference.words)
            XCTAssertEqual(Post.readingCounts(String(repeating: "ab ", count: length)).words, length)
            XCTAssertEqual(Post.readingCounts(String(repeating: "漢", count: length)).cjk, length)
        }
        XCTAssertEqual(Post.readingCounts("").cjk, 0)
        XCTAssertEqual(Post.readingCounts("").words, 0)
    }
}
