import BlogCore
import Foundation
@testable import BlogImport
import XCTest

final class QiitaAPIImporterTests: XCTestCase {
    func testItemsMapToArticles() throws {
        let result = QiitaAPIImporter().importFile(Fixtures.path("qiita-api/items.json"))
        XCTAssertEqual(result.diagnostics, [])
        XCTAssertEqual(result.articles.count, 3)
        let first = result.articles[0]
        XCTAssertEqual(first.title, "【Swift】Codableで日付を扱う")
        XCTAssertEqual(first.date.iso8601, "2021-05-10T09:15:00+09:00")
        XCTAssertEqual(first.updated?.iso8601, "2021-06-01T12:00:00+09:00")
        XCTAssertEqual(first.tags, ["Swift", "iOS"])
        XCTAssertEqual(first.slug, "0123456789abcdef0123")
        XCTAssertEqual(first.id, "0123456789abcdef0123")
        XCTAssertEqual(first.qiitaURL, "https://qiita.com/someone/items/0123456789abcdef0123")
        XCTAssertEqual(first.likesCount, 42)
        XCTAssertFalse(first.draft)
        XCTAssertEqual(first.body, "# はじめに\n\nJSONの日付を `Date` に変換します。\n\n```swift:main.swift\nlet decoder = JSONDecoder()\n```\n")
        XCTAssertEqual(first.fileName(), "2021-05-10-0123456789abcdef0123.md")
        XCTAssertEqual(first.source.line, 2)

        let second = result.articles[1]
        XCTAssertEqual(second.title, #"[iOS] "Dark mode" / ダークモード: メモ \ 2"#)
        XCTAssertTrue(second.draft)
        XCTAssertEqual(second.body, "")
        XCTAssertEqual(second.tags, ["iOS", "Xcode"])

        let third = result.articles[2]
        XCTAssertEqual(third.title, "Emoji 🚀 and escapes é\t!")
        XCTAssertNil(third.updated)
        XCTAssertNil(third.qiitaURL)
        XCTAssertEqual(third.body, "line one\nline two\n")
        XCTAssertEqual(third.date.iso8601, "2020-01-31T23:30:00+00:00")
    }

    func testFrontMatterOfWrittenFile() throws {
        let article = try XCTUnwrap(QiitaAPIImporter().importFile(Fixtures.path("qiita-api/items.json")).articles.dropFirst().first)
        XCTAssertEqual(article.fileContents(), """
            ---
            title: "[iOS] \\"Dark mode\\" / ダークモード: メモ \\\\ 2"
            date: 2021-05-09T22:01:30+09:00
            updated: 2021-05-09T22:01:30+09:00
            tags: ["iOS", "Xcode"]
            draft: true
            slug: "fedcba9876543210fedc"
            id: "fedcba9876543210fedc"
            qiita_url: "https://qiita.com/someone/items/fedcba9876543210fedc"
            likes_count: 0
            ---

            """)
    }

    func testBrokenJSONNamesFileLineAndColumn() {
        let path = Fixtures.path("qiita-api/broken.json")
        let result = QiitaAPIImporter().importFile(path)
        XCTAssertTrue(result.articles.isEmpty)
        XCTAssertEqual(result.diagnostics.count, 1)
        XCTAssertEqual(result.diagnostics.first?.location, SourceLocation(file: path, line: 5, column: 5))
        XCTAssertTrue(result.diagnostics.first?.description.hasPrefix("\(path):5:5: error: invalid JSON: unexpected character '\"', expected ',' or '}'") ?? false,
                      result.diagnostics.first?.description ?? "")
    }

    func testMissingAndMistypedFields() {
        let path = Fixtures.path("qiita-api/missing-field.json")
        let result = QiitaAPIImporter().importFile(path)
        XCTAssertTrue(result.articles.isEmpty)
        XCTAssertEqual(result.diagnostics.map(\.description), [
            "\(path):2:3: error: item 1: missing field \"created_at\"",
            "\(path):11:19: error: item 2: field \"created_at\" must be a string, found a number",
        ])
    }

    func testNonUTF8Input() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = (directory as NSString).appendingPathComponent("latin1.json")
        _ = FileManager.default.createFile(atPath: path, contents: Data(Array("[{\"title\": \"caf".utf8) + [0xE9] + Array("\"}]".utf8)))
        let result = QiitaAPIImporter().importFile(path)
        XCTAssertEqual(result.diagnostics.first?.location, SourceLocation(file: path, line: 1, column: 16))
        XCTAssertTrue(result.hasErrors)
    }

