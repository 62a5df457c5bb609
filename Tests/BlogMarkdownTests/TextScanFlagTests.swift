import XCTest
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
            case UInt8(ascii: "["), UInt8(ascii: ":"), UInt8(ascii: "w"), UInt8(ascii: "W"): flags |= 16
            case 0xEE where markers: flags |= 16
            default: break
            }
        }
        return flags
    }

    func testFlagsEqualTheByteByByteScan() {
        let pieces = ["a", "x", "W", "w", "*", "_", "~", "[", ":", "あ", "漢", "\u{E001}", "\u{E123}", " ", "\n", "。", "Z", "y"]
        var generator = SplitMix(seed: 0x7E57)
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
}
