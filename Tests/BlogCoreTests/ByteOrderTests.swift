import XCTest
@testable import BlogCore

/// `ByteOrder` must order strings exactly as `String`'s `<` does, including strings that are
/// canonically equal with different bytes and differences next to combining marks.
final class ByteOrderTests: XCTestCase {
    /// Pieces that meet at every kind of boundary: ASCII, precomposed and combining forms of the
    /// same characters, kana with a combining voiced mark, a character NFC replaces (U+212B), a
    /// starter that composes with a following vowel (Hangul), and long ASCII runs for the
    /// word-at-a-time scan.
    private let pieces = ["", "a", "b", "e", "z", "/", "-", "0", "A", "é", "e\u{301}", "\u{301}", "\u{327}", "か", "\u{3099}", "が",
                          "ｶ", "😀", "Å", "A\u{30A}", "\u{212B}", "\u{1100}", "\u{1161}", "가", "posts/gen0001", "index.html", "tags/"]

    private func randomString(_ generator: inout some RandomNumberGenerator) -> String {
        var s = ""
        for _ in 0..<Int.random(in: 0...5, using: &generator) { s += pieces.randomElement(using: &generator)! }
        return s
    }

    func testAgreesWithStringOnRandomPairs() {
        var generator = SystemRandomNumberGenerator()
        let strings = (0..<600).map { _ in randomString(&generator) }
        var asciiPairs = 0
        for a in strings {
            for b in strings {
                XCTAssertEqual(ByteOrder.less(a, b), a < b, "\(Array(a.unicodeScalars)) < \(Array(b.unicodeScalars))")
                // The bytes must decide every pair of ASCII strings, or the fast path is not doing its job.
                if a.utf8.allSatisfy({ $0 < 0x80 }) && b.utf8.allSatisfy({ $0 < 0x80 }) {
                    asciiPairs += 1
                    XCTAssertNotNil(ByteOrder.decidedByBytes(a, b), "\(a) vs \(b)")
                }
            }
        }
        XCTAssertGreaterThan(asciiPairs, 1000)
    }

    func testEveryPairOfPiecesWithSharedPrefixes() {
        for prefix in ["", "posts/", "posts/が", "x\u{301}", "longer-ascii-prefix-"] {
            for a in pieces {
                for b in pieces {
                    for tail in ["", "x", "\u{301}"] {
                        let x = prefix + a + tail, y = prefix + b
                        XCTAssertEqual(ByteOrder.less(x, y), x < y, "\(Array(x.unicodeScalars)) < \(Array(y.unicodeScalars))")
                        XCTAssertEqual(ByteOrder.less(y, x), y < x, "\(Array(y.unicodeScalars)) < \(Array(x.unicodeScalars))")
                    }
                }
            }
        }
    }

    func testAsciiIsDecidedByBytes() {
        let pairs = [("posts/gen0001/index.html", "posts/gen0002/index.html"), ("tags/swift", "tags/swift/feed.xml"),
                     ("a", "b"), ("same", "same"), ("", "a")]
        for (a, b) in pairs {
            XCTAssertNotNil(ByteOrder.decidedByBytes(a, b), "\(a) vs \(b)")
            XCTAssertEqual(ByteOrder.less(a, b), a < b)
        }
    }

    func testSortedMatchesStringSort() {
        var generator = SystemRandomNumberGenerator()
        var strings = (0..<3000).map { _ in randomString(&generator) }
        strings += (0..<3000).map { "posts/gen\(String($0 * 7919 % 10000))/index.html" }
        XCTAssertEqual(ByteOrder.sorted(strings), strings.sorted())
    }
}
