import BlogContent
import BlogCore
import Foundation
import XCTest

final class DateTests: XCTestCase {
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    func testFormsAndOffsets() throws {
        XCTAssertEqual(try DateParser.parse("2020-02-06T10:00:00+09:00", zone: tokyo).epochSeconds, 1_580_950_800)
        XCTAssertEqual(try DateParser.parse("2020-02-06T01:00:00Z", zone: tokyo).epochSeconds, 1_580_950_800)
        XCTAssertEqual(try DateParser.parse("2020-02-06T01:00:00.123Z", zone: tokyo).epochSeconds, 1_580_950_800)
        XCTAssertEqual(try DateParser.parse("2020-02-06 10:00:00 +0900", zone: tokyo).epochSeconds, 1_580_950_800)
        XCTAssertEqual(try DateParser.parse("2020-02-06T10:00", zone: tokyo).epochSeconds, 1_580_950_800, "no offset: the site's zone")
        XCTAssertEqual(try DateParser.parse("2020-02-06", zone: tokyo).epochSeconds, 1_580_914_800)
        XCTAssertEqual(try DateParser.parse("2020-02-05T20:00:00-05:00", zone: tokyo).epochSeconds, 1_580_950_800)
        XCTAssertEqual(try DateParser.parse("2020-02-06", zone: TimeZone(identifier: "UTC")!).epochSeconds, 1_580_947_200)
    }

    func testInvalidDates() {
        for text in ["2020-13-01", "2020-02-30", "2021-02-29", "20-02-06", "2020/02/06", "2020-02-06T25:00", "2020-02-06T10:00+09:00x", "yesterday", ""] {
            XCTAssertThrowsError(try DateParser.parse(text, zone: tokyo), text)
        }
        XCTAssertNoThrow(try DateParser.parse("2024-02-29", zone: tokyo))
    }

    func testDisplayAndISO() throws {
        let date = try DateParser.parse("2020-02-06T01:00:00Z", zone: tokyo).inZone(tokyo)
        XCTAssertEqual(date.iso8601, "2020-02-06T10:00:00+09:00")
        XCTAssertEqual(date.display(language: "ja"), "2020年2月6日")
        XCTAssertEqual(date.display(language: "en"), "February 6, 2020")
        XCTAssertEqual(try DateParser.parse("1999-12-31T23:59:59-03:30", zone: tokyo).iso8601, "1999-12-31T23:59:59-03:30")
        XCTAssertEqual(try DateParser.parse("2000-01-01T00:00:00Z", zone: tokyo).iso8601, "2000-01-01T00:00:00Z")
    }
}

final class FrontMatterTests: XCTestCase {
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    func testSplitIsLineAnchored() throws {
        let doc = try SplitDocument.split("---\ntitle: x\n---\nbody --- here\n---\nmore", path: "a.md")
        XCTAssertEqual(doc.yaml, "title: x")
        XCTAssertEqual(doc.body, "body --- here\n---\nmore")
        XCTAssertEqual(doc.bodyFirstLine, 4)
        let none = try SplitDocument.split("text\n---\ntitle: x\n---\n", path: "a.md")
        XCTAssertNil(none.yaml)
        XCTAssertThrowsError(try SplitDocument.split("---\ntitle: x\n", path: "a.md")) { error in
            XCTAssertEqual((error as? Diagnostic)?.location?.line, 1)
        }
    }

    /// Duplicate tags (same key) keep the first spelling, in short lists and in long ones.
    func testDuplicateTagsKeepTheFirstSpelling() {
        var diagnostics: [Diagnostic] = []
        func tags(_ yaml: String) -> [String] {
            FrontMatter.parse(yaml, firstLine: 2, path: "a", zone: tokyo, diagnostics: &diagnostics).tags
        }
        XCTAssertEqual(tags("tags: [iOS, Swift, IOS, ｓｗｉｆｔ, ios, Xcode, swift]"), ["iOS", "Swift", "Xcode"])
        XCTAssertEqual(tags("tags: swift SWIFT Swift"), ["swift"])
        let many = (0..<40).map { "t\($0 % 25)" } + ["T3", "Ｔ24", "new"]
        XCTAssertEqual(tags("tags: [\(many.joined(separator: ", "))]"), (0..<25).map { "t\($0)" } + ["new"])
        XCTAssertTrue(diagnostics.isEmpty)
    }

