import XCTest
import BlogSearch

/// Pins the exact bytes of the index for a small but varied corpus, so that rewrites of the
/// builder (tokenizer fast paths, interning, parallel analysis) provably keep the output identical.
/// The digests were recorded from the straightforward implementation before it was optimized.
final class SearchGoldenTests: XCTestCase {
    /// Texts that exercise every tokenizer rule: NFKC (full-width, half-width kana, ligatures,
    /// circled numbers, combining marks), camelCase/snake_case, Greek final sigma, Turkish İ,
    /// ß, Cyrillic, Hangul, emoji, overlong words, lines that need and do not need normalization.
    static let tricky: [String] = SearchTestVectors.inputs + [
        "かな漢字\nＡＢｃ　ｶﾅ\n普通の行\n①\n",
        "ＳｗｉｆｔＵＩで（ｶﾞｲﾄﾞ）を読む！？\nplain ascii line\n",
        "e\u{301}cole Cafe\u{301} ÉCOLE ΣΟΦΟΣ σοφός Ǆemal ǅungla ǆ",
        "Привет МирПривет snake_Case_ЁЖ",
        "İIıi ẞß ﬀﬃ ㍿ ㌔ ㋿",
        "XMLHttpRequest getHTTPResponseCode IOError iOS v2Beta __private_var__ _",
        "a1B2c3D4 ABC123Def HTTP2Server",
        "テスト\r\nｱｲｳｴｵ\tﾊﾟﾋﾟﾌﾟ\u{3000}全角スペース",
        "한글 ᄀᄁ ㄱㄴ 가각",
        "🍣🍺 日本😀語 x\u{200B}y",
        String(repeating: "ab", count: 40) + " " + String(repeating: "é", count: 70) + " ok",
        "__init__ ___ _a_ A_B_C_D_E_F_G_H_I_J_K",
        "々〆〇 ゝゞヽヾ ・ー ㇰㇱ 丽丸",
    ]

    static func corpus() -> [SearchDocument] {
        var docs = SearchIndexBuilderTests.docs
        let generated = SearchCorpus()
        for n in 0..<24 { docs.append(generated.document(n, targetBytes: 1500)) }
        for (i, text) in tricky.enumerated() {
            let other = tricky[(i + 7) % tricky.count]
            docs.append(SearchDocument(
                id: "t\(i)", title: text, url: "/t/\(i)/", date: "2019-0\(1 + i % 9)-1\(i % 10)",
                tags: [text, "Tag \(i % 3)", "  ＳｗｉｆｔＵＩ  "], headings: [other, text],
                body: text + "\n" + other, code: other, summary: String(text.prefix(20))))
        }
        return docs
    }

    static func digest(_ files: [(path: String, bytes: [UInt8])]) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        func add(_ byte: UInt8) { h = (h ^ UInt64(byte)) &* 0x100000001b3 }
        for file in files {
            for byte in file.path.utf8 { add(byte) }
            add(0)
            for byte in file.bytes { add(byte) }
            add(0)
        }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s + "/\(files.count)/\(files.reduce(0) { $0 + $1.bytes.count })"
    }

    func testDefaultOptionsGolden() {
        XCTAssertEqual(Self.digest(SearchIndexBuilder.build(Self.corpus())), "fd9e1abbabb61c1a/73/103413")
    }

    func testSmallShardsGolden() {
        let files = SearchIndexBuilder.build(Self.corpus(), options: .init(shardTargetBytes: 900, docsPerChunk: 5))
        XCTAssertEqual(Self.digest(files), "f9e2debf41cf90f6/168/105306")
    }

    func testEachTrickyTextAloneGolden() {
        var all: [(path: String, bytes: [UInt8])] = []
        for (i, text) in Self.tricky.enumerated() {
            let doc = SearchDocument(id: "\(i)", title: "", url: "/", date: "2020-01-01", tags: [], headings: [],
                                     body: text, code: "", summary: "")
            all += SearchIndexBuilder.build([doc])
        }
        XCTAssertEqual(Self.digest(all), "c9057184eb616e77/116/15846")
    }
}