    func testNotAnArray() throws {
        let source = try InputText(path: "x.json", bytes: Array("\n  42".utf8))
        let result = QiitaAPIImporter().importSource(source)
        XCTAssertEqual(result.diagnostics.map(\.description), ["x.json:2:3: error: expected an array of Qiita items, found a number"])
    }
}

final class QiitaCLIImporterTests: XCTestCase {
    func testPublicFolderIsImportedAndRemoteSkipped() throws {
        let result = QiitaCLIImporter().importDirectory(Fixtures.path("qiita-cli"))
        XCTAssertFalse(result.hasErrors, result.diagnostics.description)
        XCTAssertEqual(result.articles.map(\.title).sorted(), ["Xcode 15の'新機能' [まとめ]", "下書き: \"Swift/Kotlin\" 比較", "空の記事"])
        let byTitle = Dictionary(uniqueKeysWithValues: result.articles.map { ($0.title, $0) })

        let xcode = try XCTUnwrap(byTitle["Xcode 15の'新機能' [まとめ]"])
        XCTAssertEqual(xcode.tags, ["Xcode", "iOS"])
        XCTAssertEqual(xcode.slug, "0123456789abcdef0124")
        XCTAssertEqual(xcode.id, "0123456789abcdef0124")
        XCTAssertEqual(xcode.date.iso8601, "2023-09-20T10:00:00+09:00")
        XCTAssertFalse(xcode.draft)
        XCTAssertEqual(xcode.body, "# 新機能\n\n本文です。\n")

        let draft = try XCTUnwrap(byTitle["下書き: \"Swift/Kotlin\" 比較"])
        XCTAssertTrue(draft.draft, "ignorePublish: true makes a draft")
        XCTAssertEqual(draft.tags, ["Swift", "Kotlin"])
        XCTAssertEqual(draft.slug, "my-draft")
        XCTAssertNil(draft.id)

        let empty = try XCTUnwrap(byTitle["空の記事"])
        XCTAssertTrue(empty.draft)
        XCTAssertEqual(empty.body, "")

        // Which date was used is said in warnings: mtime for the empty updated_at, updated_at for the others.
        let warnings = result.diagnostics.filter { $0.severity == .warning }.map(\.description)
        XCTAssertTrue(warnings.contains { $0.contains("my-draft.md:1: warning: updated_at is empty: the date is the file's modification time") }, "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.contains("the date of 2 articles is their updated_at") }, "\(warnings)")
    }

    func testModificationTimeUsesSiteTimeZone() throws {
        let source = try InputText(path: "a.md", bytes: Array("---\ntitle: A\ntags: [x]\nupdated_at: ''\n---\nbody\n".utf8))
        let result = QiitaCLIImporter(timeZone: TimeZone(identifier: "Asia/Tokyo")!)
            .importSource(source, modificationDate: Date(timeIntervalSince1970: 1_620_605_700))
        XCTAssertEqual(result.articles.first?.date.iso8601, "2021-05-10T09:15:00+09:00")
    }

    /// A file saved with Windows line ends reads like its LF twin.
    func testCRLFFileReadsLikeLF() throws {
        let lf = "---\ntitle: 'CRLF: 記事'\ntags:\n  - Swift\n  - \"iOS\"\nignorePublish: true\nupdated_at: '2023-01-02T03:04:05+09:00'\n---\n# Body\n\ntext\n"
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        let results = try [lf, crlf].map { text in
            QiitaCLIImporter().importSource(try InputText(path: "crlf.md", bytes: Array(text.utf8)), modificationDate: nil)
        }
        XCTAssertTrue(results[1].errors.isEmpty, "\(results[1].diagnostics)")
        let article = try XCTUnwrap(results[1].articles.first)
        XCTAssertEqual(article.title, "CRLF: 記事")
        XCTAssertEqual(article.tags, ["Swift", "iOS"])
        XCTAssertTrue(article.draft)
        XCTAssertEqual(article.body, "# Body\n\ntext\n")
        XCTAssertEqual(results[0].articles.first?.body, article.body)
        XCTAssertEqual(results[0].articles.first?.slug, article.slug)
    }

    func testFrontMatterErrorsHavePositions() throws {
        let cases: [(String, String)] = [
            ("title: A\n", "a.md:1:1: error: missing front matter"),
            ("---\ntitle: 'A\n---\n", "a.md:2:10: error: invalid front matter: found unexpected end of stream while scanning a quoted scalar"),
            ("---\ntitle: A\nupdated_at: 2021-99-01\n---\n", "a.md:3:13: error: updated_at is not an ISO 8601 time"),
            ("---\ntags: [x]\nupdated_at: '2021-05-01T00:00:00+09:00'\n---\n", "a.md:1:1: error: missing \"title\""),
            ("---\ntitle: A\nprivate: maybe\nupdated_at: '2021-05-01T00:00:00+09:00'\n---\n", "a.md:3:10: error: \"private\" must be true or false"),
            ("---\ntitle:\n  key: value\n---\n", "a.md:3:3: error: \"title\" must be a string, found a mapping"),
            ("---\ntitle: A\ntags: [x]\nupdated_at: '2021-05-01T00:00:00+09:00'\n", "a.md:1:1: error: the front matter starting here is not closed by a '---' line"),
        ]
        for (text, expected) in cases {
            let result = QiitaCLIImporter().importSource(try InputText(path: "a.md", bytes: Array(text.utf8)), modificationDate: nil)
            XCTAssertTrue(result.errors.contains { $0.description.hasPrefix(expected) }, "\(text.debugDescription): \(result.diagnostics)")
            XCTAssertTrue(result.articles.isEmpty)
        }
    }

    func testNotAQiitaCLIFolder() throws {
        let directory = try makeTemporaryDirectory(self)
        let result = QiitaCLIImporter().importDirectory(directory)
        XCTAssertEqual(result.errors.map(\.description), ["\(directory): error: not a qiita-cli folder: no public/ directory inside"])
    }
}

final class TextDumpImporterTests: XCTestCase {
    func testDumpIsSplitIntoArticles() throws {
        let path = Fixtures.path("text/dump.txt")
        let result = TextDumpImporter().importFile(path)
        XCTAssertFalse(result.hasErrors, "\(result.diagnostics)")
        XCTAssertEqual(result.articles.map(\.title), [
            "【Swift】Codableで日付を扱う", "[iOS] ダークモード対応のメモ", "【Swift5/iOS】Xcode と UIKit の話",
            "【Swift】Codableで日付を扱う", "Empty body article",
        ])
        XCTAssertEqual(result.articles.map(\.tags), [["Swift"], ["iOS"], ["Swift5", "iOS", "Xcode", "UIKit"], ["Swift"], ["memo"]])
        XCTAssertEqual(result.articles[0].date.iso8601, "2021-05-10T09:15:00+09:00")
        XCTAssertEqual(result.articles[0].source, SourceLocation(file: path, line: 1))
        XCTAssertEqual(result.articles[1].source, SourceLocation(file: path, line: 9))
        XCTAssertEqual(result.articles[4].body, "")
        XCTAssertEqual(result.articles[0].body, """
            はじめに
            JSONの日付をDateに変換する方法です。

            - ISO8601DateFormatterを使う
            - 独自のフォーマットを使う

            参考: https://developer.apple.com/documentation/foundation/jsondecoder
            <https://qiita.com/search?q=Swift&amp;sort=like>

            """)

        // Duplicates (same date and title) are imported once with a warning naming both places.
        let unique = result.deduplicated()
        XCTAssertEqual(unique.articles.count, 4)
        XCTAssertEqual(unique.diagnostics.map(\.description),
                       ["\(path):20: warning: duplicate article \"【Swift】Codableで日付を扱う\" (2021-05-10T09:15:00+09:00) imported once; first seen at \(path):1"])
    }