    /// The loader renders from `splitHead`'s offset; it must name the same body as `split`.
    func testSplitHeadAgreesWithSplit() throws {
        let texts = ["---\ntitle: x\n---\nbody --- here\n---\nmore", "---\ntitle: 日本語\n...\n本文です\n", "---\n---", "---\n---\n",
                     "---  \ntitle: x\n---\t\n\n# 見出し\n", "no front matter\n---\n", "", "---\r\ntitle: x\n---\nb"]
        for text in texts {
            let doc = try SplitDocument.split(text, path: "a.md")
            let head = try SplitDocument.splitHead(text, path: "a.md")
            XCTAssertEqual(head.yaml, doc.yaml, text)
            XCTAssertEqual(head.yamlFirstLine, doc.yamlFirstLine, text)
            XCTAssertEqual(head.bodyFirstLine, doc.bodyFirstLine, text)
            XCTAssertEqual(String(decoding: Array(text.utf8)[head.bodyOffset...], as: UTF8.self), doc.body, text)
            let fromBytes = try Array(text.utf8).withUnsafeBufferPointer { try SplitDocument.splitHead(utf8: $0, path: "a.md") }
            XCTAssertEqual(fromBytes.yaml, head.yaml, text)
            XCTAssertEqual(fromBytes.bodyOffset, head.bodyOffset, text)
            XCTAssertEqual(fromBytes.bodyFirstLine, head.bodyFirstLine, text)
        }
        XCTAssertThrowsError(try SplitDocument.splitHead("---\ntitle: x\n", path: "a.md"))
    }

    func testQiitaCLIFileLoadsAsIs() {
        let yaml = """
        title: 【Swift】Codableで日付を扱う
        tags:
          - Swift
          - iOS
        private: false
        updated_at: '2021-05-10T09:15:00+09:00'
        id: 0123456789abcdef0123
        organization_url_name: null
        slide: false
        ignorePublish: false
        """
        var diagnostics: [Diagnostic] = []
        let front = FrontMatter.parse(yaml, firstLine: 2, path: "a.md", zone: tokyo, diagnostics: &diagnostics)
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(front.title, "【Swift】Codableで日付を扱う")
        XCTAssertEqual(front.tags, ["Swift", "iOS"])
        XCTAssertEqual(front.date?.iso8601, "2021-05-10T09:15:00+09:00", "updated_at stands in for the missing date")
        XCTAssertEqual(front.id, "0123456789abcdef0123")
        XCTAssertFalse(front.draft)
    }

    func testTagsForms() {
        var diagnostics: [Diagnostic] = []
        XCTAssertEqual(FrontMatter.parse("tags: Swift iOS,Xcode", firstLine: 2, path: "a", zone: tokyo, diagnostics: &diagnostics).tags, ["Swift", "iOS", "Xcode"])
        XCTAssertEqual(FrontMatter.parse("tags: [Swift, swift, 日本語]", firstLine: 2, path: "a", zone: tokyo, diagnostics: &diagnostics).tags, ["Swift", "日本語"])
        XCTAssertEqual(FrontMatter.parse("tags:\n  - name: Swift\n    versions: ['5.0']\n", firstLine: 2, path: "a", zone: tokyo, diagnostics: &diagnostics).tags, ["Swift"])
        XCTAssertEqual(diagnostics, [])
    }

