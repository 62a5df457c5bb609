import XCTest
import Foundation
import BlogSearch

final class SearchIndexBuilderTests: XCTestCase {
    static let docs: [SearchDocument] = [
        SearchDocument(id: "a", title: "SwiftUIで通知を送る", url: "/posts/a/", date: "2021-03-01",
                       tags: ["Swift", "SwiftUI"], headings: ["ローカル通知"],
                       body: "SwiftUIのアプリからローカル通知を送る方法です。", code: "UNUserNotificationCenter.current()",
                       summary: "SwiftUIのアプリからローカル通知を送る"),
        SearchDocument(id: "b", title: "東京都庁の展望室", url: "/posts/b/", date: "2022-01-10",
                       tags: ["旅行"], headings: [], body: "東京都庁の展望室は無料です。京都とは違います。", code: "",
                       summary: "東京都庁の展望室は無料"),
        SearchDocument(id: "c", title: "UITableViewDelegate の使い方", url: "/posts/c/", date: "2020-02-06",
                       tags: ["iOS", "Swift"], headings: ["delegate"], body: "テーブルの行を選んだとき",
                       code: "func tableView(_ tableView: UITableView, didSelectRowAt indexPath: IndexPath) {}",
                       summary: "UITableViewDelegate"),
    ]

    func testOutputIsDeterministicAndIndependentOfInputOrder() {
        let first = SearchIndexBuilder.build(Self.docs)
        let second = SearchIndexBuilder.build(Self.docs)
        let shuffled = SearchIndexBuilder.build([Self.docs[2], Self.docs[0], Self.docs[1]])
        XCTAssertEqual(first.map(\.path), second.map(\.path))
        XCTAssertEqual(first.map(\.bytes), second.map(\.bytes))
        XCTAssertEqual(first.map(\.path), shuffled.map(\.path))
        XCTAssertEqual(first.map(\.bytes), shuffled.map(\.bytes))
    }

    func testLayout() throws {
        let files = SearchIndexBuilder.build(Self.docs, options: .init(shardTargetBytes: 200, docsPerChunk: 2))
        XCTAssertEqual(files.first?.path, "search/meta.json")
        XCTAssertTrue(files.map(\.path).contains("search/docs-0.json"))
        XCTAssertTrue(files.map(\.path).contains("search/docs-1.json"))
        XCTAssertFalse(files.map(\.path).contains("search/docs-2.json"))
        let reader = try SearchIndexReader(files)
        XCTAssertEqual(reader.meta["format"] as? String, "blog-search")
        XCTAssertEqual(reader.meta["version"] as? Int, SearchIndexBuilder.formatVersion)
        XCTAssertEqual(reader.meta["fields"] as? [String], ["title", "tags", "headings", "body", "code"])
        XCTAssertEqual((reader.meta["norms"] as? String)?.count, 3)
        XCTAssertGreaterThan(reader.shards.count, 3, "small target → several shards")
        // Shard first terms are strictly increasing in UTF-16 order, and each shard's terms are
        // sorted and lie between its first term and the next shard's.
        var all: [String] = []
        for i in 0..<reader.shards.count {
            let terms = try reader.shardTerms(i).map(\.0)
            XCTAssertEqual(terms.first, reader.shards[i].first)
            all += terms
        }
        XCTAssertEqual(all, all.sorted(by: SearchIndexReader.utf16Less))
        XCTAssertEqual(Set(all).count, all.count)
        for file in files where file.path.hasPrefix("search/shards/") {
            XCTAssertLessThanOrEqual(file.bytes.count, 200 + 200, "a shard only exceeds the target by one entry")
        }
    }

    func testDefaultOptionsWriteOneDocumentPerFile() throws {
        // A query then downloads only the documents it shows.
        let files = SearchIndexBuilder.build(Self.docs)
        let docFiles = files.filter { $0.path.hasPrefix("search/docs-") }
        XCTAssertEqual(docFiles.map(\.path).sorted(), (0..<Self.docs.count).map { "search/docs-\($0).json" })
        let reader = try SearchIndexReader(files)
        XCTAssertEqual(reader.docChunk, 1)
        for file in docFiles {
            let records = try JSONSerialization.jsonObject(with: Data(file.bytes)) as? [[Any]]
            XCTAssertEqual(records?.count, 1, file.path)
        }
        XCTAssertEqual(try (0..<Self.docs.count).map { try reader.documentRecord($0)[0] as? String }, ["b", "a", "c"])
    }

