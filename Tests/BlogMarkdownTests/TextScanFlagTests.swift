import XCTest
import TestSupport
@testable import BlogMarkdown

/// `Transformer.scanText` against a byte-by-byte reference, with and without the pre-pass's
/// markers (without them the eight-byte loop leaves out the 0xEE test), on literals of every
/// length up to 40 made of ASCII, Japanese, the bytes it looks for and private-use characters.
final class TextScanFlagTests: XCTestCase {
    func reference(_ bytes: [UInt8], markers: Bool) -> Int {
        var flags = 2 // scanned
        for b in bytes {
            switch b {
            case UInt8(ascii: "*"), UInt8(ascii: "_"): flags |= 4
            case UInt8(ascii: "~"): flags |= 8
            case UInt8(ascii: "["), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "w"), UInt8(ascii: "W"): flags |= 16
            case 0xEE where markers: flags |= 16
            default: break
            }
        }
        return flags
    }

    func testFlagsEqualTheByteByByteScan() {
        let pieces = ["a", "x", "W", "w", "*", "_", "~", "[", ":", "@", "あ", "漢", "\u{E001}", "\u{E123}", " ", "\n", "。", "Z", "y"]
        var generator = SplitMix64(seed: 0x7E57)
        var checked = 0
        for length in 0...40 {
            for _ in 0..<60 {
                var text = ""
                while text.utf8.count < length { text += pieces[Int(generator.next() % UInt64(pieces.count))] }
                let bytes = Array(text.utf8)
                for markers in [true, false] {
                    let flags = bytes.withUnsafeBufferPointer { Transformer.scanText($0, markers: markers) }
                    XCTAssertEqual(flags, reference(bytes, markers: markers), "\(text.debugDescription) markers: \(markers)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 4_000)
    }

    /// `httpPrefixLength` (one word compare) against a byte-by-byte ASCII case-insensitive prefix test,
    /// on every string of up to 10 bytes over letters of both prefixes in both cases and near misses.
    func testHTTPPrefixEqualsTheByteLoop() {
        func reference(_ b: [UInt8]) -> Int {
            func has(_ p: String) -> Bool {
                let p = Array(p.utf8)
                return b.count >= p.count && zip(b, p).allSatisfy { $0.lowerASCII == $1 }
            }
            return has("http://") ? 7 : has("https://") ? 8 : 0
        }
        let alphabet: [UInt8] = Array("hHtTpPsS:/".utf8) + [0x1A, 0x0F, 0x50 | 0x80, 0x00]
        var generator = SplitMix64(seed: 0x4854)
        var cases = ["http://", "https://", "HTTP://x", "HtTpS://", "http:/", "https:/", "https", "ftp://", "http:///", ""].map { Array($0.utf8) }
        for _ in 0..<20_000 {
            let n = Int(generator.next() % 11)
            var b = Array("https://".utf8.prefix(n))
            for k in 0..<b.count where generator.next() % 3 == 0 { b[k] = alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            cases.append(b)
        }
        for b in cases {
            XCTAssertEqual(b.withUnsafeBufferPointer { Transformer.httpPrefixLength($0) }, reference(b), "\(b)")
        }
    }

    /// `HeadingID.makeBytes` (which copies runs of kana and kanji at once) against `makeGeneral`
    /// (`lowercased()` and Unicode properties per scalar) on mixed generated headings.
    func testHeadingIDBytesEqualTheGeneralPath() {
        let pieces = ["あ", "ん", "ア", "ヶ", "ー", "・", "漢", "字", "鿿", "〜", "々", "　", "、", "a", "Z", "1", " ", "-", "_", "!",
                      "é", "Ω", "한", "😀", "\u{3097}", "\u{30FB}", "\u{4DFF}", "\u{A000}", "ゝ", "ヿ"]
        var generator = SplitMix64(seed: 0x1D)
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<Int(generator.next() % 16) { text += pieces[Int(generator.next() % UInt64(pieces.count))] }
            let bytes = Array(text.utf8)
            guard let fast = bytes.withUnsafeBufferPointer({ HeadingID.makeBytes($0) }) else { continue }
            XCTAssertEqual(String(decoding: fast, as: UTF8.self), HeadingID.makeGeneral(text), text.debugDescription)
        }
    }
}