    func testErrorsPointAtFileLines() {
        var diagnostics: [Diagnostic] = []
        _ = FrontMatter.parse("title: ok\ndate: 2020-02-30\ndraft: maybe\n", firstLine: 2, path: "content/posts/a.md", zone: tokyo, diagnostics: &diagnostics)
        XCTAssertEqual(diagnostics.map(\.description), [
            "content/posts/a.md:3:7: error: invalid date in 'date': day 30 is out of range in '2020-02-30' (use ISO 8601, e.g. 2020-02-06T10:00:00+09:00)",
            "content/posts/a.md:4:8: error: 'draft' must be true or false",
        ])
        diagnostics = []
        _ = FrontMatter.parse("title: [oops\n", firstLine: 2, path: "b.md", zone: tokyo, diagnostics: &diagnostics)
        XCTAssertEqual(diagnostics.count, 1)
        XCTAssertTrue(diagnostics[0].description.hasPrefix("b.md:"), diagnostics[0].description)
        XCTAssertGreaterThanOrEqual(diagnostics[0].location?.line ?? 0, 2)
    }

    func testPrivateIsDraft() {
        var diagnostics: [Diagnostic] = []
        XCTAssertTrue(FrontMatter.parse("title: x\nprivate: true", firstLine: 2, path: "a", zone: tokyo, diagnostics: &diagnostics).draft)
    }
}

final class TagAndConfigTests: XCTestCase {
    func testTagIdentityAndSlug() {
        XCTAssertEqual(Tag.key(for: "Swift"), Tag.key(for: "ｓｗｉｆｔ"))
        XCTAssertEqual(Tag.slug(for: "Swift"), "swift")
        XCTAssertEqual(Tag.slug(for: "日本語"), "日本語")
        XCTAssertEqual(Tag.slug(for: "C#"), "c")
        XCTAssertEqual(Tag.slug(for: "C++"), "c++")
        XCTAssertEqual(Tag.slug(for: ".NET Core"), "net-core")
        XCTAssertEqual(Tag.slug(for: "Objective-C/Swift"), "objective-c-swift")
    }

    func testConfigKeysAndWarnings() throws {
        let (console, captured) = Console.capturing()
        let config = try SiteConfig.parse("""
        title: テスト
        base_url: https://user.github.io/archive
        posts_per_page: 5
        colour: blue
        markdown:
          hardbreaks: false
        """, path: "blog.yml", console: console)
        XCTAssertEqual(config.title, "テスト")
        XCTAssertEqual(config.baseURL, "https://user.github.io/archive/")
        XCTAssertEqual(config.basePath, "/archive/")
        XCTAssertEqual(config.origin, "https://user.github.io")
        XCTAssertEqual(config.postsPerPage, 5)
        XCTAssertFalse(config.markdownHardBreaks)
        XCTAssertEqual(config.language, "ja")
        XCTAssertEqual(config.timezone.identifier, "Asia/Tokyo")
        XCTAssertTrue(captured.errors.hasPrefix("blog.yml:4:1: warning: unknown key 'colour' in blog.yml"), captured.errors)
    }

    func testConfigErrors() {
        XCTAssertThrowsError(try SiteConfig.parse("posts_per_page: 0\ntimezone: Mars/Base\nbase_url: ftp://x\n", path: "blog.yml", console: nil)) { error in
            let list = (error as? DiagnosticList)?.diagnostics.map(\.description) ?? []
            XCTAssertEqual(list.count, 3)
            XCTAssertEqual(list.first, "blog.yml:1:17: error: 'posts_per_page' must be a whole number greater than 0")
            XCTAssertTrue(list[1].hasPrefix("blog.yml:2:11: error: unknown time zone 'Mars/Base'"))
        }
    }
}

/// Summaries and reading times are computed on UTF-8 bytes with property tables; these check them
/// against the plain definition (Unicode scalar properties asked one by one) on random text.
final class TextMeasureTests: XCTestCase {
    static func referenceMinutes(_ text: String) -> Int {
        let (cjk, words) = ReadingCountTests.referenceCounts(text)
        return max(1, Int((Double(cjk) / 500.0 + Double(words) / 200.0).rounded()))
    }

