import XCTest
import Foundation
import BlogSearch

/// Writes a search index (and the tokenizer test vectors) for the browser tests in
/// Tests/integration/test_search_browser.py, which run it with:
///   SEARCH_FIXTURE_OUT=<dir>         where to write `search/…` and `search-vectors.json` (required)
///   SEARCH_FIXTURE_DOCS=<file.json>  documents: [{id,title,url,date,tags,headings,body,code,summary}]
///   SEARCH_FIXTURE_CORPUS=<n>        add n generated posts (SearchCorpus) after those documents
/// Skipped when SEARCH_FIXTURE_OUT is not set.
final class SearchFixtureExportTests: XCTestCase {
    func testExportFixture() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let out = environment["SEARCH_FIXTURE_OUT"], !out.isEmpty else {
            throw XCTSkip("SEARCH_FIXTURE_OUT is not set")
        }
        var documents: [SearchDocument] = []
        if let path = environment["SEARCH_FIXTURE_DOCS"], !path.isEmpty {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
            for item in list {
                documents.append(SearchDocument(
                    id: item["id"] as? String ?? "", title: item["title"] as? String ?? "",
                    url: item["url"] as? String ?? "", date: item["date"] as? String ?? "",
                    tags: item["tags"] as? [String] ?? [], headings: item["headings"] as? [String] ?? [],
                    body: item["body"] as? String ?? "", code: item["code"] as? String ?? "",
                    summary: item["summary"] as? String ?? ""))
            }
        } else {
            documents = SearchIndexBuilderTests.docs
        }
        if let count = Int(environment["SEARCH_FIXTURE_CORPUS"] ?? ""), count > 0 {
            let corpus = SearchCorpus()
            documents += (0..<count).map { corpus.document($0) }
        }
        let root = URL(fileURLWithPath: out)
        let fm = FileManager.default
        for file in SearchIndexBuilder.build(documents) {
            let url = root.appendingPathComponent(file.path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.bytes).write(to: url)
        }
        try Data(SearchTestVectors.json().utf8).write(to: root.appendingPathComponent("search-vectors.json"))
    }
}
