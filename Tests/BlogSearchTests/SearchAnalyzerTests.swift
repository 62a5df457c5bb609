import XCTest
import TestSupport
@testable import BlogSearch

/// `DocumentAnalyzer` (optimistic scanning without a stability pass, the word cache, the byte-class
/// scanner) against a reference built from `SearchTokenizer.analyze`, the tokenizer the page's
/// test vectors come from: the same terms in the same order of first occurrence, the same posting
/// values, residues and field lengths.
final class SearchAnalyzerTests: XCTestCase {
    struct Terms: Equatable {
        var terms: [String] = []
        var hashes: [UInt32] = []
        var values: [Int32] = []
        var residues: [UInt8] = []
        var fieldLengths: [Int] = []
    }

    /// What the analyzer must give for `doc`, token by token through the reference tokenizer.
    static func reference(_ doc: SearchDocument) -> Terms {
        var order: [String] = []
        var slots: [String: Int] = [:]
        var masks: [Int32] = [], tfs: [Int32] = [], residues: [UInt8] = []
        func add(_ term: String, field: Int, position: Int?) {
            let t: Int
            if let s = slots[term] {
                t = s
            } else {
                t = order.count
                slots[term] = t
                order.append(term); masks.append(0); tfs.append(0); residues.append(0)
            }
            masks[t] |= 1 << field
            if let position {
                if field >= 3 { tfs[t] += 1 }
                residues[t] |= UInt8(1 << (position % 6))
            }
        }
        var fieldLengths = [Int](repeating: 0, count: 5)
        var position = 0
        func index(_ text: String, _ field: Int) {
            let end = SearchTokenizer.analyze(text, startPosition: position) { token, pos in
                add(String(decoding: token, as: UTF8.self), field: field, position: pos)
            }
            fieldLengths[field] += end - position
            position = end + 1
        }
        index(doc.title, 0)
        for tag in doc.tags {
            index(tag, 1)
            let normalized = SearchTokenizer.normalizeTag(tag)
            if !normalized.isEmpty { add("#" + normalized, field: 1, position: nil) }
        }
        for heading in doc.headings { index(heading, 2) }
        index(doc.body, 3)
        index(doc.code, 4)
        var result = Terms(terms: order, fieldLengths: fieldLengths)
        for (t, term) in order.enumerated() {
            var bytes = Array(term.utf8)
            result.hashes.append(bytes.withUnsafeMutableBufferPointer { b in
                UInt32(truncatingIfNeeded: TermHash.hash(b.baseAddress!, b.count))
            })
            result.values.append(tfs[t] > 0 ? masks[t] | ((min(tfs[t], 4096) - 1) << 5) : masks[t])
            result.residues.append(residues[t])
        }
        return result
    }

    static func terms(_ a: AnalyzedDocument) -> Terms {
        var result = Terms(hashes: a.termHashes, values: a.values, residues: a.residues, fieldLengths: a.fieldLengths)
        var start = 0
        for end in a.termEnds {
            result.terms.append(String(decoding: a.termBytes[start..<Int(end)], as: UTF8.self))
            start = Int(end)
        }
        return result
    }

    static let pieces = ["東京", "都庁", "の", "ｶﾞｲﾄﾞ", "ＡＢｃ", "　", " ", "\n", "tableView", "UITable", "HTTPServer",
                         "UITableViewDelegate", "URLSession", "snake_case", "__init__", "_", "___", "x9Y", "utf8String",
                         "é", "e\u{301}", "か\u{3099}", "ΣΟΦΟΣ", "ς", "İ", "ß", "Ǆ", "Привет", "Straße", "ÀlaCarte",
                         "한국", "🍣", "👩‍💻", "①", "ﬁ", "・", "ー", "々", "〆", "ㇰ", "(", ".", "、", "。", "「", "」",
                         "ABCdef", "2Beta", "123", "a_b_c_d_e_f_g_h_i_j", "aBcDeFgHiJkL",
                         String(repeating: "z", count: 64), String(repeating: "Z", count: 65), String(repeating: "é", count: 65),
                         "ＳｗｉｆｔＵＩ", "ﾃﾞｰﾀ", "丽", "ǅ", "ῼ", "Ⅻ", "\t", "㐀", "䷀", "鿿", "𠀋", "ｱ", "ヿ", "ゟ", "データ", "非同期処理"]
    /// Pieces made only of characters NFKC leaves alone (the scanner's fast case).
    static let stablePieces = ["東京", "都庁", "の", " ", "\n", "tableView", "UITable", "HTTPServer", "URLSession",
                               "UITableViewDelegate", "snake_case", "__init__", "_", "x9Y", "ー", "々", "(", ".", "、", "。",
                               "「", "」", "ABCdef", "2Beta", "123", String(repeating: "Q", count: 65), "データ", "非同期処理", "ゝ"]

