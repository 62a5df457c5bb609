@testable import BlogImport
import Foundation
import XCTest

final class DateAndSlugTests: XCTestCase {
    func testISO8601RoundTripKeepsOffset() throws {
        let date = try XCTUnwrap(ImportDate.parseISO8601("2021-05-10T09:15:00+09:00"))
        XCTAssertEqual(date.iso8601, "2021-05-10T09:15:00+09:00")
        XCTAssertEqual(date.secondsSinceEpoch, 1_620_605_700)
        XCTAssertEqual(date.day, "2021-05-10")
        XCTAssertEqual(ImportDate.parseISO8601("2020-01-31T23:30:00Z")?.iso8601, "2020-01-31T23:30:00+00:00")
        XCTAssertEqual(ImportDate.parseISO8601("2020-02-29T00:00:00.123-0530")?.iso8601, "2020-02-29T00:00:00-05:30")
        // The day in the file name is the local day of the given offset.
        XCTAssertEqual(ImportDate.parseISO8601("2021-01-01T00:30:00+09:00")?.day, "2021-01-01")
        for bad in ["2021-13-01T00:00:00Z", "2021-02-29T00:00:00Z", "2021-05-10", "2021-05-10T09:15:00", "2021-05-10T09:15:00+9", "x"] {
            XCTAssertNil(ImportDate.parseISO8601(bad), bad)
        }
    }

    func testDateFromFoundationInTimeZone() {
        let date = ImportDate(date: Date(timeIntervalSince1970: 1_620_605_700), timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        XCTAssertEqual(date.iso8601, "2021-05-10T09:15:00+09:00")
    }

    func testSlugs() throws {
        let date = try XCTUnwrap(ImportDate.parseISO8601("2021-05-10T09:15:00+09:00"))
        XCTAssertEqual(Slugs.fromTitle("Using Codable with Dates!", date: date), "using-codable-with-dates")
        let mixed = Slugs.fromTitle("【Swift】Codableで日付を扱う", date: date)
        XCTAssertTrue(mixed.hasPrefix("codable-"), mixed)
        XCTAssertEqual(mixed.count, "codable-".count + 8)
        let japanese = Slugs.fromTitle("ダークモード対応のメモ", date: date)
        XCTAssertEqual(japanese.count, 8)
        XCTAssertTrue(Slugs.isValid(japanese))
        // Stable: the same input gives the same slug; a different title a different one.
        XCTAssertEqual(japanese, Slugs.fromTitle("ダークモード対応のメモ", date: date))
        XCTAssertNotEqual(japanese, Slugs.fromTitle("ダークモード対応のメモ2", date: date))
        XCTAssertEqual(Slugs.shortHash(""), "811c9dc5")
        XCTAssertTrue(Slugs.isQiitaID("0123456789abcdef0123"))
        XCTAssertFalse(Slugs.isQiitaID("0123456789abcdef012"))
        XCTAssertFalse(Slugs.isQiitaID("0123456789ABCDEF0123"))
        XCTAssertEqual(Slugs.fromFileName("My_Article-01.md"), "my-article-01")
        XCTAssertNil(Slugs.fromFileName("記事.md"))
        XCTAssertFalse(Slugs.isValid("-x"))
        XCTAssertFalse(Slugs.isValid("a/b"))
        XCTAssertFalse(Slugs.isValid(""))
    }

    func testTagInference() {
        let inference = TagInference()
        XCTAssertEqual(inference.tags(forTitle: "【Swift5】Codableで日付を扱う"), ["Swift5"])
        XCTAssertEqual(inference.tags(forTitle: "[iOS] ダークモード対応のメモ"), ["iOS"])
        XCTAssertEqual(inference.tags(forTitle: "【Swift/iOS】通知の話"), ["Swift", "iOS"])
        XCTAssertEqual(inference.tags(forTitle: "【swift】［xcode］ SwiftUIとFirebaseの連携"), ["Swift", "Xcode", "SwiftUI", "Firebase"])
        // Whole words only: "SwiftUI" does not give "Swift", "iOSアプリ" gives "iOS".
        XCTAssertEqual(inference.tags(forTitle: "SwiftUIでList"), ["SwiftUI"])
        XCTAssertEqual(inference.tags(forTitle: "iOSアプリの作り方"), ["iOS"])
        XCTAssertEqual(inference.tags(forTitle: "今日のできごと"), ["memo"])
        XCTAssertEqual(TagInference(knownTags: ["Rust"], fallbackTag: "note").tags(forTitle: "Swiftの話"), ["note"])
        XCTAssertEqual(TagInference.parseKnownTags("# comment\nSwift\n\n  Kotlin  \r\n"), ["Swift", "Kotlin"])
    }

    func testFrontMatterQuoting() {
        XCTAssertEqual(FrontMatterWriter.quote(#"a "b" \ c"#), #""a \"b\" \\ c""#)
        XCTAssertEqual(FrontMatterWriter.quote("x\ny\t\u{1}"), #""x\ny\t\x01""#)
        XCTAssertEqual(FrontMatterWriter.quote("日本: #1"), "\"日本: #1\"")
    }
}
