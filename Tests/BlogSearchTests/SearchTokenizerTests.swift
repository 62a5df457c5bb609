import XCTest
import BlogSearch

final class SearchTokenizerTests: XCTestCase {
    func testJapaneseRunsBecomeOverlappingBigrams() {
        XCTAssertEqual(SearchTokenizer.tokens("東京都庁"), ["東京", "京都", "都庁"])
        XCTAssertEqual(SearchTokenizer.tokens("東京"), ["東京"])
        XCTAssertEqual(SearchTokenizer.tokens("コンピューター"), ["コン", "ンピ", "ピュ", "ュー", "ータ", "ター"])
    }

    func testSingleCharacterRunIsItsOwnToken() {
        XCTAssertEqual(SearchTokenizer.tokens("猫"), ["猫"])
        XCTAssertEqual(SearchTokenizer.tokens("Swiftと Kotlin"), ["swift", "と", "kotlin"])
    }

    func testKatakanaMiddleDotAndPunctuationSeparateRuns() {
        XCTAssertEqual(SearchTokenizer.tokens("東京・大阪、名古屋。"), ["東京", "大阪", "名古", "古屋"])
    }

    func testHangulIsBigrammed() {
        XCTAssertEqual(SearchTokenizer.tokens("한국어"), ["한국", "국어"])
    }

    func testNFKCFoldsFullWidthAndHalfWidthForms() {
        XCTAssertEqual(SearchTokenizer.tokens("ＳｗｉｆｔＵＩ"), SearchTokenizer.tokens("SwiftUI"))
        XCTAssertEqual(SearchTokenizer.tokens("ｶﾀｶﾅ"), ["カタ", "タカ", "カナ"])
        // Half-width voiced kana compose to one character after NFKC.
        XCTAssertEqual(SearchTokenizer.tokens("ﾃﾞｰﾀ"), ["デー", "ータ"])
        XCTAssertEqual(SearchTokenizer.tokens("ﬁle"), ["file"])
        XCTAssertEqual(SearchTokenizer.tokens("１２３"), ["123"])
    }

    func testNormalizationOnlyConvertsTheLinesThatNeedIt() {
        let mixed = "かな漢字\nＡＢｃ　ｶﾅ\n普通の行\n①\n"
        XCTAssertEqual(SearchTokenizer.normalize(mixed), "かな漢字\nABc カナ\n普通の行\n1\n")
        XCTAssertEqual(SearchTokenizer.normalize("すべて普通\nASCII only"), "すべて普通\nASCII only")
        XCTAssertEqual(SearchTokenizer.normalize("ｶﾞ"), "ガ")
        XCTAssertEqual(SearchTokenizer.normalize(""), "")
    }

    func testLowercasing() {
        XCTAssertEqual(SearchTokenizer.tokens("HELLO World"), ["hello", "world"])
        XCTAssertEqual(SearchTokenizer.tokens("Straße"), ["straße"])
        // Final sigma is folded so that JavaScript's context-sensitive lowercasing agrees.
        XCTAssertEqual(SearchTokenizer.tokens("ΟΔΟΣ"), ["οδοσ"])
    }

    func testCamelCaseIdentifierIndexesPartsAndAdjacentConcatenations() {
        let tokens = SearchTokenizer.tokens("UITableViewDelegate")
        XCTAssertEqual(tokens.first, "uitableviewdelegate")
        for expected in ["ui", "table", "view", "delegate", "tableview", "viewdelegate", "uitable", "tableviewdelegate", "uitableview"] {
            XCTAssertTrue(tokens.contains(expected), "missing \(expected) in \(tokens)")
        }
        XCTAssertEqual(Set(tokens).count, tokens.count, "no duplicates")
        XCTAssertFalse(tokens.contains("uiview"), "only adjacent parts are joined")
    }

    func testCamelCaseBoundaries() {
        XCTAssertEqual(SearchTokenizer.tokens("parseJSONData"), ["parsejsondata", "parse", "json", "data", "parsejson", "jsondata"])
        XCTAssertEqual(SearchTokenizer.tokens("utf8String"), ["utf8string", "utf8", "string"])
        XCTAssertEqual(SearchTokenizer.tokens("iOS"), ["ios", "i", "os"])
    }