    func testRenderedBodyContainsEveryLine() throws {
        let path = Fixtures.path("text/dump.txt")
        let lines = try XCTUnwrap(readFile(path)).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let article = try XCTUnwrap(TextDumpImporter().importFile(path).articles.dropFirst().first)
        let rendered = renderedLines(BlogMarkdownRender.html(article.body))
        XCTAssertEqual(rendered, Array(lines[10..<16]))
    }

    func testFileWithoutHeaderIsAnError() {
        let path = Fixtures.path("text/noheader.txt")
        let result = TextDumpImporter().importFile(path)
        XCTAssertTrue(result.articles.isEmpty)
        XCTAssertEqual(result.errors.count, 1)
        XCTAssertTrue(result.errors[0].description.hasPrefix("\(path): error: no article header found"), result.errors[0].description)
    }

    func testFileWithoutHeaderWithDateAndTitle() throws {
        let date = try XCTUnwrap(ImportDate.parseISO8601("2020-04-01T10:00:00+09:00"))
        let result = TextDumpImporter(fallbackDate: date, fallbackTitle: "【Xcode】メモ").importFile(Fixtures.path("text/noheader.txt"))
        XCTAssertEqual(result.diagnostics, [])
        XCTAssertEqual(result.articles.count, 1)
        XCTAssertEqual(result.articles.first?.title, "【Xcode】メモ")
        XCTAssertEqual(result.articles.first?.tags, ["Xcode"])
        XCTAssertEqual(result.articles.first?.body, "見出しのないメモ\n二行目\n")
    }