    static func referenceExcerpt(_ text: String, limit: Int) -> String {
        var result = String.UnicodeScalarView()
        var count = 0
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || (scalar.value > 0x7F && scalar.properties.isWhitespace) {
                if !lastWasSpace { result.append(" "); count += 1 }
                lastWasSpace = true
            } else {
                if count >= limit && scalar.properties.generalCategory != .nonspacingMark {
                    var cut = String(result)
                    while cut.hasSuffix(" ") { cut.removeLast() }
                    return cut + "…"
                }
                result.append(scalar)
                count += 1
                lastWasSpace = false
            }
        }
        var text = String(result)
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    func testKnownCounts() {
        XCTAssertEqual(Post.readingMinutes(String(repeating: "漢", count: 1000)), 2)
        XCTAssertEqual(Post.readingMinutes(Array(repeating: "word", count: 600).joined(separator: " ")), 3)
        // 々 and 〇 are letters; 「」 and 。 are not; Ａ (full width) is a letter.
        XCTAssertEqual(Post.readingMinutes(Array(repeating: "々 〇 Ａ", count: 200).joined(separator: "。")), 3)
        XCTAssertEqual(Post.readingMinutes(""), 1)
        XCTAssertEqual(Post.excerpt("  Swiftで\u{3000}\n非同期処理  ", limit: 140), "Swiftで 非同期処理")
        XCTAssertEqual(Post.excerpt("あいうえお", limit: 3), "あいう…")
        XCTAssertEqual(Post.excerpt("か\u{3099}きく", limit: 1), "か\u{3099}…")
        XCTAssertEqual(Post.excerpt("ab 😀 cd", limit: 4), "ab 😀…")
    }

    /// Minutes round half up, so 300 words are 2 minutes and 299 are 1 (likewise 750 and 749
    /// Japanese characters): one word or character counted wrongly changes the result.
    func testCountsAtTheRoundingEdgeWithWordsOfEveryLengthAndPlace() {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("abcxyzABCXYZ0189".utf8)
        let separators = [" ", "  ", "-", "_", ".", ", ", "\n", "@", "[", "`", "{", "/", ":", "~", "。", "「", "\u{3000}", "—", "   \t  "]
        for _ in 0..<200 {
            for (count, minutes) in [(300, 2), (299, 1)] {
                var text = separators.randomElement(using: &generator)!
                for _ in 0..<count {
                    let length = Int.random(in: 1...19, using: &generator)
                    text += String(decoding: (0..<length).map { _ in letters.randomElement(using: &generator)! }, as: UTF8.self)
                    text += separators.randomElement(using: &generator)!
                }
                if Bool.random(using: &generator) { text.removeLast() }
                XCTAssertEqual(Post.readingMinutes(text), minutes, text)
                XCTAssertEqual(Post.readingMinutes(text), Self.referenceMinutes(text), text)
            }
        }
        let japanese = ["あ", "ん", "ア", "ヶ", "ー", "漢", "一", "龥", "㐀"]
        let between = ["", "", "。", "、", " ", "-", "「」", "\n", "!?", "........"]
        for _ in 0..<200 {
            for (count, minutes) in [(750, 2), (749, 1)] {
                var text = ""
                for _ in 0..<count {
                    text += between.randomElement(using: &generator)! + japanese.randomElement(using: &generator)!
                }
                XCTAssertEqual(Post.readingMinutes(text), minutes)
                XCTAssertEqual(Post.readingMinutes(text), Self.referenceMinutes(text))
            }
        }
    }