    func testDocumentStoreIsNewestFirst() throws {
        let reader = try SearchIndexReader(SearchIndexBuilder.build(Self.docs))
        XCTAssertEqual(try reader.documentRecord(0)[0] as? String, "b")
        XCTAssertEqual(try reader.documentRecord(1)[0] as? String, "a")
        let c = try reader.documentRecord(2)
        XCTAssertEqual(c[1] as? String, "UITableViewDelegate の使い方")
        XCTAssertEqual(c[2] as? String, "/posts/c/")
        XCTAssertEqual(c[3] as? String, "2020-02-06")
        XCTAssertEqual(c[4] as? [String], ["iOS", "Swift"])
        XCTAssertEqual(c[5] as? String, "UITableViewDelegate")
    }

    func testPostingsCarryFieldsFrequenciesAndPositions() throws {
        let reader = try SearchIndexReader(SearchIndexBuilder.build(Self.docs))
        // 通知: doc "a" (id 1) in title, headings and body (once in the body).
        let notify = try XCTUnwrap(reader.postings(of: "通知"))
        XCTAssertEqual(notify.map(\.doc), [1])
        XCTAssertEqual(notify[0].mask, 0b01101)
        XCTAssertEqual(notify[0].textTF, 1)
        // 京都 occurs in "東京都庁" (twice in doc b) and standalone: body tf 2.
        let kyoto = try XCTUnwrap(reader.postings(of: "京都"))
        XCTAssertEqual(kyoto.map(\.doc), [0])
        XCTAssertEqual(kyoto[0].textTF, 2)
        // Tag filter terms.
        XCTAssertEqual(try reader.postings(of: "#swift")?.map(\.doc), [1, 2])
        XCTAssertEqual(try reader.postings(of: "#swiftui")?.map(\.doc), [1])
        // Identifier parts from code: tableview in doc c (id 2) only in code (and title).
        let tableview = try XCTUnwrap(reader.postings(of: "tableview"))
        XCTAssertEqual(tableview.map(\.doc), [2])
        XCTAssertEqual(tableview[0].mask & 0b10001, 0b10001)
        // Adjacent bigrams of a phrase have adjacent position residues.
        let tokyo = try XCTUnwrap(reader.postings(of: "東京"))[0]
        let tocho = try XCTUnwrap(reader.postings(of: "都庁"))[0]
        let rotated = ((tokyo.residues << 2) | (tokyo.residues >> 4)) & 63
        XCTAssertNotEqual(rotated & tocho.residues, 0)
        XCTAssertNil(try reader.postings(of: "存在しない"))
    }

    func testEmptyArchive() throws {
        let files = SearchIndexBuilder.build([])
        XCTAssertEqual(files.map(\.path), ["search/meta.json"])
        let reader = try SearchIndexReader(files)
        XCTAssertEqual(reader.docCount, 0)
        XCTAssertEqual(reader.shards.count, 0)
    }

    func testJSONEscaping() throws {
        let evil = SearchDocument(id: "x\"y", title: "<img src=x onerror=alert(1)>", url: "/p/\"/", date: "2020-01-01",
                                  tags: ["a\"b\\c", "改行\nタグ"], headings: [], body: "\u{1}\u{2028}", code: "", summary: "\t")
        let reader = try SearchIndexReader(SearchIndexBuilder.build([evil]))
        let record = try reader.documentRecord(0)
        XCTAssertEqual(record[0] as? String, "x\"y")
        XCTAssertEqual(record[1] as? String, "<img src=x onerror=alert(1)>")
        XCTAssertEqual(record[4] as? [String], ["a\"b\\c", "改行\nタグ"])
        XCTAssertNotNil(try reader.postings(of: "#改行 タグ"))
    }
}