    func testSnakeCaseKeepsUnderscoresInTheWholeWord() {
        XCTAssertEqual(SearchTokenizer.tokens("snake_case"), ["snake_case", "snake", "case", "snakecase"])
        XCTAssertEqual(SearchTokenizer.tokens("__init__"), ["init"])
        XCTAssertEqual(SearchTokenizer.tokens("___"), [])
    }

    func testLongIdentifiersOnlyIndexWholeAndParts() {
        let tokens = SearchTokenizer.tokens("a_b_c_d_e_f_g_h_i_j")
        XCTAssertEqual(tokens, ["a_b_c_d_e_f_g_h_i_j", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"])
    }

    func testOverlongWordsAreDropped() {
        let blob = String(repeating: "ab", count: 40)
        XCTAssertEqual(SearchTokenizer.tokens("x \(blob) y"), ["x", "y"])
    }

    func testMixedScripts() {
        XCTAssertEqual(SearchTokenizer.tokens("SwiftUIで通知"), ["swiftui", "swift", "ui", "で通", "通知"])
        XCTAssertEqual(SearchTokenizer.tokens("<img src=x onerror=alert(1)>"), ["img", "src", "x", "onerror", "alert", "1"])
    }

    func testQueryTermsUseWholeWordsAndBigrams() {
        XCTAssertEqual(SearchTokenizer.queryTerms("SwiftUI 通知"), ["swiftui", "通知"])
        XCTAssertEqual(SearchTokenizer.queryTerms("tableView 東京都"), ["tableview", "東京", "京都"])
        XCTAssertEqual(SearchTokenizer.queryTerms("snake_case"), ["snake_case"])
        // Every query term is an index token of the same text.
        for input in SearchTestVectors.inputs {
            let tokens = Set(SearchTokenizer.tokens(input))
            for term in SearchTokenizer.queryTerms(input) {
                XCTAssertTrue(tokens.contains(term), "\(term) of \(input)")
            }
        }
    }

    func testTagNormalization() {
        XCTAssertEqual(SearchTokenizer.normalizeTag("  ＳｗｉｆｔＵＩ  "), "swiftui")
        XCTAssertEqual(SearchTokenizer.normalizeTag("Machine   Learning"), "machine learning")
    }

    func testVectorsJSONIsValidAndMatchesTheTokenizer() throws {
        let data = Data(SearchTestVectors.json().utf8)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let vectors = try XCTUnwrap(object?["vectors"] as? [[String: Any]])
        XCTAssertEqual(vectors.count, SearchTestVectors.inputs.count)
        for vector in vectors {
            let input = try XCTUnwrap(vector["input"] as? String)
            XCTAssertEqual(vector["tokens"] as? [String], SearchTokenizer.tokens(input))
            XCTAssertEqual(vector["query"] as? [String], SearchTokenizer.queryTerms(input))
        }
    }
}

/// `normalize` sends only the runs NFKC may change (with the character before each) through
/// Foundation; the result must be the same as normalizing the whole text at once.
final class NormalizeRunsTests: XCTestCase {
    func testRunsGiveTheSameTextAsWholeTextNFKC() {
        let pieces = ["a", "Swift", " ", "\n", "e", "\u{301}", "\u{308}", "か", "\u{3099}", "\u{309A}", "ｶ", "ﾞ", "ﾟ", "ﾊ", "（", "）", "！", "Ａ", "１",
                      "漢", "㐂", "「", "」", "、", "。", "ー", "…", "〜", "①", "ｱ", "\u{1100}", "\u{1161}", "\u{11A8}", "가", "ﬁ", "½", "é",
                      "\u{FF9E}", "\u{3000}", "ぱ", "ヴ", "ゔ", "\u{0323}", "\u{0307}", "s", "ṩ", "Å", "Ω", "\u{212B}", "㍻", "ｷﾞｮｰ", "𠮷", "🍣"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let whole = text.decomposedStringWithCompatibilityMapping.precomposedStringWithCanonicalMapping
            XCTAssertEqual(Array(SearchTokenizer.normalize(text).utf8), Array(whole.utf8), text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
        }
    }
}