    /// Long runs of kana and kanji (counted five characters a load) broken at every place, at
    /// every alignment and at the end of the text, at the rounding edge: one character counted
    /// more or less changes the result. The separators are no words; U+3100, U+3190 and U+3400
    /// start with E3 like kana but are not kana (U+3400 is counted, as a kanji).
    func testLongRunsOfKanaAndKanjiAtTheRoundingEdge() {
        var generator = SystemRandomNumberGenerator()
        let japanese = ["あ", "ん", "ア", "ヶ", "ー", "漢", "一", "龥", "ゔ", "ヺ", "㐀"]
        let between = ["", "。", "、", " ", "「", "」", "\n", "-", "!?", "\u{3000}", "\u{3100}", "\u{3190}", "🍣"]
        for _ in 0..<300 {
            for (count, minutes) in [(750, 2), (749, 1)] {
                var text = String(repeating: " ", count: Int.random(in: 0...16, using: &generator))
                var placed = 0
                while placed < count {
                    let run = min(Int.random(in: 1...40, using: &generator), count - placed)
                    for _ in 0..<run { text += japanese.randomElement(using: &generator)! }
                    placed += run
                    if placed < count || Bool.random(using: &generator) { text += between.randomElement(using: &generator)! }
                }
                XCTAssertEqual(Post.readingMinutes(text), minutes, text)
                XCTAssertEqual(Post.readingMinutes(text), Self.referenceMinutes(text), text)
            }
        }
    }

    /// Tag keys of ASCII, kana and kanji are made without Foundation; they must be what NFKC
    /// and lowercasing give, also next to a combining mark (which NFKC composes with kana).
    func testPlainTagKeysMatchNFKC() {
        var scalars = Array(0x3000...0x30FF) + Array(stride(from: 0x3400, through: 0xA000, by: 5)) + Array(0x4DF0...0x4E10) + Array(0x9FF0...0xA010)
        scalars += Array(0x20...0x7E) + [0xC0, 0xE9, 0x130, 0x212A, 0xFF21, 0xFF41, 0xFF71, 0xF900, 0x2F800, 0x1F600]
        for v in scalars {
            guard let scalar = Unicode.Scalar(v) else { continue }
            for name in ["Ab" + String(scalar) + "c", String(scalar), String(scalar) + "\u{3099}", "swift" + String(scalar), String(scalar) + "Ｓ"] {
                XCTAssertEqual(Tag.key(for: name), name.precomposedStringWithCompatibilityMapping.lowercased(), "U+\(String(v, radix: 16)) in \(name)")
            }
        }
        XCTAssertEqual(Tag.key(for: ""), "")
        XCTAssertEqual(Tag.key(for: "SwiftUI入門"), "swiftui入門")
    }

