import XCTest
import BlogSearch

final class SearchTypoTests: XCTestCase {
    private func word(_ typed: String) -> String { SearchTokenizer.queryTerms(typed)[0] }

    func testTheReportedMisspellingsAreOneEditAway() {
        XCTAssertEqual(SearchTypo.edits(from: word("Notifcation"), to: "notification"), 1)
        XCTAssertEqual(SearchTypo.edits(from: word("Storybord"), to: "storyboard"), 1)
        XCTAssertEqual(SearchTypo.edits(from: word("NotificatonCenter"), to: "notificationcenter"), 1)
        XCTAssertEqual(SearchTypo.edits(from: word("URLSesion"), to: "urlsession"), 1)
    }

    func testSwappedNeighboursCountAsOneEdit() {
        XCTAssertEqual(SearchTypo.edits(from: "notfiication", to: "notification"), 1)
        XCTAssertEqual(SearchTypo.distance(Array("abcd".unicodeScalars), Array("abdc".unicodeScalars), limit: 3), 1)
        XCTAssertEqual(SearchTypo.distance(Array("kitten".unicodeScalars), Array("sitting".unicodeScalars), limit: 5), 3)
        XCTAssertEqual(SearchTypo.distance(Array("kitten".unicodeScalars), Array("sitting".unicodeScalars), limit: 2), 3)
    }

    func testTwoEditsOnlyFromNineCharacters() {
        XCTAssertEqual(SearchTypo.maxEdits(length: 4), 0)
        XCTAssertEqual(SearchTypo.maxEdits(length: 5), 1)
        XCTAssertEqual(SearchTypo.maxEdits(length: 8), 1)
        XCTAssertEqual(SearchTypo.maxEdits(length: 9), 2)
        XCTAssertEqual(SearchTypo.edits(from: "notifcaton", to: "notification"), 2)
        XCTAssertNil(SearchTypo.edits(from: "notfcatn", to: "notification"))
        XCTAssertNil(SearchTypo.edits(from: "codabeel", to: "codable"), "8 characters take one edit only")
        XCTAssertNil(SearchTypo.edits(from: "swft", to: "swift"), "4 characters are too short to correct")
    }

    func testNamespacePrefixesAndVersionsAreNeverChanged() {
        XCTAssertNil(SearchTypo.edits(from: "nstableview", to: "uitableview"))
        XCTAssertNil(SearchTypo.edits(from: "ios18", to: "ios17"))
        XCTAssertNil(SearchTypo.edits(from: "swiftui4", to: "swiftui3"))
        XCTAssertNil(SearchTypo.edits(from: "swiftui", to: "swiftui3"), "adding a digit is a version too")
        XCTAssertNil(SearchTypo.edits(from: "tsoryboard", to: "storyboard"))
    }

    func testCJKIsNeverCorrected() {
        XCTAssertNil(SearchTypo.edits(from: "コンバイン", to: "コンバイ"))
        XCTAssertNil(SearchTypo.edits(from: "notifcation", to: "notifi通知"))
        XCTAssertNil(SearchTypo.edits(from: "notification", to: "notification"), "the word itself is no correction")
    }

    func testBestPrefersFewerEditsThenMoreDocumentsThenTermOrder() {
        let candidates = [SearchTypo.Candidate(term: "notifications", documents: 9),
                          SearchTypo.Candidate(term: "notification", documents: 3),
                          SearchTypo.Candidate(term: "uitableview", documents: 50)]
        XCTAssertEqual(SearchTypo.best(for: "notifcation", among: candidates)?.candidate.term, "notification")
        XCTAssertEqual(SearchTypo.best(for: "notifcations", among: candidates)?.candidate.term, "notifications")
        let tied = [SearchTypo.Candidate(term: "codabels", documents: 2), SearchTypo.Candidate(term: "codable", documents: 2)]
        // One edit each (a swap, an insertion); "codabe…" sorts before "codabl…".
        XCTAssertEqual(SearchTypo.best(for: "codabel", among: tied)?.candidate.term, "codabels")
        let popular = [SearchTypo.Candidate(term: "codabels", documents: 1), SearchTypo.Candidate(term: "codable", documents: 5)]
        XCTAssertEqual(SearchTypo.best(for: "codabel", among: popular)?.candidate.term, "codable")
        XCTAssertNil(SearchTypo.best(for: "nstableview", among: candidates))
    }

    func testRecaseKeepsTheTypedLetterCase() {
        XCTAssertEqual(SearchTypo.recase("Notifcation", as: "notification"), "Notification")
        XCTAssertEqual(SearchTypo.recase("URLSesion", as: "urlsession"), "URLSession")
        XCTAssertEqual(SearchTypo.recase("NotificatonCenter", as: "notificationcenter"), "NotificationCenter")
        XCTAssertEqual(SearchTypo.recase("UILabl", as: "uilabel"), "UILabel")
        XCTAssertEqual(SearchTypo.recase("UIVIEWCONTROLER", as: "uiviewcontroller"), "UIVIEWCONTROLLER")
        XCTAssertEqual(SearchTypo.recase("storybord", as: "storyboard"), "storyboard")
    }
}
