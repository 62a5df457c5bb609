@testable import BlogCore
import TestSupport
import XCTest

/// `SourceText.firstInvalidUTF8`'s 16-byte paths (ASCII loads, five kana or kanji a load, the
/// switches between them) against the standard library's UTF-8 parser, on generated text.
final class UTF8ValidationTests: XCTestCase {
    /// Offset of the first invalid sequence as the standard library's UTF-8 parser sees it.
    static func reference(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    func testSignBitsMatchTheLanes() {
        var generator = SplitMix64(seed: 1)
        var vectors: [SIMD16<UInt8>] = [.zero, SIMD16(repeating: 0xFF), SIMD16(repeating: 0x80), SIMD16(repeating: 0x7F)]
        for k in 0..<16 {
            var v = SIMD16<UInt8>.zero
            v[k] = 0x80
            vectors.append(v)
            vectors.append(SIMD16(repeating: 0xFF) ^ v)
        }
        for _ in 0..<2000 {
            var v = SIMD16<UInt8>.zero
            for k in 0..<16 { v[k] = UInt8.random(in: 0...255, using: &generator) }
            vectors.append(v)
        }
        for v in vectors {
            var expected = 0
            for k in 0..<16 where v[k] >= 0x80 { expected |= 1 << k }
            XCTAssertEqual(SourceText.signBits(v), expected, "\(v)")
            XCTAssertEqual(SourceText.portableSignBits(v), expected, "\(v)")
        }
    }

    /// Text of short runs of ASCII, kana, kanji, fullwidth forms and other lengths (the runs that
    /// switch between the checks), with random bytes written over, dropped or inserted.
    func testGeneratedTextAgreesWithTheReference() {
        let pieces = ["a", "ab", "abc", "abcdefg", "abcdefghijklmno", "abcdefghijklmnopqrstuvwxyz0123456789", " ", "\n", "`",
                      "か", "かな", "日本語", "読み込みプロトコル型", "漢字かなカナ漢字かなカナ漢字かなカナ", "。", "「」", "（）", "ｆｕｌｌ",
                      "→", "…", "é", "×", "ß", "🍣", "😀", "\u{7FF}", "\u{800}", "\u{FFF}", "\u{1000}", "\u{D7FF}", "\u{E000}",
                      "\u{FFFF}", "\u{10000}", "\u{10FFFF}"].map { Array($0.utf8) }
        var generator = SplitMix64(seed: 42)
        var invalid = 0
        for round in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...40, using: &generator) { bytes += pieces.randomElement(using: &generator)! }
            for _ in 0..<Int.random(in: 0...3, using: &generator) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: at)
                default: bytes.insert(UInt8.random(in: 0x80...0xFF, using: &generator), at: at)
                }
            }
            let expected = UTF8ValidationTests.reference(bytes)
            if expected != nil { invalid += 1 }
            XCTAssertEqual(SourceText.firstInvalidUTF8(bytes[...]), expected, "round \(round): \(bytes)")
            // The same bytes at another start (other alignments of the 16-byte loads).
            let shifted = ([0x41, 0x42, 0x43] + bytes)[3...]
            XCTAssertEqual(SourceText.firstInvalidUTF8(shifted), expected.map { $0 + 3 }, "round \(round), shifted")
        }
        // Both kinds of input were generated, many of each.
        XCTAssertGreaterThan(invalid, 2000)
        XCTAssertLessThan(invalid, 18_000)
    }

    /// k ASCII bytes (0…33, across the 16-byte loads), then a run of kana and kanji, then ASCII:
    /// valid as it is, and with each bad sequence written at every position.
    func testEveryAlignmentAndPositionAroundTheLoads() {
        let bad: [[UInt8]] = [[0x80], [0xBF], [0xC1, 0x80], [0xC2], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xE3, 0x81],
                              [0xE3, 0x41, 0x81], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x8D], [0xFF]]
        let run = Array("日本語のテキストです漢字".utf8)
        for k in 0...33 {
            let valid = Array(repeating: UInt8(0x61), count: k) + run + Array("xyz".utf8) + run
            XCTAssertNil(SourceText.firstInvalidUTF8(valid[...]), "\(k)")
            for cut in 0...valid.count {
                let prefix = Array(valid[..<cut])
                XCTAssertEqual(SourceText.firstInvalidUTF8(prefix[...]), UTF8ValidationTests.reference(prefix), "\(k) cut at \(cut)")
            }
            for sequence in bad {
                for position in 0..<valid.count {
                    var bytes = valid
                    for (j, byte) in sequence.enumerated() where position + j < bytes.count { bytes[position + j] = byte }
                    XCTAssertEqual(SourceText.firstInvalidUTF8(bytes[...]), UTF8ValidationTests.reference(bytes),
                                   "\(sequence) over \(position) after \(k) ASCII bytes")
                }
            }
        }
    }
}
