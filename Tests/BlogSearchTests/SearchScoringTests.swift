import XCTest
import BlogSearch

final class SearchScoringTests: XCTestCase {
    let scoring = SearchScoring(avgText: 200)
    let title = 1, tags = 2, headings = 4, body = 8, code = 16

    /// A posting value: field mask, and body + code occurrences − 1 above it.
    private func value(_ mask: Int, occurrences: Int = 1) -> Int { mask | (occurrences - 1) << 5 }

    func testATermInTheTitleOutscoresTheSameTermAnywhereElseHoweverOften() {
        let inTitle = scoring.termScore(value: value(title), textLength: 200, idf: 1) + scoring.titleBonus(idf: 1)
        for occurrences in [1, 10, 1000] {
            let elsewhere = scoring.termScore(value: value(tags | headings | body | code, occurrences: occurrences), textLength: 20, idf: 1)
            XCTAssertGreaterThan(inTitle, elsewhere, "\(occurrences) occurrences")
        }
    }

    func testMoreOccurrencesAndShorterTextsScoreHigher() {
        let once = scoring.termScore(value: value(body), textLength: 200, idf: 1)
        let often = scoring.termScore(value: value(body, occurrences: 5), textLength: 200, idf: 1)
        let short = scoring.termScore(value: value(body), textLength: 20, idf: 1)
        XCTAssertGreaterThan(often, once)
        XCTAssertGreaterThan(short, once)
        XCTAssertEqual(scoring.termScore(value: value(body), textLength: 200, idf: 2), 2 * once, accuracy: 1e-12)
        XCTAssertLessThan(scoring.termScore(value: value(code), textLength: 200, idf: 1), once, "code weighs less than prose")
    }

    func testRarerTermsWeighMore() {
        XCTAssertGreaterThan(SearchScoring.idf(documents: 1000, containing: 3), SearchScoring.idf(documents: 1000, containing: 300))
        XCTAssertGreaterThan(SearchScoring.idf(documents: 1000, containing: 1000), 0)
    }

    func testPrefixAndTypoMatchesCountLessThanExactOnes() {
        XCTAssertLessThan(SearchScoring.fuzzyFactor, SearchScoring.prefixFactor)
        XCTAssertLessThan(SearchScoring.prefixFactor, 1)
    }

    func testACJKWordWeighsAsMuchAsALatinWord() {
        // `URLSessionを使う`: one lookup for the word, two bigrams covering を使う.
        let shares = SearchScoring.shares(lookupsPerWord: [1, 2])
        XCTAssertEqual(shares, [1, 0.5, 0.5])
        XCTAssertEqual(shares[1] + shares[2], shares[0])
    }

    func testTitlesHoldingEveryTermComeFirstThenScoreThenNewer() {
        let matches = [SearchScoring.Match(doc: 0, score: 9, titleHasAll: false),
                       SearchScoring.Match(doc: 5, score: 2, titleHasAll: true),
                       SearchScoring.Match(doc: 3, score: 2, titleHasAll: true),
                       SearchScoring.Match(doc: 1, score: 4, titleHasAll: false)]
        XCTAssertEqual(matches.sorted(by: SearchScoring.precedes).map(\.doc), [3, 5, 0, 1])
    }
}
