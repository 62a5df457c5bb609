import XCTest
@testable import BlogMarkdown

/// The HTML escaper finds `&`, `<`, `>` and `"` eight bytes at a time (the position within a word
/// from its bit, the tail as the buffer's last word with the bytes already seen masked off). These
/// compare both appenders with a byte-by-byte reference on buffers of every length up to a few
/// words, each special byte (and its neighbours in the bit tricks: `=`, `?`, `'`, `$`, `"`|0x80...)
/// at every offset, after ASCII, Japanese and mixed text, including at the end of a buffer that is a
/// slice of a larger one (bytes after the slice must not be read as part of it).
final class EscapeTests: XCTestCase {
    private func reference(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for b in bytes {
            switch b {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            default: out.append(b)
            }
        }
        return out
    }

    private func check(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let expected = reference(bytes)
        // the buffer is followed by special bytes that are not part of it
        let padded = bytes + Array("<&\">".utf8)
        padded.withUnsafeBufferPointer { whole in
            let view = UnsafeBufferPointer(rebasing: whole[0..<bytes.count])
            var buffer = ByteBuffer(capacity: 0)
            defer { buffer.deallocate() }
            buffer.appendEscaped(view)
            XCTAssertEqual(Array(buffer.bytes), expected, "ByteBuffer: \(bytes)", file: file, line: line)
            var array: [UInt8] = [0x41]
            appendEscaped(&array, view)
            XCTAssertEqual(Array(array.dropFirst()), expected, "array: \(bytes)", file: file, line: line)
        }
    }

    func testEverySpecialByteAtEveryOffset() {
        let specials: [UInt8] = [0x26, 0x3C, 0x3E, 0x22]
        // bytes one bit away from the special ones (what `| 2` / `| 4` and the carry trick could confuse)
        let neighbours: [UInt8] = [0x20, 0x21, 0x23, 0x24, 0x25, 0x27, 0x2E, 0x3A, 0x3B, 0x3D, 0x3F, 0x00, 0x01, 0x7F,
                                   0x80, 0xA2, 0xA6, 0xBC, 0xBE, 0xE3, 0xFF]
        let fillers: [[UInt8]] = [Array("a".utf8), Array("あ".utf8), Array("aあ".utf8), [0x3D], [0x3F], [0x00]]
        for filler in fillers {
            for length in 0...40 {
                var base: [UInt8] = []
                while base.count < length { base += filler }
                base = Array(base.prefix(length))
                check(base)
                for at in 0..<length {
                    for s in specials + neighbours {
                        var b = base
                        b[at] = s
                        check(b)
                    }
                }
            }
        }
    }

    func testRunsOfSpecialBytes() {
        for length in 0...33 {
            for s in [UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\"")] {
                check([UInt8](repeating: s, count: length))
                check((0..<length).map { $0 % 2 == 0 ? s : UInt8(ascii: "=") })
            }
        }
    }

    func testRandomBuffers() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        let alphabet: [UInt8] = Array("ab<>&\"'=?$ \n".utf8) + [0xE3, 0x81, 0x82, 0xBC, 0xA6, 0x00]
        for _ in 0..<3000 {
            let length = Int(next() % 70)
            check((0..<length).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] })
        }
    }

    func testHTMLEscapeBitsMarkExactlyTheSpecialBytes() {
        for b in 0...255 {
            for at in 0..<8 {
                let x = UInt64(0x4141_4141_4141_4141) & ~(UInt64(0xFF) << (8 * UInt64(at))) | (UInt64(b) << (8 * UInt64(at)))
                let special = b == 0x26 || b == 0x3C || b == 0x3E || b == 0x22
                XCTAssertEqual(htmlEscapeBits(x), special ? UInt64(0x80) << (8 * UInt64(at)) : 0, "byte \(b) at \(at)")
            }
        }
    }
}
