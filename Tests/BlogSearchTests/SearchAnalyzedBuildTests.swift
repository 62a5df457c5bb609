import XCTest
import TestSupport
import BlogSearch

/// `analyze` + `build(analyzed:)` (the incremental path of `blog serve`) against `build(_:)`.
final class SearchAnalyzedBuildTests: XCTestCase {
    func testAnalyzedPathGivesIdenticalBytes() {
        let docs = SearchGoldenTests.corpus()
        let direct = SearchIndexBuilder.build(docs)
        let analyzed = docs.map { SearchIndexBuilder.analyze($0) }
        let viaAnalyzed = SearchIndexBuilder.build(analyzed: analyzed)
        XCTAssertEqual(direct.map(\.path), viaAnalyzed.map(\.path))
        XCTAssertEqual(direct.map(\.bytes), viaAnalyzed.map(\.bytes))
        // Order of the analyzed documents does not matter; options are honoured.
        let options = SearchIndexBuilder.Options(shardTargetBytes: 900, docsPerChunk: 5)
        XCTAssertEqual(SearchIndexBuilder.build(analyzed: analyzed.reversed(), options: options).map(\.bytes),
                       SearchIndexBuilder.build(docs, options: options).map(\.bytes))
        XCTAssertEqual(SearchIndexBuilder.analyzeAll(docs).map(\.document), docs)
    }

    /// `blog build` analyses without keeping the texts (so each can be freed once analysed): the
    /// results hold no headings, body or code, and still give the index of the whole documents.
    func testResultsWithoutTheirTextsMakeTheSameIndex() {
        let docs = SearchGoldenTests.corpus()
        XCTAssertTrue(docs.contains { !$0.body.isEmpty && !$0.code.isEmpty && !$0.headings.isEmpty })
        let stripped = SearchIndexBuilder.analyzeAll(count: docs.count, keepsText: false) { docs[$0] }
        XCTAssertTrue(stripped.allSatisfy { $0.document.body.isEmpty && $0.document.code.isEmpty && $0.document.headings.isEmpty })
        XCTAssertEqual(stripped.map(\.document.id), docs.map(\.id))
        XCTAssertEqual(stripped.map(\.document.summary), docs.map(\.summary))
        XCTAssertEqual(stripped.map(\.termCount), SearchIndexBuilder.analyzeAll(docs).map(\.termCount))
        let options = SearchIndexBuilder.Options(shardTargetBytes: 900, docsPerChunk: 5)
        XCTAssertEqual(SearchIndexBuilder.build(analyzed: stripped, options: options).map(\.bytes),
                       SearchIndexBuilder.build(docs, options: options).map(\.bytes))
    }

    func testReanalyzingOneChangedDocumentMatchesAFullBuild() {
        var docs = SearchGoldenTests.corpus()
        var analyzed = docs.map { SearchIndexBuilder.analyze($0) }
        let before = SearchIndexBuilder.build(analyzed: analyzed)
        docs[5].body += "\n追加の段落 with NewIdentifierName と ｶﾀｶﾅ"
        docs[5].tags.append("Added Tag")
        analyzed[5] = SearchIndexBuilder.analyze(docs[5])
        let incremental = SearchIndexBuilder.build(analyzed: analyzed)
        XCTAssertEqual(incremental.map(\.bytes), SearchIndexBuilder.build(docs).map(\.bytes))
        XCTAssertNotEqual(incremental.map(\.bytes), before.map(\.bytes))
        let reader = try? SearchIndexReader(incremental)
        XCTAssertNotNil(try reader?.postings(of: "newidentifiername"))
        XCTAssertNotNil(try reader?.postings(of: "#added tag"))
    }

    /// The builder's byte scanner against the reference tokenizer (`SearchTokenizer.tokens`, which
    /// also produces the browser test vectors): on random mixes of scripts, identifiers and
    /// characters that need NFKC, every document has exactly the terms of its fields' tokens, and
    /// body + code occurrence counts match.
    func testBuilderTermsMatchTheReferenceTokenizer() throws {
        let pieces = ["東京", "都庁", "の", "ｶﾞｲﾄﾞ", "ＡＢｃ", "　", " ", "\n", "tableView", "UITable", "HTTPServer",
                      "snake_case", "__init__", "_", "x9Y", "é", "e\u{301}", "ΣΟΦΟΣ", "ς", "İ", "ß", "Ǆ", "Привет",
                      "한국", "🍣", "①", "ﬁ", "・", "ー", "々", "(", ".", "Straße", "ABCdef", "2Beta", "123",
                      String(repeating: "z", count: 65), "ＳｗｉｆｔＵＩ", "ﾃﾞｰﾀ", "丽", "ǅ", "ῼ", "Ⅻ", "\t"]
        var rng = SplitMix64(seed: 99)
        func text() -> String { (0..<(1 + rng.below(30))).map { _ in pieces[rng.below(pieces.count)] }.joined() }
        for round in 0..<60 {
            let doc = SearchDocument(id: "r\(round)", title: text(), url: "/r/", date: "2020-01-01", tags: [text()],
                                     headings: [text(), text()], body: text(), code: text(), summary: "")
            let reader = try SearchIndexReader(SearchIndexBuilder.build([doc]))
            var expected: [String: Int] = [:]  // term → body + code occurrences
            for field in [doc.title, doc.tags[0], doc.headings[0], doc.headings[1]] {
                for token in SearchTokenizer.tokens(field) where expected[token] == nil { expected[token] = 0 }
            }
            for field in [doc.body, doc.code] {
                for token in SearchTokenizer.tokens(field) { expected[token, default: 0] += 1 }
            }
            let tag = SearchTokenizer.normalizeTag(doc.tags[0])
            var terms: [String: Int] = [:]
            for shard in 0..<reader.shards.count {
                for (term, _) in try reader.shardTerms(shard) where term != "#" + tag {
                    terms[term] = try XCTUnwrap(reader.postings(of: term)?.first?.textTF)
                }
            }
            XCTAssertEqual(terms, expected, "round \(round): \(doc)")
        }
    }
}