    func documents(_ count: Int, seed: UInt64, mixed: Bool) -> [SearchDocument] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { d in
            // Mixed: some documents stable throughout, some with NFKC-changing text in one field.
            let stable = !mixed || rng.below(2) == 0
            func text() -> String {
                let source = stable ? Self.stablePieces : Self.pieces
                return (0..<(1 + rng.below(30))).map { _ in source[rng.below(source.count)] }.joined()
            }
            return SearchDocument(id: "d\(d)", title: text(), url: "/d/", date: "2020-01-01", tags: [text(), "Swift", "Machine  Learning"],
                                  headings: [text(), text()], body: text(), code: text(), summary: "")
        }
    }

    func check(_ docs: [SearchDocument], analyzer: inout DocumentAnalyzer, file: StaticString = #filePath, line: UInt = #line) {
        for doc in docs {
            XCTAssertEqual(Self.terms(analyzer.analyze(doc)), Self.reference(doc), "\(doc)", file: file, line: line)
        }
    }

    func testAnalyzerMatchesTheReferenceOnMixedText() {
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        check(documents(120, seed: 1, mixed: true), analyzer: &analyzer)
        // Both paths ran: optimistic scans that gave up, and documents checked field by field.
        XCTAssertGreaterThan(analyzer.restarts, 0)
    }

    func testOptimisticAndCheckedScansAgreeOnStableText() {
        let docs = documents(60, seed: 2, mixed: false)
        var optimistic = DocumentAnalyzer(), checked = DocumentAnalyzer()
        defer { optimistic.free(); checked.free() }
        for doc in docs {
            checked.optimistic = false
            let a = Self.terms(optimistic.analyze(doc)), b = Self.terms(checked.analyze(doc))
            XCTAssertEqual(a, b)
            XCTAssertEqual(a, Self.reference(doc))
        }
        XCTAssertEqual(optimistic.restarts, 0)
    }

    func testTinyWordCacheIsClearedAndStillCorrect() {
        // Room for two words: the cache is cleared all the time, within documents too.
        var analyzer = DocumentAnalyzer(wordCacheWords: 2)
        defer { analyzer.free() }
        check(documents(60, seed: 3, mixed: true), analyzer: &analyzer)
    }

    func testRepeatedIdentifiersAcrossDocuments() {
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        let words = ["UITableViewDelegate", "NotificationCenter", "JSONDecoder", "__init__", "Straße", "ΣΟΦΟΣ", "x9Y", "___"]
        let docs = (0..<20).map { d in
            SearchDocument(id: "\(d)", title: words[d % words.count], url: "/", date: "2020", tags: [],
                           headings: [], body: (0..<d).map { words[($0 * 3 + d) % words.count] }.joined(separator: " "),
                           code: words.reversed().joined(separator: "."), summary: "")
        }
        check(docs + docs, analyzer: &analyzer)
    }

    /// The word cache tells words of up to 8 bytes apart by hash and length alone (`TermHash` is a
    /// bijection there): identifiers of 1…10 bytes that differ in one byte, at every place, stay
    /// apart, within a document and across documents (cache hits), also when they meet in a
    /// probe sequence.
    func testShortCachedWordsThatDifferInOneByte() {
        var words: [String] = []
        for n in 1...10 {
            let base = Array("A" + String(repeating: "b", count: n - 1))
            words.append(String(base))
            for k in 0..<n {
                var w = base
                w[k] = k == 0 ? "B" : (k == n - 1 ? "C" : "c")
                words.append(String(w))
            }
        }
        let docs = (0..<3).map { d in
            SearchDocument(id: "w\(d)", title: words[d], url: "/", date: "2020", tags: [], headings: [],
                           body: words.joined(separator: " "), code: words.reversed().joined(separator: "."), summary: "")
        }
        // The default cache, and one of 8 words in 16 slots, where words share probe sequences.
        for size in [8192, 8] {
            var analyzer = DocumentAnalyzer(wordCacheWords: size)
            defer { analyzer.free() }
            check(docs, analyzer: &analyzer)
        }
    }

    /// A full build's partitions skip other partitions' terms by a range of multiplied hashes
    /// (`TermPartition.hashRange`): it must agree with `TermPartition.partition(of:count:)` for
    /// every partition count, at the edges of every range and for random hashes.
    func testPartitionHashRangesMatchPartitionOf() {
        var rng = SplitMix64(seed: 9)
        for count in 1...9 {
            let ranges = (0..<count).map { TermPartition.hashRange($0, count: count) }
            var hashes: [UInt32] = [0, 1, UInt32.max, UInt32.max - 1]
            for r in ranges {
                // Hashes whose products land just around the range's ends (0x9E3779B1 is odd, so
                // it has an inverse mod 2^32).
                for x in [r.low, r.low &+ 1, r.low &- 1, r.low &+ r.width, r.low &+ r.width &- 1] {
                    hashes.append(UInt32(truncatingIfNeeded: x) &* 0x0E8B_2F51)  // 0x9E3779B1⁻¹ mod 2^32
                }
            }
            for _ in 0..<20_000 { hashes.append(UInt32(truncatingIfNeeded: rng.next())) }
            for h in hashes {
                let expected = TermPartition.partition(of: h, count: count)
                for (index, r) in ranges.enumerated() {
                    let inRange = UInt64(h &* 0x9E37_79B1) &- r.low < r.width
                    XCTAssertEqual(inRange, index == expected, "hash \(h) count \(count) partition \(index)")
                }
            }
        }
    }

    /// CJK runs go through a loop of their own for 3-byte characters after a 3-byte character
    /// (`DocumentAnalyzer.cjkRun`), and through the general step for anything else: every sequence
    /// of up to three characters from both sides of that line (ideographs of lead bytes E4 and
    /// E5…E9, non-ideographs of lead byte E4, kana and `ー々〇` of U+3000…U+3FFF, CJK characters NFKC
    /// may change, 4-byte ideographs, Hangul, non-CJK kana punctuation, letters, separators), and
    /// repeated, at the ends of fields and in the middle, gives the reference's terms, with the
    /// optimistic scan and the checked one.
    func testCJKRunsOfEveryShapeMatchTheReference() {
        let characters = ["東", "の", "ー", "々", "〇", "一", "丂", "䀀", "䷀", "𠀋", "㐀", "ㇰ", "ゟ", "ㄱ", "가", "・", "a", "Z", " ", "。"]
        var texts: [String] = characters
        for a in characters { for b in characters { texts.append(a + b) } }
        for a in characters { for b in characters { for c in characters { texts.append(a + b + c) } } }
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        for text in texts {
            let doc = SearchDocument(id: "k", title: text, url: "/", date: "2020", tags: [], headings: [],
                                     body: text + text + "データ" + text, code: "東京" + text, summary: "")
            let expected = Self.reference(doc)
            for optimistic in [true, false] {
                analyzer.optimistic = optimistic
                XCTAssertEqual(Self.terms(analyzer.analyze(doc)), expected, "\(text.debugDescription) \(optimistic)")
            }
        }
    }

    /// CJK runs separated by separators of U+3000…U+3FFF, which `cjkRun` steps over itself to start
    /// the next run (stable ones: 、。「」〜; NFKC-changing ones: the ideographic space, ㍿, ㈱), alone,
    /// in rows, at the ends of fields, before ASCII, 4-byte ideographs, half-width kana and letters:
    /// the reference's terms (positions and residues included), optimistic and checked.
    func testCJKRunsAcrossSeparatorsMatchTheReference() {
        let pieces = ["東京", "の", "データ", "非同期処理", "一", "䷀", "丂", "ー", "々", "〇", "𠀋", "ｶ", "가",
                      "、", "。", "「", "」", "〜", "・", "　", "㍿", "㈱", "、。", "」「", "a", "Swift", " ", "\n", "é"]
        var rng = SplitMix64(seed: 11)
        var texts = ["", "。", "、東", "東。", "東、京", "東。。京都", "データ。「東京」、", "の」", String(repeating: "東京。", count: 40)]
        for _ in 0..<400 {
            texts.append((0..<(1 + rng.below(12))).map { _ in pieces[rng.below(pieces.count)] }.joined())
        }
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        for text in texts {
            let doc = SearchDocument(id: "s", title: text, url: "/", date: "2020", tags: [text], headings: [text + "。" + text],
                                     body: text + "。" + text + "、データ", code: text, summary: "")
            let expected = Self.reference(doc)
            for optimistic in [true, false] {
                analyzer.optimistic = optimistic
                XCTAssertEqual(Self.terms(analyzer.analyze(doc)), expected, "\(text.debugDescription) \(optimistic)")
            }
        }
    }

    /// Every character of the ranges where the scanner has its own tables or fast paths, alone, doubled
    /// and next to letters, ideographs and kana, matches the reference.
    func testCharacterClassesMatchTheReference() {
        var ranges: [ClosedRange<UInt32>] = [0x00...0x2FF, 0x370...0x500, 0x1100...0x1200, 0x1E00...0x1F00,
                                             0x3000...0x3400, 0x4DB0...0x4E10, 0x9FF0...0xA000, 0xA960...0xA980,
                                             0xAC00...0xAC08, 0xD7A0...0xD800, 0xF900...0xF908, 0xFF00...0xFFEF]
        ranges += [0x1F600...0x1F610, 0x20000...0x20008, 0x31340...0x31350]
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        for range in ranges {
            for v in range {
                guard let scalar = Unicode.Scalar(v) else { continue }
                let c = String(Character(scalar))
                let doc = SearchDocument(id: "c", title: c, url: "/", date: "2020", tags: [], headings: ["\(c)\(c)"],
                                         body: "a\(c)b 東\(c)京 \(c)x", code: "X\(c)の\(c)", summary: "")
                let expected = Self.reference(doc)
                // The optimistic scan (which must notice any character NFKC may change) and the
                // field-by-field check.
                for optimistic in [true, false] {
                    analyzer.optimistic = optimistic
                    XCTAssertEqual(Self.terms(analyzer.analyze(doc)), expected, "U+\(String(v, radix: 16)) \(optimistic)")
                }
            }
        }
    }

    /// The stability check (the separate pass and the scanner's own) is exactly "ASCII or
    /// `isNFKCStable`" for every character.
    func testStabilityCheckMatchesTheCharacterRule() {
        for v in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(v) else { continue }
            if v > 0xFFFF && v % 97 != 0 { continue }
            var text = "a" + String(Character(scalar)) + "\u{3042}"
            let expected = v < 0x80 || SearchTokenizer.isNFKCStable(v)
            let stable = text.withUTF8 { DocumentAnalyzer.isStable($0.baseAddress!, $0.count) }
            XCTAssertEqual(stable, expected, "U+\(String(v, radix: 16))")
        }
    }

    func testASCIITagTermsMatchNormalizeTag() {
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        let tags = ["Swift", "iOS", "C++", "Machine  Learning", " Machine\tLearning ", "a\r\nb", "a\u{0B}\u{0C}b", "x\u{1C}y",
                    "", " ", "\n\n", "ABC def  GHI", "#tag", "_Under_Score_", "Objective-C", "a b", String(repeating: "Ab ", count: 50),
                    "Ｓｗｉｆｔ", "Straße", "ΣΟΦΟΣ", "機械学習", "tag\u{3000}name"]
        for tag in tags {
            let doc = SearchDocument(id: "t", title: "", url: "/", date: "2020", tags: [tag], headings: [], body: "", code: "", summary: "")
            XCTAssertEqual(Self.terms(analyzer.analyze(doc)), Self.reference(doc), tag.debugDescription)
        }
        // All of them at once (and again, with cached words).
        let doc = SearchDocument(id: "all", title: "", url: "/", date: "2020", tags: tags + tags, headings: [], body: "", code: "", summary: "")
        XCTAssertEqual(Self.terms(analyzer.analyze(doc)), Self.reference(doc))
    }

    /// Documents with thousands of distinct terms grow the analyzer's term table (and its pool) in
    /// the middle of a document, between an occurrence's lookup and its counting.
    func testLargeDocumentsGrowTheTermTable() {
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        var rng = SplitMix64(seed: 5)
        let kana = Array("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん漢字東京")
        for size in [100, 3_000, 600, 9_000, 50] {
            let words = (0..<size).map { i in i % 3 == 0 ? "Word\(i)Part" : (i % 3 == 1 ? "w\(i)" : "id_\(i)_x") }
            let prose = String((0..<size).map { _ in kana[rng.below(kana.count)] })
            let doc = SearchDocument(id: "g\(size)", title: "UITableView", url: "/", date: "2020", tags: ["Swift"], headings: [],
                                     body: prose + " " + words.joined(separator: " "), code: words.reversed().joined(separator: "\n"),
                                     summary: "")
            XCTAssertEqual(Self.terms(analyzer.analyze(doc)), Self.reference(doc), "size \(size)")
        }
    }

    /// Bigrams of two 3-byte characters have a table of their own (`DocumentAnalyzer.bigrams`), filled
    /// by the fast loop and by the general step (Hangul, Extension A, characters after a 4-byte one):
    /// documents with thousands of distinct bigrams of both kinds grow it in the middle of a run, and
    /// the next, smaller documents must not see the slots of the one before.
    func testBigramTableGrowsAndIsEmptiedBetweenDocuments() {
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        var rng = SplitMix64(seed: 6)
        let characters = Array("あいうえおかきくけこさしすせそたちつてとアイウエオカキクケコー々一丁七万丈三上下不与両並中仕他付代以東京都庁漢字"
                               + "가나다라마㐀㐁𠀋𠀌")
        for (n, size) in [4_000, 30, 12_000, 200, 0, 2_500].enumerated() {
            var body = ""
            for k in 0..<size {
                body.append(characters[rng.below(characters.count)])
                if rng.below(40) == 0 { body.append(k % 2 == 0 ? "。" : " ") }
            }
            let doc = SearchDocument(id: "b\(n)", title: String(body.prefix(20)), url: "/", date: "2020", tags: [], headings: [],
                                     body: body, code: "", summary: "")
            for optimistic in [true, false] {
                analyzer.optimistic = optimistic
                XCTAssertEqual(Self.terms(analyzer.analyze(doc)), Self.reference(doc), "size \(size) \(optimistic)")
            }
        }
    }

    func testEmptyAndSeparatorOnlyFields() {
        var analyzer = DocumentAnalyzer()
        defer { analyzer.free() }
        let docs = [
            SearchDocument(id: "e", title: "", url: "/", date: "2020", tags: [""], headings: [""], body: "", code: "", summary: ""),
            SearchDocument(id: "s", title: " \n", url: "/", date: "2020", tags: ["　"], headings: ["🍣"], body: "___", code: "(", summary: ""),
        ]
        check(docs, analyzer: &analyzer)
    }
}