    func testExcerptCutsAndFoldsLikeTheDefinition() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "word ", "  ", "\n\n", "\t", "\r\n", "\u{3000}", "日本語", "かな", "。", "é", "e\u{301}", "か\u{3099}", "😀", "𠮷", "\u{2028}", "\u{85}"]
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...120, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for limit in [0, 1, 2, 7, 50, 140, 1000] {
                XCTAssertEqual(Post.excerpt(text, limit: limit), Self.referenceExcerpt(text, limit: limit), "\(limit): \(text)")
            }
        }
        XCTAssertEqual(Post.excerpt("", limit: 5), "")
        XCTAssertEqual(Post.excerpt("   \n ", limit: 5), "")
        XCTAssertEqual(Post.excerpt("ab cd", limit: 3), "ab…")
        XCTAssertEqual(Post.excerpt("ab cd", limit: 5), "ab cd")
        XCTAssertEqual(Post.excerpt("😀😀😀", limit: 2), "😀😀…")
        // Combining marks after the cut are kept however many there are: more than the small
        // buffer a short excerpt is written into.
        for count in [1, 100, 300, 2000] {
            let marks = "ab" + String(repeating: "\u{301}", count: count) + " cd"
            XCTAssertEqual(Post.excerpt(marks, limit: 2), "ab" + String(repeating: "\u{301}", count: count) + "…")
            XCTAssertEqual(Post.excerpt(marks, limit: 0), "…")
            // Marks count as characters; they only never start the cut.
            XCTAssertEqual(Post.excerpt(marks, limit: count + 5), marks)
            XCTAssertEqual(Post.excerpt(marks, limit: 10), Self.referenceExcerpt(marks, limit: 10))
            XCTAssertEqual(Post.excerpt(marks, limit: 3), Self.referenceExcerpt(marks, limit: 3))
        }
    }

    func testMatchesScalarPropertiesOnRandomText() {
        let pieces: [String] = ["a", "Z", "9", " ", "\n", "\t", "\r", "\u{3000}", "\u{00A0}", "\u{2028}", "é", "e\u{301}",
                                "か", "\u{3099}", "漢", "々", "〇", "「", "」", "。", "、", "Ａ", "１", "ｱ", "한", "Я", "ß",
                                "😀", "𠮷", "\u{1D7D8}", "-", "_", ".", "\u{200B}", "ー", "・", "Ⅻ", "½", "\u{0E31}", "\u{0B}", "\u{85}"] + (0x3000...0x303F).map { String(UnicodeScalar($0)!) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<400 {
            let length = Int.random(in: 0...300, using: &generator)
            let text = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
            XCTAssertEqual(Post.readingMinutes(text), Self.referenceMinutes(text), text)
            for limit in [0, 1, 5, 140] {
                XCTAssertEqual(Post.excerpt(text, limit: limit), Self.referenceExcerpt(text, limit: limit), text)
            }
        }
        // Minutes are coarse, so each character class is checked where one character decides them:
        // 400 copies of it between spaces are 2 minutes as words and 1 minute as anything else.
        for v in Array(0x80...0x24F) + Array(0x2000...0x206F) + Array(0x3000...0x30FF) + Array(stride(from: 0x3400, through: 0xA000, by: 7)) + Array(0xA000...0xA010) + Array(0xFF00...0xFFEF) + [0x1D7D8, 0x20BB7, 0x1F600] {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let text = String(repeating: String(scalar) + " ", count: 400)
            XCTAssertEqual(Post.readingMinutes(text), Self.referenceMinutes(text), "U+\(String(v, radix: 16))")
            let spaced = "a" + String(scalar) + "b"
            XCTAssertEqual(Post.excerpt(spaced, limit: 1), Self.referenceExcerpt(spaced, limit: 1), "U+\(String(v, radix: 16))")
        }
        let words = Array(repeating: "Swift concurrency は 非同期処理 を 簡潔 に 書ける", count: 300).joined(separator: " ")
        XCTAssertEqual(Post.readingMinutes(words), Self.referenceMinutes(words))
    }
}

final class ISODateFormatTests: XCTestCase {
    func testMatchesPaddedFieldsForRandomDates() {
        func pad(_ value: Int, _ width: Int = 2) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            // Years from before 0 to past 9999 (written by another path), offsets of 100 hours too.
            let seconds = Int64.random(in: -64_000_000_000...320_000_000_000, using: &generator)
            let offset = [0, 32_400, -12_600, 19_800, -36_000, 50_400, 60, -59, 360_000].randomElement(using: &generator)!
            let date = PostDate(epochSeconds: seconds, offsetSeconds: offset)
            let c = date.civil
            let zone = offset == 0 ? "Z" : "\(offset < 0 ? "-" : "+")\(pad(abs(offset) / 3600)):\(pad((abs(offset) % 3600) / 60))"
            let expected = "\(pad(c.year, 4))-\(pad(c.month))-\(pad(c.day))T\(pad(c.hour)):\(pad(c.minute)):\(pad(c.second))\(zone)"
            XCTAssertEqual(date.iso8601, expected)
            XCTAssertEqual(date.display(language: "ja"), "\(c.year)年\(c.month)月\(c.day)日")
        }
    }
}