    func testBadDateHasPosition() {
        let path = Fixtures.path("text/bad-date.txt")
        let result = TextDumpImporter().importFile(path)
        XCTAssertEqual(result.errors.map(\.description), ["\(path):1:7: error: invalid date '2021-13-10T09:15:00+09:00': expected ISO 8601 with an offset, e.g. 2021-05-10T09:15:00+09:00"])
    }

    func testHeaderWithoutTitleAndPreamble() throws {
        // A header with nothing after it (a page cut off) is an empty record: a warning, and the rest is imported.
        let source = try InputText(path: "d.txt", bytes: Array("stray line\n- 投稿日:2021-05-10T09:15:00+09:00\n\n- 投稿日:2021-05-11T09:15:00+09:00\nTitle\nbody\n- 投稿日:2021-05-12T09:15:00+09:00\n".utf8))
        let result = TextDumpImporter().importText(source)
        XCTAssertEqual(result.diagnostics.map(\.description), [
            "d.txt:1: warning: 1 line before the first article header, part of no article, not imported",
            "d.txt:2: warning: article header has no title and no body; skipped",
            "d.txt:7: warning: article header has no title and no body; skipped",
        ])
        XCTAssertEqual(result.articles.map(\.title), ["Title"])
        // A body without a title is still broken data.
        let broken = try InputText(path: "e.txt", bytes: Array("- 投稿日:2021-05-10T09:15:00+09:00\n\nbody\n".utf8))
        XCTAssertEqual(TextDumpImporter().importText(broken).errors.map(\.description),
                       ["e.txt:2: error: empty title: the line after the article header must be the title"])
    }

    func testCRLFDump() throws {
        let source = try InputText(path: "d.txt", bytes: Array("- 投稿日:2021-05-10T09:15:00+09:00\r\nTitle\r\nline\r\n".utf8))
        let result = TextDumpImporter().importText(source)
        XCTAssertEqual(result.articles.first?.title, "Title")
        XCTAssertEqual(result.articles.first?.body, "line\n")
    }
}

import BlogMarkdown

enum BlogMarkdownRender {
    static func html(_ markdown: String) -> String { MarkdownRenderer().render(markdown).html }
}
