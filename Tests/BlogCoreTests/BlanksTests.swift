import Foundation
import XCTest
import BlogCore

/// `trimmingBlanks` and `isBlank` must say what Foundation's `.whitespaces` trimming says.
final class BlanksTests: XCTestCase {
    private let pieces = ["", " ", "\t", "\u{3000}", "\u{00A0}", "\u{2003}", "\u{200B}", "\n", "\r\n", "a", "あ", "Swift",
                          "e\u{301}", "👍", " x ", "\u{3000}タグ\u{3000}", "\u{FEFF}"]

    func testMatchesFoundationOnCombinations() {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = a + b + c
                    XCTAssertEqual(s.trimmingBlanks, s.trimmingCharacters(in: .whitespaces), "\(s.unicodeScalars.map { String($0.value, radix: 16) })")
                    XCTAssertEqual(s.isBlank, s.trimmingCharacters(in: .whitespaces).isEmpty, "\(s.unicodeScalars.map { String($0.value, radix: 16) })")
                    checked += 1
                }
            }
        }
        for _ in 0..<500 {
            let s = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            XCTAssertEqual(s.trimmingBlanks, s.trimmingCharacters(in: .whitespaces))
        }
        XCTAssertEqual(checked, pieces.count * pieces.count * pieces.count)
    }

    func testEveryCharacterOfTheBMPIsBlankExactlyWhenFoundationTrimsIt() {
        var differing: [String] = []
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let s = "a" + String(Character(scalar)) + "b"
            let lone = String(Character(scalar))
            // At either end too (text with an ASCII non-blank at both ends is answered at once).
            let leading = String(Character(scalar)) + "b", trailing = "a" + String(Character(scalar))
            if scalar.isBlank != lone.trimmingCharacters(in: .whitespaces).isEmpty
                || s.trimmingBlanks != s.trimmingCharacters(in: .whitespaces)
                || leading.trimmingBlanks != leading.trimmingCharacters(in: .whitespaces)
                || trailing.trimmingBlanks != trailing.trimmingCharacters(in: .whitespaces) {
                differing.append(String(value, radix: 16))
            }
        }
        XCTAssertEqual(differing, [])
    }
}
